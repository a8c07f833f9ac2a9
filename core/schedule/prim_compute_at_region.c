/*
 * The region arithmetic of compute_at / reverse_compute_at, after TVM's
 * compute_at.cc: the region one execution of the moved block provides
 * (compute_at: its writes; reverse_compute_at: its reads), the region the
 * dependent blocks under the target loop require (their reads / writes
 * with bindings substituted, relaxed over the loops between them and the
 * target loop and, for compute_at, over the thread-bound loops the
 * buffer's storage scope shares), and from both the domain of every block
 * var: through the inverse of the provided indices when they are a
 * bijective affine map of the block vars, else dimension by dimension
 * (var, var * e, floordiv and floormod patterns). Sets are TVM's
 * IntervalSets: ends may be infinite; unions and intersections are
 * simplified without bindings, as TVM's temporary analyzers do, the
 * domains then with the call's analyzer.
 */
#include "compute_internal.h"

#include <string.h>

/* An interval [lo, hi]; an end NULL is infinite. `empty`: TVM's Nothing. */
typedef struct iset {
  const tsl_expr *lo, *hi;
  int empty;
} iset;

static const iset NOTHING = {NULL, NULL, 1};

typedef struct rctx {
  sch_call *c;
  tsl_analyzer *an, *fresh;
  const tsl_block *b;
  int reverse;
} rctx;

/* TVM's BlockVarDomainInfo */
typedef struct var_info {
  iset dom, bound;
} var_info;

/* ---- expressions ------------------------------------------------------ */

static const tsl_expr *ci(rctx *x, tsl_dtype t, int64_t v) {
  return tsl_expr_int(x->c->arena, t, v);
}

/* a op b with TVM's constant folding (no other simplification) */
static const tsl_expr *bin(rctx *x, tsl_expr_kind k, const tsl_expr *a,
                           const tsl_expr *b) {
  int64_t va, vb;
  int ca = tsl_expr_is_const_int(a, &va), cb = tsl_expr_is_const_int(b, &vb);
  if (a->dtype.bits != b->dtype.bits && tsl_dtype_is_int(a->dtype) &&
      tsl_dtype_is_int(b->dtype)) {
    if (a->dtype.bits < b->dtype.bits)
      a = ca ? ci(x, b->dtype, va) : tsl_expr_cast(x->c->arena, b->dtype, a);
    else
      b = cb ? ci(x, a->dtype, vb) : tsl_expr_cast(x->c->arena, a->dtype, b);
  }
  if (ca && cb) {
    switch (k) {
    case TSL_EXPR_ADD: return ci(x, a->dtype, va + vb);
    case TSL_EXPR_SUB: return ci(x, a->dtype, va - vb);
    case TSL_EXPR_MUL: return ci(x, a->dtype, va * vb);
    case TSL_EXPR_MIN: return ci(x, a->dtype, va < vb ? va : vb);
    case TSL_EXPR_MAX: return ci(x, a->dtype, va > vb ? va : vb);
    default: break;
    }
  }
  if ((k == TSL_EXPR_ADD || k == TSL_EXPR_SUB) && cb && vb == 0)
    return a;
  if (k == TSL_EXPR_ADD && ca && va == 0)
    return b;
  if (k == TSL_EXPR_MUL && cb && vb == 1)
    return a;
  return tsl_expr_binary(x->c->arena, k, a, b);
}

static const tsl_expr *simp(tsl_analyzer *an, rctx *x, const tsl_expr *e) {
  return e ? tsl_simplify(an, x->c->arena, e) : NULL;
}

static int equal(rctx *x, const tsl_expr *a, const tsl_expr *b) {
  if (!a || !b)
    return a == b;
  return tsl_analyzer_equal(x->an, a, b);
}

static int prove(rctx *x, tsl_expr_kind k, const tsl_expr *a, const tsl_expr *b) {
  return tsl_analyzer_can_prove(x->an, bin(x, k, a, b));
}

