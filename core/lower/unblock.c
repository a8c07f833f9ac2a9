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
 * outside of. A loop of extent 1 without annotations that is not
 * thread-bound is replaced by its body (its variable by its min), as TVM's
 * LowerOpaqueBlock does; a block's unroll pragmas go to the outermost loops
 * of its body (init included), the scope TVM's pragma attribute covers.
 * One mutator walks the body: bindings and view variables are its `vars`
 * map, bound for the block's scope; its hooks handle loops, realizes, and
 * stores and loads through views (a second, statement-only mutator puts a
 * block's pragmas on its loops). Every FOR is rebuilt, so each loop node
 * is unique in the result (alloc_place.c identifies loops by address).
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
  tsl_mutator m; /* first: the hooks' tsl_mutator * is the ub */
  lw_ctx *c;
  tsl_map vars;  /* var -> expr (m.vars) */
  tsl_map views; /* buffer -> view */
  tsl_vec undo;  /* tsl_map_logged, for the blocks being lowered */
} ub;

static void bind(ub *u, tsl_map *map, const void *key, const void *val) {
  tsl_map_bind_logged(&u->undo, map, key, (void *)val);
}

static const tsl_expr *add_int(tsl_arena *a, const tsl_expr *x,
                               const tsl_expr *y) {
  int64_t v;
  if (tsl_expr_is_const_int(y, &v) && v == 0)
    return x;
  if (tsl_expr_is_const_int(x, &v) && v == 0 && y->dtype.lanes == 1)
    return lw_cast(a, y, x->dtype);
  return lw_index_op(a, TSL_EXPR_ADD, x, y);
}

/* Indices into a view -> indices into its root buffer. */
static const tsl_expr **resolve_indices(tsl_arena *a, const view *vw,
                                        const tsl_expr *const *idx) {
  uint32_t nd = vw->root->ndim;
  const tsl_expr **out = TSL_NEW_ARRAY(a, const tsl_expr *, nd ? nd : 1);
  for (uint32_t d = 0; d < nd; d++)
    out[d] = d < vw->lead ? vw->mins[d]
                          : add_int(a, idx[d - vw->lead], vw->mins[d]);
  return out;
}

static const tsl_expr *ub_expr(tsl_mutator *m, const tsl_expr *e) {
  ub *u = (ub *)m;
  if (e->kind == TSL_EXPR_BUFFER_DATA) { /* a view's: its root's, or alloc_place's */
    const view *vw = tsl_map_get(&u->views, e->u.buffer);
    return !vw || lw_view_use_find(u->c, NULL, e->u.buffer)
               ? e : tsl_expr_buffer_data(m->arena, vw->root);
  }
  if (!e->n_args && e->kind != TSL_EXPR_VAR && e->kind != TSL_EXPR_LOAD)
    return e; /* a constant */
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (e->kind != TSL_EXPR_LOAD || !u->views.n)
    return r;
  const view *vw = tsl_map_get(&u->views, e->u.buffer);
  return vw ? tsl_expr_load(m->arena, vw->root, vw->root->ndim,
                            resolve_indices(m->arena, vw, r->args))
            : r;
}

/* Adds the block's unroll pragmas (user_data) to the outermost loops. */
static const tsl_stmt *pragma_hook(tsl_mutator *m, const tsl_stmt *s) {
  const tsl_attrs *extra = m->user_data;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    tsl_attrs have = s->u.loop.annotations;
    tsl_attr *items = TSL_NEW_ARRAY(m->arena, tsl_attr, have.n + extra->n + 1);
    uint32_t n = 0;
    for (uint32_t i = 0; i < have.n; i++)
      items[n++] = have.items[i];
    for (uint32_t i = 0; i < extra->n; i++)
      if (!tsl_attrs_get(have, extra->items[i].key))
        items[n++] = extra->items[i];
    return tsl_stmt_for(m->arena, s->u.loop.loop_var, s->u.loop.min,
                        s->u.loop.extent, (tsl_for_kind)s->u.loop.for_kind,
                        s->u.loop.thread_tag, tsl_attrs_make(m->arena, n, items),
                        s->u.loop.body);
  }
  case TSL_STMT_SEQ:
  case TSL_STMT_IF:
  case TSL_STMT_LET:
    return tsl_mutate_stmt_children(m, s);
  default:
    return s;
  }
}

