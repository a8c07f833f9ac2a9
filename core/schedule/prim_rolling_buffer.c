/*
 * rolling_buffer (TVM's RollingBuffer): an intermediate buffer written
 * tile by tile under a loop shared with its consumers keeps only one tile
 * along one axis: that dimension shrinks to the tile's extent and every
 * access indexes it modulo the extent. The axis is the one whose tile
 * start (the written region relaxed over the loops below the lowest common
 * loop of the writer and its consumers) is `var * stride` (or
 * `(var * s) // d`) for the outermost such loop var with a positive
 * overlap extent - stride; the writer skips the overlap it computed in the
 * previous iteration (T.where var < 1 or offset >= overlap, per such axis).
 */
#include "cache_internal.h"
#include "compute_internal.h"

#include <string.h>

typedef struct axis_info {
  const tsl_var *var; /* NULL: no rolling over this dimension */
  int64_t overlap;
} axis_info;

/* TVM's patterns for the start of a tile: var, var * c, (var * c) // d. */
static const tsl_var *match_start(const tsl_expr *e, int64_t *stride) {
  int64_t c, d;
  if (e->kind == TSL_EXPR_VAR) {
    *stride = 1;
    return e->u.var;
  }
  if (e->kind == TSL_EXPR_MUL) {
    for (int k = 0; k < 2; k++)
      if (e->args[k]->kind == TSL_EXPR_VAR && tsl_expr_is_const_int(e->args[1 - k], &c)) {
        *stride = c;
        return e->args[k]->u.var;
      }
    return NULL;
  }
  if (e->kind == TSL_EXPR_FLOORDIV && tsl_expr_is_const_int(e->args[1], &d) && d > 0) {
    int64_t s;
    const tsl_var *v = match_start(e->args[0], &s);
    if (v && e->args[0]->kind != TSL_EXPR_VAR) {
      *stride = (s + d - 1) / d;
      return v;
    }
  }
  return NULL;
}

typedef struct start_search {
  sch_call *c;
  const tsl_expr *start;
  const tsl_var *var;
  int64_t stride;
} start_search;

static int find_start(const tsl_expr *e, void *ud) {
  start_search *ss = ud;
  int64_t stride;
  const tsl_var *v = match_start(e, &stride);
  if (v && tsl_analyzer_equal(ss->c->sch->an, ss->start, e)) {
    ss->var = v;
    ss->stride = stride;
    return 1;
  }
  return 0;
}

/* The region `r` of the block realized by `real` at path `p`, bindings
 * substituted and relaxed over the FOR levels > lca. */
static int relaxed(sch_call *c, const sch_path *p, uint32_t lca, const tsl_stmt *real,
                   const tsl_buffer_region *r, tsl_range *out) {
  const tsl_var *vars[SCH_MAX_DEPTH];
  tsl_range doms[SCH_MAX_DEPTH];
  uint32_t nv = 0;
  for (uint32_t k = 0; k + 1 < p->depth; k++) {
    const tsl_stmt *s = p->stmts[k];
    if (s->kind != TSL_STMT_FOR)
      continue;
    tsl_analyzer_bind(c->sch->an, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent);
    if (k > lca) {
      vars[nv] = s->u.loop.loop_var;
      doms[nv++] = (tsl_range){s->u.loop.min, s->u.loop.extent};
    }
  }
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_expr *lo = sch_subst_bindings(c, real, r->ranges[d].min);
    const tsl_expr *ext = sch_subst_bindings(c, real, r->ranges[d].extent);
    tsl_range r1, r2;
    const tsl_expr *hi = sch_simplify(
        c, tsl_expr_binary(c->arena, TSL_EXPR_SUB, tsl_expr_binary(c->arena, TSL_EXPR_ADD, lo, ext),
                           tsl_expr_int(c->arena, lo->dtype, 1)));
    if (tsl_analyzer_relax(c->sch->an, c->arena, lo, nv, vars, doms, &r1) ||
        tsl_analyzer_relax(c->sch->an, c->arena, hi, nv, vars, doms, &r2))
      return 0;
    const tsl_expr *end = sch_simplify(
        c, tsl_expr_binary(c->arena, TSL_EXPR_ADD, r2.min, r2.extent));
    out[d] = (tsl_range){r1.min,
                         sch_simplify(c, tsl_expr_binary(c->arena, TSL_EXPR_SUB, end, r1.min))};
  }
  return 1;
}