static int is_const(const tsl_expr *e) {
  int64_t v;
  return e && tsl_expr_is_const_int(e, &v);
}

/* ---- sets ------------------------------------------------------------- */

static iset interval(const tsl_expr *lo, const tsl_expr *hi) {
  iset s = {lo, hi, 0};
  return s;
}

static iset from_range(rctx *x, const tsl_expr *min, const tsl_expr *extent) {
  int64_t v;
  if (tsl_expr_is_const_int(extent, &v) && v == 1)
    return interval(min, min);
  return interval(min, bin(x, TSL_EXPR_SUB, bin(x, TSL_EXPR_ADD, extent, min),
                           ci(x, min->dtype, 1)));
}

/* an end of min(a, b) (want_min) or max(a, b), NULL infinite on that side */
static const tsl_expr *end_join(rctx *x, const tsl_expr *a, const tsl_expr *b,
                                tsl_expr_kind k) {
  return simp(x->fresh, x, bin(x, k, a, b));
}

/* TVM's arith::Union of two sets (simplified without bindings) */
static iset set_union(rctx *x, iset a, iset b) {
  if (a.empty)
    return b;
  if (b.empty)
    return a;
  return interval(a.lo && b.lo ? end_join(x, a.lo, b.lo, TSL_EXPR_MIN) : NULL,
                  a.hi && b.hi ? end_join(x, a.hi, b.hi, TSL_EXPR_MAX) : NULL);
}

/* TVM's arith::Intersect of two sets (simplified without bindings) */
static iset set_intersect(rctx *x, iset a, iset b) {
  if (a.empty || b.empty)
    return NOTHING;
  iset r = interval(!a.lo ? b.lo : !b.lo ? a.lo : end_join(x, a.lo, b.lo, TSL_EXPR_MAX),
                    !a.hi ? b.hi : !b.hi ? a.hi : end_join(x, a.hi, b.hi, TSL_EXPR_MIN));
  if (r.lo && r.hi &&
      tsl_analyzer_can_prove(x->fresh, bin(x, TSL_EXPR_LT, r.hi, r.lo)))
    return NOTHING;
  return r;
}

/* both ends simplified with the call's analyzer */
static iset simplified(rctx *x, iset s) {
  if (!s.empty) {
    s.lo = simp(x->an, x, s.lo);
    s.hi = simp(x->an, x, s.hi);
  }
  return s;
}

static int set_equal(rctx *x, iset a, iset b) {
  if (a.empty || b.empty)
    return a.empty == b.empty;
  return equal(x, a.lo, b.lo) && equal(x, a.hi, b.hi);
}

/* ---- provided and required regions ------------------------------------ */

typedef struct buf_regions {
  const tsl_buffer *buf;
  iset *prov; /* ndim; the union of what the block provides */
  iset *req;  /* ndim; the union of what the dependents require */
  int has_req;
} buf_regions;

/* What one dependent block accesses of region `r`, relaxed over the loops
 * between it and the target loop at level L (TVM's RelaxBufferRegions);
 * with `thread_relax`, also over the thread-bound loops at or above L that
 * the buffer's storage scope is shared across. */
