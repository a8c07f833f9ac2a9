/*
 * reindex_cache_read and reindex_cache_write (TVM's ReindexCacheRead /
 * ReindexCacheWrite): a cache "<buffer>_<scope>" laid out by an index map
 * of the block's iterators. The block's single-point access becomes an
 * access of the cache at the mapped iterators; a copy stage (placed where
 * cache_read / cache_write put theirs) runs the block's iterators that the
 * access uses over the loops between the stage and the block that feed
 * them, and copies between the buffer at the old indices and the cache at
 * the mapped ones.
 */
#include "cache_internal.h"
#include "compute_internal.h"
#include "layout_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- rewriting the block ---- */

typedef struct rc_rw {
  tsl_mutator m;
  const tsl_block *blk;
  const tsl_block *nblk;
  sto_place place;
} rc_rw;

typedef struct acc {
  const tsl_buffer *buf, *cache;
  const tsl_expr *const *idx; /* the cache's indices */
  tsl_buffer_region region;
} acc;

static const tsl_expr *acc_expr(tsl_mutator *m, const tsl_expr *e) {
  const acc *x = m->user_data;
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == x->buf)
    return tsl_expr_load(m->arena, x->cache, x->cache->ndim, x->idx);
  return r;
}

static const tsl_stmt *acc_stmt(tsl_mutator *m, const tsl_stmt *s) {
  const acc *x = m->user_data;
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (r && s->kind == TSL_STMT_STORE && s->u.store.buffer == x->buf)
    return tsl_stmt_store(m->arena, x->cache, r->u.store.value, x->cache->ndim, x->idx);
  return r;
}

static const tsl_buffer_region *acc_regions(tsl_arena *a, const acc *x, uint32_t n,
                                            const tsl_buffer_region *rs) {
  tsl_buffer_region *out = TSL_NEW_ARRAY(a, tsl_buffer_region, n + 1);
  for (uint32_t i = 0; i < n; i++)
    out[i] = rs[i].buffer == x->buf ? x->region : rs[i];
  return out;
}

/* The block with every access of the buffer moved to the cache. */
static const tsl_block *move_accesses(sch_call *c, const tsl_block *b, const acc *x) {
  tsl_mutator m = tsl_mutator_make(c->arena);
  m.expr = acc_expr;
  m.stmt = acc_stmt;
  m.user_data = (void *)x;
  tsl_block *nb = tsl_block_clone(c->arena, b);
  nb->body = tsl_mutate_stmt(&m, b->body);
  nb->init = b->init ? tsl_mutate_stmt(&m, b->init) : NULL;
  nb->reads = acc_regions(c->arena, x, b->n_reads, b->reads);
  nb->writes = acc_regions(c->arena, x, b->n_writes, b->writes);
  if (b->n_match_buffers) {
    tsl_match_buffer *mb = TSL_NEW_ARRAY(c->arena, tsl_match_buffer, b->n_match_buffers);
    for (uint32_t i = 0; i < b->n_match_buffers; i++) {
      mb[i] = b->match_buffers[i];
      if (mb[i].source.buffer == x->buf)
        mb[i].source = x->region;
    }
    nb->match_buffers = mb;
  }
  return nb;
}

static const tsl_stmt *scope_stmt(tsl_mutator *m, const tsl_stmt *s) {
  rc_rw *st = (rc_rw *)m;
  if (s->kind == TSL_STMT_BLOCK_REALIZE)
    return s->u.realize.block == st->blk ? sch_with_block(m->arena, s, st->nblk) : s;
  return sto_place_in(m->arena, &st->place, s, tsl_mutate_stmt_children(m, s));
}

/* ---- checks on the block's accesses ---- */

typedef struct chk {
  const tsl_buffer *buf;
  const tsl_expr *const *point;
  int bad, nested;
} chk;

static int chk_expr_fn(const tsl_expr *e, void *ud) {
  chk *k = ud;
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == k->buf)
    for (uint32_t d = 0; d < e->n_args; d++)
      k->bad |= !tsl_expr_equal(e->args[d], k->point[d]);
  return 0;
}
static int chk_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, chk_expr_fn, ud);
}
static int chk_stmt(const tsl_stmt *s, void *ud) {
  chk *k = ud;
  if (s->kind == TSL_STMT_STORE && s->u.store.buffer == k->buf)
    for (uint32_t d = 0; d < s->u.store.n_indices; d++)
      k->bad |= !tsl_expr_equal(s->u.store.indices[d], k->point[d]);
  return 0;
}
static int chk_block(const tsl_block *b, const tsl_stmt *r, void *ud) {
  (void)b;
  (void)r;
  ((chk *)ud)->nested = 1;
  return 1;
}

