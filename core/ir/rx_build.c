/*
 * Builders of Relax expressions, functions and models
 * (tessel/relax_build.h): struct info through rx_infer.c, as the parser
 * gets it.
 */
#include "rx_internal.h"
#include "tessel/relax_build.h"

#include <string.h>

static tsl_rx_expr *new_expr(tsl_arena *a, uint32_t kind, const tsl_rx_sinfo *s) {
  tsl_rx_expr *e = TSL_NEW(a, tsl_rx_expr);
  e->kind = kind;
  e->sinfo = s ? s : rx_sinfo_new(a, TSL_RX_SINFO_OBJECT);
  return e;
}

static const void *copy(tsl_arena *a, const void *src, size_t n, size_t size) {
  return n ? tsl_arena_dup(a, src, n * size) : tsl_arena_alloc(a, size);
}

const tsl_rx_sinfo *tsl_rx_tensor_sinfo(tsl_arena *a, tsl_dtype dtype, int32_t ndim,
                                        const tsl_expr *const *shape) {
  tsl_rx_sinfo *s = rx_sinfo_new(a, TSL_RX_SINFO_TENSOR);
  s->dtype = dtype;
  s->ndim = ndim < 0 ? -1 : ndim;
  if (shape && ndim >= 0)
    s->shape = copy(a, shape, (size_t)ndim, sizeof *shape);
  return s;
}

int tsl_rx_sinfo_equal(const tsl_rx_sinfo *a, const tsl_rx_sinfo *b) {
  if (a == b)
    return 1;
  if (!a || !b || a->kind != b->kind || a->ndim != b->ndim || !tsl_dtype_eq(a->dtype, b->dtype) ||
      !a->shape != !b->shape || a->n_fields != b->n_fields)
    return 0;
  for (int32_t d = 0; a->shape && d < a->ndim; d++)
    if (!rx_dim_equal(a->shape[d], b->shape[d]))
      return 0;
  for (uint32_t i = 0; i < a->n_fields; i++)
    if (!tsl_rx_sinfo_equal(a->fields[i], b->fields[i]))
      return 0;
  return 1;
}

tsl_rx_var *tsl_rx_var_new(tsl_arena *a, const char *name, const tsl_rx_sinfo *sinfo,
                           int is_dataflow) {
  tsl_rx_var *v = TSL_NEW(a, tsl_rx_var);
  v->name = tsl_intern(tsl_arena_ctx(a), name);
  v->is_dataflow = is_dataflow != 0;
  v->sinfo = sinfo ? sinfo : rx_sinfo_new(a, TSL_RX_SINFO_OBJECT);
  return v;
}

const tsl_rx_expr *tsl_rx_var_ref(tsl_arena *a, const tsl_rx_var *v) {
  tsl_rx_expr *e = new_expr(a, TSL_RX_EXPR_VAR, v->sinfo);
  e->var = v;
  return e;
}

const tsl_rx_expr *tsl_rx_constant(tsl_arena *a, uint32_t index, const tsl_rx_sinfo *sinfo) {
  tsl_rx_expr *e = new_expr(a, TSL_RX_EXPR_CONSTANT, sinfo);
  e->index = index;
  return e;
}

static const tsl_rx_expr *named(tsl_arena *a, uint32_t kind, const char *name) {
  tsl_rx_expr *e = new_expr(a, kind, NULL);
  e->name = tsl_intern(tsl_arena_ctx(a), name);
  return e;
}

const tsl_rx_expr *tsl_rx_global(tsl_arena *a, const char *name) {
  return named(a, TSL_RX_EXPR_GLOBAL, name);
}

const tsl_rx_expr *tsl_rx_extern(tsl_arena *a, const char *name) {
  return named(a, TSL_RX_EXPR_EXTERN, name);
}

const tsl_rx_expr *tsl_rx_tuple(tsl_arena *a, uint32_t n, const tsl_rx_expr *const *fields) {
  tsl_rx_expr *e = new_expr(a, TSL_RX_EXPR_TUPLE, NULL);
  e->n_args = n;
  e->args = copy(a, fields, n, sizeof *fields);
  e->sinfo = rx_tuple_sinfo(a, n, e->args);
  return e;
}

