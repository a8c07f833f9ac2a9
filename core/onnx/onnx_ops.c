/*
 * The ONNX operators and their Relax forms: one table, op_type to
 * converter; each converter reads the node's inputs and attributes
 * (onnx_import.c) and sets its outputs. Semantics follow the ONNX operator
 * documents for operator sets 11 to 20 (where an operator changed within
 * them, both forms are read: Softmax's axis before 13, the axes of
 * ReduceSum / Squeeze / Unsqueeze moving from attribute to input in 13).
 */
#include "onnx_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int (*ox_convert_fn)(ox_ctx *c, tsl_rx_op op);

static tsl_attrs no_attrs(void) { return (tsl_attrs){0, NULL}; }

static int rank_of(const tsl_rx_expr *e) {
  return e && e->sinfo->kind == TSL_RX_SINFO_TENSOR ? e->sinfo->ndim : -1;
}

/* Dimension d of e as a constant; -1 when symbolic or unknown. */
static int64_t dim_of(const tsl_rx_expr *e, int32_t d) {
  int64_t v = -1;
  if (e->sinfo->shape && d >= 0 && d < e->sinfo->ndim)
    tsl_expr_is_const_int(e->sinfo->shape[d], &v);
  return v;
}

/* The `axis` attribute (default dflt) of a rank-r operand into *out, a
 * negative one counted from the end; it must be below r + extra
 * (Flatten's may be r). */
static int axis_attr(ox_ctx *c, int64_t dflt, int32_t r, int32_t extra, int64_t *out) {
  int64_t a = ox_attr_int(c, "axis", dflt), x = a < 0 ? a + r : a;
  *out = 0;
  if (x < 0 || x >= r + extra)
    return ox_fail(c, TSL_EINVALID, "axis %lld is out of range for rank %d", (long long)a, r);
  *out = x;
  return TSL_OK;
}

/* ---- element-wise --------------------------------------------------------- */

static int binary(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *args[2] = {ox_input(c, 0), ox_input(c, 1)};
  return ox_set_output(c, 0, ox_call(c, op, 2, args, no_attrs()));
}

static int unary(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  return ox_set_output(c, 0, ox_call(c, op, 1, &x, no_attrs()));
}

static int identity(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  if (c->node->n_output > 1 && c->node->output[1][0])
    return ox_fail(c, TSL_EUNSUPPORTED, "the mask output of Dropout is not supported "
                   "(inference: only the first output)");
  const tsl_weight *w = ox_input_data(c, 0);
  if (w)
    return ox_set_output_data(c, 0, w->dtype, w->ndim, w->shape, w->data);
  return ox_set_output(c, 0, ox_input(c, 0));
}

static int cast(ox_ctx *c, tsl_rx_op op) {
  tsl_dtype dt;
  int64_t to = ox_attr_int(c, "to", 0);
  if (!ox_dtype((int32_t)to, &dt))
    return ox_fail(c, TSL_EUNSUPPORTED, "cast to element type %lld (%s) is not supported; "
                   "supported: %s", (long long)to, ox_dtype_name((int32_t)to),
                   ox_dtypes_supported);
  char name[32];
  ox_attrs at = {0};
  ox_at_str(c, &at, "dtype", tsl_dtype_str(dt, name));
  const tsl_rx_expr *x = ox_input(c, 0);
  return ox_set_output(c, 0, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
}

/* ---- matrices ----------------------------------------------------------------- */

static const tsl_rx_expr *transposed2(ox_ctx *c, const tsl_rx_expr *x) {
  ox_attrs at = {0};
  static const int64_t swap[2] = {1, 0};
  ox_at_ints(c, &at, "axes", 2, swap);
  return ox_bind(c, ox_call(c, TSL_RX_OP_PERMUTE_DIMS, 1, &x, ox_attrs_done(c, &at)));
}

static const tsl_rx_expr *scaled(ox_ctx *c, const tsl_rx_expr *x, float f) {
  if (f == 1.0f || !x)
    return x;
  const tsl_rx_expr *args[2] = {x, ox_const(c, x->sinfo->dtype, f, (int64_t)f)};
  return ox_bind(c, ox_call(c, TSL_RX_OP_MULTIPLY, 2, args, no_attrs()));
}

/* Gemm: alpha * A' B' + beta * C, A' and B' transposed when asked */
static int gemm(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  const tsl_rx_expr *a = ox_input(c, 0), *b = ox_input(c, 1);
  if (!a || !b)
    return c->status;
  if (rank_of(a) != 2 || rank_of(b) != 2)
    return ox_fail(c, TSL_EINVALID, "Gemm takes matrices (ranks %d and %d)", rank_of(a),
                   rank_of(b));
  if (ox_attr_int(c, "transA", 0))
    a = transposed2(c, a);
  if (ox_attr_int(c, "transB", 0))
    b = transposed2(c, b);
  const tsl_rx_expr *ab[2] = {a, b};
  const tsl_rx_expr *y = ox_call(c, TSL_RX_OP_MATMUL, 2, ab, no_attrs());
  float alpha = ox_attr_float(c, "alpha", 1.0f), beta = ox_attr_float(c, "beta", 1.0f);
  if (ox_has_input(c, 2) && beta != 0.0f) {
    y = scaled(c, ox_bind(c, y), alpha);
    const tsl_rx_expr *sum[2] = {y, scaled(c, ox_input(c, 2), beta)};
    y = ox_call(c, TSL_RX_OP_ADD, 2, sum, no_attrs());
  } else if (alpha != 1.0f) {
    y = scaled(c, ox_bind(c, y), alpha);
  }
  return ox_set_output(c, 0, y);
}

/* ---- convolution and pooling ---------------------------------------------- */

/* The 2-d window attributes: kernel (from kernel_shape or the weight),
 * strides, dilations and the four pads (auto_pad resolved). */
typedef struct window {
  int64_t k[2], st[2], dil[2], pad[4];
} window;

/* The window's strides, padding and dilation as Relax attributes. */
static void at_window(ox_ctx *c, ox_attrs *at, const window *w) {
  ox_at_ints(c, at, "strides", 2, w->st);
  ox_at_ints(c, at, "padding", 4, w->pad);
  ox_at_ints(c, at, "dilation", 2, w->dil);
}

static int window_of(ox_ctx *c, const tsl_rx_expr *x, const int64_t *kernel, window *w) {
  int64_t v[8];
  for (int d = 0; d < 2; d++) {
    w->k[d] = kernel[d];
    w->st[d] = w->dil[d] = 1;
  }
  memset(w->pad, 0, sizeof w->pad);
  int32_t n = ox_attr_ints(c, "strides", v, 8);
  if (n >= 0 && n != 2)
    return ox_fail(c, TSL_EUNSUPPORTED, "strides has %d values; 2 (a 2-d window) are "
                   "supported", n);
  for (int d = 0; n == 2 && d < 2; d++)
    w->st[d] = v[d];
  n = ox_attr_ints(c, "dilations", v, 8);
  if (n >= 0 && n != 2)
    return ox_fail(c, TSL_EUNSUPPORTED, "dilations has %d values; 2 are supported", n);
  for (int d = 0; n == 2 && d < 2; d++)
    w->dil[d] = v[d];
  const char *ap = ox_attr_str(c, "auto_pad", "NOTSET");
  if (!strcmp(ap, "NOTSET")) {
    n = ox_attr_ints(c, "pads", v, 8);
    if (n >= 0 && n != 4)
      return ox_fail(c, TSL_EUNSUPPORTED, "pads has %d values; 4 (top, left, bottom, right) "
                     "are supported", n);
    for (int d = 0; n == 4 && d < 4; d++)
      w->pad[d] = v[d];
  } else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
    for (int d = 0; d < 2; d++) {
      int64_t in = dim_of(x, 2 + d);
      if (in < 0)
        return ox_fail(c, TSL_EUNSUPPORTED, "auto_pad %s needs constant spatial sizes", ap);
      int64_t out = (in + w->st[d] - 1) / w->st[d];
      int64_t total = (out - 1) * w->st[d] + (w->k[d] - 1) * w->dil[d] + 1 - in;
      if (total < 0)
        total = 0;
      int64_t small = total / 2, big = total - small;
      int upper = !strcmp(ap, "SAME_UPPER");
      w->pad[d] = upper ? small : big;
      w->pad[d + 2] = upper ? big : small;
    }
  } else if (strcmp(ap, "VALID")) {
    return ox_fail(c, TSL_EINVALID, "auto_pad '%s' is not one of NOTSET, SAME_UPPER, "
                   "SAME_LOWER, VALID", ap);
  }
  for (int d = 0; d < 4; d++)
    if (w->pad[d] < 0 || (d < 2 && (w->st[d] < 1 || w->dil[d] < 1 || w->k[d] < 1)))
      return ox_fail(c, TSL_EINVALID, "negative pads, or strides, dilations or a kernel "
                     "below 1");
  return TSL_OK;
}

