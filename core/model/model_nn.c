/*
 * core/model/model_nn.c — the network operators of relax.h 1.6 in the
 * reference interpreter, in double, in any order of NCHW / OIHW (1.7): conv2d (strides,
 * padding, dilation, groups), max / average pooling (ceil mode, padding
 * counted or not), adaptive average pooling (PyTorch's windows: start
 * floor(i*H/O), end ceil((i+1)*H/O)), batch_norm with the moving
 * statistics (inference; the statistics pass through), layer_norm over
 * the last axes, split. Outputs are allocated by the caller from the
 * call's struct info; the attributes are checked by inference.
 */
#include "model_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* A 4-d tensor read and written at logical coordinates (N, C, H, W or
 * O, I, H, W) placed by its layout's axes (tsl_rx_layout_axes); outputs
 * take the data's layout (inference checked out_layout is the same). */
typedef struct view4 {
  const tsl_tensor *t;
  int32_t ax[4];
} view4;

static view4 view(const tsl_tensor *t, tsl_attrs attrs, const char *key, const char *canon) {
  view4 v = {t, {0, 1, 2, 3}};
  tsl_rx_layout_axes(tsl_rx_attr_str(attrs, key, canon), canon, v.ax);
  return v;
}

static int64_t extent(view4 v, int d) { return v.t->shape[v.ax[d]]; }

static int64_t offset(view4 v, int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t i[4];
  i[v.ax[0]] = a;
  i[v.ax[1]] = b;
  i[v.ax[2]] = c;
  i[v.ax[3]] = d;
  const int64_t *s = v.t->shape;
  return ((i[0] * s[1] + i[1]) * s[2] + i[2]) * s[3] + i[3];
}

static double at4(view4 v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return tsl_tensor_get(v.t, offset(v, a, b, c, d));
}

static void set4(view4 v, int64_t a, int64_t b, int64_t c, int64_t d, double x) {
  tsl_tensor_set((tsl_tensor *)v.t, offset(v, a, b, c, d), x);
}

static void conv2d(tsl_attrs attrs, const tsl_tensor *xt, const tsl_tensor *wt, tsl_tensor *ot) {
  int64_t st[2], pad[4], dil[2], g = tsl_rx_attr_int(attrs, "groups", 1);
  tsl_rx_attr_ints_n(attrs, "strides", 1, 2, st);
  tsl_rx_attr_ints_n(attrs, "padding", 0, 4, pad);
  tsl_rx_attr_ints_n(attrs, "dilation", 1, 2, dil);
  view4 x = view(xt, attrs, "data_layout", "NCHW"), w = view(wt, attrs, "kernel_layout", "OIHW");
  view4 out = view(ot, attrs, "data_layout", "NCHW");
  int64_t cg = extent(w, 1), og = extent(w, 0) / g;
  for (int64_t n = 0; n < extent(out, 0); n++)
    for (int64_t o = 0; o < extent(out, 1); o++)
      for (int64_t y = 0; y < extent(out, 2); y++)
        for (int64_t xo = 0; xo < extent(out, 3); xo++) {
          double acc = 0;
          for (int64_t c = 0; c < cg; c++)
            for (int64_t ky = 0; ky < extent(w, 2); ky++)
              for (int64_t kx = 0; kx < extent(w, 3); kx++) {
                int64_t iy = y * st[0] + ky * dil[0] - pad[0], ix = xo * st[1] + kx * dil[1] - pad[1];
                if (iy < 0 || ix < 0 || iy >= extent(x, 2) || ix >= extent(x, 3))
                  continue;
                acc += at4(x, n, o / og * cg + c, iy, ix) * at4(w, o, c, ky, kx);
              }
          set4(out, n, o, y, xo, acc);
        }
}

