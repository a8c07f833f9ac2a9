/*
 * Allocation placement and compaction.
 *
 * For each buffer a block allocated (last-recorded first, so that of two
 * allocations with the same scope the first-declared ends up outermost):
 *   1. find the innermost loop enclosing every access (the longest common
 *      prefix of the loop paths of all accesses; the function body when
 *      there is none), then move outward past any loop that a reduction
 *      writing the buffer iterates over (unblock.c records those) and, for
 *      "shared*" scopes, past any threadIdx-bound loop ("warp": past any
 *      threadIdx.x loop, the lanes of a warp);
 *   2. compute the region one execution of that scope touches: each access
 *      index relaxed over the loops inside the scope (let values
 *      substituted), unioned per dimension when the minimums differ by a
 *      constant, or by an amount of one sign that the enclosing loops'
 *      ranges bound (the lower minimum stays the base); a dimension with a constant extent smaller than the
 *      buffer's becomes that extent and its accesses are rebased to the
 *      region's minimum, any other dimension stays whole;
 *   3. wrap the scope's body in an ALLOCATE of the (compacted, still
 *      multi-dimensional) buffer, which flatten.c later makes flat.
 * A buffer with declared strides keeps its shape. storage_align entries
 * (a writing block's "buffer_dim_align") become strides of the compacted
 * buffer: row-major from the innermost dimension, an aligned dimension's
 * stride padded up to `offset` modulo `factor` (TVM's rule). A buffer
 * nobody accesses gets no allocation. The scope and the region come from
 * two read-only visits; one mutator rebases the accesses and inserts the
 * ALLOCATE.
 */
#include "lower_internal.h"

#include <string.h>

#define TSL_MAX_NDIM_LOWER 32

/* ---- finding the scope ------------------------------------------------- */

typedef struct lca_walk {
  const lw_ctx *c;
  const tsl_buffer *buf;
  tsl_vec path; /* const tsl_stmt *: enclosing FOR statements */
  tsl_vec lca;  /* common prefix so far */
  uint32_t depth; /* loops around the expression being visited */
  int seen;
} lca_walk;

static void lca_hit(lca_walk *w, uint32_t depth) {
  const tsl_stmt **path = w->path.data, **lca = w->lca.data;
  if (!w->seen) {
    w->seen = 1;
    tsl_vec_append(&w->lca, path, depth);
    return;
  }
  uint32_t k = 0;
  while (k < w->lca.len && k < depth && lca[k] == path[k])
    k++;
  w->lca.len = k;
}

static int lca_stmt(const tsl_stmt *s, void *ud) {
  lca_walk *w = ud;
  if (s->kind == TSL_STMT_FOR)
    TSL_VEC_PUSH(&w->path, const tsl_stmt *, s);
  else if (s->kind == TSL_STMT_STORE && s->u.store.buffer == w->buf)
    lca_hit(w, w->path.len);
  return 0;
}

static int lca_post(const tsl_stmt *s, void *ud) {
  lca_walk *w = ud;
  if (s->kind == TSL_STMT_FOR)
    w->path.len--;
  return 0;
}

/* The allocation a view use reaches (lw_view_use), or NULL. */
static const tsl_buffer *view_root(const lw_ctx *c, const tsl_expr *e) {
  const lw_view_use *u =
      e->kind == TSL_EXPR_VAR ? lw_view_use_find(c, e->u.var, NULL)
      : e->kind == TSL_EXPR_BUFFER_DATA ? lw_view_use_find(c, NULL, e->u.buffer)
                                        : NULL;
  return u ? u->root : NULL;
}

static int lca_load(const tsl_expr *e, void *ud) {
  lca_walk *w = ud;
  if (((e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_BUFFER_DATA) &&
       e->u.buffer == w->buf) || view_root(w->c, e) == w->buf)
    lca_hit(w, w->depth);
  return 0;
}

