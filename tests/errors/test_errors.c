/*
 * Golden error-message tests: every tests/errors/cases/NN_name.py must fail
 * to parse with exactly the diagnostic in NN_name.expected (file name,
 * line:col, message, source line, caret and note). One TAP case per file.
 * With TESSEL_UPDATE_GOLDEN=1 the .expected files are (re)written instead;
 * review every change by eye before keeping it.
 */
#include "tap.h"
#include "tessel/script.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)(len > 0 ? len : 0) + 1);
  size_t got = fread(buf, 1, (size_t)(len > 0 ? len : 0), f);
  buf[got] = '\0';
  fclose(f);
  *n = got;
  return buf;
}

/* Print both texts line by line, marking the first differing line. */
static void show_diff(const char *want, const char *got) {
  tap_diag("  --- expected\n%s\n  --- got\n%s", want, got);
  int line = 1;
  const char *a = want, *b = got;
  while (*a && *b && *a == *b) {
    if (*a == '\n')
      line++;
    a++;
    b++;
  }
  tap_diag("  first difference on line %d", line);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/errors/cases", root ? root : ".");
  int update = getenv("TESSEL_UPDATE_GOLDEN") && strcmp(getenv("TESSEL_UPDATE_GOLDEN"), "1") == 0;
  DIR *d = opendir(dir);
  if (!d) {
    ok(0, "open %s", dir);
    return tap_done();
  }
  char *names[512];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 512) {
    size_t l = strlen(e->d_name);
    if (l > 3 && strcmp(e->d_name + l - 3, ".py") == 0)
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_names);
  ok(n >= 20, "at least 20 error cases (found %d)", n);
  tsl_ctx *ctx = tsl_ctx_new();
  for (int i = 0; i < n; i++) {
    char path[4200], exp_path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    snprintf(exp_path, sizeof exp_path, "%.*s.expected", (int)(strlen(path) - 3), path);
    size_t len = 0, elen = 0;
    char *src = slurp(path, &len);
    tsl_arena *arena = tsl_arena_new(ctx);
    tsl_diag diag;
    memset(&diag, 0, sizeof diag);
    const tsl_module *m = NULL;
    int rc = src ? tsl_parse(arena, names[i], src, len, &m, &diag) : TSL_EIO;
    if (update && rc != TSL_OK) {
      FILE *f = fopen(exp_path, "wb");
      if (f) {
        fprintf(f, "%s\n", diag.text);
        fclose(f);
      }
    }
    char *want = slurp(exp_path, &elen);
    if (want && elen > 0 && want[elen - 1] == '\n')
      want[--elen] = '\0';
    int good = rc != TSL_OK && (rc == TSL_EPARSE || rc == TSL_EINVALID) && want &&
               strcmp(want, diag.text) == 0;
    ok(good, "%s", names[i]);
    if (!good) {
      if (rc == TSL_OK)
        tap_diag("  parsed without error");
      else if (!want)
        tap_diag("  missing %s; got:\n%s", exp_path, diag.text);
      else
        show_diff(want, diag.text);
    }
    free(want);
    free(src);
    free(names[i]);
    tsl_arena_free(arena);
  }
  tsl_ctx_free(ctx);
  return tap_done();
}
