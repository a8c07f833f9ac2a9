/*
 * test_reference — the reference interpreter against independent plain-C
 * implementations (the files under reference/) on the shipped programs.
 *
 * For each case: parse the program, make seeded random arguments
 * (tsl_func_make_args), snapshot every parameter into plain C arrays, run
 * tsl_interp_run, run the C reference on the snapshot, and compare every
 * element of every output. Output parameters are listed per case (not taken
 * from the interpreter), and the expected arrays start as NaN / a sentinel,
 * so neither a silent interpreter nor an incomplete reference can pass.
 *
 * TAP cases per program: parses, arguments made, interpreter runs, one per
 * output ("<name> matches"). Integers compare exactly; floats with
 * |got - want| <= tol * (1 + |want|), the maximum error reported as a
 * diagnostic.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"
#include "tap.h"
#include "tessel/interp.h"
#include "tessel/script.h"

#define MAX_PARAMS 16
#define INT_SENTINEL (-123456789.0)

/* What a reference function sees: the parameters' values before the run
 * (as doubles) and the expected outputs it must fill. */
typedef struct refctx {
  uint32_t n_params;
  int64_t numel[MAX_PARAMS];
  double *in[MAX_PARAMS];  /* snapshot of every parameter */
  double *out[MAX_PARAMS]; /* expected values; NULL for non-outputs */
  /* scratch arrays handed to the reference, converted into out[] after */
  float *f32[MAX_PARAMS];
  int32_t *i32[MAX_PARAMS];
  int64_t *i64[MAX_PARAMS]; /* exact int64 expectations (compared raw) */
  void *inputs[MAX_PARAMS]; /* typed copies of inputs, freed at the end */
  double scalar[MAX_PARAMS];
} refctx;

/* Typed views of parameter k. */
static const float *in_f32(refctx *r, int k) {
  if (!r->inputs[k]) {
    float *p = malloc(sizeof(float) * (size_t)r->numel[k]);
    for (int64_t i = 0; i < r->numel[k]; i++)
      p[i] = (float)r->in[k][i];
    r->inputs[k] = p;
  }
  return r->inputs[k];
}

static const int8_t *in_i8(refctx *r, int k) {
  if (!r->inputs[k]) {
    int8_t *p = malloc((size_t)r->numel[k]);
    for (int64_t i = 0; i < r->numel[k]; i++)
      p[i] = (int8_t)r->in[k][i];
    r->inputs[k] = p;
  }
  return r->inputs[k];
}

static const int32_t *in_i32(refctx *r, int k) {
  if (!r->inputs[k]) {
    int32_t *p = malloc(sizeof(int32_t) * (size_t)r->numel[k]);
    for (int64_t i = 0; i < r->numel[k]; i++)
      p[i] = (int32_t)r->in[k][i];
    r->inputs[k] = p;
  }
  return r->inputs[k];
}

static float *out_f32(refctx *r, int k) {
  if (!r->f32[k]) {
    r->f32[k] = malloc(sizeof(float) * (size_t)r->numel[k]);
    for (int64_t i = 0; i < r->numel[k]; i++)
      r->f32[k][i] = NAN;
  }
  return r->f32[k];
}

static int32_t *out_i32(refctx *r, int k) {
  if (!r->i32[k]) {
    r->i32[k] = malloc(sizeof(int32_t) * (size_t)r->numel[k]);
    for (int64_t i = 0; i < r->numel[k]; i++)
      r->i32[k][i] = (int32_t)INT_SENTINEL;
  }
  return r->i32[k];
}

/* Exact int64 expectations: compared bit for bit against the tensor's
 * int64 data instead of through doubles. */
static int64_t *out_i64(refctx *r, int k) {
  if (!r->i64[k]) {
    r->i64[k] = malloc(sizeof(int64_t) * (size_t)r->numel[k]);
    for (int64_t i = 0; i < r->numel[k]; i++)
      r->i64[k][i] = INT64_MIN + 12345; /* sentinel */
  }
  return r->i64[k];
}

/* ---- the cases ---------------------------------------------------------- */