/* ---- the primitive ---- */

typedef struct rc_loop {
  const tsl_stmt *loop; /* a loop between the stage and the block */
  const tsl_var *var;   /* the stage's copy of its variable */
} rc_loop;

typedef struct rc_state {
  sch_call *c;
  tsl_arena *a;
  int is_write;
  cache_op op;
  cmp_scope s;
  const tsl_block *blk;
  const tsl_buffer *buf;
  const tsl_stmt *real;
  const tsl_buffer_region *reg;      /* the block's access of buf */
  const tsl_expr **old_idx;          /* the point of reg */
  uint32_t niv;
  const tsl_var **ivars;             /* the block's iterators */
  const tsl_expr **shape, **new_idx; /* the cache's shape and indices */
  uint32_t nout;                     /* the cache's rank */
  char *touched;                     /* by iterator: the access uses it */
  uint32_t nt;                       /* iterators touched */
  tsl_vec loops;                     /* rc_loop: the stage's loops, outermost first */
  tsl_map skipped;                   /* loop var -> loop: the other loops in between */
  tsl_map vmap;                      /* old loop / iter var -> new var expression */
  tsl_iter_var *ivs;                 /* the stage's iterators (nt) and bindings */
  const tsl_expr **vals;
  const tsl_expr *pred;
  const tsl_buffer *cache;
  tsl_str name; /* of the stage */
} rc_state;

static int rc_load(rc_state *st, sch_call *c, int is_write) {
  memset(st, 0, sizeof *st);
  st->c = c;
  st->a = c->arena;
  st->is_write = is_write;
  int rc = cache_load(&st->op, c, is_write, 1, 2, -1);
  if (rc)
    return rc;
  st->blk = st->op.blk;
  st->buf = st->op.buf;
  st->real = sch_path_target(&st->op.p);
  cmp_scope_of(c, &st->op.p, &st->s);
  rc = cmp_check_stage_pipeline(c, &st->s);
  if (rc)
    return rc;
  st->reg = is_write ? &st->blk->writes[c->args[1].u.i] : &st->blk->reads[c->args[1].u.i];
  st->niv = st->blk->n_iter_vars;
  return TSL_OK;
}

/* A single point, accessed only there, in a leaf block. */
static int rc_check_point(rc_state *st) {
  sch_call *c = st->c;
  const tsl_block *blk = st->blk;
  const tsl_buffer_region *reg = st->reg;
  for (uint32_t d = 0; d < reg->ndim; d++) {
    int64_t e;
    if (!tsl_expr_is_const_int(reg->ranges[d].extent, &e) || e != 1)
      return sch_fail(c, TSL_EINVALID,
                      "the region of '%s' that block '%s' %s is not a single point "
                      "(dimension %u has extent %s)",
                      st->buf->name, blk->name, st->is_write ? "writes" : "reads", d,
                      cmp_expr_str(c, reg->ranges[d].extent));
  }
  st->old_idx = TSL_NEW_ARRAY(st->a, const tsl_expr *, reg->ndim + 1);
  for (uint32_t d = 0; d < reg->ndim; d++)
    st->old_idx[d] = reg->ranges[d].min;
  chk k = {st->buf, st->old_idx, 0, 0};
  tsl_stmt_visitor v = {chk_stmt, chk_block, chk_expr, NULL, &k};
  tsl_stmt_visit(blk->body, &v);
  if (blk->init && !k.nested)
    tsl_stmt_visit(blk->init, &v);
  if (k.nested)
    return sch_fail(c, TSL_EINVALID, "block '%s' is not a leaf block (it contains other "
                    "blocks)", blk->name);
  if (k.bad)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' accesses '%s' at points other than its declared "
                    "single-point region", blk->name, st->buf->name);
  return TSL_OK;
}

/* Where the stage goes: as for cache_read / cache_write; a read of a buffer
 * no block in the scope writes goes first in the scope body. */
