/*
 * decompose_padding / can_decompose_padding: a padding block
 *   A[idx] = T.if_then_else(in_bound, value, pad_const)
 * becomes a block `<name>_pad_const` writing pad_const everywhere, placed
 * before `loop` under copies of the loops from `loop` down, and the block
 * itself writing `value` only where `in_bound` holds, its iters narrowed to
 * the in-bound range (loops bound to them directly are narrowed instead of
 * predicated), as TVM's DecomposePadding does.
 *
 * The in-bound range of each iter is the range of its binding under the
 * loop domains, tightened by the conjuncts of the predicate that bound the
 * binding by a constant (TVM derives it with DetectIterMap; see README.md).
 */
#include "compute_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct dp_ctx {
  sch_call *c;
  tsl_arena *a;
  tsl_analyzer *an;
  sch_path p;
  cmp_scope s;
  const tsl_stmt *realize;
  const tsl_block *b;
  uint32_t lc, li;     /* levels of `loop` and of the in-bound nest's top */
  const tsl_expr *in_value, *pad, *pred;
  const tsl_expr **base, **ext; /* in-bound range of each iter */
} dp_ctx;

static int is_true(const tsl_expr *e) {
  return e->kind == TSL_EXPR_INT_IMM && e->u.int_value;
}

static const tsl_expr *subst(dp_ctx *x, tsl_map *m, const tsl_expr *e) {
  return tsl_simplify(x->an, x->a, tsl_expr_substitute_map(x->a, e, m));
}

/* Conjuncts of a bool expression. */
static void conjuncts(const tsl_expr *e, tsl_vec *out) {
  if (e->kind == TSL_EXPR_AND) {
    conjuncts(e->args[0], out);
    conjuncts(e->args[1], out);
  } else if (!is_true(e)) {
    TSL_VEC_PUSH(out, const tsl_expr *, e);
  }
}

/* Tighten [lo, hi] of `e` by a conjunct `l op r` when l - r == +-e + k. */
static void tighten(dp_ctx *x, const tsl_expr *cj, const tsl_expr *e, int64_t *lo,
                    int64_t *hi) {
  tsl_expr_kind op = (tsl_expr_kind)cj->kind;
  if (op != TSL_EXPR_LT && op != TSL_EXPR_LE && op != TSL_EXPR_GT && op != TSL_EXPR_GE &&
      op != TSL_EXPR_EQ)
    return;
  if (!tsl_dtype_is_int(cj->args[0]->dtype))
    return;
  tsl_arena *a = x->a;
  const tsl_expr *d = tsl_expr_binary(a, TSL_EXPR_SUB, cj->args[0], cj->args[1]);
  for (int sign = 1; sign >= -1; sign -= 2) {
    const tsl_expr *t = tsl_simplify(
        x->an, a, tsl_expr_binary(a, sign > 0 ? TSL_EXPR_SUB : TSL_EXPR_ADD, d, e));
    int64_t k;
    if (!tsl_expr_is_const_int(t, &k))
      continue;
    /* sign*e + k  op  0 */
    int64_t v = -k; /* sign*e op v */
    tsl_expr_kind o = op;
    if (sign < 0) { /* -e op v  <=>  e op' -v */
      v = -v;
      o = op == TSL_EXPR_LT ? TSL_EXPR_GT : op == TSL_EXPR_LE ? TSL_EXPR_GE
          : op == TSL_EXPR_GT ? TSL_EXPR_LT : op == TSL_EXPR_GE ? TSL_EXPR_LE : op;
    }
    switch (o) {
    case TSL_EXPR_LT: if (v - 1 < *hi) *hi = v - 1; break;
    case TSL_EXPR_LE: if (v < *hi) *hi = v; break;
    case TSL_EXPR_GT: if (v + 1 > *lo) *lo = v + 1; break;
    case TSL_EXPR_GE: if (v > *lo) *lo = v; break;
    case TSL_EXPR_EQ:
      if (v > *lo) *lo = v;
      if (v < *hi) *hi = v;
      break;
    default: break;
    }
    return;
  }
}

static int pattern_error(dp_ctx *x, const char *what) {
  return sch_fail(x->c, TSL_EINVALID,
                  "block '%s' does not match the padding pattern "
                  "`A[...] = T.if_then_else(in_bound, value, constant)`: %s",
                  x->b->name, what);
}

static int has_call(const tsl_expr *e, void *ud) {
  (void)ud;
  return e->kind == TSL_EXPR_CALL_EXTERN;
}

