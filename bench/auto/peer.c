/* tessel and TVM's MetaSchedule side by side. */
#include "peer.h"
#include "../bench_util.h"
#include "best_kernel.h"
#include "tune_run.h"

#include <sys/stat.h>


enum { MAX_CP = 16, MAX_SEEDS = 16, ROUNDS = 3 };

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
 * none), its re-measured best and its tuning time, GFLOPS in TVM's count;
 * its folder (the work dir with its database, kept for the rounds). */
typedef struct tvm_run {
  double curve[MAX_CP], gflops, ms, tune_s;
  char dir[64];
} tvm_run;

static int run_tvm(const peer_opts *o, const peer_workload *w, int seed, tvm_run *out) {
  memset(out, 0, sizeof *out);
  char *dir = out->dir;
  snprintf(dir, sizeof out->dir, "/tmp/tessel-bench-peer-XXXXXX");
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
  return got && !rc ? 0 : -1;
}

/* TVM's best in the work dir `work` of run v timed again in a fresh
 * process (tvm-peer's own re-measurement: median of 10 repeats of >= 200
 * ms): seconds, or 0. */
static double tvm_again(const peer_opts *o, const peer_workload *w, const tvm_run *v,
                        const char *work) {
  char cmd[9000], line[8192];
  snprintf(cmd, sizeof cmd, "'%s' '%s/%s' --threads %d --remeasure '%s' 2>>'%s/log'",
           o->exe, o->root, w->file, w->threads, work, v->dir);
  fflush(NULL);
  FILE *p = popen(cmd, "r");
  double s = 0;
  while (p && fgets(line, sizeof line, p))
    sscanf(line, "remeasured_s=%lf", &s);
  int rc = p ? pclose(p) : -1;
  if (rc || !(s > 0)) {
    fprintf(stderr, "bench_auto: tvm-peer could not re-measure %s (log in %s)\n", w->file,
            v->dir);
    return 0;
  }
  return s;
}

/* Two bests side by side: ROUNDS rounds, each timing tessel's exported
 * best (`program`, exported to `dir`/libbest.so) and TVM's best in the work
 * dir `work` in a fresh process of their own with TVM's protocol (the
 * order alternating between rounds), then OpenBLAS for a matmul when
 * `blas`. Per tuner the median of its rounds (GFLOPS in tessel's count),
 * the median of the rounds' ratios tessel / TVM, OpenBLAS's median: 0, or
 * -1. */
typedef struct rounds_out {
  double tessel, tvm, ratio, blas, ratios[ROUNDS];
} rounds_out;

static int side_by_side_rounds(const peer_opts *o, const peer_workload *w, const auto_run *r,
                               const char *dir, const char *program, const tvm_run *v,
                               const char *work, int blas, rounds_out *out) {
  best_kernel bk;
  if (best_kernel_of(dir, program, &bk))
    return -1;
  bench_side ks = {bench_kernel_open, bench_kernel_call, &bk.k};
  double t[ROUNDS], u[ROUNDS], b[ROUNDS], q[ROUNDS];
  for (int i = 0; i < ROUNDS; i++) {
    double rate = 0, s = 0;
    for (int side = 0; side < 2; side++) {
      if ((side + i) % 2 == 0 && bench_side_alone(&ks, 10, &rate))
        return -1;
      if ((side + i) % 2 == 1 && !(s = tvm_again(o, w, v, work)))
        return -1;
    }
    t[i] = r->c.flops * rate * 1e-9;
    u[i] = r->c.flops / s * 1e-9;
    q[i] = out->ratios[i] = t[i] / u[i];
    b[i] = blas && w->matmul_n ? o->blas(w->matmul_n, w->threads) : 0;
  }
  out->tessel = bench_median(t, ROUNDS);
  out->tvm = bench_median(u, ROUNDS);
  out->ratio = bench_median(q, ROUNDS);
  out->blas = bench_median(b, ROUNDS);
  return 0;
}

/* The two tuners' bests of their first n trials side by side (the rounds
 * of side_by_side_rounds, without OpenBLAS): tessel's exported from a copy
 * of its first n records (auto_export_prefix), TVM's from a copy of its
 * work dir with its first n tuning records (all it has when it committed
 * fewer). 0, or -1. */