static int collect_vars(const tsl_expr *e, void *ud) {
  if (e->kind == TSL_EXPR_VAR)
    TSL_VEC_PUSH(ud, const tsl_var *, e->u.var);
  return 0;
}

static const tsl_buffer *root_of(ub *u, const tsl_buffer *b) {
  const view *vw = tsl_map_get(&u->views, b);
  return vw ? vw->root : b;
}

/* Register a view of a block and bind the variables its declaration
 * binds (until the block ends); returns 0 on error. */
static int enter_match(ub *u, const tsl_match_buffer *mb) {
  tsl_arena *a = u->c->arena;
  const tsl_buffer *vb = mb->buffer, *src = mb->source.buffer;
  if (!src || mb->source.ndim != src->ndim || vb->ndim > src->ndim) {
    lw_fail(u->c, TSL_EINVALID,
            "match_buffer '%s': its region does not fit the buffer it views",
            vb->name);
    return 0;
  }
  const view *sv = tsl_map_get(&u->views, src);
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
    const tsl_expr *m = tsl_mutate_expr(&u->m, mb->source.ranges[d - src_lead].min);
    vw->mins[d] = sv ? add_int(a, sv->mins[d], m) : m;
  }
  vw->lead = nd - vb->ndim;
  /* a view of an allocation: alloc_place.c binds its offset and strides */
  lw_view_use *use = NULL;
  if (lw_alloc_find(u->c, root)) {
    use = tsl_vec_push(&u->c->view_uses);
    use->view = vb;
    use->root = root;
    use->elem_offset = vb->elem_offset && vb->elem_offset->kind == TSL_EXPR_VAR
                           ? vb->elem_offset->u.var : NULL;
    use->strides = TSL_NEW_ARRAY(a, const tsl_var *, nd ? nd : 1);
    use->mins = vw->mins;
    use->lasts = TSL_NEW_ARRAY(a, const tsl_expr *, nd ? nd : 1);
    for (uint32_t d = 0; d < nd; d++) {
      const tsl_expr *last = vw->mins[d];
      if (d >= src_lead) {
        const tsl_expr *ext = tsl_mutate_expr(&u->m, mb->source.ranges[d - src_lead].extent);
        last = add_int(a, last, tsl_expr_binary(a, TSL_EXPR_SUB, ext,
                                                tsl_expr_int(a, ext->dtype, 1)));
      }
      use->lasts[d] = last;
      const tsl_expr *st = d >= vw->lead && vb->strides ? vb->strides[d - vw->lead] : NULL;
      use->strides[d] = st && st->kind == TSL_EXPR_VAR ? st->u.var : NULL;
    }
  }
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
        const tsl_expr *ext = tsl_mutate_expr(&u->m, mb->source.ranges[d - src_lead].extent);
        bind(u, &u->vars, sh->u.var, lw_cast(a, ext, sh->dtype));
      }
      const tsl_expr *st = vb->strides ? vb->strides[vd] : NULL;
      if (st && st->kind == TSL_EXPR_VAR && !use)
        bind(u, &u->vars, st->u.var, lw_cast(a, stride, st->dtype));
    }
  }
  if (root->elem_offset)
    off = off ? add_int(a, off, root->elem_offset) : root->elem_offset;
  const tsl_expr *eo = vb->elem_offset;
  if (eo && eo->kind == TSL_EXPR_VAR && !use)
    bind(u, &u->vars, eo->u.var, lw_cast(a, off ? off : tsl_expr_i32(a, 0), eo->dtype));
  bind(u, &u->views, vb, vw);
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
    lw_alloc *al = lw_alloc_find(u->c, buf);
    if (!al || x[1] < -(int64_t)buf->ndim || x[1] >= (int64_t)buf->ndim)
      continue;
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
  tsl_mutator *m = &u->m;
  tsl_arena *a = c->arena;
  const tsl_block *b = s->u.realize.block;
  if (s->u.realize.n_iter_values != b->n_iter_vars) {
    lw_fail(c, TSL_EINVALID, "block '%s' has %u iteration variables but %u bindings",
            b->name, b->n_iter_vars, s->u.realize.n_iter_values);
    return s;
  }
  for (uint32_t i = 0; i < b->n_alloc_buffers; i++) {
    if (lw_alloc_find(c, b->alloc_buffers[i]))
      continue;
    tsl_map_put(&c->alloc_index, b->alloc_buffers[i], TSL_MAP_INT(c->allocs.len));
    lw_alloc *al = tsl_vec_push(&c->allocs);
    al->buffer = b->alloc_buffers[i];
    tsl_vec_init(&al->pinned_loops, sizeof(const tsl_var *), a);
  }
  uint32_t n = b->n_iter_vars;
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++)
    vals[i] = tsl_mutate_expr(m, s->u.realize.iter_values[i]);
  const tsl_expr *pred =
      s->u.realize.predicate ? tsl_mutate_expr(m, s->u.realize.predicate) : NULL;
  /* the init guard and the loops a reduction carries values over */
  const tsl_expr *guard = NULL;
  tsl_vec pinned;
  tsl_vec_init(&pinned, sizeof(const tsl_var *), NULL);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    if (iv->iter_type != TSL_ITER_REDUCE)
      continue;
    tsl_expr_visit(vals[i], collect_vars, &pinned);
    const tsl_expr *mn = lw_cast(a, tsl_mutate_expr(m, iv->dom.min), vals[i]->dtype);
    const tsl_expr *eq = tsl_expr_binary(a, TSL_EXPR_EQ, vals[i], mn);
    guard = guard ? tsl_expr_binary(a, TSL_EXPR_AND, guard, eq) : eq;
  }
  for (uint32_t w = 0; pinned.len && w < b->n_writes; w++) {
    lw_alloc *al = lw_alloc_find(c, root_of(u, b->writes[w].buffer));
    if (al)
      tsl_vec_append(&al->pinned_loops, pinned.data, pinned.len);
  }
  /* an opaque iterator (rolling_buffer's rolling axis) carries values over
   * the loops of its binding: buffers whose regions use it stay allocated
   * outside those loops (TVM's buffer-access LCA rule) */
  for (uint32_t i = 0; i < n; i++) {
    if (b->iter_vars[i].iter_type != TSL_ITER_OPAQUE)
      continue;
    tsl_vec carried;
    tsl_vec_init(&carried, sizeof(const tsl_var *), a);
    tsl_expr_visit(vals[i], collect_vars, &carried);
    for (uint32_t r = 0; r < b->n_reads + b->n_writes && carried.len; r++) {
      const tsl_buffer_region *rg = r < b->n_reads ? &b->reads[r] : &b->writes[r - b->n_reads];
      int uses = 0;
      for (uint32_t d = 0; d < rg->ndim && !uses; d++)
        uses = tsl_expr_uses_var(rg->ranges[d].min, b->iter_vars[i].var) ||
               tsl_expr_uses_var(rg->ranges[d].extent, b->iter_vars[i].var);
      lw_alloc *al = uses ? lw_alloc_find(c, root_of(u, rg->buffer)) : NULL;
      if (al)
        tsl_vec_append(&al->pinned_loops, carried.data, carried.len);
    }
  }
  tsl_vec_free(&pinned);
  record_dim_align(u, b);
  /* bind iterators and views for the block's scope */
  uint32_t mark = u->undo.len;
  for (uint32_t i = 0; i < n; i++)
    bind(u, &u->vars, b->iter_vars[i].var, lw_cast(a, vals[i], b->iter_vars[i].var->dtype));
  int ok = 1;
  for (uint32_t i = 0; ok && i < b->n_match_buffers; i++)
    ok = enter_match(u, &b->match_buffers[i]);
  const tsl_stmt *body = NULL, *init = NULL;
  if (ok) {
    if (b->init)
      init = tsl_mutate_stmt(m, b->init);
    body = tsl_mutate_stmt(m, b->body);
  }
  tsl_map_unbind_to(&u->undo, mark);
  if (!ok)
    return s;
  if (init) {
    if (guard)
      init = tsl_stmt_if(a, guard, init, NULL);
    const tsl_stmt *two[2] = {init, body};
    body = tsl_stmt_seq(a, 2, two);
  }
  tsl_attrs pragmas = lw_unroll_attrs(c, b->annotations);
  if (pragmas.n) {
    tsl_mutator pm = tsl_mutator_make(a);
    pm.stmt = pragma_hook;
    pm.expr = tsl_mutate_expr_keep;
    pm.user_data = &pragmas;
    body = tsl_mutate_stmt(&pm, body);
  }
  if (pred && !(pred->kind == TSL_EXPR_INT_IMM && pred->u.int_value != 0))
    body = tsl_stmt_if(a, pred, body, NULL);
  return body;
}