static void relax_region(rctx *x, const tsl_buffer_region *r, const sch_path *q,
                         uint32_t L, int thread_relax, iset *out) {
  sch_call *c = x->c;
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
  /* the first and the last index of every dimension, relaxed together */
  uint32_t nd = r->ndim;
  const tsl_expr **ends = TSL_NEW_ARRAY(c->arena, const tsl_expr *, 2 * nd + 1);
  tsl_range *got = TSL_NEW_ARRAY(c->arena, tsl_range, 2 * nd + 1);
  int *ok = TSL_NEW_ARRAY(c->arena, int, 2 * nd + 1);
  for (uint32_t d = 0; d < nd; d++) {
    const tsl_expr *mn = sch_subst_bindings(c, realize, r->ranges[d].min);
    const tsl_expr *ex = sch_subst_bindings(c, realize, r->ranges[d].extent);
    ends[2 * d] = mn;
    ends[2 * d + 1] = bin(x, TSL_EXPR_SUB, bin(x, TSL_EXPR_ADD, mn, ex), ci(x, ex->dtype, 1));
  }
  tsl_analyzer_relax_n(x->fresh, c->arena, 2 * nd, ends, n, vars, doms, got, ok);
  for (uint32_t d = 0; d < nd; d++) {
    out[d] = interval(ok[2 * d] ? got[2 * d].min : NULL, NULL);
    const tsl_range *r2 = &got[2 * d + 1];
    if (ok[2 * d + 1])
      out[d].hi = simp(x->fresh, x,
                       bin(x, TSL_EXPR_SUB, bin(x, TSL_EXPR_ADD, r2->min, r2->extent),
                           ci(x, r2->extent->dtype, 1)));
  }
}

/* ---- solving for the block vars --------------------------------------- */

static int var_index(const tsl_block *b, const tsl_var *v) {
  for (uint32_t k = 0; k < b->n_iter_vars; k++)
    if (b->iter_vars[k].var == v)
      return (int)k;
  return -1;
}

static const char *str(rctx *x, const tsl_expr *e) {
  return e ? cmp_expr_str(x->c, e) : "inf";
}

/* TVM's UpdateBlockVarDomainAffine: the provided indices (single points) a
 * bijective affine map of the block vars, inverted at the ends of the
 * required region and of the buffer. 0 when not applicable. */
static int update_affine(rctx *x, const tsl_buffer *buf, const iset *prov,
                         const iset *req, var_info *info) {
  sch_call *c = x->c;
  const tsl_block *b = x->b;
  uint32_t nd = buf->ndim;
  if (!nd || !b->n_iter_vars)
    return 0;
  const tsl_expr **idx = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
  const tsl_expr **ends[4];
  for (int i = 0; i < 4; i++)
    ends[i] = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
  for (uint32_t d = 0; d < nd; d++) {
    if (prov[d].empty || !prov[d].lo || !prov[d].hi || !equal(x, prov[d].lo, prov[d].hi))
      return 0;
    idx[d] = prov[d].lo;
  }
  const tsl_var **iters = TSL_NEW_ARRAY(c->arena, const tsl_var *, b->n_iter_vars);
  tsl_range *doms = TSL_NEW_ARRAY(c->arena, tsl_range, b->n_iter_vars);
  for (uint32_t k = 0; k < b->n_iter_vars; k++) {
    iters[k] = b->iter_vars[k].var;
    doms[k] = b->iter_vars[k].dom;
  }
  tsl_iter_map map;
  if (tsl_iter_map_detect(x->an, c->arena, nd, idx, b->n_iter_vars, iters, doms,
                          NULL, TSL_ITER_MAP_BIJECTIVE, 0, &map, NULL))
    return 0;
  for (uint32_t d = 0; d < nd; d++) {
    if (req[d].empty || !req[d].lo || !req[d].hi)
      return 0;
    tsl_dtype t = buf->shape[d]->dtype;
    ends[0][d] = req[d].lo;
    ends[1][d] = req[d].hi;
    ends[2][d] = ci(x, t, 0);
    ends[3][d] = bin(x, TSL_EXPR_MAX, bin(x, TSL_EXPR_SUB, buf->shape[d], ci(x, t, 1)),
                     ci(x, t, 0));
  }
  uint32_t nv[4];
  const tsl_var **vars[4];
  const tsl_expr **vals[4];
  for (int i = 0; i < 4; i++)
    if (tsl_iter_map_inverse(c->arena, nd, map.indices,
                             (const tsl_expr *const *)ends[i], &nv[i], &vars[i],
                             &vals[i], NULL))
      return 0;
  /* TVM's intset InverseAffineIterMap: [min(a, b), max(a, b)] of the
   * inverses at the two ends */
  uint32_t n = nv[0] ? nv[0] : 1;
  iset *got[2] = {TSL_NEW_ARRAY(c->arena, iset, n), TSL_NEW_ARRAY(c->arena, iset, n)};
  int *kk = TSL_NEW_ARRAY(c->arena, int, n);
  for (uint32_t j = 0; j < nv[0]; j++) {
    const tsl_expr *v[4];
    v[0] = vals[0][j];
    for (int i = 1; i < 4; i++) {
      v[i] = NULL;
      for (uint32_t m = 0; m < nv[i]; m++)
        if (vars[i][m] == vars[0][j])
          v[i] = vals[i][m];
      if (!v[i])
        return 0;
    }
    kk[j] = var_index(b, vars[0][j]);
    if (kk[j] < 0)
      return 0;
    for (int s = 0; s < 2; s++)
      got[s][j] = interval(simp(x->an, x, bin(x, TSL_EXPR_MIN, v[2 * s], v[2 * s + 1])),
                           simp(x->an, x, bin(x, TSL_EXPR_MAX, v[2 * s], v[2 * s + 1])));
  }
  for (uint32_t j = 0; j < nv[0]; j++) {
    info[kk[j]].dom = set_union(x, info[kk[j]].dom, got[0][j]);
    info[kk[j]].bound = set_union(x, info[kk[j]].bound, got[1][j]);
  }
  return 1;
}

