/*
 * Block removal, the first lowering pass.
 *
 * Walks the scheduled body once and rebuilds it without BLOCK_REALIZE:
 * block iteration variables are replaced by their (already rewritten)
 * bindings, T.where predicates become IF statements, a block's init runs
 * under "every reduce iterator is at its domain's start" before the body,
 * and accesses through match_buffer views become accesses to the buffer
 * the view aliases (region minimums added; variables bound by the view's
 * declaration replaced by extents / strides / offsets). alloc_buffers are
 * recorded for alloc_place.c together with the loops they must stay
 * outside of. Every FOR is rebuilt, so each loop node is unique in the
 * result (alloc_place.c identifies loops by address).
 */
#include "lower_internal.h"

#include <string.h>

/* A match_buffer view resolved to the buffer that owns the memory. */
typedef struct view {
  const tsl_buffer *root;
  const tsl_expr **mins; /* root->ndim entries */
  uint32_t lead;         /* root dims before the view's first dim */
} view;

typedef struct ub {
  lw_ctx *c;
  lw_map subst; /* var -> expr */
  lw_map views; /* buffer -> view */
} ub;

static const tsl_expr *ub_expr(ub *u, const tsl_expr *e);

static const tsl_expr *add_int(tsl_arena *a, const tsl_expr *x,
                               const tsl_expr *y) {
  int64_t v;
  if (tsl_expr_is_const_int(y, &v) && v == 0)
    return x;
  if (tsl_expr_is_const_int(x, &v) && v == 0)
    return lw_cast(a, y, x->dtype);
  tsl_dtype t = lw_wider(x->dtype, y->dtype);
  return tsl_expr_binary(a, TSL_EXPR_ADD, lw_cast(a, x, t), lw_cast(a, y, t));
}

/* Indices into a view -> indices into its root buffer. */
static const tsl_expr **resolve_indices(ub *u, const view *vw, uint32_t n,
                                        const tsl_expr *const *idx) {
  tsl_arena *a = u->c->arena;
  uint32_t nd = vw->root->ndim;
  const tsl_expr **out = TSL_NEW_ARRAY(a, const tsl_expr *, nd ? nd : 1);
  for (uint32_t d = 0; d < nd; d++)
    out[d] = d < vw->lead ? vw->mins[d]
                          : add_int(a, idx[d - vw->lead], vw->mins[d]);
  (void)n;
  return out;
}

static const tsl_expr *ub_expr(ub *u, const tsl_expr *e) {
  if (!e)
    return e;
  if (e->kind == TSL_EXPR_VAR) {
    const tsl_expr *r = lw_map_get(&u->subst, e->u.var);
    return r ? r : e;
  }
  if (e->n_args == 0 && e->kind != TSL_EXPR_LOAD)
    return e;
  const tsl_expr *stack[8];
  const tsl_expr **args =
      e->n_args <= 8 ? stack : TSL_NEW_ARRAY(u->c->arena, const tsl_expr *, e->n_args);
  int changed = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = ub_expr(u, e->args[i]);
    changed |= args[i] != e->args[i];
  }
  if (e->kind == TSL_EXPR_LOAD) {
    const view *vw = lw_map_get(&u->views, e->u.buffer);
    if (vw)
      return tsl_expr_load(u->c->arena, vw->root, vw->root->ndim,
                           resolve_indices(u, vw, e->n_args, args));
  }
  return changed ? tsl_expr_with_args(u->c->arena, e, e->n_args, args) : e;
}

static const tsl_stmt *ub_stmt(ub *u, const tsl_stmt *s);

