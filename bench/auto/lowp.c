/* int8 and bfloat16 workloads against oneDNN. */
#include "lowp.h"
#include "../bench_util.h"
#include "peak.h"
#include "side_by_side.h"
#include "tune_run.h"
#ifdef TESSEL_BENCH_DNNL
#include "dnnl_ref.h"
#endif

#include <sys/wait.h>

enum { THREADS = 2 };

typedef struct lowp_workload {
  const char *name, *file;
  int bf16, conv;
  bench_kernel kernel; /* dir filled in after the run */
} lowp_workload;

#define MB (1024 * 1024)
#define CONV_IN (56 * 56 * 64)
#define CONV_W (64 * 64 * 9)
static const lowp_workload workloads[] = {
    {"int8 matmul 1024 (u8 x s8 -> s32)", "bench/tune/dense_int8_1024.py", 0, 0,
     {NULL, "main", 0, 3, {MB, MB, 4 * MB}, {FILL_U8, FILL_S8, FILL_ZERO}, 3, {0, 1, 2}, 0, {0}}},
    {"bf16 matmul 1024 (bf16 -> f32)", "bench/tune/dense_bf16_1024.py", 1, 0,
     {NULL, "main", 0, 3, {2 * MB, 2 * MB, 4 * MB}, {FILL_BF16, FILL_BF16, FILL_ZERO}, 3,
      {0, 1, 2}, 0, {0}}},
    {"int8 conv 3x3 56x56 64->64 (NCHW16c)", "bench/tune/conv2d_nchwc_int8_3x3.py", 0, 1,
     {NULL, "main", 0, 3, {CONV_IN, CONV_W, 4 * CONV_IN}, {FILL_U8, FILL_S8, FILL_ZERO}, 3,
      {0, 1, 2}, 0, {0}}},
    {"bf16 conv 3x3 56x56 64->64 (NCHW16c)", "bench/tune/conv2d_nchwc_bf16_3x3.py", 1, 1,
     {NULL, "main", 0, 3, {2 * CONV_IN, 2 * CONV_W, 4 * CONV_IN},
      {FILL_BF16, FILL_BF16, FILL_ZERO}, 3, {0, 1, 2}, 0, {0}}},
};

/* The intrinsic the best schedule tensorizes with, from its trace. */
static void intrinsic_of(const char *trace, char *out, size_t n) {
  const char *key = "meta_schedule.auto_tensorize\", ann_val=\"";
  const char *p = trace ? strstr(trace, key) : NULL;
  if (!p) {
    snprintf(out, n, "none (plain vector code)");
    return;
  }
  p += strlen(key);
  size_t len = strcspn(p, "\"");
  snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
}

#ifdef TESSEL_BENCH_DNNL
/* oneDNN's primitive of the workload. */
static dnnl_ref *make_ref(const lowp_workload *w, char *err, size_t n_err) {
  dnnl_ref_types t = w->bf16 ? DNNL_REF_BF16 : DNNL_REF_INT8;
  return w->conv ? dnnl_ref_conv(64, 56, 56, 64, 3, 3, 1, t, err, n_err)
                 : dnnl_ref_matmul(1024, 1024, 1024, t, err, n_err);
}

/* oneDNN as a side: the workload's primitive, made in the serving process. */
static void *dnnl_open(const void *arg) {
  char err[256] = "";
  dnnl_ref_set_threads(THREADS);
  dnnl_ref *r = make_ref(arg, err, sizeof err);
  if (!r)
    fprintf(stderr, "bench_auto: %s\n", err);
  return r;
}

static int dnnl_call(void *state) { return dnnl_ref_call(state); }

/* The implementation oneDNN picks here, or why it has none: asked in a
 * child process, since oneDNN's OpenMP pool must not exist in this one.
 * The tuner forks its measuring workers from here, and an OpenMP pool
 * does not survive a fork. */
static void dnnl_impl(const lowp_workload *w, char *out, size_t n) {
  int p[2];
  snprintf(out, n, "cannot ask oneDNN");
  if (pipe(p))
    return;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    char err[256] = "";
    dnnl_ref *r = make_ref(w, err, sizeof err);
    const char *s = r ? dnnl_ref_impl(r) : err;
    ssize_t len = (ssize_t)strlen(s);
    _exit(write(p[1], s, (size_t)len) == len ? 0 : 1);
  }
  close(p[1]);
  ssize_t got = pid > 0 ? read(p[0], out, n - 1) : -1;
  if (got > 0)
    out[got] = 0;
  close(p[0]);
  if (pid > 0)
    waitpid(pid, NULL, 0);
}
#endif

