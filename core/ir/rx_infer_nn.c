/*
 * Struct info of the network operators appended in 1.6 (relax.h): conv2d,
 * max / avg / adaptive average pooling, batch_norm, layer_norm and split,
 * with TVM's attribute defaults and output sizes. Layouts: any order of
 * NCHW (data, output) and OIHW (weight), 1.7; channels and spatial sizes
 * must be constants (the batch may be symbolic).
 */
#include "rx_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const tsl_rx_sinfo *nn_fail(rx_err *err, int at, const char *hint, const char *fmt, ...)
    TSL_PRINTF(4, 5);
static const tsl_rx_sinfo *nn_fail(rx_err *err, int at, const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rx_err_set(err, at, hint, fmt, ap);
  va_end(ap);
  return NULL;
}

static const tsl_expr *c64(tsl_arena *a, int64_t v) { return tsl_expr_int(a, TSL_INT64, v); }

/* The data layout `key` (default NCHW) and its out_layout (default: the
 * same, and it must be): where N, C, H and W sit. */
static int data_layout(tsl_attrs attrs, const char *key, int32_t ax[4]) {
  const char *l = tsl_rx_attr_str(attrs, key, "NCHW");
  return tsl_rx_layout_axes(l, "NCHW", ax) && !strcmp(tsl_rx_attr_str(attrs, "out_layout", l), l);
}

/* Logical sizes [N, C, H, W] of 4-d `s` in layout `ax`; C, H and W must be
 * constants (N is returned as -1 when symbolic). */
static int logical_dims(const tsl_rx_sinfo *s, const int32_t ax[4], int64_t out[4]) {
  if (s->ndim != 4 || !s->shape)
    return 0;
  for (int d = 0; d < 4; d++)
    if (!tsl_expr_is_const_int(s->shape[ax[d]], &out[d])) {
      if (d)
        return 0;
      out[d] = -1;
    }
  return 1;
}

/* 4-d struct info in layout `ax`: x's batch, then c, h, w. */
static tsl_rx_sinfo *placed(tsl_arena *ar, const tsl_rx_sinfo *x, const int32_t ax[4],
                            const tsl_expr *c, int64_t h, int64_t w) {
  tsl_rx_sinfo *out = rx_sinfo_new(ar, TSL_RX_SINFO_TENSOR);
  out->dtype = x->dtype;
  out->ndim = 4;
  const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, 4);
  d[ax[0]] = x->shape[ax[0]];
  d[ax[1]] = c;
  d[ax[2]] = c64(ar, h);
  d[ax[3]] = c64(ar, w);
  out->shape = d;
  return out;
}

