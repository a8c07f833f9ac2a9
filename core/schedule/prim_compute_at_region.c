/*
 * The region arithmetic of compute_at / reverse_compute_at: what one
 * execution of the moved block provides (compute_at: its writes;
 * reverse_compute_at: its reads), what the dependent blocks under the
 * target loop require (their reads / writes with their bindings
 * substituted and the loops between them and the target loop relaxed;
 * for compute_at into "shared"/"warp" buffers also the thread-bound loops
 * above, as TVM does), and from both the iteration domain of every block
 * var, plus the bound that becomes a T.where predicate when the domain
 * cannot be shown to lie inside the buffer.
 */
#include "compute_internal.h"

#include <string.h>

/* ---- small expression helpers ---------------------------------------- */

static const tsl_expr *ci(sch_call *c, tsl_dtype t, int64_t v) {
  return tsl_expr_int(c->arena, t, v);
}
static const tsl_expr *bin(sch_call *c, tsl_expr_kind k, const tsl_expr *a,
                           const tsl_expr *b) {
  return tsl_expr_binary(c->arena, k, a, b);
}
static int prove(sch_call *c, tsl_expr_kind k, const tsl_expr *a,
                 const tsl_expr *b) {
  return tsl_analyzer_can_prove(c->sch->an, bin(c, k, a, b));
}

/* min (want_min) or max of two bounds; NULL means "none". */
static const tsl_expr *pick(sch_call *c, const tsl_expr *a, const tsl_expr *b,
                            int want_min) {
  if (!a)
    return b;
  if (!b)
    return a;
  if (prove(c, TSL_EXPR_LE, a, b))
    return want_min ? a : b;
  if (prove(c, TSL_EXPR_LE, b, a))
    return want_min ? b : a;
  return sch_simplify(c, bin(c, want_min ? TSL_EXPR_MIN : TSL_EXPR_MAX, a, b));
}

static void iv_union(sch_call *c, cmp_iv *acc, cmp_iv x) {
  acc->lo = pick(c, acc->lo, x.lo, 1);
  acc->hi = pick(c, acc->hi, x.hi, 0);
}

/* ---- provided and required regions ------------------------------------ */

typedef struct buf_req {
  const tsl_buffer *buf;
  cmp_iv *prov; /* ndim */
  cmp_iv *req;  /* ndim; lo NULL while nothing is required */
  int has_req;
} buf_req;

static int relax_region(sch_call *c, const tsl_buffer_region *r,
                        const sch_path *q, uint32_t L, int thread_relax,
                        cmp_iv *out) {
  const tsl_stmt *realize = sch_path_target(q);
  const tsl_var **vars = TSL_NEW_ARRAY(c->arena, const tsl_var *, q->depth);
  tsl_range *doms = TSL_NEW_ARRAY(c->arena, tsl_range, q->depth);
  uint32_t n = 0;
  for (uint32_t k = 0; k + 1 < q->depth; k++) {
    const tsl_stmt *s = q->stmts[k];
    if (s->kind != TSL_STMT_FOR)
      continue;
    int inner = k > L;
    int thread = k <= L && thread_relax &&
                 s->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
                 sch_thread_relaxes(r->buffer->scope, s->u.loop.thread_tag);
    if (!inner && !thread)
      continue;
    vars[n] = s->u.loop.loop_var;
    doms[n].min = s->u.loop.min;
    doms[n].extent = s->u.loop.extent;
    n++;
  }
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_expr *mn = sch_subst_bindings(c, realize, r->ranges[d].min);
    const tsl_expr *ex = sch_subst_bindings(c, realize, r->ranges[d].extent);
    const tsl_expr *last =
        bin(c, TSL_EXPR_SUB, bin(c, TSL_EXPR_ADD, mn, ex), ci(c, ex->dtype, 1));
    tsl_range r1, r2;
    if (tsl_analyzer_relax(c->sch->an, c->arena, mn, n, vars, doms, &r1) ||
        tsl_analyzer_relax(c->sch->an, c->arena, last, n, vars, doms, &r2))
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "cannot bound the region of '%s' that block '%s' "
                      "accesses (dimension %u: %s)",
                      r->buffer->name, realize->u.realize.block->name, d,
                      cmp_expr_str(c, mn));
    out[d].lo = r1.min;
    out[d].hi = sch_simplify(
        c, bin(c, TSL_EXPR_SUB, bin(c, TSL_EXPR_ADD, r2.min, r2.extent),
               ci(c, r2.extent->dtype, 1)));
  }
  return TSL_OK;
}

/* ---- solving for the block vars --------------------------------------- */

static int var_index(const tsl_block *b, const tsl_expr *e) {
  if (e->kind != TSL_EXPR_VAR)
    return -1;
  for (uint32_t k = 0; k < b->n_iter_vars; k++)
    if (b->iter_vars[k].var == e->u.var)
      return (int)k;
  return -1;
}

