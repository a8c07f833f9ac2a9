/* Reference convolutions (NCHW, NHWC, depthwise) and pooling; padded
 * positions are skipped, which equals adding zero products. */
#include <float.h>

#include "reference.h"

void ref_conv2d_nchw(int N, int C, int H, int W, int O, int KH, int KW,
                     int stride, int pad, const float *in, const float *w,
                     float *out) {
  int OH = (H + 2 * pad - KH) / stride + 1;
  int OW = (W + 2 * pad - KW) / stride + 1;
  for (int n = 0; n < N; n++)
    for (int o = 0; o < O; o++)
      for (int oy = 0; oy < OH; oy++)
        for (int ox = 0; ox < OW; ox++) {
          float acc = 0.0f;
          for (int c = 0; c < C; c++)
            for (int ky = 0; ky < KH; ky++)
              for (int kx = 0; kx < KW; kx++) {
                int y = oy * stride + ky - pad, x = ox * stride + kx - pad;
                if (y < 0 || y >= H || x < 0 || x >= W)
                  continue;
                acc += in[((n * C + c) * H + y) * W + x] *
                       w[((o * C + c) * KH + ky) * KW + kx];
              }
          out[((n * O + o) * OH + oy) * OW + ox] = acc;
        }
}

void ref_conv2d_nhwc(int N, int H, int W, int C, int O, int KH, int KW,
                     int stride, int pad, const float *in, const float *w,
                     float *out) {
  int OH = (H + 2 * pad - KH) / stride + 1;
  int OW = (W + 2 * pad - KW) / stride + 1;
  for (int n = 0; n < N; n++)
    for (int oy = 0; oy < OH; oy++)
      for (int ox = 0; ox < OW; ox++)
        for (int o = 0; o < O; o++) {
          float acc = 0.0f;
          for (int ky = 0; ky < KH; ky++)
            for (int kx = 0; kx < KW; kx++)
              for (int c = 0; c < C; c++) {
                int y = oy * stride + ky - pad, x = ox * stride + kx - pad;
                if (y < 0 || y >= H || x < 0 || x >= W)
                  continue;
                acc += in[((n * H + y) * W + x) * C + c] *
                       w[((ky * KW + kx) * C + c) * O + o];
              }
          out[((n * OH + oy) * OW + ox) * O + o] = acc;
        }
}

void ref_depthwise_nchw(int N, int C, int H, int W, int KH, int KW, int pad,
                        const float *in, const float *w, float *out) {
  int OH = H + 2 * pad - KH + 1, OW = W + 2 * pad - KW + 1;
  for (int n = 0; n < N; n++)
    for (int c = 0; c < C; c++)
      for (int oy = 0; oy < OH; oy++)
        for (int ox = 0; ox < OW; ox++) {
          float acc = 0.0f;
          for (int ky = 0; ky < KH; ky++)
            for (int kx = 0; kx < KW; kx++) {
              int y = oy + ky - pad, x = ox + kx - pad;
              if (y < 0 || y >= H || x < 0 || x >= W)
                continue;
              acc += in[((n * C + c) * H + y) * W + x] *
                     w[(c * KH + ky) * KW + kx];
            }
          out[((n * C + c) * OH + oy) * OW + ox] = acc;
        }
}

void ref_max_pool_nchw(int N, int C, int H, int W, int k, int s,
                       const float *in, float *out) {
  int OH = (H - k) / s + 1, OW = (W - k) / s + 1;
  for (int nc = 0; nc < N * C; nc++)
    for (int oy = 0; oy < OH; oy++)
      for (int ox = 0; ox < OW; ox++) {
        float m = -FLT_MAX;
        for (int ky = 0; ky < k; ky++)
          for (int kx = 0; kx < k; kx++) {
            float v = in[(nc * H + oy * s + ky) * W + ox * s + kx];
            if (v > m)
              m = v;
          }
        out[(nc * OH + oy) * OW + ox] = m;
      }
}

void ref_avg_pool_nchw(int N, int C, int H, int W, int k, int pad,
                       const float *in, float *out) {
  int OH = H + 2 * pad - k + 1, OW = W + 2 * pad - k + 1;
  for (int nc = 0; nc < N * C; nc++)
    for (int oy = 0; oy < OH; oy++)
      for (int ox = 0; ox < OW; ox++) {
        float acc = 0.0f;
        for (int ky = 0; ky < k; ky++)
          for (int kx = 0; kx < k; kx++) {
            int y = oy + ky - pad, x = ox + kx - pad;
            if (y < 0 || y >= H || x < 0 || x >= W)
              continue;
            acc += in[(nc * H + y) * W + x];
          }
        out[(nc * OH + oy) * OW + ox] = acc / (float)(k * k);
      }
}
