/* Search strategies side by side (strategies.h). */
#include "strategies.h"
#include "../bench_util.h"
#include "tune_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_STRATEGIES = 4, MAX_SEEDS = 16 };

typedef struct workload {
  const char *name, *what, *file, *func;
  int layout; /* MATMUL_*, or -1: not a matmul (against the peak) */
} workload;

static const workload workloads[] = {
    {"m1024", "float32 1024 matmul", "bench/tune/matmul_1024.py", "matmul", MATMUL_PLAIN},
    {"mb1024", "float32 1024 matmul + bias, weight layout-free", "bench/tune/matmul_bias_1024.py",
     "matmul_bias", MATMUL_BIAS},
    {"stem", "ResNet stem conv2d NHWC 7x7/2 with padding", "bench/tune/conv2d_nhwc_stem.py",
     NULL, -1},
};
static const workload ansor = {"ansor", "the seeds' Ansor workload, A @ B + C 1024, B layout-free",
                               "bench/tune/matmul_add_1024.py", "matmul_add", MATMUL_ADD};

/* One run's figures. */
typedef struct figures {
  double gflops; /* re-measured best; 0: the run failed */
  double ratio;  /* to OpenBLAS side by side (matmuls), or to the peak */
  double wall, search_ms; /* wall time; search time per measured candidate */
} figures;

static figures figures_of(const strategies_opts *o, const workload *w, const auto_run *r) {
  figures f = {0, 0, r->wall, 0};
  double t = r->r.trials > 0 ? (double)r->r.trials : 1;
  f.search_ms = (r->r.search_s - r->r.fixed_s) / t * 1e3;
  if (r->r.remeasured_s <= 0 || r->c.flops <= 0)
    return f;
  f.gflops = r->c.flops / r->r.remeasured_s * 1e-9;
  double kg = 0, bg = 0;
  if (w->layout < 0)
    f.ratio = f.gflops / o->peak2;
  else if (!o->vs_blas(r->dir, w->func, w->layout, 1024, 2, &kg, &bg) && bg > 0)
    f.ratio = kg / bg;
  return f;
}

static void print_figures(const figures *f) {
  if (f->gflops > 0)
    printf(" %8.1f %6.2f %7.1f %7.1f", f->gflops, f->ratio, f->wall, f->search_ms);
  else
    printf(" %8s %6s %7s %7s", "failed", "", "", "");
}

/* The table head: per strategy GFLOPS, ratio, wall s, search ms. */
static void print_head(const char *const *names, int n, const char *ratio) {
  printf("  %4s", "seed");
  for (int k = 0; k < n; k++)
    printf(" | %-31.31s", names[k]);
  printf("\n  %4s", "");
  for (int k = 0; k < n; k++)
    printf(" | %8s %6s %7s %7s", "GFLOPS", ratio, "wall s", "ms/cand");
  printf("\n");
}

/* Medians over the seeds per strategy, and each strategy's wins over the
 * first one. */
static void print_summary(const char *const *names, int n, figures f[][MAX_SEEDS], int seeds) {
  printf("  %4s", "med.");
  double med_g[MAX_STRATEGIES] = {0};
  for (int k = 0; k < n; k++) {
    double g[MAX_SEEDS], r[MAX_SEEDS], w[MAX_SEEDS], s[MAX_SEEDS];
    int m = 0;
    for (int i = 0; i < seeds; i++)
      if (f[k][i].gflops > 0) {
        g[m] = f[k][i].gflops;
        r[m] = f[k][i].ratio;
        w[m] = f[k][i].wall;
        s[m++] = f[k][i].search_ms;
      }
    if (!m) {
      printf(" | %8s %6s %7s %7s", "-", "", "", "");
      continue;
    }
    med_g[k] = bench_median(g, m);
    printf(" | %8.1f %6.2f %7.1f %7.1f", med_g[k], bench_median(r, m), bench_median(w, m),
           bench_median(s, m));
  }
  printf("\n");
  for (int k = 1; k < n; k++) {
    int won = 0, pairs = 0;
    double lo = 0, hi = 0;
    for (int i = 0; i < seeds; i++)
      if (f[0][i].gflops > 0 && f[k][i].gflops > 0) {
        double q = f[k][i].gflops / f[0][i].gflops;
        lo = pairs && lo < q ? lo : q;
        hi = pairs && hi > q ? hi : q;
        pairs++;
        won += q > 1;
      }
    if (pairs)
      printf("  %s / %s: medians %.2f; %s better in %d of %d seeds (per seed %.2f to %.2f)\n",
             names[k], names[0], med_g[0] > 0 ? med_g[k] / med_g[0] : 0, names[k], won, pairs,
             lo, hi);
  }
}

/* The strategy of column k for seed s: the order alternates between seeds. */
static int column(int n, int s, int i) { return s % 2 ? i : n - 1 - i; }