static int pattern_fail(rctx *x, const tsl_buffer *buf, uint32_t d, iset p) {
  const tsl_expr *lo = simp(x->an, x, p.lo), *hi = simp(x->an, x, p.hi);
  int point = !p.empty && lo && hi && equal(x, lo, hi);
  return sch_fail(x->c, TSL_EUNSUPPORTED,
                  "cannot derive the loops of block '%s': one execution %s "
                  "'%s' %s%s%s%s%s in dimension %u; the indices must be a "
                  "bijective affine map of its iter vars, or per dimension "
                  "one element at an iter var, var // e, var %% e or a "
                  "constant, or var * e",
                  x->b->name, x->reverse ? "reads" : "writes", buf->name,
                  point ? "at index " : "over [", str(x, lo), point ? "" : ", ",
                  point ? "" : str(x, hi), point ? "" : "]", d);
}

/* TVM's SolveBlockVarDomain: the var of one provided dimension and its
 * domain / bound so that it covers the required interval. */
static int solve(rctx *x, const tsl_buffer *buf, uint32_t d, iset prov, iset req,
                 const tsl_expr *dim_max, const tsl_var **var, var_info *out,
                 int depth) {
  const tsl_expr *pmin = simp(x->an, x, prov.lo), *pmax = simp(x->an, x, prov.hi);
  const tsl_expr *rmin = simp(x->an, x, req.lo), *rmax = simp(x->an, x, req.hi);
  out->dom = out->bound = NOTHING;
  if (pmin && pmin->kind == TSL_EXPR_MUL &&
      (pmin->args[0]->kind == TSL_EXPR_VAR || pmin->args[1]->kind == TSL_EXPR_VAR)) {
    int first = pmin->args[0]->kind == TSL_EXPR_VAR;
    const tsl_expr *e = pmin->args[first ? 1 : 0];
    *var = pmin->args[first ? 0 : 1]->u.var;
    out->dom = interval(rmin ? bin(x, TSL_EXPR_FLOORDIV, rmin, e) : NULL,
                        rmax ? bin(x, TSL_EXPR_FLOORDIV, rmax, e) : NULL);
    out->bound = interval(ci(x, e->dtype, 0), bin(x, TSL_EXPR_FLOORDIV, dim_max, e));
    return TSL_OK;
  }
  if (pmin && pmax && equal(x, pmin, pmax)) {
    int64_t cv, mv;
    if (pmin->kind == TSL_EXPR_FLOORMOD && pmin->args[0]->kind == TSL_EXPR_FLOORDIV &&
        tsl_expr_is_const_int(pmin->args[1], &mv) && mv > 0 &&
        tsl_expr_is_const_int(pmin->args[0]->args[1], &cv) && cv > 0 &&
        cv <= INT32_MAX && mv <= INT32_MAX) {
      /* our canonical x // c % m is TVM's x % (c * m) // c */
      const tsl_expr *inner = pmin->args[0];
      pmin = bin(x, TSL_EXPR_FLOORDIV,
                 bin(x, TSL_EXPR_FLOORMOD, inner->args[0], ci(x, pmin->dtype, cv * mv)),
                 inner->args[1]);
    }
    if (pmin->kind == TSL_EXPR_VAR) {
      *var = pmin->u.var;
      out->dom = interval(rmin, rmax);
      out->bound = interval(ci(x, pmin->dtype, 0), dim_max);
      return TSL_OK;
    }
    const tsl_expr *f1 = pmin->n_args == 2 ? pmin->args[0] : NULL;
    const tsl_expr *f2 = pmin->n_args == 2 ? pmin->args[1] : NULL;
    if (pmin->kind == TSL_EXPR_FLOORDIV &&
        prove(x, TSL_EXPR_GE, f2, ci(x, f2->dtype, 1))) {
      const tsl_expr *one = ci(x, f2->dtype, 1);
      iset nreq = interval(
          rmin ? bin(x, TSL_EXPR_MUL, rmin, f2) : NULL,
          rmax ? simp(x->an, x, bin(x, TSL_EXPR_SUB,
                                    bin(x, TSL_EXPR_ADD, bin(x, TSL_EXPR_MUL, rmax, f2), f2),
                                    one))
               : NULL);
      if (f1->kind == TSL_EXPR_VAR) {
        *var = f1->u.var;
        out->dom = nreq;
        out->bound = interval(
            ci(x, f1->dtype, 0),
            simp(x->an, x, bin(x, TSL_EXPR_SUB,
                               bin(x, TSL_EXPR_ADD, bin(x, TSL_EXPR_MUL, dim_max, f2), f2),
                               one)));
        return TSL_OK;
      }
      if (depth < 16)
        return solve(x, buf, d, interval(f1, f1), nreq, dim_max, var, out, depth + 1);
    } else if (pmin->kind == TSL_EXPR_FLOORMOD) {
      if (f1->kind == TSL_EXPR_VAR) { /* x % e constrains nothing of x */
        *var = f1->u.var;
        return TSL_OK;
      }
      if (depth < 16 && rmin && prove(x, TSL_EXPR_GE, f1, ci(x, f1->dtype, 1)) &&
          prove(x, TSL_EXPR_GE, f2, ci(x, f2->dtype, 1)) &&
          prove(x, TSL_EXPR_GE, rmin, ci(x, rmin->dtype, 0)))
        return solve(x, buf, d, interval(f1, f1), interval(rmin, NULL), dim_max, var,
                     out, depth + 1);
    }
  }
  return pattern_fail(x, buf, d, prov);
}

