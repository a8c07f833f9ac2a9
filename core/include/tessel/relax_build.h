/*
 * tessel/relax_build.h — building and rewriting models (relax.h):
 * expression builders that infer struct info as the parser does, and the
 * one Relax mutator every graph pass is written on (appended in ABI 1.5).
 *
 * Builders allocate in the given arena and never modify their operands.
 * Calls get their struct info by the parser's rules (relax.h): an operator
 * call whose operands do not fit (shapes that do not broadcast, wrong
 * arity), or a destination-passing call whose tensors do not fit the
 * prim_func's buffers, returns NULL with TSL_EINVALID and a message in
 * `diag` (which may be NULL). Names are interned in the arena's context.
 *
 * The mutator rebuilds a function bottom-up and shares every unchanged
 * part: mutating a function that needs no change returns the same pointer.
 *  - Expressions: the `expr` hook when set, else the default, which
 *    mutates the operands and rebuilds the node only when one changed; a
 *    rebuilt call gets its struct info inferred again (a weight bound to a
 *    tensor makes the calls that use it fully known).
 *  - Variables: a use of a variable is replaced by what `vars` maps it to
 *    (tsl_rx_mutator_replace), else kept.
 *  - Bindings, in order: the value is mutated, then the `binding` hook
 *    (when set) decides what is bound: the value, another one, or NULL to
 *    remove the binding (its uses must have been replaced). When the bound
 *    value's struct info differs from the variable's, the variable is
 *    replaced by a new one of the same name with the value's struct info,
 *    and its uses follow. Emptied blocks are removed.
 *  - Parameters: a parameter that `vars` maps to a variable becomes that
 *    variable; one mapped to anything else (a constant: BindParams) is
 *    removed from the parameters.
 *  - The returned value is mutated; the return annotation is kept.
 * A hook that cannot go on calls tsl_rx_mutator_fail and returns its
 * input; the walk finishes and the caller checks `status`.
 */
#ifndef TESSEL_RELAX_BUILD_H
#define TESSEL_RELAX_BUILD_H

#include "tessel/container.h"
#include "tessel/relax.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== builders ============================================================== */

/* R.Tensor(shape, dtype): `shape` (ndim int64 dims, copied) may be NULL
 * when only the rank is known; ndim -1 for an unknown rank. */
TSL_API const tsl_rx_sinfo *tsl_rx_tensor_sinfo(tsl_arena *a, tsl_dtype dtype, int32_t ndim,
                                                const tsl_expr *const *shape);
/* Structurally equal struct infos (dims compared as rx expressions:
 * equal constants, or the same size variable). */
TSL_API int tsl_rx_sinfo_equal(const tsl_rx_sinfo *a, const tsl_rx_sinfo *b);

/* A new variable (id 0: ids number the parser's variables only). */
TSL_API tsl_rx_var *tsl_rx_var_new(tsl_arena *a, const char *name, const tsl_rx_sinfo *sinfo,
                                   int is_dataflow);
/* Leaves: a use of `v`; metadata["relax.expr.Constant"][index] of struct
 * info `sinfo` (NULL: unknown, R.Object); cls.name (a function of the
 * module); "name" (a packed function). */
TSL_API const tsl_rx_expr *tsl_rx_var_ref(tsl_arena *a, const tsl_rx_var *v);
TSL_API const tsl_rx_expr *tsl_rx_constant(tsl_arena *a, uint32_t index,
                                           const tsl_rx_sinfo *sinfo);
TSL_API const tsl_rx_expr *tsl_rx_global(tsl_arena *a, const char *name);
TSL_API const tsl_rx_expr *tsl_rx_extern(tsl_arena *a, const char *name);
/* (fields...) and t[index] (NULL when t is not a tuple of more than
 * `index` fields). */
TSL_API const tsl_rx_expr *tsl_rx_tuple(tsl_arena *a, uint32_t n,
                                        const tsl_rx_expr *const *fields);
TSL_API const tsl_rx_expr *tsl_rx_tuple_get(tsl_arena *a, const tsl_rx_expr *t, uint32_t index,
                                            tsl_diag *diag);
/* R.<op>(args..., attrs) for an operator of relax.h's table (not CALL_TIR /
 * CALL_DPS_PACKED), with its attributes (a zeroed tsl_attrs: none, the
 * defaults). */
TSL_API const tsl_rx_expr *tsl_rx_op_call(tsl_arena *a, tsl_rx_op op, uint32_t n,
                                          const tsl_rx_expr *const *args, tsl_attrs attrs,
                                          tsl_diag *diag);
/* R.call_tir (op CALL_TIR) or R.call_dps_packed of `callee` (a GLOBAL
 * naming a prim_func of `tir`, or an EXTERN) on the tuple `args`, with
 * n_out outputs (copied). */
