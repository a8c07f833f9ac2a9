/*
 * bench/auto/best_kernel.h — a run's exported best (libbest.so) as a side
 * of a timing, whatever the program: its buffers read off the scheduled
 * program the run printed (tsl_tune_result.best_program), a layout-free
 * weight packed once before the calls as the tuner measured it
 * (tsl_func_split_prepack: main takes the packed buffers, prepack fills
 * them from the weights).
 */
#ifndef TESSEL_BENCH_BEST_KERNEL_H
#define TESSEL_BENCH_BEST_KERNEL_H

#include "side_by_side.h"

typedef struct best_kernel {
  bench_kernel k;
  char func[256]; /* k.func points here */
} best_kernel;

/* `program` (one @T.prim_func, scheduled) exported to `dir`/libbest.so:
 * 0, or -1 with the reason on stderr (a scalar or symbolic-shaped
 * parameter, more than BENCH_MAX_BUFS buffers). Float buffers get small
 * values, the others zeros. */
int best_kernel_of(const char *dir, const char *program, best_kernel *out);

#endif
