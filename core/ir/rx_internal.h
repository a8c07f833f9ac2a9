/*
 * rx_internal.h — Relax functions of models (tessel/relax.h), internal to
 * the IR library: the parser's Relax stage (parser_rx.c), struct-info
 * inference and checks (rx_infer.c), printing (printer_rx.c).
 */
#ifndef TESSEL_RX_INTERNAL_H
#define TESSEL_RX_INTERNAL_H

#include "parser_internal.h"

#include <stdarg.h>
#include "tessel/container.h"
#include "tessel/relax.h"
#include "rx_ops.h"

/* ---- parser_rx.c ---- */
/* A fresh Relax stage for the model `m` being parsed. */
prx *ps_rx_new(pstate *ps, tsl_model *m);
/* Is `def` decorated @R.function? */
int ps_is_rx_function(pstate *ps, const astmt *def);
/* Remember an @R.function definition, built after the prim_funcs. */
void ps_add_rx_def(pstate *ps, const astmt *def);
/* Build the remembered Relax functions over the module's prim_funcs. */
const tsl_model *ps_build_model(pstate *ps, const tsl_module *tir);
/* The model's prim_funcs. */
const tsl_module *ps_rx_tir(pstate *ps);
/* Struct info from an annotation (R.Tensor(...), R.Tuple(...), ...). */
const tsl_rx_sinfo *rx_sinfo(pstate *ps, const anode *n);

/* ---- rx_ir.c: rx_ops.h ---- */

/* ---- rx_infer.c ---- */
/* A failed inference: the message, a hint for the note, and what it
 * concerns (RX_AT_*), so that the parser can point at it. */
enum { RX_AT_CALL = -1, RX_AT_CALLEE = -2, RX_AT_ARGS = -3 };
#define RX_AT_ARG(i) (1000 + (int)(i)) /* input i of a destination-passing call */
typedef struct rx_err {
  int failed;
  int at; /* RX_AT_*, or k >= 0: operand k of an operator */
  char msg[768];
  char hint[256];
} rx_err;

/* Record the first failure in err (later ones are dropped). */
void rx_err_set(rx_err *err, int at, const char *hint, const char *fmt, va_list ap);
/* A struct info of `kind`, nothing known yet (rank -1, dtype void). */
tsl_rx_sinfo *rx_sinfo_new(tsl_arena *a, uint32_t kind);
const tsl_rx_sinfo *rx_tuple_sinfo(tsl_arena *a, uint32_t n, const tsl_rx_expr *const *fields);
/* The struct info of operator `op` on `args`, or NULL with `err` set
 * (wrong arity, shapes that do not broadcast, ...). */
const tsl_rx_sinfo *rx_infer_op(tsl_arena *a, tsl_rx_op op, uint32_t n,
                                const tsl_rx_expr *const *args, tsl_attrs attrs, rx_err *err);
/* R.call_tir / R.call_dps_packed of `callee` on the tuple `args`: the
 * outputs as struct info (one tensor, or a tuple), and, when the callee is
 * a prim_func of `tir`, its buffers checked against the tensors passed
 * (count, dtypes, shapes with its size variables bound once). NULL with
 * `err` set when something does not fit. */
const tsl_rx_sinfo *rx_infer_dps(tsl_arena *a, const tsl_module *tir, tsl_rx_op op,
                                 const tsl_rx_expr *callee, const tsl_rx_expr *args,
                                 uint32_t n_out, const tsl_rx_sinfo *const *outs, rx_err *err);
/* rx_infer_nn.c: conv2d, pooling, batch_norm, layer_norm, split (1.6). */
const tsl_rx_sinfo *rx_infer_nn(tsl_arena *a, tsl_rx_op op, const tsl_rx_expr *const *args,
                                tsl_attrs attrs, rx_err *err);
/* Dimensions known equal: the same constant, or the same expression. */
int rx_dim_equal(const tsl_expr *a, const tsl_expr *b);

#endif
