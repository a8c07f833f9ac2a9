/*
 * Plain-C reference implementations of the tensor operators that the
 * programs under workloads/ compute, written from the mathematical
 * definitions (not from the TVMScript). Used by test_reference.c to check
 * the interpreter. All arrays are dense row-major; float32 functions
 * accumulate in float in the natural summation order; float16 functions
 * round every intermediate result to half precision.
 */
#ifndef TESSEL_TESTS_REFERENCE_H
#define TESSEL_TESTS_REFERENCE_H

#include <stdint.h>

/* ---- linear algebra (linalg.c) ---- */
/* C[M,N] = A[M,K] @ B[K,N] */
void ref_matmul(int M, int N, int K, const float *A, const float *B, float *C);
/* C[M,N] = A[M,K] @ B[N,K]^T */
void ref_matmul_nt(int M, int N, int K, const float *A, const float *B,
                   float *C);
/* C[b] = A[b] @ B[b] for `batch` matrices */
void ref_batch_matmul(int batch, int M, int N, int K, const float *A,
                      const float *B, float *C);
/* y[M] = A[M,K] @ x[K] */
void ref_gemv(int M, int K, const float *A, const float *x, float *y);
/* Y[n,o] = sum_k X[n,k] W[o,k] + bias[o]; relu != 0 clamps at 0. The bias is
 * added after the full dot product unless bias_first != 0, in which case
 * the accumulator starts at the bias. */
void ref_dense(int N, int O, int K, const float *X, const float *W,
               const float *bias, int bias_first, int relu, float *Y);
/* C[M,N] = sum_k int32(A[m,k]) * int32(B[k,n]) with int8 inputs */
void ref_matmul_i8(int M, int N, int K, const int8_t *A, const int8_t *B,
                   int32_t *C);
/* x rounded to the nearest IEEE half-precision value (ties to even,
 * overflow to infinity). */
double ref_round_f16(double x);
/* x rounded to the nearest bfloat16 value (8 significant bits, float32's
 * exponent range; ties to even). */
double ref_round_bf16(double x);
/* half-precision matmul: every product and every partial sum rounded to
 * half; inputs are half values given as doubles */
void ref_matmul_f16(int M, int N, int K, const double *A, const double *B,
                    double *C);

/* ---- convolution and pooling (conv.c) ---- */
/* NCHW x OIHW convolution with zero padding `pad` and stride `stride`. */
void ref_conv2d_nchw(int N, int C, int H, int W, int O, int KH, int KW,
                     int stride, int pad, const float *in, const float *w,
                     float *out);
/* NHWC x HWIO convolution. */
void ref_conv2d_nhwc(int N, int H, int W, int C, int O, int KH, int KW,
                     int stride, int pad, const float *in, const float *w,
                     float *out);
/* depthwise NCHW convolution, weights [C,1,KH,KW] */
void ref_depthwise_nchw(int N, int C, int H, int W, int KH, int KW, int pad,
                        const float *in, const float *w, float *out);
/* max pooling, square window k, stride s, no padding */
void ref_max_pool_nchw(int N, int C, int H, int W, int k, int s,
                       const float *in, float *out);
/* average pooling, window k, stride 1, zero padding `pad` counted in the
 * divisor (k*k) */
void ref_avg_pool_nchw(int N, int C, int H, int W, int k, int pad,
                       const float *in, float *out);

/* ---- normalization and reductions (norm.c) ---- */
/* row-wise softmax of a rows x cols matrix (max-subtracted) */
void ref_softmax_rows(int rows, int cols, const float *in, float *out);
/* layer norm over the last axis; var = E[x^2] - E[x]^2 */
void ref_layer_norm(int rows, int cols, const float *in, const float *gamma,
                    const float *beta, float eps, float *out);
/* batch norm inference on NCHW, per-channel statistics; |var| is used */
void ref_batch_norm(int N, int C, int HW, const float *in, const float *mean,
                    const float *var, const float *gamma, const float *beta,
                    float eps, float *out);
void ref_row_sum(int rows, int cols, const float *in, float *out);
void ref_row_max(int rows, int cols, const float *in, float *out);
void ref_col_min(int rows, int cols, const float *in, float *out);

/* ---- elementwise and data movement (elementwise.c) ---- */
void ref_transpose(int rows, int cols, const float *in, float *out);
/* out[i] = sum_{k<w} in[i+k], n outputs */
void ref_window_sum(int n, int w, const float *in, float *out);
void ref_add(int n, const float *a, const float *b, float *out);
void ref_relu(int n, const float *in, float *out);
/* 1 / (1 + e^-x) */
void ref_sigmoid(int n, const float *in, float *out);
/* gelu, tanh approximation and erf form */
void ref_gelu_tanh(int n, const float *in, float *out);
void ref_gelu_erf(int n, const float *in, float *out);

#endif
