/* Reference elementwise operators, transpose and a 1-D window sum. */
#include <math.h>

#include "reference.h"

void ref_transpose(int rows, int cols, const float *in, float *out) {
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      out[(long)c * rows + r] = in[(long)r * cols + c];
}

void ref_window_sum(int n, int w, const float *in, float *out) {
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < w; k++)
      s += in[i + k];
    out[i] = s;
  }
}

void ref_add(int n, const float *a, const float *b, float *out) {
  for (int i = 0; i < n; i++)
    out[i] = a[i] + b[i];
}

void ref_relu(int n, const float *in, float *out) {
  for (int i = 0; i < n; i++)
    out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

void ref_sigmoid(int n, const float *in, float *out) {
  for (int i = 0; i < n; i++)
    out[i] = (float)(1.0 / (1.0 + exp(-(double)in[i])));
}

void ref_gelu_tanh(int n, const float *in, float *out) {
  const double k = sqrt(2.0 / M_PI);
  for (int i = 0; i < n; i++) {
    double x = in[i];
    out[i] = (float)(0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x))));
  }
}

void ref_gelu_erf(int n, const float *in, float *out) {
  for (int i = 0; i < n; i++) {
    double x = in[i];
    out[i] = (float)(0.5 * x * (1.0 + erf(x / sqrt(2.0))));
  }
}