static const tsl_rx_sinfo *conv2d(tsl_arena *ar, const tsl_rx_sinfo *x, const tsl_rx_sinfo *w,
                                  tsl_attrs attrs, rx_err *err) {
  int32_t xa[4], wa[4];
  if (!data_layout(attrs, "data_layout", xa) ||
      !tsl_rx_layout_axes(tsl_rx_attr_str(attrs, "kernel_layout", "OIHW"), "OIHW", wa))
    return nn_fail(err, RX_AT_CALL, "data_layout=\"NCHW\" or \"NHWC\", kernel_layout=\"OIHW\" "
                   "or \"HWIO\" (any order of those letters), out_layout as data_layout",
                   "R.nn.conv2d: unsupported layouts (data %s, kernel %s, output %s)",
                   tsl_rx_attr_str(attrs, "data_layout", "NCHW"),
                   tsl_rx_attr_str(attrs, "kernel_layout", "OIHW"),
                   tsl_rx_attr_str(attrs, "out_layout", tsl_rx_attr_str(attrs, "data_layout", "NCHW")));
  const char *od = tsl_rx_attr_str(attrs, "out_dtype", "void");
  char dn[32];
  if (strcmp(od, "void") && strcmp(od, "") && strcmp(od, tsl_dtype_str(x->dtype, dn)))
    return nn_fail(err, RX_AT_CALL, "out_dtype=\"void\" (the data's)", "R.nn.conv2d: out_dtype "
                   "%s differs from the data's %s; only the data's dtype is supported", od, dn);
  if (x->ndim != 4 || w->ndim != 4)
    return nn_fail(err, x->ndim != 4 ? 0 : 1, "data [N, C, H, W], weight [O, C/groups, KH, KW]",
                   "R.nn.conv2d takes 4-d data and weight (ranks %d and %d)", (int)x->ndim,
                   (int)w->ndim);
  if (!tsl_dtype_eq(x->dtype, w->dtype))
    return nn_fail(err, 1, "data and weight of one dtype", "R.nn.conv2d: data and weight "
                   "differ in dtype");
  int64_t xd[4], wd[4], st[2], pad[4], dil[2];
  if (!logical_dims(x, xa, xd) || !logical_dims(w, wa, wd) || wd[0] < 0)
    return nn_fail(err, RX_AT_CALL, "constant channels, height and width",
                   "R.nn.conv2d needs constant channels, height, width and weight sizes");
  int64_t groups = tsl_rx_attr_int(attrs, "groups", 1);
  if (!tsl_rx_attr_ints_n(attrs, "strides", 1, 2, st) || !tsl_rx_attr_ints_n(attrs, "padding", 0, 4, pad) ||
      !tsl_rx_attr_ints_n(attrs, "dilation", 1, 2, dil) || st[0] < 1 || st[1] < 1 || dil[0] < 1 ||
      dil[1] < 1 || pad[0] < 0 || pad[1] < 0 || pad[2] < 0 || pad[3] < 0)
    return nn_fail(err, RX_AT_CALL, "strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1]",
                   "R.nn.conv2d: strides and dilation take 1 or 2 positive values, padding "
                   "1, 2 or 4 non-negative ones");
  if (groups < 1 || xd[1] % groups || wd[0] % groups || wd[1] * groups != xd[1])
    return nn_fail(err, 1, "weight [O, C/groups, KH, KW] with groups dividing C and O",
                   "R.nn.conv2d: data channels %lld, weight O %lld, I %lld and groups %lld "
                   "do not fit", (long long)xd[1], (long long)wd[0], (long long)wd[1],
                   (long long)groups);
  int64_t oh = (xd[2] + pad[0] + pad[2] - dil[0] * (wd[2] - 1) - 1) / st[0] + 1;
  int64_t ow = (xd[3] + pad[1] + pad[3] - dil[1] * (wd[3] - 1) - 1) / st[1] + 1;
  if (oh < 1 || ow < 1)
    return nn_fail(err, 1, "a kernel no larger than the padded data", "R.nn.conv2d: the "
                   "output would be empty (%lld x %lld)", (long long)oh, (long long)ow);
  return placed(ar, x, xa, c64(ar, wd[0]), oh, ow);
}

