/*
 * Automatic tuning from the bare program (issue 13's evidence): runs of
 * configs/auto.yaml (default rules, evolutionary search, TVM's runner
 * settings, slow candidates stopped or screened) through the public API, each in a fresh mkdtemp database,
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
 * run can be off by as much.
 * Usage: bench_auto [SOURCE_ROOT] [--checkpoints 32,64,128,256,640]
 *                   [--only m1024,mb1024,m128,ops] [--models xgb,random]
 *                                                (or ./tessel bench auto ...)
 */
#define _XOPEN_SOURCE 700
#include "tessel/tessel.h"
#include "../bench_util.h"

#include <cblas.h>
#include <dlfcn.h>
#include <ftw.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void openblas_set_num_threads(int n);

enum { MAX_CP = 16, MAX_MODELS = 4 };

/* ---- the references: OpenBLAS and the FMA peak ---------------------------------- */

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

/* A process timing blocks of calls on request, its state kept warm between
 * them (buffers, thread pool; the first blocks of a fresh process of the
 * 1024 matmul + bias ran at 60% of the later ones): the exported best
 * kernel `<dir>/libbest.so` or OpenBLAS sgemm, n x n. The kernel is
 * func(A, B, C), or with `packs` func(A, B packed, bias, C) after
 * func_prepack(B, B packed) (bench/tune/matmul_bias_1024.py). Each side
 * runs in a process of its own, so neither library's idle threads share a
 * process with the other's calls. */
typedef struct block_server {
  pid_t pid;
  int req, res; /* the parent's ends */
} block_server;

static void serve_blocks(const char *dir, const char *func, int packs, int n, int threads,
                         int blas, int req, int res) {
  int32_t (*fn)(void *const *) = NULL, (*pre)(void *const *) = NULL;
  if (!blas) {
    char so[256], sym[256];
    snprintf(so, sizeof so, "%s/libbest.so", dir);
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      fprintf(stderr, "bench_auto: %s\n", dlerror());
    snprintf(sym, sizeof sym, "best_%s_packed", func);
    fn = h ? (int32_t(*)(void *const *))dlsym(h, sym) : NULL;
    snprintf(sym, sizeof sym, "best_%s_prepack_packed", func);
    pre = h && packs ? (int32_t(*)(void *const *))dlsym(h, sym) : NULL;
  }
  size_t nn = (size_t)n * n;
  /* the packed weight (the kernel's only): room for a layout padded up to
   * 4 times */
  int kernel_packs = packs && !blas;
  float *a = aligned_alloc(64, nn * 4), *b = aligned_alloc(64, nn * 4),
        *bp = kernel_packs ? aligned_alloc(64, nn * 16) : NULL,
        *bias = aligned_alloc(64, (size_t)n * 4), *c = aligned_alloc(64, nn * 4);
  int ok = (blas || (fn && (!packs || pre))) && a && b && (bp || !kernel_packs) && bias && c;
  for (size_t i = 0; ok && i < nn; i++) {
    a[i] = (float)(i % 7) * 0.25f;
    b[i] = (float)(i % 5) * 0.5f;
  }
  for (int j = 0; ok && j < n; j++)
    bias[j] = (float)j;
  void *pre_args[2] = {b, bp};
  void *args[4] = {a, b, c, NULL};
  if (kernel_packs) {
    args[1] = bp;
    args[2] = bias;
    args[3] = c;
  }
  if (ok && kernel_packs && pre(pre_args))
    ok = 0;
  if (blas)
    openblas_set_num_threads(threads);
  char go;
  while (read(req, &go, 1) == 1) {
    int calls = -1; /* the first is untimed */
    double t0 = 0, t = 0, gf = 0;
    while (ok && (calls < 1 || (t = bench_now() - t0) < 0.2)) {
      if (blas)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n,
                    0.0f, c, n);
      else if (fn(args))
        ok = 0;
      if (++calls == 0)
        t0 = bench_now();
    }
    if (ok)
      gf = 2.0 * n * n * n * calls / t * 1e-9;
    if (write(res, &gf, sizeof gf) != sizeof gf)
      break;
  }
  _exit(0);
}

