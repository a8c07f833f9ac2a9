/*
 * test_roundtrip — every TVMScript program shipped with tessel (workloads/
 * and tests/programs/, passed as arguments by meson) survives the printer:
 *   parse -> print -> parse -> structurally equal -> print -> same text.
 * Six TAP cases per file: "parses", "printed text reparses", "reparsed
 * module is structurally equal", "printing is idempotent", plus two guards
 * that keep the equality case meaningful: the two modules hash alike
 * (hashing agrees with equality), and the module is NOT equal to the
 * previous file's module (all programs differ structurally). When an
 * earlier step fails the later cases of that file fail too (with a note),
 * so the case count does not depend on which component is broken.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/analysis.h"
#include "tessel/script.h"
#include "tap.h"

/* "workloads/x.py" or "tests/programs/x.py" for case names: the last two
 * path components (meson passes paths such as
 * /src/tests/programs/../../workloads/x.py). */
static const char *short_name(const char *path, char *buf, size_t cap) {
  const char *base = strrchr(path, '/');
  if (!base) {
    snprintf(buf, cap, "%s", path);
    return buf;
  }
  const char *dir = base;
  while (dir > path && dir[-1] != '/')
    dir--;
  int dir_len = (int)(base - dir);
  int is_programs = dir_len == 8 && strncmp(dir, "programs", 8) == 0;
  snprintf(buf, cap, "%s%.*s%s", is_programs ? "tests/" : "", dir_len, dir,
           base);
  return buf;
}

/* Print up to `max_lines` lines of `text`, numbered, as TAP diagnostics. */
static void diag_text(const char *label, const char *text, int max_lines) {
  tap_diag("  %s:", label);
  int line = 1;
  const char *p = text;
  while (*p && line <= max_lines) {
    const char *nl = strchr(p, '\n');
    int n = nl ? (int)(nl - p) : (int)strlen(p);
    tap_diag("  %4d| %.*s", line, n, p);
    line++;
    p = nl ? nl + 1 : p + n;
  }
  if (*p)
    tap_diag("  ... (truncated)");
}

/* Show the first line where `a` and `b` differ, with both versions. */
static void diag_first_difference(const char *a, const char *b) {
  int line = 1;
  const char *pa = a, *pb = b;
  for (;;) {
    const char *ea = strchr(pa, '\n'), *eb = strchr(pb, '\n');
    size_t na = ea ? (size_t)(ea - pa) : strlen(pa);
    size_t nb = eb ? (size_t)(eb - pb) : strlen(pb);
    if (na != nb || memcmp(pa, pb, na) != 0 || (!ea) != (!eb)) {
      tap_diag("  first difference at line %d:", line);
      tap_diag("    first print : %.*s", (int)na, pa);
      tap_diag("    second print: %.*s", (int)nb, pb);
      tap_diag("  (hint: run `tessel fmt` on the file twice and diff the "
               "outputs)");
      return;
    }
    if (!ea)
      break;
    pa = ea + 1;
    pb = eb + 1;
    line++;
  }
  tap_diag("  texts differ only in length (%zu vs %zu bytes)", strlen(a),
           strlen(b));
}

#define N_PROPS 6
static void fail_rest(const char *name, int from, const char *why) {
  static const char *props[N_PROPS] = {
      "parses", "printed text reparses",
      "reparsed module is structurally equal", "printing is idempotent",
      "reparsed module hashes alike", "differs from the previous program"};
  for (int k = from; k < N_PROPS; k++)
    ok(0, "%s: %s (%s)", name, props[k], why);
}

/* The previous file's module (kept alive for the "differs" guard). */
typedef struct prev_module {
  tsl_arena *arena;
  const tsl_module *m;
  char name[512];
} prev_module;

static void check_file(tsl_ctx *ctx, const char *path, prev_module *prev) {
  char name_buf[512];
  const char *name = short_name(path, name_buf, sizeof name_buf);
  tsl_diag diag;
  memset(&diag, 0, sizeof diag);

  tsl_arena *a1 = tsl_arena_new(ctx);
  tsl_arena *a2 = tsl_arena_new(ctx);
  char *text1 = NULL, *text2 = NULL;
  const tsl_module *m1 = NULL, *m2 = NULL;

  int rc = tsl_parse_file(a1, path, &m1, &diag);
  if (!ok(rc == TSL_OK && m1 != NULL, "%s: parses", name)) {
    tap_diag("  status %d (%s)", rc, tsl_status_name(rc));
    tap_diag("%s", diag.text);
    fail_rest(name, 1, "parse failed");
    goto done;
  }

  text1 = tsl_print_module(m1);
  if (!text1 || !*text1) {
    ok(0, "%s: printed text reparses", name);
    tap_diag("  tsl_print_module returned %s", text1 ? "\"\"" : "NULL");
    fail_rest(name, 2, "print failed");
    goto done;
  }
  char printed_name[600];
  snprintf(printed_name, sizeof printed_name, "%s (printed)", name);
  memset(&diag, 0, sizeof diag);
  rc = tsl_parse(a2, printed_name, text1, strlen(text1), &m2, &diag);
  if (!ok(rc == TSL_OK && m2 != NULL, "%s: printed text reparses", name)) {
    tap_diag("  status %d (%s)", rc, tsl_status_name(rc));
    tap_diag("%s", diag.text);
    diag_text("printed text", text1, 60);
    fail_rest(name, 2, "reparse failed");
    goto done;
  }

  char why[1024];
  why[0] = '\0';
  int eq = tsl_module_equal(m1, m2, why, sizeof why);
  if (!ok(eq == 1, "%s: reparsed module is structurally equal", name)) {
    tap_diag("  first difference: %s", why[0] ? why : "(no path given)");
  }

  text2 = tsl_print_module(m2);
  if (!ok(text2 != NULL && strcmp(text1, text2) == 0,
          "%s: printing is idempotent", name)) {
    if (text2)
      diag_first_difference(text1, text2);
    else
      tap_diag("  second tsl_print_module returned NULL");
  }

  uint64_t h1 = tsl_module_hash(m1), h2 = tsl_module_hash(m2);
  if (!ok(h1 == h2, "%s: reparsed module hashes alike", name))
    tap_diag("  hash %016llx vs %016llx", (unsigned long long)h1,
             (unsigned long long)h2);

  if (prev->m) {
    why[0] = '\0';
    int same = tsl_module_equal(prev->m, m1, why, sizeof why);
    if (!ok(same == 0, "%s: differs from the previous program (%s)", name,
            prev->name))
      tap_diag("  tsl_module_equal says the two programs are equal");
  } else {
    /* the first file has no predecessor: check reflexivity instead */
    ok(tsl_module_equal(m1, m1, NULL, 0) == 1,
       "%s: equal to itself (first file, no previous program)", name);
  }
  tsl_arena_free(prev->arena);
  prev->arena = a1;
  prev->m = m1;
  snprintf(prev->name, sizeof prev->name, "%s", name);
  a1 = NULL;

done:
  free(text1);
  free(text2);
  tsl_arena_free(a2);
  if (a1)
    tsl_arena_free(a1);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    ok(0, "test_roundtrip needs the program files as arguments");
    return tap_done();
  }
  tsl_ctx *ctx = tsl_ctx_new();
  prev_module prev;
  memset(&prev, 0, sizeof prev);
  for (int i = 1; i < argc; i++)
    check_file(ctx, argv[i], &prev);
  tsl_arena_free(prev.arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
