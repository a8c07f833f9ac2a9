/* tessel and TVM's MetaSchedule side by side. */
#include "peer.h"
#include "../bench_util.h"
#include "tune_run.h"


enum { MAX_CP = 16, MAX_SEEDS = 16 };

typedef struct peer_workload {
  const char *name, *group, *what, *file;
  int threads, matmul_n; /* matmul_n: the OpenBLAS anchor's size, 0 for none */
} peer_workload;

static const peer_workload workloads[] = {
    {"m1024", "m1024", "float32 1024 matmul", "bench/tune/matmul_1024.py", 2, 1024},
    {"mb1024", "mb1024", "float32 1024 matmul + bias, weight layout-free",
     "bench/tune/matmul_bias_1024.py", 2, 1024},
    {"m128x1", "m128", "float32 128 matmul", "workloads/matmul_128.py", 1, 128},
    {"m128x2", "m128", "float32 128 matmul", "workloads/matmul_128.py", 2, 128},
    {"stem", "ops", "ResNet stem conv2d NHWC 7x7/2 + pad (C2D)", "bench/tune/conv2d_nhwc_stem.py",
     2, 0},
    {"conv3x3", "ops", "ResNet 3x3 conv2d NHWC 56x56x64 + pad", "bench/tune/conv2d_nhwc_3x3.py",
     2, 0},
    {"depthwise", "ops", "depthwise conv2d 3x3 (1x16x14x14)", "workloads/depthwise_conv2d.py", 2,
     0},
    {"softmax", "ops", "softmax 256x256", "workloads/softmax_256.py", 2, 0},
    {"layernorm", "ops", "layer norm 32x64", "workloads/layer_norm.py", 2, 0},
};

/* One TVM run: its in-run best at the checkpoints (0 where its curve has
 * none), its re-measured best and its tuning time; GFLOPS in TVM's count. */
typedef struct tvm_run {
  double curve[MAX_CP], gflops, ms, tune_s;
} tvm_run;

static int run_tvm(const peer_opts *o, const peer_workload *w, int seed, tvm_run *out) {
  memset(out, 0, sizeof *out);
  char dir[] = "/tmp/tessel-bench-peer-XXXXXX";
  if (!mkdtemp(dir))
    return -1;
  char cmd[9000];
  snprintf(cmd, sizeof cmd,
           "'%s' '%s/%s' --trials %lld --threads %d --seed %d --work-dir '%s/work' 2>'%s/log'",
           o->exe, o->root, w->file, (long long)o->cp[o->n_cp - 1], w->threads, seed, dir, dir);
  fflush(NULL);
  FILE *p = popen(cmd, "r");
  char line[8192];
  int got = 0;
  while (p && fgets(line, sizeof line, p)) {
    if (!strncmp(line, "curve:", 6)) {
      /* TRIALS:GFLOPS pairs; a checkpoint takes the last point at or before it */
      for (char *t = strtok(line + 6, " \n"); t; t = strtok(NULL, " \n")) {
        long long n = 0;
        double g = 0;
        if (sscanf(t, "%lld:%lf", &n, &g) != 2)
          continue;
        for (int k = 0; k < o->n_cp; k++)
          if (n <= o->cp[k] && g > out->curve[k])
            out->curve[k] = g;
      }
    }
    if (sscanf(line, "tvm_gflops=%lf tvm_ms=%lf tune_s=%lf", &out->gflops, &out->ms,
               &out->tune_s) == 3)
      got = 1;
  }
  int rc = p ? pclose(p) : -1;
  if (!got || rc) {
    char log[4200];
    snprintf(log, sizeof log, "%s/log", dir);
    FILE *f = fopen(log, "r");
    fprintf(stderr, "bench_auto: tvm-peer failed on %s (seed %d):\n", w->file, seed);
    while (f && fgets(line, sizeof line, f))
      fputs(line, stderr);
    if (f)
      fclose(f);
  }
  auto_remove_tree(dir);
  return got && !rc ? 0 : -1;
}