static int rc_locate(rc_state *st) {
  cache_op *op = &st->op;
  sch_call *c = st->c;
  const tsl_block *blk = st->blk;
  int rc = cache_find_writer(op, &op->writer);
  if (rc)
    return rc;
  if (!st->is_write) {
    if (op->writer >= 0) {
      op->related = &op->blk;
      op->n_related = 1;
      return cache_locate(op);
    }
    const tsl_stmt *body = st->s.block->body;
    op->loc_seq = body->kind == TSL_STMT_SEQ ? body : NULL;
    op->loc_pos = 0;
    return TSL_OK;
  }
  if (op->writer < 0 || cache_kid(op, (uint32_t)op->writer) != blk)
    return sch_fail(c, TSL_EINVALID, "block '%s' is not the only writer of '%s' in its scope",
                    blk->name, st->buf->name);
  if (!blk->init && sch_regions_have(blk->reads, blk->n_reads, st->buf))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' reads '%s' before writing it (an update without "
                    "T.init()); the cache would start uninitialized",
                    blk->name, st->buf->name);
  tsl_vec related; /* const tsl_block *: the readers after the block */
  tsl_vec_init(&related, sizeof(const tsl_block *), st->a);
  for (uint32_t i = (uint32_t)op->writer + 1; i < op->n_kids; i++) {
    const tsl_block *b = cache_kid(op, i);
    if (sch_regions_have(b->reads, b->n_reads, st->buf))
      TSL_VEC_PUSH(&related, const tsl_block *, b);
  }
  op->related = related.data;
  op->n_related = related.len;
  return cache_locate(op);
}

/* The index map over the block's iterators: the cache's shape and indices. */
static int rc_index_map(rc_state *st) {
  sch_call *c = st->c;
  const tsl_block *blk = st->blk;
  const tsl_sch_lambda *lam = c->args[3].u.lambda;
  uint32_t niv = st->niv;
  if (lam->n_params != niv)
    return sch_fail(c, TSL_EINVALID,
                    "index_map takes %u parameter%s but block '%s' has %u iterator%s",
                    lam->n_params, lam->n_params == 1 ? "" : "s", blk->name, niv,
                    niv == 1 ? "" : "s");
  st->ivars = TSL_NEW_ARRAY(st->a, const tsl_var *, niv + 1);
  const tsl_expr **iext = TSL_NEW_ARRAY(st->a, const tsl_expr *, niv + 1);
  const tsl_expr **irefs = TSL_NEW_ARRAY(st->a, const tsl_expr *, niv + 1);
  for (uint32_t i = 0; i < niv; i++) {
    st->ivars[i] = blk->iter_vars[i].var;
    iext[i] = blk->iter_vars[i].dom.extent;
    irefs[i] = st->ivars[i]->ref;
    tsl_analyzer_bind(c->sch->an, st->ivars[i], blk->iter_vars[i].dom.min,
                      blk->iter_vars[i].dom.extent);
  }
  lay_map im;
  int rc = lay_map_from_lambda(c, 3, lay_block_default_dtype(blk), LAY_ANY_ARITY, NULL,
                               &im);
  if (!rc)
    rc = lay_map_shape(c, &im, iext, "index_map", &st->shape);
  if (rc)
    return rc;
  st->nout = im.n_out;
  st->new_idx = lay_map_apply(c, &im, irefs);
  return TSL_OK;
}

/* The stage reads the buffer at the old indices for every point of the
 * iterators: a guarded access (T.if_then_else(v >= 1, A[v - 1], ..)) would
 * read outside it. */
static int rc_check_in_bounds(rc_state *st) {
  sch_call *c = st->c;
  tsl_arena *a = st->a;
  const tsl_buffer *buf = st->buf;
  for (uint32_t d = 0; d < st->reg->ndim; d++) {
    const tsl_expr *e = st->old_idx[d], *sh = buf->shape[d];
    if (sh->dtype.bits != e->dtype.bits)
      sh = tsl_expr_cast(a, e->dtype, sh);
    if (!tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(a, TSL_EXPR_LE,
                                                            tsl_expr_int(a, e->dtype, 0), e)) ||
        !tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(a, TSL_EXPR_LT, e, sh)))
      return sch_fail(c, TSL_EINVALID,
                      "index %u of '%s' in block '%s' (%s) may leave the buffer over the "
                      "domain of the block's iterators (a guarded access); the cache "
                      "stage would read out of bounds",
                      d, buf->name, st->blk->name, cmp_expr_str(c, e));
  }
  return TSL_OK;
}

/* Iterators the accesses use: the same ones on both sides. */
static int rc_used_iters(rc_state *st) {
  st->touched = TSL_NEW_ARRAY(st->a, char, st->niv + 1);
  for (uint32_t i = 0; i < st->niv; i++) {
    int in_old = 0, in_new = 0;
    for (uint32_t d = 0; d < st->reg->ndim; d++)
      in_old |= tsl_expr_uses_var(st->old_idx[d], st->ivars[i]);
    for (uint32_t j = 0; j < st->nout; j++)
      in_new |= tsl_expr_uses_var(st->new_idx[j], st->ivars[i]);
    if (in_old != in_new)
      return sch_fail(st->c, TSL_EINVALID,
                      "block iterator '%s' appears in the %s indices of '%s' but not "
                      "in the %s ones; the index map must use exactly the iterators "
                      "the access uses",
                      st->ivars[i]->name, in_old ? "old" : "new", st->buf->name,
                      in_old ? "new" : "old");
    st->touched[i] = (char)in_old;
    st->nt += (uint32_t)in_old;
  }
  return TSL_OK;
}

