/*
 * reindex (TVM's ReIndex): a buffer the block accesses at one index list
 * gets an intermediate buffer "<buffer>_reindex" laid out by the block's
 * iterators that the indices use (simplified first; one dimension per
 * such iterator, of size min + extent). The block accesses the new buffer
 * at its iterators; a copy block with the same iterators (others dropped)
 * fills it from the buffer before the block's loop nest (a read) or copies
 * it back right after it (a write).
 */
#include "cache_internal.h"
#include "compute_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct rx {
  sch_call *c;
  const tsl_block *blk;
  const tsl_buffer *buf;
  const tsl_expr *const *idx; /* the one index list of the buffer */
  uint32_t n_idx;
  int status;
  const tsl_expr *const *other; /* a second, different index list */
  const tsl_block *nested; /* a block inside the block, or NULL */
  tsl_map inner; /* variables defined inside the block body */
} rx;

static int same_indices(const tsl_expr *const *a, const tsl_expr *const *b,
                        uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!tsl_expr_equal(a[i], b[i]))
      return 0;
  return 1;
}

static int note_access(rx *x, uint32_t n, const tsl_expr *const *idx) {
  if (!x->idx) {
    x->idx = idx;
    x->n_idx = n;
    return 0;
  }
  if (!same_indices(x->idx, idx, n)) {
    x->status = TSL_EINVALID;
    x->other = idx;
    return 1;
  }
  return 0;
}

static int find_loads(const tsl_expr *e, void *ud) {
  rx *x = ud;
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == x->buf)
    return note_access(x, e->n_args, e->args);
  return 0;
}

static int on_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, find_loads, ud);
}

static int on_stmt(const tsl_stmt *s, void *ud) {
  rx *x = ud;
  if (s->kind == TSL_STMT_FOR)
    tsl_map_put(&x->inner, s->u.loop.loop_var, (void *)s);
  else if (s->kind == TSL_STMT_LET)
    tsl_map_put(&x->inner, s->u.let.var, (void *)s);
  return 0;
}

static int on_stmt_post(const tsl_stmt *s, void *ud) {
  rx *x = ud;
  if (s->kind == TSL_STMT_STORE && s->u.store.buffer == x->buf)
    return note_access(x, s->u.store.n_indices, s->u.store.indices);
  return 0;
}

static int on_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)b;
  (void)realize;
  rx *x = ud;
  x->nested = b;
  return 1;
}

static const char *index_text(sch_call *c, const tsl_buffer *b,
                              const tsl_expr *const *idx) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_printf(&sb, "%s[", b->name);
  for (uint32_t d = 0; d < b->ndim; d++)
    tsl_strbuf_printf(&sb, "%s%s", d ? ", " : "", cmp_expr_str(c, idx[d]));
  tsl_strbuf_append(&sb, "]");
  const char *r = tsl_arena_strdup(c->arena, sb.data);
  tsl_strbuf_free(&sb);
  return r;
}

/* ---- the rewrite of the block ---- */

typedef struct rw_state {
  tsl_mutator m;
  const tsl_buffer *from, *to;
  const tsl_expr *const *idx; /* the block's covered iterators */
  tsl_buffer_region region;
} rw_state;

static const tsl_expr *rw_expr(tsl_mutator *m, const tsl_expr *e) {
  rw_state *st = (rw_state *)m;
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (r->kind == TSL_EXPR_LOAD && e->u.buffer == st->from)
    return tsl_expr_load(m->arena, st->to, st->to->ndim, st->idx);
  return r;
}

static const tsl_stmt *rw_stmt(tsl_mutator *m, const tsl_stmt *s) {
  rw_state *st = (rw_state *)m;
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (r && r->kind == TSL_STMT_STORE && s->u.store.buffer == st->from)
    return tsl_stmt_store(m->arena, st->to, r->u.store.value, st->to->ndim, st->idx);
  return r;
}

static const tsl_buffer_region *swap_regions(rw_state *st, uint32_t n,
                                             const tsl_buffer_region *rs) {
  tsl_buffer_region *out = TSL_NEW_ARRAY(st->m.arena, tsl_buffer_region, n + 1);
  for (uint32_t i = 0; i < n; i++)
    out[i] = rs[i].buffer == st->from ? st->region : rs[i];
  return out;
}

