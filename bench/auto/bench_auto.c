/*
 * Automatic tuning from the bare program (issue 13's evidence): runs of
 * configs/auto.yaml (default rules, evolutionary search, TVM's runner
 * settings, slow candidates stopped or screened) through the public API,
 * each in a fresh mkdtemp database,
 * against OpenBLAS sgemm and the machine's FMA peak measured in the same
 * run:
 *   m1024  bench/tune/matmul_1024.py, 2 threads, up to the last checkpoint,
 *          once per cost model: best GFLOPS, ratio to OpenBLAS and to the
 *          peak and the wall time at each checkpoint; for two models, the
 *          trials the first needs to reach the last one's final best; the
 *          first model's ranking quality on its own records (trained on
 *          the even-numbered, scored on the odd-numbered: pairwise
 *          accuracy and top-32 recall);
 *   mb1024 bench/tune/matmul_bias_1024.py (B layout-free: packed once by
 *          RewriteLayout, outside the timed calls), 2 threads, xgb, up to
 *          the last checkpoint, against OpenBLAS sgemm (without the bias);
 *   m128   workloads/matmul_128.py in 64 trials at 1 and 2 threads;
 *   lowp   int8 and bfloat16 matmuls and 3x3 convolutions over packed
 *          weights, up to the last checkpoint, against oneDNN side by side
 *          and the dot-product peak (lowp.h); `lowp,int8` or `lowp,bf16`
 *          runs only those;
 *   pairs  the paired-seed study of tessel's deviations from TVM (pairs.h):
 *          --seeds pairs of the last checkpoint's trials (not by default);
 *   transfer  a cost model saved from a corpus of other programs' runs
 *          against a fresh one, --seeds pairs (transfer.h; not by default);
 *   ops    the ResNet stem (conv2d NHWC 7x7 stride 2 with padding) in 64
 *          trials, a depthwise conv2d, softmax and layer norm in 32, at 2
 *          threads: the untuned program (an empty schedule, measured the
 *          same way) against the tuned one, and the ratio to the peak.
 * Every run prints its search overhead: search time per measured
 * candidate and its share of the wall time, split into replay,
 * postprocessing, features, mutation, prediction, training, lowering and
 * the rest (keys, database, the strategy's bookkeeping). The matmul runs
 * export their best kernel, which is then timed against OpenBLAS side by
 * side (each in a process of its own, warmed up, then 7 alternating
 * blocks of each, medians): the machine's speed drifts by up to 40%
 * within minutes, so a ratio to an OpenBLAS figure taken before a long
 * run can be off by as much. With --peer tvm, the float32 sections give way
 * to tessel and TVM's MetaSchedule side by side on the workloads of --only
 * (peer.h). With --strategies, every other section gives way to search
 * strategies side by side (strategies.h; --only m1024,mb1024,stem,ansor,
 * --checkpoints the trial counts, 64,256 unless given).
 * Usage: bench_auto [SOURCE_ROOT] [--checkpoints 32,64,128,256,640]
 *                   [--only m1024,mb1024,m128,ops,lowp,pairs,transfer] [--models xgb,random]
 *                   [--seeds 3 (lowp, pairs, transfer, --peer, --strategies)]
 *                   [--first-seed 1 (--peer: seeds first-seed ..)]
 *                   [--peer tvm [--peer-exe PATH]] [--strategies evolutionary,sketch]
 *                                                (or ./tessel bench auto ...)
 */
#define _XOPEN_SOURCE 700
#include "tessel/tessel.h"
#include "../bench_util.h"
#include "lowp.h"
#include "pairs.h"
#include "peer.h"
#include "peak.h"
#include "side_by_side.h"
#include "strategies.h"
#include "transfer.h"
#include "tune_run.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void openblas_set_num_threads(int n);

enum { MAX_CP = 16, MAX_MODELS = 4 };

/* ---- the reference: OpenBLAS ------------------------------------------------------ */

static double blas_gflops(int n, int threads) {
  float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
        *c = malloc(sizeof(float) * n * n);
  for (int i = 0; i < n * n; i++) {
    a[i] = (float)(i % 7) * 0.25f;
    b[i] = (float)(i % 5) * 0.5f;
  }
  openblas_set_num_threads(threads);
  double samples[7];
  for (int r = -1; r < 7; r++) {
    int calls = 0;
    double t0 = bench_now(), t;
    do {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f,
                  c, n);
      calls++;
    } while ((t = bench_now() - t0) < 0.2);
    if (r >= 0)
      samples[r] = 2.0 * n * n * n * calls / t * 1e-9;
  }
  free(a);
  free(b);
  free(c);
  return bench_median(samples, 7);
}