static void pool2d(tsl_rx_op op, tsl_attrs attrs, const tsl_tensor *xt, tsl_tensor *ot) {
  int64_t k[2], st[2], pad[4], dil[2];
  tsl_rx_attr_ints_n(attrs, "pool_size", 1, 2, k);
  tsl_rx_attr_ints_n(attrs, "strides", 1, 2, st);
  tsl_rx_attr_ints_n(attrs, "padding", 0, 4, pad);
  tsl_rx_attr_ints_n(attrs, "dilation", 1, 2, dil);
  int include_pad = (int)tsl_rx_attr_int(attrs, "count_include_pad", 0);
  view4 x = view(xt, attrs, "layout", "NCHW"), out = view(ot, attrs, "layout", "NCHW");
  for (int64_t n = 0; n < extent(out, 0); n++)
    for (int64_t c = 0; c < extent(out, 1); c++)
      for (int64_t y = 0; y < extent(out, 2); y++)
        for (int64_t xo = 0; xo < extent(out, 3); xo++) {
          double acc = op == TSL_RX_OP_MAX_POOL2D ? -DBL_MAX : 0;
          int64_t count = 0, padded = 0;
          for (int64_t ky = 0; ky < k[0]; ky++)
            for (int64_t kx = 0; kx < k[1]; kx++) {
              int64_t iy = y * st[0] + ky * dil[0] - pad[0], ix = xo * st[1] + kx * dil[1] - pad[1];
              /* the padded frame: what count_include_pad counts */
              if (iy < extent(x, 2) + pad[2] && ix < extent(x, 3) + pad[3])
                padded++;
              if (iy < 0 || ix < 0 || iy >= extent(x, 2) || ix >= extent(x, 3))
                continue;
              double v = at4(x, n, c, iy, ix);
              acc = op == TSL_RX_OP_MAX_POOL2D ? (v > acc ? v : acc) : acc + v;
              count++;
            }
          if (op == TSL_RX_OP_AVG_POOL2D) {
            int64_t div = include_pad ? padded : count;
            acc = div ? acc / (double)div : 0;
          }
          set4(out, n, c, y, xo, acc);
        }
}

static void adaptive_avg_pool2d(tsl_attrs attrs, const tsl_tensor *xt, tsl_tensor *ot) {
  view4 x = view(xt, attrs, "layout", "NCHW"), out = view(ot, attrs, "layout", "NCHW");
  int64_t h = extent(x, 2), w = extent(x, 3), oh = extent(out, 2), ow = extent(out, 3);
  for (int64_t n = 0; n < extent(out, 0); n++)
    for (int64_t c = 0; c < extent(out, 1); c++)
      for (int64_t i = 0; i < oh; i++)
        for (int64_t j = 0; j < ow; j++) {
          int64_t y0 = i * h / oh, y1 = ((i + 1) * h + oh - 1) / oh;
          int64_t x0 = j * w / ow, x1 = ((j + 1) * w + ow - 1) / ow;
          double acc = 0;
          for (int64_t y = y0; y < y1; y++)
            for (int64_t xx = x0; xx < x1; xx++)
              acc += at4(x, n, c, y, xx);
          set4(out, n, c, i, j, acc / (double)((y1 - y0) * (x1 - x0)));
        }
}

