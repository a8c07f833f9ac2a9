/*
 * legalize (TVM's LegalizeOps): every operator call becomes R.call_tir of
 * a prim_func (legalize_ops.c writes its text, the TensorIR parser builds
 * it). Structurally equal prim_funcs are made once and shared, as TVM's
 * block builder does; names follow TVM's: the hint, then hint1, hint2, ...
 * when taken.
 */
#include "passes_internal.h"

#include "tessel/analysis.h"
#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct legalizer {
  const tsl_model *in;
  tsl_vec made; /* const tsl_func *: the prim_funcs made so far */
} legalizer;

static int name_taken(tsl_rx_mutator *m, const legalizer *lg, const char *name) {
  if (tsl_module_find(m->tir, name) || tsl_model_find(lg->in, name))
    return 1;
  return 0;
}

static void unique_name(tsl_rx_mutator *m, const legalizer *lg, const char *hint, char *out,
                        size_t cap) {
  snprintf(out, cap, "%s", hint);
  for (int k = 1; name_taken(m, lg, out); k++)
    snprintf(out, cap, "%s%d", hint, k);
}

/* The prim_func for call `e`: one made before when equal, else new. */
static const tsl_func *prim_func_for(tsl_rx_mutator *m, const tsl_rx_expr *e) {
  legalizer *lg = m->user_data;
  char name[128];
  unique_name(m, lg, legalize_op_hint((tsl_rx_op)e->op), name, sizeof name);
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_diag d = {0};
  int rc = legalize_op_script(e, name, &sb, &d);
  const tsl_module *mod = NULL;
  if (!rc) {
    rc = tsl_parse(m->arena, "<legalize>", sb.data, sb.len, &mod, &d);
    if (rc) /* our own text: a bug here, reported with the text */
      tsl_diag_append(&d, "\nin the prim_func legalize wrote:\n%s", sb.data);
  }
  tsl_strbuf_free(&sb);
  if (rc) {
    tsl_rx_mutator_fail(m, rc, "%s", d.text);
    return NULL;
  }
  const tsl_func *f = mod->funcs[0];
  for (uint32_t i = 0; i < lg->made.len; i++) {
    const tsl_func *g = TSL_VEC_AT(&lg->made, const tsl_func *, i);
    if (tsl_func_equal(f, g, NULL, 0))
      return g;
  }
  TSL_VEC_PUSH(&lg->made, const tsl_func *, f);
  m->tir = tsl_module_with(m->arena, m->tir, f);
  return f;
}

static const tsl_rx_expr *expr(tsl_rx_mutator *m, const tsl_rx_expr *e) {
  const tsl_rx_expr *r = tsl_rx_mutate_expr_children(m, e);
  if (m->status || r->kind != TSL_RX_EXPR_CALL || r->op == TSL_RX_OP_CALL_TIR ||
      r->op == TSL_RX_OP_CALL_DPS_PACKED)
    return r;
  if (r->op == TSL_RX_OP_CONCAT && r->args[0]->kind != TSL_RX_EXPR_TUPLE &&
      r->args[0]->sinfo->kind == TSL_RX_SINFO_TUPLE) {
    /* a tuple value: its fields, written in place */
    uint32_t n = r->args[0]->sinfo->n_fields;
    const tsl_rx_expr **fs = TSL_NEW_ARRAY(m->arena, const tsl_rx_expr *, n ? n : 1);
    for (uint32_t i = 0; i < n; i++)
      fs[i] = tsl_rx_tuple_get(m->arena, r->args[0], i, NULL);
    const tsl_rx_expr *t = tsl_rx_tuple(m->arena, n, fs);
    const tsl_rx_expr *c = tsl_rx_op_call(m->arena, TSL_RX_OP_CONCAT, 1, &t, r->attrs, NULL);
    r = c ? c : r;
  }
  const tsl_func *f = prim_func_for(m, r);
  if (!f)
    return r;
  tsl_diag d = {0};
  /* R.concat's operand is a tuple: its fields are the prim_func's inputs */
  const tsl_rx_expr *ins = r->op == TSL_RX_OP_CONCAT
                               ? r->args[0]
                               : tsl_rx_tuple(m->arena, r->n_args, r->args);
  /* a tuple-valued operator (batch_norm, split): one output per field */
  int tuple = r->sinfo->kind == TSL_RX_SINFO_TUPLE;
  const tsl_rx_expr *call =
      tsl_rx_dps_call(m->arena, m->tir, TSL_RX_OP_CALL_TIR, tsl_rx_global(m->arena, f->name),
                      ins, tuple ? r->sinfo->n_fields : 1,
                      tuple ? r->sinfo->fields : &r->sinfo, &d);
  if (!call) {
    tsl_rx_mutator_fail(m, TSL_EINVALID, "R.%s: %s", tsl_rx_op_name((tsl_rx_op)r->op), d.text);
    return r;
  }
  return call;
}

static int run(void *user_data, const tsl_pass_ctx *ctx, const tsl_model *in,
               const tsl_model **out, tsl_diag *diag) {
  (void)user_data;
  legalizer lg = {.in = in};
  tsl_vec_init(&lg.made, sizeof(const tsl_func *), NULL);
  tsl_rx_mutator m = tsl_rx_mutator_make(ctx->arena, in->tir);
  m.expr = expr;
  m.user_data = &lg;
  m.diag = diag;
  *out = tsl_rx_mutate_model(&m, in);
  tsl_vec_free(&lg.made);
  if (m.status)
    return m.status;
  /* as TVM's block builder leaves it: each call a binding of its own */
  return pass_normalize_model(ctx, *out, out, diag);
}

const tsl_pass_vtable pass_legalize_vt = {sizeof(tsl_pass_vtable), run};
