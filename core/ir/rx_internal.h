/*
 * rx_internal.h — Relax functions of models (tessel/relax.h), internal to
 * the IR library: the parser's Relax stage (parser_rx.c), struct-info
 * inference and checks (rx_infer.c), printing (printer_rx.c).
 */
#ifndef TESSEL_RX_INTERNAL_H
#define TESSEL_RX_INTERNAL_H

#include "parser_internal.h"
#include "tessel/container.h"
#include "tessel/relax.h"

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

/* ---- rx_ir.c ---- */
int rx_op_arity(tsl_rx_op op);

/* ---- rx_infer.c ---- */
/* A struct info of `kind`, nothing known yet (rank -1, dtype void). */
tsl_rx_sinfo *rx_sinfo_new(tsl_arena *a, uint32_t kind);
const tsl_rx_sinfo *rx_tuple_sinfo(tsl_arena *a, uint32_t n, const tsl_rx_expr *const *fields);
/* The struct info of an operator call (args set), or a located error at
 * `at` (shapes that do not broadcast, ...). Sets e->sinfo. */
void rx_infer_op(pstate *ps, const anode *at, tsl_rx_expr *e);
/* R.call_tir / R.call_dps_packed: the outputs as struct info, and, when the
 * callee is a prim_func of the module, its buffers against the tensors
 * passed (count, dtypes, shapes with its size variables bound once). */
void rx_check_dps(pstate *ps, const anode *at, tsl_rx_expr *e);
/* `have` fits `want` (an annotation): same kind, rank, dtype and
 * dimensions where both are known; else a located error naming `what`. */
void rx_check_sinfo(pstate *ps, const anode *at, const tsl_rx_sinfo *want,
                    const tsl_rx_sinfo *have, const char *what);
/* Dimensions known equal: the same constant, or the same expression. */
int rx_dim_equal(const tsl_expr *a, const tsl_expr *b);

#endif
