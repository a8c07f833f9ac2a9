/* Reference matrix products: float32 (natural k order), int8->int32 and
 * half precision with per-operation rounding; half and bfloat16 rounding. */
#include <math.h>

#include "reference.h"

void ref_matmul(int M, int N, int K, const float *A, const float *B, float *C) {
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      float acc = 0.0f;
      for (int k = 0; k < K; k++)
        acc += A[m * K + k] * B[k * N + n];
      C[m * N + n] = acc;
    }
}

void ref_matmul_nt(int M, int N, int K, const float *A, const float *B,
                   float *C) {
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      float acc = 0.0f;
      for (int k = 0; k < K; k++)
        acc += A[m * K + k] * B[n * K + k];
      C[m * N + n] = acc;
    }
}

void ref_batch_matmul(int batch, int M, int N, int K, const float *A,
                      const float *B, float *C) {
  for (int b = 0; b < batch; b++)
    ref_matmul(M, N, K, A + (long)b * M * K, B + (long)b * K * N,
               C + (long)b * M * N);
}

void ref_gemv(int M, int K, const float *A, const float *x, float *y) {
  for (int m = 0; m < M; m++) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
      acc += A[m * K + k] * x[k];
    y[m] = acc;
  }
}

void ref_dense(int N, int O, int K, const float *X, const float *W,
               const float *bias, int bias_first, int relu, float *Y) {
  for (int n = 0; n < N; n++)
    for (int o = 0; o < O; o++) {
      float acc = bias_first ? bias[o] : 0.0f;
      for (int k = 0; k < K; k++)
        acc += X[n * K + k] * W[o * K + k];
      if (!bias_first)
        acc += bias[o];
      if (relu && acc < 0.0f)
        acc = 0.0f;
      Y[n * O + o] = acc;
    }
}

void ref_matmul_i8(int M, int N, int K, const int8_t *A, const int8_t *B,
                   int32_t *C) {
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      int32_t acc = 0;
      for (int k = 0; k < K; k++)
        acc += (int32_t)A[m * K + k] * (int32_t)B[k * N + n];
      C[m * N + n] = acc;
    }
}

double ref_round_f16(double x) {
  if (x == 0.0 || isnan(x) || isinf(x))
    return x;
  double ax = fabs(x);
  int e;
  frexp(ax, &e); /* ax = f * 2^e, f in [0.5, 1) */
  /* 11 significant bits for normals; subnormals share the ulp 2^-24 */
  int ulp_exp = e - 11;
  if (ulp_exp < -24)
    ulp_exp = -24;
  double q = nearbyint(ldexp(ax, -ulp_exp)); /* ties to even */
  double r = ldexp(q, ulp_exp);
  if (r > 65504.0)
    r = INFINITY;
  return copysign(r, x);
}

double ref_round_bf16(double x) {
  if (x == 0.0 || isnan(x) || isinf(x))
    return x;
  double ax = fabs(x);
  int e;
  frexp(ax, &e);
  int ulp_exp = e - 8;
  if (ulp_exp < -133) /* subnormal spacing 2^-133 */
    ulp_exp = -133;
  double r = ldexp(nearbyint(ldexp(ax, -ulp_exp)), ulp_exp);
  if (r > 3.3895313892515355e+38) /* largest finite bfloat16 */
    r = INFINITY;
  return copysign(r, x);
}

void ref_matmul_f16(int M, int N, int K, const double *A, const double *B,
                    double *C) {
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double acc = 0.0;
      for (int k = 0; k < K; k++) {
        double p = ref_round_f16(A[m * K + k] * B[k * N + n]);
        acc = ref_round_f16(acc + p);
      }
      C[m * N + n] = acc;
    }
}
