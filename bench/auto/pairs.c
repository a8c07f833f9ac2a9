/* Paired seeds: tessel's defaults against one choice changed at a time. */
#include "pairs.h"
#include "../bench_util.h"
#include "tune_run.h"

enum { MAX_PAIRS = 16, N_DEV = 4 };

static const struct {
  const char *name, *what;
  const char *sets[2];
  int n_sets;
} deviations[N_DEV] = {
    {"unroll", "LLVM's unroller also on loops the schedule left rolled",
     {"target.llvm-unroll=1"}, 1},
    {"censored", "every candidate measured fully (nothing stopped or screened)",
     {"runner.skip_slower=0", "runner.screen_slower=0"}, 2},
    {"dedup", "duplicates judged on the trace alone, not on the postprocessed program",
     {"strategy.dedup=trace"}, 1},
    {"evolved", "a fresh run's first batch evolved under the untrained model's noise",
     {"strategy.blind_first_batch=0"}, 1},
};

static const struct {
  const char *what, *file;
} workloads[] = {
    {"float32 1024 matmul", "bench/tune/matmul_1024.py"},
    {"float32 1024 matmul + bias, weight layout-free", "bench/tune/matmul_bias_1024.py"},
};

void bench_pairs(const char *root, int64_t trials, int pairs, const char *only) {
  if (pairs > MAX_PAIRS)
    pairs = MAX_PAIRS;
  int on[N_DEV], named = 0;
  for (int d = 0; d < N_DEV; d++)
    named += on[d] = strstr(only, deviations[d].name) != NULL;
  for (int d = 0; d < N_DEV; d++)
    on[d] = on[d] || !named;
  printf("\npaired seeds, %lld trials, 2 threads: tessel's defaults (A) against one choice "
         "changed (B: unroll, censored and evolved are TVM's behaviour, dedup tessel's earlier "
         "rule), "
         "the same seed right after; re-measured bests, "
         "GFLOPS\n",
         (long long)trials);
  for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
    double a[MAX_PAIRS], aw[MAX_PAIRS], b[N_DEV][MAX_PAIRS], bw[N_DEV][MAX_PAIRS];
    int64_t same, a_same = 0, b_same[N_DEV] = {0};
    printf("\n%s\n  %4s %9s %7s", workloads[w].what, "seed", "A", "wall s");
    for (int d = 0; d < N_DEV; d++)
      if (on[d])
        printf(" %9s %7s %6s", deviations[d].name, "wall s", "B/A");
    printf("\n");
    for (int s = 1; s <= pairs; s++) {
      a[s - 1] = auto_tune_remeasured(root, workloads[w].file, 2, s, NULL, 0, trials, &aw[s - 1],
                                      &same);
      a_same += same;
      printf("  %4d %9.1f %7.1f", s, a[s - 1], aw[s - 1]);
      for (int d = 0; d < N_DEV; d++) {
        if (!on[d])
          continue;
        b[d][s - 1] = auto_tune_remeasured(root, workloads[w].file, 2, s, deviations[d].sets,
                                           deviations[d].n_sets, trials, &bw[d][s - 1], &same);
        b_same[d] += same;
        printf(" %9.1f %7.1f %6.2f", b[d][s - 1], bw[d][s - 1],
               a[s - 1] > 0 ? b[d][s - 1] / a[s - 1] : 0);
      }
      printf("\n");
      fflush(stdout);
    }
    for (int d = 0; d < N_DEV; d++) {
      if (!on[d])
        continue;
      double q[MAX_PAIRS], wq[MAX_PAIRS];
      int n = 0, won = 0;
      for (int s = 0; s < pairs; s++)
        if (a[s] > 0 && b[d][s] > 0) {
          q[n] = b[d][s] / a[s];
          wq[n++] = bw[d][s] / aw[s];
          won += b[d][s] > a[s];
        }
      if (n)
        printf("  %s (%s): B / A median %.3f over %d pairs, B better in %d; tuning time B / A "
               "%.2f\n",
               deviations[d].name, deviations[d].what, bench_median(q, n), n, won,
               bench_median(wq, n));
      if (a_same || b_same[d])
        printf("    traces answered by an earlier candidate of the same program, over %d "
               "runs: A %lld, B %lld\n",
               pairs, (long long)a_same, (long long)b_same[d]);
    }
  }
}