static void batch_norm(tsl_attrs attrs, const tsl_tensor *const *in, tsl_tensor *const *out) {
  const tsl_tensor *x = in[0];
  int64_t axis = tsl_rx_attr_int(attrs, "axis", 1);
  if (axis < 0)
    axis += x->ndim;
  double eps = tsl_rx_attr_float(attrs, "epsilon", 1e-5);
  int center = (int)tsl_rx_attr_int(attrs, "center", 1), scale = (int)tsl_rx_attr_int(attrs, "scale", 1);
  int64_t inner = 1, len = x->shape[axis];
  for (int32_t d = (int32_t)axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  int64_t total = tsl_tensor_numel(x);
  for (int64_t k = 0; k < total; k++) {
    int64_t c = k / inner % len;
    double v = (tsl_tensor_get(x, k) - tsl_tensor_get(in[3], c)) /
               sqrt(tsl_tensor_get(in[4], c) + eps);
    if (scale)
      v *= tsl_tensor_get(in[1], c);
    if (center)
      v += tsl_tensor_get(in[2], c);
    tsl_tensor_set(out[0], k, v);
  }
  for (int64_t c = 0; c < len; c++) {
    tsl_tensor_set(out[1], c, tsl_tensor_get(in[3], c));
    tsl_tensor_set(out[2], c, tsl_tensor_get(in[4], c));
  }
}

static void layer_norm(tsl_attrs attrs, const tsl_tensor *const *in, tsl_tensor *out) {
  const tsl_tensor *x = in[0];
  int64_t axes[8];
  int32_t na = tsl_rx_attr_ints(attrs, "axes", axes, 8);
  double eps = tsl_rx_attr_float(attrs, "epsilon", 1e-5);
  int center = (int)tsl_rx_attr_int(attrs, "center", 1), scale = (int)tsl_rx_attr_int(attrs, "scale", 1);
  int64_t inner = 1;
  for (int32_t d = x->ndim - na; d < x->ndim; d++)
    inner *= x->shape[d];
  int64_t rows = inner ? tsl_tensor_numel(x) / inner : 0;
  for (int64_t r = 0; r < rows; r++) {
    double mean = 0, var = 0;
    for (int64_t k = 0; k < inner; k++)
      mean += tsl_tensor_get(x, r * inner + k);
    mean /= (double)inner;
    for (int64_t k = 0; k < inner; k++) {
      double d = tsl_tensor_get(x, r * inner + k) - mean;
      var += d * d;
    }
    var /= (double)inner;
    for (int64_t k = 0; k < inner; k++) {
      double v = (tsl_tensor_get(x, r * inner + k) - mean) / sqrt(var + eps);
      if (scale)
        v *= tsl_tensor_get(in[1], k);
      if (center)
        v += tsl_tensor_get(in[2], k);
      tsl_tensor_set(out, r * inner + k, v);
    }
  }
}

static void split(tsl_attrs attrs, const tsl_tensor *x, tsl_tensor *const *out, uint32_t n) {
  int64_t axis = tsl_rx_attr_int(attrs, "axis", 0);
  if (axis < 0)
    axis += x->ndim;
  int64_t inner = 1, outer = 1;
  for (int32_t d = (int32_t)axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  for (int32_t d = 0; d < axis; d++)
    outer *= x->shape[d];
  int64_t start = 0;
  for (uint32_t p = 0; p < n; p++) {
    int64_t len = out[p]->shape[axis];
    for (int64_t o = 0; o < outer; o++)
      for (int64_t k = 0; k < len * inner; k++)
        tsl_tensor_set(out[p], o * len * inner + k,
                       tsl_tensor_get(x, (o * x->shape[axis] + start) * inner + k));
    start += len;
  }
}

static void strided_slice(tsl_attrs attrs, const tsl_tensor *x, tsl_tensor *out) {
  int64_t begin[64], stride[64], len[64], idx[64] = {0};
  tsl_rx_slice_ranges(attrs, x->ndim, x->shape, begin, stride, len);
  int64_t total = tsl_tensor_numel(out);
  for (int64_t k = 0; k < total; k++) {
    int64_t src = 0; /* idx: k's coordinates in the output */
    for (int32_t d = 0; d < x->ndim; d++)
      src = src * x->shape[d] + begin[d] + idx[d] * stride[d];
    tsl_tensor_set(out, k, tsl_tensor_get(x, src));
    for (int32_t d = x->ndim - 1; d >= 0 && ++idx[d] == out->shape[d]; d--)
      idx[d] = 0;
  }
}

void mdl_nn_op(tsl_rx_op op, tsl_attrs attrs, const tsl_tensor *const *in, tsl_tensor *const *out,
               uint32_t n_out) {
  switch (op) {
  case TSL_RX_OP_CONV2D:
    conv2d(attrs, in[0], in[1], out[0]);
    return;
  case TSL_RX_OP_MAX_POOL2D: case TSL_RX_OP_AVG_POOL2D:
    pool2d(op, attrs, in[0], out[0]);
    return;
  case TSL_RX_OP_ADAPTIVE_AVG_POOL2D:
    adaptive_avg_pool2d(attrs, in[0], out[0]);
    return;
  case TSL_RX_OP_BATCH_NORM:
    batch_norm(attrs, in, out);
    return;
  case TSL_RX_OP_LAYER_NORM:
    layer_norm(attrs, in, out[0]);
    return;
  case TSL_RX_OP_SPLIT:
    split(attrs, in[0], out, n_out);
    return;
  case TSL_RX_OP_STRIDED_SLICE:
    strided_slice(attrs, in[0], out[0]);
    return;
  case TSL_RX_OP_WHERE: case TSL_RX_OP_TAKE: case TSL_RX_OP_BROADCAST_TO:
    mdl_gather_op(op, attrs, in, out[0]);
    return;
  default:
    return;
  }
}