static void run_table(const strategies_opts *o, const char *const *names, int n,
                      const workload *w, int64_t trials) {
  printf("\n%s, %lld trials, 2 threads\n", w->what, (long long)trials);
  print_head(names, n, w->layout < 0 ? "/peak" : "/BLAS");
  figures f[MAX_STRATEGIES][MAX_SEEDS];
  for (int s = 1; s <= o->seeds; s++) {
    char wl[4300], sd[32], kind[96];
    snprintf(wl, sizeof wl, "workload.file=%s/%s", o->root, w->file);
    snprintf(sd, sizeof sd, "seed=%d", s);
    for (int i = 0; i < n; i++) {
      int k = column(n, s, i);
      snprintf(kind, sizeof kind, "strategy.kind=%s", names[k]);
      const char *sets[] = {wl, sd, kind, "cost_model.kind=xgb", "target.threads=2"};
      auto_run r;
      int bad = auto_tune(o->root, sets, 5, trials, &r);
      f[k][s - 1] = bad ? (figures){0, 0, 0, 0} : figures_of(o, w, &r);
      auto_run_free(&r);
    }
    printf("  %4d", s);
    for (int k = 0; k < n; k++) {
      printf(" |");
      print_figures(&f[k][s - 1]);
    }
    printf("\n");
    fflush(stdout);
  }
  print_summary(names, n, f, o->seeds);
}

/* configs/ansor.yaml's workflow per strategy: 10 trials, then resumed to
 * 64 in the same database. */
static void run_ansor(const strategies_opts *o, const char *const *names, int n) {
  printf("\n%s, 2 threads: 10 trials, then resumed to 64 (configs/ansor.yaml); "
         "/BLAS against OpenBLAS sgemm alone\n", ansor.what);
  figures f10[MAX_STRATEGIES][MAX_SEEDS], f64[MAX_STRATEGIES][MAX_SEEDS];
  for (int s = 1; s <= o->seeds; s++) {
    char wl[4300], sd[32], kind[96];
    snprintf(wl, sizeof wl, "workload.file=%s/%s", o->root, ansor.file);
    snprintf(sd, sizeof sd, "seed=%d", s);
    for (int i = 0; i < n; i++) {
      int k = column(n, s, i);
      snprintf(kind, sizeof kind, "strategy.kind=%s", names[k]);
      const char *sets[] = {wl, sd, kind, "cost_model.kind=xgb", "target.threads=2",
                            "strategy.batch=64"};
      auto_run r;
      int bad = auto_tune(o->root, sets, 6, 10, &r);
      f10[k][s - 1] = bad ? (figures){0, 0, 0, 0} : figures_of(o, &ansor, &r);
      bad = bad || auto_tune_more(o->root, sets, 6, 64, &r);
      f64[k][s - 1] = bad ? (figures){0, 0, 0, 0} : figures_of(o, &ansor, &r);
      auto_run_free(&r);
    }
  }
  for (int t = 0; t < 2; t++) {
    printf("  %s\n", t ? "resumed to 64 trials (wall and search: the resumed run's)"
                       : "10 trials");
    print_head(names, n, "/BLAS");
    for (int s = 1; s <= o->seeds; s++) {
      printf("  %4d", s);
      for (int k = 0; k < n; k++) {
        printf(" |");
        print_figures(t ? &f64[k][s - 1] : &f10[k][s - 1]);
      }
      printf("\n");
    }
    print_summary(names, n, t ? f64 : f10, o->seeds);
  }
}

void bench_strategies(const strategies_opts *o) {
  char list[256];
  const char *names[MAX_STRATEGIES];
  int n = 0;
  snprintf(list, sizeof list, "%s", o->strategies);
  char *save = NULL;
  for (char *t = strtok_r(list, ",", &save); t && n < MAX_STRATEGIES;
       t = strtok_r(NULL, ",", &save))
    names[n++] = t;
  int seeds = o->seeds < MAX_SEEDS ? o->seeds : MAX_SEEDS;
  strategies_opts so = *o;
  so.seeds = seeds;
  printf("\nsearch strategies side by side: configs/auto.yaml with strategy.kind each of %s, "
         "the xgb model, seeds 1 to %d, each seed's runs one after the other (the order "
         "alternating between seeds). GFLOPS: the re-measured best (runner.remeasure); /BLAS: "
         "the exported best and OpenBLAS sgemm timed side by side after the run; /peak: the "
         "re-measured best over the FMA peak (%.1f GFLOPS); ms/cand: search time outside "
         "setup per measured candidate\n",
         o->strategies, seeds, o->peak2);
  for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++)
    if (bench_named(o->only, workloads[w].name))
      for (int t = 0; t < o->n_trials; t++)
        run_table(&so, names, n, &workloads[w], o->trials[t]);
  if (bench_named(o->only, "ansor"))
    run_ansor(&so, names, n);
}
