/*
 * tsl_analyzer_relax: the range an integer expression covers while some of
 * its variables range over given domains. Affine terms are relaxed exactly
 * and symbolically (each variable at the end of its domain that its
 * coefficient's sign selects); floordiv, floormod, min and max are relaxed
 * through monotonicity (also by a symbolic divisor >= 0, as TVM's
 * interval sets); anything else falls back to constant bounds. Also
 * TVM's proofs by symbolic bounds (tsl_analyzer_can_prove_bound).
 */
#include "analysis_internal.h"


typedef struct relax_ctx {
  uint32_t n;
  const tsl_var *const *vars;
  const tsl_range *doms;
} relax_ctx;

typedef struct saved_binding {
  int present;
  tsla_binding b;
} saved_binding;

#define S (an->scratch)
#define O (&an->order)

static int relaxed_index(const relax_ctx *rc, const tsl_var *v) {
  for (uint32_t k = 0; k < rc->n; k++)
    if (rc->vars[k] == v)
      return (int)k;
  return -1;
}

static int uses_relaxed(const relax_ctx *rc, const tsl_expr *e) {
  for (uint32_t k = 0; k < rc->n; k++)
    if (tsl_expr_uses_var(e, rc->vars[k]))
      return 1;
  return 0;
}

static int term_uses_relaxed(const relax_ctx *rc, const tsla_term *t) {
  for (uint32_t i = 0; i < t->n_atoms; i++)
    if (uses_relaxed(rc, t->atoms[i]))
      return 1;
  return 0;
}

static const tsla_poly *term_poly(tsl_analyzer *an, tsl_dtype dt,
                                  const tsla_term *t) {
  return tsla_poly_make(S, O, dt, 0, 1, t);
}

/* lo += k * a_lo_or_hi, hi += k * a_hi_or_lo, by the sign of k */
static void accumulate(tsl_analyzer *an, const tsla_poly **lo,
                       const tsla_poly **hi, int64_t k, const tsla_poly *alo,
                       const tsla_poly *ahi) {
  if (k >= 0) {
    *lo = tsla_poly_add(S, O, *lo, alo, k);
    *hi = tsla_poly_add(S, O, *hi, ahi, k);
  } else {
    *lo = tsla_poly_add(S, O, *lo, ahi, k);
    *hi = tsla_poly_add(S, O, *hi, alo, k);
  }
}

static int relax_poly(tsl_analyzer *an, const relax_ctx *rc,
                      const tsla_poly *p, const tsla_poly **lo,
                      const tsla_poly **hi, int depth);

static int const_fallback(tsl_analyzer *an, const tsl_expr *e, tsl_dtype dt,
                          const tsla_poly **lo, const tsla_poly **hi) {
  tsla_ival b = tsla_bound_poly(an, tsla_poly_of_simplified(an, e), 0);
  if (b.lo == TSLA_NEG_INF || b.hi == TSLA_POS_INF)
    return 0;
  *lo = tsla_poly_const(S, dt, b.lo);
  *hi = tsla_poly_const(S, dt, b.hi);
  return 1;
}

/* A divisor TVM's interval arithmetic divides by symbolically: it uses
 * no relaxed variable and is provably >= 0 (0 itself never divides). */
static int sym_divisor(tsl_analyzer *an, const relax_ctx *rc, const tsl_expr *d) {
  return !uses_relaxed(rc, d) && tsla_bound_expr(an, d, 0).lo >= 0;
}

