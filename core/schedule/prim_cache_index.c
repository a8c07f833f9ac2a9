/*
 * cache_index (TVM's CacheIndex): index computations of a block's stores
 * are precomputed into buffers "index_var_<k>" by blocks "index_<k>" at the
 * top of the scope, and read back from them. The computations are chosen
 * as TVM's common-subexpression tools choose them: the largest pure
 * subexpressions of each store that load nothing (more than one node, no
 * Ramp or Broadcast), equivalent ones merged with their counts added;
 * with cse_thresh > 0, a computation seen fewer times passes its count to
 * its largest pure subexpressions, and only those seen cse_thresh times
 * or more are cached. Each cache buffer is indexed by the block iterators
 * its computation uses; its block runs over the loops their bindings use.
 */
#include "cache_internal.h"
#include "compute_internal.h"

#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_node(const tsl_expr *e, void *ud) {
  (void)e;
  (*(uint32_t *)ud)++;
  return 0;
}

static uint32_t complexity(const tsl_expr *e) {
  uint32_t n = 0;
  tsl_expr_visit(e, count_node, &n);
  return n;
}

static int impure(const tsl_expr *e, void *ud) {
  (void)ud;
  return e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_CALL_EXTERN;
}

/* TVM's IsEligibleComputation for cache_index. */
static int eligible(const tsl_expr *e) {
  return e->kind != TSL_EXPR_RAMP && e->kind != TSL_EXPR_BROADCAST && complexity(e) > 1 &&
         !tsl_expr_visit(e, impure, NULL);
}

static int leaf(const tsl_expr *e) {
  return e->kind == TSL_EXPR_INT_IMM || e->kind == TSL_EXPR_FLOAT_IMM ||
         e->kind == TSL_EXPR_STR_IMM || e->kind == TSL_EXPR_VAR;
}

typedef struct comp {
  const tsl_expr *e;
  uint32_t n;
  uint32_t size;
} comp;

/* Add `e` (n times) to the list: an equivalent entry gets the count. */
static void add_comp(tsl_vec *v, const tsl_expr *e, uint32_t n, int sorted) {
  comp *xs = TSL_VEC_DATA(v, comp);
  for (uint32_t i = 0; i < v->len; i++)
    if (tsl_expr_equal(xs[i].e, e)) {
      xs[i].n += n;
      return;
    }
  comp x = {e, n, complexity(e)};
  uint32_t at = v->len;
  if (sorted) /* after every entry at least as large (TVM's lower_bound) */
    for (at = 0; at < v->len && xs[at].size >= x.size; at++)
      ;
  tsl_vec_push(v);
  xs = TSL_VEC_DATA(v, comp);
  memmove(&xs[at + 1], &xs[at], sizeof *xs * (v->len - 1 - at));
  xs[at] = x;
}

/* TVM's ComputationsDoneBy on an expression: the expression when
 * eligible, else what its operands hold. */
