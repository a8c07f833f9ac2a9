/*
 * examples/mlp_model.c — run the course's MLP (784-128-10) from the library
 * `tessel build workloads/models/mlp.py --weights W -o libmlp.so` writes:
 * the weights are embedded, mlp_model_run(inputs, outputs) is the model.
 *
 * The input image is a fixed pattern; `mlp_model [X.npy]` also writes it
 * as a NumPy file, so that `tessel run` can compute the same outputs.
 * Prints the ten scores, their sum, the predicted class and the time per run.
 */
#include "libmlp.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A float32 [1, 784] array as a version-1.0 .npy file. */
static int save_npy(const char *path, const float *x) {
  char header[128];
  int n = snprintf(header, sizeof header,
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 784), }");
  while ((10 + n + 1) % 64)
    header[n++] = ' ';
  header[n++] = '\n';
  FILE *f = fopen(path, "wb");
  if (!f)
    return 1;
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff),
                           (unsigned char)(n >> 8)};
  int bad = fwrite(pre, 1, 10, f) != 10 || fwrite(header, 1, (size_t)n, f) != (size_t)n ||
            fwrite(x, sizeof *x, 784, f) != 784;
  return fclose(f) != 0 || bad;
}

int main(int argc, char **argv) {
  static float image[1 * 784], scores[1 * 10];
  for (int i = 0; i < 784; i++) /* a soft diagonal stroke */
    image[i] = (float)(((i / 28) - (i % 28)) * ((i / 28) - (i % 28)) < 9 ? 1.0 : 0.05);
  if (argc > 1 && save_npy(argv[1], image)) {
    fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  const void *inputs[MLP_N_INPUTS] = {image};
  void *outputs[MLP_N_OUTPUTS] = {scores};
  if (mlp_model_run(inputs, outputs) != 0) {
    fprintf(stderr, "mlp_model_run failed\n");
    return 1;
  }
  double sum = 0;
  int best = 0;
  printf("scores:");
  for (int k = 0; k < 10; k++) {
    printf(" %.6g", scores[k]);
    sum += scores[k];
    if (scores[k] > scores[best])
      best = k;
  }
  int runs = 2000;
  double t0 = now_s();
  for (int r = 0; r < runs; r++)
    mlp_model_run(inputs, outputs);
  double us = (now_s() - t0) / runs * 1e6;
  printf("\nsum %.6g, class %d, %.2f us per run\n", sum, best, us);
  return 0;
}