/* Add the block's unroll pragmas to the outermost loops of `s`. */
static const tsl_stmt *annotate_outer_loops(lw_ctx *c, const tsl_stmt *s,
                                            tsl_attrs extra) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    tsl_attrs have = s->u.loop.annotations;
    tsl_attr *items = TSL_NEW_ARRAY(c->arena, tsl_attr, have.n + extra.n + 1);
    uint32_t n = 0;
    for (uint32_t i = 0; i < have.n; i++)
      items[n++] = have.items[i];
    for (uint32_t i = 0; i < extra.n; i++)
      if (!tsl_attrs_get(have, extra.items[i].key))
        items[n++] = extra.items[i];
    return tsl_stmt_for(c->arena, s->u.loop.loop_var, s->u.loop.min,
                        s->u.loop.extent, (tsl_for_kind)s->u.loop.for_kind,
                        s->u.loop.thread_tag, tsl_attrs_make(c->arena, n, items),
                        s->u.loop.body);
  }
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(c->arena, const tsl_stmt *, s->u.seq.n + 1);
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      xs[i] = annotate_outer_loops(c, s->u.seq.stmts[i], extra);
    return tsl_stmt_seq(c->arena, s->u.seq.n, xs);
  }
  case TSL_STMT_IF:
    return tsl_stmt_if(c->arena, s->u.branch.cond,
                       annotate_outer_loops(c, s->u.branch.then_case, extra),
                       s->u.branch.else_case
                           ? annotate_outer_loops(c, s->u.branch.else_case, extra)
                           : NULL);
  case TSL_STMT_LET:
    return tsl_stmt_let(c->arena, s->u.let.var, s->u.let.value,
                        annotate_outer_loops(c, s->u.let.body, extra));
  default:
    return s;
  }
}

static int collect_vars(const tsl_expr *e, void *ud) {
  if (e->kind == TSL_EXPR_VAR)
    lw_vec_push(ud, e->u.var);
  return 0;
}

static const tsl_buffer *root_of(ub *u, const tsl_buffer *b) {
  const view *vw = lw_map_get(&u->views, b);
  return vw ? vw->root : b;
}

/* Register the views of a block; returns 0 on error. Saved previous map
 * entries go to `saved` (restored by the caller). */
static int enter_match(ub *u, const tsl_match_buffer *mb, lw_vec *saved_vars,
                       lw_vec *saved_vals) {
  tsl_arena *a = u->c->arena;
  const tsl_buffer *vb = mb->buffer, *src = mb->source.buffer;
  if (!src || mb->source.ndim != src->ndim || vb->ndim > src->ndim) {
    lw_fail(u->c, TSL_EINVALID,
            "match_buffer '%s': its region does not fit the buffer it views",
            vb->name);
    return 0;
  }
  const view *sv = lw_map_get(&u->views, src);
  const tsl_buffer *root = sv ? sv->root : src;
  uint32_t nd = root->ndim;
  uint32_t src_lead = sv ? sv->lead : 0; /* root dims before src's dims */
  view *vw = TSL_NEW(a, view);
  vw->root = root;
  vw->mins = TSL_NEW_ARRAY(a, const tsl_expr *, nd ? nd : 1);
  for (uint32_t d = 0; d < nd; d++) {
    if (d < src_lead) {
      vw->mins[d] = sv->mins[d];
      continue;
    }
    const tsl_expr *m = ub_expr(u, mb->source.ranges[d - src_lead].min);
    vw->mins[d] = sv ? add_int(a, sv->mins[d], m) : m;
  }
  vw->lead = nd - vb->ndim;
  /* variables the view's declaration binds */
  const tsl_expr *off = NULL;
  for (uint32_t d = nd; d-- > 0;) {
    /* root stride of dim d */
    const tsl_expr *stride = NULL;
    if (root->strides)
      stride = root->strides[d];
    else {
      stride = tsl_expr_i32(a, 1);
      for (uint32_t k = d + 1; k < nd; k++)
        stride = tsl_expr_binary(a, TSL_EXPR_MUL, lw_cast(a, stride, root->shape[k]->dtype),
                                 root->shape[k]);
    }
    const tsl_expr *term = tsl_expr_binary(
        a, TSL_EXPR_MUL, lw_cast(a, vw->mins[d], lw_wider(vw->mins[d]->dtype, stride->dtype)),
        lw_cast(a, stride, lw_wider(vw->mins[d]->dtype, stride->dtype)));
    off = off ? add_int(a, off, term) : term;
    if (d >= vw->lead) {
      uint32_t vd = d - vw->lead;
      const tsl_expr *sh = vb->shape[vd];
      if (sh && sh->kind == TSL_EXPR_VAR) {
        const tsl_expr *ext = ub_expr(u, mb->source.ranges[d - src_lead].extent);
        lw_vec_push(saved_vars, sh->u.var);
        lw_vec_push(saved_vals, lw_map_put(&u->subst, sh->u.var, lw_cast(a, ext, sh->dtype)));
      }
      const tsl_expr *st = vb->strides ? vb->strides[vd] : NULL;
      if (st && st->kind == TSL_EXPR_VAR) {
        lw_vec_push(saved_vars, st->u.var);
        lw_vec_push(saved_vals, lw_map_put(&u->subst, st->u.var, lw_cast(a, stride, st->dtype)));
      }
    }
  }
  if (root->elem_offset)
    off = off ? add_int(a, off, root->elem_offset) : root->elem_offset;
  const tsl_expr *eo = vb->elem_offset;
  if (eo && eo->kind == TSL_EXPR_VAR) {
    lw_vec_push(saved_vars, eo->u.var);
    lw_vec_push(saved_vals, lw_map_put(&u->subst, eo->u.var,
                                       lw_cast(a, off ? off : tsl_expr_i32(a, 0), eo->dtype)));
  }
  lw_vec_push(saved_vars, vb);
  lw_vec_push(saved_vals, lw_map_put(&u->views, vb, vw));
  return 1;
}