static const tsl_block *rewrite_block(rw_state *st, const tsl_block *b) {
  tsl_block *nb = tsl_block_clone(st->m.arena, b);
  nb->body = tsl_mutate_stmt(&st->m, b->body);
  nb->init = b->init ? tsl_mutate_stmt(&st->m, b->init) : NULL;
  nb->reads = swap_regions(st, b->n_reads, b->reads);
  nb->writes = swap_regions(st, b->n_writes, b->writes);
  if (b->n_match_buffers) {
    tsl_match_buffer *mb = TSL_NEW_ARRAY(st->m.arena, tsl_match_buffer, b->n_match_buffers);
    for (uint32_t i = 0; i < b->n_match_buffers; i++) {
      mb[i] = b->match_buffers[i];
      if (mb[i].source.buffer == st->from)
        mb[i].source = st->region;
    }
    nb->match_buffers = mb;
  }
  return nb;
}

/* Another block in the loop nest of the block that writes the buffer (or,
 * for a write, accesses it). */
typedef struct nest_check {
  const tsl_block *blk;
  const tsl_buffer *buf;
  int is_write;
  const tsl_block *other;
} nest_check;

static int nest_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  nest_check *nc = ud;
  if (b == nc->blk)
    return 0;
  if (sch_regions_have(b->writes, b->n_writes, nc->buf) ||
      (nc->is_write && sch_regions_have(b->reads, b->n_reads, nc->buf))) {
    nc->other = b;
    return 1;
  }
  return 0;
}

/* ---- the primitive ---- */

/* The loop chain from the scope down to the block (TVM requires each loop
 * to be the body of the one above); *pos gets the place of the outermost
 * loop in the scope body. */
static int check_chain(sch_call *c, const sch_path *p, uint32_t scope,
                       const tsl_block *blk, uint32_t *pos) {
  uint32_t k = scope + 1;
  *pos = 0;
  if (p->stmts[k]->kind == TSL_STMT_SEQ) {
    *pos = p->index[k + 1];
    k++;
  }
  uint32_t innermost = 0;
  for (uint32_t j = k; j + 1 < p->depth; j++)
    if (p->stmts[j]->kind == TSL_STMT_FOR)
      innermost = j;
  if (!innermost || p->stmts[k]->kind != TSL_STMT_FOR)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' must sit under a nest of loops placed directly in "
                    "the body of its scope block '%s'",
                    blk->name, p->stmts[scope]->u.realize.block->name);
  for (uint32_t j = k; j < innermost; j++)
    if (p->stmts[j + 1]->kind != TSL_STMT_FOR)
      return sch_fail(c, TSL_EINVALID,
                      "the loops above block '%s' must form a chain (each the only "
                      "statement of the loop above), but loop '%s' holds a %s",
                      blk->name, p->stmts[j]->u.loop.loop_var->name,
                      tsl_stmt_kind_name((tsl_stmt_kind)p->stmts[j + 1]->kind));
  return TSL_OK;
}

typedef struct rx_state {
  sch_call *c;
  tsl_arena *a;
  sch_path p;
  cmp_scope s;
  const tsl_block *blk;
  const tsl_buffer *buf;
  sch_buffer_ref ref;
  rx x;                 /* the block's accesses of buf */
  const tsl_expr **idx; /* x.idx simplified */
  uint32_t nd;
  char *covered; /* by iterator: the indices use it */
  uint32_t n_cov;
  uint32_t loc_pos; /* of the block's loop nest in the scope body */
  /* by covered iterator: the stage's iterators, loops and bindings, the
   * new buffer's shape, its indices in the stage and in the block, and
   * the block's region of it */
  tsl_iter_var *ivs;
  const tsl_var **loops;
  const tsl_expr **vals, **shape, **new_idx, **blk_idx;
  tsl_range *region;
  const tsl_expr **target; /* the buffer's indices in the stage */
  const tsl_buffer *nbuf;
  tsl_str name;
} rx_state;