static int unsupported_index(sch_call *c, const tsl_block *b,
                             const tsl_buffer *buf, uint32_t d,
                             const tsl_expr *e, int reverse) {
  return sch_fail(c, TSL_EUNSUPPORTED,
                  "cannot derive the loops of block '%s': it %s '%s' at index "
                  "%s in dimension %u; supported indices are a block iter var, "
                  "var * c, var // c, var %% c or a constant",
                  b->name, reverse ? "reads" : "writes", buf->name,
                  cmp_expr_str(c, e), d);
}

/* One dimension: provided [p.lo, p.hi] must cover required [r.lo, r.hi]. */
static int solve_dim(sch_call *c, const tsl_block *b, const tsl_buffer *buf,
                     uint32_t d, cmp_iv p, cmp_iv r, cmp_iv *dom,
                     cmp_iv *bound, int reverse) {
  tsl_dtype t = p.lo->dtype;
  const tsl_expr *dim_max = sch_simplify(
      c, bin(c, TSL_EXPR_SUB, buf->shape[d], ci(c, buf->shape[d]->dtype, 1)));
  int single = tsl_analyzer_equal(c->sch->an, p.lo, p.hi);
  int64_t cv;
  if (single && tsl_expr_is_const_int(p.lo, &cv)) {
    if (tsl_analyzer_equal(c->sch->an, r.lo, p.lo) &&
        tsl_analyzer_equal(c->sch->an, r.hi, p.lo))
      return TSL_OK;
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "block '%s' %s '%s' only at index %lld in dimension %u, "
                    "but [%s, %s] is needed there",
                    b->name, reverse ? "reads" : "writes", buf->name,
                    (long long)cv, d, cmp_expr_str(c, r.lo),
                    cmp_expr_str(c, r.hi));
  }
  const tsl_expr *e = p.lo;
  int k = -1;
  cmp_iv vd, vb;
  if (e->kind == TSL_EXPR_MUL &&
      ((k = var_index(b, e->args[0])) >= 0 ||
       (k = var_index(b, e->args[1])) >= 0)) {
    const tsl_expr *f = e->args[0]->kind == TSL_EXPR_VAR &&
                                var_index(b, e->args[0]) == k
                            ? e->args[1]
                            : e->args[0];
    int64_t fv;
    if (!tsl_expr_is_const_int(f, &fv) || fv < 1)
      return unsupported_index(c, b, buf, d, e, reverse);
    vd.lo = sch_simplify(c, bin(c, TSL_EXPR_FLOORDIV, r.lo, f));
    vd.hi = sch_simplify(c, bin(c, TSL_EXPR_FLOORDIV, r.hi, f));
    vb.lo = ci(c, t, 0);
    vb.hi = sch_simplify(c, bin(c, TSL_EXPR_FLOORDIV, dim_max, f));
  } else if (single && (k = var_index(b, e)) >= 0) {
    vd = r;
    vb.lo = ci(c, t, 0);
    vb.hi = dim_max;
  } else if (single && e->kind == TSL_EXPR_FLOORDIV &&
             (k = var_index(b, e->args[0])) >= 0) {
    int64_t fv;
    if (!tsl_expr_is_const_int(e->args[1], &fv) || fv < 1)
      return unsupported_index(c, b, buf, d, e, reverse);
    const tsl_expr *f = e->args[1], *fm1 = ci(c, t, fv - 1);
    vd.lo = sch_simplify(c, bin(c, TSL_EXPR_MUL, r.lo, f));
    vd.hi = sch_simplify(
        c, bin(c, TSL_EXPR_ADD, bin(c, TSL_EXPR_MUL, r.hi, f), fm1));
    vb.lo = ci(c, t, 0);
    vb.hi = sch_simplify(
        c, bin(c, TSL_EXPR_ADD, bin(c, TSL_EXPR_MUL, dim_max, f), fm1));
  } else if (single && e->kind == TSL_EXPR_FLOORMOD &&
             var_index(b, e->args[0]) >= 0) {
    return TSL_OK; /* x % c constrains nothing */
  } else if (!single) {
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "cannot derive the loops of block '%s': one execution "
                    "%s '%s' over [%s, %s] in dimension %u; only one element "
                    "per dimension (or var * c) is supported",
                    b->name, reverse ? "reads" : "writes", buf->name,
                    cmp_expr_str(c, p.lo), cmp_expr_str(c, p.hi), d);
  } else {
    return unsupported_index(c, b, buf, d, e, reverse);
  }
  iv_union(c, &dom[k], vd);
  iv_union(c, &bound[k], vb);
  return TSL_OK;
}

/* TVM's BlockVarDomainInfo::Simplify: drop the bound when the domain lies
 * inside it, clip the domain when the bound lies inside it. */
