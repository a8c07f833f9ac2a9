/*
 * core/passes/passes_internal.h — the built-in graph passes (tessel/pass.h)
 * and what they share.
 */
#ifndef TESSEL_PASSES_INTERNAL_H
#define TESSEL_PASSES_INTERNAL_H

#include "tessel/container.h"
#include "tessel/pass.h"
#include "tessel/relax_build.h"

/* Register the built-in passes (core/builtins calls it). */
int passes_register_builtins(tsl_registry *reg, tsl_diag *diag);

extern const tsl_pass_vtable pass_bind_params_vt;
extern const tsl_pass_vtable pass_legalize_vt;
extern const tsl_pass_vtable pass_fold_constant_vt;
extern const tsl_pass_vtable pass_dce_vt;
extern const tsl_pass_vtable pass_fuse_vt;
extern const tsl_pass_vtable pass_normalize_vt;

/* normalize.c: every call nested in an operand bound first (TVM's normal
 * form); legalize ends with it. */
int pass_normalize_model(const tsl_pass_ctx *ctx, const tsl_model *in, const tsl_model **out,
                         tsl_diag *diag);

/* A variable name not in `names` (lv, lv1, ... as TVM's block builder
 * names them, counting from *next), added to it. */
tsl_str pass_fresh_name(tsl_arena *a, tsl_map *names, uint32_t *next);
/* `names` cleared and filled with f's parameter and binding names. */
void pass_func_names(const tsl_rx_func *f, tsl_map *names);

extern const tsl_pass_vtable pass_convert_layout_vt;

/* The constants a model's passes bound (NULL when none). */
const tsl_weights *pass_model_constants(const tsl_model *m);

/* ---- legalize_ops.c ---- */
/* The TVMScript text of the prim_func TVM's LegalizeOps writes for
 * operator call `call` (operands of known shapes and dtypes), named
 * `name`, into `sb`; TSL_EUNSUPPORTED (message in diag) for an operator
 * without a legalization or operands whose struct info is not known. */
int legalize_op_script(const tsl_rx_expr *call, const char *name, tsl_strbuf *sb,
                       tsl_diag *diag);
/* The function-name hint for an operator ("add", "matmul", "relu"). */
const char *legalize_op_hint(tsl_rx_op op);
/* The text writers legalize_ops.c and legalize_layout.c share: one buffer
 * of the function (name, struct info); a dimension (T.int64(4), or the
 * size's expression); the signature (T.Buffer parameters, or T.handle +
 * T.match_buffer when a shape is symbolic) with the noalias attribute; a
 * loop nest and its block (lg_grid returns the body's indentation). */
typedef struct lg_buf {
  const char *name;
  const tsl_rx_sinfo *s;
} lg_buf;
void lg_dim(tsl_strbuf *sb, const tsl_expr *d);
/* TSL_OK when `s` (operand i, or the result) is a tensor of known dtype
 * and shape; else TSL_EUNSUPPORTED with the message in diag. */
int lg_operand(const tsl_rx_sinfo *s, tsl_rx_op op, uint32_t i, int is_result, tsl_diag *diag);
void lg_signature(tsl_strbuf *sb, const char *name, const lg_buf *bufs, uint32_t n);
int lg_grid(tsl_strbuf *sb, int at, const char *block, int32_t n, const tsl_expr *const *dims,
            const char *kinds);
/* The prim_func text of the operators with attributes (legalize_layout.c):
 * astype, gelu, silu, permute_dims, reshape, flatten, sum, mean, max,
 * softmax, concat. */
int legalize_layout_script(const tsl_rx_expr *call, const char *name, tsl_strbuf *sb,
                           tsl_diag *diag);

/* The prim_func text of the network operators (legalize_nn.c, 1.6):
 * conv2d, max / avg / adaptive average pooling, batch_norm, layer_norm,
 * split; a tuple-valued operator's prim_func has one output per field. */
int legalize_nn_script(const tsl_rx_expr *call, const char *name, tsl_strbuf *sb,
                       tsl_diag *diag);

/* ---- op_pattern.c: TVM's operator patterns, ordered as TVM numbers
 * them ---- */
enum {
  PASS_PATTERN_ELEMWISE = 0,
  PASS_PATTERN_BROADCAST = 1,
  PASS_PATTERN_INJECTIVE = 2,
  PASS_PATTERN_COMM_REDUCE = 3,
  PASS_PATTERN_OUT_EWISE_FUSABLE = 4,
  PASS_PATTERN_OPAQUE = 8
};
/* The pattern of prim_func f (TVM's AnnotateTIROpPattern). */
int pass_op_pattern(const tsl_func *f);
const char *pass_pattern_name(int kind);

/* ---- fuse_groups.c ---- */
/* TVM's FuseOps partitioning of `count` nodes in topological order:
 * patterns[i], its consumers outs[i] (n_outs[i] of them, later nodes),
 * external[i] when it is used after the block. group_of[i] gets the
 * representative of i's group (nodes of one group share it). */
void pass_fuse_partition(uint32_t count, const int *patterns, const uint32_t *const *outs,
                         const uint32_t *n_outs, const int *external, int *group_of);

#endif
