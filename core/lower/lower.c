/*
 * The lowering driver (tsl_lower_func / tsl_lower_module) and the helpers
 * the passes share: failure recording, allocation records, integer casts.
 * The passes run in the order listed in lower_internal.h.
 */
#include "lower_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

void *lw_fail(lw_ctx *c, int status, const char *fmt, ...) {
  if (c->status)
    return NULL;
  c->status = status;
  if (c->diag) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tsl_diag_set(c->diag, status, "lowering '%s': %s", c->func && c->func->name ? c->func->name : "?",
                 msg);
  }
  return NULL;
}

lw_alloc *lw_alloc_find(const lw_ctx *c, const tsl_buffer *b) {
  intptr_t i = tsl_map_get_int(&c->alloc_index, b, -1);
  return i < 0 ? NULL : &TSL_VEC_AT(&c->allocs, lw_alloc, i);
}

const lw_view_use *lw_view_use_find(const lw_ctx *c, const tsl_var *v,
                                    const tsl_buffer *view) {
  for (uint32_t i = 0; i < c->view_uses.len; i++) {
    const lw_view_use *u = &TSL_VEC_AT(&c->view_uses, lw_view_use, i);
    if (v ? u->elem_offset == v : u->view == view)
      return u;
  }
  return NULL;
}

const tsl_expr *lw_cast(tsl_arena *a, const tsl_expr *e, tsl_dtype t) {
  if (!e || tsl_dtype_eq(e->dtype, t))
    return e;
  int64_t v;
  if (tsl_expr_is_const_int(e, &v) && tsl_dtype_is_int(t))
    return tsl_expr_int(a, t, v);
  return tsl_expr_cast(a, t, e);
}

static const tsl_expr *scalar_op(tsl_arena *a, tsl_expr_kind kind, const tsl_expr *x,
                                 const tsl_expr *y) {
  tsl_dtype t = lw_wider(x->dtype, y->dtype);
  return tsl_expr_binary(a, kind, lw_cast(a, x, t), lw_cast(a, y, t));
}

const tsl_expr *lw_index_op(tsl_arena *a, tsl_expr_kind kind, const tsl_expr *x,
                            const tsl_expr *y) {
  int xv = x->dtype.lanes > 1, yv = y->dtype.lanes > 1;
  if (!xv && !yv)
    return scalar_op(a, kind, x, y);
  if (xv && yv) {
    if (kind != TSL_EXPR_MUL && x->dtype.lanes == y->dtype.lanes &&
        (x->kind == TSL_EXPR_BROADCAST || y->kind == TSL_EXPR_BROADCAST)) {
      const tsl_expr *v = x->kind == TSL_EXPR_BROADCAST ? y : x;
      const tsl_expr *b = x->kind == TSL_EXPR_BROADCAST ? x : y;
      if (kind == TSL_EXPR_ADD || b == y)
        return lw_index_op(a, kind, v, b->args[0]);
    }
    return tsl_expr_binary(a, kind, x, y); /* a gather's index */
  }
  const tsl_expr *v = xv ? x : y, *s = xv ? y : x;
  uint16_t lanes = v->dtype.lanes;
  if (v->kind == TSL_EXPR_BROADCAST)
    return tsl_expr_broadcast(a, xv ? scalar_op(a, kind, v->args[0], s)
                                    : scalar_op(a, kind, s, v->args[0]), lanes);
  if (v->kind == TSL_EXPR_RAMP && kind == TSL_EXPR_MUL) {
    const tsl_expr *base = scalar_op(a, kind, v->args[0], s);
    return tsl_expr_ramp(a, base, lw_cast(a, scalar_op(a, kind, v->args[1], s), base->dtype),
                         lanes);
  }
  if (v->kind == TSL_EXPR_RAMP && (kind == TSL_EXPR_ADD || xv)) {
    const tsl_expr *base = scalar_op(a, kind, v->args[0], s);
    return tsl_expr_ramp(a, base, lw_cast(a, v->args[1], base->dtype), lanes);
  }
  return tsl_expr_binary(a, kind, xv ? x : tsl_expr_broadcast(a, x, lanes),
                         yv ? y : tsl_expr_broadcast(a, y, lanes));
}

tsl_dtype lw_wider(tsl_dtype a, tsl_dtype b) {
  if (!tsl_dtype_is_int(a))
    return b;
  if (!tsl_dtype_is_int(b))
    return a;
  return a.bits >= b.bits ? a : b;
}

/* ---- the driver -------------------------------------------------------- */

/* Size variables: the variables of parameter shapes that are not
 * parameters, in first-appearance order. */
typedef struct size_vars {
  tsl_map seen; /* parameters are marked seen first */
  tsl_vec vars; /* const tsl_var * */
} size_vars;

static int collect_size_var(const tsl_expr *e, void *ud) {
  size_vars *sv = ud;
  if (e->kind == TSL_EXPR_VAR && tsl_map_put(&sv->seen, e->u.var, NULL))
    TSL_VEC_PUSH(&sv->vars, const tsl_var *, e->u.var);
  return 0;
}

