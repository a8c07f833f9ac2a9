/*
 * Buffer flattening and index simplification.
 *
 * Every buffer (parameters, allocations) gets one flat twin with ndim 1:
 * shape = number of elements (the extent of the addresses it spans when
 * strides are declared), no strides, no elem_offset, same name, dtype and
 * scope. An access b[i0, .., in-1] becomes flat[sum(i_d * stride_d) +
 * elem_offset], stride_d the declared stride or the row-major one. Stride
 * and elem_offset variables of parameters (bound by the caller's dense
 * tensors) become the row-major strides and 0. Indices, loop bounds, let
 * values and conditions are simplified with the enclosing loops' ranges
 * known (the variable of a loop of extent 1 is replaced by its minimum in
 * these expressions; the loop itself stays); an IF whose condition folds
 * to a constant keeps only the branch taken. Axis separators are ignored:
 * every target so far has flat memory (core/lower/README.md).
 *
 * Two mutators: `ix` rewrites accesses inside an expression (and the
 * parameter variables); `m` walks the statements, its expression hook is
 * `ix` followed by simplification, its buffer hook gives ALLOCATE the flat
 * buffer.
 */
#include "lower_internal.h"

#include <string.h>

typedef struct fl {
  tsl_mutator m;  /* statements; expressions flattened and simplified */
  tsl_mutator ix; /* accesses in an expression; vars = pvars */
  lw_ctx *c;
  tsl_analyzer *an;
  tsl_map flat;  /* buffer -> flat buffer */
  tsl_map pvars; /* parameter stride / offset var -> expr */
} fl;

static const tsl_expr *pre(fl *f, const tsl_expr *e) {
  return f->pvars.n && e ? tsl_mutate_expr(&f->ix, e) : e;
}

static const tsl_expr *simp(fl *f, const tsl_expr *e) {
  return e ? tsl_simplify(f->an, f->c->arena, e) : e;
}

/* Row-major stride of dim d of b (or its declared stride). */
static const tsl_expr *stride_of(fl *f, const tsl_buffer *b, uint32_t d) {
  tsl_arena *a = f->c->arena;
  if (b->strides)
    return pre(f, b->strides[d]);
  const tsl_expr *s = NULL;
  for (uint32_t k = d + 1; k < b->ndim; k++) {
    const tsl_expr *x = pre(f, b->shape[k]);
    if (!s)
      s = x;
    else {
      tsl_dtype t = lw_wider(s->dtype, x->dtype);
      s = tsl_expr_binary(a, TSL_EXPR_MUL, lw_cast(a, s, t), lw_cast(a, x, t));
    }
  }
  return s ? s : tsl_expr_i32(a, 1);
}

static const tsl_buffer *flat_of(fl *f, const tsl_buffer *b) {
  const tsl_buffer *r = tsl_map_get(&f->flat, b);
  if (r)
    return r;
  tsl_arena *a = f->c->arena;
  const tsl_expr *size = NULL;
  if (b->strides) {
    /* addresses span elem_offset + sum((shape_d - 1) * stride_d) + 1 */
    size = tsl_expr_i32(a, 1);
    for (uint32_t d = 0; d < b->ndim; d++) {
      const tsl_expr *sh = pre(f, b->shape[d]), *st = stride_of(f, b, d);
      tsl_dtype t = lw_wider(lw_wider(sh->dtype, st->dtype), size->dtype);
      const tsl_expr *term = tsl_expr_binary(
          a, TSL_EXPR_MUL,
          tsl_expr_binary(a, TSL_EXPR_SUB, lw_cast(a, sh, t), tsl_expr_int(a, t, 1)),
          lw_cast(a, st, t));
      size = tsl_expr_binary(a, TSL_EXPR_ADD, lw_cast(a, size, t), term);
    }
    if (b->elem_offset) {
      const tsl_expr *eo = pre(f, b->elem_offset);
      tsl_dtype t = lw_wider(size->dtype, eo->dtype);
      size = tsl_expr_binary(a, TSL_EXPR_ADD, lw_cast(a, size, t), lw_cast(a, eo, t));
    }
  } else if (b->ndim == 0) {
    size = tsl_expr_i32(a, 1);
  } else {
    /* compact row-major: shape[0] times the stride of dimension 0 */
    const tsl_expr *sh = pre(f, b->shape[0]), *st = stride_of(f, b, 0);
    tsl_dtype t = lw_wider(sh->dtype, st->dtype);
    size = tsl_expr_binary(a, TSL_EXPR_MUL, lw_cast(a, sh, t), lw_cast(a, st, t));
  }
  size = simp(f, size);
  r = tsl_buffer_new(a, b->name, b->dtype, 1, &size, NULL, NULL, b->scope, b->align,
                     b->offset_factor);
  tsl_map_put(&f->flat, b, (void *)r);
  return r;
}