TSL_API const tsl_rx_expr *tsl_rx_dps_call(tsl_arena *a, const tsl_module *tir, tsl_rx_op op,
                                           const tsl_rx_expr *callee, const tsl_rx_expr *args,
                                           uint32_t n_out, const tsl_rx_sinfo *const *outs,
                                           tsl_diag *diag);
/* The same call on new operands (a CALL's args; a TUPLE's fields; a
 * TUPLE_GET's tuple), struct info inferred again; `e` itself when every
 * operand is the same pointer. */
TSL_API const tsl_rx_expr *tsl_rx_with_args(tsl_arena *a, const tsl_module *tir,
                                            const tsl_rx_expr *e, const tsl_rx_expr *const *args,
                                            tsl_diag *diag);

/* A function with the given parts (arrays copied); ret_sinfo NULL: ret's. */
TSL_API const tsl_rx_func *tsl_rx_func_new(tsl_arena *a, const char *name, uint32_t n_params,
                                           const tsl_rx_var *const *params, uint32_t n_size_vars,
                                           const tsl_var *const *size_vars, uint32_t n_blocks,
                                           const tsl_rx_block *blocks, const tsl_rx_expr *ret,
                                           const tsl_rx_sinfo *ret_sinfo);
/* A model of `tir`'s prim_funcs and the given Relax functions (copied),
 * referring to n_constants constants whose tensors are `constants` (may be
 * NULL; see tsl_model.constants). */
TSL_API tsl_model *tsl_model_new(tsl_arena *a, const tsl_module *tir, uint32_t n_rx_funcs,
                                 const tsl_rx_func *const *rx_funcs, uint32_t n_constants,
                                 const tsl_weights *constants);
/* `tir` with `f` added (or replacing the function of f's name), as a new
 * module in `a`. */
TSL_API const tsl_module *tsl_module_with(tsl_arena *a, const tsl_module *tir,
                                          const tsl_func *f);

/* ==== the mutator ============================================================ */

typedef struct tsl_rx_mutator tsl_rx_mutator;
struct tsl_rx_mutator {
  tsl_arena *arena;      /* required: where new nodes go */
  const tsl_module *tir; /* the prim_funcs rebuilt calls are checked against */
  const tsl_rx_expr *(*expr)(tsl_rx_mutator *m, const tsl_rx_expr *e);
  const tsl_rx_expr *(*binding)(tsl_rx_mutator *m, const tsl_rx_binding *b,
                                const tsl_rx_expr *value);
  tsl_map vars; /* const tsl_rx_var * -> const tsl_rx_expr *: replaced uses */
  void *user_data;
  int status;     /* TSL_OK until tsl_rx_mutator_fail */
  tsl_diag *diag; /* optional: receives the first failure's message */
};

/* A mutator with the arena and module set (hooks NULL, an empty map in
 * the arena, status TSL_OK). */
TSL_API tsl_rx_mutator tsl_rx_mutator_make(tsl_arena *a, const tsl_module *tir);
/* From now on, uses of `v` become `e`. */
TSL_API void tsl_rx_mutator_replace(tsl_rx_mutator *m, const tsl_rx_var *v,
                                    const tsl_rx_expr *e);
/* Record a failure (the first one is kept). */
TSL_API void tsl_rx_mutator_fail(tsl_rx_mutator *m, int status, const char *fmt, ...)
    TSL_PRINTF(3, 4);
TSL_API const tsl_rx_expr *tsl_rx_mutate_expr(tsl_rx_mutator *m, const tsl_rx_expr *e);
TSL_API const tsl_rx_expr *tsl_rx_mutate_expr_children(tsl_rx_mutator *m,
                                                       const tsl_rx_expr *e);
TSL_API const tsl_rx_func *tsl_rx_mutate_func(tsl_rx_mutator *m, const tsl_rx_func *f);
/* Every Relax function of `in` mutated; a new model over m->tir (and in's
 * constants), or `in` when nothing changed and m->tir is in's. */
TSL_API const tsl_model *tsl_rx_mutate_model(tsl_rx_mutator *m, const tsl_model *in);

/* Visit `e` and its operands, pre-order; a nonzero return stops the walk
 * and is returned. */
TSL_API int tsl_rx_visit_expr(const tsl_rx_expr *e,
                              int (*fn)(const tsl_rx_expr *e, void *user_data),
                              void *user_data);
/* Visit every expression of a function in order (parameters are not
 * expressions): each binding's value, then the returned value, pre-order
 * with operands. A nonzero return stops the walk and is returned. */
TSL_API int tsl_rx_visit_func(const tsl_rx_func *f,
                              int (*fn)(const tsl_rx_expr *e, void *user_data),
                              void *user_data);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_RELAX_BUILD_H */