static const tsl_rx_sinfo *pool2d(tsl_arena *ar, tsl_rx_op op, const tsl_rx_sinfo *x,
                                  tsl_attrs attrs, rx_err *err) {
  const char *name = tsl_rx_op_name(op);
  int32_t xa[4];
  if (!data_layout(attrs, "layout", xa))
    return nn_fail(err, RX_AT_CALL, "layout=\"NCHW\" or \"NHWC\" (any order of those "
                   "letters), out_layout as layout", "R.%s: unsupported layout %s (output %s)",
                   name, tsl_rx_attr_str(attrs, "layout", "NCHW"),
                   tsl_rx_attr_str(attrs, "out_layout", tsl_rx_attr_str(attrs, "layout", "NCHW")));
  int64_t xd[4];
  if (!logical_dims(x, xa, xd))
    return nn_fail(err, 0, "data [N, C, H, W] with constant C, H, W", "R.%s takes 4-d data "
                   "with constant channels, height and width", name);
  const tsl_expr *c = x->shape[xa[1]];
  if (op == TSL_RX_OP_ADAPTIVE_AVG_POOL2D) {
    int64_t os[2] = {xd[2], xd[3]};
    if (tsl_rx_attr_ints(attrs, "output_size", NULL, 0) >= 0 &&
        (!tsl_rx_attr_ints_n(attrs, "output_size", 1, 2, os) || os[0] < 1 || os[1] < 1))
      return nn_fail(err, RX_AT_CALL, "output_size=[1, 1]", "R.%s: output_size takes 1 or 2 "
                     "positive values", name);
    return placed(ar, x, xa, c, os[0], os[1]);
  }
  int64_t k[2], st[2], pad[4], dil[2];
  if (!tsl_rx_attr_ints_n(attrs, "pool_size", 1, 2, k) || !tsl_rx_attr_ints_n(attrs, "strides", 1, 2, st) ||
      !tsl_rx_attr_ints_n(attrs, "padding", 0, 4, pad) || !tsl_rx_attr_ints_n(attrs, "dilation", 1, 2, dil) ||
      k[0] < 1 || k[1] < 1 || st[0] < 1 || st[1] < 1 || dil[0] < 1 || dil[1] < 1 ||
      pad[0] < 0 || pad[1] < 0 || pad[2] < 0 || pad[3] < 0)
    return nn_fail(err, RX_AT_CALL, "pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]",
                   "R.%s: pool_size, strides and dilation take 1 or 2 positive values, padding "
                   "1, 2 or 4 non-negative ones", name);
  int ceil = (int)tsl_rx_attr_int(attrs, "ceil_mode", 0);
  int64_t oh = (xd[2] + pad[0] + pad[2] - dil[0] * (k[0] - 1) - 1 + (ceil ? st[0] - 1 : 0)) /
                   st[0] + 1;
  int64_t ow = (xd[3] + pad[1] + pad[3] - dil[1] * (k[1] - 1) - 1 + (ceil ? st[1] - 1 : 0)) /
                   st[1] + 1;
  if (oh < 1 || ow < 1)
    return nn_fail(err, 0, "a window no larger than the padded data", "R.%s: the output "
                   "would be empty", name);
  return placed(ar, x, xa, c, oh, ow);
}

static const tsl_rx_sinfo *vector_of(tsl_arena *ar, const tsl_rx_sinfo *x, const tsl_expr *n) {
  tsl_rx_sinfo *v = rx_sinfo_new(ar, TSL_RX_SINFO_TENSOR);
  v->dtype = x->dtype;
  v->ndim = 1;
  const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, 1);
  d[0] = n;
  v->shape = d;
  return v;
}

static const tsl_rx_sinfo *batch_norm(tsl_arena *ar, const tsl_rx_expr *const *args,
                                      tsl_attrs attrs, rx_err *err) {
  const tsl_rx_sinfo *x = args[0]->sinfo;
  if (x->ndim < 1 || !x->shape)
    return nn_fail(err, 0, "data of known shape", "R.nn.batch_norm takes data of known shape");
  int64_t axis = tsl_rx_attr_int(attrs, "axis", 1);
  if (axis < 0)
    axis += x->ndim;
  if (axis < 0 || axis >= x->ndim)
    return nn_fail(err, RX_AT_CALL, "axis=1 (the channels)", "R.nn.batch_norm: axis out of "
                   "range for rank %d", (int)x->ndim);
  for (int i = 1; i < 5; i++) {
    const tsl_rx_sinfo *p = args[i]->sinfo;
    if (p->kind != TSL_RX_SINFO_TENSOR)
      continue;
    if (p->ndim != 1 || !tsl_dtype_eq(p->dtype, x->dtype) ||
        (p->shape && !rx_dim_equal(p->shape[0], x->shape[axis])))
      return nn_fail(err, i, "gamma, beta, mean and variance: [C] of the data's dtype",
                     "R.nn.batch_norm: operand %d must be a vector as long as the data's axis "
                     "%d, of its dtype", i, (int)axis);
  }
  const tsl_rx_sinfo *c = vector_of(ar, x, x->shape[axis]);
  tsl_rx_sinfo *t = rx_sinfo_new(ar, TSL_RX_SINFO_TUPLE);
  const tsl_rx_sinfo **f = TSL_NEW_ARRAY(ar, const tsl_rx_sinfo *, 3);
  f[0] = x;
  f[1] = f[2] = c;
  t->n_fields = 3;
  t->fields = f;
  return t;
}

