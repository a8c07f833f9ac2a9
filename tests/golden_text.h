/*
 * Golden text files shared by the test programs: a text checked against a
 * file (rewritten first when TESSEL_UPDATE_GOLDEN=1, to be reviewed by
 * eye), and sketches written as such a text. Header-only; include after
 * tap.h and tessel/tessel.h.
 */
#ifndef TESSEL_TESTS_GOLDEN_TEXT_H
#define TESSEL_TESTS_GOLDEN_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One TAP check: `text` equals the file at `path`, the check named by the
 * printf-style rest. */
static inline void golden_is(const char *text, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void golden_is(const char *text, const char *path, const char *fmt, ...) {
  const char *up = getenv("TESSEL_UPDATE_GOLDEN");
  if (text && up && !strcmp(up, "1")) {
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0)
      tap_diag("cannot rewrite %s", path);
    if (f)
      fclose(f);
  }
  char *want = NULL, name[512];
  size_t n;
  tsl_diag d = {0};
  if (tsl_read_file(path, &want, &n, &d) != TSL_OK)
    want = NULL;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  is_str(text ? text : "(out of memory)", want ? want : "(missing)", "%s", name);
  free(want);
}

/* Sketches as a golden text: "# sketch I of N" and the trace as a script
 * with its decisions, a blank line between two. Heap string (free()). */
static inline char *golden_sketches_text(tsl_trace *const *sk, uint32_t n) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  for (uint32_t i = 0; i < n; i++) {
    char *t = tsl_trace_to_script(sk[i], 1);
    tsl_strbuf_printf(&sb, "%s# sketch %u of %u\n%s", i ? "\n" : "", i + 1, n, t);
    free(t);
  }
  return tsl_strbuf_take(&sb);
}

#endif