/* TVM's UpdateBlockVarDomainDimwise */
static int update_dimwise(rctx *x, const tsl_buffer *buf, const iset *prov,
                          const iset *req, var_info *info) {
  for (uint32_t d = 0; d < buf->ndim; d++) {
    iset p = prov[d], r = req[d];
    tsl_dtype t = buf->shape[d]->dtype;
    const tsl_expr *dim_max =
        bin(x, TSL_EXPR_MAX, bin(x, TSL_EXPR_SUB, buf->shape[d], ci(x, t, 1)), ci(x, t, 0));
    int64_t cv;
    if (!p.empty && p.lo && p.hi && equal(x, p.lo, p.hi) &&
        tsl_expr_is_const_int(simp(x->an, x, p.lo), &cv)) {
      if (!r.empty && r.lo && r.hi && equal(x, r.lo, p.lo) && equal(x, r.hi, p.lo))
        continue;
      return sch_fail(x->c, TSL_EUNSUPPORTED,
                      "block '%s' %s '%s' only at index %lld in dimension %u, "
                      "but [%s, %s] is needed there",
                      x->b->name, x->reverse ? "reads" : "writes", buf->name,
                      (long long)cv, d, str(x, simp(x->an, x, r.lo)),
                      str(x, simp(x->an, x, r.hi)));
    }
    if (p.empty || r.empty)
      return pattern_fail(x, buf, d, p);
    const tsl_var *v = NULL;
    var_info vi;
    int rc = solve(x, buf, d, p, r, dim_max, &v, &vi, 0);
    if (rc)
      return rc;
    int k = var_index(x->b, v);
    if (k >= 0) {
      info[k].dom = set_union(x, info[k].dom, vi.dom);
      info[k].bound = set_union(x, info[k].bound, vi.bound);
    } else if (!set_equal(x, p, r)) {
      return sch_fail(x->c, TSL_EUNSUPPORTED,
                      "block '%s' %s '%s' at [%s, %s] in dimension %u, which is "
                      "not an iter var of the block, but [%s, %s] is needed there",
                      x->b->name, x->reverse ? "reads" : "writes", buf->name,
                      str(x, p.lo), str(x, p.hi), d, str(x, r.lo), str(x, r.hi));
    }
  }
  return TSL_OK;
}