static const tsl_rx_sinfo *layer_norm(const tsl_rx_expr *const *args, tsl_attrs attrs,
                                      rx_err *err) {
  const tsl_rx_sinfo *x = args[0]->sinfo;
  int64_t axes[8];
  int32_t n = tsl_rx_attr_ints(attrs, "axes", axes, 8);
  if (x->ndim < 1)
    return x;
  if (n < 1 || n > x->ndim)
    return nn_fail(err, RX_AT_CALL, "axes=[-1]", "R.nn.layer_norm takes 1 to %d axes",
                   (int)x->ndim);
  for (int32_t i = 0; i < n; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + x->ndim : axes[i];
    if (a < x->ndim - n || a >= x->ndim)
      return nn_fail(err, RX_AT_CALL, "the last axes, e.g. axes=[-1]", "R.nn.layer_norm "
                     "normalizes over the last axes; axis %lld is not one of them",
                     (long long)axes[i]);
  }
  for (int i = 1; i < 3; i++) {
    const tsl_rx_sinfo *p = args[i]->sinfo;
    int ok = p->kind != TSL_RX_SINFO_TENSOR ||
             (p->ndim == n && tsl_dtype_eq(p->dtype, x->dtype));
    for (int32_t d = 0; ok && p->shape && x->shape && d < n; d++)
      ok = rx_dim_equal(p->shape[d], x->shape[x->ndim - n + d]);
    if (!ok)
      return nn_fail(err, i, "gamma and beta shaped as the normalized axes",
                     "R.nn.layer_norm: operand %d must have the shape of the data's last %d "
                     "axes and its dtype", i, (int)n);
  }
  return x;
}

static const tsl_rx_sinfo *split(tsl_arena *ar, const tsl_rx_sinfo *x, tsl_attrs attrs,
                                 rx_err *err) {
  int64_t axis = tsl_rx_attr_int(attrs, "axis", 0), len;
  if (x->ndim < 1 || !x->shape)
    return nn_fail(err, 0, "a tensor of known shape", "R.split takes a tensor of known shape");
  if (axis < 0)
    axis += x->ndim;
  if (axis < 0 || axis >= x->ndim || !tsl_expr_is_const_int(x->shape[axis], &len))
    return nn_fail(err, RX_AT_CALL, "axis=0 over a constant dimension", "R.split: the axis "
                   "must be in range and its dimension constant");
  int64_t bounds[65];
  int32_t parts = 0;
  bounds[0] = 0;
  int64_t given[64];
  int32_t n = tsl_rx_attr_ints(attrs, "indices_or_sections", given, 64);
  const tsl_attr_value *raw = tsl_attrs_get(attrs, "indices_or_sections");
  int sections = raw && raw->kind == TSL_ATTR_INT;
  if (n < 1 || n > 63)
    return nn_fail(err, RX_AT_CALL, "indices_or_sections=2 or [2, 5]", "R.split takes a number "
                   "of sections or up to 63 split indices");
  if (sections) {
    /* TVM's rule: sections of ceil(len / n), the last one shorter */
    if (given[0] < 1 || given[0] > 64 || given[0] > len)
      return nn_fail(err, RX_AT_CALL, "1 to min(64, the axis' length) sections",
                     "R.split: %lld sections of an axis of length %lld", (long long)given[0],
                     (long long)len);
    parts = (int32_t)given[0];
    int64_t chunk = (len + parts - 1) / parts;
    for (int32_t i = 1; i <= parts; i++)
      bounds[i] = chunk * i < len ? chunk * i : len;
    if (bounds[parts - 1] >= len)
      return nn_fail(err, RX_AT_CALL, "fewer sections", "R.split: %lld sections of %lld leave "
                     "the last one empty", (long long)given[0], (long long)chunk);
  } else {
    parts = n + 1;
    for (int32_t i = 0; i < n; i++) {
      if (given[i] < bounds[i] || given[i] > len)
        return nn_fail(err, RX_AT_CALL, "increasing indices within the axis", "R.split: "
                       "index %lld is out of order or beyond the axis (%lld)",
                       (long long)given[i], (long long)len);
      bounds[i + 1] = given[i];
    }
    bounds[parts] = len;
  }
  tsl_rx_sinfo *t = rx_sinfo_new(ar, TSL_RX_SINFO_TUPLE);
  const tsl_rx_sinfo **f = TSL_NEW_ARRAY(ar, const tsl_rx_sinfo *, parts);
  for (int32_t i = 0; i < parts; i++) {
    tsl_rx_sinfo *p = rx_sinfo_new(ar, TSL_RX_SINFO_TENSOR);
    p->dtype = x->dtype;
    p->ndim = x->ndim;
    const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, x->ndim);
    for (int32_t k = 0; k < x->ndim; k++)
      d[k] = k == axis ? c64(ar, bounds[i + 1] - bounds[i]) : x->shape[k];
    p->shape = d;
    f[i] = p;
  }
  t->n_fields = (uint32_t)parts;
  t->fields = f;
  return t;
}