/* ---- the rewrite ---- */

typedef struct roll {
  tsl_mutator m;
  sch_call *c;
  const tsl_buffer *from, *to;
  uint32_t axis;
  const tsl_expr *extent;
  const axis_info *ax;
  uint32_t nd;
  int stored;
} roll;

static const tsl_expr *const *rolled(roll *st, uint32_t n, const tsl_expr *const *idx) {
  const tsl_expr **out = TSL_NEW_ARRAY(st->m.arena, const tsl_expr *, n + 1);
  memcpy(out, idx, sizeof *out * n);
  const tsl_expr *e = st->extent;
  if (e->dtype.bits != idx[st->axis]->dtype.bits)
    e = tsl_expr_int(st->m.arena, idx[st->axis]->dtype, e->u.int_value);
  out[st->axis] = tsl_expr_binary(st->m.arena, TSL_EXPR_FLOORMOD, idx[st->axis], e);
  return out;
}

static const tsl_expr *roll_expr(tsl_mutator *m, const tsl_expr *e) {
  roll *st = (roll *)m;
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == st->from)
    return tsl_expr_load(m->arena, st->to, r->n_args, rolled(st, r->n_args, r->args));
  return r;
}

static const tsl_buffer_region *swap_regions(roll *st, uint32_t n, const tsl_buffer_region *rs,
                                             uint32_t ni, const tsl_buffer_region *inferred) {
  tsl_buffer_region *out = TSL_NEW_ARRAY(st->m.arena, tsl_buffer_region, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    out[i] = rs[i];
    if (rs[i].buffer != st->from)
      continue;
    const tsl_buffer_region *f = NULL;
    for (uint32_t k = 0; k < ni && !f; k++)
      if (inferred[k].buffer == st->to)
        f = &inferred[k];
    if (f) {
      out[i] = *f;
      continue;
    }
    /* not inferred (e.g. an update read left out): the whole window */
    tsl_range *r = TSL_NEW_ARRAY(st->m.arena, tsl_range, rs[i].ndim + 1);
    memcpy(r, rs[i].ranges, sizeof *r * rs[i].ndim);
    r[st->axis] = (tsl_range){tsl_expr_int(st->m.arena, st->extent->dtype, 0), st->extent};
    out[i] = (tsl_buffer_region){st->to, rs[i].ndim, r};
  }
  return out;
}