static int lca_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  lca_walk *w = ud;
  w->depth = w->path.len - (owner->kind == TSL_STMT_FOR); /* bounds are outside */
  return tsl_expr_visit(e, lca_load, w);
}

/* ---- the region used in one execution of the scope ---------------------- */

typedef struct region_walk {
  lw_ctx *c;
  tsl_analyzer *an;
  const tsl_buffer *buf;
  tsl_vec inner_vars; /* const tsl_var * of loops inside the scope */
  tsl_vec inner_doms; /* tsl_range, one per inner var */
  tsl_map lets;       /* let var -> value (with earlier lets substituted) */
  tsl_vec let_scopes; /* tsl_map_binding, one per enclosing let */
  const tsl_expr **mins; /* per dim; NULL = dim is whole */
  int64_t *exts;
  uint8_t *whole;
  int seen;
  /* Loops inside the scope that are not relaxed: the serial loops a shared
   * buffer was hoisted out of with the threadIdx loops around them (one
   * execution of them at a time uses the buffer). */
  const tsl_stmt *const *fixed;
  uint32_t n_fixed;
} region_walk;

static int is_fixed(const region_walk *w, const tsl_stmt *s) {
  for (uint32_t i = 0; i < w->n_fixed; i++)
    if (w->fixed[i] == s)
      return 1;
  return 0;
}

static const tsl_expr *subst_lets(region_walk *w, const tsl_expr *e) {
  if (!w->lets.n)
    return e;
  tsl_mutator m = tsl_mutator_make(w->c->arena);
  m.vars = &w->lets;
  return tsl_mutate_expr(&m, e);
}

static int uses_inner_fn(const tsl_expr *e, void *ud) {
  const region_walk *w = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < w->inner_vars.len; i++)
    if (TSL_VEC_AT(&w->inner_vars, const tsl_var *, i) == e->u.var)
      return 1;
  return 0;
}

static void region_access(region_walk *w, uint32_t n, const tsl_expr *const *idx) {
  lw_ctx *c = w->c;
  for (uint32_t d = 0; d < n; d++) {
    if (w->whole[d])
      continue;
    const tsl_expr *e = subst_lets(w, idx[d]);
    tsl_range r;
    int64_t ext;
    if (tsl_analyzer_relax(w->an, c->arena, e, w->inner_vars.len, w->inner_vars.data,
                           w->inner_doms.data, &r) != TSL_OK ||
        !tsl_expr_is_const_int(r.extent, &ext) || tsl_expr_visit(r.min, uses_inner_fn, w)) {
      w->whole[d] = 1;
      continue;
    }
    if (!w->seen) {
      w->mins[d] = r.min;
      w->exts[d] = ext;
      continue;
    }
    /* union with the range so far: minimums must differ by a constant */
    tsl_dtype t = lw_wider(r.min->dtype, w->mins[d]->dtype);
    const tsl_expr *diff = tsl_simplify(
        w->an, c->arena,
        tsl_expr_binary(c->arena, TSL_EXPR_SUB, lw_cast(c->arena, r.min, t),
                        lw_cast(c->arena, w->mins[d], t)));
    int64_t dv, dlo, dhi;
    if (tsl_expr_is_const_int(diff, &dv)) {
      int64_t lo = dv < 0 ? dv : 0, hi = w->exts[d] > dv + ext ? w->exts[d] : dv + ext;
      if (dv < 0)
        w->mins[d] = r.min;
      w->exts[d] = hi - lo;
    } else if (tsl_analyzer_const_bound(w->an, diff, &dlo, &dhi) && (dlo >= 0 || dhi <= 0)) {
      /* the minimums differ by an amount the enclosing loops bound, of one
       * sign: the lower one stays the base (TVM's union of intervals) */
      if (dlo >= 0) {
        w->exts[d] = w->exts[d] > dhi + ext ? w->exts[d] : dhi + ext;
      } else {
        w->mins[d] = r.min;
        w->exts[d] = ext > w->exts[d] - dlo ? ext : w->exts[d] - dlo;
      }
    } else {
      w->whole[d] = 1;
      continue;
    }
  }
  w->seen = 1;
}

