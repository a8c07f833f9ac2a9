/*
 * Tuning throughput: end-to-end trials per second of `tessel tune` runs
 * driven through the public API (config.h, plugin.h, tune.h), with the
 * time split the tuner reports (search overhead, parallel builds,
 * measurements). Scenarios, each configs/quickstart.yaml plus overrides:
 *   a  the quickstart as shipped (16 trials over its small space);
 *   b  matmul_128 over workloads/matmul_tiled_space.sch, 64 trials,
 *      batch 16, 1 thread (the aim: 64 trials in under 15 s);
 *   c  matmul_1024 over the same space, 2 threads, 16 trials, batch 8,
 *      a short runner (one call per repeat, no minimum duration).
 * Every run gets a fresh mkdtemp folder for its database and work folder
 * (nothing is resumed), removed afterwards. Scenarios are interleaved
 * round by round; the median of each figure over the rounds is printed.
 * Usage: bench_tune [SOURCE_ROOT] [--rounds R] [--only a,b,c]
 *                   [--trials-1024 N]          (or ./tessel bench tune ...)
 */
#define _XOPEN_SOURCE 700
#include "tessel/tessel.h"
#include "../bench_util.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { N_SCEN = 3, MAX_ROUNDS = 64, MAX_SETS = 16 };

typedef struct scenario {
  char id;
  const char *title;
  const char *sets[MAX_SETS]; /* overrides; database and work_dir added per run */
  int n_sets;
} scenario;

/* One run's figures, indexed by the F_* values. */
enum {
  F_TRIALS, F_ERRORS, F_WALL, F_RATE, F_BUILD, F_MEASURE, F_SEARCH, F_FIXED, F_GFLOPS,
  N_FIG
};
typedef struct figures {
  double v[N_FIG];
} figures;


static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(path);
}

static void rm_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* One tuning run in a fresh folder, set up as `tessel tune` does. */
static int run_scenario(const char *config, const scenario *s, figures *out) {
  char tmpl[] = "/tmp/tessel-bench-tune-XXXXXX";
  if (!mkdtemp(tmpl)) {
    perror("bench_tune: mkdtemp");
    return -1;
  }
  char db_set[128], wd_set[128];
  snprintf(db_set, sizeof db_set, "database=%s/tuning.db", tmpl);
  snprintf(wd_set, sizeof wd_set, "work_dir=%s", tmpl);
  const char *sets[MAX_SETS + 2];
  int n = 0;
  for (int i = 0; i < s->n_sets; i++)
    sets[n++] = s->sets[i];
  sets[n++] = db_set;
  sets[n++] = wd_set;

  tsl_diag *d = calloc(1, sizeof *d);
  if (!d) {
    rm_tree(tmpl);
    return -1;
  }
  tsl_tune_result r;
  double t0 = bench_now();
  int rc = bench_tune_run(config, (uint32_t)n, sets, NULL, NULL, &r, d);
  double wall = bench_now() - t0;
  if (rc) {
    fprintf(stderr, "bench_tune: scenario %c: %s\n", s->id, d->text);
  } else {
    double t = r.trials > 0 ? (double)r.trials : 1;
    out->v[F_TRIALS] = (double)r.trials;
    out->v[F_ERRORS] = (double)r.errors;
    out->v[F_WALL] = wall;
    out->v[F_RATE] = (double)r.trials / wall;
    out->v[F_BUILD] = r.build_s / t * 1e3;
    out->v[F_MEASURE] = r.measure_s / t * 1e3;
    out->v[F_SEARCH] = (r.search_s - r.fixed_s) / t * 1e3;
    out->v[F_FIXED] = r.fixed_s;
    out->v[F_GFLOPS] = r.best_gflops;
    fprintf(stderr,
            "  %c: %lld trials (%lld failed) in %.2f s: search %.2f s (fixed %.2f s), "
            "builds %.2f s, measurements %.2f s, tuner total %.2f s; best %.2f GFLOPS\n",
            s->id, (long long)r.trials, (long long)r.errors, wall, r.search_s, r.fixed_s,
            r.build_s, r.measure_s, r.total_s, r.best_gflops);
  }
  tsl_tune_result_free(&r);
  free(d);
  rm_tree(tmpl);
  return rc;
}