/* Checks and the in-bound ranges; nothing is built. */
static int analyze(dp_ctx *x, const sch_path *lp) {
  sch_call *c = x->c;
  tsl_arena *a = x->a;
  const tsl_block *b = x->b;
  const sch_path *p = &x->p;
  cmp_scope_of(c, p, &x->s);
  int rc = cmp_check_complete(c, &x->s, x->s.self);
  if (rc)
    return rc;
  /* `loop` must be a loop of the block; only loops and sequences between */
  const tsl_stmt *loop = sch_path_target(lp);
  x->lc = 0;
  for (uint32_t k = x->s.level + 1; k + 1 < p->depth; k++)
    if (p->stmts[k] == loop)
      x->lc = k;
  if (!x->lc)
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' is not an ancestor of block '%s' in its scope",
                    loop->u.loop.loop_var->name, b->name);
  for (uint32_t k = x->lc; k + 1 < p->depth; k++)
    if (p->stmts[k]->kind != TSL_STMT_FOR && p->stmts[k]->kind != TSL_STMT_SEQ)
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "an if or let statement lies between loop '%s' and block "
                      "'%s'; the pad values would be written where the block "
                      "never runs",
                      loop->u.loop.loop_var->name, b->name);
  x->li = p->depth - 1;
  while (x->li - 1 >= x->lc && p->stmts[x->li - 1]->kind == TSL_STMT_FOR)
    x->li--;
  /* the pattern */
  const tsl_stmt *st = b->body;
  if (st->kind != TSL_STMT_STORE)
    return pattern_error(x, "the body is not one store");
  if (b->n_writes != 1)
    return pattern_error(x, "the block writes more than one buffer");
  const tsl_expr *v = st->u.store.value;
  if (v->kind != TSL_EXPR_IF_THEN_ELSE)
    return pattern_error(x, "the stored value is not a T.if_then_else");
  x->pad = v->args[2];
  if (x->pad->kind != TSL_EXPR_INT_IMM && x->pad->kind != TSL_EXPR_FLOAT_IMM)
    return pattern_error(x, "the pad value is not a constant");
  x->in_value = v->args[1];
  if (tsl_expr_visit(x->in_value, has_call, NULL))
    return pattern_error(x, "the in-bound value calls an external function");
  /* loop domains */
  for (uint32_t k = x->s.level + 1; k + 1 < p->depth; k++)
    if (p->stmts[k]->kind == TSL_STMT_FOR)
      tsl_analyzer_bind(x->an, p->stmts[k]->u.loop.loop_var, p->stmts[k]->u.loop.min,
                        p->stmts[k]->u.loop.extent);
  tsl_map iv;
  tsl_map_init(&iv, a);
  uint32_t n = b->n_iter_vars;
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    vals[i] = tsl_simplify(x->an, a, x->realize->u.realize.iter_values[i]);
    tsl_map_put(&iv, b->iter_vars[i].var, (void *)vals[i]);
  }
  /* one left-nested chain of conjuncts, as TVM's RewritePredicate */
  tsl_vec all;
  tsl_vec_init(&all, sizeof(const tsl_expr *), a);
  conjuncts(subst(x, &iv, v->args[0]), &all);
  conjuncts(x->realize->u.realize.predicate, &all);
  x->pred = tsl_expr_bool(a, 1);
  for (uint32_t k = 0; k < all.len; k++) {
    const tsl_expr *e = TSL_VEC_AT(&all, const tsl_expr *, k);
    x->pred = k ? tsl_expr_binary(a, TSL_EXPR_AND, x->pred, e) : e;
  }
  x->pred = tsl_simplify(x->an, a, x->pred);
  if (is_true(x->pred) || tsl_analyzer_can_prove(x->an, x->pred))
    return pattern_error(x, "the in-bound condition always holds");
  /* each loop feeds one binding at most (TVM's independent iterators) */
  for (uint32_t k = x->s.level + 1; k + 1 < p->depth; k++) {
    if (p->stmts[k]->kind != TSL_STMT_FOR)
      continue;
    uint32_t uses = 0;
    for (uint32_t i = 0; i < n; i++)
      uses += (uint32_t)tsl_expr_uses_var(vals[i], p->stmts[k]->u.loop.loop_var);
    if (uses > 1)
      return pattern_error(x, "a loop feeds several iters, which are then "
                              "not independent of the padding condition");
  }
  tsl_vec cj;
  tsl_vec_init(&cj, sizeof(const tsl_expr *), a);
  conjuncts(x->pred, &cj);
  x->base = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  x->ext = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    tsl_dtype dt = b->iter_vars[i].var->dtype;
    int64_t lo, hi;
    if (!tsl_analyzer_const_bound(x->an, vals[i], &lo, &hi))
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "the binding of iter '%s' of block '%s' (%s) has no "
                      "constant bounds",
                      b->iter_vars[i].var->name, b->name, cmp_expr_str(c, vals[i]));
    for (uint32_t k = 0; k < cj.len; k++)
      tighten(x, TSL_VEC_AT(&cj, const tsl_expr *, k), vals[i], &lo, &hi);
    if (lo > hi)
      return pattern_error(x, "no iteration is in bounds");
    x->base[i] = tsl_expr_int(a, dt, lo);
    x->ext[i] = tsl_expr_int(a, dt, hi - lo + 1);
  }
  return TSL_OK;
}