/* The cache holds one element per point of the used iterators. */
static int rc_check_one_to_one(rc_state *st) {
  tsl_arena *a = st->a;
  const tsl_var **tv = TSL_NEW_ARRAY(a, const tsl_var *, st->nt + 1);
  tsl_range *td = TSL_NEW_ARRAY(a, tsl_range, st->nt + 1);
  uint32_t q = 0;
  for (uint32_t i = 0; i < st->niv; i++)
    if (st->touched[i]) {
      tv[q] = st->ivars[i];
      td[q++] = st->blk->iter_vars[i].dom;
    }
  tsl_iter_map map;
  if (st->nout && tsl_iter_map_detect(st->c->sch->an, a, st->nout, st->new_idx, st->nt, tv, td,
                                      NULL, TSL_ITER_MAP_BIJECTIVE, 0, &map, NULL))
    return sch_fail(st->c, TSL_EINVALID,
                    "index_map does not map the iterators of block '%s' that the "
                    "access uses one-to-one onto the cache (two points would "
                    "share an element)", st->blk->name);
  return TSL_OK;
}

/* Loops between the stage and the block that feed the used iterators get
 * a new variable in the stage; the others are skipped. */
static void rc_stage_loops(rc_state *st) {
  const sch_path *p = &st->op.p;
  uint32_t top = st->op.scope;
  for (uint32_t lv = st->op.scope + 1; lv < p->depth && st->op.loc_seq; lv++)
    if (p->stmts[lv] == st->op.loc_seq)
      top = lv;
  tsl_map_init(&st->vmap, st->a);
  tsl_map_init(&st->skipped, st->a);
  tsl_vec_init(&st->loops, sizeof(rc_loop), st->a);
  for (uint32_t lv = top + 1; lv + 1 < p->depth; lv++) {
    const tsl_stmt *l = p->stmts[lv];
    if (l->kind != TSL_STMT_FOR)
      continue;
    const tsl_var *lvar = l->u.loop.loop_var;
    int used = 0;
    for (uint32_t i = 0; i < st->niv && !used; i++)
      used = st->touched[i] && tsl_expr_uses_var(st->real->u.realize.iter_values[i], lvar);
    if (!used) {
      tsl_map_put(&st->skipped, lvar, (void *)l);
      continue;
    }
    rc_loop *nl = tsl_vec_push(&st->loops);
    nl->loop = l;
    nl->var = sch_new_var(st->c, lvar->name, lvar->dtype);
    tsl_map_put(&st->vmap, lvar, (void *)tsl_expr_var(nl->var));
  }
}

/* The stage's iterators: the used ones, bound to the block's bindings over
 * the stage's loops. */
static void rc_stage_iters(rc_state *st) {
  tsl_arena *a = st->a;
  st->ivs = TSL_NEW_ARRAY(a, tsl_iter_var, st->nt + 1);
  st->vals = TSL_NEW_ARRAY(a, const tsl_expr *, st->nt + 1);
  uint32_t q = 0;
  for (uint32_t i = 0; i < st->niv; i++) {
    if (!st->touched[i])
      continue;
    const tsl_iter_var *iv = &st->blk->iter_vars[i];
    const tsl_var *nv = sch_new_var(st->c, iv->var->name, iv->var->dtype);
    st->ivs[q] = (tsl_iter_var){nv, iv->dom, TSL_ITER_SPATIAL};
    st->vals[q++] = tsl_expr_substitute_map(a, st->real->u.realize.iter_values[i], &st->vmap);
  }
  for (uint32_t i = 0, j = 0; i < st->niv; i++)
    if (st->touched[i])
      tsl_map_put(&st->vmap, st->ivars[i], (void *)tsl_expr_var(st->ivs[j++].var));
}

/* The block's T.where goes with the stage when it only needs its loops. */
static int rc_stage_predicate(rc_state *st) {
  const tsl_expr *pred = st->real->u.realize.predicate;
  uint32_t pos = 0;
  const void *key;
  void *val;
  while (tsl_map_next(&st->skipped, &pos, &key, &val))
    if (tsl_expr_uses_var(pred, key))
      return sch_fail(st->c, TSL_EINVALID,
                      "the T.where predicate of block '%s' uses loop '%s', which the "
                      "cache stage does not iterate; the stage cannot be guarded",
                      st->blk->name, ((const tsl_var *)key)->name);
  st->pred = tsl_expr_substitute_map(st->a, pred, &st->vmap);
  return TSL_OK;
}