static int relax_atom(tsl_analyzer *an, const relax_ctx *rc, const tsl_expr *a,
                      tsl_dtype dt, const tsla_poly **lo, const tsla_poly **hi,
                      int depth) {
  int64_t c;
  if (depth > 32)
    return const_fallback(an, a, dt, lo, hi);
  const tsla_poly *xlo, *xhi;
  switch ((tsl_expr_kind)a->kind) {
  case TSL_EXPR_VAR: {
    int k = relaxed_index(rc, a->u.var);
    if (k < 0)
      break;
    const tsl_range *d = &rc->doms[k];
    const tsla_poly *mn = tsla_to_poly(an, d->min, dt);
    const tsla_poly *ex = tsla_to_poly(an, d->extent, dt);
    *lo = mn;
    *hi = tsla_poly_add(S, O, tsla_poly_add(S, O, mn, ex, 1),
                        tsla_poly_const(S, dt, 1), -1);
    return 1;
  }
  case TSL_EXPR_FLOORDIV:
    if (tsl_expr_is_const_int(a->args[1], &c) ? c <= 0 : !sym_divisor(an, rc, a->args[1]))
      break;
    if (!relax_poly(an, rc, tsla_poly_of_simplified(an, a->args[0]), &xlo,
                    &xhi, depth + 1))
      break;
    *lo = tsla_poly_of_simplified(an, tsl_expr_binary(an->out, TSL_EXPR_FLOORDIV,
                                                      tsla_poly_to_expr(an->out, xlo),
                                                      a->args[1]));
    *hi = tsla_poly_of_simplified(an, tsl_expr_binary(an->out, TSL_EXPR_FLOORDIV,
                                                      tsla_poly_to_expr(an->out, xhi),
                                                      a->args[1]));
    return 1;
  case TSL_EXPR_FLOORMOD: {
    if (!tsl_expr_is_const_int(a->args[1], &c)) {
      if (!sym_divisor(an, rc, a->args[1]))
        break;
      /* TVM's interval floormod by a symbolic divisor d >= 0: [0, d - 1] */
      *lo = tsla_poly_const(S, dt, 0);
      *hi = tsla_poly_add(S, O, tsla_poly_of_simplified(an, a->args[1]),
                          tsla_poly_const(S, dt, 1), -1);
      return 1;
    }
    if (c <= 0)
      break;
    if (relax_poly(an, rc, tsla_poly_of_simplified(an, a->args[0]), &xlo, &xhi,
                   depth + 1)) {
      /* one period: floormod(x) = x - c*q with q constant over the range */
      const tsl_expr *ql = tsl_expr_binary(an->out, TSL_EXPR_FLOORDIV,
                                           tsla_poly_to_expr(an->out, xlo), a->args[1]);
      const tsl_expr *qh = tsl_expr_binary(an->out, TSL_EXPR_FLOORDIV,
                                           tsla_poly_to_expr(an->out, xhi), a->args[1]);
      const tsla_poly *pql = tsla_poly_of_simplified(an, ql);
      const tsla_poly *pqh = tsla_poly_of_simplified(an, qh);
      const tsla_poly *diff = tsla_poly_add(S, O, pql, pqh, -1);
      int64_t z;
      if (tsla_poly_is_const(diff, &z) && z == 0) {
        *lo = tsla_poly_add(S, O, xlo, pql, -c);
        *hi = tsla_poly_add(S, O, xhi, pql, -c);
        return 1;
      }
    }
    if (const_fallback(an, a, dt, lo, hi))
      return 1;
    *lo = tsla_poly_const(S, dt, 0);
    *hi = tsla_poly_const(S, dt, c - 1);
    return 1;
  }
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX: {
    const tsla_poly *alo, *ahi, *blo, *bhi;
    if (!relax_poly(an, rc, tsla_poly_of_simplified(an, a->args[0]), &alo, &ahi,
                    depth + 1) ||
        !relax_poly(an, rc, tsla_poly_of_simplified(an, a->args[1]), &blo, &bhi,
                    depth + 1))
      break;
    tsl_expr_kind k = (tsl_expr_kind)a->kind;
    *lo = tsla_poly_of_simplified(
        an, tsl_expr_binary(an->out, k, tsla_poly_to_expr(an->out, alo),
                            tsla_poly_to_expr(an->out, blo)));
    *hi = tsla_poly_of_simplified(
        an, tsl_expr_binary(an->out, k, tsla_poly_to_expr(an->out, ahi),
                            tsla_poly_to_expr(an->out, bhi)));
    return 1;
  }
  default:
    break;
  }
  return const_fallback(an, a, dt, lo, hi);
}