static const tsl_rx_sinfo *strided_slice(tsl_arena *ar, const tsl_rx_sinfo *x, tsl_attrs attrs,
                                         rx_err *err) {
  int64_t dims[64], begin[64], stride[64], len[64];
  if (x->ndim > 64)
    return nn_fail(err, 0, "at most 64 dimensions", "R.strided_slice: too many dimensions");
  int64_t axes[64];
  int32_t n = tsl_rx_attr_ints(attrs, "axes", axes, 64);
  for (int32_t d = 0; d < x->ndim; d++) {
    dims[d] = -1;
    tsl_expr_is_const_int(x->shape[d], &dims[d]);
  }
  for (int32_t i = 0; i < n && i < 64; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + x->ndim : axes[i];
    if (a >= 0 && a < x->ndim && dims[a] < 0)
      return nn_fail(err, 0, "constant sizes along the sliced axes", "R.strided_slice: axis "
                     "%lld has a symbolic size", (long long)axes[i]);
  }
  if (!tsl_rx_slice_ranges(attrs, x->ndim, dims, begin, stride, len))
    return nn_fail(err, RX_AT_CALL, "axes=[1], begin=[0], end=[4], strides=[1] (one value "
                   "each per axis, strides >= 1)", "R.strided_slice: the axes, begin, end and "
                   "strides do not fit a tensor of %d dimensions", (int)x->ndim);
  tsl_rx_sinfo *out = rx_sinfo_new(ar, TSL_RX_SINFO_TENSOR);
  *out = *x;
  const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, x->ndim + 1);
  for (int32_t k = 0; k < x->ndim; k++)
    d[k] = dims[k] < 0 ? x->shape[k] : c64(ar, len[k]);
  out->shape = d;
  return out;
}

const tsl_rx_sinfo *rx_infer_nn(tsl_arena *ar, tsl_rx_op op, const tsl_rx_expr *const *args,
                                tsl_attrs attrs, rx_err *err) {
  const tsl_rx_sinfo *x = args[0]->sinfo;
  if (x->kind != TSL_RX_SINFO_TENSOR || x->ndim < 0 || !x->shape)
    return nn_fail(err, 0, "a tensor of known rank and shape", "R.%s takes a tensor of known "
                   "shape", tsl_rx_op_name(op));
  switch (op) {
  case TSL_RX_OP_CONV2D:
    if (args[1]->sinfo->kind != TSL_RX_SINFO_TENSOR || args[1]->sinfo->ndim < 0)
      return nn_fail(err, 1, "a weight of known shape", "R.nn.conv2d takes a weight of known "
                     "shape");
    return conv2d(ar, x, args[1]->sinfo, attrs, err);
  case TSL_RX_OP_MAX_POOL2D: case TSL_RX_OP_AVG_POOL2D: case TSL_RX_OP_ADAPTIVE_AVG_POOL2D:
    return pool2d(ar, op, x, attrs, err);
  case TSL_RX_OP_BATCH_NORM:
    return batch_norm(ar, args, attrs, err);
  case TSL_RX_OP_LAYER_NORM:
    return layer_norm(args, attrs, err);
  case TSL_RX_OP_SPLIT:
    return split(ar, x, attrs, err);
  case TSL_RX_OP_STRIDED_SLICE:
    return strided_slice(ar, x, attrs, err);
  default:
    return nn_fail(err, RX_AT_CALL, NULL, "R.%s is not a network operator", tsl_rx_op_name(op));
  }
}