static int region_load(const tsl_expr *e, void *ud) {
  region_walk *w = ud;
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == w->buf) {
    region_access(w, e->n_args, e->args);
  } else if ((e->kind == TSL_EXPR_BUFFER_DATA && e->u.buffer == w->buf) ||
             (e->kind == TSL_EXPR_BUILTIN && e->intrin == TSL_BUILTIN_ADDRESS_OF &&
              e->n_args == 1 && e->args[0]->kind == TSL_EXPR_LOAD &&
              e->args[0]->u.buffer == w->buf)) {
    memset(w->whole, 1, w->buf->ndim); /* a raw pointer: anything may be used */
  } else if (e->kind == TSL_EXPR_VAR) { /* a view's offset: its first and last element */
    const lw_view_use *u = lw_view_use_find(w->c, e->u.var, NULL);
    if (u && u->root == w->buf) {
      region_access(w, w->buf->ndim, u->mins);
      region_access(w, w->buf->ndim, u->lasts);
    }
  }
  return 0;
}

/* Loads in an expression; a loop's bounds and a let's value are visited by
 * region_stmt before their scope opens. */
static int region_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  region_walk *w = ud;
  if (owner->kind == TSL_STMT_FOR || owner->kind == TSL_STMT_LET)
    return 0;
  return tsl_expr_visit(e, region_load, w);
}

static int region_stmt(const tsl_stmt *s, void *ud) {
  region_walk *w = ud;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    tsl_expr_visit(s->u.loop.min, region_load, w);
    tsl_expr_visit(s->u.loop.extent, region_load, w);
    if (is_fixed(w, s))
      break;
    TSL_VEC_PUSH(&w->inner_vars, const tsl_var *, s->u.loop.loop_var);
    TSL_VEC_PUSH(&w->inner_doms, tsl_range,
                 ((tsl_range){subst_lets(w, s->u.loop.min), subst_lets(w, s->u.loop.extent)}));
    break;
  case TSL_STMT_STORE:
    if (s->u.store.buffer == w->buf)
      region_access(w, s->u.store.n_indices, s->u.store.indices);
    break;
  case TSL_STMT_LET: {
    tsl_expr_visit(s->u.let.value, region_load, w);
    const tsl_expr *v = subst_lets(w, s->u.let.value);
    TSL_VEC_PUSH(&w->let_scopes, tsl_map_binding, tsl_map_bind(&w->lets, s->u.let.var, (void *)v));
    break;
  }
  default:
    break;
  }
  return 0;
}

static int region_post(const tsl_stmt *s, void *ud) {
  region_walk *w = ud;
  if (s->kind == TSL_STMT_FOR && !is_fixed(w, s)) {
    w->inner_vars.len--;
    w->inner_doms.len--;
  } else if (s->kind == TSL_STMT_LET) {
    tsl_map_unbind(&w->lets, &TSL_VEC_LAST(&w->let_scopes, tsl_map_binding));
    w->let_scopes.len--;
  }
  return 0;
}

/* ---- rewriting --------------------------------------------------------- */

/* Accesses to `from` become accesses to `to` rebased by `mins`, and the
 * body of `target` (NULL: the whole tree) is wrapped in the ALLOCATE. */
typedef struct rebase {
  tsl_mutator m; /* first: the hooks' tsl_mutator * is the rebase */
  const lw_ctx *c;
  const tsl_buffer *from, *to;
  const tsl_expr *const *mins; /* NULL entries: dim not rebased */
  const tsl_stmt *target;
  int inside; /* in the scope: the only place `from` is accessed */
  int done;   /* the scope was rewritten: nothing else changes */
} rebase;