static int relax_poly(tsl_analyzer *an, const relax_ctx *rc,
                      const tsla_poly *p, const tsla_poly **lo,
                      const tsla_poly **hi, int depth) {
  tsl_dtype dt = p->dt;
  *lo = *hi = tsla_poly_const(S, dt, p->c);
  for (uint32_t i = 0; i < p->n; i++) {
    const tsla_term *t = &p->t[i];
    const tsla_poly *alo, *ahi;
    if (!term_uses_relaxed(rc, t)) {
      const tsla_poly *tp = term_poly(an, dt, t);
      *lo = tsla_poly_add(S, O, *lo, tp, 1);
      *hi = tsla_poly_add(S, O, *hi, tp, 1);
      continue;
    }
    if (t->n_atoms == 1) {
      if (!relax_atom(an, rc, t->atoms[0], dt, &alo, &ahi, depth))
        return 0;
    } else {
      tsla_term mono = *t;
      mono.coef = 1;
      if (!const_fallback(an, tsla_mono_to_expr(an->out, dt, &mono), dt, &alo,
                          &ahi))
        return 0;
    }
    accumulate(an, lo, hi, t->coef, alo, ahi);
  }
  return !an->failed;
}

int tsl_analyzer_relax(tsl_analyzer *an, tsl_arena *arena, const tsl_expr *e,
                       uint32_t n_vars, const tsl_var *const *vars,
                       const tsl_range *doms, tsl_range *out) {
  int ok = 0;
  int rc = tsl_analyzer_relax_n(an, arena, 1, &e, n_vars, vars, doms, out, &ok);
  return rc ? rc : ok ? TSL_OK : TSL_EUNSUPPORTED;
}

/* Whether every term of `p` is a product of variables. */
static int linear(const tsla_poly *p) {
  for (uint32_t i = 0; i < p->n; i++)
    for (uint32_t j = 0; j < p->t[i].n_atoms; j++)
      if (p->t[i].atoms[j]->kind != TSL_EXPR_VAR)
        return 0;
  return 1;
}

/* One expression of tsl_analyzer_relax_n, the variables bound. */
static int relax_one(tsl_analyzer *an, tsl_arena *arena, const relax_ctx *rc,
                     const tsl_expr *e, tsl_range *out) {
  if (!e || !tsla_is_sint(e->dtype))
    return 0;
  /* each expression gets a top-level call's allowance */
  an->failed = 0;
  an->depth = 0;
  an->budget = TSLA_BUDGET;
  tsl_dtype dt = e->dtype;
  const tsla_poly *p = tsla_to_poly(an, e, dt);
  const tsla_poly *lo = NULL, *hi = NULL;
  if (an->failed || !relax_poly(an, rc, p, &lo, &hi, 0))
    return 0;
  const tsla_poly *ext = tsla_poly_add(
      S, O, tsla_poly_add(S, O, hi, lo, -1), tsla_poly_const(S, dt, 1), 1);
  /* re-canonicalize so floordiv/min terms of lo and hi cancel (sums of
   * variables are canonical already) */
  tsl_range r = {tsla_poly_to_expr(arena, lo), tsla_poly_to_expr(arena, ext)};
  if (!linear(lo) || !linear(ext)) {
    r.min = tsla_simp(an, r.min);
    r.extent = tsla_simp(an, r.extent);
  }
  if (an->failed)
    return 0;
  *out = r;
  return 1;
}

int tsl_analyzer_relax_n(tsl_analyzer *an, tsl_arena *arena, uint32_t n,
                         const tsl_expr *const *exprs, uint32_t n_vars,
                         const tsl_var *const *vars, const tsl_range *doms,
                         tsl_range *out, int *ok) {
  if (ok)
    for (uint32_t i = 0; i < n; i++)
      ok[i] = 0;
  if (!an || !arena || (n && (!exprs || !out || !ok)) || (n_vars && (!vars || !doms)))
    return TSL_EUNSUPPORTED;
  for (uint32_t k = 0; k < n_vars; k++)
    if (!vars[k] || !doms[k].min || !doms[k].extent)
      return TSL_EUNSUPPORTED;
  tsla_enter(an, arena);
  /* the relaxed variables range over their domains, whatever was bound */
  saved_binding *saved = TSL_NEW_ARRAY(S, saved_binding, n_vars ? n_vars : 1);
  for (uint32_t k = 0; k < n_vars; k++) {
    tsla_binding *b = tsla_find_binding(an, vars[k]);
    saved[k].present = b != NULL;
    if (b)
      saved[k].b = *b;
  }
  for (uint32_t k = 0; k < n_vars; k++) {
    tsl_analyzer_unbind(an, vars[k]);
    tsl_analyzer_bind(an, vars[k], doms[k].min, doms[k].extent);
  }
  relax_ctx rc = {n_vars, vars, doms};
  for (uint32_t i = 0; i < n; i++)
    ok[i] = relax_one(an, arena, &rc, exprs[i], &out[i]);
  for (uint32_t k = 0; k < n_vars; k++) {
    tsl_analyzer_unbind(an, vars[k]);
    tsla_binding *b = saved[k].present ? tsla_find_binding(an, vars[k]) : NULL;
    if (b)
      *b = saved[k].b;
  }
  tsla_leave(an);
  return TSL_OK;
}

