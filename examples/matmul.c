/*
 * A C program using a library exported by `tessel build`: C = A * B for
 * 128x128 float32 matrices through mm_matmul from libmm.so (built from
 * workloads/matmul_128.py, optionally with a schedule script), checked
 * against a naive loop, and timed. See README.md for the commands.
 *
 * Output: one line "mm_matmul: ok, max abs error E, T us per call (G
 * GFLOPS)" and exit status 0, or "mm_matmul: MISMATCH ..." and exit 1.
 */
#define _POSIX_C_SOURCE 200112L /* clock_gettime under -std=c17 */
#include "libmm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 128

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void) {
  /* 64-byte aligned data runs fastest (the generated code uses vectors). */
  float *A = aligned_alloc(64, sizeof(float) * N * N);
  float *B = aligned_alloc(64, sizeof(float) * N * N);
  float *C = aligned_alloc(64, sizeof(float) * N * N);
  float *R = malloc(sizeof(float) * N * N);
  if (!A || !B || !C || !R) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  for (int i = 0; i < N * N; i++) {
    A[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    B[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  }

  int32_t status = mm_matmul(A, B, C);
  if (status != 0) {
    fprintf(stderr, "mm_matmul returned %d\n", (int)status);
    return 1;
  }

  /* the naive reference */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < N; k++)
        s += (double)A[i * N + k] * B[k * N + j];
      R[i * N + j] = (float)s;
    }
  double max_err = 0;
  for (int i = 0; i < N * N; i++)
    max_err = fmax(max_err, fabs((double)C[i] - R[i]));

  /* best of 5 rounds of 20 calls */
  double best = INFINITY;
  for (int round = 0; round < 5; round++) {
    double t0 = now();
    for (int r = 0; r < 20; r++)
      mm_matmul(A, B, C);
    best = fmin(best, (now() - t0) / 20);
  }
  double gflops = 2.0 * N * N * N / best * 1e-9;
  int ok = max_err <= 1e-3;
  printf("mm_matmul: %s, max abs error %.3g, %.2f us per call (%.2f GFLOPS)\n",
         ok ? "ok" : "MISMATCH", max_err, best * 1e6, gflops);
  free(A);
  free(B);
  free(C);
  free(R);
  return ok ? 0 : 1;
}
