/*
 * tests/tap.h — a minimal TAP producer for test programs.
 *
 *   int main(void) {
 *     ok(1 + 1 == 2, "addition");
 *     is_int(f(), 3, "f returns 3");
 *     return tap_done();   // prints the plan, exits 1 if anything failed
 *   }
 *
 * Every ok()/is_*() call is one TAP test case ("ok N - name"); meson runs the
 * programs with protocol 'tap' and `./tessel test` counts the cases.
 */
#ifndef TESSEL_TESTS_TAP_H
#define TESSEL_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count_ = 0;
static int tap_failed_ = 0;

/* A name is one TAP line: a newline in it (a message quoted in the name)
 * is printed as " / ". */
static inline int tap_okv_(int cond, const char *fmt, va_list ap) {
  char name[16384];
  tap_count_++;
  if (!cond)
    tap_failed_++;
  vsnprintf(name, sizeof name, fmt, ap);
  printf("%sok %d - ", cond ? "" : "not ", tap_count_);
  for (const char *c = name; *c; c++)
    if (*c == '\n')
      fputs(c[1] ? " / " : "", stdout);
    else
      putchar(*c);
  printf("\n");
  fflush(stdout);
  return cond;
}

static inline int ok(int cond, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = tap_okv_(cond, fmt, ap);
  va_end(ap);
  return r;
}

/* The sanitizer pass (tests/meson.build) sets TESSEL_TEST_LIGHT=1: a test
 * whose cost is repetition (more seeds of the same checks, the same
 * program run again in other loop orders) runs fewer repetitions there;
 * the plain pass runs them all. */
static inline int tap_light(void) {
  const char *v = getenv("TESSEL_TEST_LIGHT");
  return v && !strcmp(v, "1");
}

/* Diagnostics: lines prefixed with '# ' (multi-line text is split). */
static inline void tap_diag(const char *fmt, ...) {
  char buf[16384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *line = buf;
  while (line && *line) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    printf("# %s\n", line);
    line = nl ? nl + 1 : NULL;
  }
  fflush(stdout);
}

#define is_int(got, want, ...)                                                 \
  do {                                                                         \
    long long g_ = (long long)(got), w_ = (long long)(want);                   \
    if (!ok(g_ == w_, __VA_ARGS__))                                            \
      tap_diag("  got %lld, want %lld", g_, w_);                               \
  } while (0)

#define is_str(got, want, ...)                                                 \
  do {                                                                         \
    const char *g_ = (got), *w_ = (want);                                      \
    if (!ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__))                     \
      tap_diag("  got:\n%s\n  want:\n%s", g_ ? g_ : "(null)",                  \
               w_ ? w_ : "(null)");                                            \
  } while (0)

/* Skip a case: counted as a TAP "ok ... # SKIP", reported as skipped. */
static inline void tap_skip(const char *why, const char *name) {
  tap_count_++;
  printf("ok %d - %s # SKIP %s\n", tap_count_, name, why);
  fflush(stdout);
}

static inline int tap_done(void) {
  printf("1..%d\n", tap_count_);
  fflush(stdout);
  return tap_failed_ ? 1 : 0;
}

#endif /* TESSEL_TESTS_TAP_H */
