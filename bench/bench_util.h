/*
 * bench/bench_util.h — what every benchmark program shares: the monotonic
 * clock in seconds and the median of samples.
 */
#ifndef TESSEL_BENCH_UTIL_H
#define TESSEL_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v in place. */
static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* How far the smallest of v[0..n) (n <= 64) lies below their median, in
 * percent: a tuner's worst seed. v is left as it was. */
static inline double bench_worst_below_median(const double *v, int n) {
  double c[64], lo = v[0];
  n = n > 64 ? 64 : n;
  for (int i = 0; i < n; i++) {
    c[i] = v[i];
    lo = v[i] < lo ? v[i] : lo;
  }
  double m = bench_median(c, n);
  return m > 0 ? 100 * (m - lo) / m : 0;
}

/* Whether the comma-separated `list` (an --only) names `name` as one of
 * its items: "m128x1" names "m128x1", not "m128". */
static inline int bench_named(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *p = list; len && (p = strstr(p, name)); p += len)
    if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
      return 1;
  return 0;
}

/* OpenBLAS falls back to slow kernels on AVX-512 CPUs unless
 * OPENBLAS_CORETYPE=SkylakeX is set before it loads, and AVX-512 kernels
 * (SkylakeX, CooperLake, SapphireRapids) crash a CPU without AVX-512F.
 * The CPU is asked with __builtin_cpu_supports, which also checks that the
 * OS saves the 512-bit registers. The program
 * re-executes itself once: on an AVX-512 CPU with SkylakeX (replacing an
 * inherited value, said on stderr: a benchmark holds tessel against
 * OpenBLAS's fastest kernels on the machine), elsewhere without a value
 * naming AVX-512 kernels. Returns 0, or -1 when the re-exec failed. */
static inline int bench_openblas_env(char **argv) {
  const char *cur = getenv("OPENBLAS_CORETYPE");
  int avx512 = __builtin_cpu_supports("avx512f");
  int cur_avx512 = cur && (!strcasecmp(cur, "SkylakeX") || !strcasecmp(cur, "CooperLake") ||
                           !strcasecmp(cur, "SapphireRapids"));
  if (getenv("TESSEL_BENCH_REEXEC") || (avx512 && cur && !strcasecmp(cur, "SkylakeX")) ||
      (!avx512 && !cur_avx512))
    return 0;
  if (avx512) {
    if (cur)
      fprintf(stderr, "bench: OPENBLAS_CORETYPE=%s replaced by SkylakeX, OpenBLAS's AVX-512 "
              "kernels, on this AVX-512 CPU\n", cur);
    setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
  } else {
    fprintf(stderr, "bench: OPENBLAS_CORETYPE=%s names AVX-512 kernels, which this CPU cannot "
            "run: unset\n", cur);
    unsetenv("OPENBLAS_CORETYPE");
  }
  setenv("TESSEL_BENCH_REEXEC", "1", 1);
  execv("/proc/self/exe", argv);
  perror("re-exec for OPENBLAS_CORETYPE");
  return -1;
}

#ifdef TESSEL_TESSEL_H
/* A `tessel tune` run through the public API, as the CLI makes it: the
 * config with `--set` overrides, the default plugin search path, the
 * plugins checked, the tuner. Status as tsl_tune; the message in diag. */
static inline int bench_tune_run(const char *config, uint32_t n_sets, const char *const *sets,
                                 tsl_tune_progress_fn progress, void *user_data,
                                 tsl_tune_result *r, tsl_diag *d) {
  tsl_run_config *cfg = NULL;
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  memset(r, 0, sizeof *r);
  int rc = tsl_run_config_load(config, n_sets, sets, &cfg, d);
  if (!rc)
    rc = tsl_registry_new(ctx, &reg, d);
  if (!rc)
    rc = tsl_registry_load_default(reg, cfg->n_plugin_paths, cfg->plugin_paths, d);
  if (!rc)
    rc = tsl_run_config_check_plugins(cfg, reg, d);
  if (!rc)
    rc = tsl_tune(cfg, reg, progress, user_data, r, d);
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  tsl_run_config_free(cfg);
  return rc;
}
#endif

#endif