static int attr_int(const tsl_attr_value *v, int64_t *out) {
  if (v->kind == TSL_ATTR_INT || v->kind == TSL_ATTR_BOOL) {
    *out = v->u.i;
    return 1;
  }
  return v->kind == TSL_ATTR_EXPR && v->u.expr && tsl_expr_is_const_int(v->u.expr, out);
}

/* storage_align: [buffer_index, axis, factor, offset] entries of the
 * block's "buffer_dim_align" annotation, for allocated write buffers. */
static void record_dim_align(ub *u, const tsl_block *b) {
  const tsl_attr_value *v = tsl_attrs_get(b->annotations, "buffer_dim_align");
  if (!v || v->kind != TSL_ATTR_LIST)
    return;
  for (uint32_t i = 0; i < v->n; i++) {
    const tsl_attr_value *e = &v->u.items[i];
    int64_t x[4];
    if (e->kind != TSL_ATTR_LIST || e->n != 4 || !attr_int(&e->u.items[0], &x[0]) ||
        !attr_int(&e->u.items[1], &x[1]) || !attr_int(&e->u.items[2], &x[2]) ||
        !attr_int(&e->u.items[3], &x[3]) || x[0] < 0 || x[0] >= b->n_writes)
      continue;
    const tsl_buffer *buf = root_of(u, b->writes[x[0]].buffer);
    int k = lw_alloc_find(u->c, buf);
    if (k < 0 || x[1] < -(int64_t)buf->ndim || x[1] >= (int64_t)buf->ndim)
      continue;
    lw_alloc *al = &u->c->allocs[k];
    int64_t axis = x[1] < 0 ? x[1] + buf->ndim : x[1];
    uint32_t j = 0;
    while (j < al->n_align && al->align_axis[j] != axis)
      j++;
    if (j == 8)
      continue;
    al->align_axis[j] = axis;
    al->align_factor[j] = x[2];
    al->align_offset[j] = x[3];
    if (j == al->n_align)
      al->n_align++;
  }
}

