/* A shared library with a packed 32x32 float32 matmul, for
 * tsl_run_library (the worker dlopens it). */
#include <stdint.h>
#include <time.h>

__attribute__((visibility("default"))) int32_t testlib_mm_packed(void *const *args) {
  const float *A = args[0], *B = args[1];
  float *C = args[2];
  for (int i = 0; i < 32; i++)
    for (int j = 0; j < 32; j++) {
      float s = 0;
      for (int k = 0; k < 32; k++)
        s += A[i * 32 + k] * B[k * 32 + j];
      C[i * 32 + j] = s;
    }
  return 0;
}

/* For the session's persistent worker: a crash, a hang, and a kernel that
 * scribbles over its input before computing a wrong result. */
__attribute__((visibility("default"))) int32_t testlib_crash_packed(void *const *args) {
  (void)args;
  __builtin_trap(); /* SIGILL: a crash the compiler does not reason away */
  return 0;
}

__attribute__((visibility("default"))) int32_t testlib_hang_packed(void *const *args) {
  (void)args;
  for (volatile int spin = 1; spin;)
    ;
  return 0;
}

__attribute__((visibility("default"))) int32_t testlib_scribble_packed(void *const *args) {
  float *A = args[0], *C = args[2];
  for (int i = 0; i < 32 * 32; i++) {
    A[i] = -7.0f;
    C[i] = 3.0f;
  }
  return 0;
}

/* Weights packed ahead of the calls: main takes B transposed (Bt[j][k]),
 * the prepack functions make it (right, wrong, slowly, or not at all). */
__attribute__((visibility("default"))) int32_t testlib_mm_bt_packed(void *const *args) {
  const float *A = args[0], *Bt = args[1];
  float *C = args[2];
  for (int i = 0; i < 32; i++)
    for (int j = 0; j < 32; j++) {
      float s = 0;
      for (int k = 0; k < 32; k++)
        s += A[i * 32 + k] * Bt[j * 32 + k];
      C[i * 32 + j] = s;
    }
  return 0;
}

static void transpose(const float *B, float *Bt) {
  for (int k = 0; k < 32; k++)
    for (int j = 0; j < 32; j++)
      Bt[j * 32 + k] = B[k * 32 + j];
}

__attribute__((visibility("default"))) int32_t testlib_pack_t_packed(void *const *args) {
  transpose(args[0], args[1]);
  return 0;
}

__attribute__((visibility("default"))) int32_t testlib_pack_copy_packed(void *const *args) {
  const float *B = args[0];
  float *Bt = args[1];
  for (int i = 0; i < 32 * 32; i++)
    Bt[i] = B[i];
  return 0;
}

/* 0.3 s of busy waiting (on the clock, so on any CPU): a packing that
 * would dominate the timing if it were timed */
__attribute__((visibility("default"))) int32_t testlib_pack_slow_packed(void *const *args) {
  transpose(args[0], args[1]);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do
    clock_gettime(CLOCK_MONOTONIC, &t);
  while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < 0.3);
  return 0;
}

__attribute__((visibility("default"))) int32_t testlib_pack_fail_packed(void *const *args) {
  (void)args;
  return 5;
}
