/*
 * The lowering driver (tsl_lower_func / tsl_lower_module) and the helpers
 * the passes share: pointer maps, vectors, failure recording, integer casts.
 * The passes run in the order listed in lower_internal.h.
 */
#include "lower_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

static uint32_t map_hash(const void *k, uint32_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(h >> 32) & (cap - 1);
}

static uint32_t map_slot(const lw_map *m, const void *k) {
  uint32_t i = map_hash(k, m->cap);
  while (m->keys[i] && m->keys[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

void lw_map_free(lw_map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

const void *lw_map_get(const lw_map *m, const void *key) {
  if (!m->cap)
    return NULL;
  uint32_t i = map_slot(m, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

const void *lw_map_put(lw_map *m, const void *key, const void *val) {
  if ((m->n + 1) * 2 > m->cap) {
    lw_map old = *m;
    m->cap = m->cap ? m->cap * 2 : 32;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->vals = calloc(m->cap, sizeof *m->vals);
    if (!m->keys || !m->vals)
      abort();
    m->n = 0;
    for (uint32_t i = 0; i < old.cap; i++)
      if (old.keys[i]) {
        uint32_t j = map_slot(m, old.keys[i]);
        m->keys[j] = old.keys[i];
        m->vals[j] = old.vals[i];
        m->n++;
      }
    free(old.keys);
    free(old.vals);
  }
  uint32_t i = map_slot(m, key);
  const void *prev = m->keys[i] ? m->vals[i] : NULL;
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->n++;
  }
  m->vals[i] = val;
  return prev;
}

void lw_vec_push(lw_vec *v, const void *p) {
  if (v->n == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 8;
    v->items = realloc(v->items, sizeof *v->items * v->cap);
    if (!v->items)
      abort();
  }
  v->items[v->n++] = p;
}

void lw_vec_free(lw_vec *v) {
  free(v->items);
  memset(v, 0, sizeof *v);
}

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

int lw_alloc_find(const lw_ctx *c, const tsl_buffer *b) {
  for (uint32_t i = 0; i < c->n_allocs; i++)
    if (c->allocs[i].buffer == b)
      return (int)i;
  return -1;
}

const tsl_expr *lw_cast(tsl_arena *a, const tsl_expr *e, tsl_dtype t) {
  if (!e || tsl_dtype_eq(e->dtype, t))
    return e;
  int64_t v;
  if (tsl_expr_is_const_int(e, &v) && tsl_dtype_is_int(t))
    return tsl_expr_int(a, t, v);
  return tsl_expr_cast(a, t, e);
}

tsl_dtype lw_wider(tsl_dtype a, tsl_dtype b) {
  if (!tsl_dtype_is_int(a))
    return b;
  if (!tsl_dtype_is_int(b))
    return a;
  return a.bits >= b.bits ? a : b;
}

/* ---- the driver -------------------------------------------------------- */

static int has_var(const lw_vec *v, const tsl_var *x) {
  for (uint32_t i = 0; i < v->n; i++)
    if (v->items[i] == x)
      return 1;
  return 0;
}

static int collect_size_var(const tsl_expr *e, void *ud) {
  lw_vec *v = ud;
  if (e->kind == TSL_EXPR_VAR && !has_var(v, e->u.var))
    lw_vec_push(v, e->u.var);
  return 0;
}

int tsl_lower_func(tsl_arena *arena, const tsl_func *f, const tsl_lower_opts *opts,
                   const tsl_lowered_func **out, tsl_diag *diag) {
  if (out)
    *out = NULL;
  if (!arena || !f || !out)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_lower_func: NULL argument");
  if (!f->body)
    return tsl_diag_set(diag, TSL_EINVALID, "lowering '%s': the function has no body",
                        f->name ? f->name : "?");
  int vectorize = opts ? opts->vectorize : 1;
  lw_ctx c;
  memset(&c, 0, sizeof c);
  c.arena = arena;
  c.tctx = tsl_arena_ctx(arena);
  c.diag = diag;
  c.func = f;

  tsl_param *params = TSL_NEW_ARRAY(arena, tsl_param, f->n_params + 1);
  const tsl_stmt *body = lw_unblock(&c, f->body);
  if (body)
    body = lw_place_allocs(&c, body);
  if (body && !c.status)
    body = lw_flatten(&c, body, params);
  if (body && !c.status && vectorize)
    body = lw_vectorize(&c, body);
  if (body && !c.status)
    body = lw_unroll(&c, body);
  for (uint32_t i = 0; i < c.n_allocs; i++)
    lw_vec_free(&c.allocs[i].pinned_loops);
  if (c.status || !body)
    return c.status ? c.status : tsl_diag_set(diag, TSL_EINVALID, "lowering failed");

  /* size variables: symbolic shape vars that are not parameters */
  lw_vec params_vars = {0}, sizes = {0};
  for (uint32_t i = 0; i < f->n_params; i++)
    if (!f->params[i].buffer && f->params[i].var)
      lw_vec_push(&params_vars, f->params[i].var);
  lw_vec all = {0};
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_buffer *b = f->params[i].buffer;
    for (uint32_t d = 0; b && d < b->ndim; d++)
      tsl_expr_visit(b->shape[d], collect_size_var, &all);
  }
  for (uint32_t i = 0; i < all.n; i++)
    if (!has_var(&params_vars, all.items[i]))
      lw_vec_push(&sizes, all.items[i]);
  const tsl_var **sv = TSL_NEW_ARRAY(arena, const tsl_var *, sizes.n + 1);
  for (uint32_t i = 0; i < sizes.n; i++)
    sv[i] = sizes.items[i];

  tsl_lowered_func *lf = TSL_NEW(arena, tsl_lowered_func);
  lf->struct_size = sizeof *lf;
  lf->name = f->name;
  lf->source = f;
  lf->n_params = f->n_params;
  lf->params = params;
  lf->n_size_vars = sizes.n;
  lf->size_vars = sv;
  lf->body = body;
  lf->flops = tsl_func_flops(f);
  lw_vec_free(&params_vars);
  lw_vec_free(&sizes);
  lw_vec_free(&all);
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