static int checkpoint_rounds(const peer_opts *o, const peer_workload *w, const char *const *sets,
                             int n_sets, const auto_run *r, const tvm_run *v, int64_t n,
                             rounds_out *out) {
  char dir[64] = "/tmp/tessel-bench-checkpoint-XXXXXX", work[96], from[160], to[160];
  if (!mkdtemp(dir))
    return -1;
  snprintf(work, sizeof work, "%s/tvm", dir);
  char *program = NULL;
  int rc = mkdir(work, 0700);
  if (!rc) {
    snprintf(from, sizeof from, "%s/work/database_workload.json", v->dir);
    snprintf(to, sizeof to, "%s/database_workload.json", work);
    rc = auto_first_lines(from, to, -1);
  }
  if (!rc) { /* all of TVM's records when it committed fewer than n */
    snprintf(from, sizeof from, "%s/work/database_tuning_record.json", v->dir);
    snprintf(to, sizeof to, "%s/database_tuning_record.json", work);
    rc = auto_first_lines(from, to, n) && auto_first_lines(from, to, -1);
  }
  if (rc)
    fprintf(stderr, "bench_auto: cannot copy TVM's first %lld records from %s/work\n",
            (long long)n, v->dir);
  rc = rc || auto_export_prefix(sets, n_sets, r, n, dir, &program) ||
       side_by_side_rounds(o, w, r, dir, program, v, work, 0, out);
  free(program);
  auto_remove_tree(dir);
  return rc ? -1 : 0;
}