static int rx_load(rx_state *st, sch_call *c) {
  memset(st, 0, sizeof *st);
  st->c = c;
  st->a = c->arena;
  int rc = sch_block_path(c, c->args[0].u.rv, &st->p);
  if (rc)
    return rc;
  st->blk = sch_path_block(&st->p);
  if (st->p.depth < 2)
    return sch_fail(c, TSL_EINVALID, "block '%s' is the root block", st->blk->name);
  rc = sch_buffer_arg(c, st->blk, 1, -1, &st->ref);
  if (rc)
    return rc;
  st->buf = st->ref.buffer;
  cmp_scope_of(c, &st->p, &st->s);
  return cmp_check_stage_pipeline(c, &st->s);
}

/* The one index list at which the leaf block loads and stores the buffer. */
static int rx_find_access(rx_state *st) {
  sch_call *c = st->c;
  const tsl_block *blk = st->blk;
  const tsl_buffer *buf = st->buf;
  rx *x = &st->x;
  *x = (rx){c, blk, buf, NULL, 0, 0, NULL, NULL, {0}};
  tsl_map_init(&x->inner, st->a);
  tsl_stmt_visitor v = {on_stmt, on_block, on_expr, on_stmt_post, x};
  tsl_stmt_visit(blk->body, &v);
  if (x->nested)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' is not a leaf block (it contains block '%s'); "
                    "reindex needs the loads and stores of '%s' in a leaf block",
                    blk->name, x->nested->name, buf->name);
  if (x->status)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' must access '%s' at a single index list, but it uses "
                    "%s and %s", blk->name, buf->name, index_text(c, buf, x->idx),
                    index_text(c, buf, x->other));
  if (!x->idx)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' does not load or store '%s' in its body (only "
                    "its regions name it)",
                    blk->name, buf->name);
  if (st->ref.is_write == 0 && sch_regions_have(blk->writes, blk->n_writes, buf))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' also writes '%s'; reindex its write buffer "
                    "instead (the values it writes would stay in the reindex "
                    "buffer)", blk->name, buf->name);
  if (st->ref.is_write && !blk->init && sch_regions_have(blk->reads, blk->n_reads, buf))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' reads '%s' before writing it (an update without "
                    "T.init()); the reindex buffer would start uninitialized",
                    blk->name, buf->name);
  return TSL_OK;
}

/* Simplified indices (kept as written when they fold to a constant), which
 * must not use variables of the block body, and the iterators they use. */
static int rx_simplify_indices(rx_state *st) {
  sch_call *c = st->c;
  const tsl_block *blk = st->blk;
  for (uint32_t i = 0; i < blk->n_iter_vars; i++)
    tsl_analyzer_bind(c->sch->an, blk->iter_vars[i].var, blk->iter_vars[i].dom.min,
                      blk->iter_vars[i].dom.extent);
  uint32_t nd = st->nd = st->x.n_idx;
  st->idx = TSL_NEW_ARRAY(st->a, const tsl_expr *, nd + 1);
  for (uint32_t d = 0; d < nd; d++) {
    const tsl_expr *e = sch_simplify(c, st->x.idx[d]);
    st->idx[d] = e->kind == TSL_EXPR_INT_IMM ? st->x.idx[d] : e;
  }
  for (uint32_t d = 0; d < nd; d++) {
    uint32_t pos = 0;
    const void *key;
    void *val;
    while (tsl_map_next(&st->x.inner, &pos, &key, &val))
      if (tsl_expr_uses_var(st->idx[d], key))
        return sch_fail(c, TSL_EINVALID,
                        "block '%s' accesses '%s' at an index that uses '%s', a "
                        "variable defined inside the block",
                        blk->name, st->buf->name, ((const tsl_var *)key)->name);
  }
  st->covered = TSL_NEW_ARRAY(st->a, char, blk->n_iter_vars + 1);
  for (uint32_t i = 0; i < blk->n_iter_vars; i++)
    for (uint32_t d = 0; d < nd && !st->covered[i]; d++)
      if (tsl_expr_uses_var(st->idx[d], blk->iter_vars[i].var)) {
        st->covered[i] = 1;
        st->n_cov++;
      }
  return TSL_OK;
}

/* The stage goes right before (after) the loop nest: another block in it
 * must not write (for a write: access) the buffer. */