uint32_t tsl_func_size_vars(tsl_arena *arena, const tsl_func *f, const tsl_var *const **out) {
  size_vars sv;
  tsl_map_init(&sv.seen, arena);
  tsl_vec_init(&sv.vars, sizeof(const tsl_var *), arena);
  tsl_vec_reserve(&sv.vars, 1); /* never NULL */
  for (uint32_t i = 0; i < f->n_params; i++)
    if (!f->params[i].buffer && f->params[i].var)
      tsl_map_put(&sv.seen, f->params[i].var, NULL);
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_buffer *b = f->params[i].buffer;
    for (uint32_t d = 0; b && d < b->ndim; d++)
      tsl_expr_visit(b->shape[d], collect_size_var, &sv);
  }
  *out = sv.vars.data;
  return sv.vars.len;
}

static void ctx_init(lw_ctx *c, tsl_arena *arena, const tsl_func *f, tsl_diag *diag) {
  memset(c, 0, sizeof *c);
  c->arena = arena;
  c->tctx = tsl_arena_ctx(arena);
  c->diag = diag;
  c->func = f;
  tsl_vec_init(&c->allocs, sizeof(lw_alloc), arena);
  tsl_map_init(&c->alloc_index, arena);
  tsl_vec_init(&c->view_uses, sizeof(lw_view_use), arena);
}

static int check_args(tsl_arena *arena, const tsl_func *f, const void *out, tsl_diag *diag) {
  if (!arena || !f || !out)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_lower_func: NULL argument");
  if (!f->body)
    return tsl_diag_set(diag, TSL_EINVALID, "lowering '%s': the function has no body",
                        f->name ? f->name : "?");
  return TSL_OK;
}

int tsl_lower_func_structured(tsl_arena *arena, const tsl_func *f, const tsl_stmt **out,
                              tsl_diag *diag) {
  if (out)
    *out = NULL;
  int rc = check_args(arena, f, out, diag);
  if (rc)
    return rc;
  lw_ctx c;
  ctx_init(&c, arena, f, diag);
  const tsl_stmt *body = lw_unblock(&c, f->body);
  if (body)
    body = lw_place_allocs(&c, body);
  if (c.status || !body)
    return c.status ? c.status : tsl_diag_set(diag, TSL_EINVALID, "lowering failed");
  *out = body;
  return TSL_OK;
}

int tsl_lower_func(tsl_arena *arena, const tsl_func *f, const tsl_lower_opts *opts,
                   const tsl_lowered_func **out, tsl_diag *diag) {
  if (out)
    *out = NULL;
  int rc = check_args(arena, f, out, diag);
  if (rc)
    return rc;
  tsl_lower_opts o = {sizeof o, 1, 0}; /* a smaller (older) struct keeps the rest */
  if (opts)
    memcpy(&o, opts, opts->struct_size < sizeof o ? opts->struct_size : sizeof o);
  lw_ctx c;
  ctx_init(&c, arena, f, diag);

  tsl_param *params = TSL_NEW_ARRAY(arena, tsl_param, f->n_params + 1);
  const tsl_stmt *body = lw_unblock(&c, f->body);
  if (body)
    body = lw_place_allocs(&c, body);
  if (body && !c.status)
    body = lw_flatten(&c, body, params);
  if (body && !c.status && o.vectorize)
    body = lw_vectorize(&c, body);
  if (body && !c.status)
    body = lw_unroll(&c, body);
  if (body && !c.status && !o.no_promote)
    body = lw_promote(&c, body);
  if (c.status || !body)
    return c.status ? c.status : tsl_diag_set(diag, TSL_EINVALID, "lowering failed");


  tsl_lowered_func *lf = TSL_NEW(arena, tsl_lowered_func);
  lf->struct_size = sizeof *lf;
  lf->name = f->name;
  lf->source = f;
  lf->n_params = f->n_params;
  lf->params = params;
  lf->n_size_vars = tsl_func_size_vars(arena, f, &lf->size_vars);
  lf->body = body;
  lf->flops = tsl_func_flops(f);
  *out = lf;
  return TSL_OK;
}

int tsl_lower_module(tsl_arena *arena, const tsl_module *m, const tsl_lower_opts *opts,
                     const tsl_lowered_module **out, tsl_diag *diag) {
  if (out)
    *out = NULL;
  if (!arena || !m || !out)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_lower_module: NULL argument");
  const tsl_lowered_func **fs = TSL_NEW_ARRAY(arena, const tsl_lowered_func *, m->n_funcs + 1);
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    int rc = tsl_lower_func(arena, m->funcs[i], opts, &fs[i], diag);
    if (rc)
      return rc;
  }
  tsl_lowered_module *lm = TSL_NEW(arena, tsl_lowered_module);
  lm->struct_size = sizeof *lm;
  lm->n_funcs = m->n_funcs;
  lm->funcs = fs;
  *out = lm;
  return TSL_OK;
}