static tsl_buffer_region rewrite_region(dp_ctx *x, tsl_map *m,
                                        const tsl_buffer_region *r) {
  tsl_buffer_region out = *r;
  tsl_range *rs = TSL_NEW_ARRAY(x->a, tsl_range, r->ndim + 1);
  for (uint32_t d = 0; d < r->ndim; d++)
    rs[d] = (tsl_range){subst(x, m, r->ranges[d].min), subst(x, m, r->ranges[d].extent)};
  out.ranges = rs;
  return out;
}

/* The block storing the pad value at every position, under copies of the
 * loops from `loop` down. */
static const tsl_stmt *const_nest(dp_ctx *x, tsl_str *name) {
  sch_call *c = x->c;
  tsl_arena *a = x->a;
  const tsl_block *b = x->b;
  const sch_path *p = &x->p;
  uint32_t n = b->n_iter_vars;
  tsl_map m;
  tsl_map_init(&m, a);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    ivs[i] = b->iter_vars[i];
    ivs[i].var = sch_new_var(c, b->iter_vars[i].var->name, b->iter_vars[i].var->dtype);
    ivs[i].iter_type = TSL_ITER_SPATIAL;
    tsl_map_put(&m, b->iter_vars[i].var, (void *)tsl_expr_var(ivs[i].var));
  }
  const tsl_stmt *st = b->body;
  const tsl_expr **idx = TSL_NEW_ARRAY(a, const tsl_expr *, st->u.store.n_indices + 1);
  for (uint32_t d = 0; d < st->u.store.n_indices; d++)
    idx[d] = subst(x, &m, st->u.store.indices[d]);
  tsl_block *nb = TSL_NEW(a, tsl_block);
  char nm[512];
  snprintf(nm, sizeof nm, "%s_pad_const", b->name);
  nb->name = *name = sch_fresh_block_name(c, p->func, nm);
  nb->n_iter_vars = n;
  nb->iter_vars = ivs;
  tsl_buffer_region *w = TSL_NEW(a, tsl_buffer_region);
  *w = rewrite_region(x, &m, &b->writes[0]);
  nb->n_writes = 1;
  nb->writes = w;
  nb->body = tsl_stmt_store(a, st->u.store.buffer, x->pad, st->u.store.n_indices, idx);
  /* new loop variables from the innermost loop up to `loop` */
  const tsl_var **lv = TSL_NEW_ARRAY(a, const tsl_var *, p->depth);
  for (uint32_t k = p->depth - 1; k-- > x->lc;) {
    const tsl_stmt *l = p->stmts[k];
    if (l->kind != TSL_STMT_FOR)
      continue;
    lv[k] = sch_new_var(c, l->u.loop.loop_var->name, l->u.loop.loop_var->dtype);
    tsl_map_put(&m, l->u.loop.loop_var, (void *)tsl_expr_var(lv[k]));
  }
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++)
    vals[i] = subst(x, &m, x->realize->u.realize.iter_values[i]);
  const tsl_stmt *s = tsl_stmt_block_realize(
      a, n, vals, subst(x, &m, x->realize->u.realize.predicate), nb);
  for (uint32_t k = p->depth - 1; k-- > x->lc;) {
    const tsl_stmt *l = p->stmts[k];
    if (l->kind == TSL_STMT_FOR)
      s = tsl_stmt_for(a, lv[k], l->u.loop.min, l->u.loop.extent, TSL_FOR_SERIAL, NULL,
                       (tsl_attrs){0, NULL}, s);
  }
  return s;
}

/* The block writing the in-bound values, under the loops from the top of
 * its single-child chain (not above `loop`), narrowed where bound. */