/* OpenBLAS sgemm n x n as a side of a side-by-side timing. */
typedef struct blas_arg {
  int n, threads;
} blas_arg;

typedef struct blas_state {
  int n;
  float *a, *b, *c;
} blas_state;

static void *blas_open(const void *arg) {
  const blas_arg *x = arg;
  size_t nn = (size_t)x->n * x->n;
  blas_state *s = malloc(sizeof *s);
  if (!s)
    return NULL;
  *s = (blas_state){x->n, aligned_alloc(64, nn * 4), aligned_alloc(64, nn * 4),
                    aligned_alloc(64, nn * 4)};
  if (!s->a || !s->b || !s->c)
    return NULL;
  for (size_t i = 0; i < nn; i++) {
    s->a[i] = (float)(i % 7) * 0.25f;
    s->b[i] = (float)(i % 5) * 0.5f;
  }
  openblas_set_num_threads(x->threads);
  return s;
}

static int blas_call(void *state) {
  blas_state *s = state;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s->n, s->n, s->n, 1.0f, s->a, s->n,
              s->b, s->n, 0.0f, s->c, s->n);
  return 0;
}

/* A matmul run's exported best kernel and OpenBLAS side by side: 0 and
 * both in GFLOPS, or -1 (a side failed). The kernel is func(A, B, C)
 * (MATMUL_PLAIN); func(A, B packed, bias, C) (MATMUL_BIAS) or func(A, B
 * packed, C, out) (MATMUL_ADD) after func_prepack(B, B packed)
 * (bench/tune/matmul_bias_1024.py, matmul_add_1024.py; room for a layout
 * padded up to 4 times). */
static int blas_side_by_side(const char *dir, const char *func, int layout, int n, int threads,
                             double *kernel_gflops, double *blas_gflops_out) {
  size_t nn = (size_t)n * n * 4;
  bench_kernel k = {dir, func, 0, 3, {nn, nn, nn}, {FILL_F32, FILL_F32, FILL_ZERO},
                    3, {0, 1, 2}, 0, {0}};
  if (layout == MATMUL_BIAS)
    k = (bench_kernel){dir, func, 1, 5, {nn, nn, nn * 4, (size_t)n * 4, nn},
                       {FILL_F32, FILL_F32, FILL_ZERO, FILL_F32, FILL_ZERO},
                       4, {0, 2, 3, 4}, 2, {1, 2}};
  else if (layout == MATMUL_ADD)
    k = (bench_kernel){dir, func, 1, 5, {nn, nn, nn * 4, nn, nn},
                       {FILL_F32, FILL_F32, FILL_ZERO, FILL_F32, FILL_ZERO},
                       4, {0, 2, 3, 4}, 2, {1, 2}};
  blas_arg b = {n, threads};
  bench_side ks = {bench_kernel_open, bench_kernel_call, &k}, bs = {blas_open, blas_call, &b};
  double kr = 0, br = 0, flops = 2.0 * n * n * n * 1e-9;
  if (bench_side_by_side(&ks, &bs, &kr, &br)) {
    fprintf(stderr, "bench_auto: cannot time %s/libbest.so's %s side by side\n", dir, func);
    return -1;
  }
  *kernel_gflops = kr * flops;
  *blas_gflops_out = br * flops;
  return 0;
}

/* After a matmul run: its exported best kernel and OpenBLAS side by side. */
static void print_side_by_side(const char *dir, const char *func, int layout, int n,
                               int threads, double peak) {
  double kg, bg;
  if (!blas_side_by_side(dir, func, layout, n, threads, &kg, &bg))
    printf("    the best kernel and OpenBLAS side by side after the run (medians of 7 "
           "alternations): %.1f and %.1f GFLOPS, ratio %.2f, %.2f of peak\n",
           kg, bg, kg / bg, kg / peak);
}

/* ---- the model's ranking quality on a run's records ------------------------------- */

typedef struct records {
  tsl_ctx *ctx;
  const tsl_module *mod;
  tsl_schedule **sch;
  tsl_candidate *cand;
  tsl_measured *res;
  uint32_t n, cap;
} records;

