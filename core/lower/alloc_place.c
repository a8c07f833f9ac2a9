/*
 * Allocation placement and compaction.
 *
 * For each buffer a block allocated (last-recorded first, so that of two
 * allocations with the same scope the first-declared ends up outermost):
 *   1. find the innermost loop enclosing every access (the longest common
 *      prefix of the loop paths of all accesses; the function body when
 *      there is none), then move outward past any loop that a reduction
 *      writing the buffer iterates over (unblock.c records those) and, for
 *      "shared*" scopes, past any threadIdx-bound loop;
 *   2. compute the region one execution of that scope touches: each access
 *      index relaxed over the loops inside the scope (let values
 *      substituted), unioned per dimension when the minimums differ by a
 *      constant; a dimension with a constant extent smaller than the
 *      buffer's becomes that extent and its accesses are rebased to the
 *      region's minimum, any other dimension stays whole;
 *   3. wrap the scope's body in an ALLOCATE of the (compacted, still
 *      multi-dimensional) buffer, which flatten.c later makes flat.
 * A buffer with declared strides keeps its shape. storage_align entries
 * (a writing block's "buffer_dim_align") become strides of the compacted
 * buffer: row-major from the innermost dimension, an aligned dimension's
 * stride padded up to `offset` modulo `factor` (TVM's rule). A buffer
 * nobody accesses gets no allocation.
 */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

#define TSL_MAX_NDIM_LOWER 32

/* ---- finding the scope ------------------------------------------------- */

typedef struct lca_walk {
  const tsl_buffer *buf;
  lw_vec path;  /* enclosing FOR statements */
  lw_vec lca;   /* common prefix so far */
  int seen;
} lca_walk;

static void lca_hit(lca_walk *w) {
  if (!w->seen) {
    w->seen = 1;
    for (uint32_t i = 0; i < w->path.n; i++)
      lw_vec_push(&w->lca, w->path.items[i]);
    return;
  }
  uint32_t k = 0;
  while (k < w->lca.n && k < w->path.n && w->lca.items[k] == w->path.items[k])
    k++;
  w->lca.n = k;
}

static int lca_expr_fn(const tsl_expr *e, void *ud) {
  lca_walk *w = ud;
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == w->buf)
    lca_hit(w);
  return 0;
}

static void lca_stmt(lca_walk *w, const tsl_stmt *s);

static void lca_expr(lca_walk *w, const tsl_expr *e) {
  if (e)
    tsl_expr_visit(e, lca_expr_fn, w);
}

static void lca_stmt(lca_walk *w, const tsl_stmt *s) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    lca_expr(w, s->u.loop.min);
    lca_expr(w, s->u.loop.extent);
    lw_vec_push(&w->path, s);
    lca_stmt(w, s->u.loop.body);
    w->path.n--;
    break;
  case TSL_STMT_STORE:
    if (s->u.store.buffer == w->buf)
      lca_hit(w);
    for (uint32_t i = 0; i < s->u.store.n_indices; i++)
      lca_expr(w, s->u.store.indices[i]);
    lca_expr(w, s->u.store.value);
    break;
  case TSL_STMT_IF:
    lca_expr(w, s->u.branch.cond);
    lca_stmt(w, s->u.branch.then_case);
    if (s->u.branch.else_case)
      lca_stmt(w, s->u.branch.else_case);
    break;
  case TSL_STMT_LET:
    lca_expr(w, s->u.let.value);
    lca_stmt(w, s->u.let.body);
    break;
  case TSL_STMT_EVALUATE:
    lca_expr(w, s->u.evaluate.value);
    break;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      lca_stmt(w, s->u.seq.stmts[i]);
    break;
  case TSL_STMT_ALLOCATE:
    lca_stmt(w, s->u.alloc.body);
    break;
  default:
    break;
  }
}

/* ---- the region used in one execution of the scope ---------------------- */

typedef struct region_walk {
  lw_ctx *c;
  tsl_analyzer *an;
  const tsl_buffer *buf;
  lw_vec inner_vars; /* const tsl_var * of loops inside the scope */
  tsl_range *inner_doms;
  uint32_t cap_doms;
  lw_map lets; /* let var -> value (with earlier lets substituted) */
  const tsl_expr **mins; /* per dim; NULL = dim is whole */
  int64_t *exts;
  uint8_t *whole;
  int seen;
} region_walk;

static const tsl_expr *let_subst_fn(const tsl_var *v, void *ud) {
  return lw_map_get(ud, v);
}