static const tsl_buffer *flat_hook(tsl_mutator *m, const tsl_buffer *b) {
  return flat_of(m->user_data, b);
}

/* Flat index of an access (indices already rewritten). */
static const tsl_expr *flat_index(fl *f, const tsl_buffer *b, uint32_t n,
                                  const tsl_expr *const *idx) {
  tsl_arena *a = f->c->arena;
  if (n == 1 && !b->strides && !b->elem_offset)
    return simp(f, idx[0]);
  tsl_dtype t = TSL_INT32;
  for (uint32_t d = 0; d < n; d++)
    t = lw_wider(t, tsl_dtype_scalar(idx[d]->dtype));
  const tsl_expr *sum = NULL;
  for (uint32_t d = 0; d < n; d++) {
    const tsl_expr *st = stride_of(f, b, d);
    int64_t one;
    const tsl_expr *term = tsl_expr_is_const_int(st, &one) && one == 1
                               ? idx[d]
                               : lw_index_op(a, TSL_EXPR_MUL, idx[d], lw_cast(a, st, t));
    term = term->dtype.lanes > 1 ? term : lw_cast(a, term, t);
    sum = sum ? lw_index_op(a, TSL_EXPR_ADD, sum, term) : term;
  }
  if (b->elem_offset) {
    const tsl_expr *eo = lw_cast(a, pre(f, b->elem_offset), t);
    sum = sum ? lw_index_op(a, TSL_EXPR_ADD, sum, eo) : eo;
  }
  if (!sum)
    sum = tsl_expr_int(a, t, 0);
  return simp(f, sum);
}

static const tsl_expr *ix_expr(tsl_mutator *m, const tsl_expr *e) {
  if (e->kind == TSL_EXPR_BUFFER_DATA)
    return tsl_expr_buffer_data(m->arena, flat_of(m->user_data, e->u.buffer));
  if (!e->n_args && e->kind != TSL_EXPR_VAR && e->kind != TSL_EXPR_LOAD)
    return e; /* a constant */
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (e->kind != TSL_EXPR_LOAD)
    return r;
  const tsl_expr *i = flat_index(m->user_data, e->u.buffer, e->n_args, r->args);
  return tsl_expr_load(m->arena, flat_of(m->user_data, e->u.buffer), 1, &i);
}

/* A statement's expression: accesses flattened, then simplified. */
static const tsl_expr *fl_value(tsl_mutator *m, const tsl_expr *e) {
  fl *f = m->user_data;
  return simp(f, tsl_mutate_expr(&f->ix, e));
}