static void computations(tsl_vec *v, const tsl_expr *e) {
  if (leaf(e))
    return;
  if (eligible(e)) {
    add_comp(v, e, 1, 0);
    return;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    computations(v, e->args[i]);
}

/* TVM's DirectSubexpr: the largest eligible proper subexpressions. */
static void direct_subexprs(tsl_vec *out, const tsl_expr *e, int top) {
  if (!top && eligible(e)) {
    TSL_VEC_PUSH(out, const tsl_expr *, e);
    return;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    direct_subexprs(out, e->args[i], 0);
}

typedef struct picker {
  tsl_vec *chosen; /* const tsl_expr * */
  const comp *sem;
  uint32_t n_sem, thresh;
} picker;

static void pick_post(picker *pk, const tsl_expr *e) {
  for (uint32_t i = 0; i < e->n_args; i++)
    pick_post(pk, e->args[i]);
  for (uint32_t i = 0; i < pk->n_sem; i++) {
    if (pk->sem[i].n < pk->thresh || !tsl_expr_equal(e, pk->sem[i].e))
      continue;
    const tsl_expr **xs = TSL_VEC_DATA(pk->chosen, const tsl_expr *);
    int have = 0;
    for (uint32_t k = 0; k < pk->chosen->len && !have; k++)
      have = xs[k] == pk->sem[i].e;
    if (!have)
      TSL_VEC_PUSH(pk->chosen, const tsl_expr *, pk->sem[i].e);
  }
}

/* The computations of one store, appended to `chosen` (then sorted by
 * size, stably). */
static void analyze_store(sch_call *c, const tsl_stmt *st, uint32_t thresh, tsl_vec *chosen) {
  tsl_vec sem;
  tsl_vec_init(&sem, sizeof(comp), c->arena);
  computations(&sem, st->u.store.value);
  for (uint32_t i = 0; i < st->u.store.n_indices; i++)
    computations(&sem, st->u.store.indices[i]);
  /* largest first (TVM leaves this order to a hash table) */
  comp *xs = TSL_VEC_DATA(&sem, comp);
  for (uint32_t i = 1; i < sem.len; i++)
    for (uint32_t j = i; j > 0 && xs[j - 1].size < xs[j].size; j--) {
      comp t = xs[j];
      xs[j] = xs[j - 1];
      xs[j - 1] = t;
    }
  for (uint32_t i = 0; i < sem.len; i++) {
    comp x = TSL_VEC_AT(&sem, comp, i);
    if (x.n >= thresh)
      continue;
    tsl_vec subs;
    tsl_vec_init(&subs, sizeof(const tsl_expr *), c->arena);
    direct_subexprs(&subs, x.e, 1);
    for (uint32_t k = 0; k < subs.len; k++)
      add_comp(&sem, TSL_VEC_AT(&subs, const tsl_expr *, k), x.n, 1);
  }
  picker pk = {chosen, TSL_VEC_DATA(&sem, comp), sem.len, thresh};
  pick_post(&pk, st->u.store.value);
  const tsl_expr **cs = TSL_VEC_DATA(chosen, const tsl_expr *);
  for (uint32_t i = 1; i < chosen->len; i++)
    for (uint32_t j = i; j > 0 && complexity(cs[j - 1]) < complexity(cs[j]); j--) {
      const tsl_expr *t = cs[j];
      cs[j] = cs[j - 1];
      cs[j - 1] = t;
    }
}

typedef struct store_walk {
  sch_call *c;
  uint32_t thresh;
  tsl_vec *chosen;
} store_walk;

static int on_store(const tsl_stmt *s, void *ud) {
  store_walk *w = ud;
  if (s->kind == TSL_STMT_STORE)
    analyze_store(w->c, s, w->thresh, w->chosen);
  return 0;
}

static int stop_at_block(const tsl_block *b, const tsl_stmt *r, void *ud) {
  (void)b;
  (void)r;
  (void)ud;
  return 1;
}

/* ---- the rewrite of the block's stores ---- */

typedef struct repl {
  tsl_mutator m;
  uint32_t n;
  const tsl_expr *const *exprs;
  const tsl_expr *const *loads;
  uint32_t k; /* the computation being replaced */
} repl;

static const tsl_expr *repl_expr(tsl_mutator *m, const tsl_expr *e) {
  repl *r = (repl *)m;
  if (!leaf(e) && tsl_expr_equal(e, r->exprs[r->k]))
    return r->loads[r->k];
  return tsl_mutate_expr_children(m, e);
}

static const tsl_stmt *repl_stmt(tsl_mutator *m, const tsl_stmt *s) {
  repl *r = (repl *)m;
  if (s->kind == TSL_STMT_BLOCK_REALIZE)
    return s;
  if (s->kind != TSL_STMT_STORE)
    return tsl_mutate_stmt_children(m, s);
  const tsl_stmt *out = s;
  for (r->k = 0; r->k < r->n; r->k++)
    out = tsl_mutate_stmt_children(m, out);
  return out;
}

/* ---- the primitive ---- */

/* Variables of `e` in post-order of first appearance. */
static void post_vars(const tsl_expr *e, tsl_vec *out) {
  for (uint32_t i = 0; i < e->n_args; i++)
    post_vars(e->args[i], out);
  if (e->kind != TSL_EXPR_VAR)
    return;
  for (uint32_t i = 0; i < out->len; i++)
    if (TSL_VEC_AT(out, const tsl_var *, i) == e->u.var)
      return;
  TSL_VEC_PUSH(out, const tsl_var *, e->u.var);
}

int sch_apply_cache_index(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_block *blk = sch_path_block(&p);
  const tsl_stmt *real = sch_path_target(&p);
  const char *scope = c->args[1].u.s;
  int64_t thresh = c->args[2].u.i;
  if (!sto_scope_valid(scope))
    return sch_fail(c, TSL_EINVALID, "storage scope \"%s\" is invalid; valid scopes: %s",
                    scope, sto_scope_list());
  if (thresh < 0)
    return sch_fail(c, TSL_EINVALID, "cse_thresh must not be negative, got %lld",
                    (long long)thresh);
  if (p.depth < 2)
    return sch_fail(c, TSL_EINVALID, "block '%s' is the root block", blk->name);
  uint32_t scope_lv = sch_path_scope_level(&p, p.depth - 1);
  tsl_arena *a = c->arena;

  tsl_vec chosen;
  tsl_vec_init(&chosen, sizeof(const tsl_expr *), a);
  store_walk w = {c, (uint32_t)thresh, &chosen};
  tsl_stmt_visitor v = {on_store, stop_at_block, NULL, NULL, &w};
  if (blk->init)
    tsl_stmt_visit(blk->init, &v);
  tsl_stmt_visit(blk->body, &v);
  if (!chosen.len)
    return TSL_OK; /* nothing to precompute: unchanged, as TVM */

  /* the loops of the block's path and its bindings */
  tsl_map loop_rng; /* loop var -> FOR */
  tsl_map_init(&loop_rng, a);
  const tsl_var *lvars[SCH_MAX_DEPTH];
  tsl_range ldoms[SCH_MAX_DEPTH];
  uint32_t nl = 0;
  for (uint32_t k = scope_lv + 1; k + 1 < p.depth; k++)
    if (p.stmts[k]->kind == TSL_STMT_FOR) {
      const tsl_stmt *l = p.stmts[k];
      tsl_map_put(&loop_rng, l->u.loop.loop_var, (void *)l);
      lvars[nl] = l->u.loop.loop_var;
      ldoms[nl++] = (tsl_range){l->u.loop.min, l->u.loop.extent};
    }
  uint32_t n = chosen.len;
  const tsl_expr **exprs = TSL_VEC_DATA(&chosen, const tsl_expr *);
  const tsl_expr **loads = TSL_NEW_ARRAY(a, const tsl_expr *, n);
  const tsl_buffer **bufs = TSL_NEW_ARRAY(a, const tsl_buffer *, n);
  const tsl_stmt **stages = TSL_NEW_ARRAY(a, const tsl_stmt *, n);
  tsl_str *names = TSL_NEW_ARRAY(a, tsl_str, n);
  for (uint32_t k = 0; k < n; k++) {
    const tsl_expr *e = exprs[k];
    tsl_vec bv, lv;
    tsl_vec_init(&bv, sizeof(const tsl_var *), a);
    tsl_vec_init(&lv, sizeof(const tsl_var *), a);
    post_vars(e, &bv);
    const tsl_expr **binds = TSL_NEW_ARRAY(a, const tsl_expr *, bv.len + 1);
    for (uint32_t i = 0; i < bv.len; i++) {
      const tsl_var *x = TSL_VEC_AT(&bv, const tsl_var *, i);
      binds[i] = NULL;
      for (uint32_t j = 0; j < blk->n_iter_vars; j++)
        if (blk->iter_vars[j].var == x)
          binds[i] = real->u.realize.iter_values[j];
      if (!binds[i])
        return sch_fail(c, TSL_EINVALID,
                        "the index computation %s of block '%s' uses '%s', which is not an "
                        "iterator of the block", cmp_expr_str(c, e), blk->name, x->name);
      post_vars(binds[i], &lv);
    }
    /* new loops over the loops the bindings use */
    tsl_map sub;
    tsl_map_init(&sub, a);
    const tsl_var **ax = TSL_NEW_ARRAY(a, const tsl_var *, lv.len + 1);
    const tsl_stmt **loops = TSL_NEW_ARRAY(a, const tsl_stmt *, lv.len + 1);
    for (uint32_t j = 0; j < lv.len; j++) {
      const tsl_var *x = TSL_VEC_AT(&lv, const tsl_var *, j);
      loops[j] = tsl_map_get(&loop_rng, x);
      int64_t mn;
      if (!loops[j] || !tsl_expr_is_const_int(loops[j]->u.loop.min, &mn) || mn != 0)
        return sch_fail(c, TSL_EINVALID,
                        "the binding of an iterator of block '%s' uses '%s', which is not a "
                        "loop starting at 0 between the block and its scope",
                        blk->name, x->name);
      int64_t lo, hi;
      tsl_dtype dt = TSL_INT32;
      if (!tsl_analyzer_const_bound(c->sch->an,
                                    tsl_expr_binary(a, TSL_EXPR_SUB, loops[j]->u.loop.extent,
                                                    tsl_expr_int(a, loops[j]->u.loop.extent->dtype, 1)),
                                    &lo, &hi) ||
          hi > INT32_MAX)
        dt = TSL_INT64;
      ax[j] = cache_num_var(c, "ax", j, dt);
      const tsl_expr *axe = tsl_expr_var(ax[j]);
      if (x->dtype.bits != dt.bits)
        axe = tsl_expr_cast(a, x->dtype, axe);
      tsl_map_put(&sub, x, (void *)axe);
    }
    /* the buffer: one dimension per iterator, max binding + 1 */
    const tsl_expr **shape = TSL_NEW_ARRAY(a, const tsl_expr *, bv.len + 1);
    tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, bv.len + 1);
    const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, bv.len + 1);
    const tsl_expr **vidx = TSL_NEW_ARRAY(a, const tsl_expr *, bv.len + 1);
    const tsl_expr **bidx = TSL_NEW_ARRAY(a, const tsl_expr *, bv.len + 1);
    tsl_map vm;
    tsl_map_init(&vm, a);
    for (uint32_t i = 0; i < bv.len; i++) {
      const tsl_var *x = TSL_VEC_AT(&bv, const tsl_var *, i);
      tsl_range r;
      if (tsl_analyzer_relax(c->sch->an, a, binds[i], nl, lvars, ldoms, &r))
        return sch_fail(c, TSL_EUNSUPPORTED, "cannot bound the binding of '%s' in block '%s'",
                        x->name, blk->name);
      shape[i] = sch_simplify(c, tsl_expr_binary(a, TSL_EXPR_ADD, r.min, r.extent));
      const tsl_var *nv = cache_num_var(c, "v", i, x->dtype);
      const tsl_expr *ext = shape[i];
      if (ext->dtype.bits != x->dtype.bits)
        ext = tsl_expr_cast(a, x->dtype, ext);
      ivs[i] = (tsl_iter_var){nv, {tsl_expr_int(a, x->dtype, 0), ext}, TSL_ITER_SPATIAL};
      vals[i] = tsl_expr_substitute_map(a, binds[i], &sub);
      vidx[i] = tsl_expr_var(nv);
      bidx[i] = tsl_expr_var(x);
      tsl_map_put(&vm, x, (void *)vidx[i]);
    }
    char nm[64];
    snprintf(nm, sizeof nm, "index_var_%u", k);
    const tsl_expr *one = tsl_expr_int(a, shape[0] ? shape[0]->dtype : TSL_INT32, 1);
    const tsl_expr *const *strides = bv.len == 1 ? &one : NULL;
    bufs[k] = tsl_buffer_new(a, nm, e->dtype, bv.len, shape, strides, NULL, scope, 0, 0);
    const tsl_expr *val = tsl_expr_substitute_map(a, e, &vm);
    snprintf(nm, sizeof nm, "index_%u", k);
    names[k] = sch_fresh_block_name(c, p.func, nm);
    tsl_block *b = TSL_NEW(a, tsl_block);
    b->name = names[k];
    b->n_iter_vars = bv.len;
    b->iter_vars = ivs;
    tsl_range *wr = TSL_NEW_ARRAY(a, tsl_range, bv.len + 1);
    for (uint32_t i = 0; i < bv.len; i++)
      wr[i] = (tsl_range){vidx[i], tsl_expr_int(a, vidx[i]->dtype, 1)};
    tsl_buffer_region wreg = {bufs[k], bv.len, wr};
    b->n_writes = 1;
    b->writes = tsl_arena_dup(a, &wreg, sizeof wreg);
    b->body = tsl_stmt_store(a, bufs[k], val, bv.len, vidx);
    const tsl_stmt *st = tsl_stmt_block_realize(a, bv.len, vals, tsl_expr_bool(a, 1), b);
    for (uint32_t j = lv.len; j-- > 0;)
      st = tsl_stmt_for(a, ax[j], tsl_expr_int(a, ax[j]->dtype, 0),
                        ax[j]->dtype.bits == loops[j]->u.loop.extent->dtype.bits
                            ? loops[j]->u.loop.extent
                            : tsl_expr_cast(a, ax[j]->dtype, loops[j]->u.loop.extent),
                        TSL_FOR_SERIAL, NULL, (tsl_attrs){0}, st);
    stages[k] = st;
    loads[k] = tsl_expr_load(a, bufs[k], bv.len, bidx);
  }

  /* the block reads the caches */
  repl r;
  memset(&r, 0, sizeof r);
  r.m = tsl_mutator_make(a);
  r.m.expr = repl_expr;
  r.m.stmt = repl_stmt;
  r.n = n;
  r.exprs = exprs;
  r.loads = loads;
  tsl_block *nb = tsl_block_clone(a, blk);
  nb->body = tsl_mutate_stmt(&r.m, blk->body);
  nb->init = blk->init ? tsl_mutate_stmt(&r.m, blk->init) : NULL;
  /* the block now reads the caches: its regions say so (TVM leaves them
   * unchanged, and later primitives would miss the dependency) */
  tsl_buffer_region *rd = TSL_NEW_ARRAY(a, tsl_buffer_region, blk->n_reads + n);
  if (blk->n_reads)
    memcpy(rd, blk->reads, sizeof *rd * blk->n_reads);
  for (uint32_t k = 0; k < n; k++) {
    const tsl_buffer *cb = bufs[k];
    tsl_range *rg = TSL_NEW_ARRAY(a, tsl_range, cb->ndim + 1);
    for (uint32_t d = 0; d < cb->ndim; d++)
      rg[d] = (tsl_range){loads[k]->args[d], tsl_expr_int(a, loads[k]->args[d]->dtype, 1)};
    rd[blk->n_reads + k] = (tsl_buffer_region){cb, cb->ndim, rg};
  }
  nb->reads = rd;
  nb->n_reads = blk->n_reads + n;
  const tsl_stmt *body = cache_scope_body_with(a, &p, scope_lv, p.depth - 1,
                                               sch_with_block(a, real, nb));
  /* the stages before the statement of the scope body holding the block */
  uint32_t pos = body->kind == TSL_STMT_SEQ ? p.index[scope_lv + 2] : 0;
  for (uint32_t k = n; k-- > 0;)
    body = sto_insert(a, body, pos, stages[k]);
  const tsl_stmt *scope_real = p.stmts[scope_lv];
  const tsl_block *sblk = scope_real->u.realize.block;
  tsl_block *ns = tsl_block_clone(a, sblk);
  ns->body = body;
  const tsl_buffer **al = TSL_NEW_ARRAY(a, const tsl_buffer *, sblk->n_alloc_buffers + n);
  if (sblk->n_alloc_buffers)
    memcpy(al, sblk->alloc_buffers, sizeof *al * sblk->n_alloc_buffers);
  memcpy(al + sblk->n_alloc_buffers, bufs, sizeof *al * n);
  ns->alloc_buffers = al;
  ns->n_alloc_buffers = sblk->n_alloc_buffers + n;
  sch_commit(c, p.func, sch_path_rebuild(a, &p, scope_lv, sch_with_block(a, scope_real, ns)));
  for (uint32_t k = 0; k < n; k++)
    sch_out_block(c, p.func->name, names[k]);
  return TSL_OK;
}
