/*
 * Models (tessel/relax.h): the operator table and lookups, which the
 * parser, the printer and later passes share.
 */
#include "rx_internal.h"

#include <string.h>

static const struct {
  const char *name;
  int n_args;
} ops[] = {
#define TSL_X_(id, name, n) {name, n},
    TSL_RX_OPS(TSL_X_)
#undef TSL_X_
};

const char *tsl_rx_op_name(tsl_rx_op op) {
  return (unsigned)op < TSL_RX_OP_COUNT ? ops[op].name : "?";
}

int rx_op_arity(tsl_rx_op op) { return ops[op].n_args; }

int tsl_rx_op_elementwise(tsl_rx_op op) {
  return (op >= TSL_RX_OP_ADD && op <= TSL_RX_OP_RELU && op != TSL_RX_OP_MATMUL) ||
         op == TSL_RX_OP_ERF || op == TSL_RX_OP_POWER || op == TSL_RX_OP_MAXIMUM ||
         op == TSL_RX_OP_MINIMUM;
}

uint32_t rx_op_attrs(tsl_rx_op op, const rx_attr_spec **out) {
  static const rx_attr_spec dtype[] = {{"dtype", RX_A_DTYPE}};
  static const rx_attr_spec axes[] = {{"axes", RX_A_INTS}};
  static const rx_attr_spec shape[] = {{"shape", RX_A_SHAPE}};
  static const rx_attr_spec reduce[] = {{"axis", RX_A_INTS}, {"keepdims", RX_A_BOOL}};
  static const rx_attr_spec axis[] = {{"axis", RX_A_INT}};
  static const rx_attr_spec conv[] = {
      {"strides", RX_A_INTS},      {"padding", RX_A_INTS},       {"dilation", RX_A_INTS},
      {"groups", RX_A_INT},        {"data_layout", RX_A_STR},    {"kernel_layout", RX_A_STR},
      {"out_layout", RX_A_STR},    {"out_dtype", RX_A_STR}};
  static const rx_attr_spec pool[] = {
      {"pool_size", RX_A_INTS}, {"strides", RX_A_INTS},           {"padding", RX_A_INTS},
      {"dilation", RX_A_INTS},  {"ceil_mode", RX_A_BOOL},         {"count_include_pad", RX_A_BOOL},
      {"layout", RX_A_STR},     {"out_layout", RX_A_STR}};
  static const rx_attr_spec adaptive[] = {
      {"output_size", RX_A_INTS}, {"layout", RX_A_STR}, {"out_layout", RX_A_STR}};
  static const rx_attr_spec bn[] = {{"axis", RX_A_INT},    {"epsilon", RX_A_FLOAT},
                                    {"center", RX_A_BOOL}, {"scale", RX_A_BOOL},
                                    {"momentum", RX_A_FLOAT}};
  static const rx_attr_spec ln[] = {{"axes", RX_A_INTS}, {"epsilon", RX_A_FLOAT},
                                    {"center", RX_A_BOOL}, {"scale", RX_A_BOOL}};
  static const rx_attr_spec split[] = {{"indices_or_sections", RX_A_INT_OR_INTS}, {"axis", RX_A_INT}};
  static const rx_attr_spec slice[] = {{"axes", RX_A_INTS},    {"begin", RX_A_INTS},
                                       {"end", RX_A_INTS},     {"strides", RX_A_INTS},
                                       {"assume_inbound", RX_A_BOOL}};
  switch (op) {
  case TSL_RX_OP_CONV2D: *out = conv; return 8;
  case TSL_RX_OP_MAX_POOL2D: case TSL_RX_OP_AVG_POOL2D: *out = pool; return 8;
  case TSL_RX_OP_ADAPTIVE_AVG_POOL2D: *out = adaptive; return 3;
  case TSL_RX_OP_BATCH_NORM: *out = bn; return 5;
  case TSL_RX_OP_LAYER_NORM: *out = ln; return 4;
  case TSL_RX_OP_SPLIT: *out = split; return 2;
  case TSL_RX_OP_STRIDED_SLICE: *out = slice; return 5;
  case TSL_RX_OP_ASTYPE: *out = dtype; return 1;
  case TSL_RX_OP_PERMUTE_DIMS: *out = axes; return 1;
  case TSL_RX_OP_RESHAPE: *out = shape; return 1;
  case TSL_RX_OP_SUM: case TSL_RX_OP_MEAN: case TSL_RX_OP_MAX: *out = reduce; return 2;
  case TSL_RX_OP_SOFTMAX: case TSL_RX_OP_CONCAT: case TSL_RX_OP_TAKE: *out = axis; return 1;
  case TSL_RX_OP_BROADCAST_TO: *out = shape; return 1;
  default: *out = NULL; return 0;
  }
}