static const tsl_stmt *ub_realize(ub *u, const tsl_stmt *s) {
  lw_ctx *c = u->c;
  tsl_arena *a = c->arena;
  const tsl_block *b = s->u.realize.block;
  if (s->u.realize.n_iter_values != b->n_iter_vars)
    return lw_fail(c, TSL_EINVALID,
                   "block '%s' has %u iteration variables but %u bindings",
                   b->name, b->n_iter_vars, s->u.realize.n_iter_values);
  for (uint32_t i = 0; i < b->n_alloc_buffers; i++) {
    if (lw_alloc_find(c, b->alloc_buffers[i]) >= 0)
      continue;
    if (c->n_allocs == c->cap_allocs) {
      c->cap_allocs = c->cap_allocs ? 2 * c->cap_allocs : 8;
      lw_alloc *na = TSL_NEW_ARRAY(a, lw_alloc, c->cap_allocs);
      if (c->n_allocs)
        memcpy(na, c->allocs, sizeof *na * c->n_allocs);
      c->allocs = na;
    }
    memset(&c->allocs[c->n_allocs], 0, sizeof *c->allocs);
    c->allocs[c->n_allocs++].buffer = b->alloc_buffers[i];
  }
  uint32_t n = b->n_iter_vars;
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++)
    vals[i] = ub_expr(u, s->u.realize.iter_values[i]);
  const tsl_expr *pred = ub_expr(u, s->u.realize.predicate);
  /* the init guard and the loops a reduction carries values over */
  const tsl_expr *guard = NULL;
  lw_vec pinned = {0};
  for (uint32_t i = 0; i < n; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    if (iv->iter_type != TSL_ITER_REDUCE)
      continue;
    tsl_expr_visit(vals[i], collect_vars, &pinned);
    const tsl_expr *mn = lw_cast(a, ub_expr(u, iv->dom.min), vals[i]->dtype);
    const tsl_expr *eq = tsl_expr_binary(a, TSL_EXPR_EQ, vals[i], mn);
    guard = guard ? tsl_expr_binary(a, TSL_EXPR_AND, guard, eq) : eq;
  }
  if (pinned.n)
    for (uint32_t w = 0; w < b->n_writes; w++) {
      int k = lw_alloc_find(c, root_of(u, b->writes[w].buffer));
      if (k >= 0)
        for (uint32_t j = 0; j < pinned.n; j++)
          lw_vec_push(&c->allocs[k].pinned_loops, pinned.items[j]);
    }
  lw_vec_free(&pinned);
  /* an opaque iterator (rolling_buffer's rolling axis) carries values over
   * the loops of its binding: buffers whose regions use it stay allocated
   * outside those loops (TVM's buffer-access LCA rule) */
  for (uint32_t i = 0; i < n; i++) {
    if (b->iter_vars[i].iter_type != TSL_ITER_OPAQUE)
      continue;
    lw_vec carried = {0};
    tsl_expr_visit(vals[i], collect_vars, &carried);
    for (uint32_t r = 0; r < b->n_reads + b->n_writes && carried.n; r++) {
      const tsl_buffer_region *rg = r < b->n_reads ? &b->reads[r] : &b->writes[r - b->n_reads];
      int uses = 0;
      for (uint32_t d = 0; d < rg->ndim && !uses; d++)
        uses = tsl_expr_uses_var(rg->ranges[d].min, b->iter_vars[i].var) ||
               tsl_expr_uses_var(rg->ranges[d].extent, b->iter_vars[i].var);
      int k = uses ? lw_alloc_find(c, root_of(u, rg->buffer)) : -1;
      for (uint32_t j = 0; k >= 0 && j < carried.n; j++)
        lw_vec_push(&c->allocs[k].pinned_loops, carried.items[j]);
    }
    lw_vec_free(&carried);
  }
  record_dim_align(u, b);
  /* bind iterators and views for the body */
  lw_vec saved_vars = {0}, saved_vals = {0};
  lw_vec saved_views_keys = {0}, saved_views_vals = {0};
  for (uint32_t i = 0; i < n; i++) {
    lw_vec_push(&saved_vars, b->iter_vars[i].var);
    lw_vec_push(&saved_vals, lw_map_put(&u->subst, b->iter_vars[i].var,
                                        lw_cast(a, vals[i], b->iter_vars[i].var->dtype)));
  }
  int ok = 1;
  for (uint32_t i = 0; ok && i < b->n_match_buffers; i++)
    ok = enter_match(u, &b->match_buffers[i], &saved_views_keys, &saved_views_vals);
  const tsl_stmt *body = NULL, *init = NULL;
  if (ok) {
    if (b->init)
      init = ub_stmt(u, b->init);
    body = ub_stmt(u, b->body);
  }
  /* restore in reverse order */
  for (uint32_t i = saved_views_keys.n; i-- > 0;) {
    const void *k = saved_views_keys.items[i];
    /* keys are vars (subst) or buffers (views): a pointer is only in one map */
    if (lw_map_get(&u->views, k))
      lw_map_put(&u->views, k, saved_views_vals.items[i]);
    else
      lw_map_put(&u->subst, k, saved_views_vals.items[i]);
  }
  for (uint32_t i = saved_vars.n; i-- > 0;)
    lw_map_put(&u->subst, saved_vars.items[i], saved_vals.items[i]);
  lw_vec_free(&saved_vars);
  lw_vec_free(&saved_vals);
  lw_vec_free(&saved_views_keys);
  lw_vec_free(&saved_views_vals);
  if (!body)
    return NULL;
  tsl_attrs pragmas = lw_unroll_attrs(c, b->annotations);
  if (pragmas.n)
    body = annotate_outer_loops(c, body, pragmas);
  if (init) {
    if (guard)
      init = tsl_stmt_if(a, guard, init, NULL);
    const tsl_stmt *two[2] = {init, body};
    body = tsl_stmt_seq(a, 2, two);
  }
  if (pred && !(pred->kind == TSL_EXPR_INT_IMM && pred->u.int_value != 0))
    body = tsl_stmt_if(a, pred, body, NULL);
  return body;
}