static int uses_inner_fn(const tsl_expr *e, void *ud) {
  const lw_vec *vs = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < vs->n; i++)
    if (vs->items[i] == e->u.var)
      return 1;
  return 0;
}

static void region_access(region_walk *w, uint32_t n, const tsl_expr *const *idx) {
  lw_ctx *c = w->c;
  for (uint32_t d = 0; d < n; d++) {
    if (w->whole[d])
      continue;
    const tsl_expr *e = w->lets.n ? tsl_expr_substitute(c->arena, idx[d], let_subst_fn, &w->lets)
                                  : idx[d];
    tsl_range r;
    int64_t ext;
    if (tsl_analyzer_relax(w->an, c->arena, e, w->inner_vars.n,
                           (const tsl_var *const *)w->inner_vars.items, w->inner_doms,
                           &r) != TSL_OK ||
        !tsl_expr_is_const_int(r.extent, &ext) ||
        tsl_expr_visit(r.min, uses_inner_fn, &w->inner_vars)) {
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
    int64_t dv;
    if (!tsl_expr_is_const_int(diff, &dv)) {
      w->whole[d] = 1;
      continue;
    }
    int64_t lo = dv < 0 ? dv : 0, hi = w->exts[d] > dv + ext ? w->exts[d] : dv + ext;
    if (dv < 0)
      w->mins[d] = r.min;
    w->exts[d] = hi - lo;
  }
  w->seen = 1;
}

static int region_expr_fn(const tsl_expr *e, void *ud) {
  region_walk *w = ud;
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == w->buf)
    region_access(w, e->n_args, e->args);
  return 0;
}

static void region_expr(region_walk *w, const tsl_expr *e) {
  if (e)
    tsl_expr_visit(e, region_expr_fn, w);
}

static void region_stmt(region_walk *w, const tsl_stmt *s) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    region_expr(w, s->u.loop.min);
    region_expr(w, s->u.loop.extent);
    uint32_t k = w->inner_vars.n;
    lw_vec_push(&w->inner_vars, s->u.loop.loop_var);
    if (k + 1 > w->cap_doms) {
      w->cap_doms = 2 * (k + 1);
      w->inner_doms = realloc(w->inner_doms, sizeof *w->inner_doms * w->cap_doms);
      if (!w->inner_doms)
        abort();
    }
    const tsl_expr *mn = s->u.loop.min, *ext = s->u.loop.extent;
    if (w->lets.n) {
      mn = tsl_expr_substitute(w->c->arena, mn, let_subst_fn, &w->lets);
      ext = tsl_expr_substitute(w->c->arena, ext, let_subst_fn, &w->lets);
    }
    w->inner_doms[k].min = mn;
    w->inner_doms[k].extent = ext;
    region_stmt(w, s->u.loop.body);
    w->inner_vars.n = k;
    break;
  }
  case TSL_STMT_STORE:
    if (s->u.store.buffer == w->buf)
      region_access(w, s->u.store.n_indices, s->u.store.indices);
    for (uint32_t i = 0; i < s->u.store.n_indices; i++)
      region_expr(w, s->u.store.indices[i]);
    region_expr(w, s->u.store.value);
    break;
  case TSL_STMT_IF:
    region_expr(w, s->u.branch.cond);
    region_stmt(w, s->u.branch.then_case);
    if (s->u.branch.else_case)
      region_stmt(w, s->u.branch.else_case);
    break;
  case TSL_STMT_LET: {
    region_expr(w, s->u.let.value);
    const tsl_expr *v = w->lets.n ? tsl_expr_substitute(w->c->arena, s->u.let.value,
                                                        let_subst_fn, &w->lets)
                                  : s->u.let.value;
    const void *prev = lw_map_put(&w->lets, s->u.let.var, v);
    region_stmt(w, s->u.let.body);
    lw_map_put(&w->lets, s->u.let.var, prev);
    break;
  }
  case TSL_STMT_EVALUATE:
    region_expr(w, s->u.evaluate.value);
    break;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      region_stmt(w, s->u.seq.stmts[i]);
    break;
  case TSL_STMT_ALLOCATE:
    region_stmt(w, s->u.alloc.body);
    break;
  default:
    break;
  }
}

/* ---- rewriting --------------------------------------------------------- */

typedef struct rebase {
  lw_ctx *c;
  const tsl_buffer *from, *to;
  const tsl_expr *const *mins; /* NULL entries: dim not rebased */
} rebase;

