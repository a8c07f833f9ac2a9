/*
 * tessel/pass.h — graph passes on models (relax.h) as components of kind
 * TSL_COMPONENT_PASS ("pass"), and the pipeline that runs them by name
 * (appended in ABI 1.5).
 *
 * A pass is a function from model to model, written on the Relax mutator
 * (relax_build.h). It never modifies its input: it builds what changed in
 * ctx->arena and shares the rest, so the input model stays valid (the
 * pipeline's caller may keep every stage). Passes a researcher adds are
 * plugins registering a tsl_pass_vtable, found by name like every other
 * component. Built in (core/passes, README there):
 *   bind_params    parameters of `main` named in ctx->params become
 *                  constants (TVM's BindParams); a tensor that names no
 *                  parameter, or does not fit its struct info, is an error
 *   legalize       every high-level operator call (R.add, R.matmul, ...)
 *                  becomes R.call_tir of a prim_func as TVM's LegalizeOps
 *                  writes it (names, blocks, loop order), equal prim_funcs
 *                  shared; the result normalized (below)
 *   normalize      a call nested in an operand gets a binding of its own
 *                  (lv, lv1, ...: TVM's normal form)
 *   fuse           R.call_tir bindings TVM's operator patterns group
 *                  (matmul + bias + ReLU, element-wise chains, producers
 *                  of a reduction) become one prim_func each (TVM's
 *                  FuseOps and FuseTIR), fused_<callee>_<callee>...
 *   fold_constant  calls whose inputs are all constants (operators and
 *                  R.call_tir) are computed now and become constants
 *   dce            bindings of dataflow blocks nobody uses, and prim_funcs
 *                  no Relax function calls, are removed
 *
 * Constants: a pass that makes a constant adds its tensor to
 * ctx->constants through tsl_pass_constant, and the model it returns has
 * constants == ctx->constants. The pipeline first gathers the input
 * model's constants there, so every stage's constants are one collection.
 *
 * The pipeline checks each pass's result: a model whose printed text does
 * not parse back (a use before definition, a call that does not fit its
 * prim_func, ...) is refused with the pass's name, so a faulty plugin pass
 * is reported where it goes wrong.
 */
#ifndef TESSEL_PASS_H
#define TESSEL_PASS_H

#include "tessel/plugin.h"
#include "tessel/relax.h"
#include "tessel/weights.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a pass is given besides the model. */
typedef struct tsl_pass_ctx {
  uint32_t struct_size;         /* sizeof(tsl_pass_ctx) of the caller */
  tsl_arena *arena;             /* where passes build; outlives the models */
  const tsl_weights *params;    /* bind_params: tensors by parameter name (may be NULL) */
  tsl_weights *constants;       /* the constants' tensors (required) */
  const tsl_registry *registry; /* the components (may be NULL) */
} tsl_pass_ctx;

typedef struct tsl_pass_vtable {
  uint32_t struct_size;
  /* The pass on `in`: *out is the new model (or `in` when nothing
   * changed). Errors: a negative TSL_E* status and a message in `diag`
   * naming what does not fit (and where in the model). */
  int (*run)(void *user_data, const tsl_pass_ctx *ctx, const tsl_model *in,
             const tsl_model **out, tsl_diag *diag);
} tsl_pass_vtable;

/* Add a tensor (copied) to ctx->constants as the next constant of a model
 * that has *n_constants of them, and count it; *out is the constant,
 * metadata["relax.expr.Constant"][i], with the tensor's struct info. */
TSL_API int tsl_pass_constant(const tsl_pass_ctx *ctx, uint32_t *n_constants, tsl_dtype dtype,
                              uint32_t ndim, const int64_t *shape, const void *data,
                              const tsl_rx_expr **out, tsl_diag *diag);

/* The tensors of `from` (named relax.expr.Constant.<i>) that m's Relax
 * functions refer to, copied into a new collection *out (passes leave the
 * constants they replaced, e.g. folded weights, in theirs). */
TSL_API int tsl_model_constants_used(const tsl_model *m, const tsl_weights *from,
                                     tsl_weights **out, tsl_diag *diag);

/* Does `m` print as text that parses back (tsl_model_print,
 * tsl_parse_model)? TSL_EINVALID with the parser's message (and the
 * printed line it points at) when not. */
TSL_API int tsl_model_check(const tsl_model *m, tsl_diag *diag);

/* Run the passes named in `names` (comma-separated, in order, e.g.
 * "bind_params,legalize,dce") from `reg` on `in`. An unknown name fails
 * before any pass runs, listing the registered passes. Each result is
 * checked (tsl_model_check); a failure names the pass. */
TSL_API int tsl_model_run_passes(const tsl_registry *reg, const char *names,
                                 const tsl_pass_ctx *ctx, const tsl_model *in,
                                 const tsl_model **out, tsl_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_PASS_H */