static const tsl_stmt *ub_stmt(ub *u, const tsl_stmt *s) {
  lw_ctx *c = u->c;
  tsl_arena *a = c->arena;
  if (c->status)
    return NULL;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_stmt *body = ub_stmt(u, s->u.loop.body);
    if (!body)
      return NULL;
    return tsl_stmt_for(a, s->u.loop.loop_var, ub_expr(u, s->u.loop.min),
                        ub_expr(u, s->u.loop.extent),
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, body);
  }
  case TSL_STMT_BLOCK_REALIZE:
    return ub_realize(u, s);
  case TSL_STMT_STORE: {
    const tsl_buffer *buf = s->u.store.buffer;
    uint32_t n = s->u.store.n_indices;
    if (n != buf->ndim)
      return lw_fail(c, TSL_EINVALID,
                     "a store indexes buffer '%s' with %u indices, but it has "
                     "%u dimensions",
                     buf->name, n, buf->ndim);
    const tsl_expr **idx = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
    for (uint32_t i = 0; i < n; i++)
      idx[i] = ub_expr(u, s->u.store.indices[i]);
    const tsl_expr *val = ub_expr(u, s->u.store.value);
    const view *vw = lw_map_get(&u->views, buf);
    if (vw)
      return tsl_stmt_store(a, vw->root, val, vw->root->ndim,
                            resolve_indices(u, vw, n, idx));
    return tsl_stmt_store(a, buf, val, n, idx);
  }
  case TSL_STMT_IF: {
    const tsl_stmt *t = ub_stmt(u, s->u.branch.then_case);
    const tsl_stmt *e = s->u.branch.else_case ? ub_stmt(u, s->u.branch.else_case) : NULL;
    if (!t || (s->u.branch.else_case && !e))
      return NULL;
    return tsl_stmt_if(a, ub_expr(u, s->u.branch.cond), t, e);
  }
  case TSL_STMT_LET: {
    const tsl_stmt *body = ub_stmt(u, s->u.let.body);
    return body ? tsl_stmt_let(a, s->u.let.var, ub_expr(u, s->u.let.value), body)
                : NULL;
  }
  case TSL_STMT_EVALUATE:
    return tsl_stmt_evaluate(a, ub_expr(u, s->u.evaluate.value));
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n + 1);
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if (!(xs[i] = ub_stmt(u, s->u.seq.stmts[i])))
        return NULL;
    if (s->u.seq.n == 0)
      return s;
    return tsl_stmt_seq(a, s->u.seq.n, xs);
  }
  case TSL_STMT_ALLOCATE: {
    const tsl_stmt *body = ub_stmt(u, s->u.alloc.body);
    return body ? tsl_stmt_allocate(a, s->u.alloc.buffer, body) : NULL;
  }
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return lw_fail(c, TSL_EINVALID, "unknown statement kind %u", (unsigned)s->kind);
}

const tsl_stmt *lw_unblock(lw_ctx *c, const tsl_stmt *body) {
  ub u;
  memset(&u, 0, sizeof u);
  u.c = c;
  const tsl_stmt *r = ub_stmt(&u, body);
  lw_map_free(&u.subst);
  lw_map_free(&u.views);
  return c->status ? NULL : r;
}