const tsl_rx_expr *tsl_rx_tuple_get(tsl_arena *a, const tsl_rx_expr *t, uint32_t index,
                                    tsl_diag *diag) {
  if (t->sinfo->kind != TSL_RX_SINFO_TUPLE || index >= t->sinfo->n_fields) {
    tsl_diag_set(diag, TSL_EINVALID, "index %u of a value that is not a tuple of more than %u "
                 "fields", index, index);
    return NULL;
  }
  tsl_rx_expr *e = new_expr(a, TSL_RX_EXPR_TUPLE_GET, t->sinfo->fields[index]);
  e->n_args = 1;
  e->args = copy(a, &t, 1, sizeof t);
  e->index = index;
  return e;
}

static const tsl_rx_expr *failed(const rx_err *err, tsl_diag *diag) {
  if (err->hint[0])
    tsl_diag_set(diag, TSL_EINVALID, "%s (%s)", err->msg, err->hint);
  else
    tsl_diag_set(diag, TSL_EINVALID, "%s", err->msg);
  return NULL;
}

const tsl_rx_expr *tsl_rx_op_call(tsl_arena *a, tsl_rx_op op, uint32_t n,
                                  const tsl_rx_expr *const *args, tsl_attrs attrs,
                                  tsl_diag *diag) {
  if ((unsigned)op >= TSL_RX_OP_COUNT || op == TSL_RX_OP_CALL_TIR ||
      op == TSL_RX_OP_CALL_DPS_PACKED) {
    tsl_diag_set(diag, TSL_EINVALID, "tsl_rx_op_call: %u is not an operator", (unsigned)op);
    return NULL;
  }
  rx_err err = {0};
  const tsl_rx_sinfo *s = rx_infer_op(a, op, n, args, attrs, &err);
  if (!s)
    return failed(&err, diag);
  tsl_rx_expr *e = new_expr(a, TSL_RX_EXPR_CALL, s);
  e->op = op;
  e->attrs = attrs;
  e->n_args = n;
  e->args = copy(a, args, n, sizeof *args);
  return e;
}

const tsl_rx_expr *tsl_rx_dps_call(tsl_arena *a, const tsl_module *tir, tsl_rx_op op,
                                   const tsl_rx_expr *callee, const tsl_rx_expr *args,
                                   uint32_t n_out, const tsl_rx_sinfo *const *outs,
                                   tsl_diag *diag) {
  if (op != TSL_RX_OP_CALL_TIR && op != TSL_RX_OP_CALL_DPS_PACKED) {
    tsl_diag_set(diag, TSL_EINVALID, "tsl_rx_dps_call: R.%s is not a destination-passing call",
                 tsl_rx_op_name(op));
    return NULL;
  }
  const tsl_rx_sinfo *const *o = copy(a, outs, n_out, sizeof *outs);
  rx_err err = {0};
  const tsl_rx_sinfo *s = rx_infer_dps(a, tir, op, callee, args, n_out, o, &err);
  if (!s)
    return failed(&err, diag);
  tsl_rx_expr *e = new_expr(a, TSL_RX_EXPR_CALL, s);
  const tsl_rx_expr *ops[2] = {callee, args};
  e->op = op;
  e->n_args = 2;
  e->args = copy(a, ops, 2, sizeof *ops);
  e->n_sinfo_args = n_out;
  e->sinfo_args = o;
  return e;
}