static const tsl_stmt *fl_stmt(tsl_mutator *m, const tsl_stmt *s) {
  fl *f = m->user_data;
  tsl_arena *a = m->arena;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_expr *mn = tsl_mutate_expr(m, s->u.loop.min);
    const tsl_expr *ext = tsl_mutate_expr(m, s->u.loop.extent);
    int64_t one;
    if (tsl_expr_is_const_int(ext, &one) && one == 1)
      tsl_analyzer_bind_value(f->an, s->u.loop.loop_var, mn); /* unit loop */
    else
      tsl_analyzer_bind(f->an, s->u.loop.loop_var, mn, ext);
    const tsl_stmt *body = tsl_mutate_stmt(m, s->u.loop.body);
    tsl_analyzer_unbind(f->an, s->u.loop.loop_var);
    if (!body)
      return NULL;
    return tsl_stmt_for(a, s->u.loop.loop_var, mn, ext, (tsl_for_kind)s->u.loop.for_kind,
                        s->u.loop.thread_tag, s->u.loop.annotations, body);
  }
  case TSL_STMT_STORE: {
    uint32_t n = s->u.store.n_indices;
    const tsl_expr **idx = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
    for (uint32_t i = 0; i < n; i++)
      idx[i] = tsl_mutate_expr(&f->ix, s->u.store.indices[i]);
    const tsl_expr *ix = flat_index(f, s->u.store.buffer, n, idx);
    return tsl_stmt_store(a, flat_of(f, s->u.store.buffer), tsl_mutate_expr(m, s->u.store.value),
                          1, &ix);
  }
  case TSL_STMT_IF: {
    const tsl_expr *cond = tsl_mutate_expr(m, s->u.branch.cond);
    const tsl_stmt *t = s->u.branch.then_case, *e = s->u.branch.else_case;
    if (cond->kind == TSL_EXPR_INT_IMM && cond->dtype.lanes == 1) {
      const tsl_stmt *taken = cond->u.int_value ? t : e;
      return taken ? tsl_mutate_stmt(m, taken) : NULL;
    }
    t = tsl_mutate_stmt(m, t);
    e = e ? tsl_mutate_stmt(m, e) : NULL;
    if (!t)
      return e ? tsl_stmt_if(a, tsl_expr_unary(a, TSL_EXPR_NOT, cond), e, NULL) : NULL;
    return tsl_stmt_if(a, cond, t, e);
  }
  default:
    return tsl_mutate_stmt_children(m, s);
  }
}

const tsl_stmt *lw_flatten(lw_ctx *c, const tsl_stmt *body, tsl_param *params) {
  fl f;
  memset(&f, 0, sizeof f);
  f.c = c;
  f.an = tsl_analyzer_new(c->tctx);
  tsl_arena *a = c->arena;
  f.m = tsl_mutator_make(a);
  f.m.stmt = fl_stmt;
  f.m.expr = fl_value;
  f.m.buffer = flat_hook;
  f.m.user_data = &f;
  f.ix = tsl_mutator_make(a);
  f.ix.expr = ix_expr;
  f.ix.vars = &f.pvars;
  f.ix.user_data = &f;
  const tsl_func *fn = c->func;
  /* parameter strides / offsets are those of dense row-major tensors */
  for (uint32_t i = 0; i < fn->n_params; i++) {
    const tsl_buffer *b = fn->params[i].buffer;
    if (!b)
      continue;
    for (uint32_t d = 0; b->strides && d < b->ndim; d++) {
      const tsl_expr *st = b->strides[d];
      if (st->kind != TSL_EXPR_VAR || tsl_map_get(&f.pvars, st->u.var))
        continue;
      const tsl_expr *dense = NULL;
      for (uint32_t k = d + 1; k < b->ndim; k++)
        dense = dense ? tsl_expr_binary(a, TSL_EXPR_MUL, lw_cast(a, dense, st->dtype),
                                        lw_cast(a, b->shape[k], st->dtype))
                      : lw_cast(a, b->shape[k], st->dtype);
      tsl_map_put(&f.pvars, st->u.var,
                  (void *)(dense ? dense : tsl_expr_int(a, st->dtype, 1)));
    }
    const tsl_expr *eo = b->elem_offset;
    if (eo && eo->kind == TSL_EXPR_VAR && !tsl_map_get(&f.pvars, eo->u.var))
      tsl_map_put(&f.pvars, eo->u.var, (void *)tsl_expr_int(a, eo->dtype, 0));
  }
  for (uint32_t i = 0; i < fn->n_params; i++) {
    params[i] = fn->params[i];
    if (fn->params[i].buffer)
      params[i].buffer = flat_of(&f, fn->params[i].buffer);
  }
  const tsl_stmt *r = tsl_mutate_stmt(&f.m, body);
  if (!r)
    r = tsl_stmt_seq(a, 0, NULL);
  tsl_analyzer_free(f.an);
  tsl_map_free(&f.flat);
  tsl_map_free(&f.pvars);
  return r;
}