static int take_record(void *ud, const tsl_db_record *rec) {
  records *rs = ud;
  if (rec->status != TSL_RUN_OK || rec->latency_s <= 0 || rs->n == rs->cap)
    return 0;
  tsl_diag d;
  tsl_trace *t = NULL;
  tsl_schedule *sch = NULL;
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  if (tsl_trace_from_json(rs->ctx, rec->trace_json, &t, &d) ||
      tsl_trace_replay(rs->ctx, t, rs->mod, &ro, &sch, &d)) {
    tsl_trace_free(t);
    return 0;
  }
  uint32_t i = rs->n++;
  rs->sch[i] = sch;
  rs->cand[i] = (tsl_candidate){sizeof rs->cand[i], tsl_schedule_trace(sch),
                                tsl_schedule_module(sch), NULL, rs->mod, NULL, NULL};
  rs->res[i] = (tsl_measured){sizeof rs->res[i], rs->cand[i].trace, rec->status,
                              rec->latency_s, 0};
  tsl_trace_free(t);
  return 0;
}

static const double *g_keys; /* what by_key_desc sorts indices by */

static int by_key_desc(const void *a, const void *b) {
  double x = g_keys[*(const uint32_t *)a], y = g_keys[*(const uint32_t *)b];
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Trained on the even records, scored on the odd ones. */
static void model_quality(const char *root, const auto_run *r, const char *model) {
  char db[128], wl[4200];
  snprintf(db, sizeof db, "%s/tuning.db", r->dir);
  snprintf(wl, sizeof wl, "%s/bench/tune/matmul_1024.py", root);
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag *d = calloc(1, sizeof *d);
  tsl_registry *reg = NULL;
  tsl_db *h = NULL;
  records rs = {ctx, NULL, NULL, NULL, NULL, 0, 4096};
  rs.sch = calloc(rs.cap, sizeof *rs.sch);
  rs.cand = calloc(rs.cap, sizeof *rs.cand);
  rs.res = calloc(rs.cap, sizeof *rs.res);
  const tsl_component *comp = NULL;
  if (tsl_parse_file(a, wl, &rs.mod, d) || tsl_db_open(db, 0, &h, d) ||
      tsl_db_each(h, -1, NULL, take_record, &rs, d) || tsl_registry_new(ctx, &reg, d) ||
      tsl_registry_load_default(reg, 0, NULL, d) ||
      tsl_registry_require(reg, TSL_COMPONENT_COST_MODEL, model, &comp, d)) {
    printf("    model quality: %s\n", d->text);
  } else {
    const tsl_cost_model_vtable *vt = comp->vtable;
    tsl_cost_model *m = NULL;
    tsl_kv warm = {"num_warmup_samples", "0"};
    uint32_t nt = 0, nv = 0;
    tsl_candidate *tc = calloc(rs.n + 1, sizeof *tc), *vc = calloc(rs.n + 1, sizeof *vc);
    tsl_measured *tr = calloc(rs.n + 1, sizeof *tr);
    double *lat = calloc(rs.n + 1, sizeof *lat), *score = calloc(rs.n + 1, sizeof *score);
    for (uint32_t i = 0; i < rs.n; i++)
      if (i % 2 == 0) {
        tc[nt] = rs.cand[i];
        tr[nt++] = rs.res[i];
      } else {
        vc[nv] = rs.cand[i];
        lat[nv++] = rs.res[i].latency_s;
      }
    if (vt->create(comp->user_data, 1, &warm, 1, &m, d) || vt->update(m, nt, tc, tr, d) ||
        vt->predict(m, nv, vc, score, d)) {
      printf("    model quality: %s\n", d->text);
    } else {
      uint64_t good = 0, all = 0;
      for (uint32_t i = 0; i < nv; i++)
        for (uint32_t j = i + 1; j < nv; j++)
          if (lat[i] != lat[j]) {
            all++;
            good += (lat[i] < lat[j]) == (score[i] > score[j]);
          }
      uint32_t k = nv < 32 ? nv : 32, *by_pred = malloc(sizeof(uint32_t) * (nv + 1)),
               *by_true = malloc(sizeof(uint32_t) * (nv + 1));
      double *neg = malloc(sizeof(double) * (nv + 1));
      for (uint32_t i = 0; i < nv; i++) {
        by_pred[i] = by_true[i] = i;
        neg[i] = -lat[i];
      }
      g_keys = score;
      qsort(by_pred, nv, sizeof *by_pred, by_key_desc);
      g_keys = neg;
      qsort(by_true, nv, sizeof *by_true, by_key_desc);
      uint32_t hit = 0;
      for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = 0; j < k; j++)
          hit += by_pred[i] == by_true[j];
      printf("    model '%s' on the run's records (trained on %u, scored on %u held out): "
             "pairwise accuracy %.3f, top-%u recall %.3f\n",
             model, nt, nv, all ? (double)good / all : 0, k, k ? (double)hit / k : 0);
      free(by_pred);
      free(by_true);
      free(neg);
    }
    if (m)
      vt->destroy(m);
    free(tc);
    free(vc);
    free(tr);
    free(lat);
    free(score);
  }
  for (uint32_t i = 0; i < rs.n; i++)
    tsl_schedule_free(rs.sch[i]);
  free(rs.sch);
  free(rs.cand);
  free(rs.res);
  tsl_db_close(h);
  tsl_registry_free(reg);
  free(d);
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
}

