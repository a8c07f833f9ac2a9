/*
 * bench/auto/lowp.h — the int8 and bfloat16 section of bench_auto
 * (`--only lowp`): matmuls and a ResNet 3x3 convolution over packed
 * weights, tuned from the bare program (the llvm target's default space
 * picks the CPU's dot-product intrinsics where it has them), each best
 * re-measured by the tuner and then timed side by side with oneDNN, the
 * anchor, and against the dot-product peak measured in the same run.
 */
#ifndef TESSEL_BENCH_LOWP_H
#define TESSEL_BENCH_LOWP_H

#include <stdint.h>

/* Each workload tuned to the last of the checkpoints cp[0..n_cp) with
 * seeds 1..seeds, its best at each printed; over several seeds, the median
 * and the worst ratio to oneDNN. `only` (bench_auto's --only) naming int8
 * or bf16 keeps those workloads alone (--only lowp,int8). */
void bench_lowp(const char *root, const int64_t *cp, int n_cp, int seeds, const char *only);

#endif
