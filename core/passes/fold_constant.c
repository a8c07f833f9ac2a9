/*
 * fold_constant (TVM's FoldConstant): a call of an operator or R.call_tir
 * whose inputs are all constants is computed now, by the reference
 * interpreter, and the binding binds the resulting constant; later uses
 * see the constant, so chains fold in one pass. Packed functions are left
 * alone (they may have effects), as are calls with tuple results.
 */
#include "passes_internal.h"

#include "tessel/model.h"

#include <stdio.h>

typedef struct fold {
  const tsl_pass_ctx *ctx;
  uint32_t n_constants;
  uint32_t folded;
} fold;

static int foldable(const tsl_rx_expr *e) {
  if (e->kind != TSL_RX_EXPR_CALL || e->op == TSL_RX_OP_CALL_DPS_PACKED ||
      e->sinfo->kind != TSL_RX_SINFO_TENSOR || !e->sinfo->shape)
    return 0;
  if (e->op == TSL_RX_OP_CALL_TIR && e->args[0]->kind != TSL_RX_EXPR_GLOBAL)
    return 0; /* R.call_tir("env.relu", ...) is a packed function */
  const tsl_rx_expr *const *in = e->op == TSL_RX_OP_CALL_TIR ? e->args[1]->args : e->args;
  uint32_t n = e->op == TSL_RX_OP_CALL_TIR ? e->args[1]->n_args : e->n_args;
  for (uint32_t i = 0; i < n; i++)
    if (in[i]->kind != TSL_RX_EXPR_CONSTANT)
      return 0;
  for (int32_t d = 0; d < e->sinfo->ndim; d++)
    if (!tsl_expr_is_const_int(e->sinfo->shape[d], NULL))
      return 0;
  return 1;
}

/* The value of call `e` (constant inputs) as a new constant, or NULL when
 * the interpreter cannot compute it (left as it is). */
static const tsl_rx_expr *evaluate(tsl_rx_mutator *m, const tsl_rx_expr *e) {
  fold *f = m->user_data;
  tsl_arena *a = f->ctx->arena;
  tsl_rx_var *r = tsl_rx_var_new(a, "folded", e->sinfo, 0);
  tsl_rx_binding b = {r, e};
  tsl_rx_block blk = {0, 1, &b};
  const tsl_rx_func *fn = tsl_rx_func_new(a, "fold", 0, NULL, 0, NULL, 1, &blk,
                                          tsl_rx_var_ref(a, r), NULL);
  const tsl_model *tmp = tsl_model_new(a, m->tir, 1, &fn, f->n_constants, f->ctx->constants);
  tsl_weights *none = tsl_weights_new(), *out = NULL;
  tsl_diag d = {0};
  const tsl_rx_expr *c = NULL;
  if (none && !tsl_model_interp(tmp, "fold", none, &out, &d)) {
    const tsl_weight *w = tsl_weights_find(out, "output");
    if (w && tsl_pass_constant(f->ctx, &f->n_constants, w->dtype, w->ndim, w->shape, w->data, &c,
                               &d))
      c = NULL;
  }
  tsl_weights_free(none);
  tsl_weights_free(out);
  if (c)
    f->folded++;
  return c;
}

static const tsl_rx_expr *binding(tsl_rx_mutator *m, const tsl_rx_binding *b,
                                  const tsl_rx_expr *value) {
  const tsl_rx_expr *c = foldable(value) ? evaluate(m, value) : NULL;
  if (!c && value->kind == TSL_RX_EXPR_CONSTANT)
    c = value; /* x = metadata[...]: uses see the constant */
  if (!c)
    return value;
  tsl_rx_mutator_replace(m, b->var, c);
  return c;
}

static int run(void *user_data, const tsl_pass_ctx *ctx, const tsl_model *in,
               const tsl_model **out, tsl_diag *diag) {
  (void)user_data;
  fold f = {ctx, in->n_constants, 0};
  tsl_rx_mutator m = tsl_rx_mutator_make(ctx->arena, in->tir);
  m.binding = binding;
  m.user_data = &f;
  m.diag = diag;
  const tsl_model *r = tsl_rx_mutate_model(&m, in);
  if (m.status)
    return m.status;
  if (r != in && f.n_constants != in->n_constants)
    r = tsl_model_new(ctx->arena, r->tir, r->n_rx_funcs, r->rx_funcs, f.n_constants,
                      ctx->constants);
  *out = r;
  return TSL_OK;
}

const tsl_pass_vtable pass_fold_constant_vt = {sizeof(tsl_pass_vtable), run};