static int rx_check_nest(rx_state *st) {
  sch_call *c = st->c;
  const sch_path *p = &st->p;
  uint32_t level = st->s.level;
  int rc = check_chain(c, p, level, st->blk, &st->loc_pos);
  if (rc)
    return rc;
  nest_check nc = {st->blk, st->buf, st->ref.is_write, NULL};
  tsl_stmt_visitor nv = {NULL, nest_block, NULL, NULL, &nc};
  tsl_stmt_visit(p->stmts[p->stmts[level + 1]->kind == TSL_STMT_SEQ ? level + 2 : level + 1],
                 &nv);
  if (nc.other)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s', inside the loops of block '%s', %s '%s'; the reindex "
                    "stage %s those loops would miss it",
                    nc.other->name, st->blk->name,
                    sch_regions_have(nc.other->writes, nc.other->n_writes, st->buf) ? "writes"
                                                                                     : "reads",
                    st->buf->name, st->ref.is_write ? "after" : "before");
  return TSL_OK;
}

/* The stage's iterators, loops and the copy's indices. */
static void rx_stage_iters(rx_state *st) {
  sch_call *c = st->c;
  tsl_arena *a = st->a;
  const tsl_block *blk = st->blk;
  uint32_t n = st->n_cov;
  st->ivs = TSL_NEW_ARRAY(a, tsl_iter_var, n + 1);
  st->loops = TSL_NEW_ARRAY(a, const tsl_var *, n + 1);
  st->vals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  st->shape = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  st->new_idx = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  st->blk_idx = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  st->region = TSL_NEW_ARRAY(a, tsl_range, n + 1);
  tsl_map subst;
  tsl_map_init(&subst, a);
  uint32_t k = 0;
  for (uint32_t i = 0; i < blk->n_iter_vars; i++) {
    const tsl_iter_var *iv = &blk->iter_vars[i];
    if (!st->covered[i])
      continue;
    const tsl_var *nv = cache_num_var(c, "v", k, iv->var->dtype);
    tsl_map_put(&subst, iv->var, (void *)tsl_expr_var(nv));
    st->ivs[k] = (tsl_iter_var){nv, iv->dom, TSL_ITER_SPATIAL};
    st->loops[k] = cache_num_var(c, "ax", k, iv->var->dtype);
    st->vals[k] = tsl_expr_var(st->loops[k]);
    st->shape[k] =
        sch_simplify(c, tsl_expr_binary(a, TSL_EXPR_ADD, iv->dom.min, iv->dom.extent));
    st->new_idx[k] = tsl_expr_var(nv);
    st->blk_idx[k] = tsl_expr_var(iv->var);
    st->region[k] = (tsl_range){st->blk_idx[k], tsl_expr_int(a, iv->var->dtype, 1)};
    k++;
  }
  st->target = TSL_NEW_ARRAY(a, const tsl_expr *, st->nd + 1);
  for (uint32_t d = 0; d < st->nd; d++)
    st->target[d] = tsl_expr_substitute_map(a, st->idx[d], &subst);
}

/* A read: the copy runs over the whole domain of the iterators, so the
 * indices must stay inside the buffer there. */
static int rx_check_read_bounds(rx_state *st) {
  sch_call *c = st->c;
  tsl_arena *a = st->a;
  const tsl_buffer *buf = st->buf;
  for (uint32_t d = 0; d < st->nd; d++) {
    const tsl_expr *e = st->idx[d], *sh = buf->shape[d];
    if (sh->dtype.bits != e->dtype.bits)
      sh = tsl_expr_cast(a, e->dtype, sh);
    if (!tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(a, TSL_EXPR_LE,
                                                            tsl_expr_int(a, e->dtype, 0), e)) ||
        !tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(a, TSL_EXPR_LT, e, sh)))
      return sch_fail(c, TSL_EINVALID,
                      "index %u of '%s' in block '%s' (%s) may leave the buffer "
                      "over the domain of the block's iterators (a guarded "
                      "access); the reindex copy would read out of bounds",
                      d, buf->name, st->blk->name, cmp_expr_str(c, st->x.idx[d]));
  }
  return TSL_OK;
}

/* A write: the copy back writes every element of the whole domain once, so
 * the block must produce each of them exactly once. */
