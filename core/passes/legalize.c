/*
 * legalize (TVM's LegalizeOps): every operator call becomes R.call_tir of
 * a prim_func (legalize_ops.c writes its text, the TensorIR parser builds
 * it). Structurally equal prim_funcs are made once and shared, as TVM's
 * block builder does; names follow TVM's: the hint, then hint1, hint2, ...
 * when taken.
 */
#include "passes_internal.h"

#include "tessel/analysis.h"
#include "tessel/library.h"
#include "tessel/script.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct legalizer {
  const tsl_model *in;
  tsl_vec made; /* const tsl_func *: the prim_funcs made so far */
  const tsl_registry *reg; /* library functions (may be NULL) */
  tsl_map libs;            /* library name (interned) -> its prim_func in the module */
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

/* `f` (a library function's generic prim_func) specialized to the
 * constant shapes of the tensors `call` passes it (TVM's legalization
 * writes concrete shapes for a static model); `f` itself when a size is
 * symbolic or not a dimension of a buffer. */
static const tsl_func *specialize_to(tsl_arena *a, const tsl_func *f, const tsl_rx_expr *call) {
  const tsl_rx_expr *ins = call->args[1];
  uint32_t n_in = ins->kind == TSL_RX_EXPR_TUPLE ? ins->n_args : 1;
  if (n_in + call->n_sinfo_args != f->n_params)
    return f;
  const char *names[32];
  char values[32][24];
  const char *vals[32];
  uint32_t n = 0;
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_buffer *b = f->params[i].buffer;
    const tsl_rx_sinfo *si = i < n_in ? (ins->kind == TSL_RX_EXPR_TUPLE ? ins->args[i] : ins)->sinfo
                                      : call->sinfo_args[i - n_in];
    for (uint32_t d = 0; b && si->shape && d < b->ndim && (int32_t)d < si->ndim; d++) {
      int64_t v;
      if (b->shape[d]->kind != TSL_EXPR_VAR || !tsl_expr_is_const_int(si->shape[d], &v))
        continue;
      int seen = 0;
      for (uint32_t k = 0; k < n; k++)
        seen |= !strcmp(names[k], b->shape[d]->u.var->name);
      if (seen || n == 32)
        continue;
      names[n] = b->shape[d]->u.var->name;
      snprintf(values[n], sizeof values[n], "%lld", (long long)v);
      vals[n] = values[n];
      n++;
    }
  }
  const tsl_func *out = NULL;
  tsl_diag d = {0};
  if (!n || tsl_func_specialize(a, f, n, names, vals, &out, &d))
    return f;
  char free_names[8];
  return tsl_func_free_names(out, free_names, sizeof free_names) ? f : out;
}

/* R.call_dps_packed("env.f", ...) of a library function with a prim_func
 * (tessel/library.h): R.call_tir of it, specialized to the call's shapes
 * when they are constant, added to the module under the name with '.' as
 * '_' (env_linear, env_linear1, ...; equal ones shared). A call whose
 * shapes do not fit it stays as it is. */
static const tsl_rx_expr *library_call(tsl_rx_mutator *m, const tsl_rx_expr *r) {
  legalizer *lg = m->user_data;
  const char *name = r->args[0]->name;
  const tsl_component *c = name && lg->reg && !(m->tir && tsl_module_find(m->tir, name))
                               ? tsl_registry_find(lg->reg, TSL_COMPONENT_LIBRARY, name)
                               : NULL;
  const tsl_library_vtable *vt = c ? c->vtable : NULL;
  if (!vt || vt->struct_size <= offsetof(tsl_library_vtable, prim_func) || !vt->prim_func)
    return r;
  tsl_str key = tsl_intern(tsl_arena_ctx(m->arena), name);
  const tsl_func *generic = tsl_map_get(&lg->libs, key);
  if (!generic) {
    const tsl_module *mod = NULL;
    tsl_diag d = {0};
    if (tsl_parse(m->arena, name, vt->prim_func, strlen(vt->prim_func), &mod, &d) ||
        mod->n_funcs != 1) {
      tsl_rx_mutator_fail(m, TSL_EINVALID, "library function %s: its prim_func does not "
                          "parse: %s", name, d.text[0] ? d.text : "not one prim_func");
      return r;
    }
    generic = mod->funcs[0];
    tsl_map_put(&lg->libs, key, (void *)generic);
  }
  const tsl_func *f = specialize_to(m->arena, generic, r);
  const tsl_func *same = NULL;
  for (uint32_t i = 0; i < lg->made.len && !same; i++) {
    const tsl_func *g = TSL_VEC_AT(&lg->made, const tsl_func *, i);
    if (tsl_func_equal(f, g, NULL, 0))
      same = g;
  }
  if (!same) {
    char hint[128], fname[128];
    snprintf(hint, sizeof hint, "%s", name);
    for (char *p = hint; *p; p++)
      if (*p == '.' || *p == '-')
        *p = '_';
    unique_name(m, lg, hint, fname, sizeof fname);
    tsl_func *nf = TSL_NEW(m->arena, tsl_func);
    *nf = *f;
    nf->name = tsl_intern(tsl_arena_ctx(m->arena), fname);
    TSL_VEC_PUSH(&lg->made, const tsl_func *, nf);
    same = nf;
  }
  tsl_diag d = {0};
  const tsl_module *tir = tsl_module_with(m->arena, m->tir, same);
  const tsl_rx_expr *call =
      tsl_rx_dps_call(m->arena, tir, TSL_RX_OP_CALL_TIR, tsl_rx_global(m->arena, same->name),
                      r->args[1], r->n_sinfo_args, r->sinfo_args, &d);
  if (call)
    m->tir = tir;
  return call ? call : r;
}

static const tsl_rx_expr *expr(tsl_rx_mutator *m, const tsl_rx_expr *e) {
  const tsl_rx_expr *r = tsl_rx_mutate_expr_children(m, e);
  /* a library function: R.call_dps_packed("env.f", ...), or the course's
   * older R.call_tir("env.f", ...) naming one */
  if (!m->status && r->kind == TSL_RX_EXPR_CALL &&
      (r->op == TSL_RX_OP_CALL_DPS_PACKED ||
       (r->op == TSL_RX_OP_CALL_TIR && r->args[0]->kind == TSL_RX_EXPR_EXTERN)))
    return library_call(m, r);
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
  legalizer lg = {.in = in, .reg = ctx->registry};
  tsl_vec_init(&lg.made, sizeof(const tsl_func *), NULL);
  tsl_map_init(&lg.libs, NULL);
  tsl_rx_mutator m = tsl_rx_mutator_make(ctx->arena, in->tir);
  m.expr = expr;
  m.user_data = &lg;
  m.diag = diag;
  *out = tsl_rx_mutate_model(&m, in);
  tsl_vec_free(&lg.made);
  tsl_map_free(&lg.libs);
  if (m.status)
    return m.status;
  /* as TVM's block builder leaves it: each call a binding of its own */
  return pass_normalize_model(ctx, *out, out, diag);
}

const tsl_pass_vtable pass_legalize_vt = {sizeof(tsl_pass_vtable), run};
