/* A cost model saved from other programs' runs against a fresh one. */
#include "transfer.h"
#include "../bench_util.h"
#include "tune_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PAIRS = 16 };

static const char *const corpus[] = {"mm512",      "mm256x768x1024", "mm2048x256x512",
                                     "conv28_128", "conv14_256",     "conv56_1x1",
                                     "conv56_s2"};

static const struct {
  const char *what, *file;
  int threads;
  int64_t trials;
} evaluated[] = {
    {"float32 128 matmul, 1 thread, 64 trials", "workloads/matmul_128.py", 1, 64},
    {"ResNet stem conv2d, 2 threads, 64 trials", "bench/tune/conv2d_nhwc_stem.py", 2, 64},
    {"ResNet 3x3 conv2d, 2 threads, 64 trials", "bench/tune/conv2d_nhwc_3x3.py", 2, 64},
    {"float32 1024 matmul, 2 threads, 128 trials", "bench/tune/matmul_1024.py", 2, 128},
};

/* The corpus model, saved as `model`: 0, or -1 when a run failed. */
static int build_corpus(const char *root, const char *model) {
  printf("\ncorpus: bench/tune/corpus/, 64 trials each at 2 threads, each run loading the "
         "model the last one saved\n");
  for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
    char file[256], save[4200], load[4200];
    snprintf(file, sizeof file, "bench/tune/corpus/%s.py", corpus[i]);
    snprintf(save, sizeof save, "cost_model.save=%s", model);
    snprintf(load, sizeof load, "cost_model.load=%s", model);
    const char *sets[2] = {save, load};
    double wall = 0;
    double g = auto_tune_remeasured(root, file, 2, 1, sets, i ? 2 : 1, 64, &wall, NULL);
    printf("  %-16s %7.1f GFLOPS re-measured, %5.1f s\n", corpus[i], g, wall);
    fflush(stdout);
    if (g <= 0)
      return -1;
  }
  return 0;
}

void bench_transfer(const char *root, int pairs) {
  if (pairs > MAX_PAIRS)
    pairs = MAX_PAIRS;
  char dir[] = "/tmp/tessel-bench-transfer-XXXXXX", model[64], load[4200];
  if (!mkdtemp(dir)) {
    perror("bench_auto: transfer");
    return;
  }
  snprintf(model, sizeof model, "%s/corpus.model", dir);
  snprintf(load, sizeof load, "cost_model.load=%s", model);
  printf("\ntransfer: a fresh cost model (A) against the corpus model (B, cost_model.load), "
         "the same seed one after the other (order alternating); re-measured bests, GFLOPS\n");
  if (build_corpus(root, model)) {
    fprintf(stderr, "bench_auto: transfer: a corpus run failed\n");
    auto_remove_tree(dir);
    return;
  }
  const char *sets[1] = {load};
  for (size_t w = 0; w < sizeof evaluated / sizeof evaluated[0]; w++) {
    double a[MAX_PAIRS], aw[MAX_PAIRS], b[MAX_PAIRS], bw[MAX_PAIRS];
    printf("\n%s\n  %4s %9s %7s %9s %7s %6s\n", evaluated[w].what, "seed", "A fresh", "wall s",
           "B corpus", "wall s", "B/A");
    for (int s = 1; s <= pairs; s++) {
      for (int k = 0; k < 2; k++) {
        int corpus_side = (k + s) % 2 == 0; /* seed 1: A first */
        double *g = corpus_side ? &b[s - 1] : &a[s - 1], *t = corpus_side ? &bw[s - 1]
                                                                           : &aw[s - 1];
        *g = auto_tune_remeasured(root, evaluated[w].file, evaluated[w].threads, s, sets,
                                  corpus_side, evaluated[w].trials, t, NULL);
      }
      printf("  %4d %9.1f %7.1f %9.1f %7.1f %6.2f\n", s, a[s - 1], aw[s - 1], b[s - 1],
             bw[s - 1], a[s - 1] > 0 ? b[s - 1] / a[s - 1] : 0);
      fflush(stdout);
    }
    double q[MAX_PAIRS], wq[MAX_PAIRS], ga[MAX_PAIRS], gb[MAX_PAIRS];
    int n = 0, won = 0;
    for (int s = 0; s < pairs; s++)
      if (a[s] > 0 && b[s] > 0) {
        ga[n] = a[s];
        gb[n] = b[s];
        q[n] = b[s] / a[s];
        wq[n++] = bw[s] / aw[s];
        won += b[s] > a[s];
      }
    if (!n)
      continue;
    double wa = bench_worst_below_median(ga, n), wb = bench_worst_below_median(gb, n);
    printf("  B / A median %.3f over %d pairs, B better in %d; medians A %.1f, B %.1f; worst "
           "seed below its median A %.0f%%, B %.0f%%; tuning time B / A %.2f\n",
           bench_median(q, n), n, won, bench_median(ga, n), bench_median(gb, n), wa, wb,
           bench_median(wq, n));
  }
  auto_remove_tree(dir);
}