static const tsl_stmt *roll_stmt(tsl_mutator *m, const tsl_stmt *s) {
  roll *st = (roll *)m;
  if (s->kind == TSL_STMT_STORE && s->u.store.buffer == st->from) {
    const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
    st->stored = 1;
    return tsl_stmt_store(m->arena, st->to, r->u.store.value, r->u.store.n_indices,
                          rolled(st, r->u.store.n_indices, r->u.store.indices));
  }
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return tsl_mutate_stmt_children(m, s);
  const tsl_block *b = s->u.realize.block;
  if (!sch_regions_have(b->reads, b->n_reads, st->from) &&
      !sch_regions_have(b->writes, b->n_writes, st->from))
    return s;
  int outer = st->stored;
  st->stored = 0;
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  int stored = st->stored;
  st->stored = outer;
  tsl_block *nb = tsl_block_clone(m->arena, r->u.realize.block);
  if (st->axis < nb->n_iter_vars) {
    tsl_iter_var *ivs = TSL_NEW_ARRAY(m->arena, tsl_iter_var, nb->n_iter_vars);
    memcpy(ivs, nb->iter_vars, sizeof *ivs * nb->n_iter_vars);
    ivs[st->axis].iter_type = TSL_ITER_OPAQUE;
    nb->iter_vars = ivs;
  }
  tsl_buffer_region *rd = NULL, *wr = NULL;
  uint32_t nr = 0, nw = 0;
  tsl_diag dg = {0};
  if (tsl_block_infer_regions(m->arena, nb, &rd, &nr, &wr, &nw, &dg))
    nr = nw = 0;
  nb->reads = swap_regions(st, b->n_reads, b->reads, nr, rd);
  nb->writes = swap_regions(st, b->n_writes, b->writes, nw, wr);
  const tsl_expr *pred = r->u.realize.predicate;
  if (stored) {
    /* skip the overlap computed in the previous iteration of each var */
    const tsl_buffer_region *w = NULL;
    for (uint32_t i = 0; i < b->n_writes && !w; i++)
      if (b->writes[i].buffer == st->from)
        w = &b->writes[i];
    for (uint32_t d = 0; d < st->nd && w; d++) {
      if (!st->ax[d].var || st->ax[d].overlap <= 0)
        continue;
      const tsl_var *v = st->ax[d].var;
      const tsl_expr *idx = sch_subst_bindings(st->c, s, w->ranges[d].min);
      tsl_map zero;
      tsl_map_init(&zero, m->arena);
      tsl_map_put(&zero, v, (void *)tsl_expr_int(m->arena, v->dtype, 0));
      const tsl_expr *off = sch_simplify(st->c, tsl_expr_substitute_map(m->arena, idx, &zero));
      const tsl_expr *c1 = tsl_expr_binary(m->arena, TSL_EXPR_LT, tsl_expr_var(v),
                                           tsl_expr_int(m->arena, v->dtype, 1));
      const tsl_expr *c2 = tsl_expr_binary(m->arena, TSL_EXPR_GE, off,
                                           tsl_expr_int(m->arena, off->dtype, st->ax[d].overlap));
      const tsl_expr *cond = tsl_expr_binary(m->arena, TSL_EXPR_OR, c1, c2);
      pred = pred->kind == TSL_EXPR_INT_IMM && pred->u.int_value
                 ? cond
                 : tsl_expr_binary(m->arena, TSL_EXPR_AND, pred, cond);
    }
  }
  return tsl_stmt_block_realize(m->arena, r->u.realize.n_iter_values,
                                r->u.realize.iter_values, pred, nb);
}

/* ---- the primitive ---- */

typedef struct rb_ctx {
  sch_call *c;
  sch_path p; /* the block */
  const tsl_block *blk;
  const tsl_stmt *real;
  const tsl_buffer_region *reg; /* the region written to the buffer rolled */
  const tsl_buffer *buf;
  cmp_scope s;
  uint32_t *cons, n_cons; /* the consumers (indices of s.kids) */
  uint32_t lca;           /* level of the loop shared with them */
  uint32_t nd;
  tsl_range *rr;          /* the region written per iteration of the loops down to the lca */
  axis_info *ax;
  int axis;               /* the dimension rolled */
} rb_ctx;

/* The block and the buffer it writes, not an output of the scope. */
static int find_block(sch_call *c, rb_ctx *x) {
  int rc = sch_block_path(c, c->args[0].u.rv, &x->p);
  if (rc)
    return rc;
  x->c = c;
  x->blk = sch_path_block(&x->p);
  x->real = sch_path_target(&x->p);
  if (x->p.depth < 2)
    return sch_fail(c, TSL_EINVALID, "block '%s' is the root block", x->blk->name);
  rc = sto_check_index(c, x->blk, c->args[1].u.i, 1, "write_buffer_index");
  if (rc)
    return rc;
  x->reg = &x->blk->writes[c->args[1].u.i];
  x->buf = x->reg->buffer;
  cmp_scope_of(c, &x->p, &x->s);
  if (cmp_is_output(&x->s, x->blk))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' is an output block (it writes a buffer its scope block "
                    "'%s' does not allocate)", x->blk->name, x->s.block->name);
  return TSL_OK;
}

/* Only read-after-write dependencies between the block and the others. */
static int check_raw_only(rb_ctx *x) {
  const cmp_scope *s = &x->s;
  for (uint32_t k = 0; k < s->n; k++) {
    if (k == s->self)
      continue;
    const tsl_block *o = cmp_kid(s, k);
    const tsl_block *src = k < s->self ? o : x->blk, *dst = k < s->self ? x->blk : o;
    for (uint32_t w = 0; w < dst->n_writes; w++) {
      const tsl_buffer *b = dst->writes[w].buffer;
      int waw = sch_regions_have(src->writes, src->n_writes, b);
      if (waw || sch_regions_have(src->reads, src->n_reads, b))
        return sch_fail(x->c, TSL_EINVALID,
                        "block '%s' must have only read-after-write dependencies, but "
                        "block '%s' writes '%s' after block '%s' %s it (%s)",
                        x->blk->name, dst->name, b->name, src->name, waw ? "wrote" : "read",
                        waw ? "write-after-write" : "write-after-read");
    }
  }
  return TSL_OK;
}