static void finish_var(sch_call *c, const tsl_iter_var *iv, cmp_iv *dom,
                       cmp_iv *bound) {
  cmp_iv full = {iv->dom.min,
                 sch_simplify(c, bin(c, TSL_EXPR_SUB,
                                     bin(c, TSL_EXPR_ADD, iv->dom.min,
                                         iv->dom.extent),
                                     ci(c, iv->dom.extent->dtype, 1)))};
  if (!bound->lo) {
    *bound = full;
  } else {
    bound->lo = pick(c, bound->lo, full.lo, 0);
    bound->hi = pick(c, bound->hi, full.hi, 1);
  }
  if (!dom->lo) {
    *dom = *bound;
    bound->lo = bound->hi = NULL;
    return;
  }
  if (prove(c, TSL_EXPR_GE, dom->lo, bound->lo) &&
      prove(c, TSL_EXPR_LE, dom->hi, bound->hi)) {
    bound->lo = bound->hi = NULL;
    return;
  }
  if (prove(c, TSL_EXPR_GE, bound->lo, dom->lo) &&
      prove(c, TSL_EXPR_LE, bound->hi, dom->hi)) {
    *dom = *bound;
    bound->lo = bound->hi = NULL;
    return;
  }
  const tsl_expr *lo = pick(c, dom->lo, bound->lo, 0);
  const tsl_expr *hi = pick(c, dom->hi, bound->hi, 1);
  int64_t a, b;
  if (tsl_expr_is_const_int(lo, &a) && tsl_expr_is_const_int(hi, &b)) {
    dom->lo = lo;
    dom->hi = hi;
    bound->lo = bound->hi = NULL;
  }
}

int cmp_block_var_domains(sch_call *c, const sch_path *bp, const sch_path *lp,
                          const cmp_scope *s, const uint32_t *deps,
                          uint32_t n_deps, int reverse, cmp_iv *dom,
                          cmp_iv *bound) {
  const tsl_block *b = sch_path_block(bp);
  uint32_t L = lp->depth - 1;
  const tsl_buffer_region *prov = reverse ? b->reads : b->writes;
  uint32_t n_prov = reverse ? b->n_reads : b->n_writes;
  buf_req *bufs = TSL_NEW_ARRAY(c->arena, buf_req, n_prov ? n_prov : 1);
  uint32_t nb = 0;
  for (uint32_t i = 0; i < n_prov; i++) {
    const tsl_buffer_region *r = &prov[i];
    uint32_t j = 0;
    while (j < nb && bufs[j].buf != r->buffer)
      j++;
    if (j == nb) {
      bufs[nb].buf = r->buffer;
      bufs[nb].prov = TSL_NEW_ARRAY(c->arena, cmp_iv, r->ndim ? r->ndim : 1);
      bufs[nb].req = TSL_NEW_ARRAY(c->arena, cmp_iv, r->ndim ? r->ndim : 1);
      bufs[nb].has_req = 0;
      nb++;
    }
    for (uint32_t d = 0; d < r->ndim; d++) {
      const tsl_range *rg = &r->ranges[d];
      cmp_iv x = {sch_simplify(c, rg->min),
                  sch_simplify(c, bin(c, TSL_EXPR_SUB,
                                      bin(c, TSL_EXPR_ADD, rg->min, rg->extent),
                                      ci(c, rg->extent->dtype, 1)))};
      iv_union(c, &bufs[j].prov[d], x);
    }
  }
  for (uint32_t i = 0; i < n_deps; i++) {
    const sch_path *q = &s->kids[deps[i]];
    const tsl_block *db = sch_path_block(q);
    const tsl_buffer_region *rs = reverse ? db->writes : db->reads;
    uint32_t nr = reverse ? db->n_writes : db->n_reads;
    for (uint32_t k = 0; k < nr; k++) {
      uint32_t j = 0;
      while (j < nb && bufs[j].buf != rs[k].buffer)
        j++;
      if (j == nb)
        continue;
      cmp_iv *x = TSL_NEW_ARRAY(c->arena, cmp_iv, rs[k].ndim ? rs[k].ndim : 1);
      int rc = relax_region(c, &rs[k], q, L, !reverse, x);
      if (rc)
        return rc;
      for (uint32_t d = 0; d < rs[k].ndim; d++)
        iv_union(c, &bufs[j].req[d], x[d]);
      bufs[j].has_req = 1;
    }
  }
  for (uint32_t k = 0; k < b->n_iter_vars; k++)
    dom[k].lo = dom[k].hi = bound[k].lo = bound[k].hi = NULL;
  for (uint32_t j = 0; j < nb; j++) {
    if (!bufs[j].has_req)
      continue;
    for (uint32_t d = 0; d < bufs[j].buf->ndim; d++) {
      int rc = solve_dim(c, b, bufs[j].buf, d, bufs[j].prov[d],
                         bufs[j].req[d], dom, bound, reverse);
      if (rc)
        return rc;
    }
  }
  for (uint32_t k = 0; k < b->n_iter_vars; k++)
    finish_var(c, &b->iter_vars[k], &dom[k], &bound[k]);
  return TSL_OK;
}