static int conv(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0), *w = ox_input(c, 1);
  if (!x || !w)
    return c->status;
  if (rank_of(x) != 4 || rank_of(w) != 4)
    return ox_fail(c, TSL_EUNSUPPORTED, "only 2-d convolutions (4-d data and weight) are "
                   "supported; ranks %d and %d", rank_of(x), rank_of(w));
  int64_t kernel[2] = {dim_of(w, 2), dim_of(w, 3)};
  window win;
  int rc = window_of(c, x, kernel, &win);
  if (rc)
    return rc;
  ox_attrs at = {0};
  at_window(c, &at, &win);
  ox_at_int(c, &at, "groups", ox_attr_int(c, "group", 1));
  const tsl_rx_expr *xw[2] = {x, w};
  const tsl_rx_expr *y = ox_call(c, op, 2, xw, ox_attrs_done(c, &at));
  if (!ox_has_input(c, 2))
    return ox_set_output(c, 0, y);
  /* the bias, [O] reshaped to [1, O, 1, 1] as TVM's importer does */
  const tsl_rx_expr *yv = ox_bind(c, y), *b = ox_input(c, 2);
  if (!b || !yv)
    return c->status;
  if (rank_of(b) != 1)
    return ox_fail(c, TSL_EINVALID, "the bias is a vector; its rank is %d", rank_of(b));
  ox_attrs rs = {0};
  const tsl_expr *dims[4] = {tsl_expr_int(c->a, TSL_INT64, 1), b->sinfo->shape[0],
                             tsl_expr_int(c->a, TSL_INT64, 1), tsl_expr_int(c->a, TSL_INT64, 1)};
  ox_at_shape(c, &rs, "shape", 4, dims);
  const tsl_rx_expr *b4 = ox_bind(c, ox_call(c, TSL_RX_OP_RESHAPE, 1, &b, ox_attrs_done(c, &rs)));
  const tsl_rx_expr *sum[2] = {yv, b4};
  return ox_set_output(c, 0, ox_call(c, TSL_RX_OP_ADD, 2, sum, no_attrs()));
}

