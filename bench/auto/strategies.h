/*
 * bench/auto/strategies.h — search strategies side by side
 * (`./tessel bench auto --strategies evolutionary,sketch`): configs/auto.yaml
 * with each strategy in turn (strategy.kind, the xgb model, 2 threads) on
 * the same workloads, trial counts and seeds, each seed's runs one after
 * the other (their order alternating between seeds, so that neither
 * strategy always runs on the later, maybe slower, machine):
 *   m1024  bench/tune/matmul_1024.py
 *   mb1024 bench/tune/matmul_bias_1024.py (the weight layout-free)
 *   stem   bench/tune/conv2d_nhwc_stem.py (ResNet's 7x7/2 conv with padding)
 *          at each of the trial counts (64 and 256 unless --checkpoints);
 *   ansor  bench/tune/matmul_add_1024.py, configs/ansor.yaml's workflow:
 *          10 trials, then the run resumed to 64 in the same database.
 * Per run: the re-measured best (runner.remeasure: the top candidates in
 * a fresh worker, median of the rounds), the exported best kernel and
 * OpenBLAS sgemm timed side by side after the run (matmuls; the stem
 * against the FMA peak), the wall time and the search overhead (search
 * time outside setup, per measured candidate). Per workload and trial
 * count: the medians over the seeds and the pairs each strategy won.
 */
#ifndef TESSEL_BENCH_STRATEGIES_H
#define TESSEL_BENCH_STRATEGIES_H

#include <stdint.h>

/* How an exported matmul kernel takes its buffers (bench_auto.c). */
enum { MATMUL_PLAIN, MATMUL_BIAS, MATMUL_ADD };

/* The kernel `func` of `dir`/libbest.so (an n x n matmul of `layout`) and
 * OpenBLAS sgemm timed side by side: 0 and both in GFLOPS, or -1. */
typedef int (*blas_side_fn)(const char *dir, const char *func, int layout, int n, int threads,
                            double *kernel_gflops, double *blas_gflops);

typedef struct strategies_opts {
  const char *root;       /* the source tree */
  const char *strategies; /* "evolutionary,sketch" */
  const char *only;       /* workloads: "m1024,mb1024,stem,ansor" or a part */
  const int64_t *trials;  /* trial counts of m1024, mb1024 and stem */
  int n_trials;
  int seeds;  /* 1 .. seeds */
  double peak2; /* the FMA peak at 2 threads, GFLOPS */
  blas_side_fn vs_blas;
} strategies_opts;

void bench_strategies(const strategies_opts *o);

#endif
