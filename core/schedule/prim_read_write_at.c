/*
 * read_at and write_at (TVM's ReadAt / WriteAt): inside a loop, a copy
 * block "<buffer>_<scope>" (annotated auto_copy = 1, its copy loops inside
 * the block) moves the region the loop's blocks read (write) of a buffer
 * between the buffer and a buffer of the same shape in another storage
 * scope, which those blocks then use. read_at puts it before the first
 * statement of the loop body that reads the buffer, write_at after the
 * last one that writes it. The region is the union of the blocks' regions
 * relaxed over the loops between them and the loop, and over the thread
 * loops above whose threads share the new scope (TVM's
 * CanRelaxStorageUnderThread). The block's iterators are the loops from
 * the given loop up to the scope that the region uses.
 */
#include "cache_internal.h"
#include "compute_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct rwa_write {
  const tsl_expr **mn, **mx;
} rwa_write;

typedef struct rwa {
  sch_call *c;
  int is_read;
  const tsl_buffer *src;
  uint32_t nd;
  /* loops relaxed over: the first n_outer for every block (thread loops
   * above, and the loop), then those of the walk */
  uint32_t n_outer;
  tsl_vec vars; /* const tsl_var * */
  tsl_vec doms; /* tsl_range */
  const tsl_expr **mn, **mx; /* the union so far (NULL: empty) */
  int r_seen, w_seen, bad, in_if, guarded;
  const char *bad_block;
  /* write_at's check: the relaxed write regions met so far */
  tsl_vec writes; /* rwa_write */
  void (*on_block)(struct rwa *x, const tsl_stmt *realize); /* of walk */
} rwa;

/* [mn, mx] (inclusive) of region `r` of the block realized by `real`,
 * bindings substituted, relaxed over x->vars[first..). */
static int relax_over(rwa *x, uint32_t first, const tsl_stmt *real,
                      const tsl_buffer_region *r, const tsl_expr ***mn_out,
                      const tsl_expr ***mx_out) {
  sch_call *c = x->c;
  tsl_arena *a = c->arena;
  uint32_t nv = x->vars.len - first;
  const tsl_var *const *vars = TSL_VEC_DATA(&x->vars, const tsl_var *) + first;
  const tsl_range *doms = TSL_VEC_DATA(&x->doms, tsl_range) + first;
  const tsl_expr **mns = TSL_NEW_ARRAY(a, const tsl_expr *, x->nd + 1);
  const tsl_expr **mxs = TSL_NEW_ARRAY(a, const tsl_expr *, x->nd + 1);
  for (uint32_t d = 0; d < x->nd; d++) {
    const tsl_expr *lo = sch_subst_bindings(c, real, r->ranges[d].min);
    const tsl_expr *ext = sch_subst_bindings(c, real, r->ranges[d].extent);
    const tsl_expr *hi = tsl_expr_binary(
        a, TSL_EXPR_SUB, tsl_expr_binary(a, TSL_EXPR_ADD, lo, ext), tsl_expr_int(a, lo->dtype, 1));
    tsl_range r1, r2;
    if (tsl_analyzer_relax(c->sch->an, a, lo, nv, vars, doms, &r1) ||
        tsl_analyzer_relax(c->sch->an, a, sch_simplify(c, hi), nv, vars, doms, &r2))
      return 0;
    mns[d] = r1.min;
    mxs[d] = sch_simplify(
        c, tsl_expr_binary(a, TSL_EXPR_SUB, tsl_expr_binary(a, TSL_EXPR_ADD, r2.min, r2.extent),
                           tsl_expr_int(a, r2.min->dtype, 1)));
  }
  *mn_out = mns;
  *mx_out = mxs;
  return 1;
}