static const tsl_expr **rebase_idx(rebase *rb, uint32_t n, const tsl_expr *const *idx) {
  tsl_arena *a = rb->c->arena;
  const tsl_expr **out = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t d = 0; d < n; d++) {
    if (!rb->mins[d]) {
      out[d] = idx[d];
      continue;
    }
    tsl_dtype t = lw_wider(idx[d]->dtype, rb->mins[d]->dtype);
    out[d] = tsl_expr_binary(a, TSL_EXPR_SUB, lw_cast(a, idx[d], t),
                             lw_cast(a, rb->mins[d], t));
  }
  return out;
}

static const tsl_expr *rebase_expr(rebase *rb, const tsl_expr *e) {
  if (!e || (e->n_args == 0 && e->kind != TSL_EXPR_LOAD))
    return e;
  const tsl_expr *stack[8];
  const tsl_expr **args =
      e->n_args <= 8 ? stack : TSL_NEW_ARRAY(rb->c->arena, const tsl_expr *, e->n_args);
  int changed = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = rebase_expr(rb, e->args[i]);
    changed |= args[i] != e->args[i];
  }
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == rb->from)
    return tsl_expr_load(rb->c->arena, rb->to, e->n_args, rebase_idx(rb, e->n_args, args));
  return changed ? tsl_expr_with_args(rb->c->arena, e, e->n_args, args) : e;
}

static const tsl_stmt *rebase_stmt(rebase *rb, const tsl_stmt *s) {
  tsl_arena *a = rb->c->arena;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return tsl_stmt_for(a, s->u.loop.loop_var, rebase_expr(rb, s->u.loop.min),
                        rebase_expr(rb, s->u.loop.extent),
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, rebase_stmt(rb, s->u.loop.body));
  case TSL_STMT_STORE: {
    uint32_t n = s->u.store.n_indices;
    const tsl_expr **idx = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
    for (uint32_t i = 0; i < n; i++)
      idx[i] = rebase_expr(rb, s->u.store.indices[i]);
    const tsl_expr *v = rebase_expr(rb, s->u.store.value);
    if (s->u.store.buffer == rb->from)
      return tsl_stmt_store(a, rb->to, v, n, rebase_idx(rb, n, idx));
    return tsl_stmt_store(a, s->u.store.buffer, v, n, idx);
  }
  case TSL_STMT_IF:
    return tsl_stmt_if(a, rebase_expr(rb, s->u.branch.cond),
                       rebase_stmt(rb, s->u.branch.then_case),
                       s->u.branch.else_case ? rebase_stmt(rb, s->u.branch.else_case)
                                             : NULL);
  case TSL_STMT_LET:
    return tsl_stmt_let(a, s->u.let.var, rebase_expr(rb, s->u.let.value),
                        rebase_stmt(rb, s->u.let.body));
  case TSL_STMT_EVALUATE:
    return tsl_stmt_evaluate(a, rebase_expr(rb, s->u.evaluate.value));
  case TSL_STMT_SEQ: {
    if (s->u.seq.n == 0)
      return s;
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n);
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      xs[i] = rebase_stmt(rb, s->u.seq.stmts[i]);
    return tsl_stmt_seq(a, s->u.seq.n, xs);
  }
  case TSL_STMT_ALLOCATE:
    return tsl_stmt_allocate(a, s->u.alloc.buffer, rebase_stmt(rb, s->u.alloc.body));
  default:
    return s;
  }
}

/* Replace the body of `target` (NULL: the whole tree) by `make(body)`. The
 * path to target is rebuilt, everything else shared. */
typedef struct wrap_job {
  lw_ctx *c;
  const tsl_stmt *target;
  rebase *rb;
  int done;
} wrap_job;

static const tsl_stmt *wrap_body(wrap_job *j, const tsl_stmt *body) {
  return tsl_stmt_allocate(j->c->arena, j->rb->to, rebase_stmt(j->rb, body));
}

