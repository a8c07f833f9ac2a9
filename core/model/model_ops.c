/*
 * The operators of relax.h's table that take attributes (ABI 1.5), on
 * host tensors in double, rounded to the dtype on store: astype, gelu,
 * silu, permute_dims, reshape and flatten (the same elements in order),
 * sum / mean / max over axes, softmax along an axis, concat. The output
 * is allocated by the caller from the call's struct info.
 */
#include "model_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int32_t axis_of(int64_t a, int32_t ndim) { return (int32_t)(a < 0 ? a + ndim : a); }

static void strides_of(const tsl_tensor *t, int64_t *st) {
  int64_t s = 1;
  for (int32_t d = t->ndim; d-- > 0;) {
    st[d] = s;
    s *= t->shape[d];
  }
}

/* Flat index k of a tensor of `shape` into its coordinates. */
static void unravel(int64_t k, int32_t ndim, const int64_t *shape, int64_t *idx) {
  for (int32_t d = ndim; d-- > 0;) {
    idx[d] = shape[d] ? k % shape[d] : 0;
    k = shape[d] ? k / shape[d] : 0;
  }
}

static void permute(tsl_attrs attrs, const tsl_tensor *x, tsl_tensor *out) {
  int64_t axes[TSL_MAX_NDIM], st[TSL_MAX_NDIM], idx[TSL_MAX_NDIM];
  int32_t n = tsl_rx_attr_ints(attrs, "axes", axes, TSL_MAX_NDIM);
  for (int32_t i = 0; n < 0 && i < x->ndim; i++)
    axes[i] = x->ndim - 1 - i;
  strides_of(x, st);
  int64_t total = tsl_tensor_numel(out);
  for (int64_t k = 0; k < total; k++) {
    unravel(k, out->ndim, out->shape, idx);
    int64_t src = 0;
    for (int32_t i = 0; i < out->ndim; i++)
      src += idx[i] * st[axis_of(axes[i], x->ndim)];
    tsl_tensor_set(out, k, tsl_tensor_get(x, src));
  }
}

/* sum / mean / max over the attribute's axes (none: all). */
static void reduce(tsl_rx_op op, tsl_attrs attrs, const tsl_tensor *x, tsl_tensor *out) {
  int64_t axes[TSL_MAX_NDIM], idx[TSL_MAX_NDIM];
  int32_t n = tsl_rx_attr_ints(attrs, "axis", axes, TSL_MAX_NDIM);
  int reduced[TSL_MAX_NDIM] = {0};
  for (int32_t i = 0; i < x->ndim; i++)
    reduced[i] = n < 0;
  for (int32_t i = 0; i < n; i++)
    reduced[axis_of(axes[i], x->ndim)] = 1;
  /* the output's flat index of each input element: the kept dimensions */
  int64_t total = tsl_tensor_numel(x), count = 1;
  for (int32_t i = 0; i < x->ndim; i++)
    count *= reduced[i] ? x->shape[i] : 1;
  int64_t m = tsl_tensor_numel(out);
  double *acc = calloc((size_t)(m ? m : 1), sizeof *acc);
  char *seen = calloc((size_t)(m ? m : 1), 1);
  for (int64_t k = 0; acc && seen && k < total; k++) {
    unravel(k, x->ndim, x->shape, idx);
    int64_t o = 0;
    for (int32_t i = 0; i < x->ndim; i++)
      if (!reduced[i])
        o = o * x->shape[i] + idx[i];
    double v = tsl_tensor_get(x, k);
    if (op == TSL_RX_OP_MAX)
      acc[o] = seen[o] && acc[o] >= v ? acc[o] : v;
    else
      acc[o] += v;
    seen[o] = 1;
  }
  for (int64_t o = 0; acc && o < m; o++)
    tsl_tensor_set(out, o, op == TSL_RX_OP_MEAN && count ? acc[o] / (double)count : acc[o]);
  free(acc);
  free(seen);
}

/* exp(x - max) / sum along the axis. */
static void softmax(tsl_attrs attrs, const tsl_tensor *x, tsl_tensor *out) {
  int32_t axis = axis_of(tsl_rx_attr_int(attrs, "axis", -1), x->ndim);
  int64_t inner = 1, len = x->shape[axis], outer = 1;
  for (int32_t d = axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  for (int32_t d = 0; d < axis; d++)
    outer *= x->shape[d];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      int64_t base = o * len * inner + i;
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < len; k++) {
        double v = tsl_tensor_get(x, base + k * inner);
        mx = v > mx ? v : mx;
      }
      for (int64_t k = 0; k < len; k++)
        sum += exp(tsl_tensor_get(x, base + k * inner) - mx);
      for (int64_t k = 0; k < len; k++)
        tsl_tensor_set(out, base + k * inner, exp(tsl_tensor_get(x, base + k * inner) - mx) / sum);
    }
}

static void concat(tsl_attrs attrs, const tsl_tensor *const *in, uint32_t n, tsl_tensor *out) {
  int32_t axis = axis_of(tsl_rx_attr_int(attrs, "axis", 0), out->ndim);
  int64_t inner = 1, outer = 1;
  for (int32_t d = axis + 1; d < out->ndim; d++)
    inner *= out->shape[d];
  for (int32_t d = 0; d < axis; d++)
    outer *= out->shape[d];
  int64_t offset = 0; /* along the axis, in the output */
  for (uint32_t t = 0; t < n; t++) {
    int64_t len = in[t]->shape[axis];
    for (int64_t o = 0; o < outer; o++)
      for (int64_t k = 0; k < len * inner; k++)
        tsl_tensor_set(out, (o * out->shape[axis] + offset) * inner + k,
                       tsl_tensor_get(in[t], o * len * inner + k));
    offset += len;
  }
}

void mdl_attr_op(tsl_rx_op op, tsl_attrs attrs, const tsl_tensor *const *in, uint32_t n,
                 tsl_tensor *out) {
  const tsl_tensor *x = in[0];
  int64_t total = tsl_tensor_numel(x);
  switch (op) {
  case TSL_RX_OP_PERMUTE_DIMS:
    permute(attrs, x, out);
    return;
  case TSL_RX_OP_SUM: case TSL_RX_OP_MEAN: case TSL_RX_OP_MAX:
    reduce(op, attrs, x, out);
    return;
  case TSL_RX_OP_SOFTMAX:
    softmax(attrs, x, out);
    return;
  case TSL_RX_OP_CONCAT:
    concat(attrs, in, n, out);
    return;
  default: /* element by element, in order: astype, gelu, silu, reshape, flatten */
    for (int64_t k = 0; k < total; k++) {
      double v = tsl_tensor_get(x, k);
      if (op == TSL_RX_OP_GELU)
        v = 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
      else if (op == TSL_RX_OP_SILU)
        v = v / (1.0 + exp(-v));
      else if (op == TSL_RX_OP_ASTYPE && tsl_dtype_is_float(x->dtype) &&
               !tsl_dtype_is_float(out->dtype))
        v = trunc(v); /* NumPy's astype truncates toward zero */
      tsl_tensor_set(out, k, v);
    }
  }
}