static void add_region(rwa *x, const tsl_stmt *real, const tsl_buffer_region *r) {
  sch_call *c = x->c;
  tsl_arena *a = c->arena;
  const tsl_expr **mn, **mx;
  if (!relax_over(x, 0, real, r, &mn, &mx)) {
    x->bad = 1;
    x->bad_block = real->u.realize.block->name;
    return;
  }
  if (!x->mn) {
    x->mn = TSL_NEW_ARRAY(a, const tsl_expr *, x->nd + 1);
    x->mx = TSL_NEW_ARRAY(a, const tsl_expr *, x->nd + 1);
  }
  for (uint32_t d = 0; d < x->nd; d++) {
    x->mn[d] = x->mn[d] ? sch_simplify(c, tsl_expr_binary(a, TSL_EXPR_MIN, x->mn[d], mn[d])) : mn[d];
    x->mx[d] = x->mx[d] ? sch_simplify(c, tsl_expr_binary(a, TSL_EXPR_MAX, x->mx[d], mx[d])) : mx[d];
  }
}

/* Visitor callbacks calling x->on_block on each block of one statement of
 * the loop body (not those nested in blocks), with the loops between the
 * loop and it pushed on x->vars. */
static int walk_stmt(const tsl_stmt *s, void *ud) {
  rwa *x = ud;
  if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    x->on_block(x, s);
    return TSL_VISIT_SKIP;
  }
  if (s->kind == TSL_STMT_IF)
    x->in_if++;
  if (s->kind == TSL_STMT_FOR) {
    TSL_VEC_PUSH(&x->vars, const tsl_var *, s->u.loop.loop_var);
    TSL_VEC_PUSH(&x->doms, tsl_range, ((tsl_range){s->u.loop.min, s->u.loop.extent}));
    tsl_analyzer_bind(x->c->sch->an, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent);
  }
  return 0;
}

static int walk_post(const tsl_stmt *s, void *ud) {
  rwa *x = ud;
  x->in_if -= s->kind == TSL_STMT_IF;
  if (s->kind == TSL_STMT_FOR) {
    x->vars.len--;
    x->doms.len--;
  }
  return 0;
}

static void walk(rwa *x, const tsl_stmt *s, void (*fn)(rwa *, const tsl_stmt *)) {
  tsl_stmt_visitor v = {.stmt = walk_stmt, .stmt_post = walk_post, .user_data = x};
  x->on_block = fn;
  tsl_stmt_visit(s, &v);
}

/* The region of the buffer that a block accesses, relaxed. */
static void on_block(rwa *x, const tsl_stmt *s) {
  const tsl_block *b = s->u.realize.block;
  int has_r = sch_regions_have(b->reads, b->n_reads, x->src);
  int has_w = sch_regions_have(b->writes, b->n_writes, x->src);
  x->r_seen |= has_r;
  x->w_seen |= has_w;
  if (x->is_read ? !has_r : !has_w)
    return;
  const tsl_buffer_region *rs = x->is_read ? b->reads : b->writes;
  uint32_t n = x->is_read ? b->n_reads : b->n_writes;
  for (uint32_t i = 0; i < n; i++)
    if (rs[i].buffer == x->src)
      add_region(x, s, &rs[i]);
}

/* write_at: a block reading the buffer must read values written before it
 * in the same iteration of the loop (a covering write region of an earlier
 * block there) or initialize it itself (T.init()); writes must not be
 * guarded (the copy back covers the whole relaxed region). Regions are
 * relaxed over the loops inside the loop only. */
static void on_block_check(rwa *x, const tsl_stmt *s) {
  const tsl_block *b = s->u.realize.block;
  const tsl_expr *p = s->u.realize.predicate;
  sch_call *c = x->c;
  if (x->bad_block)
    return;
  if (sch_regions_have(b->writes, b->n_writes, x->src) &&
      (x->in_if || !(p->kind == TSL_EXPR_INT_IMM && p->u.int_value))) {
    x->bad_block = b->name;
    x->guarded = 1;
    return;
  }
  int self_init = b->init && sch_regions_have(b->writes, b->n_writes, x->src);
  for (uint32_t i = 0; i < b->n_reads && !self_init; i++) {
    if (b->reads[i].buffer != x->src)
      continue;
    const tsl_expr **mn, **mx;
    if (!relax_over(x, x->n_outer, s, &b->reads[i], &mn, &mx)) {
      x->bad_block = b->name;
      return;
    }
    int covered = 0;
    for (uint32_t w = 0; w < x->writes.len && !covered; w++) {
      const rwa_write *wr = &TSL_VEC_AT(&x->writes, rwa_write, w);
      covered = 1;
      for (uint32_t d = 0; d < x->nd && covered; d++)
        covered = tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(c->arena, TSL_EXPR_LE,
                                                                     wr->mn[d], mn[d])) &&
                  tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(c->arena, TSL_EXPR_LE,
                                                                     mx[d], wr->mx[d]));
    }
    if (!covered) {
      x->bad_block = b->name;
      return;
    }
  }
  for (uint32_t i = 0; i < b->n_writes; i++) {
    if (b->writes[i].buffer != x->src)
      continue;
    rwa_write w;
    if (relax_over(x, x->n_outer, s, &b->writes[i], &w.mn, &w.mx))
      TSL_VEC_PUSH(&x->writes, rwa_write, w);
  }
}