static void ref_matmul_64(refctx *r) {
  ref_matmul(64, 64, 64, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_matmul_rect(refctx *r) {
  ref_matmul(32, 48, 96, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_matmul_60(refctx *r) {
  ref_matmul(60, 60, 60, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_matmul_32(refctx *r) {
  ref_matmul(32, 32, 32, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_matmul_dyn48(refctx *r) {
  ref_matmul(48, 64, 64, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_matmul_nt_case(refctx *r) {
  ref_matmul_nt(96, 80, 64, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_matmul_nt_128(refctx *r) {
  ref_matmul_nt(128, 128, 128, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_matmul_relu_case(refctx *r) {
  float *c = malloc(sizeof(float) * 64 * 64);
  ref_matmul(64, 64, 64, in_f32(r, 0), in_f32(r, 1), c);
  ref_relu(64 * 64, c, out_f32(r, 2));
  free(c);
}
static void ref_dense_bias_case(refctx *r) {
  ref_dense(16, 32, 64, in_f32(r, 0), in_f32(r, 1), in_f32(r, 2), 0, 0,
            out_f32(r, 3));
}
static void ref_dense_bias_relu_case(refctx *r) {
  ref_dense(8, 64, 128, in_f32(r, 0), in_f32(r, 1), in_f32(r, 2), 0, 1,
            out_f32(r, 3));
}
static void ref_batch_matmul_case(refctx *r) {
  ref_batch_matmul(4, 32, 32, 32, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_conv_nchw_case(refctx *r) {
  ref_conv2d_nchw(1, 16, 14, 14, 16, 3, 3, 1, 1, in_f32(r, 0), in_f32(r, 1),
                  out_f32(r, 2));
}
static void ref_conv_nchw_s2_case(refctx *r) {
  ref_conv2d_nchw(1, 8, 16, 16, 16, 3, 3, 2, 1, in_f32(r, 0), in_f32(r, 1),
                  out_f32(r, 2));
}
static void ref_conv_nhwc_case(refctx *r) {
  ref_conv2d_nhwc(1, 14, 14, 16, 32, 3, 3, 1, 1, in_f32(r, 0), in_f32(r, 1),
                  out_f32(r, 2));
}
static void ref_conv_relu_case(refctx *r) {
  float *out = out_f32(r, 3);
  const float *bias = in_f32(r, 2);
  ref_conv2d_nchw(1, 8, 10, 10, 8, 3, 3, 1, 0, in_f32(r, 0), in_f32(r, 1),
                  out);
  for (int f = 0; f < 8; f++)
    for (int p = 0; p < 64; p++) {
      float v = out[f * 64 + p] + bias[f];
      out[f * 64 + p] = v > 0.0f ? v : 0.0f;
    }
}
static void ref_depthwise_case(refctx *r) {
  ref_depthwise_nchw(1, 16, 14, 14, 3, 3, 1, in_f32(r, 0), in_f32(r, 1),
                     out_f32(r, 2));
}
static void ref_max_pool_case(refctx *r) {
  ref_max_pool_nchw(1, 16, 14, 14, 2, 2, in_f32(r, 0), out_f32(r, 1));
}
static void ref_avg_pool_case(refctx *r) {
  ref_avg_pool_nchw(1, 8, 14, 14, 3, 1, in_f32(r, 0), out_f32(r, 1));
}
static void ref_global_avg_pool_case(refctx *r) {
  float *out = out_f32(r, 1);
  ref_row_sum(32, 49, in_f32(r, 0), out);
  for (int c = 0; c < 32; c++)
    out[c] = out[c] * (1.0f / 49.0f);
}
static void ref_softmax_case(refctx *r) {
  ref_softmax_rows(64, 128, in_f32(r, 0), out_f32(r, 1));
}
static void ref_softmax_dyn_case(refctx *r) {
  ref_softmax_rows(1, 100, in_f32(r, 0), out_f32(r, 1));
}
static void ref_layer_norm_case(refctx *r) {
  ref_layer_norm(32, 64, in_f32(r, 0), in_f32(r, 1), in_f32(r, 2), 1e-5f,
                 out_f32(r, 3));
}
static void ref_batch_norm_case(refctx *r) {
  ref_batch_norm(1, 16, 196, in_f32(r, 0), in_f32(r, 1), in_f32(r, 2),
                 in_f32(r, 3), in_f32(r, 4), 1e-5f, out_f32(r, 5));
}
static void ref_transpose_case(refctx *r) {
  ref_transpose(64, 128, in_f32(r, 0), out_f32(r, 1));
}
static void ref_window_sum_case(refctx *r) {
  ref_window_sum(128, 3, in_f32(r, 0), out_f32(r, 1));
}
static void ref_reshape_slice_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *d = out_f32(r, 1);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 7; j++)
      for (int k = 0; k < 30; k++) {
        float t = a[(i * 8 + j + 1) * 32 + k] * 2.0f + 1.0f;
        d[(i * 7 + j) * 30 + k] = t * t;
      }
}
static void ref_reductions_case(refctx *r) {
  ref_row_sum(64, 128, in_f32(r, 0), out_f32(r, 1));
  ref_row_max(64, 128, in_f32(r, 0), out_f32(r, 2));
  ref_col_min(64, 128, in_f32(r, 0), out_f32(r, 3));
}
static void ref_gemv_case(refctx *r) {
  ref_gemv(256, 128, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_matmul_i8_case(refctx *r) {
  ref_matmul_i8(64, 64, 64, in_i8(r, 0), in_i8(r, 1), out_i32(r, 2));
}
static void ref_matmul_f16_case(refctx *r) {
  /* half inputs are exact as doubles; the reference writes doubles */
  ref_matmul_f16(64, 64, 64, r->in[0], r->in[1], r->out[2]);
}
static void ref_matmul_mixed_case(refctx *r) {
  ref_matmul(64, 64, 32, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_add_case(refctx *r) {
  ref_add(128 * 128, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}
static void ref_relu_case(refctx *r) {
  ref_relu(1024, in_f32(r, 0), out_f32(r, 1));
}
static void ref_sigmoid_case(refctx *r) {
  ref_sigmoid(32 * 64, in_f32(r, 0), out_f32(r, 1));
  ref_sigmoid(32 * 64, in_f32(r, 0), out_f32(r, 2));
}
static void ref_gelu_case(refctx *r) {
  ref_gelu_tanh(16 * 128, in_f32(r, 0), out_f32(r, 1));
  ref_gelu_erf(16 * 128, in_f32(r, 0), out_f32(r, 2));
}
static void ref_mlp_dense_relu(refctx *r) {
  ref_dense(32, 32, 64, in_f32(r, 0), in_f32(r, 1), in_f32(r, 2), 0, 1,
            out_f32(r, 3));
}
static void ref_mlp_dense(refctx *r) {
  ref_dense(32, 10, 32, in_f32(r, 0), in_f32(r, 1), in_f32(r, 2), 1, 0,
            out_f32(r, 3));
}
static void ref_mlp_softmax(refctx *r) {
  ref_softmax_rows(32, 10, in_f32(r, 0), out_f32(r, 1));
}
static void ref_axis_forms_case(refctx *r) {
  float *c = out_f32(r, 2), *d = out_f32(r, 3);
  ref_matmul(32, 32, 32, in_f32(r, 0), in_f32(r, 1), c);
  for (int i = 0; i < 32 * 32; i++)
    d[i] = c[i] * 2.0f;
}
static void ref_nested_blocks_case(refctx *r) {
  ref_row_sum(64, 32, in_f32(r, 0), out_f32(r, 1));
}
static void ref_match_buffer_case(refctx *r) {
  /* sums of 16 disjoint groups of 4 = row sums of a 16x4 matrix */
  ref_row_sum(16, 4, in_f32(r, 0), out_f32(r, 1));
}
static void ref_gpu_row_reduce_case(refctx *r) {
  ref_row_sum(16, 128, in_f32(r, 0), out_f32(r, 1));
}
static void ref_where_case(refctx *r) {
  const float *a = in_f32(r, 0), *p = in_f32(r, 2);
  float *b = out_f32(r, 1), *q = out_f32(r, 3);
  for (int i = 0; i < 100; i++)
    b[i] = a[i] * 3.0f;
  for (int i = 0; i < 100; i++)
    q[i] = p[i] - 1.0f;
}
static void ref_symbolic_multi_case(refctx *r) {
  /* m = 12 rows, n = 20 columns: S = column sums, At = transpose */
  float *at = out_f32(r, 2);
  ref_transpose(12, 20, in_f32(r, 0), at);
  ref_row_sum(20, 12, at, out_f32(r, 1));
}
static void ref_symbolic_scalar_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1);
  for (int i = 0; i < 37; i++)
    b[i] = a[i] * 2.0f + (float)i;
}
static void ref_scalar_params_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1);
  float alpha = (float)r->scalar[2], beta = (float)r->scalar[3];
  int n = (int)r->scalar[4];
  for (int i = 0; i < 64; i++)
    b[i] = i < n ? alpha * a[i] + beta : 0.0f;
}
static void ref_int_div_mod_case(refctx *r) {
  const int32_t *a = in_i32(r, 0);
  int32_t *q = out_i32(r, 1);
  for (int i = 0; i < 64; i++) {
    int x = a[i];
    /* floor division and modulo from the definitions */
    int fd3 = (int)floor((double)x / 3.0), fdm3 = (int)floor((double)x / -3.0);
    q[0 * 64 + i] = fd3;
    q[1 * 64 + i] = x - 3 * fd3;
    q[2 * 64 + i] = fdm3;
    q[3 * 64 + i] = x - (-3) * fdm3;
    q[4 * 64 + i] = x - 3 * (int)trunc((double)x / 3.0);
    int v = x * 5 - 7;
    q[5 * 64 + i] = v < -20 ? -20 : (v > 20 ? 20 : v);
  }
}
static void ref_reduce_order_case(refctx *r) {
  const int32_t *a = in_i32(r, 0);
  int32_t *col = out_i32(r, 1);
  int64_t total = 0;
  for (int j = 0; j < 16; j++) {
    int32_t s = 0;
    for (int k = 0; k < 24; k++)
      s += a[k * 16 + j];
    col[j] = s;
  }
  for (int i = 0; i < 24 * 16; i++)
    total += a[i];
  r->out[2][0] = (double)total;
}
static void ref_reads_slices_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 16; j++)
      b[i * 16 + j] = a[i * 32 + j] + a[i * 32 + j + 16];
}
static void ref_float64_case(refctx *r) {
  for (int i = 0; i < 16; i++) {
    double s = 0.0;
    for (int k = 0; k < 64; k++)
      s += r->in[0][i * 64 + k] * r->in[0][i * 64 + k];
    r->out[1][i] = sqrt(s);
  }
}

/* ---- edge-case programs: dtypes, control flow, spellings ---- */

/* Wrap an integer to `bits` bits, two's complement (signed) or modulo. */
static double wrap_int(long long v, int bits, int is_signed) {
  long long mod = 1LL << bits;
  long long u = ((v % mod) + mod) % mod;
  if (is_signed && u >= mod / 2)
    u -= mod;
  return (double)u;
}

static void ref_all_dtypes_case(refctx *r) {
  const int32_t *a = in_i32(r, 0);
  for (int i = 0; i < 16; i++) {
    int x = a[i];
    r->out[1][i] = ref_round_f16((double)x * 0.5);
    r->out[2][i] = (double)((float)x + 0.25f);
    r->out[3][i] = (double)x / 3.0;
    r->out[4][i] = ref_round_bf16((double)x + 1.0);
    r->out[5][i] = wrap_int((long long)x * 17, 8, 1);
    r->out[6][i] = (double)(x * 300);
    r->out[7][i] = (double)((long long)x * 4294967296LL);
    r->out[8][i] = wrap_int(wrap_int(x + 8, 8, 0) + 200, 8, 0);
    r->out[9][i] = x > 0 ? 1.0 : 0.0;
  }
}
static void ref_bfloat16_case(refctx *r) {
  for (int i = 0; i < 8; i++) {
    float s = 0.0f;
    for (int j = 0; j < 32; j++) {
      double a = r->in[0][i * 32 + j], b = r->in[1][i * 32 + j];
      double c = ref_round_bf16(ref_round_bf16(a * b) + a);
      r->out[2][i * 32 + j] = c;
      s += (float)c;
    }
    r->out[3][i] = s;
  }
}
static void ref_bool_mask_case(refctx *r) {
  const float *a = in_f32(r, 0), *b = in_f32(r, 1);
  int32_t *count = out_i32(r, 4);
  count[0] = 0;
  for (int i = 0; i < 32 * 32; i++) {
    int m = a[i] > 0.0f && !(b[i] > 0.5f);
    r->out[2][i] = m;
    r->out[3][i] = m ? a[i] : b[i];
    count[0] += m;
  }
}
static void ref_uint8_int16_case(refctx *r) {
  const double *img = r->in[0];
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 16; x++)
      r->out[1][y * 16 + x] = img[y * 18 + x + 2] - img[y * 18 + x];
  for (int i = 0; i < 16 * 18; i++) {
    double v = img[i] + 100.0;
    r->out[2][i] = v < 255.0 ? v : 255.0;
  }
}
static void ref_if_else_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1), *c = out_f32(r, 2);
  for (int i = 0; i < 128; i++) {
    b[i] = a[i] > 0.5f ? 0.5f : (a[i] < -0.5f ? -0.5f : a[i]);
    c[i] = (i % 2 == 1) ? 0.0f - b[i] : b[i];
  }
}
static void ref_select_ite_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *sh = out_f32(r, 1), *lk = out_f32(r, 2);
  for (int i = 0; i < 64; i++) {
    sh[i] = i >= 3 ? a[i - 3] : 0.0f;
    lk[i] = a[i] > 0.0f ? a[i] : a[i] * 0.01f;
  }
}
static void ref_let_case(refctx *r) {
  const float *x = in_f32(r, 0);
  float *y = out_f32(r, 1);
  for (int i = 0; i < 64; i++) {
    float t = x[i] * 2.0f + 1.0f;
    y[i] = t * t + t;
  }
}
static void ref_evaluate_case(refctx *r) {
  const int32_t *a = in_i32(r, 0);
  int32_t *b = out_i32(r, 1);
  for (int i = 0; i < 16; i++)
    b[i] = a[i];
}
static void ref_float_literals_case(refctx *r) {
  static const float f[12] = {0.0f, 1.5f, 1e-5f, 2.5e10f, -FLT_MAX, FLT_MIN,
                              -0.125f, 3.0f, 0.1f, -0.0f, 123456789.0f,
                              6.1e-5f};
  static const double d[4] = {0.1, DBL_MAX, 4.9406564584124654e-324, -2.5};
  for (int i = 0; i < 12; i++)
    r->out[0][i] = f[i];
  for (int i = 0; i < 4; i++)
    r->out[1][i] = d[i];
}
static void ref_math_case(refctx *r) {
  const float *a = in_f32(r, 0);
  for (int i = 0; i < 32; i++) {
    double x = a[i], ax = fabs(x);
    double *o = r->out[1];
    o[0 * 32 + i] = (float)exp(x);
    o[1 * 32 + i] = (float)log((double)(float)(ax + 1.0));
    o[2 * 32 + i] = (float)sqrt(ax);
    o[3 * 32 + i] = (float)tanh(x);
    o[4 * 32 + i] = (float)(1.0 / (1.0 + exp(-x)));
    o[5 * 32 + i] = (float)ax;
    o[6 * 32 + i] = (float)pow(ax, 1.5);
    o[7 * 32 + i] = floor(x * 4.0);
    o[8 * 32 + i] = ceil(x * 4.0);
    o[9 * 32 + i] = nearbyint(x * 4.0); /* x * 4 is never a tie here */
    o[10 * 32 + i] = (float)erf(x);
    o[11 * 32 + i] = (float)sin(x);
    o[12 * 32 + i] = (float)cos(x);
    o[13 * 32 + i] = (float)exp2(x);
    o[14 * 32 + i] = (float)log2((double)(float)(ax + 1.0));
    o[15 * 32 + i] = (float)(1.0 / sqrt((double)(float)(ax + 1.0)));
    o[16 * 32 + i] = (float)atan(x);
    o[17 * 32 + i] = trunc(x * 4.0);
  }
}
static void ref_int64_indices_case(refctx *r) {
  float *b = out_f32(r, 1);
  ref_transpose(24, 40, in_f32(r, 0), b);
  for (int i = 0; i < 40 * 24; i++)
    b[i] = b[i] * 2.0f;
}
static void ref_explicit_root_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *c = out_f32(r, 1);
  for (int i = 0; i < 1024; i++) {
    float b = (float)exp((double)a[i]);
    c[i] = b + b;
  }
}
static void ref_inner_alloc_case(refctx *r) {
  float *mx = malloc(sizeof(float) * 8), *mn = malloc(sizeof(float) * 8);
  float *out = out_f32(r, 1);
  const float *a = in_f32(r, 0);
  ref_row_max(8, 32, a, mx);
  for (int i = 0; i < 8; i++) {
    mn[i] = a[i * 32];
    for (int k = 1; k < 32; k++)
      mn[i] = a[i * 32 + k] < mn[i] ? a[i * 32 + k] : mn[i];
    out[i] = mx[i] - mn[i];
  }
  free(mx);
  free(mn);
}
static void ref_old_style_case(refctx *r) {
  float *c = out_f32(r, 2);
  ref_matmul(64, 64, 64, in_f32(r, 0), in_f32(r, 1), c);
  for (int i = 0; i < 64 * 64; i++)
    c[i] = c[i] + 1.0f;
}
static void ref_old_1d_case(refctx *r) {
  const float *a = in_f32(r, 0), *b = in_f32(r, 1);
  float *c = out_f32(r, 2);
  for (int i = 0; i < 128; i++)
    c[i] = a[i] * b[i] + a[i];
}
static void ref_no_reads_writes_case(refctx *r) {
  float *s = out_f32(r, 1), *h = out_f32(r, 2);
  ref_row_sum(16, 32, in_f32(r, 0), s);
  for (int i = 0; i < 16; i++)
    h[i] = s[i] * 0.5f;
}
static void ref_module_copy(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1);
  memcpy(b, a, sizeof(float) * 64);
}
static void ref_module_scaled_add(refctx *r) {
  const float *a = in_f32(r, 0), *b = in_f32(r, 1);
  float *c = out_f32(r, 2);
  for (int i = 0; i < 64; i++)
    c[i] = a[i] * 0.5f + b[i];
}
static void ref_module_total(refctx *r) {
  ref_row_sum(1, 64, in_f32(r, 0), out_f32(r, 1));
}
static void ref_real_imports_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1), s;
  ref_row_sum(1, 32, a, &s);
  for (int i = 0; i < 32; i++)
    b[i] = a[i] - s * 0.03125f;
}
static void ref_precedence_case(refctx *r) {
  const float *a = in_f32(r, 0);
  const int32_t *iv = in_i32(r, 1);
  float *f = out_f32(r, 2);
  int32_t *g = out_i32(r, 3);
  for (int i = 0; i < 16; i++) {
    float x = a[i];
    int n = iv[i];
    f[0 * 16 + i] = x - (x - 1.0f) - x * (x + 2.0f);
    f[1 * 16 + i] = x / (2.0f / (x * x + 1.0f));
    f[2 * 16 + i] = -x * -(x + 3.0f);
    float lo = x < 0.5f ? x : 0.5f;
    f[3 * 16 + i] = (lo > -0.5f ? lo : -0.5f) + (float)(n * (n - 1));
    int q = (int)floor((double)(n + 7) / 4.0);
    g[0 * 16 + i] = q * 4 - (n - 4 * (int)floor((double)n / 4.0));
    g[1 * 16 + i] = n - (i - (n - 2)) * 3;
    g[2 * 16 + i] = ((n < 0 || n > 4) && !(n == 6)) ? 1 : 0;
  }
}
static void ref_add_one_16x64(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1);
  for (int i = 0; i < 16 * 64; i++)
    b[i] = a[i] + 1.0f;
}
static void ref_annotations_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1);
  for (int i = 0; i < 64; i++)
    b[i] = a[i] * 2.0f;
}
static void ref_gpu_elementwise_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1);
  for (int i = 0; i < 1024; i++)
    b[i] = a[i] * a[i];
}
static void ref_comments_case(refctx *r) {
  const float *a = in_f32(r, 0);
  float *b = out_f32(r, 1);
  for (int i = 0; i < 256; i++)
    b[i] = a[i] * a[i] + 1.0f;
}
static void ref_int_literals_case(refctx *r) {
  const int32_t *x = in_i32(r, 0);
  r->out[1][0] = -128, r->out[1][1] = 127;
  r->out[2][0] = -32768, r->out[2][1] = 32767;
  int32_t *i32 = out_i32(r, 3);
  i32[0] = INT32_MIN, i32[1] = INT32_MAX, i32[2] = x[0] * 1000000 + x[1];
  int64_t *i64 = out_i64(r, 4);
  i64[0] = INT64_MIN, i64[1] = INT64_MAX;
  i64[2] = (int64_t)x[2] * ((int64_t)1 << 40) - 1;
  r->out[5][0] = 255, r->out[5][1] = 0;
  r->out[6][0] = 0, r->out[6][1] = (x[3] != 0 || 1) ? 1 : 0;
}
static void ref_matmul_128(refctx *r) {
  ref_matmul(128, 128, 128, in_f32(r, 0), in_f32(r, 1), out_f32(r, 2));
}