const tsl_rx_expr *tsl_rx_with_args(tsl_arena *a, const tsl_module *tir, const tsl_rx_expr *e,
                                    const tsl_rx_expr *const *args, tsl_diag *diag) {
  int same = 1;
  for (uint32_t i = 0; i < e->n_args; i++)
    same &= args[i] == e->args[i];
  if (same)
    return e;
  switch (e->kind) {
  case TSL_RX_EXPR_TUPLE:
    return tsl_rx_tuple(a, e->n_args, args);
  case TSL_RX_EXPR_TUPLE_GET:
    return tsl_rx_tuple_get(a, args[0], e->index, diag);
  case TSL_RX_EXPR_CALL:
    if (e->op == TSL_RX_OP_CALL_TIR || e->op == TSL_RX_OP_CALL_DPS_PACKED)
      return tsl_rx_dps_call(a, tir, (tsl_rx_op)e->op, args[0], args[1], e->n_sinfo_args,
                             e->sinfo_args, diag);
    return tsl_rx_op_call(a, (tsl_rx_op)e->op, e->n_args, args, e->attrs, diag);
  default:
    return e; /* leaves have no operands */
  }
}

const tsl_rx_func *tsl_rx_func_new(tsl_arena *a, const char *name, uint32_t n_params,
                                   const tsl_rx_var *const *params, uint32_t n_size_vars,
                                   const tsl_var *const *size_vars, uint32_t n_blocks,
                                   const tsl_rx_block *blocks, const tsl_rx_expr *ret,
                                   const tsl_rx_sinfo *ret_sinfo) {
  tsl_rx_func *f = TSL_NEW(a, tsl_rx_func);
  f->name = tsl_intern(tsl_arena_ctx(a), name);
  f->n_params = n_params;
  f->params = copy(a, params, n_params, sizeof *params);
  f->n_size_vars = n_size_vars;
  f->size_vars = copy(a, size_vars, n_size_vars, sizeof *size_vars);
  f->n_blocks = n_blocks;
  f->blocks = copy(a, blocks, n_blocks, sizeof *blocks);
  f->ret = ret;
  f->ret_sinfo = ret_sinfo ? ret_sinfo : ret->sinfo;
  return f;
}

tsl_model *tsl_model_new(tsl_arena *a, const tsl_module *tir, uint32_t n_rx_funcs,
                         const tsl_rx_func *const *rx_funcs, uint32_t n_constants,
                         const tsl_weights *constants) {
  tsl_model *m = TSL_NEW(a, tsl_model);
  m->struct_size = sizeof *m;
  m->arena = a;
  m->tir = tir;
  m->n_rx_funcs = n_rx_funcs;
  m->rx_funcs = copy(a, rx_funcs, n_rx_funcs, sizeof *rx_funcs);
  m->n_constants = n_constants;
  m->constants = constants;
  return m;
}

const tsl_module *tsl_module_with(tsl_arena *a, const tsl_module *tir, const tsl_func *f) {
  tsl_module *m = TSL_NEW(a, tsl_module);
  *m = *tir;
  m->arena = a;
  const tsl_func **fs = TSL_NEW_ARRAY(a, const tsl_func *, tir->n_funcs + 1);
  uint32_t n = 0;
  int replaced = 0;
  for (uint32_t i = 0; i < tir->n_funcs; i++) {
    int same = !strcmp(tir->funcs[i]->name, f->name);
    fs[n++] = same ? f : tir->funcs[i];
    replaced |= same;
  }
  if (!replaced)
    fs[n++] = f;
  m->n_funcs = n;
  m->funcs = fs;
  m->is_bare_func = 0;
  if (!m->name)
    m->name = tsl_intern(tsl_arena_ctx(a), "Module");
  return m;
}

int tsl_rx_visit_expr(const tsl_rx_expr *e, int (*fn)(const tsl_rx_expr *e, void *user_data),
                      void *user_data) {
  int rc = fn(e, user_data);
  for (uint32_t i = 0; !rc && i < e->n_args; i++)
    rc = tsl_rx_visit_expr(e->args[i], fn, user_data);
  return rc;
}

int tsl_rx_visit_func(const tsl_rx_func *f, int (*fn)(const tsl_rx_expr *e, void *user_data),
                      void *user_data) {
  int rc = 0;
  for (uint32_t b = 0; !rc && b < f->n_blocks; b++)
    for (uint32_t i = 0; !rc && i < f->blocks[b].n_bindings; i++)
      rc = tsl_rx_visit_expr(f->blocks[b].bindings[i].value, fn, user_data);
  return rc ? rc : tsl_rx_visit_expr(f->ret, fn, user_data);
}