static int server_start(block_server *s, const char *dir, const char *func, int packs, int n,
                        int threads, int blas) {
  int rq[2], rs[2];
  if (pipe(rq))
    return -1;
  if (pipe(rs)) {
    close(rq[0]);
    close(rq[1]);
    return -1;
  }
  fflush(NULL);
  s->pid = fork();
  if (s->pid == 0) {
    close(rq[1]);
    close(rs[0]);
    serve_blocks(dir, func, packs, n, threads, blas, rq[0], rs[1]);
  }
  close(rq[0]);
  close(rs[1]);
  s->req = rq[1];
  s->res = rs[0];
  if (s->pid < 0) {
    close(s->req);
    close(s->res);
    return -1;
  }
  return 0;
}

/* One block after a pause (the other side's idle threads stop spinning):
 * its GFLOPS, 0 on failure. */
static double server_block(block_server *s) {
  nanosleep(&(struct timespec){0, 300000000}, NULL);
  char go = 1;
  double gf = 0;
  if (write(s->req, &go, 1) != 1 || read(s->res, &gf, sizeof gf) != sizeof gf)
    return 0;
  return gf;
}

static void server_stop(block_server *s) {
  close(s->req);
  close(s->res);
  waitpid(s->pid, NULL, 0);
}

/* The exported best kernel and OpenBLAS timed alternately, after 3 blocks
 * of each to warm up: the medians of 7 blocks of each. */
static int side_by_side(const char *dir, const char *func, int packs, int n, int threads,
                        double *kernel_gf, double *blas_gf) {
  block_server k, b;
  if (server_start(&k, dir, func, packs, n, threads, 0))
    return -1;
  if (server_start(&b, dir, func, packs, n, threads, 1)) {
    server_stop(&k);
    return -1;
  }
  double ks[7], bs[7];
  int rc = 0;
  for (int r = -3; r < 7 && !rc; r++) {
    double kg = server_block(&k), bg = server_block(&b);
    if (kg <= 0 || bg <= 0)
      rc = -1;
    else if (r >= 0)
      ks[r] = kg, bs[r] = bg;
  }
  server_stop(&b); /* first: b holds a copy of k's request pipe */
  server_stop(&k);
  if (rc) {
    fprintf(stderr, "bench_auto: cannot time %s/libbest.so's %s side by side\n", dir, func);
    return -1;
  }
  *kernel_gf = bench_median(ks, 7);
  *blas_gf = bench_median(bs, 7);
  return 0;
}

/* The line of a side-by-side timing after a run. */
static void print_side_by_side(const char *dir, const char *func, int packs, int n,
                               int threads, double peak) {
  double k = 0, b = 0;
  if (!side_by_side(dir, func, packs, n, threads, &k, &b))
    printf("    the best kernel and OpenBLAS side by side after the run (medians of 7 "
           "alternations): %.1f and %.1f GFLOPS, ratio %.2f, %.2f of peak\n",
           k, b, k / b, k / peak);
}

/* Independent fused multiply-adds, 12 chains held in registers (FMA
 * latency x units is at most 8 chains' worth on current x86 cores; 12
 * accumulators and two operands fit the 16 vector registers). */
#define FMA_CHAINS 12
#define FMA_BODY(T, set1, fmadd)                                                        \
  T a0 = set1(0), a1 = set1(1), a2 = set1(2), a3 = set1(3), a4 = set1(4), a5 = set1(5),     \
    a6 = set1(6), a7 = set1(7), a8 = set1(8), a9 = set1(9), a10 = set1(10), a11 = set1(11); \
  T x = set1(1.0000001f), y = set1(0.9999999f);                                          \
  for (long i = 0; i < iters; i++) {                                                       \
    a0 = fmadd(a0, x, y); a1 = fmadd(a1, x, y); a2 = fmadd(a2, x, y);                      \
    a3 = fmadd(a3, x, y); a4 = fmadd(a4, x, y); a5 = fmadd(a5, x, y);                      \
    a6 = fmadd(a6, x, y); a7 = fmadd(a7, x, y); a8 = fmadd(a8, x, y);                      \
    a9 = fmadd(a9, x, y); a10 = fmadd(a10, x, y); a11 = fmadd(a11, x, y);                  \
  }                                                                                        \
  T s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;                       \
  return s[0];

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters) {
  FMA_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps)
}