static const tsl_stmt *wrap_at(wrap_job *j, const tsl_stmt *s) {
  tsl_arena *a = j->c->arena;
  if (j->done)
    return s;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    if (s == j->target) {
      j->done = 1;
      return tsl_stmt_for(a, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent,
                          (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                          s->u.loop.annotations, wrap_body(j, s->u.loop.body));
    }
    const tsl_stmt *b = wrap_at(j, s->u.loop.body);
    if (b == s->u.loop.body)
      return s;
    return tsl_stmt_for(a, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent,
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, b);
  }
  case TSL_STMT_IF: {
    const tsl_stmt *t = wrap_at(j, s->u.branch.then_case);
    const tsl_stmt *e = s->u.branch.else_case ? wrap_at(j, s->u.branch.else_case) : NULL;
    if (t == s->u.branch.then_case && e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, s->u.branch.cond, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_stmt *b = wrap_at(j, s->u.let.body);
    return b == s->u.let.body ? s : tsl_stmt_let(a, s->u.let.var, s->u.let.value, b);
  }
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n + 1);
    int changed = 0;
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      xs[i] = wrap_at(j, s->u.seq.stmts[i]);
      changed |= xs[i] != s->u.seq.stmts[i];
    }
    return changed ? tsl_stmt_seq(a, s->u.seq.n, xs) : s;
  }
  case TSL_STMT_ALLOCATE: {
    const tsl_stmt *b = wrap_at(j, s->u.alloc.body);
    return b == s->u.alloc.body ? s : tsl_stmt_allocate(a, s->u.alloc.buffer, b);
  }
  default:
    return s;
  }
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
  w.buf = b;
  lca_stmt(&w, body);
  if (!w.seen) {
    lw_vec_free(&w.path);
    lw_vec_free(&w.lca);
    return body; /* never accessed: nothing to allocate */
  }
  uint32_t depth = w.lca.n;
  for (uint32_t i = 0; i < depth; i++) {
    const tsl_stmt *loop = w.lca.items[i];
    int pinned = 0;
    for (uint32_t k = 0; k < al->pinned_loops.n; k++)
      pinned |= al->pinned_loops.items[k] == loop->u.loop.loop_var;
    if (pinned) {
      depth = i;
      break;
    }
  }
  /* shared memory is per thread block: never inside a threadIdx loop */
  if (b->scope && !strncmp(b->scope, "shared", 6))
    for (uint32_t i = 0; i < depth; i++) {
      const tsl_stmt *loop = w.lca.items[i];
      if (loop->u.loop.thread_tag && !strncmp(loop->u.loop.thread_tag, "threadIdx", 9)) {
        depth = i;
        break;
      }
    }
  const tsl_stmt *target = depth ? w.lca.items[depth - 1] : NULL;
  const tsl_stmt *scope = target ? target->u.loop.body : body;

  /* region of one execution of the scope */
  uint32_t nd = b->ndim;
  region_walk rw;
  memset(&rw, 0, sizeof rw);
  rw.c = c;
  rw.buf = b;
  rw.an = tsl_analyzer_new(c->tctx);
  for (uint32_t i = 0; i < depth; i++) {
    const tsl_stmt *l = w.lca.items[i];
    tsl_analyzer_bind(rw.an, l->u.loop.loop_var, l->u.loop.min, l->u.loop.extent);
  }
  rw.mins = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  rw.exts = TSL_NEW_ARRAY(a, int64_t, nd + 1);
  rw.whole = TSL_NEW_ARRAY(a, uint8_t, nd + 1);
  if (b->strides || b->elem_offset)
    memset(rw.whole, 1, nd);
  else
    region_stmt(&rw, scope);
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
  free(rw.inner_doms);
  lw_vec_free(&rw.inner_vars);
  lw_map_free(&rw.lets);

  const tsl_expr **strides = aligned_strides(c, al, nd, shape);
  const tsl_buffer *nb = compacted || strides
                             ? tsl_buffer_new(a, b->name, b->dtype, nd, shape,
                                              strides ? strides : b->strides, b->elem_offset,
                                              b->scope, b->align, b->offset_factor)
                             : b;
  if (nb != b && b->n_axis_separators) /* same rank: the separators stay */
    nb = tsl_buffer_with_axis_separators(a, nb, b->n_axis_separators, b->axis_separators);
  rebase rb = {c, b, nb, mins};
  wrap_job j = {c, target, &rb, 0};
  const tsl_stmt *r = target ? wrap_at(&j, body) : wrap_body(&j, body);
  lw_vec_free(&w.path);
  lw_vec_free(&w.lca);
  return r;
}

const tsl_stmt *lw_place_allocs(lw_ctx *c, const tsl_stmt *body) {
  /* innermost first would let an outer buffer's scope contain an inner
   * ALLOCATE; order does not matter for correctness, so go in reverse to
   * keep the first-declared buffer outermost when scopes coincide */
  for (uint32_t i = c->n_allocs; i-- > 0 && !c->status;)
    body = place_one(c, body, &c->allocs[i]);
  return body;
}