/* ---- the copy block ---- */

typedef struct itv {
  tsl_mutator m;
  sch_call *c;
  const tsl_var *const *loops; /* the loops from the given one up */
  const tsl_range *ranges;
  uint32_t n_loops;
  tsl_map made; /* loop var -> iter var expression */
  uint32_t n;
  tsl_iter_var *ivs;
  const tsl_expr **vals;
} itv;

static const tsl_expr *to_iter(tsl_mutator *m, const tsl_var *v) {
  itv *t = (itv *)m;
  const tsl_expr *e = tsl_map_get(&t->made, v);
  if (e)
    return e;
  for (uint32_t i = 0; i < t->n_loops; i++)
    if (t->loops[i] == v) {
      const tsl_var *nv = cache_num_var(t->c, "v", t->n, v->dtype);
      t->ivs[t->n] = (tsl_iter_var){nv, t->ranges[i], TSL_ITER_SPATIAL};
      t->vals[t->n++] = tsl_expr_var(v);
      e = tsl_expr_var(nv);
      tsl_map_put(&t->made, v, (void *)e);
      return e;
    }
  return NULL;
}

/* ---- the primitive ---- */

typedef struct rwa_state {
  sch_call *c;
  tsl_arena *a;
  int is_read;
  const char *scope;
  sch_path lp;
  cmp_scope s;
  const tsl_stmt *loop;
  const char *lname;
  const tsl_buffer *src, *dst;
  rwa x;
  uint32_t n; /* statements of the loop body */
  const tsl_stmt *const *subs;
  int first_r, last_r, last_w; /* first / last sub reading src, last writing it; -1: none */
  uint32_t pos, beg, end; /* the stage goes before subs[pos]; subs[beg, end) use dst */
  tsl_range *dom;         /* the region */
  tsl_str name;           /* of the stage */
} rwa_state;

static int rwa_load(rwa_state *st, sch_call *c, int is_read) {
  memset(st, 0, sizeof *st);
  st->c = c;
  st->a = c->arena;
  st->is_read = is_read;
  st->scope = c->args[3].u.s;
  if (!sto_scope_valid(st->scope))
    return sch_fail(c, TSL_EINVALID, "storage scope \"%s\" is invalid; valid scopes: %s",
                    st->scope, sto_scope_list());
  sch_path bp;
  int rc = sch_loop_path(c, c->args[0].u.rv, &st->lp);
  if (!rc)
    rc = sch_block_path(c, c->args[1].u.rv, &bp);
  if (rc)
    return rc;
  const tsl_block *blk = sch_path_block(&bp);
  const char *pname = c->kind->params[2].name;
  rc = sto_check_index(c, blk, c->args[2].u.i, !is_read, pname);
  if (rc)
    return rc;
  st->src = is_read ? blk->reads[c->args[2].u.i].buffer : blk->writes[c->args[2].u.i].buffer;
  st->loop = sch_path_target(&st->lp);
  st->lname = st->loop->u.loop.loop_var->name;
  cmp_scope_of(c, &st->lp, &st->s);
  return cmp_check_stage_pipeline(c, &st->s);
}