static int usage(void) {
  fprintf(stderr, "usage: bench_tune [SOURCE_ROOT] [--rounds R] [--only a,b,c] "
                  "[--trials-1024 N]\n"
                  "  --rounds R        rounds of interleaved scenarios, 1 to %d "
                  "(default 3)\n"
                  "  --only LIST       scenarios to run, e.g. a,b (default a,b,c)\n"
                  "  --trials-1024 N   trials of scenario c (default 16)\n",
                  MAX_ROUNDS);
  return 2;
}

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  const char *root = NULL, *only = "a,b,c";
  long rounds = 3, trials_c = 16;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage();
      return 0;
    } else if (!strcmp(a, "--rounds") && i + 1 < argc) {
      if (parse_int(argv[++i], 1, MAX_ROUNDS, &rounds)) {
        fprintf(stderr, "bench_tune: --rounds '%s': expected an integer 1 to %d\n",
                argv[i], MAX_ROUNDS);
        return 2;
      }
    } else if (!strcmp(a, "--only") && i + 1 < argc) {
      only = argv[++i];
      for (const char *p = only; *p; p++)
        if (!strchr("abc,", *p)) {
          fprintf(stderr, "bench_tune: --only '%s': expected letters a, b, c separated "
                          "by commas\n", only);
          return 2;
        }
    } else if (!strcmp(a, "--trials-1024") && i + 1 < argc) {
      if (parse_int(argv[++i], 1, 100000, &trials_c)) {
        fprintf(stderr, "bench_tune: --trials-1024 '%s': expected an integer 1 to 100000\n",
                argv[i]);
        return 2;
      }
    } else if (a[0] == '-') {
      fprintf(stderr, "bench_tune: unknown option '%s'\n", a);
      return usage();
    } else if (!root) {
      root = a;
    } else {
      fprintf(stderr, "bench_tune: one SOURCE_ROOT expected, got '%s' too\n", a);
      return usage();
    }
  }
  if (!root)
    root = getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  char abs_root[4096];
  if (!realpath(root, abs_root)) {
    fprintf(stderr, "bench_tune: %s: not a folder (expected the source root)\n", root);
    return 2;
  }
  char config[4200], space[4200], wl128[4200], wl1024[4200], trials_set[64], title_c[128];
  snprintf(config, sizeof config, "%s/configs/quickstart.yaml", abs_root);
  snprintf(space, sizeof space, "space.schedule=%s/workloads/matmul_tiled_space.sch",
           abs_root);
  snprintf(wl128, sizeof wl128, "workload.file=%s/workloads/matmul_128.py", abs_root);
  snprintf(wl1024, sizeof wl1024, "workload.file=%s/bench/tune/matmul_1024.py", abs_root);
  snprintf(trials_set, sizeof trials_set, "strategy.trials=%ld", trials_c);
  snprintf(title_c, sizeof title_c,
           "matmul 1024, matmul_tiled_space.sch, %ld trials, batch 8, 2 threads, "
           "runner number 1, repeat 1", trials_c);

  scenario scen[N_SCEN] = {
      {'a', "quickstart (matmul 128, its 25-point space, 1 thread)", {0}, 0},
      {'b', "matmul 128, matmul_tiled_space.sch, 64 trials, batch 16, 1 thread",
       {wl128, space, "strategy.trials=64", "strategy.batch=16", "target.threads=1"},
       5},
      {'c', title_c,
       {wl1024, space, trials_set, "strategy.batch=8", "target.threads=2",
        "runner.number=1", "runner.repeat=1", "runner.min_repeat_ms=0", "runner.warmup=1",
        "runner.timeout_s=20"},
       10},
  };
  int on[N_SCEN];
  for (int k = 0; k < N_SCEN; k++)
    on[k] = strchr(only, scen[k].id) != NULL;

  figures fig[N_SCEN][MAX_ROUNDS];
  int got[N_SCEN] = {0};
  for (long r = 0; r < rounds; r++) {
    fprintf(stderr, "round %ld of %ld\n", r + 1, rounds);
    for (int k = 0; k < N_SCEN; k++) {
      if (!on[k])
        continue;
      if (!run_scenario(config, &scen[k], &fig[k][got[k]]))
        got[k]++;
    }
  }

  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  printf("tuning throughput: configs/quickstart.yaml + overrides, random strategy, "
         "random cost model, llvm target; %ld online cores\n", ncpu);
  for (int k = 0; k < N_SCEN; k++)
    if (on[k])
      printf("  %c: %s\n", scen[k].id, scen[k].title);
  printf("\n%-3s %6s %6s %7s %8s %10s %12s %11s %7s %7s\n", "", "trials", "errors",
         "wall s", "trials/s", "build ms/c", "measure ms/c", "search ms/c", "fixed s",
         "GFLOPS");
  int status = 0;
  double b_wall = -1, b_trials = 0;
  for (int k = 0; k < N_SCEN; k++) {
    if (!on[k])
      continue;
    if (!got[k]) {
      printf("%-3c (every run failed; see the errors above)\n", scen[k].id);
      status = 1;
      continue;
    }
    double med[N_FIG];
    for (int f = 0; f < N_FIG; f++) {
      double v[MAX_ROUNDS];
      for (int r = 0; r < got[k]; r++)
        v[r] = fig[k][r].v[f];
      med[f] = bench_median(v, got[k]);
    }
    printf("%-3c %6.0f %6.0f %7.2f %8.2f %10.1f %12.1f %11.2f %7.3f %7.2f\n",
           scen[k].id, med[F_TRIALS], med[F_ERRORS], med[F_WALL], med[F_RATE], med[F_BUILD],
           med[F_MEASURE], med[F_SEARCH], med[F_FIXED], med[F_GFLOPS]);
    if (scen[k].id == 'b') {
      b_wall = med[F_WALL];
      b_trials = med[F_TRIALS];
    }
  }
  printf("\nmedian of %ld interleaved rounds (runs that failed are left out). wall: config "
         "load to the end of tsl_tune. Per candidate (/c), the phase's wall time divided by\n"
         "the trials measured: build (parallel builds), measure (isolated measurements), "
         "search (the search overhead: proposing, replaying,\n"
         "lowering, recording, strategy and cost model; the tuner's search_s - fixed_s). "
         "fixed: the one-time part of search_s (setup, the reference\n"
         "outputs, the best program at the end).\n",
         rounds);
  if (b_wall >= 0)
    printf("verdict (b): %.0f trials in %.2f s (aim < 15 s): %s\n", b_trials, b_wall,
           b_wall < 15 ? "met" : "NOT met");
  return status;
}
