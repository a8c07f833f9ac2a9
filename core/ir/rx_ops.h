/*
 * rx_ops.h — the operator table's facts beside relax.h's X-macro (rx_ir.c),
 * for the parser, the printer, inference and passes of core/ir: operand
 * counts and the attributes each operator takes.
 */
#ifndef TESSEL_RX_OPS_H
#define TESSEL_RX_OPS_H

#include "tessel/relax.h"

int rx_op_arity(tsl_rx_op op);
/* The attributes an operator takes, in their positional order (after its
 * operands): INT an integer; INTS an integer or a list of them (None:
 * absent); BOOL; DTYPE a dtype string; SHAPE R.shape([...]) or a tuple
 * of dimensions (EXPR items); FLOAT a number; STR a string. */
enum { RX_A_INT, RX_A_INTS, RX_A_BOOL, RX_A_DTYPE, RX_A_SHAPE, RX_A_FLOAT, RX_A_STR,
       RX_A_INT_OR_INTS /* an INT kept apart from a list of them (R.split) */ };
/* The most attributes an operator takes. */
#define RX_MAX_ATTRS 12

typedef struct rx_attr_spec {
  const char *name;
  int kind;
} rx_attr_spec;
uint32_t rx_op_attrs(tsl_rx_op op, const rx_attr_spec **out);

#endif