/* The walker, with the thread loops above relaxed for every block. */
static void rwa_init_walker(rwa_state *st) {
  sch_call *c = st->c;
  rwa *x = &st->x;
  x->c = c;
  x->is_read = st->is_read;
  x->src = st->src;
  x->nd = st->src->ndim;
  tsl_vec_init(&x->vars, sizeof(const tsl_var *), st->a);
  tsl_vec_init(&x->doms, sizeof(tsl_range), st->a);
  tsl_vec_init(&x->writes, sizeof(rwa_write), st->a);
  /* relax_over offsets into them: never NULL */
  tsl_vec_reserve(&x->vars, 8);
  tsl_vec_reserve(&x->doms, 8);
  for (uint32_t k = 0; k < st->lp.depth; k++) {
    const tsl_stmt *l = st->lp.stmts[k];
    if (l->kind != TSL_STMT_FOR)
      continue;
    tsl_analyzer_bind(c->sch->an, l->u.loop.loop_var, l->u.loop.min, l->u.loop.extent);
    if (l->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
        sto_relax_under_thread(st->scope, l->u.loop.thread_tag)) {
      TSL_VEC_PUSH(&x->vars, const tsl_var *, l->u.loop.loop_var);
      TSL_VEC_PUSH(&x->doms, tsl_range, ((tsl_range){l->u.loop.min, l->u.loop.extent}));
    }
  }
  x->n_outer = x->vars.len;
}

/* The union of the regions the loop's blocks access, and which statements
 * of the loop body read and write the buffer. */
static int rwa_scan_body(rwa_state *st) {
  rwa *x = &st->x;
  const tsl_stmt *body = st->loop->u.loop.body;
  st->n = body->kind == TSL_STMT_SEQ ? body->u.seq.n : 1;
  st->subs = body->kind == TSL_STMT_SEQ ? body->u.seq.stmts : &st->loop->u.loop.body;
  st->first_r = st->last_r = st->last_w = -1;
  for (uint32_t i = 0; i < st->n; i++) {
    x->r_seen = x->w_seen = 0;
    walk(x, st->subs[i], on_block);
    if (x->bad)
      return sch_fail(st->c, TSL_EUNSUPPORTED,
                      "cannot bound the region of '%s' that block '%s' accesses under "
                      "loop '%s'", st->src->name, x->bad_block, st->lname);
    if (x->r_seen) {
      if (st->first_r < 0)
        st->first_r = (int)i;
      st->last_r = (int)i;
    }
    if (x->w_seen)
      st->last_w = (int)i;
  }
  return TSL_OK;
}

/* read_at: the stage goes before the first reader; every write before it. */
static int rwa_place_read(rwa_state *st) {
  if (st->first_r < 0)
    return sch_fail(st->c, TSL_EINVALID, "no block under loop '%s' reads '%s'", st->lname,
                    st->src->name);
  if (st->last_w >= st->first_r)
    return sch_fail(st->c, TSL_EINVALID,
                    "a block under loop '%s' writes '%s' after a block there reads it; "
                    "read_at needs every write before the first read",
                    st->lname, st->src->name);
  st->pos = st->beg = (uint32_t)st->first_r;
  st->end = st->n;
  return TSL_OK;
}

/* write_at: the stage goes after the last writer; every read before it,
 * of values written in the same iteration (on_block_check). */
static int rwa_place_write(rwa_state *st) {
  sch_call *c = st->c;
  rwa *x = &st->x;
  if (st->last_w < 0)
    return sch_fail(c, TSL_EINVALID, "no block under loop '%s' writes '%s'", st->lname,
                    st->src->name);
  if (st->last_r > st->last_w)
    return sch_fail(c, TSL_EINVALID,
                    "a block under loop '%s' reads '%s' after the last block there "
                    "writing it; write_at needs every read before the last write",
                    st->lname, st->src->name);
  st->pos = st->end = (uint32_t)st->last_w + 1;
  st->beg = 0;
  x->bad_block = NULL;
  for (uint32_t i = 0; i < st->end && !x->bad_block; i++)
    walk(x, st->subs[i], on_block_check);
  if (x->bad_block && x->guarded)
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "block '%s' under loop '%s' writes '%s' under a T.where or an if; "
                    "the copy back of the relaxed region would write elements it "
                    "does not produce", x->bad_block, st->lname, st->src->name);
  if (x->bad_block)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' under loop '%s' reads '%s' where no earlier block in the "
                    "same iteration wrote it (and it has no T.init()); the new buffer "
                    "would not hold those values", x->bad_block, st->lname, st->src->name);
  return TSL_OK;
}