/* The lowest common ancestor of the block and its consumers, a loop. */
static int find_lca(rb_ctx *x) {
  const sch_path *p = &x->p;
  x->n_cons = cmp_consumers(x->c, &x->s, x->s.self, &x->cons);
  uint32_t common = p->depth;
  for (uint32_t i = 0; i < x->n_cons; i++) {
    const sch_path *q = &x->s.kids[x->cons[i]];
    uint32_t k = 0;
    while (k < common && k < q->depth && q->stmts[k] == p->stmts[k])
      k++;
    common = k;
  }
  uint32_t lca = common - 1;
  while (lca > 0 && p->stmts[lca]->kind != TSL_STMT_FOR &&
         p->stmts[lca]->kind != TSL_STMT_BLOCK_REALIZE)
    lca--;
  x->lca = lca;
  if (p->stmts[lca]->kind != TSL_STMT_FOR)
    return sch_fail(x->c, TSL_EINVALID,
                    "block '%s' and the consumers of '%s' must share a loop (compute the "
                    "block at a loop of its consumers first): their lowest common "
                    "ancestor is %s", x->blk->name, x->buf->name,
                    lca == p->depth - 1 ? "the block itself (it has no consumer)"
                                        : "not a loop");
  return TSL_OK;
}

/* The region written per iteration of the loops down to the lca, and for
 * each dimension the var its start rolls with and the overlap. */
static int find_axes(rb_ctx *x) {
  sch_call *c = x->c;
  const tsl_buffer *buf = x->buf;
  uint32_t nd = x->nd = buf->ndim;
  x->rr = TSL_NEW_ARRAY(c->arena, tsl_range, nd + 1);
  if (!relaxed(c, &x->p, x->lca, x->real, x->reg, x->rr))
    return sch_fail(c, TSL_EUNSUPPORTED, "cannot bound the region of '%s' that block '%s' "
                    "writes", buf->name, x->blk->name);
  x->ax = TSL_NEW_ARRAY(c->arena, axis_info, nd + 1);
  for (uint32_t d = 0; d < nd; d++) {
    const tsl_range *rd = &x->rr[d];
    int64_t ext;
    if (tsl_expr_is_const_int(rd->min, NULL))
      continue;
    /* the pattern as written in the index (the simplifier may have
     * rewritten (v * 5) // 2 as v * 2 + v // 2), equal to the start */
    start_search ss = {c, rd->min, NULL, 0};
    tsl_expr_visit(sch_subst_bindings(c, x->real, x->reg->ranges[d].min), find_start, &ss);
    if (!ss.var || !tsl_expr_is_const_int(rd->extent, &ext))
      return sch_fail(c, TSL_EINVALID,
                      "the region of '%s' that block '%s' writes per iteration starts "
                      "at %s in dimension %u; rolling needs a start of the form "
                      "var * stride (or (var * stride) // divisor) with a constant "
                      "extent", buf->name, x->blk->name, cmp_expr_str(c, rd->min), d);
    if (ext - ss.stride > 0)
      x->ax[d] = (axis_info){ss.var, ext - ss.stride};
  }
  return TSL_OK;
}

/* The dimension rolled: the one that rolls with the outermost loop. */
static int pick_axis(rb_ctx *x) {
  const sch_path *p = &x->p;
  x->axis = -1;
  for (uint32_t k = x->s.level + 1; k + 1 < p->depth && x->axis < 0; k++) {
    if (p->stmts[k]->kind != TSL_STMT_FOR)
      continue;
    for (uint32_t d = 0; d < x->nd && x->axis < 0; d++)
      if (x->ax[d].var == p->stmts[k]->u.loop.loop_var)
        x->axis = (int)d;
  }
  if (x->axis < 0)
    return sch_fail(x->c, TSL_EINVALID,
                    "no dimension of '%s' overlaps between iterations of a loop: the "
                    "region block '%s' writes per iteration must start at var * stride "
                    "(var a loop around the block) and extend past the stride",
                    x->buf->name, x->blk->name);
  return TSL_OK;
}