static const tsl_stmt *in_bound_nest(dp_ctx *x) {
  sch_call *c = x->c;
  tsl_arena *a = x->a;
  const tsl_block *b = x->b;
  const sch_path *p = &x->p;
  uint32_t n = b->n_iter_vars;
  tsl_map m;
  tsl_map_init(&m, a);
  tsl_map nl; /* loop var -> new extent */
  tsl_map_init(&nl, a);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, n + 1);
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_iter_var *ov = &b->iter_vars[i];
    tsl_dtype dt = ov->var->dtype;
    ivs[i].var = sch_new_var(c, ov->var->name, dt);
    ivs[i].dom = (tsl_range){tsl_expr_int(a, dt, 0), x->ext[i]};
    ivs[i].iter_type = TSL_ITER_SPATIAL;
    tsl_map_put(&m, ov->var,
                (void *)tsl_expr_binary(a, TSL_EXPR_ADD, tsl_expr_var(ivs[i].var), x->base[i]));
    const tsl_expr *v = x->realize->u.realize.iter_values[i];
    const tsl_stmt *bl = NULL;
    for (uint32_t k = x->li; k + 1 < p->depth && v->kind == TSL_EXPR_VAR; k++)
      if (p->stmts[k]->u.loop.loop_var == v->u.var)
        bl = p->stmts[k];
    if (bl) {
      tsl_map_put(&nl, v->u.var, (void *)x->ext[i]);
      vals[i] = v;
      tsl_map_put(&m, v->u.var, (void *)tsl_expr_binary(a, TSL_EXPR_ADD, v, x->base[i]));
      tsl_analyzer_bind(x->an, v->u.var, tsl_expr_int(a, dt, 0), x->ext[i]);
    } else {
      vals[i] = tsl_simplify(x->an, a, tsl_expr_binary(a, TSL_EXPR_SUB, v, x->base[i]));
    }
  }
  const tsl_stmt *st = b->body;
  const tsl_expr **idx = TSL_NEW_ARRAY(a, const tsl_expr *, st->u.store.n_indices + 1);
  for (uint32_t d = 0; d < st->u.store.n_indices; d++)
    idx[d] = subst(x, &m, st->u.store.indices[d]);
  tsl_block *nb = tsl_block_clone(a, b);
  nb->iter_vars = ivs;
  tsl_buffer_region *rd = TSL_NEW_ARRAY(a, tsl_buffer_region, b->n_reads + 1);
  for (uint32_t i = 0; i < b->n_reads; i++)
    rd[i] = rewrite_region(x, &m, &b->reads[i]);
  tsl_buffer_region *wr = TSL_NEW_ARRAY(a, tsl_buffer_region, b->n_writes + 1);
  for (uint32_t i = 0; i < b->n_writes; i++)
    wr[i] = rewrite_region(x, &m, &b->writes[i]);
  nb->reads = rd;
  nb->writes = wr;
  nb->body = tsl_stmt_store(a, st->u.store.buffer, subst(x, &m, x->in_value),
                            st->u.store.n_indices, idx);
  const tsl_stmt *s = tsl_stmt_block_realize(a, n, vals, subst(x, &m, x->pred), nb);
  for (uint32_t k = p->depth - 1; k-- > x->li;) {
    const tsl_stmt *l = p->stmts[k];
    const tsl_expr *e = tsl_map_get(&nl, l->u.loop.loop_var);
    s = tsl_stmt_for(a, l->u.loop.loop_var,
                     e ? tsl_expr_int(a, e->dtype, 0) : l->u.loop.min,
                     e ? e : l->u.loop.extent, (tsl_for_kind)l->u.loop.for_kind,
                     l->u.loop.thread_tag, l->u.loop.annotations, s);
  }
  return s;
}

static int decompose(sch_call *c, int check_only, tsl_str *name) {
  dp_ctx x;
  memset(&x, 0, sizeof x);
  x.c = c;
  x.a = c->arena;
  sch_path lp;
  int rc = sch_block_path(c, c->args[0].u.rv, &x.p);
  if (!rc)
    rc = sch_loop_path(c, c->args[1].u.rv, &lp);
  if (rc)
    return rc;
  x.realize = sch_path_target(&x.p);
  x.b = x.realize->u.realize.block;
  x.an = tsl_analyzer_new(c->sch->ctx);
  rc = analyze(&x, &lp);
  if (rc == TSL_OK && !check_only) {
    const tsl_stmt *cn = const_nest(&x, name);
    const tsl_stmt *ib = in_bound_nest(&x);
    const tsl_stmt *top = ib;
    for (uint32_t k = x.li; k > x.lc; k--)
      top = sch_with_child(x.a, x.p.stmts[k - 1], x.p.index[k], top);
    const tsl_stmt *items[2] = {cn, top};
    sch_commit(c, x.p.func,
               sch_path_rebuild(x.a, &x.p, x.lc, tsl_stmt_seq(x.a, 2, items)));
  }
  tsl_analyzer_free(x.an);
  return rc;
}

int sch_apply_decompose_padding(sch_call *c) {
  tsl_str name;
  int rc = decompose(c, 0, &name);
  if (rc)
    return rc;
  sch_out_block(c, c->sch->rvs[c->args[0].u.rv].func, name);
  return TSL_OK;
}

int sch_apply_can_decompose_padding(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (!rc)
    rc = sch_loop_path(c, c->args[1].u.rv, &p);
  if (rc)
    return rc; /* bad handles fail, as in TVM */
  tsl_str name;
  sch_out_int(c, decompose(c, 1, &name) == TSL_OK);
  if (c->diag)
    memset(c->diag, 0, sizeof *c->diag);
  return TSL_OK;
}