/* The region: [min, max] per dimension, inside the buffer. */
static int rwa_region(rwa_state *st) {
  sch_call *c = st->c;
  tsl_arena *a = st->a;
  const rwa *x = &st->x;
  st->dom = TSL_NEW_ARRAY(a, tsl_range, x->nd + 1);
  for (uint32_t d = 0; d < x->nd; d++) {
    const tsl_expr *mn = x->mn[d], *mx = x->mx[d], *sh = st->src->shape[d];
    if (sh->dtype.bits != mn->dtype.bits)
      sh = tsl_expr_cast(a, mn->dtype, sh);
    if (!tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(a, TSL_EXPR_LE,
                                                            tsl_expr_int(a, mn->dtype, 0), mn)) ||
        !tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(a, TSL_EXPR_LT, mx, sh)))
      return sch_fail(c, TSL_EINVALID,
                      "the region of '%s' the blocks under loop '%s' %s may leave the "
                      "buffer in dimension %u", st->src->name, st->lname,
                      st->is_read ? "read" : "write", d);
    st->dom[d] = (tsl_range){mn, sch_simplify(c, tsl_expr_binary(
                                                 a, TSL_EXPR_SUB,
                                                 tsl_expr_binary(a, TSL_EXPR_ADD, mx,
                                                                 tsl_expr_int(a, mx->dtype, 1)),
                                                 mn))};
  }
  return TSL_OK;
}

/* The region over the copy block's iterators: the loops from the given one
 * up to the scope that it uses (their iterators and bindings in *t). */
static const tsl_range *rwa_block_region(rwa_state *st, itv *t) {
  tsl_arena *a = st->a;
  memset(t, 0, sizeof *t);
  t->m = tsl_mutator_make(a);
  t->m.var = to_iter;
  t->c = st->c;
  tsl_vec loops, ranges; /* const tsl_var *, tsl_range: innermost first */
  tsl_vec_init(&loops, sizeof(const tsl_var *), a);
  tsl_vec_init(&ranges, sizeof(tsl_range), a);
  for (uint32_t k = st->lp.depth; k-- > st->s.level + 1;) {
    const tsl_stmt *l = st->lp.stmts[k];
    if (l->kind != TSL_STMT_FOR)
      break;
    TSL_VEC_PUSH(&loops, const tsl_var *, l->u.loop.loop_var);
    TSL_VEC_PUSH(&ranges, tsl_range, ((tsl_range){l->u.loop.min, l->u.loop.extent}));
  }
  t->loops = loops.data;
  t->ranges = ranges.data;
  t->n_loops = loops.len;
  tsl_map_init(&t->made, a);
  t->ivs = TSL_NEW_ARRAY(a, tsl_iter_var, t->n_loops + 1);
  t->vals = TSL_NEW_ARRAY(a, const tsl_expr *, t->n_loops + 1);
  tsl_range *bdom = TSL_NEW_ARRAY(a, tsl_range, st->x.nd + 1);
  for (uint32_t d = 0; d < st->x.nd; d++) {
    bdom[d].min = tsl_mutate_expr(&t->m, st->dom[d].min);
    bdom[d].extent = tsl_mutate_expr(&t->m, st->dom[d].extent);
  }
  return bdom;
}

/* The stage: a block annotated auto_copy = 1 with the copy loops inside,
 * between src and dst over the region. */