typedef struct ref_case {
  const char *file; /* relative to the source root */
  const char *func; /* NULL: the first function */
  tsl_binding binds[3];
  uint32_t n_binds;
  int outs[MAX_PARAMS]; /* output parameter indices, -1 terminated */
  double tol;  /* 0: exact */
  void (*ref)(refctx *r);
} ref_case;

#define OUTS(...) {__VA_ARGS__, -1}
#define F32TOL 1e-5

static const ref_case cases[] = {
    {"workloads/matmul_64.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_64},
    {"workloads/matmul_rect.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_rect},
    {"workloads/matmul_relu.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_relu_case},
    {"workloads/matmul_scheduled.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_64},
    {"workloads/matmul_split_where.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_60},
    {"workloads/matmul_gpu_shared.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_32},
    {"workloads/matmul_nt.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_nt_case},
    {"workloads/matmul_dynamic.py", NULL, {{"m", 48}}, 1, OUTS(2), F32TOL, ref_matmul_dyn48},
    {"workloads/dense_bias.py", NULL, {{0}}, 0, OUTS(3), F32TOL, ref_dense_bias_case},
    {"workloads/dense_bias_relu.py", NULL, {{0}}, 0, OUTS(3), F32TOL, ref_dense_bias_relu_case},
    {"workloads/batch_matmul.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_batch_matmul_case},
    {"workloads/conv2d_nchw.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_conv_nchw_case},
    {"workloads/conv2d_nchw_stride2.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_conv_nchw_s2_case},
    {"workloads/conv2d_nhwc.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_conv_nhwc_case},
    {"workloads/conv2d_relu_nchw.py", NULL, {{0}}, 0, OUTS(3), F32TOL, ref_conv_relu_case},
    {"workloads/depthwise_conv2d.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_depthwise_case},
    {"workloads/max_pool2d.py", NULL, {{0}}, 0, OUTS(1), 0, ref_max_pool_case},
    {"workloads/avg_pool2d.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_avg_pool_case},
    {"workloads/global_avg_pool.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_global_avg_pool_case},
    {"workloads/softmax.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_softmax_case},
    {"workloads/softmax_dynamic.py", NULL, {{"m", 100}}, 1, OUTS(1), F32TOL, ref_softmax_dyn_case},
    {"workloads/layer_norm.py", NULL, {{0}}, 0, OUTS(3), F32TOL, ref_layer_norm_case},
    {"workloads/batch_norm_inference.py", NULL, {{0}}, 0, OUTS(5), F32TOL, ref_batch_norm_case},
    {"workloads/transpose.py", NULL, {{0}}, 0, OUTS(1), 0, ref_transpose_case},
    {"workloads/window_sum.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_window_sum_case},
    {"workloads/reshape_slice.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_reshape_slice_case},
    {"workloads/reductions.py", NULL, {{0}}, 0, OUTS(1, 2, 3), F32TOL, ref_reductions_case},
    {"workloads/gemv.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_gemv_case},
    {"workloads/matmul_int8.py", NULL, {{0}}, 0, OUTS(2), 0, ref_matmul_i8_case},
    {"workloads/matmul_fp16.py", NULL, {{0}}, 0, OUTS(2), 1e-6, ref_matmul_f16_case},
    {"workloads/matmul_mixed_fp16.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_mixed_case},
    {"workloads/matmul_fp16_gpu.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_128},
    {"workloads/matmul_bf16_gpu.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_128},
    {"workloads/matmul_fp16_nt_gpu.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_nt_128},
    {"workloads/elementwise_add.py", NULL, {{0}}, 0, OUTS(2), 0, ref_add_case},
    {"workloads/relu.py", NULL, {{0}}, 0, OUTS(1), 0, ref_relu_case},
    {"workloads/sigmoid.py", NULL, {{0}}, 0, OUTS(1, 2), F32TOL, ref_sigmoid_case},
    {"workloads/gelu.py", NULL, {{0}}, 0, OUTS(1, 2), F32TOL, ref_gelu_case},
    {"workloads/mlp_module.py", "dense_relu", {{0}}, 0, OUTS(3), F32TOL, ref_mlp_dense_relu},
    {"workloads/mlp_module.py", "dense", {{0}}, 0, OUTS(3), F32TOL, ref_mlp_dense},
    {"workloads/mlp_module.py", "softmax", {{0}}, 0, OUTS(1), F32TOL, ref_mlp_softmax},
    {"tests/programs/axis_forms.py", NULL, {{0}}, 0, OUTS(2, 3), F32TOL, ref_axis_forms_case},
    {"tests/programs/nested_blocks.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_nested_blocks_case},
    {"tests/programs/match_buffer_block.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_match_buffer_case},
    {"tests/programs/gpu_row_reduce.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_gpu_row_reduce_case},
    {"tests/programs/where_predicate.py", NULL, {{0}}, 0, OUTS(1, 3), 0, ref_where_case},
    {"tests/programs/cache_read_write.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_32},
    {"tests/programs/symbolic_multi.py", NULL, {{"m", 12}, {"n", 20}}, 2, OUTS(1, 2), F32TOL, ref_symbolic_multi_case},
    {"tests/programs/symbolic_scalar_loop.py", NULL, {{"n", 37}}, 1, OUTS(1), 0, ref_symbolic_scalar_case},
    {"tests/programs/scalar_params.py", NULL, {{"alpha", 3}, {"beta", -2}, {"n", 40}}, 3, OUTS(1), 0, ref_scalar_params_case},
    {"tests/programs/int_div_mod.py", NULL, {{0}}, 0, OUTS(1), 0, ref_int_div_mod_case},
    {"tests/programs/reduce_order.py", NULL, {{0}}, 0, OUTS(1, 2), 0, ref_reduce_order_case},
    {"tests/programs/reads_slices.py", NULL, {{0}}, 0, OUTS(1), 0, ref_reads_slices_case},
    {"tests/programs/float64_reduce.py", NULL, {{0}}, 0, OUTS(1), 1e-12, ref_float64_case},
    {"workloads/matmul_128.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_matmul_128},
    {"tests/programs/all_dtypes.py", NULL, {{0}}, 0, OUTS(1, 2, 3, 4, 5, 6, 7, 8, 9), 0, ref_all_dtypes_case},
    {"tests/programs/bfloat16_ops.py", NULL, {{0}}, 0, OUTS(2, 3), 1e-6, ref_bfloat16_case},
    {"tests/programs/bool_mask.py", NULL, {{0}}, 0, OUTS(2, 3, 4), 0, ref_bool_mask_case},
    {"tests/programs/uint8_int16.py", NULL, {{0}}, 0, OUTS(1, 2), 0, ref_uint8_int16_case},
    {"tests/programs/if_else.py", NULL, {{0}}, 0, OUTS(1, 2), 0, ref_if_else_case},
    {"tests/programs/select_ite.py", NULL, {{0}}, 0, OUTS(1, 2), 0, ref_select_ite_case},
    {"tests/programs/let_stmt.py", NULL, {{0}}, 0, OUTS(1), 0, ref_let_case},
    {"tests/programs/evaluate.py", NULL, {{0}}, 0, OUTS(1), 0, ref_evaluate_case},
    {"tests/programs/float_literals.py", NULL, {{0}}, 0, OUTS(0, 1), 0, ref_float_literals_case},
    {"tests/programs/math_intrinsics.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_math_case},
    {"tests/programs/int64_indices.py", NULL, {{0}}, 0, OUTS(1), 0, ref_int64_indices_case},
    {"tests/programs/explicit_root.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_explicit_root_case},
    {"tests/programs/inner_alloc.py", NULL, {{0}}, 0, OUTS(1), 0, ref_inner_alloc_case},
    {"tests/programs/old_style_module.py", NULL, {{0}}, 0, OUTS(2), F32TOL, ref_old_style_case},
    {"tests/programs/old_buffer_1d.py", NULL, {{0}}, 0, OUTS(2), 0, ref_old_1d_case},
    {"tests/programs/no_reads_writes.py", NULL, {{0}}, 0, OUTS(1, 2), F32TOL, ref_no_reads_writes_case},
    {"tests/programs/module_multi_old.py", "copy", {{0}}, 0, OUTS(1), 0, ref_module_copy},
    {"tests/programs/module_multi_old.py", "scaled_add", {{0}}, 0, OUTS(2), 0, ref_module_scaled_add},
    {"tests/programs/module_multi_old.py", "total", {{0}}, 0, OUTS(1), F32TOL, ref_module_total},
    {"tests/programs/real_imports.py", NULL, {{0}}, 0, OUTS(1), F32TOL, ref_real_imports_case},
    {"tests/programs/precedence.py", NULL, {{0}}, 0, OUTS(2, 3), 0, ref_precedence_case},
    {"tests/programs/loop_kinds.py", NULL, {{0}}, 0, OUTS(1), 0, ref_add_one_16x64},
    {"tests/programs/annotations.py", NULL, {{0}}, 0, OUTS(1), 0, ref_annotations_case},
    {"tests/programs/gpu_elementwise.py", NULL, {{0}}, 0, OUTS(1), 0, ref_gpu_elementwise_case},
    {"tests/programs/comments_layout.py", NULL, {{0}}, 0, OUTS(1), 0, ref_comments_case},
    {"tests/programs/int_literals.py", NULL, {{0}}, 0, OUTS(1, 2, 3, 4, 5, 6), 0, ref_int_literals_case},
};

/* ---- the harness -------------------------------------------------------- */

static int compare_i64(const ref_case *c, const char *pname,
                       const tsl_tensor *got, const int64_t *want, int64_t n) {
  const int64_t *g = got->data;
  int64_t bad = 0, first_bad = -1;
  for (int64_t i = 0; i < n; i++)
    if (g[i] != want[i] && bad++ == 0)
      first_bad = i;
  int pass = ok(bad == 0 && n > 0,
                "%s%s%s: output %s matches the C reference exactly (%lld "
                "int64 elements)",
                c->file, c->func ? ":" : "", c->func ? c->func : "", pname,
                (long long)n);
  if (!pass && first_bad >= 0)
    tap_diag("  %lld of %lld elements differ; first at flat index %lld: got "
             "%lld, want %lld",
             (long long)bad, (long long)n, (long long)first_bad,
             (long long)g[first_bad], (long long)want[first_bad]);
  return pass;
}

static int compare(const ref_case *c, const char *pname, const tsl_tensor *got,
                   const double *want, int64_t n) {
  double max_err = 0.0;
  int64_t bad = 0, first_bad = -1, n_nan = 0;
  int is_float = tsl_dtype_is_float(got->dtype);
  for (int64_t i = 0; i < n; i++) {
    double g = tsl_tensor_get(got, i), w = want[i];
    int mismatch;
    if (isnan(w) || w == INT_SENTINEL) {
      n_nan++; /* the reference left this element unset */
      mismatch = 1;
    } else if (isnan(g)) {
      mismatch = 1;
    } else if (is_float) {
      double err = fabs(g - w);
      if (err > max_err)
        max_err = err;
      mismatch = err > c->tol * (1.0 + fabs(w));
    } else {
      mismatch = g != w;
      if (fabs(g - w) > max_err)
        max_err = fabs(g - w);
    }
    if (mismatch) {
      if (first_bad < 0)
        first_bad = i;
      bad++;
    }
  }
  int pass = ok(bad == 0 && n > 0, "%s%s%s: output %s matches the C reference (%lld elements)",
                c->file, c->func ? ":" : "", c->func ? c->func : "", pname,
                (long long)n);
  tap_diag("  max |error| %.3g (tolerance %.1g * (1 + |want|))", max_err, c->tol);
  if (!pass && first_bad >= 0) {
    tap_diag("  %lld of %lld elements differ; first at flat index %lld: got "
             "%.9g, want %.9g",
             (long long)bad, (long long)n, (long long)first_bad,
             tsl_tensor_get(got, first_bad), want[first_bad]);
    if (n_nan)
      tap_diag("  (%lld expected elements were never written by the reference)",
               (long long)n_nan);
  }
  return pass;
}

static int count_outs(const ref_case *c) {
  int n = 0;
  while (n < MAX_PARAMS && c->outs[n] >= 0)
    n++;
  return n;
}

static void run_case(tsl_ctx *ctx, const char *root, const ref_case *c,
                     uint64_t seed) {
  char path[4096], label[512];
  snprintf(path, sizeof path, "%s/%s", root, c->file);
  snprintf(label, sizeof label, "%s%s%s", c->file, c->func ? ":" : "",
           c->func ? c->func : "");
  int n_outs = count_outs(c);
  tsl_diag diag;
  memset(&diag, 0, sizeof diag);
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  tsl_arg args[MAX_PARAMS];
  memset(args, 0, sizeof args);
  int have_args = 0;
  refctx r;
  memset(&r, 0, sizeof r);
  const tsl_func *f = NULL;

  int rc = tsl_parse_file(arena, path, &m, &diag);
  if (rc == TSL_OK && m)
    f = c->func ? tsl_module_find(m, c->func) : (m->n_funcs ? m->funcs[0] : NULL);
  if (!ok(rc == TSL_OK && f != NULL, "%s: parses", label)) {
    tap_diag("  status %d (%s)\n%s", rc, tsl_status_name(rc), diag.text);
    goto fail_args;
  }
  if (f->n_params > MAX_PARAMS) {
    ok(0, "%s: arguments made (too many parameters: %u)", label, f->n_params);
    goto fail_run;
  }
  memset(&diag, 0, sizeof diag);
  rc = tsl_func_make_args(f, c->binds, c->n_binds, seed, args, &diag);
  if (!ok(rc == TSL_OK, "%s: arguments made (seed %llu)", label,
          (unsigned long long)seed)) {
    tap_diag("  status %d (%s)\n%s", rc, tsl_status_name(rc), diag.text);
    goto fail_run;
  }
  have_args = 1;

  /* scalar float params: pick non-integer values so they are exercised */
  r.n_params = f->n_params;
  for (uint32_t k = 0; k < f->n_params; k++) {
    if (args[k].is_scalar) {
      if (tsl_dtype_is_float(f->params[k].var->dtype)) {
        args[k].float_value = 0.75 * (double)(k + 1) - 2.0;
        r.scalar[k] = args[k].float_value;
      } else {
        r.scalar[k] = (double)args[k].int_value;
      }
      continue;
    }
    r.numel[k] = tsl_tensor_numel(&args[k].tensor);
    r.in[k] = malloc(sizeof(double) * (size_t)(r.numel[k] ? r.numel[k] : 1));
    for (int64_t i = 0; i < r.numel[k]; i++)
      r.in[k][i] = tsl_tensor_get(&args[k].tensor, i);
  }
  for (int j = 0; j < n_outs; j++) {
    int k = c->outs[j];
    if (k >= (int)f->n_params || args[k].is_scalar)
      continue;
    r.out[k] = malloc(sizeof(double) * (size_t)(r.numel[k] ? r.numel[k] : 1));
    int is_float = tsl_dtype_is_float(args[k].tensor.dtype);
    for (int64_t i = 0; i < r.numel[k]; i++)
      r.out[k][i] = is_float ? NAN : INT_SENTINEL;
  }

  memset(&diag, 0, sizeof diag);
  rc = tsl_interp_run(f, args, f->n_params, &diag);
  if (!ok(rc == TSL_OK, "%s: interpreter runs", label)) {
    tap_diag("  status %d (%s)\n%s", rc, tsl_status_name(rc), diag.text);
    for (int j = 0; j < n_outs; j++)
      ok(0, "%s: output %d matches the C reference (interpreter failed)",
         label, c->outs[j]);
    goto done;
  }

  c->ref(&r);
  for (uint32_t k = 0; k < f->n_params; k++) {
    if (!r.out[k])
      continue;
    if (r.f32[k])
      for (int64_t i = 0; i < r.numel[k]; i++)
        r.out[k][i] = r.f32[k][i];
    if (r.i32[k])
      for (int64_t i = 0; i < r.numel[k]; i++)
        r.out[k][i] = r.i32[k][i];
  }
  for (int j = 0; j < n_outs; j++) {
    int k = c->outs[j];
    if (k >= (int)f->n_params || !r.out[k]) {
      ok(0, "%s: output %d matches the C reference (not a buffer parameter)",
         label, k);
      continue;
    }
    const char *pname = f->params[k].buffer && f->params[k].buffer->name
                            ? f->params[k].buffer->name
                            : "?";
    if (r.i64[k] && tsl_dtype_eq(args[k].tensor.dtype, TSL_INT64))
      compare_i64(c, pname, &args[k].tensor, r.i64[k], r.numel[k]);
    else
      compare(c, pname, &args[k].tensor, r.out[k], r.numel[k]);
  }
  goto done;

fail_args:
  ok(0, "%s: arguments made (parse failed)", label);
fail_run:
  ok(0, "%s: interpreter runs (no arguments)", label);
  for (int j = 0; j < n_outs; j++)
    ok(0, "%s: output %d matches the C reference (not run)", label, c->outs[j]);
done:
  for (int k = 0; k < MAX_PARAMS; k++) {
    free(r.in[k]);
    free(r.out[k]);
    free(r.f32[k]);
    free(r.i32[k]);
    free(r.i64[k]);
    free(r.inputs[k]);
  }
  if (have_args)
    tsl_args_free(args, f->n_params);
  tsl_arena_free(arena);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (!root) {
    ok(0, "TESSEL_SOURCE_ROOT is set (run through meson test)");
    return tap_done();
  }
  tsl_ctx *ctx = tsl_ctx_new();
  const size_t n = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < n; i++)
    run_case(ctx, root, &cases[i], 42);
  /* a second seed on two programs: agreement is not a property of one input */
  run_case(ctx, root, &cases[0], 7);
  run_case(ctx, root, &cases[11], 7);
  tsl_ctx_free(ctx);
  return tap_done();
}