static void one(const peer_opts *o, const peer_workload *w) {
  int n_cp = o->n_cp, ok = 0;
  double peak = w->threads == 1 ? o->peak1 : o->peak2;
  /* per checkpoint and seed: tessel's and TVM's in-run bests; per seed
   * the re-measured bests, the tuning times and OpenBLAS */
  double ts[MAX_CP][MAX_SEEDS], vs[MAX_CP][MAX_SEEDS], tr[MAX_SEEDS], vr[MAX_SEEDS],
      tt[MAX_SEEDS], vt[MAX_SEEDS], blas[MAX_SEEDS];
  printf("\n%s, %d thread%s, %lld trials\n", w->what, w->threads, w->threads > 1 ? "s" : "",
         (long long)o->cp[n_cp - 1]);
  printf("  %4s %-6s", "seed", "tuner");
  for (int k = 0; k < n_cp; k++)
    printf(" %7lld", (long long)o->cp[k]);
  printf(" %9s %6s %9s %8s\n", "re-meas", "/peak", w->matmul_n ? "/OpenBLAS" : "", "tune s");
  for (int s = 1; s <= o->seeds && s <= MAX_SEEDS; s++) {
    char file[4300], th[32], sd[32];
    snprintf(file, sizeof file, "workload.file=%s/%s", o->root, w->file);
    snprintf(th, sizeof th, "target.threads=%d", w->threads);
    snprintf(sd, sizeof sd, "seed=%d", s);
    const char *sets[] = {file, th, sd};
    auto_run r;
    tvm_run v;
    int bad = auto_tune(o->root, sets, 3, o->cp[n_cp - 1], &r) || r.r.remeasured_s <= 0;
    bad = bad || run_tvm(o, w, s, &v);
    double b = !bad && w->matmul_n ? o->blas(w->matmul_n, w->threads) : 0;
    if (!bad) {
      /* TVM's GFLOPS in tessel's FLOP count: the same latency */
      double tvm_flops = v.gflops * v.ms * 1e6, scale = r.c.flops / tvm_flops;
      for (int k = 0; k < n_cp; k++) {
        int64_t t = o->cp[k] < r.c.n ? o->cp[k] : r.c.n;
        ts[k][ok] = t > 0 ? r.c.best_gflops[t] : 0;
        vs[k][ok] = v.curve[k] * scale;
      }
      tr[ok] = r.c.flops / r.r.remeasured_s * 1e-9;
      vr[ok] = v.gflops * scale;
      tt[ok] = r.wall;
      vt[ok] = v.tune_s;
      blas[ok] = b;
      for (int side = 0; side < 2; side++) {
        double re = side ? vr[ok] : tr[ok];
        printf("  %4d %-6s", s, side ? "TVM" : "tessel");
        for (int k = 0; k < n_cp; k++)
          printf(" %7.1f", side ? vs[k][ok] : ts[k][ok]);
        printf(" %9.1f %6.2f", re, re / peak);
        if (b > 0)
          printf(" %9.2f", re / b);
        else
          printf(" %9s", "");
        printf(" %8.1f\n", side ? vt[ok] : tt[ok]);
      }
      ok++;
    }
    auto_run_free(&r);
  }
  if (!ok)
    return;
  printf("  medians over %d seed%s (tessel / TVM):", ok, ok > 1 ? "s" : "");
  for (int k = 0; k < n_cp; k++) {
    double a = bench_median(ts[k], ok), c = bench_median(vs[k], ok);
    printf(" @%lld %.2f", (long long)o->cp[k], c > 0 ? a / c : 0);
  }
  double tmed = bench_median(tr, ok), vmed = bench_median(vr, ok);
  double ttm = bench_median(tt, ok), vtm = bench_median(vt, ok);
  printf("; re-measured %.2f (%.1f vs %.1f GFLOPS", tmed / vmed, tmed, vmed);
  if (w->matmul_n) {
    double bm = bench_median(blas, ok);
    printf(", OpenBLAS %.1f", bm);
  }
  printf("); tuning time %.2f (%.1f vs %.1f s)\n", ttm / vtm, ttm, vtm);
  printf("  worst seed below the median (re-measured): tessel %.0f%%, TVM %.0f%%\n",
         bench_worst_below_median(tr, ok), bench_worst_below_median(vr, ok));
}

void bench_peer(const peer_opts *o) {
  printf("\ntessel and TVM v0.19 MetaSchedule (tvm-peer), each from the bare program with its "
         "defaults, the same trials, threads and seeds, interleaved; GFLOPS in tessel's FLOP "
         "count: the in-run best after N trials, the best re-measured in a fresh process "
         "(tessel: median of 3 rounds; TVM: median of 10 repeats of >= 200 ms), the tuning "
         "time\n");
  for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
    if (strstr(o->only, workloads[i].name) || strstr(o->only, workloads[i].group))
      one(o, &workloads[i]);
}
