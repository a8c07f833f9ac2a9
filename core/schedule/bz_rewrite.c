/*
 * bz_rewrite.c: the statement rewriter and variable map that blockize and
 * tensorize share (see bz_internal.h).
 */
#include "bz_internal.h"

#include <string.h>

/* ---- variable map ------------------------------------------------------ */

void bz_map_init(bz_map *m, tsl_arena *a) {
  memset(m, 0, sizeof *m);
  m->a = a;
}

void bz_map_set(bz_map *m, const tsl_var *v, const tsl_expr *e) {
  for (uint32_t i = 0; i < m->n; i++)
    if (m->from[i] == v) {
      m->to[i] = e;
      return;
    }
  if (m->n == m->cap) {
    uint32_t cap = m->cap ? m->cap * 2 : 16;
    const tsl_var **f = TSL_NEW_ARRAY(m->a, const tsl_var *, cap);
    const tsl_expr **t = TSL_NEW_ARRAY(m->a, const tsl_expr *, cap);
    if (m->n) {
      memcpy(f, m->from, sizeof *f * m->n);
      memcpy(t, m->to, sizeof *t * m->n);
    }
    m->from = f;
    m->to = t;
    m->cap = cap;
  }
  m->from[m->n] = v;
  m->to[m->n++] = e;
}

const tsl_expr *bz_map_get(const bz_map *m, const tsl_var *v) {
  for (uint32_t i = 0; i < m->n; i++)
    if (m->from[i] == v)
      return m->to[i];
  return NULL;
}

const tsl_expr *bz_map_subst(const tsl_var *v, void *map) {
  return bz_map_get((const bz_map *)map, v);
}

/* ---- rewriter ------------------------------------------------------------ */

static const tsl_buffer *rw_buf(bz_rw *rw, const tsl_buffer *b) {
  return rw->buffer ? rw->buffer(rw, b) : b;
}
static const tsl_var *rw_def(bz_rw *rw, const tsl_var *v) {
  return rw->def ? rw->def(rw, v) : v;
}

tsl_buffer_region bz_rw_region(bz_rw *rw, const tsl_buffer_region *r) {
  tsl_buffer_region out = *r;
  out.buffer = rw_buf(rw, r->buffer);
  tsl_range *rs = TSL_NEW_ARRAY(rw->a, tsl_range, r->ndim + 1);
  for (uint32_t d = 0; d < r->ndim; d++) {
    rs[d].min = rw->expr(rw, r->ranges[d].min);
    rs[d].extent = rw->expr(rw, r->ranges[d].extent);
  }
  out.ranges = rs;
  return out;
}

static const tsl_buffer_region *rw_regions(bz_rw *rw, uint32_t n,
                                           const tsl_buffer_region *r) {
  if (!n)
    return r;
  tsl_buffer_region *out = TSL_NEW_ARRAY(rw->a, tsl_buffer_region, n);
  for (uint32_t i = 0; i < n; i++)
    out[i] = bz_rw_region(rw, &r[i]);
  return out;
}

static const tsl_expr **rw_exprs(bz_rw *rw, uint32_t n,
                                 const tsl_expr *const *e) {
  const tsl_expr **out = TSL_NEW_ARRAY(rw->a, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++)
    out[i] = rw->expr(rw, e[i]);
  return out;
}

static const tsl_stmt *rw_realize(bz_rw *rw, const tsl_stmt *s) {
  tsl_arena *a = rw->a;
  const tsl_block *b = s->u.realize.block;
  const tsl_expr **vals =
      rw_exprs(rw, s->u.realize.n_iter_values, s->u.realize.iter_values);
  const tsl_expr *pred = rw->expr(rw, s->u.realize.predicate);
  tsl_block *nb = tsl_block_clone(a, b);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, b->n_iter_vars + 1);
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    ivs[i] = b->iter_vars[i];
    ivs[i].dom.min = rw->expr(rw, b->iter_vars[i].dom.min);
    ivs[i].dom.extent = rw->expr(rw, b->iter_vars[i].dom.extent);
    ivs[i].var = rw_def(rw, b->iter_vars[i].var);
  }
  nb->iter_vars = ivs;
  if (b->n_alloc_buffers) {
    const tsl_buffer **al =
        TSL_NEW_ARRAY(a, const tsl_buffer *, b->n_alloc_buffers);
    for (uint32_t i = 0; i < b->n_alloc_buffers; i++)
      al[i] = rw_buf(rw, b->alloc_buffers[i]);
    nb->alloc_buffers = al;
  }
  if (b->n_match_buffers) {
    tsl_match_buffer *mbs =
        TSL_NEW_ARRAY(a, tsl_match_buffer, b->n_match_buffers);
    for (uint32_t i = 0; i < b->n_match_buffers; i++) {
      mbs[i].source = bz_rw_region(rw, &b->match_buffers[i].source);
      mbs[i].buffer = rw_buf(rw, b->match_buffers[i].buffer);
    }
    nb->match_buffers = mbs;
  }
  nb->reads = rw_regions(rw, b->n_reads, b->reads);
  nb->writes = rw_regions(rw, b->n_writes, b->writes);
  nb->init = b->init ? bz_rw_stmt(rw, b->init) : NULL;
  nb->body = bz_rw_stmt(rw, b->body);
  return tsl_stmt_block_realize(a, s->u.realize.n_iter_values, vals, pred, nb);
}

const tsl_stmt *bz_rw_stmt(bz_rw *rw, const tsl_stmt *s) {
  tsl_arena *a = rw->a;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_expr *mn = rw->expr(rw, s->u.loop.min);
    const tsl_expr *ext = rw->expr(rw, s->u.loop.extent);
    const tsl_var *v = rw_def(rw, s->u.loop.loop_var);
    const tsl_stmt *body = bz_rw_stmt(rw, s->u.loop.body);
    return tsl_stmt_for(a, v, mn, ext, (tsl_for_kind)s->u.loop.for_kind,
                        s->u.loop.thread_tag, s->u.loop.annotations, body);
  }
  case TSL_STMT_BLOCK_REALIZE:
    return rw_realize(rw, s);
  case TSL_STMT_STORE: {
    const tsl_expr **idx = rw_exprs(rw, s->u.store.n_indices, s->u.store.indices);
    const tsl_expr *val = rw->expr(rw, s->u.store.value);
    return tsl_stmt_store(a, rw_buf(rw, s->u.store.buffer), val,
                          s->u.store.n_indices, idx);
  }
  case TSL_STMT_IF: {
    const tsl_expr *c = rw->expr(rw, s->u.branch.cond);
    const tsl_stmt *t = bz_rw_stmt(rw, s->u.branch.then_case);
    const tsl_stmt *e =
        s->u.branch.else_case ? bz_rw_stmt(rw, s->u.branch.else_case) : NULL;
    return tsl_stmt_if(a, c, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_expr *val = rw->expr(rw, s->u.let.value);
    const tsl_var *v = rw_def(rw, s->u.let.var);
    return tsl_stmt_let(a, v, val, bz_rw_stmt(rw, s->u.let.body));
  }
  case TSL_STMT_EVALUATE:
    return tsl_stmt_evaluate(a, rw->expr(rw, s->u.evaluate.value));
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n);
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      xs[i] = bz_rw_stmt(rw, s->u.seq.stmts[i]);
    return tsl_stmt_seq(a, s->u.seq.n, xs);
  }
  case TSL_STMT_ALLOCATE: /* lowered programs: see core/lower */
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return s;
}