static const tsl_expr **rebase_idx(rebase *rb, uint32_t n, const tsl_expr *const *idx) {
  tsl_arena *a = rb->m.arena;
  const tsl_expr **out = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t d = 0; d < n; d++) {
    if (!rb->mins[d]) {
      out[d] = idx[d];
      continue;
    }
    out[d] = lw_index_op(a, TSL_EXPR_SUB, idx[d], rb->mins[d]);
  }
  return out;
}

/* Stride of dimension d of the allocated buffer `b`. */
static const tsl_expr *stride_of(tsl_arena *a, const tsl_buffer *b, uint32_t d) {
  if (b->strides)
    return b->strides[d];
  const tsl_expr *st = tsl_expr_int(a, b->shape[d]->dtype, 1);
  for (uint32_t k = d + 1; k < b->ndim; k++)
    st = tsl_expr_binary(a, TSL_EXPR_MUL, lw_cast(a, st, b->shape[k]->dtype), b->shape[k]);
  return st;
}

/* A view use of `from`: its data is `to`'s; its offset (the flat index of
 * its rebased first element) and strides are `to`'s. */
static const tsl_expr *rebase_view(rebase *rb, const tsl_expr *e) {
  tsl_arena *a = rb->m.arena;
  const lw_view_use *u = e->kind == TSL_EXPR_VAR ? lw_view_use_find(rb->c, e->u.var, NULL)
                                                  : lw_view_use_find(rb->c, NULL, e->u.buffer);
  if (!u && e->kind == TSL_EXPR_VAR) /* a view's stride variable */
    for (uint32_t i = 0; i < rb->c->view_uses.len; i++) {
      const lw_view_use *s = &TSL_VEC_AT(&rb->c->view_uses, lw_view_use, i);
      for (uint32_t d = 0; s->root == rb->from && d < rb->to->ndim; d++)
        if (s->strides[d] == e->u.var)
          return lw_cast(a, stride_of(a, rb->to, d), e->dtype);
    }
  if (!u || u->root != rb->from)
    return NULL;
  if (e->kind == TSL_EXPR_BUFFER_DATA)
    return tsl_expr_buffer_data(a, rb->to);
  const tsl_expr *const *first = rebase_idx(rb, rb->to->ndim, u->mins);
  const tsl_expr *off = tsl_expr_int(a, e->dtype, 0);
  for (uint32_t d = 0; d < rb->to->ndim; d++)
    off = tsl_expr_binary(a, TSL_EXPR_ADD, off,
                          tsl_expr_binary(a, TSL_EXPR_MUL, lw_cast(a, first[d], e->dtype),
                                          lw_cast(a, stride_of(a, rb->to, d), e->dtype)));
  return off;
}

static const tsl_expr *rebase_expr(tsl_mutator *m, const tsl_expr *e) {
  rebase *rb = (rebase *)m;
  if (rb->inside && (e->kind == TSL_EXPR_VAR || e->kind == TSL_EXPR_BUFFER_DATA)) {
    const tsl_expr *r = rebase_view(rb, e);
    if (r)
      return r;
    if (e->kind == TSL_EXPR_BUFFER_DATA && e->u.buffer == rb->from)
      return tsl_expr_buffer_data(m->arena, rb->to);
  }
  if (!rb->inside || (!e->n_args && e->kind != TSL_EXPR_LOAD))
    return e; /* outside the scope, or a leaf without an access */
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == rb->from)
    return tsl_expr_load(m->arena, rb->to, e->n_args, rebase_idx(rb, e->n_args, r->args));
  return r;
}

static const tsl_stmt *rebase_stmt(tsl_mutator *m, const tsl_stmt *s) {
  rebase *rb = (rebase *)m;
  if (rb->done)
    return s;
  if (s == rb->target) {
    rb->inside = 1;
    const tsl_stmt *body = tsl_mutate_stmt(m, s->u.loop.body);
    rb->inside = 0;
    rb->done = 1;
    return tsl_stmt_for(m->arena, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent,
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, tsl_stmt_allocate(m->arena, rb->to, body));
  }
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (s->kind == TSL_STMT_STORE && s->u.store.buffer == rb->from)
    return tsl_stmt_store(m->arena, rb->to, r->u.store.value, s->u.store.n_indices,
                          rebase_idx(rb, s->u.store.n_indices, r->u.store.indices));
  return r;
}

