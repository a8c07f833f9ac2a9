/*
 * Replays the committed fuzz corpus and the saved regressions through the parser (and, for inputs that
 * parse, the printer and equality) in the normal build, one TAP case per
 * file: each must parse or fail with a located error, and never crash.
 */
#include "tap.h"
#include "tessel/relax.h"
#include "tessel/tessel.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* per_file: one TAP case per input (regressions); otherwise one case for the
 * whole directory, with failing inputs listed as diagnostics (corpus). */
static void replay_dir(const char *dir, int per_file, int *parsed,
                       int *rejected) {
  DIR *d = opendir(dir);
  if (!ok(d != NULL, "directory %s exists", dir))
    return;
  char **names = NULL;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    names = realloc(names, (n + 1) * sizeof *names);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    char *src;
    size_t len;
    tsl_diag diag = {0};
    if (tsl_read_file(path, &src, &len, &diag) != TSL_OK) {
      ok(0, "read %s", names[i]);
      bad++;
      free(names[i]);
      continue;
    }
    tsl_ctx *ctx = tsl_ctx_new();
    tsl_arena *arena = tsl_arena_new(ctx);
    const tsl_module *m = NULL;
    int rc = tsl_parse(arena, names[i], src, len, &m, &diag);
    int good;
    if (rc == TSL_OK) {
      (*parsed)++;
      char *text = tsl_print_module(m);
      const tsl_module *m2 = NULL;
      good = tsl_parse(arena, "printed", text, strlen(text), &m2, &diag) == TSL_OK &&
             tsl_module_equal(m, m2, NULL, 0);
      free(text);
    } else {
      (*rejected)++;
      good = strstr(diag.text, ": error: ") != NULL;
    }
    const tsl_model *model = NULL; /* and as a model */
    if (tsl_parse_model(arena, names[i], src, len, &model, &diag) != TSL_OK) {
      good &= strstr(diag.text, ": error: ") != NULL;
    } else if (model->n_rx_funcs) {
      char *text = tsl_model_print(model), *again = NULL;
      const tsl_model *back = NULL;
      if (tsl_parse_model(arena, "printed", text, strlen(text), &back, &diag) == TSL_OK)
        again = tsl_model_print(back);
      good &= again && !strcmp(text, again);
      free(again);
      free(text);
    }
    const char *what = rc == TSL_OK ? "round-trips" : "is rejected with a located error";
    if (per_file)
      ok(good, "%s %s", names[i], what);
    else if (!good)
      tap_diag("FAILED: %s/%s: expected it %s", dir, names[i], what);
    bad += !good;
    tsl_arena_free(arena);
    tsl_ctx_free(ctx);
    free(src);
    free(names[i]);
  }
  free(names);
  if (!per_file)
    ok(bad == 0 && n > 0, "all %zu inputs of %s round-trip or are rejected with a located error (%zu failed)", n, dir, bad);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  int parsed = 0, rejected = 0;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus", root ? root : ".");
  replay_dir(dir, 0, &parsed, &rejected);
  snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions", root ? root : ".");
  replay_dir(dir, 1, &parsed, &rejected);
  tap_diag("%d inputs parsed, %d rejected", parsed, rejected);
  return tap_done();
}