/* Whether the domain lies inside the bound by the constant bounds of its
 * ends (a tile inside the buffer): the intersection is then the domain.
 * Checked against the intersection on 13639 domains of the suite and TVM's
 * cases. */
static int inside_bound(rctx *x, const var_info *vi) {
  if (vi->dom.empty || vi->bound.empty || !vi->dom.lo || !vi->dom.hi || !vi->bound.lo ||
      !vi->bound.hi)
    return 0;
  int64_t dlo, dhi, blo, bhi, t;
  return tsl_analyzer_const_bound(x->an, vi->dom.lo, &dlo, &t) &&
         tsl_analyzer_const_bound(x->an, vi->dom.hi, &t, &dhi) &&
         tsl_analyzer_const_bound(x->an, vi->bound.lo, &t, &blo) &&
         tsl_analyzer_const_bound(x->an, vi->bound.hi, &bhi, &t) && dlo >= blo && dhi <= bhi;
}

/* TVM's BlockVarDomainInfo::Simplify: drop the bound when the domain lies
 * inside it, take the bound as the domain when it lies inside the domain
 * or their intersection is constant. */
static void simplify_info(rctx *x, var_info *vi) {
  if (vi->dom.empty) {
    if (!vi->bound.empty && vi->bound.lo && vi->bound.hi) {
      vi->dom = simplified(x, vi->bound);
      vi->bound = NOTHING;
    }
    return;
  }
  vi->dom = simplified(x, vi->dom);
  vi->bound = simplified(x, vi->bound);
  if (inside_bound(x, vi)) { /* what the intersection below finds, cheaper */
    vi->bound = NOTHING;
    return;
  }
  iset in = simplified(x, set_intersect(x, vi->dom, vi->bound));
  if (set_equal(x, vi->dom, in)) {
    vi->bound = NOTHING;
  } else if (set_equal(x, vi->bound, in)) {
    vi->dom = vi->bound;
    vi->bound = NOTHING;
  } else if (!in.empty && is_const(in.lo) && is_const(in.hi)) {
    vi->dom = in;
    vi->bound = NOTHING;
  }
}