/* One seed's run: its row (the in-run best at each checkpoint, the
 * re-measured best, the wall time, the intrinsic, and the side-by-side
 * figures); the ratio to oneDNN, 0 when not timed. */
static double one_seed(const char *root, const lowp_workload *w, const int64_t *cp, int n_cp,
                       double peak, int seed, int first) {
  char file[4300], sd[32];
  snprintf(file, sizeof file, "workload.file=%s/%s", root, w->file);
  snprintf(sd, sizeof sd, "seed=%d", seed);
  const char *sets[] = {file, "target.threads=2", sd};
  auto_run r;
  if (auto_tune(root, sets, 3, cp[n_cp - 1], &r)) {
    auto_run_free(&r);
    return 0;
  }
  printf("  %4d", seed);
  for (int k = 0; k < n_cp; k++) {
    int64_t t = cp[k] < r.c.n ? cp[k] : r.c.n;
    printf(" %7.0f", t > 0 ? r.c.best_gflops[t] : 0);
  }
  double flops = r.c.flops * 1e-9, ratio = 0; /* the tuner's count */
  double re = r.r.remeasured_s > 0 ? flops / r.r.remeasured_s : 0;
  char intrin[128];
  intrinsic_of(r.r.best_trace, intrin, sizeof intrin);
  printf(" %8.0f %6.2f %7.1f  %-22s", re, peak > 0 ? re / peak : 0, r.wall, intrin);
#ifdef TESSEL_BENCH_DNNL
  bench_kernel k = w->kernel;
  k.dir = r.dir;
  bench_side ks = {bench_kernel_open, bench_kernel_call, &k}, ds = {dnnl_open, dnnl_call, w};
  double kr = 0, dr = 0;
  if (bench_side_by_side(&ks, &ds, &kr, &dr))
    printf(" (cannot time it side by side with oneDNN)");
  else {
    ratio = kr / dr;
    printf(" %8.0f %8.0f %6.2f", kr * flops, dr * flops, ratio);
  }
#endif
  printf("\n");
  if (first)
    auto_print_overhead(&r);
  auto_run_free(&r);
  return ratio;
}

static void one(const char *root, const lowp_workload *w, const int64_t *cp, int n_cp,
                double peak, int seeds) {
  char impl[256] = "not built (apt-get install libdnnl-dev)";
#ifdef TESSEL_BENCH_DNNL
  dnnl_impl(w, impl, sizeof impl);
#endif
  printf("\n%s, %d threads; oneDNN: %s\n", w->name, THREADS, impl);
  printf("  %4s", "seed");
  for (int k = 0; k < n_cp; k++)
    printf(" %7lld", (long long)cp[k]);
  printf(" %8s %6s %7s  %-22s %8s %8s %6s\n", "re-meas", "/peak", "wall s", "intrinsic",
         "tessel", "oneDNN", "ratio");
  double ratios[64];
  int n = 0;
  for (int s = 1; s <= seeds && s <= 64; s++) {
    double q = one_seed(root, w, cp, n_cp, peak, s, s == 1);
    if (q > 0)
      ratios[n++] = q;
  }
  if (n > 1) {
    double below = bench_worst_below_median(ratios, n), med = bench_median(ratios, n);
    printf("  tessel / oneDNN side by side over %d seeds: median %.2f, worst %.2f (%.1f%% "
           "below the median)\n",
           n, med, ratios[0], below);
  }
}

void bench_lowp(const char *root, const int64_t *cp, int n_cp, int seeds, const char *only) {
  int want_i8 = !!strstr(only, "int8"), want_bf = !!strstr(only, "bf16");
  if (!want_i8 && !want_bf)
    want_i8 = want_bf = 1;
  double i8 = bench_peak(PEAK_DOT_INT8, THREADS), bf = bench_peak(PEAK_DOT_BF16, THREADS);
  printf("\nint8 and bfloat16 over packed weights, tuned from the bare program "
         "(configs/auto.yaml), against oneDNN: per seed, the tuner's in-run best GOPS after "
         "each checkpoint's trials, its re-measured best (median of 3 rounds in a fresh "
         "worker), and the exported best and oneDNN side by side (medians of 7 "
         "alternations)\n"
         "dot-product peak, %d threads: int8 %.1f GOPS (%s), bf16 %.1f GFLOPS (%s)\n",
         THREADS, i8, bench_peak_name(PEAK_DOT_INT8), bf, bench_peak_name(PEAK_DOT_BF16));
  for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
    if (workloads[i].bf16 ? want_bf : want_i8)
      one(root, &workloads[i], cp, n_cp, workloads[i].bf16 ? bf : i8, seeds);
}