__attribute__((target("avx512f"))) static double fma_avx512(long iters) {
  FMA_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps)
}

typedef struct peak_job {
  long iters;
  double gflops, sink;
} peak_job;

static void *peak_thread(void *p) {
  peak_job *j = p;
  int wide = __builtin_cpu_supports("avx512f");
  double t0 = bench_now();
  j->sink = wide ? fma_avx512(j->iters) : fma_avx2(j->iters);
  double lanes = wide ? 16 : 8;
  j->gflops = 2.0 * lanes * FMA_CHAINS * (double)j->iters / (bench_now() - t0) * 1e-9;
  return NULL;
}

/* FLOP/s of `threads` threads running FMA chains, median of 5. */
static double fma_peak(int threads) {
  double s[5];
  for (int r = 0; r < 5; r++) {
    pthread_t t[8];
    peak_job j[8];
    for (int i = 0; i < threads; i++) {
      j[i] = (peak_job){50000000, 0, 0};
      pthread_create(&t[i], NULL, peak_thread, &j[i]);
    }
    s[r] = 0;
    for (int i = 0; i < threads; i++) {
      pthread_join(t[i], NULL);
      s[r] += j[i].gflops;
    }
  }
  return bench_median(s, 5);
}

/* ---- tuning runs ------------------------------------------------------------------- */

typedef struct curve {
  int64_t n;            /* candidates measured so far */
  double *best_gflops;  /* after candidate i (1-based), 0 before any */
  double *elapsed_s;
  int64_t cap;
  double flops;
} curve;

static void on_progress(void *ud, const tsl_tune_progress *p) {
  curve *c = ud;
  if (p->measured > c->n && p->measured <= c->cap) {
    double g = p->best_s > 0 && p->flops > 0 ? p->flops / p->best_s * 1e-9 : 0;
    for (int64_t i = c->n + 1; i <= p->measured; i++) {
      c->best_gflops[i] = g;
      c->elapsed_s[i] = p->elapsed_s;
    }
    c->n = p->measured;
    c->flops = p->flops;
  }
}

/* The best after each record, in the database's order: a batch probed by
 * its checked calls is measured fastest probe first but recorded in the
 * order generated, so record i is candidate i, and the best of the first N
 * is what a run of N trials would have (the progress reports follow the
 * measurement order: a probed batch reports its slow candidates first). */
typedef struct prefix {
  curve *c;
  int64_t i;
  double best_s;
} prefix;

static int take_prefix(void *ud, const tsl_db_record *rec) {
  prefix *p = ud;
  if (++p->i > p->c->cap)
    return 1;
  if (rec->status == TSL_RUN_OK && rec->latency_s > 0 && (p->best_s < 0 || rec->latency_s < p->best_s))
    p->best_s = rec->latency_s;
  p->c->best_gflops[p->i] = p->best_s > 0 && p->c->flops > 0 ? p->c->flops / p->best_s * 1e-9 : 0;
  return 0;
}

static void curve_from_records(curve *c, const char *db_path) {
  tsl_db *h = NULL;
  tsl_diag d = {0};
  prefix p = {c, 0, -1};
  if (tsl_db_open(db_path, 0, &h, &d) == TSL_OK)
    tsl_db_each(h, -1, NULL, take_prefix, &p, &d);
  tsl_db_close(h);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(path);
}

typedef struct run {
  tsl_tune_result r;
  curve c;
  double wall;
  char dir[64];
} run;

/* A tuning run of configs/auto.yaml with overrides, in a fresh folder
 * (kept until run_free: the records are read afterwards). */