static int rx_check_write_back(rx_state *st) {
  sch_call *c = st->c;
  tsl_arena *a = st->a;
  if (!cache_block_covers_domain(c, &st->p, st->s.level))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' does not provably run every point of its "
                    "iteration domain once (a T.where predicate or bindings "
                    "that are not a one-to-one map of its loops); copying the "
                    "reindex buffer back would write elements it does not "
                    "produce", st->blk->name);
  tsl_iter_map map;
  const tsl_var **cv = TSL_NEW_ARRAY(a, const tsl_var *, st->n_cov + 1);
  tsl_range *cd = TSL_NEW_ARRAY(a, tsl_range, st->n_cov + 1);
  for (uint32_t j = 0; j < st->n_cov; j++) {
    cv[j] = st->ivs[j].var;
    cd[j] = st->ivs[j].dom;
  }
  if (tsl_iter_map_detect(c->sch->an, a, st->nd, st->target, st->n_cov, cv, cd, NULL,
                          TSL_ITER_MAP_BIJECTIVE, 0, &map, NULL))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' writes '%s' at indices that are not a one-to-one "
                    "map of its iterators; the copy back would write an element "
                    "twice", st->blk->name, st->buf->name);
  return TSL_OK;
}

/* The new buffer and the stage: the copy block inside its loops. */
static const tsl_stmt *rx_make_stage(rx_state *st) {
  sch_call *c = st->c;
  tsl_arena *a = st->a;
  const tsl_buffer *buf = st->buf;
  uint32_t n = st->n_cov;
  char base[512];
  snprintf(base, sizeof base, "%s_reindex", buf->name);
  st->nbuf = tsl_buffer_new(a, base, buf->dtype, n, st->shape, NULL, NULL, buf->scope,
                            buf->align, buf->offset_factor);
  /* TVM names the stage after the buffer it writes */
  snprintf(base, sizeof base, "%s_reindex", (st->ref.is_write ? buf : st->nbuf)->name);
  st->name = sch_fresh_block_name(c, st->p.func, base);
  tsl_block *stage_blk =
      st->ref.is_write
          ? cache_copy_block(c, st->name, n, st->ivs, st->nbuf, st->new_idx, buf, st->target)
          : cache_copy_block(c, st->name, n, st->ivs, buf, st->target, st->nbuf, st->new_idx);
  const tsl_stmt *stage = tsl_stmt_block_realize(a, n, st->vals, tsl_expr_bool(a, 1), stage_blk);
  for (uint32_t j = n; j-- > 0;)
    stage = tsl_stmt_for(a, st->loops[j], st->ivs[j].dom.min, st->ivs[j].dom.extent,
                         TSL_FOR_SERIAL, NULL, (tsl_attrs){0}, stage);
  return stage;
}

/* The new body of the scope: the block rewritten, the stage inserted;
 * committed. */
static void rx_rewrite_scope(rx_state *st, const tsl_stmt *stage) {
  tsl_arena *a = st->a;
  rw_state rw;
  memset(&rw, 0, sizeof rw);
  rw.m = tsl_mutator_make(a);
  rw.m.expr = rw_expr;
  rw.m.stmt = rw_stmt;
  rw.from = st->buf;
  rw.to = st->nbuf;
  rw.idx = st->blk_idx;
  rw.region = (tsl_buffer_region){st->nbuf, st->n_cov, st->region};
  const tsl_block *nblk = rewrite_block(&rw, st->blk);
  const tsl_stmt *scope_body = cache_scope_body_with(
      a, &st->p, st->s.level, st->p.depth - 1, sch_with_block(a, sch_path_target(&st->p), nblk));
  scope_body = sto_insert(a, scope_body, st->loc_pos + (st->ref.is_write ? 1 : 0), stage);
  cache_op op;
  memset(&op, 0, sizeof op);
  op.c = st->c;
  op.p = st->p;
  op.scope = st->s.level;
  cache_commit_scope(&op, scope_body, st->nbuf);
}

int sch_apply_reindex(sch_call *c) {
  rx_state st;
  int rc = rx_load(&st, c);
  if (!rc)
    rc = rx_find_access(&st);
  if (!rc)
    rc = rx_simplify_indices(&st);
  if (!rc)
    rc = rx_check_nest(&st);
  if (rc)
    return rc;
  rx_stage_iters(&st);
  rc = st.ref.is_write ? rx_check_write_back(&st) : rx_check_read_bounds(&st);
  if (rc)
    return rc;
  rx_rewrite_scope(&st, rx_make_stage(&st));
  sch_out_block(c, st.p.func->name, st.name);
  return TSL_OK;
}