/* ---- one allocation ------------------------------------------------------ */

/* Strides honouring storage_align (row-major from the innermost dimension;
 * an aligned dimension's stride padded up to offset modulo factor), or
 * NULL when there is nothing to align, the buffer declares strides or a
 * dimension is not constant. */
static const tsl_expr **aligned_strides(lw_ctx *c, const lw_alloc *al, uint32_t nd,
                                        const tsl_expr *const *shape) {
  if (!al->n_align || al->buffer->strides || !nd)
    return NULL;
  int64_t sh[TSL_MAX_NDIM_LOWER];
  if (nd > TSL_MAX_NDIM_LOWER)
    return NULL;
  for (uint32_t d = 0; d < nd; d++)
    if (!tsl_expr_is_const_int(shape[d], &sh[d]))
      return NULL;
  const tsl_expr **st = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
  int64_t stride = 1;
  for (uint32_t d = nd; d-- > 0;) {
    if (d + 1 < nd)
      stride *= sh[d + 1];
    for (uint32_t k = 0; k < al->n_align; k++)
      if (al->align_axis[k] == (int64_t)d && al->align_factor[k] > 0) {
        int64_t f = al->align_factor[k], o = al->align_offset[k] % f;
        stride += ((o - stride % f) % f + f) % f;
      }
    st[d] = tsl_expr_int(c->arena, shape[d]->dtype, stride);
  }
  return st;
}

