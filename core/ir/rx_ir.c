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

uint32_t rx_op_attrs(tsl_rx_op op, const rx_attr_spec **out) {
  static const rx_attr_spec dtype[] = {{"dtype", RX_A_DTYPE}};
  static const rx_attr_spec axes[] = {{"axes", RX_A_INTS}};
  static const rx_attr_spec shape[] = {{"shape", RX_A_SHAPE}};
  static const rx_attr_spec reduce[] = {{"axis", RX_A_INTS}, {"keepdims", RX_A_BOOL}};
  static const rx_attr_spec axis[] = {{"axis", RX_A_INT}};
  switch (op) {
  case TSL_RX_OP_ASTYPE: *out = dtype; return 1;
  case TSL_RX_OP_PERMUTE_DIMS: *out = axes; return 1;
  case TSL_RX_OP_RESHAPE: *out = shape; return 1;
  case TSL_RX_OP_SUM: case TSL_RX_OP_MEAN: case TSL_RX_OP_MAX: *out = reduce; return 2;
  case TSL_RX_OP_SOFTMAX: case TSL_RX_OP_CONCAT: *out = axis; return 1;
  default: *out = NULL; return 0;
  }
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
