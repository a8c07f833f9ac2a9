/*
 * bench/auto/side_by_side.h — two kernels timed side by side: each in a
 * process of its own (neither library's idle threads share a process with
 * the other's calls), its state kept warm between blocks (buffers, thread
 * pool: the first blocks of a fresh process ran at 60% of the later ones),
 * 3 blocks of each to warm up, then 7 alternating blocks of at least 0.2 s,
 * each after a 0.3 s pause (the other side's idle threads stop spinning).
 * The machine's speed drifts by up to 40% within minutes, so a ratio to a
 * figure taken before a long run can be off by as much; this one is not.
 */
#ifndef TESSEL_BENCH_SIDE_BY_SIDE_H
#define TESSEL_BENCH_SIDE_BY_SIDE_H

#include <stddef.h>

/* One side: opened in its process, then called in blocks. */
typedef struct bench_side {
  void *(*open)(const void *arg); /* the state; NULL on failure */
  int (*call)(void *state);       /* one call: 0, or -1 */
  const void *arg;
} bench_side;

/* The calls per second of each side, medians of the 7 blocks: 0, or -1
 * (a side failed to open or to run). */
int bench_side_by_side(const bench_side *a, const bench_side *b, double *rate_a,
                       double *rate_b);

/* One side alone in a fresh process, as TVM's time_evaluator(number=1,
 * repeat=`repeats`, min_repeat_ms=200) times a kernel: `repeats` (1..64)
 * blocks of at least 0.2 s back to back, each after an untimed call; the
 * median calls per second. 0, or -1 (the side failed). */
int bench_side_alone(const bench_side *side, int repeats, double *rate);

/* How a buffer of an exported kernel is filled: small values of its type
 * (no overflow in int8 sums, no bfloat16 denormal), or zeros. */
typedef enum bench_fill { FILL_ZERO, FILL_F32, FILL_U8, FILL_S8, FILL_BF16 } bench_fill;

/* Fills `bytes` bytes at p so (also oneDNN's inputs, dnnl_ref.c). */
void bench_fill_buffer(void *p, size_t bytes, bench_fill f);

enum { BENCH_MAX_BUFS = 8 };

/* A side that calls the exported best kernel `best_<func>_packed` of
 * `<dir>/libbest.so` on buffers of its own; with `prepack`,
 * `best_<func>_prepack_packed` first fills a packed weight once (TVM's
 * RewriteLayout: outside the timed calls). */
typedef struct bench_kernel {
  const char *dir, *func;
  int prepack;
  int n_bufs;
  size_t bytes[BENCH_MAX_BUFS];
  bench_fill fill[BENCH_MAX_BUFS];
  int n_call, call[BENCH_MAX_BUFS]; /* the buffers of a call, in order */
  int n_pre, pre[BENCH_MAX_BUFS];   /* the buffers of the prepack call */
} bench_kernel;

void *bench_kernel_open(const void *kernel);
int bench_kernel_call(void *state);

#endif