/* ---- other operators --------------------------------------------------------------- */

static void ops(const char *root, double peak2) {
  static const struct {
    const char *name, *file;
    int trials;
  } ws[] = {{"conv2d NHWC 7x7/2 + pad (ResNet stem)", "bench/tune/conv2d_nhwc_stem.py", 64},
            {"depthwise conv2d 3x3 (1x16x14x14)", "workloads/depthwise_conv2d.py", 32},
            {"softmax 256x256", "workloads/softmax_256.py", 32},
            {"layer norm 32x64", "workloads/layer_norm.py", 32}};
  char empty[] = "/tmp/tessel-bench-auto-empty-XXXXXX";
  int fd = mkstemp(empty);
  if (fd < 0)
    return;
  close(fd);
  printf("\noperators, 2 threads: untuned (no schedule) and tuned from the bare program\n"
         "  %-40s %8s %12s %12s %8s %7s %8s\n", "workload", "trials", "untuned GF/s",
         "tuned GF/s", "speedup", "/peak", "wall s");
  for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
    char wl[4300], sp[128];
    snprintf(wl, sizeof wl, "workload.file=%s/%s", root, ws[i].file);
    snprintf(sp, sizeof sp, "space.schedule=%s", empty);
    const char *bare[] = {wl, sp, "strategy.kind=random", "cost_model.kind=random",
                          "target.threads=2"};
    const char *auto_sets[] = {wl, "target.threads=2"};
    auto_run u, t;
    int bad = auto_tune(root, bare, 5, 1, &u) | auto_tune(root, auto_sets, 2, ws[i].trials, &t);
    double gu = u.c.n ? u.c.best_gflops[u.c.n] : 0, gt = t.c.n ? t.c.best_gflops[t.c.n] : 0;
    if (!bad)
      printf("  %-40s %8lld %12.2f %12.2f %8.2f %7.3f %8.1f\n", ws[i].name, (long long)t.c.n,
             gu, gt, gu > 0 ? gt / gu : 0, gt / peak2, t.wall);
    auto_run_free(&u);
    auto_run_free(&t);
  }
  remove(empty);
}

/* ---- main ------------------------------------------------------------------------ */

/* The best GFLOPS at each checkpoint, against OpenBLAS and the peak, with
 * the wall time; then the search overhead. */
static void print_checkpoints(const auto_run *r, const int64_t *cp, int n_cp, double blas,
                              double peak) {
  printf("  %8s %10s %10s %9s %10s\n", "trials", "GFLOPS", "/OpenBLAS", "/peak", "wall s");
  for (int k = 0; k < n_cp; k++) {
    int64_t t = cp[k] < r->c.n ? cp[k] : r->c.n;
    double g = t > 0 ? r->c.best_gflops[t] : 0;
    printf("  %8lld %10.1f %10.2f %9.2f %10.1f\n", (long long)t, g, g / blas, g / peak,
           t > 0 ? r->c.elapsed_s[t] : 0);
  }
  auto_print_overhead(r);
}

static int parse_list(const char *s, int64_t *out, int max) {
  int n = 0;
  for (const char *p = s; *p && n < max;) {
    out[n++] = strtoll(p, (char **)&p, 10);
    if (*p == ',')
      p++;
    else if (*p)
      return -1;
  }
  return n;
}