static const tsl_stmt *place_one(lw_ctx *c, const tsl_stmt *body, const lw_alloc *al) {
  tsl_arena *a = c->arena;
  const tsl_buffer *b = al->buffer;
  lca_walk w;
  memset(&w, 0, sizeof w);
  w.c = c;
  w.buf = b;
  tsl_vec_init(&w.path, sizeof(const tsl_stmt *), a);
  tsl_vec_init(&w.lca, sizeof(const tsl_stmt *), a);
  tsl_stmt_visitor lv = {.stmt = lca_stmt, .expr = lca_expr, .stmt_post = lca_post,
                         .user_data = &w};
  tsl_stmt_visit(body, &lv);
  if (!w.seen)
    return body; /* never accessed: nothing to allocate */
  const tsl_stmt **lca = w.lca.data;
  const tsl_var **pinned = al->pinned_loops.data;
  uint32_t depth = w.lca.len;
  for (uint32_t i = 0; i < depth; i++) {
    int found = 0;
    for (uint32_t k = 0; k < al->pinned_loops.len; k++)
      found |= pinned[k] == lca[i]->u.loop.loop_var;
    if (found) {
      depth = i;
      break;
    }
  }
  /* shared memory is per thread block: never inside a threadIdx loop; warp
   * memory is per warp: never inside a threadIdx.x loop (its lanes); the
   * serial loops it leaves with them stay fixed in its region */
  uint32_t inner_depth = depth;
  const int shared = b->scope && !strncmp(b->scope, "shared", 6),
            warp = b->scope && !strcmp(b->scope, "warp");
  if (shared || warp)
    for (uint32_t i = 0; i < depth; i++) {
      const char *tag = lca[i]->u.loop.thread_tag;
      if (tag && !strncmp(tag, warp ? "threadIdx.x" : "threadIdx", warp ? 12 : 9)) {
        depth = i;
        break;
      }
    }
  const tsl_stmt **fixed = TSL_NEW_ARRAY(a, const tsl_stmt *, inner_depth - depth + 1);
  uint32_t n_fixed = 0;
  for (uint32_t i = depth; i < inner_depth; i++)
    if (lca[i]->u.loop.for_kind != TSL_FOR_THREAD_BINDING)
      fixed[n_fixed++] = lca[i];
  const tsl_stmt *target = depth ? lca[depth - 1] : NULL;
  const tsl_stmt *scope = target ? target->u.loop.body : body;

  /* region of one execution of the scope */
  uint32_t nd = b->ndim;
  region_walk rw;
  memset(&rw, 0, sizeof rw);
  rw.c = c;
  rw.buf = b;
  rw.an = tsl_analyzer_new(c->tctx);
  tsl_vec_init(&rw.inner_vars, sizeof(const tsl_var *), a);
  tsl_vec_init(&rw.inner_doms, sizeof(tsl_range), a);
  tsl_map_init(&rw.lets, a);
  tsl_vec_init(&rw.let_scopes, sizeof(tsl_map_binding), a);
  for (uint32_t i = 0; i < depth; i++)
    tsl_analyzer_bind(rw.an, lca[i]->u.loop.loop_var, lca[i]->u.loop.min,
                      lca[i]->u.loop.extent);
  rw.fixed = fixed;
  rw.n_fixed = n_fixed;
  for (uint32_t i = 0; i < n_fixed; i++)
    tsl_analyzer_bind(rw.an, fixed[i]->u.loop.loop_var, fixed[i]->u.loop.min,
                      fixed[i]->u.loop.extent);
  rw.mins = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  rw.exts = TSL_NEW_ARRAY(a, int64_t, nd + 1);
  rw.whole = TSL_NEW_ARRAY(a, uint8_t, nd + 1);
  if (b->strides || b->elem_offset) {
    memset(rw.whole, 1, nd);
  } else {
    tsl_stmt_visitor rv = {.stmt = region_stmt, .expr = region_expr,
                           .stmt_post = region_post, .user_data = &rw};
    tsl_stmt_visit(scope, &rv);
  }
  const tsl_expr **shape = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  const tsl_expr **mins = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  int compacted = 0;
  for (uint32_t d = 0; d < nd; d++) {
    int64_t full;
    int has_full = tsl_expr_is_const_int(b->shape[d], &full);
    if (!rw.whole[d] && rw.seen && rw.exts[d] >= 0 &&
        (!has_full || rw.exts[d] < full)) {
      shape[d] = tsl_expr_int(a, b->shape[d]->dtype, rw.exts[d]);
      mins[d] = rw.mins[d];
      compacted = 1;
    } else {
      shape[d] = b->shape[d];
      mins[d] = NULL;
    }
  }
  tsl_analyzer_free(rw.an);

  const tsl_expr **strides = aligned_strides(c, al, nd, shape);
  const tsl_buffer *nb = compacted || strides
                             ? tsl_buffer_new(a, b->name, b->dtype, nd, shape,
                                              strides ? strides : b->strides, b->elem_offset,
                                              b->scope, b->align, b->offset_factor)
                             : b;
  if (nb != b && b->n_axis_separators) /* same rank: the separators stay */
    nb = tsl_buffer_with_axis_separators(a, nb, b->n_axis_separators, b->axis_separators);
  rebase rb = {tsl_mutator_make(a), c, b, nb, mins, target, target == NULL, 0};
  rb.m.stmt = rebase_stmt;
  rb.m.expr = rebase_expr;
  const tsl_stmt *r = tsl_mutate_stmt(&rb.m, body);
  return target ? r : tsl_stmt_allocate(a, nb, r);
}

const tsl_stmt *lw_place_allocs(lw_ctx *c, const tsl_stmt *body) {
  /* innermost first would let an outer buffer's scope contain an inner
   * ALLOCATE; order does not matter for correctness, so go in reverse to
   * keep the first-declared buffer outermost when scopes coincide */
  for (uint32_t i = c->allocs.len; i-- > 0 && !c->status;)
    body = place_one(c, body, &TSL_VEC_AT(&c->allocs, lw_alloc, i));
  return body;
}
