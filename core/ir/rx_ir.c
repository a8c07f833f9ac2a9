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

const tsl_rx_func *tsl_model_find(const tsl_model *m, const char *name) {
  for (uint32_t i = 0; m && name && i < m->n_rx_funcs; i++)
    if (!strcmp(m->rx_funcs[i]->name, name))
      return m->rx_funcs[i];
  return NULL;
}