/* ---- proofs by symbolic interval evaluation ---------------------------- */

typedef struct ranged_vars {
  tsl_analyzer *an;
  tsl_vec vars; /* const tsl_var * */
  tsl_vec doms; /* tsl_range */
} ranged_vars;

static int collect_ranged(const tsl_expr *e, void *ud) {
  ranged_vars *rv = ud;
  tsl_range r;
  if (e->kind != TSL_EXPR_VAR || !tsla_analyzer_var_sym_range(rv->an, e->u.var, &r))
    return 0;
  for (uint32_t k = 0; k < rv->vars.len; k++)
    if (TSL_VEC_AT(&rv->vars, const tsl_var *, k) == e->u.var)
      return 0;
  TSL_VEC_PUSH(&rv->vars, const tsl_var *, e->u.var);
  TSL_VEC_PUSH(&rv->doms, tsl_range, r);
  return 0;
}

int tsl_analyzer_can_prove_bound(tsl_analyzer *an, const tsl_expr *cond) {
  if (!an || !cond)
    return 0;
  if (tsl_analyzer_can_prove(an, cond))
    return 1;
  tsl_expr_kind k = (tsl_expr_kind)cond->kind;
  if (k != TSL_EXPR_LT && k != TSL_EXPR_LE && k != TSL_EXPR_GT && k != TSL_EXPR_GE)
    return 0;
  const tsl_expr *a = cond->args[0], *b = cond->args[1];
  if (!tsla_is_sint(a->dtype) || !tsl_dtype_eq(a->dtype, b->dtype))
    return 0;
  int64_t lb = k == TSL_EXPR_LT || k == TSL_EXPR_GT ? 1 : 0;
  tsla_enter(an, NULL);
  const tsl_expr *diff = k == TSL_EXPR_LT || k == TSL_EXPR_LE
                             ? tsla_bin(an, TSL_EXPR_SUB, b, a)
                             : tsla_bin(an, TSL_EXPR_SUB, a, b);
  diff = tsla_simp(an, diff);
  /* relax the variables with ranges; a range that uses other such
   * variables is relaxed again, as TVM's evaluator does (a few rounds) */
  const tsl_expr *lo = diff;
  int relaxed = 0;
  for (int round = 0; round < 4 && !an->failed; round++) {
    ranged_vars rv = {an, {0}, {0}};
    tsl_vec_init(&rv.vars, sizeof(const tsl_var *), an->scratch);
    tsl_vec_init(&rv.doms, sizeof(tsl_range), an->scratch);
    tsl_expr_visit(lo, collect_ranged, &rv);
    tsl_range out;
    if (!rv.vars.len ||
        tsl_analyzer_relax(an, an->scratch, lo, rv.vars.len,
                           TSL_VEC_DATA(&rv.vars, const tsl_var *),
                           TSL_VEC_DATA(&rv.doms, tsl_range), &out) != TSL_OK)
      break;
    lo = out.min;
    relaxed = 1;
  }
  int ok = 0;
  if (relaxed && !an->failed) {
    tsla_ival r = tsla_bound_poly(an, tsla_to_poly(an, lo, lo->dtype), 0);
    ok = !an->failed && r.lo != TSLA_NEG_INF && r.lo >= lb;
  }
  tsla_leave(an);
  return ok;
}