int main(int argc, char **argv) {
  if (bench_openblas_env(argv))
    return 2;
  const char *root = getenv("TESSEL_SOURCE_ROOT"), *only = "m1024,mb1024,m128,ops,lowp", *models = "xgb";
  int64_t cp[MAX_CP] = {32, 64, 128, 256, 640};
  int n_cp = 5, seeds = 3, first_seed = 1;
  const char *peer = NULL, *peer_exe = NULL, *strategies = NULL;
  int cp_given = 0, only_given = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--checkpoints") && i + 1 < argc) {
      n_cp = parse_list(argv[++i], cp, MAX_CP);
      cp_given = 1;
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
      only_given = 1;
    } else if (!strcmp(argv[i], "--strategies") && i + 1 < argc)
      strategies = argv[++i];
    else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
      seeds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--first-seed") && i + 1 < argc)
      first_seed = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--peer") && i + 1 < argc)
      peer = argv[++i];
    else if (!strcmp(argv[i], "--peer-exe") && i + 1 < argc)
      peer_exe = argv[++i];
    else if (!strcmp(argv[i], "--models") && i + 1 < argc)
      models = argv[++i];
    else if (argv[i][0] != '-')
      root = argv[i];
    else {
      fprintf(stderr, "usage: bench_auto [SOURCE_ROOT] [--checkpoints 32,64,128,256,640] "
                      "[--only m1024,mb1024,m128,ops,lowp,pairs,transfer] [--models xgb,random] "
                      "[--seeds 3] [--first-seed 1] "
                      "[--peer tvm [--peer-exe PATH]] "
                      "[--strategies evolutionary,sketch]\n");
      return 2;
    }
  }
  if (seeds < 1 || seeds > 16) {
    fprintf(stderr,
            "bench_auto: --seeds: 1 to 16 runs per workload (lowp, pairs, transfer, --peer)\n");
    return 2;
  }
  if (first_seed < 1 || first_seed > 1000000) {
    fprintf(stderr, "bench_auto: --first-seed: 1 to 1000000 (--peer: the seeds are "
                    "first-seed .. first-seed + seeds - 1)\n");
    return 2;
  }
  if (peer && strategies) {
    fprintf(stderr, "bench_auto: --peer and --strategies: one at a time\n");
    return 2;
  }
  if (peer && strcmp(peer, "tvm")) {
    fprintf(stderr, "bench_auto: --peer %s: the one peer is tvm (TVM v0.19's MetaSchedule "
                    "through ../shared/tools/tvm-peer)\n", peer);
    return 2;
  }
  if (n_cp <= 0) {
    fprintf(stderr, "bench_auto: --checkpoints: a comma-separated list of trial counts\n");
    return 2;
  }
  char abs_root[4096];
  if (!realpath(root ? root : ".", abs_root)) {
    perror("bench_auto: source root");
    return 2;
  }
  printf("automatic tuning: configs/auto.yaml (default rules, evolutionary search, TVM's "
         "runner settings; slow candidates stopped or screened)\n");
  double peak1 = bench_peak(PEAK_FMA_F32, 1), peak2 = bench_peak(PEAK_FMA_F32, 2);
  printf("FMA peak: %.1f GFLOPS (1 thread), %.1f GFLOPS (2 threads), float32 %s\n", peak1,
         peak2, __builtin_cpu_supports("avx512f") ? "AVX-512" : "AVX2");
  if (peer) {
    char exe[4200];
    snprintf(exe, sizeof exe, "%s", peer_exe ? peer_exe : "");
    if (!peer_exe)
      snprintf(exe, sizeof exe, "%s/../shared/tools/tvm-peer/tvm-peer", abs_root);
    if (access(exe, X_OK)) {
      fprintf(stderr, "bench_auto: --peer tvm: %s is not there (--peer-exe PATH names it)\n",
              exe);
      return 2;
    }
    peer_opts po = {abs_root, exe, only, cp, n_cp, seeds, peak1, peak2, blas_gflops, first_seed};
    bench_peer(&po); /* instead of the float32 sections */
  }
  if (strategies) { /* instead of every other section */
    static const int64_t default_trials[] = {64, 256};
    strategies_opts so = {abs_root, strategies, only_given ? only : "m1024,mb1024,stem,ansor",
                          cp_given ? cp : default_trials, cp_given ? n_cp : 2, seeds, peak2,
                          blas_side_by_side};
    bench_strategies(&so);
    return 0;
  }
  if (!peer && strstr(only, "m1024")) {
    double blas = blas_gflops(1024, 2);
    printf("\nfloat32 1024 matmul, 2 threads: OpenBLAS sgemm %.1f GFLOPS (%.2f of peak)\n",
           blas, blas / peak2);
    auto_run runs[MAX_MODELS];
    const char *names[MAX_MODELS];
    int n_models = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", models);
    char *save = NULL;
    for (char *m = strtok_r(list, ",", &save); m && n_models < MAX_MODELS;
         m = strtok_r(NULL, ",", &save)) {
      char wl[4300], model[128];
      snprintf(wl, sizeof wl, "workload.file=%s/bench/tune/matmul_1024.py", abs_root);
      snprintf(model, sizeof model, "cost_model.kind=%s", m);
      const char *sets[] = {wl, model, "target.threads=2"};
      names[n_models] = m;
      if (auto_tune(abs_root, sets, 3, cp[n_cp - 1], &runs[n_models])) {
        auto_run_free(&runs[n_models]);
        continue;
      }
      auto_run *r = &runs[n_models++];
      printf("  cost model '%s':\n", m);
      print_checkpoints(r, cp, n_cp, blas, peak2);
      print_side_by_side(r->dir, "matmul", MATMUL_PLAIN, 1024, 2, peak2);
    }
    if (n_models >= 2) {
      const auto_run *a = &runs[0], *b = &runs[n_models - 1];
      double target = b->c.n ? b->c.best_gflops[b->c.n] : 0;
      int64_t need = -1;
      for (int64_t i = 1; i <= a->c.n && need < 0; i++)
        if (a->c.best_gflops[i] >= target)
          need = i;
      if (need > 0)
        printf("  '%s' reaches '%s''s best after %lld trials (%.1f GFLOPS) in %lld trials\n",
               names[0], names[n_models - 1], (long long)b->c.n, target, (long long)need);
      else
        printf("  '%s' does not reach '%s''s best (%.1f GFLOPS) in %lld trials\n", names[0],
               names[n_models - 1], target, (long long)a->c.n);
    }
    if (n_models >= 1 && runs[0].c.n >= 64)
      model_quality(abs_root, &runs[0], "xgb");
    for (int i = 0; i < n_models; i++)
      auto_run_free(&runs[i]);
  }
  if (!peer && strstr(only, "mb1024")) {
    /* TVM's RewriteLayout: the weight packed once, outside the timed calls */
    double blas = blas_gflops(1024, 2);
    char wl[4300];
    snprintf(wl, sizeof wl, "workload.file=%s/bench/tune/matmul_bias_1024.py", abs_root);
    const char *sets[] = {wl, "target.threads=2"};
    auto_run r;
    printf("\nfloat32 1024 matmul + bias, B layout-free (packed ahead of the calls), 2 threads;"
           " OpenBLAS sgemm %.1f GFLOPS\n",
           blas);
    if (!auto_tune(abs_root, sets, 2, cp[n_cp - 1], &r)) {
      print_checkpoints(&r, cp, n_cp, blas, peak2);
      print_side_by_side(r.dir, "matmul_bias", MATMUL_BIAS, 1024, 2, peak2);
    }
    auto_run_free(&r);
  }
  if (!peer && strstr(only, "m128")) {
    for (int threads = 1; threads <= 2; threads++) {
      double blas = blas_gflops(128, threads), peak = threads == 1 ? peak1 : peak2;
      char wl[4300], th[64];
      snprintf(wl, sizeof wl, "workload.file=%s/workloads/matmul_128.py", abs_root);
      snprintf(th, sizeof th, "target.threads=%d", threads);
      const char *sets[] = {wl, th};
      auto_run r;
      printf("\nfloat32 128 matmul, %d thread%s, 64 trials: ", threads, threads > 1 ? "s" : "");
      if (!auto_tune(abs_root, sets, 2, 64, &r)) {
        double g = r.c.n ? r.c.best_gflops[r.c.n] : 0;
        printf("%.1f GFLOPS, %.2f x OpenBLAS (%.1f GFLOPS), %.2f of peak, %.1f s\n", g,
               g / blas, blas, g / peak, r.wall);
        auto_print_overhead(&r);
        print_side_by_side(r.dir, "matmul", MATMUL_PLAIN, 128, threads, peak);
      }
      auto_run_free(&r);
    }
  }
  if (!peer && strstr(only, "ops"))
    ops(abs_root, peak2);
  if (strstr(only, "lowp"))
    bench_lowp(abs_root, cp, n_cp, seeds, only);
  if (strstr(only, "pairs"))
    bench_pairs(abs_root, cp[n_cp - 1], seeds, only);
  if (strstr(only, "transfer"))
    bench_transfer(abs_root, seeds);
  return 0;
}