/* Iterations of the rolling loop down to the lca run one after the other
 * (each reuses what the previous one computed). */
static int check_in_order(rb_ctx *x) {
  const sch_path *p = &x->p;
  const tsl_var *rv = x->ax[x->axis].var;
  for (uint32_t k = x->s.level + 1; k <= x->lca; k++) {
    const tsl_stmt *l = p->stmts[k];
    if (l->kind != TSL_STMT_FOR)
      continue;
    int from_var = 0;
    for (uint32_t j = x->s.level + 1; j <= k; j++)
      from_var |= p->stmts[j]->kind == TSL_STMT_FOR && p->stmts[j]->u.loop.loop_var == rv;
    if (from_var && l->u.loop.for_kind != TSL_FOR_SERIAL &&
        l->u.loop.for_kind != TSL_FOR_UNROLLED)
      return sch_fail(x->c, TSL_EINVALID,
                      "%s loop '%s'%s is %s; rolling needs the iterations from the rolling "
                      "loop '%s' down to the loop shared with the consumers to run in order",
                      l->u.loop.loop_var == rv ? "the rolling" : "the",
                      l->u.loop.loop_var->name,
                      l->u.loop.loop_var == rv ? "" : " (inside the rolling loop)",
                      tsl_for_kind_name((tsl_for_kind)l->u.loop.for_kind), rv->name);
  }
  return TSL_OK;
}

/* The conjuncts of `e`, every one, in order, into `conj` (a tsl_vec of
 * const tsl_expr *). */
static void where_conjuncts(const tsl_expr *e, tsl_vec *conj) {
  if (e->kind == TSL_EXPR_AND) {
    where_conjuncts(e->args[0], conj);
    where_conjuncts(e->args[1], conj);
  } else {
    TSL_VEC_PUSH(conj, const tsl_expr *, e);
  }
}

/* 1 when conjunct `e` of the writer's T.where is `idx < lim` (or <=) that
 * only drops points at or past the end of the buffer in some dimension. */
static int drops_outside_only(rb_ctx *x, const tsl_expr *e) {
  sch_call *c = x->c;
  if (e->kind != TSL_EXPR_LT && e->kind != TSL_EXPR_LE)
    return 0;
  for (uint32_t d = 0; d < x->nd; d++) {
    const tsl_expr *idx = sch_subst_bindings(c, x->real, x->reg->ranges[d].min);
    const tsl_expr *lim = x->buf->shape[d];
    if (e->kind == TSL_EXPR_LE)
      lim = tsl_expr_binary(c->arena, TSL_EXPR_SUB, lim, tsl_expr_int(c->arena, lim->dtype, 1));
    if (lim->dtype.bits != e->args[1]->dtype.bits)
      lim = tsl_expr_cast(c->arena, e->args[1]->dtype, lim);
    if (tsl_analyzer_equal(c->sch->an, e->args[0], idx) &&
        tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(c->arena, TSL_EXPR_GE, e->args[1], lim)))
      return 1;
  }
  return 0;
}

/* The writer's T.where may only drop points outside the buffer: the overlap
 * it skips must have been written by the previous iteration. */
static int check_predicate(rb_ctx *x) {
  tsl_vec conj;
  tsl_vec_init(&conj, sizeof(const tsl_expr *), x->c->arena);
  where_conjuncts(x->real->u.realize.predicate, &conj);
  const tsl_expr **items = TSL_VEC_DATA(&conj, const tsl_expr *);
  for (uint32_t i = 0; i < conj.len; i++) {
    const tsl_expr *e = items[i];
    if (e->kind == TSL_EXPR_INT_IMM && e->u.int_value)
      continue;
    if (!drops_outside_only(x, e))
      return sch_fail(x->c, TSL_EINVALID,
                      "block '%s' has a T.where (%s) that may skip elements of the window "
                      "it writes; a rolling buffer assumes each iteration writes its whole "
                      "window", x->blk->name, cmp_expr_str(x->c, e));
  }
  return TSL_OK;
}