static const tsl_stmt *ub_stmt(tsl_mutator *m, const tsl_stmt *s) {
  ub *u = (ub *)m;
  lw_ctx *c = u->c;
  tsl_arena *a = c->arena;
  if (c->status)
    return s;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_var *v = s->u.loop.loop_var;
    const tsl_expr *mn = tsl_mutate_expr(m, s->u.loop.min);
    const tsl_expr *ext = tsl_mutate_expr(m, s->u.loop.extent);
    int64_t one;
    if (s->u.loop.for_kind != TSL_FOR_THREAD_BINDING && !s->u.loop.annotations.n &&
        tsl_expr_is_const_int(ext, &one) && one == 1) {
      /* a unit loop without annotations: only its body, var = min */
      tsl_map_binding bd = tsl_map_bind(&u->vars, v, (void *)lw_cast(a, mn, v->dtype));
      const tsl_stmt *body = tsl_mutate_stmt(m, s->u.loop.body);
      tsl_map_unbind(&u->vars, &bd);
      return body;
    }
    /* rebuilt even when unchanged: each loop node is unique */
    return tsl_stmt_for(a, v, mn, ext, (tsl_for_kind)s->u.loop.for_kind,
                        s->u.loop.thread_tag, s->u.loop.annotations,
                        tsl_mutate_stmt(m, s->u.loop.body));
  }
  case TSL_STMT_BLOCK_REALIZE:
    return ub_realize(u, s);
  case TSL_STMT_STORE: {
    const tsl_buffer *buf = s->u.store.buffer;
    if (s->u.store.n_indices != buf->ndim) {
      lw_fail(c, TSL_EINVALID,
              "a store indexes buffer '%s' with %u indices, but it has %u dimensions",
              buf->name, s->u.store.n_indices, buf->ndim);
      return s;
    }
    const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
    const view *vw = tsl_map_get(&u->views, buf);
    return vw ? tsl_stmt_store(a, vw->root, r->u.store.value, vw->root->ndim,
                               resolve_indices(a, vw, r->u.store.indices))
              : r;
  }
  default:
    return tsl_mutate_stmt_children(m, s);
  }
}

const tsl_stmt *lw_unblock(lw_ctx *c, const tsl_stmt *body) {
  ub u;
  memset(&u, 0, sizeof u);
  u.m = tsl_mutator_make(c->arena);
  u.m.stmt = ub_stmt;
  u.m.expr = ub_expr;
  u.m.vars = &u.vars;
  u.c = c;
  tsl_vec_init(&u.undo, sizeof(tsl_map_logged), NULL);
  const tsl_stmt *r = tsl_mutate_stmt(&u.m, body);
  tsl_map_free(&u.vars);
  tsl_map_free(&u.views);
  tsl_vec_free(&u.undo);
  return c->status ? NULL : r;
}
