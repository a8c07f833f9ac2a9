/*
 * bench/auto/tune_run.h — one tuning run of bench_auto: configs/auto.yaml
 * (default rules, evolutionary search, TVM's runner settings) with
 * overrides, through the public API as `tessel tune` makes it, in a fresh
 * mkdtemp folder that holds its database and exported best (libbest.so)
 * until auto_run_free; and its curve, the best after each candidate.
 */
#ifndef TESSEL_BENCH_TUNE_RUN_H
#define TESSEL_BENCH_TUNE_RUN_H

#include "tessel/tessel.h"

/* The best GFLOPS (GOPS) after candidate i (1-based) in the database's
 * order (record i is candidate i, the best of the first N is what a run
 * of N trials would have), 0 before any; the wall time when the i-th
 * candidate had been measured. */
typedef struct auto_curve {
  int64_t n; /* candidates measured */
  double *best_gflops;
  double *elapsed_s;
  int64_t cap;
  double flops; /* of one call */
} auto_curve;

typedef struct auto_run {
  tsl_tune_result r;
  auto_curve c;
  double wall;
  char dir[64];
} auto_run;

/* `trials` candidates with the `key=value` overrides sets[0..n_sets) (at
 * most 12): 0, or -1 with the message on stderr. *out is set either way;
 * free it with auto_run_free. */
int auto_tune(const char *root, const char *const *sets, int n_sets, int64_t trials,
              auto_run *out);

/* The run `r` resumed to `trials` in its folder (its database: the run
 * goes on from its records, as `tessel tune` resumes), with the overrides
 * sets[0..n_sets); r's result and curve become the resumed run's (the
 * curve counts this run's candidates). 0, or -1 with the message on
 * stderr. */
int auto_tune_more(const char *root, const char *const *sets, int n_sets, int64_t trials,
                   auto_run *r);

/* One run of `file` (relative to root) at `threads` threads with `seed`
 * and the overrides extra[0..n_extra) (at most 5): its best re-measured,
 * GFLOPS (0 on failure); its wall time and the traces answered by an
 * earlier candidate of the same program. */
double auto_tune_remeasured(const char *root, const char *file, int threads, int seed,
                            const char *const *extra, int n_extra, int64_t trials,
                            double *wall, int64_t *same_program);

/* The best of run r's first n records (the in-run fastest, as a run of n
 * trials would have found it) exported to `dir`/libbest.so: r's records
 * copied through tsl_db_export and tsl_db_import, the first n of them into
 * `dir`/tuning.db, and a tuning run on that database (the llvm target,
 * the evolutionary strategy, no cost model, runner.remeasure 0) with the
 * overrides sets[0..n_sets) (at most 10) and a budget of n, which
 * measures nothing and re-measures nothing. 0 with *program the
 * scheduled program (heap), or -1 with the message on stderr. */
int auto_export_prefix(const char *const *sets, int n_sets, const auto_run *r,
                       int64_t n, const char *dir, char **program);

/* The first n lines of the file `from` (every line when n < 0) written
 * to `to`: 0, or -1 (a file could not be read or written, or it has fewer
 * lines). */
int auto_first_lines(const char *from, const char *to, int64_t n);

/* Removes a folder and everything in it. */
void auto_remove_tree(const char *dir);

/* Frees the run and removes its folder. */
void auto_run_free(auto_run *r);

/* The run's search overhead: search time per measured candidate and its
 * share of the wall time, split into replay, postprocessing, features,
 * mutation, prediction, training, lowering and the rest (keys, database,
 * the strategy's bookkeeping). */
void auto_print_overhead(const auto_run *r);

#endif