/* The consumers read inside the window written in the same iteration. */
static int check_consumers(rb_ctx *x) {
  sch_call *c = x->c;
  tsl_arena *a = c->arena;
  tsl_range *kg = TSL_NEW_ARRAY(a, tsl_range, x->nd + 1);
  const tsl_expr *wlo = x->rr[x->axis].min;
  const tsl_expr *whi = tsl_expr_binary(a, TSL_EXPR_ADD, wlo, x->rr[x->axis].extent);
  for (uint32_t i = 0; i < x->n_cons; i++) {
    const sch_path *kp = &x->s.kids[x->cons[i]];
    const tsl_block *k = cmp_kid(&x->s, x->cons[i]);
    for (uint32_t r = 0; r < k->n_reads; r++) {
      if (k->reads[r].buffer != x->buf)
        continue;
      int ok = relaxed(c, kp, x->lca, sch_path_target(kp), &k->reads[r], kg);
      if (ok) {
        const tsl_expr *lo = kg[x->axis].min;
        const tsl_expr *hi = tsl_expr_binary(a, TSL_EXPR_ADD, lo, kg[x->axis].extent);
        ok = tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(a, TSL_EXPR_LE, wlo, lo)) &&
             tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(a, TSL_EXPR_LE, hi, whi));
      }
      if (!ok)
        return sch_fail(c, TSL_EINVALID,
                        "block '%s' reads '%s' outside the window block '%s' writes in "
                        "the same iteration (dimension %d); a rolling buffer would have "
                        "overwritten those elements", k->name, x->buf->name, x->blk->name,
                        x->axis);
    }
  }
  return TSL_OK;
}

/* The rolled buffer, allocated in place of the buffer, and every access of
 * the scope rewritten to it. */
static void rewrite(rb_ctx *x) {
  sch_call *c = x->c;
  const tsl_buffer *buf = x->buf;
  uint32_t nd = x->nd, axis = (uint32_t)x->axis;
  const tsl_expr **shape = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd + 1);
  memcpy(shape, buf->shape, sizeof *shape * nd);
  shape[axis] = x->rr[axis].extent;
  if (shape[axis]->dtype.bits != buf->shape[axis]->dtype.bits)
    shape[axis] = tsl_expr_int(c->arena, buf->shape[axis]->dtype, shape[axis]->u.int_value);
  const tsl_buffer *nbuf =
      tsl_buffer_new(c->arena, buf->name, buf->dtype, nd, shape, buf->strides, buf->elem_offset,
                     buf->scope, buf->align, buf->offset_factor);
  roll st;
  memset(&st, 0, sizeof st);
  st.m = tsl_mutator_make(c->arena);
  st.m.expr = roll_expr;
  st.m.stmt = roll_stmt;
  st.c = c;
  st.from = buf;
  st.to = nbuf;
  st.axis = axis;
  st.extent = shape[axis];
  st.ax = x->ax;
  st.nd = nd;
  const tsl_stmt *body = tsl_mutate_stmt(&st.m, x->s.block->body);
  tsl_block *sb = tsl_block_clone(c->arena, x->s.block);
  sb->body = body;
  const tsl_buffer **al = TSL_NEW_ARRAY(c->arena, const tsl_buffer *, sb->n_alloc_buffers + 1);
  for (uint32_t i = 0; i < sb->n_alloc_buffers; i++)
    al[i] = sb->alloc_buffers[i] == buf ? nbuf : sb->alloc_buffers[i];
  sb->alloc_buffers = al;
  const tsl_stmt *nr = sch_with_block(c->arena, x->s.path.stmts[x->s.level], sb);
  sch_commit(c, x->p.func, sch_path_rebuild(c->arena, &x->p, x->s.level, nr));
}

int sch_apply_rolling_buffer(sch_call *c) {
  rb_ctx x;
  memset(&x, 0, sizeof x);
  int rc;
  if ((rc = find_block(c, &x)) || (rc = check_raw_only(&x)) || (rc = find_lca(&x)) ||
      (rc = find_axes(&x)) || (rc = pick_axis(&x)) || (rc = check_in_order(&x)) ||
      (rc = check_predicate(&x)) || (rc = check_consumers(&x)))
    return rc;
  rewrite(&x);
  return TSL_OK;
}
