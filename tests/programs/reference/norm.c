/* Reference softmax, layer norm, batch norm and row/column reductions.
 * Transcendentals are evaluated in double and rounded to float once. */
#include <float.h>
#include <math.h>

#include "reference.h"

void ref_softmax_rows(int rows, int cols, const float *in, float *out) {
  for (int r = 0; r < rows; r++) {
    const float *x = in + (long)r * cols;
    float *y = out + (long)r * cols;
    float mx = -FLT_MAX;
    for (int c = 0; c < cols; c++)
      mx = x[c] > mx ? x[c] : mx;
    float sum = 0.0f;
    for (int c = 0; c < cols; c++) {
      y[c] = (float)exp((double)(x[c] - mx));
      sum += y[c];
    }
    for (int c = 0; c < cols; c++)
      y[c] = y[c] / sum;
  }
}

void ref_layer_norm(int rows, int cols, const float *in, const float *gamma,
                    const float *beta, float eps, float *out) {
  float inv_n = 1.0f / (float)cols;
  for (int r = 0; r < rows; r++) {
    const float *x = in + (long)r * cols;
    float s = 0.0f, sq = 0.0f;
    for (int c = 0; c < cols; c++) {
      s += x[c];
      sq += x[c] * x[c];
    }
    float mean = s * inv_n;
    float var = sq * inv_n - mean * mean;
    float rstd = (float)(1.0 / sqrt((double)(var + eps)));
    for (int c = 0; c < cols; c++)
      out[(long)r * cols + c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
  }
}

void ref_batch_norm(int N, int C, int HW, const float *in, const float *mean,
                    const float *var, const float *gamma, const float *beta,
                    float eps, float *out) {
  for (int c = 0; c < C; c++) {
    float sd = (float)sqrt((double)(fabsf(var[c]) + eps));
    float scale = gamma[c] / sd;
    for (int n = 0; n < N; n++)
      for (int k = 0; k < HW; k++) {
        long at = ((long)n * C + c) * HW + k;
        out[at] = (in[at] - mean[c]) * scale + beta[c];
      }
  }
}

void ref_row_sum(int rows, int cols, const float *in, float *out) {
  for (int r = 0; r < rows; r++) {
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
      s += in[(long)r * cols + c];
    out[r] = s;
  }
}

void ref_row_max(int rows, int cols, const float *in, float *out) {
  for (int r = 0; r < rows; r++) {
    float m = -FLT_MAX;
    for (int c = 0; c < cols; c++)
      m = fmaxf(m, in[(long)r * cols + c]);
    out[r] = m;
  }
}

void ref_col_min(int rows, int cols, const float *in, float *out) {
  for (int c = 0; c < cols; c++) {
    float m = FLT_MAX;
    for (int r = 0; r < rows; r++)
      m = fminf(m, in[(long)r * cols + c]);
    out[c] = m;
  }
}