static void one(const peer_opts *o, const peer_workload *w) {
  int n_cp = o->n_cp, ok = 0;
  double peak = w->threads == 1 ? o->peak1 : o->peak2;
  /* per checkpoint and seed: tessel's and TVM's in-run bests; per seed
   * each tuner's own re-measured best, the side-by-side rounds, the
   * tuning times */
  double ts[MAX_CP][MAX_SEEDS], vs[MAX_CP][MAX_SEEDS], tr[MAX_SEEDS], vr[MAX_SEEDS],
      tt[MAX_SEEDS], vt[MAX_SEEDS], tside[MAX_SEEDS], vside[MAX_SEEDS], ratio[MAX_SEEDS],
      blas[MAX_SEEDS];
  /* per checkpoint and seed: the two bests of the first N trials side by
   * side (the last checkpoint's are the seed's final rounds) */
  double cts[MAX_CP][MAX_SEEDS], cvs[MAX_CP][MAX_SEEDS], cq[MAX_CP][MAX_SEEDS];
  printf("\n%s, %d thread%s, %lld trials\n", w->what, w->threads, w->threads > 1 ? "s" : "",
         (long long)o->cp[n_cp - 1]);
  printf("  %4s %-6s", "seed", "tuner");
  for (int k = 0; k < n_cp; k++)
    printf(" %7lld", (long long)o->cp[k]);
  printf(" %8s %8s %6s %9s %8s\n", "own", "side", "/peak", w->matmul_n ? "/OpenBLAS" : "",
         "tune s");
  for (int s = o->first_seed; s < o->first_seed + o->seeds && s - o->first_seed < MAX_SEEDS;
       s++) {
    char file[4300], th[32], sd[32];
    snprintf(file, sizeof file, "workload.file=%s/%s", o->root, w->file);
    snprintf(th, sizeof th, "target.threads=%d", w->threads);
    snprintf(sd, sizeof sd, "seed=%d", s);
    const char *sets[] = {file, th, sd};
    auto_run r;
    tvm_run v = {0};
    rounds_out ro = {0};
    int bad = auto_tune(o->root, sets, 3, o->cp[n_cp - 1], &r) || r.r.remeasured_s <= 0;
    bad = bad || run_tvm(o, w, s, &v);
    char work[96];
    snprintf(work, sizeof work, "%s/work", v.dir);
    bad = bad || side_by_side_rounds(o, w, &r, r.dir, r.r.best_program, &v, work, 1, &ro);
    /* the earlier checkpoints' bests side by side; the last one's are ro */
    rounds_out rk[MAX_CP] = {{0}};
    for (int k = 0; k < n_cp - 1 && !bad; k++)
      bad = checkpoint_rounds(o, w, sets, 3, &r, &v, o->cp[k] < r.c.n ? o->cp[k] : r.c.n,
                              &rk[k]);
    if (!bad)
      rk[n_cp - 1] = ro;
    if (!bad) {
      /* TVM's GFLOPS in tessel's FLOP count: the same latency */
      double tvm_flops = v.gflops * v.ms * 1e6, scale = r.c.flops / tvm_flops;
      for (int k = 0; k < n_cp; k++) {
        int64_t t = o->cp[k] < r.c.n ? o->cp[k] : r.c.n;
        ts[k][ok] = t > 0 ? r.c.best_gflops[t] : 0;
        vs[k][ok] = v.curve[k] * scale;
        cts[k][ok] = rk[k].tessel;
        cvs[k][ok] = rk[k].tvm;
        cq[k][ok] = rk[k].ratio;
      }
      tr[ok] = r.c.flops / r.r.remeasured_s * 1e-9;
      vr[ok] = v.gflops * scale;
      tt[ok] = r.wall;
      vt[ok] = v.tune_s;
      tside[ok] = ro.tessel;
      vside[ok] = ro.tvm;
      ratio[ok] = ro.ratio;
      blas[ok] = ro.blas;
      for (int side = 0; side < 2; side++) {
        double own = side ? vr[ok] : tr[ok], sbs = side ? ro.tvm : ro.tessel;
        printf("  %4d %-6s", s, side ? "TVM" : "tessel");
        for (int k = 0; k < n_cp; k++)
          printf(" %7.1f", side ? vs[k][ok] : ts[k][ok]);
        printf(" %8.1f %8.1f %6.2f", own, sbs, sbs / peak);
        if (ro.blas > 0)
          printf(" %9.2f", sbs / ro.blas);
        else
          printf(" %9s", "");
        printf(" %8.1f\n", side ? vt[ok] : tt[ok]);
      }
      printf("       side by side, tessel / TVM by round: %.3f %.3f %.3f (median %.3f)",
             ro.ratios[0], ro.ratios[1], ro.ratios[2], ro.ratio);
      if (ro.blas > 0)
        printf("; OpenBLAS %.1f", ro.blas);
      printf("\n       side by side at each checkpoint, tessel vs TVM (ratio):");
      for (int k = 0; k < n_cp; k++)
        printf(" @%lld %.1f vs %.1f (%.3f)", (long long)o->cp[k], cts[k][ok], cvs[k][ok],
               cq[k][ok]);
      printf("\n");
      ok++;
    }
    if (v.dir[0])
      auto_remove_tree(v.dir);
    auto_run_free(&r);
  }
  if (!ok)
    return;
  printf("  medians over %d seed%s (tessel / TVM):", ok, ok > 1 ? "s" : "");
  for (int k = 0; k < n_cp; k++) {
    double a = bench_median(ts[k], ok), c = bench_median(vs[k], ok);
    printf(" @%lld %.2f", (long long)o->cp[k], c > 0 ? a / c : 0);
  }
  printf("; own re-measurements %.2f", bench_median(tr, ok) / bench_median(vr, ok));
  double tmed = bench_median(tside, ok), vmed = bench_median(vside, ok);
  double ttm = bench_median(tt, ok), vtm = bench_median(vt, ok);
  printf("; side by side %.2f (seeds' ratios; %.1f vs %.1f GFLOPS", bench_median(ratio, ok),
         tmed, vmed);
  if (w->matmul_n)
    printf(", OpenBLAS %.1f", bench_median(blas, ok));
  printf("); tuning time %.2f (%.1f vs %.1f s)\n", ttm / vtm, ttm, vtm);
  printf("  worst seed below the median (side by side): tessel %.0f%%, TVM %.0f%%\n",
         bench_worst_below_median(tside, ok), bench_worst_below_median(vside, ok));
  printf("  side by side at each checkpoint (medians of the seeds' ratios; worst seed below "
         "the median, tessel / TVM):");
  for (int k = 0; k < n_cp; k++)
    printf(" @%lld %.2f (%.0f%% / %.0f%%)", (long long)o->cp[k], bench_median(cq[k], ok),
           bench_worst_below_median(cts[k], ok), bench_worst_below_median(cvs[k], ok));
  printf("\n");
}

void bench_peer(const peer_opts *o) {
  printf("\ntessel and TVM v0.19 MetaSchedule (tvm-peer), each from the bare program with its "
         "defaults, the same trials, threads and seeds, interleaved; GFLOPS in tessel's FLOP "
         "count: the in-run best after N trials; each tuner's own re-measurement of its best "
         "at the end of its run (tessel: median of 3 rounds in a fresh worker; TVM: median "
         "of 10 repeats of >= 200 ms in a fresh process); the two bests side by side after "
         "both runs of a seed (3 rounds, each timing tessel's exported best and TVM's best "
         "in a fresh process of its own, median of 10 repeats of >= 200 ms, the order "
         "alternating; then OpenBLAS for a matmul): each tuner's median and the median of "
         "the rounds' ratios; the tuning time; then the same rounds at each earlier "
         "checkpoint N on the two bests of the first N trials\n");
  for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
    if (bench_named(o->only, workloads[i].name) || bench_named(o->only, workloads[i].group))
      one(o, &workloads[i]);
}
