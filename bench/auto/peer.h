/*
 * bench/auto/peer.h — tessel and TVM side by side (`./tessel bench auto
 * --peer tvm`): each workload tuned from the bare program by both, with the
 * same trials, threads and seed, the runs interleaved seed by seed. TVM is
 * ../shared/tools/tvm-peer (TVM v0.19 MetaSchedule with its defaults, a
 * measuring instrument outside the repository: `tvm-peer PROGRAM.py`
 * prints its in-run best at 16, 32, 64, ... trials, then its best
 * re-measured in a fresh process, median of 10 repeats of >= 200 ms).
 * tessel's figures are its in-run best after N trials and its best
 * re-measured at the end of the run (median of 3 rounds in a fresh
 * worker). Then the two bests side by side: 3 rounds, each timing
 * tessel's exported best and TVM's best (tvm-peer --remeasure) in a fresh
 * process of its own with TVM's protocol, the order alternating, then
 * OpenBLAS for a matmul; per tuner the median of its rounds, and the
 * median of the rounds' ratios. The same rounds, without OpenBLAS, at
 * each earlier checkpoint N on the two bests of the first N trials (the
 * in-run fastest of tessel's first N records, TVM's best of its first N
 * tuning records). All in tessel's FLOP count (TVM's is
 * converted through its own estimate), with the ratio to the FMA peak and,
 * for the matmuls, to OpenBLAS of the same rounds.
 */
#ifndef TESSEL_BENCH_PEER_H
#define TESSEL_BENCH_PEER_H

#include <stdint.h>

typedef struct peer_opts {
  const char *root;     /* the source tree */
  const char *exe;      /* the tvm-peer script */
  const char *only;     /* workload names or groups (m1024, mb1024, m128, ops, ...) */
  const int64_t *cp;    /* checkpoints, the last one the trials of a run */
  int n_cp;
  int seeds;            /* runs first_seed .. first_seed + seeds - 1 of each tuner */
  double peak1, peak2;  /* FMA peaks at 1 and 2 threads, GFLOPS */
  double (*blas)(int n, int threads); /* OpenBLAS sgemm n x n, GFLOPS */
  int first_seed;       /* --first-seed, 1 unless given */
} peer_opts;

/* The workloads named in o->only, each tuned by both. */
void bench_peer(const peer_opts *o);

#endif