/* The cache and the stage: its copy block inside its loops. */
static const tsl_stmt *rc_make_stage(rc_state *st) {
  sch_call *c = st->c;
  tsl_arena *a = st->a;
  const tsl_buffer *buf = st->buf;
  char base[512];
  snprintf(base, sizeof base, "%s_%s", buf->name, st->op.scope_name);
  st->cache = tsl_buffer_new(a, base, buf->dtype, st->nout, st->shape, NULL, NULL,
                             st->op.scope_name, buf->align, buf->offset_factor);
  const tsl_expr **s_old = TSL_NEW_ARRAY(a, const tsl_expr *, st->reg->ndim + 1);
  const tsl_expr **s_new = TSL_NEW_ARRAY(a, const tsl_expr *, st->nout + 1);
  for (uint32_t d = 0; d < st->reg->ndim; d++)
    s_old[d] = tsl_expr_substitute_map(a, st->old_idx[d], &st->vmap);
  for (uint32_t j = 0; j < st->nout; j++)
    s_new[j] = tsl_expr_substitute_map(a, st->new_idx[j], &st->vmap);
  st->name = sch_fresh_block_name(c, st->op.p.func, base);
  tsl_block *sb =
      st->is_write
          ? cache_copy_block(c, st->name, st->nt, st->ivs, st->cache, s_new, buf, s_old)
          : cache_copy_block(c, st->name, st->nt, st->ivs, buf, s_old, st->cache, s_new);
  const tsl_stmt *stage = tsl_stmt_block_realize(a, st->nt, st->vals, st->pred, sb);
  for (uint32_t j = st->loops.len; j-- > 0;) {
    const rc_loop *l = &TSL_VEC_AT(&st->loops, rc_loop, j);
    stage = tsl_stmt_for(a, l->var, l->loop->u.loop.min, l->loop->u.loop.extent,
                         TSL_FOR_SERIAL, NULL, (tsl_attrs){0}, stage);
  }
  return stage;
}

/* The scope body with the block's accesses moved to the cache and the
 * stage placed; committed. */
static int rc_rewrite_scope(rc_state *st, const tsl_stmt *stage) {
  tsl_arena *a = st->a;
  tsl_range *pr = TSL_NEW_ARRAY(a, tsl_range, st->nout + 1);
  for (uint32_t j = 0; j < st->nout; j++)
    pr[j] = (tsl_range){st->new_idx[j], tsl_expr_int(a, st->new_idx[j]->dtype, 1)};
  acc x = {st->buf, st->cache, st->new_idx, {st->cache, st->nout, pr}};
  rc_rw rw;
  memset(&rw, 0, sizeof rw);
  rw.m = tsl_mutator_make(a);
  rw.m.stmt = scope_stmt;
  rw.blk = st->blk;
  rw.nblk = move_accesses(st->c, st->blk, &x);
  rw.place = (sto_place){st->op.loc_seq, st->op.loc_pos, stage, 0};
  const tsl_stmt *nbody = tsl_mutate_stmt(&rw.m, st->s.block->body);
  nbody = sto_place_finish(a, &rw.place, nbody);
  if (!nbody)
    return sch_fail(st->c, TSL_EINVALID, "cache stage insertion point lost");
  cache_commit_scope(&st->op, nbody, st->cache);
  return TSL_OK;
}

static int reindex_cache(sch_call *c, int is_write) {
  rc_state st;
  int rc = rc_load(&st, c, is_write);
  if (!rc)
    rc = rc_check_point(&st);
  if (!rc)
    rc = rc_locate(&st);
  if (!rc)
    rc = rc_index_map(&st);
  if (!rc && !is_write)
    rc = rc_check_in_bounds(&st);
  if (!rc)
    rc = rc_used_iters(&st);
  if (!rc)
    rc = rc_check_one_to_one(&st);
  if (rc)
    return rc;
  rc_stage_loops(&st);
  rc_stage_iters(&st);
  rc = rc_stage_predicate(&st);
  if (!rc)
    rc = rc_rewrite_scope(&st, rc_make_stage(&st));
  if (rc)
    return rc;
  sch_out_block(c, st.op.p.func->name, st.name);
  return TSL_OK;
}

int sch_apply_reindex_cache_read(sch_call *c) { return reindex_cache(c, 0); }
int sch_apply_reindex_cache_write(sch_call *c) { return reindex_cache(c, 1); }