static int pool(ox_ctx *c, tsl_rx_op op) {
  if (c->node->n_output > 1 && c->node->output[1][0])
    return ox_fail(c, TSL_EUNSUPPORTED, "the Indices output of MaxPool is not supported");
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  if (rank_of(x) != 4)
    return ox_fail(c, TSL_EUNSUPPORTED, "only 2-d pooling (4-d data) is supported; rank %d",
                   rank_of(x));
  int64_t kernel[8];
  if (ox_attr_ints(c, "kernel_shape", kernel, 8) != 2)
    return ox_fail(c, TSL_EINVALID, "kernel_shape must give 2 sizes");
  window win;
  int rc = window_of(c, x, kernel, &win);
  if (rc)
    return rc;
  ox_attrs at = {0};
  ox_at_ints(c, &at, "pool_size", 2, win.k);
  at_window(c, &at, &win);
  ox_at_bool(c, &at, "ceil_mode", (int)ox_attr_int(c, "ceil_mode", 0));
  if (op == TSL_RX_OP_AVG_POOL2D)
    ox_at_bool(c, &at, "count_include_pad", (int)ox_attr_int(c, "count_include_pad", 0));
  return ox_set_output(c, 0, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
}

static int global_pool(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (x && rank_of(x) != 4)
    return ox_fail(c, TSL_EUNSUPPORTED, "only 4-d data is supported; rank %d", rank_of(x));
  ox_attrs at = {0};
  static const int64_t one[2] = {1, 1};
  ox_at_ints(c, &at, "output_size", 2, one);
  return ox_set_output(c, 0, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
}

static int batch_norm(ox_ctx *c, tsl_rx_op op) {
  if (ox_attr_int(c, "training_mode", 0))
    return ox_fail(c, TSL_EUNSUPPORTED, "training_mode=1 is not supported (inference only)");
  const tsl_rx_expr *args[5];
  for (uint32_t i = 0; i < 5; i++)
    args[i] = ox_input(c, i);
  ox_attrs at = {0};
  ox_at_int(c, &at, "axis", 1);
  ox_at_float(c, &at, "epsilon", ox_attr_float(c, "epsilon", 1e-5f));
  const tsl_rx_expr *t = ox_call(c, op, 5, args, ox_attrs_done(c, &at));
  if (!t)
    return c->status;
  tsl_diag d = {0};
  return ox_set_output(c, 0, tsl_rx_tuple_get(c->a, ox_bind(c, t), 0, &d));
}

static int layer_norm(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *args[3] = {ox_input(c, 0), ox_input(c, 1), ox_input(c, 2)};
  if (!args[0] || !args[1])
    return c->status;
  if (!ox_has_input(c, 2))
    return ox_fail(c, TSL_EUNSUPPORTED, "LayerNormalization without a bias (B) is not "
                   "supported");
  int32_t r = rank_of(args[0]);
  int64_t axis;
  if (axis_attr(c, -1, r, 0, &axis))
    return c->status;
  int64_t axes[16];
  uint32_t n = 0;
  for (int64_t a = axis; a < r && n < 16; a++)
    axes[n++] = a;
  ox_attrs at = {0};
  ox_at_ints(c, &at, "axes", n, axes);
  ox_at_float(c, &at, "epsilon", ox_attr_float(c, "epsilon", 1e-5f));
  return ox_set_output(c, 0, ox_call(c, op, 3, args, ox_attrs_done(c, &at)));
}

/* ---- shapes ------------------------------------------------------------------- */

static const tsl_rx_expr *reshaped(ox_ctx *c, const tsl_rx_expr *x, uint32_t n,
                                   const tsl_expr *const *dims) {
  ox_attrs at = {0};
  ox_at_shape(c, &at, "shape", n, dims);
  return ox_call(c, TSL_RX_OP_RESHAPE, 1, &x, ox_attrs_done(c, &at));
}

/* The product of x's dimensions [from, to) as one dimension (a lone
 * symbolic one passes through); NULL when symbolic dims would multiply. */
static const tsl_expr *dim_product(ox_ctx *c, const tsl_rx_expr *x, int32_t from, int32_t to) {
  if (to - from == 1)
    return x->sinfo->shape[from];
  int64_t p = 1;
  for (int32_t d = from; d < to; d++) {
    int64_t v = dim_of(x, d);
    if (v < 0)
      return NULL;
    p *= v;
  }
  return tsl_expr_int(c->a, TSL_INT64, p);
}

static int flatten(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  int32_t r = rank_of(x);
  int64_t axis;
  if (!x->sinfo->shape)
    return ox_fail(c, TSL_EUNSUPPORTED, "Flatten of data whose shape is not known");
  if (axis_attr(c, 1, r, 1, &axis))
    return c->status;
  const tsl_expr *dims[2] = {axis ? dim_product(c, x, 0, (int32_t)axis)
                                  : tsl_expr_int(c->a, TSL_INT64, 1),
                             axis < r ? dim_product(c, x, (int32_t)axis, r)
                                      : tsl_expr_int(c->a, TSL_INT64, 1)};
  if (!dims[0] || !dims[1])
    return ox_fail(c, TSL_EUNSUPPORTED, "flattening symbolic dimensions together is not "
                   "supported");
  return ox_set_output(c, 0, reshaped(c, x, 2, dims));
}

/* An int64 or int32 scalar or vector known at import time (a shape, axes)
 * into out; -1 when it is not known or not constant. */
static int64_t known_ints(ox_ctx *c, uint32_t input, int64_t *out, uint32_t cap) {
  const tsl_expr *d[64];
  int32_t n = ox_input_dims(c, input, d, cap < 64 ? cap : 64, NULL);
  for (int32_t i = 0; i < n; i++)
    if (!tsl_expr_is_const_int(d[i], &out[i]))
      return -1;
  return n;
}

static int reshape(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  const tsl_expr *shape[16];
  int32_t n = ox_input_dims(c, 1, shape, 16, NULL);
  if (n < 0)
    return ox_fail(c, TSL_EUNSUPPORTED, "the shape (input 1) must be an int64 vector known at "
                   "import time (an initializer, a Constant, or Shape and its arithmetic)");
  if (ox_attr_int(c, "allowzero", 0))
    return ox_fail(c, TSL_EUNSUPPORTED, "allowzero=1 is not supported");
  const tsl_expr *dims[16];
  for (int32_t i = 0; i < n; i++) {
    int64_t v = 1;
    int known = tsl_expr_is_const_int(shape[i], &v);
    if (known && v == 0 && i < rank_of(x) && x->sinfo->shape)
      dims[i] = x->sinfo->shape[i]; /* 0 copies the input's dimension */
    else if (!known || v >= 1 || v == -1)
      dims[i] = shape[i];
    else
      return ox_fail(c, TSL_EINVALID, "shape value %lld at %d is not valid", (long long)v,
                     (int)i);
  }
  return ox_set_output(c, 0, reshaped(c, x, (uint32_t)n, dims));
}

/* Expand: NumPy's broadcast of the data and the shape (either side's 1
 * gives way), as R.broadcast_to */
static int expand(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  const tsl_expr *shape[16];
  int32_t n = ox_input_dims(c, 1, shape, 16, NULL), r = rank_of(x);
  if (n < 0)
    return ox_fail(c, TSL_EUNSUPPORTED, "the shape (input 1) must be an int64 vector known at "
                   "import time (an initializer, a Constant, or Shape and its arithmetic)");
  if (!x->sinfo->shape || r > 16)
    return ox_fail(c, TSL_EUNSUPPORTED, "the data's shape must be known");
  int32_t m = n > r ? n : r;
  const tsl_expr *dims[16];
  for (int32_t d = 0; d < m; d++) {
    int32_t ix = d - (m - r), is = d - (m - n);
    const tsl_expr *xd = ix >= 0 ? x->sinfo->shape[ix] : NULL, *sd = is >= 0 ? shape[is] : NULL;
    int64_t v;
    dims[d] = !sd || (xd && tsl_expr_is_const_int(sd, &v) && v == 1) ? xd : sd;
  }
  ox_attrs at = {0};
  ox_at_shape(c, &at, "shape", (uint32_t)m, dims);
  return ox_set_output(c, 0, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
}

/* Squeeze / Unsqueeze: a reshape to the shape with the axes removed or
 * inserted (axes from the attribute before operator set 13, then input 1) */
static int squeeze_or_unsqueeze(ox_ctx *c, int un) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  int64_t axes[16];
  int64_t n = c->opset >= 13 ? (ox_has_input(c, 1) ? known_ints(c, 1, axes, 16) : -2)
                             : ox_attr_ints(c, "axes", axes, 16);
  if (n == -1 || (n == -2 && un))
    return ox_fail(c, TSL_EUNSUPPORTED, "the axes must be known at import time");
  int32_t r = rank_of(x), out_r = un ? r + (int32_t)n : r;
  if (!x->sinfo->shape || out_r > 16)
    return ox_fail(c, TSL_EUNSUPPORTED, "the data's shape must be known (rank %d)", r);
  int mark[16] = {0};
  for (int64_t i = 0; i < (n > 0 ? n : 0); i++) {
    int64_t a = axes[i] < 0 ? axes[i] + out_r : axes[i];
    if (a < 0 || a >= out_r || mark[a])
      return ox_fail(c, TSL_EINVALID, "axis %lld is out of range or repeated",
                     (long long)axes[i]);
    mark[a] = 1;
  }
  const tsl_expr *dims[16];
  uint32_t m = 0;
  if (un) {
    for (int32_t d = 0, k = 0; d < out_r; d++)
      dims[m++] = mark[d] ? tsl_expr_int(c->a, TSL_INT64, 1) : x->sinfo->shape[k++];
  } else {
    for (int32_t d = 0; d < r; d++) {
      int64_t v = dim_of(x, d);
      int drop = n == -2 ? v == 1 : mark[d];
      if (drop && v != 1)
        return ox_fail(c, TSL_EINVALID, "axis %d has size %lld, not 1", (int)d, (long long)v);
      if (!drop)
        dims[m++] = x->sinfo->shape[d];
    }
  }
  return ox_set_output(c, 0, reshaped(c, x, m, dims));
}

static int squeeze(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  return squeeze_or_unsqueeze(c, 0);
}

static int unsqueeze(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  return squeeze_or_unsqueeze(c, 1);
}

static int transpose(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  int64_t perm[16];
  int32_t n = ox_attr_ints(c, "perm", perm, 16);
  ox_attrs at = {0};
  if (n >= 0)
    ox_at_ints(c, &at, "axes", (uint32_t)n, perm);
  return ox_set_output(c, 0, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
}

static int concat(ox_ctx *c, tsl_rx_op op) {
  uint32_t n = (uint32_t)c->node->n_input;
  if (!n || n > 256)
    return ox_fail(c, TSL_EINVALID, "Concat takes 1 to 256 inputs, not %u", n);
  const tsl_rx_expr *xs[256];
  for (uint32_t i = 0; i < n; i++)
    if (!(xs[i] = ox_input(c, i)))
      return c->status;
  ox_attrs at = {0};
  ox_at_int(c, &at, "axis", ox_attr_int(c, "axis", 0));
  const tsl_rx_expr *t = tsl_rx_tuple(c->a, n, xs);
  return ox_set_output(c, 0, ox_call(c, op, 1, &t, ox_attrs_done(c, &at)));
}

static int softmax(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  int32_t r = rank_of(x);
  int64_t axis;
  if (axis_attr(c, c->opset >= 13 ? -1 : 1, r, 0, &axis))
    return c->status;
  ox_attrs at = {0};
  ox_at_int(c, &at, "axis", c->opset >= 13 ? axis : -1);
  if (c->opset >= 13 || axis == r - 1)
    return ox_set_output(c, 0, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
  /* before 13: over the data flattened to 2-d at axis */
  const tsl_expr *dims[2] = {dim_product(c, x, 0, (int32_t)axis), dim_product(c, x, (int32_t)axis, r)};
  if (!dims[0] || !dims[1])
    return ox_fail(c, TSL_EUNSUPPORTED, "Softmax before operator set 13 over symbolic "
                   "dimensions is not supported");
  const tsl_rx_expr *f = ox_bind(c, reshaped(c, x, 2, dims));
  const tsl_rx_expr *s = ox_bind(c, ox_call(c, op, 1, &f, ox_attrs_done(c, &at)));
  return ox_set_output(c, 0, s ? reshaped(c, s, (uint32_t)r, x->sinfo->shape) : NULL);
}

/* ReduceMean / ReduceSum: axes from the attribute, or for ReduceSum from
 * operator set 13 (ReduceMean from 18) from input 1 */
static int reduce(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  int axes_input = op == TSL_RX_OP_SUM ? c->opset >= 13 : c->opset >= 18;
  int64_t axes[16];
  int64_t n = axes_input ? (ox_has_input(c, 1) ? known_ints(c, 1, axes, 16) : -2)
                         : ox_attr_ints(c, "axes", axes, 16);
  if (n == -1 && axes_input)
    return ox_fail(c, TSL_EUNSUPPORTED, "the axes (input 1) must be known at import time");
  if (ox_attr_int(c, "noop_with_empty_axes", 0) && n <= 0)
    return ox_fail(c, TSL_EUNSUPPORTED, "noop_with_empty_axes=1 without axes is not "
                   "supported");
  ox_attrs at = {0};
  if (n > 0)
    ox_at_ints(c, &at, "axis", (uint32_t)n, axes);
  ox_at_bool(c, &at, "keepdims", (int)ox_attr_int(c, "keepdims", 1));
  return ox_set_output(c, 0, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
}

/* Constant: value (a tensor), value_float(s), value_int(s) */
static int constant(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  const Onnx__AttributeProto *a;
  if ((a = ox_attr(c, "value")) && a->t) {
    tsl_weights *tmp = tsl_weights_new();
    const tsl_weight *w = NULL;
    char what[300];
    snprintf(what, sizeof what, "%s: node %u (Constant)", c->file, c->node_index);
    int rc = tmp ? ox_tensor_read(a->t, "value", c->dir, what, tmp, &w, c->diag) : TSL_ENOMEM;
    if (!rc)
      rc = ox_set_output_data(c, 0, w->dtype, w->ndim, w->shape, w->data);
    tsl_weights_free(tmp);
    return rc;
  }
  if ((a = ox_attr(c, "value_float")) && a->has_f)
    return ox_set_output_data(c, 0, TSL_FLOAT32, 0, NULL, &a->f);
  if ((a = ox_attr(c, "value_int")) && a->has_i)
    return ox_set_output_data(c, 0, TSL_INT64, 0, NULL, &a->i);
  if ((a = ox_attr(c, "value_floats"))) {
    int64_t n = (int64_t)a->n_floats;
    return ox_set_output_data(c, 0, TSL_FLOAT32, 1, &n, a->floats);
  }
  if ((a = ox_attr(c, "value_ints"))) {
    int64_t n = (int64_t)a->n_ints;
    return ox_set_output_data(c, 0, TSL_INT64, 1, &n, a->ints);
  }
  return ox_fail(c, TSL_EUNSUPPORTED, "a Constant needs value, value_float(s) or value_int(s) "
                 "(sparse and string values are not supported)");
}

/* Shape's start and end (operator set 15) as the range [lo, hi) of a
 * rank-r shape, clamped as the operator document says */
static void shape_range(ox_ctx *c, int32_t r, int32_t *lo, int32_t *hi) {
  int64_t s = ox_attr_int(c, "start", 0), e = ox_attr_int(c, "end", r);
  s = s < 0 ? s + r : s;
  e = e < 0 ? e + r : e;
  *lo = (int32_t)(s < 0 ? 0 : s > r ? r : s);
  *hi = (int32_t)(e < 0 ? 0 : e > r ? r : e);
  if (*hi < *lo)
    *hi = *lo;
}

/* Shape: its sizes, constant or symbolic (a tensor whose shape is known
 * at import time; folded before when the data is known) */
static int shape(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  int32_t r = rank_of(x), lo, hi;
  if (!x->sinfo->shape || r > 64)
    return ox_fail(c, TSL_EUNSUPPORTED, "Shape of a tensor whose shape is not known");
  shape_range(c, r, &lo, &hi);
  return ox_set_output_dims(c, 0, 1, (uint32_t)(hi - lo), x->sinfo->shape + lo);
}

/* Slice (operator set 10 on: starts, ends, axes, steps as inputs known
 * at import time) as R.strided_slice */
static int slice(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  int32_t r = rank_of(x);
  int64_t starts[16], ends[16], axes[16], steps[16];
  int64_t n = known_ints(c, 1, starts, 16);
  if (n < 0 || known_ints(c, 2, ends, 16) != n)
    return ox_fail(c, TSL_EUNSUPPORTED, "starts and ends must be int64 vectors of one length "
                   "known at import time");
  if (!ox_has_input(c, 3))
    for (int64_t i = 0; i < n; i++)
      axes[i] = i;
  else if (known_ints(c, 3, axes, 16) != n)
    return ox_fail(c, TSL_EUNSUPPORTED, "axes must be known at import time, one per start");
  if (!ox_has_input(c, 4))
    for (int64_t i = 0; i < n; i++)
      steps[i] = 1;
  else if (known_ints(c, 4, steps, 16) != n)
    return ox_fail(c, TSL_EUNSUPPORTED, "steps must be known at import time, one per start");
  for (int64_t i = 0; i < n; i++) {
    if (steps[i] < 1)
      return ox_fail(c, TSL_EUNSUPPORTED, "step %lld: only positive steps are supported",
                     (long long)steps[i]);
    /* ONNX's ends clamp as NumPy's; INT64_MAX and the like are "to the end" */
    int64_t a = axes[i] < 0 ? axes[i] + r : axes[i], size = a >= 0 && a < r ? dim_of(x, (int32_t)a) : -1;
    if (size >= 0 && ends[i] > size)
      ends[i] = size;
    if (size >= 0 && starts[i] > size)
      starts[i] = size;
    if (size >= 0 && ends[i] < -size)
      ends[i] = 0;
    if (size >= 0 && starts[i] < -size)
      starts[i] = 0;
  }
  ox_attrs at = {0};
  ox_at_ints(c, &at, "axes", (uint32_t)n, axes);
  ox_at_ints(c, &at, "begin", (uint32_t)n, starts);
  ox_at_ints(c, &at, "end", (uint32_t)n, ends);
  ox_at_ints(c, &at, "strides", (uint32_t)n, steps);
  return ox_set_output(c, 0, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
}

static double known_at(const tsl_weight *w, uint64_t k);

/* Gather: at one index known at import time (x[i] along an axis), a
 * one-wide R.strided_slice reshaped without that axis; at a tensor of
 * indices, R.take. Gathers of known data are folded before (fold). */
static int gather(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  const tsl_rx_expr *x = ox_input(c, 0);
  const tsl_weight *idx = ox_input_data(c, 1);
  if (!x)
    return c->status;
  int32_t r = rank_of(x);
  int64_t axis;
  if (axis_attr(c, 0, r, 0, &axis))
    return c->status;
  if (!idx || idx->ndim != 0 || tsl_dtype_is_float(idx->dtype) || !x->sinfo->shape) {
    const tsl_rx_expr *xi[2] = {x, ox_input(c, 1)};
    ox_attrs at = {0};
    ox_at_int(c, &at, "axis", axis);
    return ox_set_output(c, 0, ox_call(c, TSL_RX_OP_TAKE, 2, xi, ox_attrs_done(c, &at)));
  }
  int64_t i = (int64_t)known_at(idx, 0), size = dim_of(x, (int32_t)axis);
  i = i < 0 && size > 0 ? i + size : i;
  if (size < 0 || i < 0 || i >= size)
    return ox_fail(c, TSL_EINVALID, "index %lld out of range for axis %lld (constant size "
                   "%lld needed)", (long long)known_at(idx, 0),
                   (long long)ox_attr_int(c, "axis", 0), (long long)size);
  int64_t end = i + 1;
  ox_attrs at = {0};
  ox_at_ints(c, &at, "axes", 1, &axis);
  ox_at_ints(c, &at, "begin", 1, &i);
  ox_at_ints(c, &at, "end", 1, &end);
  const tsl_rx_expr *s = ox_bind(c, ox_call(c, TSL_RX_OP_STRIDED_SLICE, 1, &x,
                                            ox_attrs_done(c, &at)));
  const tsl_expr *dims[16];
  uint32_t m = 0;
  for (int32_t d = 0; d < r && m < 16; d++)
    if (d != axis)
      dims[m++] = x->sinfo->shape[d];
  return ox_set_output(c, 0, s ? reshaped(c, s, m, dims) : NULL);
}

/* Clip (operator set 11 on: min and max as optional inputs): R.maximum
 * with min, then R.minimum with max */
static int clip(ox_ctx *c, tsl_rx_op op) {
  (void)op;
  const tsl_rx_expr *y = ox_input(c, 0);
  static const tsl_rx_op bound[2] = {TSL_RX_OP_MAXIMUM, TSL_RX_OP_MINIMUM};
  for (uint32_t k = 0; k < 2 && y; k++) {
    if (!ox_has_input(c, 1 + k))
      continue;
    const tsl_rx_expr *args[2] = {k ? ox_bind(c, y) : y, ox_input(c, 1 + k)};
    if (args[1] && rank_of(args[1]) != 0)
      return ox_fail(c, TSL_EINVALID, "the %s (input %u) is a scalar; its rank is %d",
                     k ? "max" : "min", 1 + k, rank_of(args[1]));
    y = ox_call(c, bound[k], 2, args, no_attrs());
  }
  return ox_set_output(c, 0, y);
}

/* Gelu (operator set 20): R.nn.gelu, or with approximate="tanh"
 * x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) */
static int gelu(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  const char *ap = ox_attr_str(c, "approximate", "none");
  if (!strcmp(ap, "none"))
    return ox_set_output(c, 0, ox_call(c, op, 1, &x, no_attrs()));
  if (strcmp(ap, "tanh"))
    return ox_fail(c, TSL_EINVALID, "approximate '%s' is not one of none, tanh", ap);
  tsl_dtype dt = x->sinfo->dtype;
  const tsl_rx_expr *a[2] = {x, x};
  const tsl_rx_expr *x2 = ox_bind(c, ox_call(c, TSL_RX_OP_MULTIPLY, 2, a, no_attrs()));
  const tsl_rx_expr *b[2] = {x2, x};
  const tsl_rx_expr *x3 = ox_bind(c, ox_call(c, TSL_RX_OP_MULTIPLY, 2, b, no_attrs()));
  const tsl_rx_expr *x3k = scaled(c, x3, 0.044715f);
  const tsl_rx_expr *s[2] = {x, x3k};
  const tsl_rx_expr *in = ox_bind(c, ox_call(c, TSL_RX_OP_ADD, 2, s, no_attrs()));
  const tsl_rx_expr *inner = scaled(c, in, 0.7978845608028654f); /* sqrt(2 / pi) */
  const tsl_rx_expr *th = ox_bind(c, ox_call(c, TSL_RX_OP_TANH, 1, &inner, no_attrs()));
  const tsl_rx_expr *one[2] = {th, ox_const(c, dt, 1.0, 1)};
  const tsl_rx_expr *t1 = ox_bind(c, ox_call(c, TSL_RX_OP_ADD, 2, one, no_attrs()));
  const tsl_rx_expr *m[2] = {scaled(c, x, 0.5f), t1};
  return ox_set_output(c, 0, ox_call(c, TSL_RX_OP_MULTIPLY, 2, m, no_attrs()));
}

static int ternary(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *args[3] = {ox_input(c, 0), ox_input(c, 1), ox_input(c, 2)};
  return ox_set_output(c, 0, ox_call(c, op, 3, args, no_attrs()));
}

/* Split: sizes from the attribute (before set 13) or input 1, else equal
 * parts, one per output; R.split at the sizes' running sums, each output
 * a field of its tuple */
static int split(ox_ctx *c, tsl_rx_op op) {
  const tsl_rx_expr *x = ox_input(c, 0);
  if (!x)
    return c->status;
  int32_t r = rank_of(x);
  int64_t axis;
  uint32_t n_out = (uint32_t)c->node->n_output;
  if (axis_attr(c, 0, r, 0, &axis))
    return c->status;
  if (n_out < 1 || n_out > 64)
    return ox_fail(c, TSL_EINVALID, "%u outputs; 1 to 64 are supported", n_out);
  int64_t sizes[64];
  int64_t n = c->opset >= 13 ? (ox_has_input(c, 1) ? known_ints(c, 1, sizes, 64) : -2)
                             : ox_attr_ints(c, "split", sizes, 64);
  ox_attrs at = {0};
  if (n == -1 && c->opset >= 13)
    return ox_fail(c, TSL_EUNSUPPORTED, "the split sizes (input 1) must be known at import "
                   "time");
  if (n >= 0) {
    if (n != (int64_t)n_out)
      return ox_fail(c, TSL_EINVALID, "%lld split sizes for %u outputs", (long long)n, n_out);
    int64_t at_[64], run = 0;
    for (int64_t i = 0; i + 1 < n; i++)
      at_[i] = run += sizes[i];
    ox_at_ints(c, &at, "indices_or_sections", (uint32_t)(n - 1), at_);
  } else {
    ox_at_int(c, &at, "indices_or_sections", n_out);
  }
  ox_at_int(c, &at, "axis", axis);
  const tsl_rx_expr *t = ox_bind(c, ox_call(c, op, 1, &x, ox_attrs_done(c, &at)));
  if (!t)
    return c->status;
  int rc = TSL_OK;
  for (uint32_t i = 0; !rc && i < n_out; i++) {
    tsl_diag d = {0};
    const tsl_rx_expr *f = tsl_rx_tuple_get(c->a, t, i, &d);
    rc = f ? ox_set_output(c, i, f) : ox_fail(c, TSL_EINVALID, "%s", d.text);
  }
  return rc;
}

/* ---- values known at import time ------------------------------------------ */

/* Element k of a known tensor as a double (int64 values beyond 2^53 are
 * shapes' sentinels, kept exact enough for clamping). */
static double known_at(const tsl_weight *w, uint64_t k) {
  const char *p = (const char *)w->data;
  if (tsl_dtype_eq(w->dtype, TSL_INT64)) {
    int64_t v;
    memcpy(&v, p + 8 * k, 8);
    return (double)v;
  }
  if (tsl_dtype_eq(w->dtype, TSL_INT32)) {
    int32_t v;
    memcpy(&v, p + 4 * k, 4);
    return v;
  }
  if (tsl_dtype_eq(w->dtype, TSL_FLOAT64)) {
    double v;
    memcpy(&v, p + 8 * k, 8);
    return v;
  }
  float v;
  memcpy(&v, p + 4 * k, 4);
  return v;
}

static int known_kind(const tsl_weight *w) {
  return tsl_dtype_eq(w->dtype, TSL_INT64) || tsl_dtype_eq(w->dtype, TSL_INT32) ||
         tsl_dtype_eq(w->dtype, TSL_FLOAT32) || tsl_dtype_eq(w->dtype, TSL_FLOAT64);
}

/* out[k] (n values of dtype dt) into bytes, then output 0 */
static int set_known(ox_ctx *c, tsl_dtype dt, uint32_t ndim, const int64_t *shape,
                     const double *v, uint64_t n) {
  char *bytes = TSL_NEW_ARRAY(c->a, char, 8 * n + 8);
  for (uint64_t k = 0; k < n; k++) {
    if (tsl_dtype_eq(dt, TSL_INT64)) {
      int64_t x = v[k] >= 9.2e18 ? INT64_MAX : v[k] <= -9.2e18 ? INT64_MIN : (int64_t)v[k];
      memcpy(bytes + 8 * k, &x, 8);
    } else if (tsl_dtype_eq(dt, TSL_INT32)) {
      int32_t x = (int32_t)v[k];
      memcpy(bytes + 4 * k, &x, 4);
    } else if (tsl_dtype_eq(dt, TSL_FLOAT64)) {
      memcpy(bytes + 8 * k, &v[k], 8);
    } else {
      float x = (float)v[k];
      memcpy(bytes + 4 * k, &x, 4);
    }
  }
  return ox_set_output_data(c, 0, dt, ndim, shape, bytes);
}

/* x op y on sizes (ONNX's integer Div truncates; sizes are not negative,
 * so it is a floor division) */
static const tsl_expr *dim_arith(ox_ctx *c, char op, const tsl_expr *x, const tsl_expr *y) {
  int64_t u, v, r = 0;
  int kx = tsl_expr_is_const_int(x, &u), ky = tsl_expr_is_const_int(y, &v);
  if (kx && ky) { /* NULL: it overflows, or divides by 0 */
    if (op == 'D')
      return v == 0 || (u == INT64_MIN && v == -1) ? NULL : tsl_expr_int(c->a, TSL_INT64, u / v);
    int over = op == 'A' ? __builtin_add_overflow(u, v, &r)
               : op == 'S' ? __builtin_sub_overflow(u, v, &r) : __builtin_mul_overflow(u, v, &r);
    return over ? NULL : tsl_expr_int(c->a, TSL_INT64, r);
  }
  if ((op == 'A' || op == 'S') && ky && v == 0)
    return x;
  if ((op == 'M' || op == 'D') && ky && v == 1)
    return x;
  if (op == 'M' && kx && u == 1)
    return y;
  tsl_expr_kind k = op == 'A' ? TSL_EXPR_ADD : op == 'S' ? TSL_EXPR_SUB : op == 'M' ? TSL_EXPR_MUL
                                                                                   : TSL_EXPR_FLOORDIV;
  return tsl_expr_binary(c->a, k, x, y);
}

/* The shape arithmetic of fold on sizes some of which are symbolic
 * (Shape of a tensor with symbolic dimensions): Identity, Cast to an
 * integer, Add / Sub / Mul / Div, Gather (axis 0), Concat, Unsqueeze of a
 * scalar, Squeeze of one size, Slice and Reshape of a vector. 1: done (or
 * failed: c->status); 0: not such a node. */
static int fold_dims(ox_ctx *c) {
  static const char *const ops[] = {"Identity", "Cast", "Add", "Sub", "Mul", "Div", "Gather",
                                    "Concat", "Unsqueeze", "Squeeze", "Slice", "Reshape", NULL};
  const char *t = c->node->op_type;
  int known = 0;
  for (int i = 0; ops[i] && !known; i++)
    known = !strcmp(t, ops[i]);
  uint32_t n_in = (uint32_t)c->node->n_input;
  if (!known || !n_in || n_in > 8 || !ox_has_input(c, 0))
    return 0;
  const tsl_expr *in[8][64];
  int32_t n[8] = {0};
  int rank[8] = {0}, symbolic = 0;
  for (uint32_t i = 0; i < n_in; i++) {
    if (!ox_has_input(c, i))
      continue;
    if ((n[i] = ox_input_dims(c, i, in[i], 64, &rank[i])) < 0)
      return 0;
    for (int32_t k = 0; k < n[i]; k++)
      symbolic |= !tsl_expr_is_const_int(in[i][k], NULL);
  }
  if (!symbolic)
    return 0; /* known values: fold's */
  const tsl_expr *out[64];
  if (!strcmp(t, "Identity"))
    return ox_set_output_dims(c, 0, rank[0], (uint32_t)n[0], in[0]), 1;
  if (!strcmp(t, "Cast")) {
    tsl_dtype dt;
    if (!ox_dtype((int32_t)ox_attr_int(c, "to", 0), &dt) || tsl_dtype_is_float(dt))
      return 0;
    return ox_set_output_dims(c, 0, rank[0], (uint32_t)n[0], in[0]), 1;
  }
  if (!strcmp(t, "Add") || !strcmp(t, "Sub") || !strcmp(t, "Mul") || !strcmp(t, "Div")) {
    if (n_in != 2 || (n[0] != n[1] && n[0] != 1 && n[1] != 1))
      return 0;
    int32_t m = n[0] > n[1] ? n[0] : n[1];
    for (int32_t k = 0; k < m; k++)
      if (!(out[k] = dim_arith(c, t[0], in[0][n[0] == 1 ? 0 : k], in[1][n[1] == 1 ? 0 : k])))
        return ox_fail(c, TSL_EINVALID, "the size arithmetic overflows int64 or divides by "
                       "0"), 1;
    return ox_set_output_dims(c, 0, rank[0] > rank[1] ? rank[0] : rank[1], (uint32_t)m, out), 1;
  }
  if (!strcmp(t, "Gather")) {
    if (ox_attr_int(c, "axis", 0) != 0 || rank[0] != 1 || n_in != 2)
      return 0;
    for (int32_t k = 0; k < n[1]; k++) {
      int64_t j;
      if (!tsl_expr_is_const_int(in[1][k], &j))
        return 0;
      j = j < 0 ? j + n[0] : j;
      if (j < 0 || j >= n[0])
        return ox_fail(c, TSL_EINVALID, "index %lld is out of range for %d sizes",
                       (long long)j, (int)n[0]), 1;
      out[k] = in[0][j];
    }
    return ox_set_output_dims(c, 0, rank[1], (uint32_t)n[1], out), 1;
  }
  if (!strcmp(t, "Concat")) {
    int32_t m = 0;
    for (uint32_t i = 0; i < n_in; i++) {
      if (rank[i] != 1 || m + n[i] > 64)
        return 0;
      for (int32_t k = 0; k < n[i]; k++)
        out[m++] = in[i][k];
    }
    return ox_set_output_dims(c, 0, 1, (uint32_t)m, out), 1;
  }
  if (!strcmp(t, "Unsqueeze"))
    return rank[0] == 0 ? (ox_set_output_dims(c, 0, 1, 1, in[0]), 1) : 0;
  if (!strcmp(t, "Squeeze"))
    return rank[0] == 1 && n[0] == 1 ? (ox_set_output_dims(c, 0, 0, 1, in[0]), 1) : 0;
  if (!strcmp(t, "Reshape")) {
    int64_t w;
    if (rank[0] != 1 || n[1] != 1 || !tsl_expr_is_const_int(in[1][0], &w) ||
        (w != -1 && w != n[0]))
      return 0;
    return ox_set_output_dims(c, 0, 1, (uint32_t)n[0], in[0]), 1;
  }
  /* Slice of a vector: one start and end, a positive step */
  int64_t st, en, step = 1;
  if (rank[0] != 1 || n[1] != 1 || n[2] != 1 || !tsl_expr_is_const_int(in[1][0], &st) ||
      !tsl_expr_is_const_int(in[2][0], &en) ||
      (n_in > 4 && n[4] == 1 && !tsl_expr_is_const_int(in[4][0], &step)) || step < 1)
    return 0;
  int64_t len = n[0], lo = st < 0 ? st + len : st, hi = en < 0 ? en + len : en;
  lo = lo < 0 ? 0 : lo > len ? len : lo;
  hi = hi < 0 ? 0 : hi > len ? len : hi;
  int32_t m = 0;
  for (int64_t k = lo; k < hi; k += step)
    out[m++] = in[0][k];
  return ox_set_output_dims(c, 0, 1, (uint32_t)m, out), 1;
}

/* A node whose inputs are all known, computed now (the shape arithmetic
 * exporters write: Shape, Gather, Mul, Concat, Unsqueeze, ... on small
 * integer vectors). 1: done (or failed: c->status); 0: not foldable. */
static int fold(ox_ctx *c) {
  static const char *const ops[] = {"Add", "Sub", "Mul", "Div", "Gather", "Concat",
                                    "Unsqueeze", "Squeeze", "Reshape", "Cast", "Slice",
                                    "Identity", NULL};
  const char *t = c->node->op_type;
  int known = !strcmp(t, "Shape") && ox_input_data(c, 0);
  for (int i = 0; ops[i] && !known; i++)
    known = !strcmp(t, ops[i]);
  if (!known || !c->node->n_input || c->node->n_input > 8)
    return 0;
  const tsl_weight *w[8] = {NULL};
  uint32_t n_in = (uint32_t)c->node->n_input;
  for (uint32_t i = 0; i < n_in; i++)
    if (ox_has_input(c, i) && (!(w[i] = ox_input_data(c, i)) || !known_kind(w[i]) ||
                               w[i]->numel > 4096))
      return 0;
  const tsl_weight *a = w[0];
  if (!a)
    return 0; /* no data operand: the converter says what is missing */
  if (!strcmp(t, "Shape")) {
    double v[16];
    int32_t lo, hi;
    shape_range(c, (int32_t)a->ndim, &lo, &hi);
    for (int32_t d = lo; d < hi; d++)
      v[d - lo] = (double)a->shape[d];
    int64_t n = hi - lo;
    return set_known(c, TSL_INT64, 1, &n, v, (uint64_t)n), 1;
  }
  if (!strcmp(t, "Identity"))
    return ox_set_output_data(c, 0, a->dtype, a->ndim, a->shape, a->data), 1;
  double *out = TSL_NEW_ARRAY(c->a, double, 4097);
  if (!strcmp(t, "Add") || !strcmp(t, "Sub") || !strcmp(t, "Mul") || !strcmp(t, "Div")) {
    const tsl_weight *b = w[1];
    if (!b || !tsl_dtype_eq(a->dtype, b->dtype) ||
        (a->numel != b->numel && a->numel != 1 && b->numel != 1))
      return 0;
    const tsl_weight *big = a->numel >= b->numel ? a : b;
    int integer = !tsl_dtype_is_float(a->dtype);
    for (uint64_t k = 0; k < big->numel; k++) {
      double x = known_at(a, a->numel == 1 ? 0 : k), y = known_at(b, b->numel == 1 ? 0 : k);
      double r = t[0] == 'A' ? x + y : t[0] == 'S' ? x - y : t[0] == 'M' ? x * y
                 : y != 0 ? x / y : 0;
      out[k] = integer && t[0] == 'D' ? (double)(int64_t)r : r;
    }
    return set_known(c, a->dtype, big->ndim, big->shape, out, big->numel), 1;
  }
  if (!strcmp(t, "Cast")) {
    tsl_dtype dt;
    if (!ox_dtype((int32_t)ox_attr_int(c, "to", 0), &dt) ||
        !(tsl_dtype_eq(dt, TSL_INT64) || tsl_dtype_eq(dt, TSL_INT32) ||
          tsl_dtype_eq(dt, TSL_FLOAT32) || tsl_dtype_eq(dt, TSL_FLOAT64)))
      return 0;
    for (uint64_t k = 0; k < a->numel; k++)
      out[k] = tsl_dtype_is_float(dt) ? known_at(a, k) : (double)(int64_t)known_at(a, k);
    return set_known(c, dt, a->ndim, a->shape, out, a->numel), 1;
  }
  if (a->ndim > 1)
    return 0; /* the rest: scalars and vectors */
  int64_t n = (int64_t)a->numel;
  if (!strcmp(t, "Gather")) {
    const tsl_weight *idx = w[1];
    if (!idx || ox_attr_int(c, "axis", 0) != 0 || a->ndim != 1 || idx->ndim > 1 ||
        tsl_dtype_is_float(idx->dtype))
      return 0;
    for (uint64_t k = 0; k < idx->numel; k++) {
      int64_t j = (int64_t)known_at(idx, k);
      j = j < 0 ? j + n : j;
      if (j < 0 || j >= n)
        return ox_fail(c, TSL_EINVALID, "index %lld is out of range for %lld values",
                       (long long)known_at(idx, k), (long long)n), 1;
      out[k] = known_at(a, (uint64_t)j);
    }
    return set_known(c, a->dtype, idx->ndim, idx->shape, out, idx->numel), 1;
  }
  if (!strcmp(t, "Concat")) {
    int64_t m = 0;
    for (uint32_t i = 0; i < n_in; i++) {
      if (!w[i] || w[i]->ndim != 1 || !tsl_dtype_eq(w[i]->dtype, a->dtype))
        return 0;
      for (uint64_t k = 0; k < w[i]->numel; k++)
        out[m++] = known_at(w[i], k);
    }
    return set_known(c, a->dtype, 1, &m, out, (uint64_t)m), 1;
  }
  for (int64_t k = 0; k < n; k++)
    out[k] = known_at(a, (uint64_t)k);
  if (!strcmp(t, "Unsqueeze") || !strcmp(t, "Squeeze") || !strcmp(t, "Reshape")) {
    /* scalars and vectors: the values stay, the shape is what the op says */
    int64_t shape[2], nd = 1;
    if (!strcmp(t, "Squeeze")) {
      if (n != 1)
        return 0;
      nd = 0;
    } else if (!strcmp(t, "Unsqueeze")) {
      if (a->ndim == 0) {
        shape[0] = 1;
      } else {
        int64_t ax[2];
        int64_t na = c->opset >= 13 ? known_ints(c, 1, ax, 2) : ox_attr_ints(c, "axes", ax, 2);
        if (na != 1)
          return 0;
        nd = 2;
        shape[ax[0] == 0 || ax[0] == -2 ? 0 : 1] = 1;
        shape[ax[0] == 0 || ax[0] == -2 ? 1 : 0] = n;
      }
    } else {
      int64_t want[2];
      if (known_ints(c, 1, want, 2) != 1 || (want[0] != n && want[0] != -1))
        return 0;
      shape[0] = n;
    }
    return set_known(c, a->dtype, (uint32_t)nd, shape, out, (uint64_t)n), 1;
  }
  if (!strcmp(t, "Slice")) {
    int64_t st[1], en[1], step[1] = {1};
    if (known_ints(c, 1, st, 1) != 1 || known_ints(c, 2, en, 1) != 1 ||
        (ox_has_input(c, 4) && known_ints(c, 4, step, 1) != 1) || step[0] < 1)
      return 0;
    int64_t lo = st[0] < 0 ? st[0] + n : st[0], hi = en[0] < 0 ? en[0] + n : en[0], m = 0;
    lo = lo < 0 ? 0 : lo > n ? n : lo;
    hi = hi < 0 ? 0 : hi > n ? n : hi;
    for (int64_t k = lo; k < hi; k += step[0])
      out[m++] = known_at(a, (uint64_t)k);
    return set_known(c, a->dtype, 1, &m, out, (uint64_t)m), 1;
  }
  return 0;
}

/* ---- the table ------------------------------------------------------------ */

static const struct {
  const char *op_type;
  ox_convert_fn fn;
  tsl_rx_op op;
} table[] = {
    {"Add", binary, TSL_RX_OP_ADD},
    {"AveragePool", pool, TSL_RX_OP_AVG_POOL2D},
    {"BatchNormalization", batch_norm, TSL_RX_OP_BATCH_NORM},
    {"Cast", cast, TSL_RX_OP_ASTYPE},
    {"Clip", clip, TSL_RX_OP_COUNT},
    {"Concat", concat, TSL_RX_OP_CONCAT},
    {"Constant", constant, TSL_RX_OP_COUNT},
    {"Conv", conv, TSL_RX_OP_CONV2D},
    {"Div", binary, TSL_RX_OP_DIVIDE},
    {"Dropout", identity, TSL_RX_OP_COUNT},
    {"Erf", unary, TSL_RX_OP_ERF},
    {"Exp", unary, TSL_RX_OP_EXP},
    {"Expand", expand, TSL_RX_OP_BROADCAST_TO},
    {"Flatten", flatten, TSL_RX_OP_RESHAPE},
    {"Gather", gather, TSL_RX_OP_TAKE},
    {"Gelu", gelu, TSL_RX_OP_GELU},
    {"Gemm", gemm, TSL_RX_OP_MATMUL},
    {"GlobalAveragePool", global_pool, TSL_RX_OP_ADAPTIVE_AVG_POOL2D},
    {"Identity", identity, TSL_RX_OP_COUNT},
    {"LayerNormalization", layer_norm, TSL_RX_OP_LAYER_NORM},
    {"MatMul", binary, TSL_RX_OP_MATMUL},
    {"MaxPool", pool, TSL_RX_OP_MAX_POOL2D},
    {"Mul", binary, TSL_RX_OP_MULTIPLY},
    {"Pow", binary, TSL_RX_OP_POWER},
    {"ReduceMean", reduce, TSL_RX_OP_MEAN},
    {"ReduceSum", reduce, TSL_RX_OP_SUM},
    {"Relu", unary, TSL_RX_OP_RELU},
    {"Reshape", reshape, TSL_RX_OP_RESHAPE},
    {"Shape", shape, TSL_RX_OP_COUNT},
    {"Sigmoid", unary, TSL_RX_OP_SIGMOID},
    {"Slice", slice, TSL_RX_OP_STRIDED_SLICE},
    {"Softmax", softmax, TSL_RX_OP_SOFTMAX},
    {"Split", split, TSL_RX_OP_SPLIT},
    {"Sqrt", unary, TSL_RX_OP_SQRT},
    {"Squeeze", squeeze, TSL_RX_OP_RESHAPE},
    {"Sub", binary, TSL_RX_OP_SUBTRACT},
    {"Tanh", unary, TSL_RX_OP_TANH},
    {"Transpose", transpose, TSL_RX_OP_PERMUTE_DIMS},
    {"Unsqueeze", unsqueeze, TSL_RX_OP_RESHAPE},
    {"Where", ternary, TSL_RX_OP_WHERE},
};

const char *ox_ops_supported(char *buf, size_t cap) {
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? ", " : "", table[i].op_type);
  return buf;
}

int ox_convert_node(ox_ctx *c) {
  if (fold_dims(c) || fold(c))
    return c->status;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(table[i].op_type, c->node->op_type)) {
      int rc = table[i].fn(c, table[i].op);
      return rc ? rc : c->status;
    }
  char list[1024];
  return ox_fail(c, TSL_EUNSUPPORTED, "operator %s is not supported; supported: %s",
                 c->node->op_type, ox_ops_supported(list, sizeof list));
}
