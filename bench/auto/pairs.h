/*
 * bench/auto/pairs.h — the paired-seed study of tessel's deviations from
 * TVM (`./tessel bench auto --only pairs`): the 1024 matmul and the 1024
 * matmul + bias tuned with tessel's defaults and, with the same seed right
 * after, with one choice changed (TVM's behaviour for unroll, censored
 * and evolved; for dedup tessel's rule before the study, whose default is
 * now TVM's):
 *   unroll    LLVM's own unroller also on the loops the schedule left
 *             rolled (target.llvm-unroll=1; tessel disables it there);
 *   censored  every candidate measured fully (runner.skip_slower=0,
 *             runner.screen_slower=0; tessel stops or screens candidates
 *             far slower than the best and trains the model on those
 *             lower bounds);
 *   dedup     duplicates judged on the trace alone (strategy.dedup=trace;
 *             the default, as TVM, judges them on the postprocessed
 *             program as well);
 *   evolved   a fresh run's first batch evolved under the untrained
 *             model's noise (strategy.blind_first_batch=0, TVM's way;
 *             tessel draws it as fresh samples).
 * Per pair the re-measured bests and their ratio; per deviation the
 * median ratio, the pairs it won, and the tuning time.
 */
#ifndef TESSEL_BENCH_PAIRS_H
#define TESSEL_BENCH_PAIRS_H

#include <stdint.h>

/* `pairs` seeds, `trials` trials per run; the deviations named in `only`
 * (e.g. "pairs,dedup"), or all when it names none. */
void bench_pairs(const char *root, int64_t trials, int pairs, const char *only);

#endif