static int tune(const char *root, const char *const *sets, int n_sets, int64_t trials,
                run *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->dir, sizeof out->dir, "/tmp/tessel-bench-auto-XXXXXX");
  if (!mkdtemp(out->dir))
    return -1;
  char config[4200], db[128], wd[128], tr[64], ex[128];
  snprintf(config, sizeof config, "%s/configs/auto.yaml", root);
  snprintf(db, sizeof db, "database=%s/tuning.db", out->dir);
  snprintf(wd, sizeof wd, "work_dir=%s", out->dir);
  snprintf(ex, sizeof ex, "export=%s/libbest.so", out->dir);
  snprintf(tr, sizeof tr, "strategy.trials=%lld", (long long)trials);
  const char *all[16];
  int n = 0;
  for (int i = 0; i < n_sets && n < 12; i++)
    all[n++] = sets[i];
  all[n++] = db;
  all[n++] = wd;
  all[n++] = tr;
  all[n++] = ex;
  out->c.cap = trials;
  out->c.best_gflops = calloc((size_t)trials + 1, sizeof(double));
  out->c.elapsed_s = calloc((size_t)trials + 1, sizeof(double));
  tsl_diag *d = calloc(1, sizeof *d);
  double t0 = bench_now();
  int rc = d ? bench_tune_run(config, (uint32_t)n, all, on_progress, &out->c, &out->r, d) : -1;
  out->wall = bench_now() - t0;
  if (rc)
    fprintf(stderr, "bench_auto: %s\n", d ? d->text : "out of memory");
  else
    curve_from_records(&out->c, db + strlen("database="));
  free(d);
  return rc;
}