static const tsl_stmt *rwa_make_stage(rwa_state *st) {
  sch_call *c = st->c;
  tsl_arena *a = st->a;
  uint32_t nd = st->x.nd;
  st->dst = sto_buffer_with_scope(c, st->src, st->scope, NULL);
  itv t;
  const tsl_range *bdom = rwa_block_region(st, &t);
  const tsl_var **ax = TSL_NEW_ARRAY(a, const tsl_var *, nd + 1);
  const tsl_expr **idx = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  for (uint32_t d = 0; d < nd; d++) {
    ax[d] = cache_num_var(c, "ax", d, bdom[d].extent->dtype);
    int64_t z;
    idx[d] = tsl_expr_is_const_int(bdom[d].min, &z) && z == 0
                 ? tsl_expr_var(ax[d])
                 : tsl_expr_binary(a, TSL_EXPR_ADD, bdom[d].min, tsl_expr_var(ax[d]));
  }
  const tsl_buffer *from = st->is_read ? st->src : st->dst;
  const tsl_buffer *to = st->is_read ? st->dst : st->src;
  const tsl_stmt *copy = tsl_stmt_store(a, to, tsl_expr_load(a, from, nd, idx), nd, idx);
  for (uint32_t d = nd; d-- > 0;)
    copy = tsl_stmt_for(a, ax[d], tsl_expr_int(a, bdom[d].extent->dtype, 0),
                        bdom[d].extent, TSL_FOR_SERIAL, NULL, (tsl_attrs){0}, copy);
  char base[512];
  snprintf(base, sizeof base, "%s_%s", st->src->name, st->scope);
  tsl_block *nb = TSL_NEW(a, tsl_block);
  nb->name = st->name = sch_fresh_block_name(c, st->lp.func, base);
  nb->n_iter_vars = t.n;
  nb->iter_vars = t.ivs;
  tsl_buffer_region rr = {from, nd, bdom}, wr = {to, nd, bdom};
  nb->n_reads = nb->n_writes = 1;
  nb->reads = tsl_arena_dup(a, &rr, sizeof rr);
  nb->writes = tsl_arena_dup(a, &wr, sizeof wr);
  nb->body = copy;
  tsl_attr ann = {tsl_intern(c->sch->ctx, "auto_copy"), {TSL_ATTR_INT, 0, TSL_INT32, {.i = 1}}};
  nb->annotations = tsl_attrs_make(a, 1, &ann);
  return tsl_stmt_block_realize(a, t.n, t.vals, tsl_expr_bool(a, 1), nb);
}

/* The loop body with the buffer replaced in [beg, end) and the stage;
 * committed. */
static void rwa_rewrite_loop(rwa_state *st, const tsl_stmt *stage) {
  tsl_arena *a = st->a;
  tsl_map bufs;
  tsl_map_init(&bufs, a);
  tsl_map_put(&bufs, st->src, (void *)st->dst);
  tsl_mutator m = tsl_mutator_make(a);
  m.buffers = &bufs;
  const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, st->n + 1);
  for (uint32_t i = 0, k = 0; i <= st->n; i++) {
    if (i == st->pos)
      xs[k++] = stage;
    if (i < st->n)
      xs[k++] = i >= st->beg && i < st->end ? tsl_mutate_stmt(&m, st->subs[i]) : st->subs[i];
  }
  const tsl_stmt *nloop = sch_with_child(a, st->loop, 0, tsl_stmt_seq(a, st->n + 1, xs));
  cache_op op;
  memset(&op, 0, sizeof op);
  op.c = st->c;
  op.p = st->lp;
  op.scope = st->s.level;
  cache_commit_scope(&op, cache_scope_body_with(a, &st->lp, st->s.level, st->lp.depth - 1, nloop),
                     st->dst);
}

static int read_write_at(sch_call *c, int is_read) {
  rwa_state st;
  int rc = rwa_load(&st, c, is_read);
  if (rc)
    return rc;
  rwa_init_walker(&st);
  rc = rwa_scan_body(&st);
  if (!rc)
    rc = is_read ? rwa_place_read(&st) : rwa_place_write(&st);
  if (!rc)
    rc = rwa_region(&st);
  if (rc)
    return rc;
  rwa_rewrite_loop(&st, rwa_make_stage(&st));
  sch_out_block(c, st.lp.func->name, st.name);
  return TSL_OK;
}

int sch_apply_read_at(sch_call *c) { return read_write_at(c, 1); }
int sch_apply_write_at(sch_call *c) { return read_write_at(c, 0); }