double tsl_rx_attr_float(tsl_attrs a, const char *key, double dflt) {
  const tsl_attr_value *v = tsl_attrs_get(a, key);
  return !v ? dflt : v->kind == TSL_ATTR_FLOAT ? v->u.f : v->kind == TSL_ATTR_INT ? (double)v->u.i
                                                                                  : dflt;
}

const char *tsl_rx_attr_str(tsl_attrs a, const char *key, const char *dflt) {
  const tsl_attr_value *v = tsl_attrs_get(a, key);
  return v && v->kind == TSL_ATTR_STR ? v->u.s : dflt;
}

int tsl_rx_attr_ints_n(tsl_attrs attrs, const char *key, int64_t dflt, int32_t want, int64_t *out) {
  int64_t v[8];
  int32_t n = tsl_rx_attr_ints(attrs, key, v, 8);
  if (n < 0) {
    for (int32_t i = 0; i < want; i++)
      out[i] = dflt;
    return 1;
  }
  if (n == 1) {
    for (int32_t i = 0; i < want; i++)
      out[i] = v[0];
    return 1;
  }
  if (n == want) {
    memcpy(out, v, (size_t)want * sizeof *out);
    return 1;
  }
  if (want == 4 && n == 2) {
    out[0] = out[2] = v[0];
    out[1] = out[3] = v[1];
    return 1;
  }
  return 0;
}

int tsl_rx_slice_ranges(tsl_attrs attrs, int32_t ndim, const int64_t *dims, int64_t *begin,
                        int64_t *stride, int64_t *len) {
  int64_t axes[64], b[64], e[64], s[64];
  int32_t n = tsl_rx_attr_ints(attrs, "axes", axes, 64);
  if (ndim < 0 || ndim > 64 || n < 0 || n > 64 || tsl_rx_attr_ints(attrs, "begin", b, 64) != n ||
      tsl_rx_attr_ints(attrs, "end", e, 64) != n)
    return 0;
  int32_t ns = tsl_rx_attr_ints(attrs, "strides", s, 64);
  if (ns >= 0 && ns != n)
    return 0;
  for (int32_t d = 0; d < ndim; d++) {
    begin[d] = 0;
    stride[d] = 1;
    len[d] = dims[d];
  }
  int seen[64] = {0};
  for (int32_t i = 0; i < n; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + ndim : axes[i], st = ns < 0 ? 1 : s[i];
    if (a < 0 || a >= ndim || seen[a]++ || st < 1)
      return 0;
    int64_t size = dims[a];
    int64_t lo = b[i] < 0 ? b[i] + size : b[i], hi = e[i] < 0 ? e[i] + size : e[i];
    lo = lo < 0 ? 0 : lo > size ? size : lo;
    hi = hi < 0 ? 0 : hi > size ? size : hi;
    begin[a] = lo;
    stride[a] = st;
    len[a] = hi > lo ? (hi - lo + st - 1) / st : 0;
  }
  return 1;
}

int tsl_rx_layout_axes(const char *layout, const char *canonical, int32_t *axes) {
  size_t n = strlen(canonical);
  if (!layout || strlen(layout) != n)
    return 0;
  int32_t at[8];
  for (size_t i = 0; i < n && i < 8; i++) {
    const char *p = strchr(layout, canonical[i]);
    if (!p || strchr(p + 1, canonical[i]))
      return 0;
    at[i] = (int32_t)(p - layout);
  }
  memcpy(axes, at, n * sizeof *axes);
  return 1;
}

int64_t tsl_rx_attr_int(tsl_attrs a, const char *key, int64_t dflt) {
  const tsl_attr_value *v = tsl_attrs_get(a, key);
  return v && (v->kind == TSL_ATTR_INT || v->kind == TSL_ATTR_BOOL) ? v->u.i : dflt;
}

int32_t tsl_rx_attr_ints(tsl_attrs a, const char *key, int64_t *out, uint32_t cap) {
  const tsl_attr_value *v = tsl_attrs_get(a, key);
  if (!v)
    return -1;
  if (v->kind == TSL_ATTR_INT) {
    if (cap)
      out[0] = v->u.i;
    return 1;
  }
  if (v->kind != TSL_ATTR_LIST)
    return -1;
  for (uint32_t i = 0; i < v->n && i < cap; i++)
    out[i] = v->u.items[i].u.i;
  return (int32_t)v->n;
}

const tsl_rx_func *tsl_model_find(const tsl_model *m, const char *name) {
  for (uint32_t i = 0; m && name && i < m->n_rx_funcs; i++)
    if (!strcmp(m->rx_funcs[i]->name, name))
      return m->rx_funcs[i];
  return NULL;
}