static void run_free(run *r) {
  tsl_tune_result_free(&r->r);
  free(r->c.best_gflops);
  free(r->c.elapsed_s);
  nftw(r->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void print_overhead(const run *r) {
  double t = r->r.trials > 0 ? (double)r->r.trials : 1;
  double search = r->r.search_s - r->r.fixed_s;
  printf("    %lld trials (%lld failed) in %.1f s: search %.1f s = %.0f ms per candidate, "
         "%.1f%% of the wall time (builds %.1f s, measurements %.1f s: %lld candidates "
         "stopped at runner.skip_slower times the best, %lld timed by their checked call "
         "alone, %lld by a screening repeat, %lld probed first; setup and best %.1f s)\n",
         (long long)r->r.trials, (long long)r->r.errors, r->wall, search, search / t * 1e3,
         100 * search / (r->wall > 0 ? r->wall : 1), r->r.build_s, r->r.measure_s,
         (long long)r->r.stopped, (long long)r->r.timed_once, (long long)r->r.screened,
         (long long)r->r.probed, r->r.fixed_s);
  const tsl_cand_service_stats *c = &r->r.cands;
  double parts = c->replay_s + c->postproc_s + c->feature_s + r->r.mutate_s + r->r.predict_s +
                 r->r.train_s + r->r.lower_s;
  printf("      per candidate: replay %.1f ms (%lld replays for %lld prepared, %lld from the "
         "cache), postprocessing %.1f ms, features %.1f ms, mutation %.1f ms, prediction "
         "%.1f ms, training %.1f ms, lowering %.1f ms; the rest %.1f ms\n",
         c->replay_s / t * 1e3, (long long)c->replays, (long long)c->prepared,
         (long long)c->hits, c->postproc_s / t * 1e3, c->feature_s / t * 1e3,
         r->r.mutate_s / t * 1e3, r->r.predict_s / t * 1e3, r->r.train_s / t * 1e3,
         r->r.lower_s / t * 1e3, (search - parts) / t * 1e3);
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
static void model_quality(const char *root, const run *r, const char *model) {
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
    run u, t;
    int bad = tune(root, bare, 5, 1, &u) | tune(root, auto_sets, 2, ws[i].trials, &t);
    double gu = u.c.n ? u.c.best_gflops[u.c.n] : 0, gt = t.c.n ? t.c.best_gflops[t.c.n] : 0;
    if (!bad)
      printf("  %-40s %8lld %12.2f %12.2f %8.2f %7.3f %8.1f\n", ws[i].name, (long long)t.c.n,
             gu, gt, gu > 0 ? gt / gu : 0, gt / peak2, t.wall);
    run_free(&u);
    run_free(&t);
  }
  remove(empty);
}

/* ---- main ------------------------------------------------------------------------ */

/* The best GFLOPS at each checkpoint, against OpenBLAS and the peak, with
 * the wall time; then the search overhead. */
static void print_checkpoints(const run *r, const int64_t *cp, int n_cp, double blas,
                              double peak) {
  printf("  %8s %10s %10s %9s %10s\n", "trials", "GFLOPS", "/OpenBLAS", "/peak", "wall s");
  for (int k = 0; k < n_cp; k++) {
    int64_t t = cp[k] < r->c.n ? cp[k] : r->c.n;
    double g = t > 0 ? r->c.best_gflops[t] : 0;
    printf("  %8lld %10.1f %10.2f %9.2f %10.1f\n", (long long)t, g, g / blas, g / peak,
           t > 0 ? r->c.elapsed_s[t] : 0);
  }
  print_overhead(r);
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
  const char *root = getenv("TESSEL_SOURCE_ROOT"), *only = "m1024,mb1024,m128,ops", *models = "xgb";
  int64_t cp[MAX_CP] = {32, 64, 128, 256, 640};
  int n_cp = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--checkpoints") && i + 1 < argc)
      n_cp = parse_list(argv[++i], cp, MAX_CP);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--models") && i + 1 < argc)
      models = argv[++i];
    else if (argv[i][0] != '-')
      root = argv[i];
    else {
      fprintf(stderr, "usage: bench_auto [SOURCE_ROOT] [--checkpoints 32,64,128,256,640] "
                      "[--only m1024,mb1024,m128,ops] [--models xgb,random]\n");
      return 2;
    }
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
  double peak1 = fma_peak(1), peak2 = fma_peak(2);
  printf("FMA peak: %.1f GFLOPS (1 thread), %.1f GFLOPS (2 threads), float32 %s\n", peak1,
         peak2, __builtin_cpu_supports("avx512f") ? "AVX-512" : "AVX2");
  if (strstr(only, "m1024")) {
    double blas = blas_gflops(1024, 2);
    printf("\nfloat32 1024 matmul, 2 threads: OpenBLAS sgemm %.1f GFLOPS (%.2f of peak)\n",
           blas, blas / peak2);
    run runs[MAX_MODELS];
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
      if (tune(abs_root, sets, 3, cp[n_cp - 1], &runs[n_models])) {
        run_free(&runs[n_models]);
        continue;
      }
      run *r = &runs[n_models++];
      printf("  cost model '%s':\n", m);
      print_checkpoints(r, cp, n_cp, blas, peak2);
      print_side_by_side(r->dir, "matmul", 0, 1024, 2, peak2);
    }
    if (n_models >= 2) {
      const run *a = &runs[0], *b = &runs[n_models - 1];
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
      run_free(&runs[i]);
  }
  if (strstr(only, "mb1024")) {
    /* TVM's RewriteLayout: the weight packed once, outside the timed calls */
    double blas = blas_gflops(1024, 2);
    char wl[4300];
    snprintf(wl, sizeof wl, "workload.file=%s/bench/tune/matmul_bias_1024.py", abs_root);
    const char *sets[] = {wl, "target.threads=2"};
    run r;
    printf("\nfloat32 1024 matmul + bias, B layout-free (packed ahead of the calls), 2 threads;"
           " OpenBLAS sgemm %.1f GFLOPS\n",
           blas);
    if (!tune(abs_root, sets, 2, cp[n_cp - 1], &r)) {
      print_checkpoints(&r, cp, n_cp, blas, peak2);
      print_side_by_side(r.dir, "matmul_bias", 1, 1024, 2, peak2);
    }
    run_free(&r);
  }
  if (strstr(only, "m128")) {
    for (int threads = 1; threads <= 2; threads++) {
      double blas = blas_gflops(128, threads), peak = threads == 1 ? peak1 : peak2;
      char wl[4300], th[64];
      snprintf(wl, sizeof wl, "workload.file=%s/workloads/matmul_128.py", abs_root);
      snprintf(th, sizeof th, "target.threads=%d", threads);
      const char *sets[] = {wl, th};
      run r;
      printf("\nfloat32 128 matmul, %d thread%s, 64 trials: ", threads, threads > 1 ? "s" : "");
      if (!tune(abs_root, sets, 2, 64, &r)) {
        double g = r.c.n ? r.c.best_gflops[r.c.n] : 0;
        printf("%.1f GFLOPS, %.2f x OpenBLAS (%.1f GFLOPS), %.2f of peak, %.1f s\n", g,
               g / blas, blas, g / peak, r.wall);
        print_overhead(&r);
        print_side_by_side(r.dir, "matmul", 0, 128, threads, peak);
      }
      run_free(&r);
    }
  }
  if (strstr(only, "ops"))
    ops(abs_root, peak2);
  return 0;
}