int cmp_block_var_domains(sch_call *c, tsl_analyzer *an, tsl_analyzer *fresh,
                          const sch_path *bp, const sch_path *lp,
                          const cmp_scope *s, const uint32_t *deps,
                          uint32_t n_deps, int reverse, cmp_var_dom *out) {
  const tsl_block *b = sch_path_block(bp);
  rctx x = {c, an, fresh, b, reverse};
  uint32_t L = lp->depth - 1;
  const tsl_buffer_region *prov = reverse ? b->reads : b->writes;
  uint32_t n_prov = reverse ? b->n_reads : b->n_writes;
  tsl_map bufs; /* buffer -> buf_regions, in order of first access */
  tsl_map_init(&bufs, c->arena);
  for (uint32_t i = 0; i < n_prov; i++) {
    const tsl_buffer_region *r = &prov[i];
    buf_regions *br = tsl_map_get(&bufs, r->buffer);
    if (!br) {
      uint32_t nd = r->ndim ? r->ndim : 1;
      br = TSL_NEW(c->arena, buf_regions);
      br->buf = r->buffer;
      br->prov = TSL_NEW_ARRAY(c->arena, iset, nd);
      br->req = TSL_NEW_ARRAY(c->arena, iset, nd);
      for (uint32_t d = 0; d < nd; d++)
        br->prov[d] = br->req[d] = NOTHING;
      tsl_map_put(&bufs, r->buffer, br);
    }
    for (uint32_t d = 0; d < r->ndim; d++)
      br->prov[d] = set_union(&x, br->prov[d],
                              from_range(&x, r->ranges[d].min, r->ranges[d].extent));
  }
  for (uint32_t i = 0; i < n_deps; i++) {
    const sch_path *q = &s->kids[deps[i]];
    const tsl_block *db = sch_path_block(q);
    const tsl_buffer_region *rs = reverse ? db->writes : db->reads;
    uint32_t nr = reverse ? db->n_writes : db->n_reads;
    for (uint32_t k = 0; k < nr; k++) {
      buf_regions *br = tsl_map_get(&bufs, rs[k].buffer);
      if (!br || rs[k].ndim != br->buf->ndim)
        continue;
      iset *got = TSL_NEW_ARRAY(c->arena, iset, rs[k].ndim ? rs[k].ndim : 1);
      relax_region(&x, &rs[k], q, L, !reverse, got);
      for (uint32_t d = 0; d < rs[k].ndim; d++)
        br->req[d] = set_union(&x, br->req[d], got[d]);
      br->has_req = 1;
    }
  }
  var_info *info = TSL_NEW_ARRAY(c->arena, var_info, b->n_iter_vars ? b->n_iter_vars : 1);
  for (uint32_t k = 0; k < b->n_iter_vars; k++)
    info[k].dom = info[k].bound = NOTHING;
  void *v;
  for (uint32_t pos = 0; tsl_map_next(&bufs, &pos, NULL, &v);) {
    const buf_regions *br = v;
    if (!br->has_req || br->buf->ndim == 0)
      continue;
    if (update_affine(&x, br->buf, br->prov, br->req, info))
      continue;
    int rc = update_dimwise(&x, br->buf, br->prov, br->req, info);
    if (rc)
      return rc;
  }
  for (uint32_t k = 0; k < b->n_iter_vars; k++) {
    const tsl_iter_var *iv = &b->iter_vars[k];
    var_info *vi = &info[k];
    iset full = from_range(&x, iv->dom.min, iv->dom.extent);
    vi->bound = vi->bound.empty ? full : set_intersect(&x, vi->bound, full);
    simplify_info(&x, vi);
    if (vi->dom.empty)
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "cannot derive a domain for iter var '%s' of block '%s'",
                      iv->var->name, b->name);
    /* TVM's IntSet::CoverRange, simplified without bindings */
    if (vi->dom.lo && vi->dom.hi) {
      out[k].min = simp(fresh, &x, vi->dom.lo);
      out[k].extent = simp(fresh, &x,
                           bin(&x, TSL_EXPR_SUB,
                               bin(&x, TSL_EXPR_ADD, vi->dom.hi,
                                   ci(&x, vi->dom.hi->dtype, 1)),
                               vi->dom.lo));
    } else {
      out[k].min = iv->dom.min;
      out[k].extent = iv->dom.extent;
    }
    out[k].lo = vi->bound.empty ? NULL : vi->bound.lo;
    out[k].hi = vi->bound.empty ? NULL : vi->bound.hi;
  }
  return TSL_OK;
}
