/*
 * The integer arithmetic simplifier: the canonical polynomial of an integer
 * expression (constants folded, like terms merged, floordiv/floormod by
 * constants resolved with bounds in divmod.c, min/max and comparisons
 * decided by bounds), and the public tsl_simplify family.
 * Non-integer expressions keep their shape; only their integer parts are
 * rewritten. Recursion depth and work are capped: past the cap a public
 * call returns its input unchanged.
 */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static int step(tsl_analyzer *an) {
  if (an->failed)
    return 0;
  if (--an->budget < 0 || an->depth >= TSLA_MAX_DEPTH) {
    an->failed = 1;
    return 0;
  }
  return 1;
}

#define S (an->scratch)
#define O (&an->order)

static const tsla_poly *psub(tsl_analyzer *an, const tsla_poly *a,
                             const tsla_poly *b) {
  return tsla_poly_add(S, O, a, b, -1);
}

static int poly_same(const tsla_poly *a, const tsla_poly *b) {
  if (a->c != b->c || a->n != b->n)
    return 0;
  for (uint32_t i = 0; i < a->n; i++) {
    if (a->t[i].coef != b->t[i].coef || a->t[i].n_atoms != b->t[i].n_atoms)
      return 0;
    for (uint32_t k = 0; k < a->t[i].n_atoms; k++)
      if (!tsla_expr_same(a->t[i].atoms[k], b->t[i].atoms[k]))
        return 0;
  }
  return 1;
}

/* Rebuild `e` with simplified operands (shape unchanged). */
static const tsl_expr *simp_args(tsl_analyzer *an, const tsl_expr *e) {
  if (e->n_args == 0)
    return e;
  const tsl_expr *stack[8];
  const tsl_expr **args =
      e->n_args <= 8 ? stack : TSL_NEW_ARRAY(S, const tsl_expr *, e->n_args);
  int changed = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = tsla_simp(an, e->args[i]);
    changed |= args[i] != e->args[i];
  }
  return changed ? tsl_expr_with_args(an->out, e, e->n_args, args) : e;
}

static int64_t fold_div(tsl_expr_kind k, tsl_dtype t, int64_t a, int64_t b) {
  /* b != 0; wrap handles INT64_MIN / -1 */
  switch (k) {
  case TSL_EXPR_FLOORDIV:
    return tsla_wrap(t, tsla_floordiv(a, b));
  case TSL_EXPR_FLOORMOD:
    return tsla_wrap(t, tsla_floormod(a, b));
  case TSL_EXPR_DIV:
    return b == -1 ? tsla_wrap(t, (int64_t)(0 - (uint64_t)a)) : tsla_wrap(t, a / b);
  default: /* MOD */
    return b == -1 ? 0 : tsla_wrap(t, a % b);
  }
}

/* ---- canonical polynomial ---- */

static const tsla_poly *div_poly(tsl_analyzer *an, const tsl_expr *e,
                                 tsl_dtype dt) {
  tsl_expr_kind k = (tsl_expr_kind)e->kind;
  const tsla_poly *pa = tsla_to_poly(an, e->args[0], dt);
  const tsla_poly *pb = tsla_to_poly(an, e->args[1], dt);
  int64_t c, v;
  if (tsla_poly_is_const(pb, &c) && c != 0) {
    if (tsla_poly_is_const(pa, &v))
      return tsla_poly_const(S, dt, fold_div(k, dt, v, c));
    int trunc = k == TSL_EXPR_DIV || k == TSL_EXPR_MOD;
    int is_div = k == TSL_EXPR_DIV || k == TSL_EXPR_FLOORDIV;
    if (c == 1)
      return is_div ? pa : tsla_poly_const(S, dt, 0);
    if (c == -1 && (trunc || is_div))
      return is_div ? tsla_poly_scale(S, O, pa, -1) : tsla_poly_const(S, dt, 0);
    if (c > 0 && trunc && tsla_bound_poly(an, pa, 0).lo >= 0)
      trunc = 0;
    if (c > 0 && !trunc)
      return is_div ? tsla_floordiv_c(an, pa, c) : tsla_floormod_c(an, pa, c);
  } else if (!tsla_poly_is_const(pb, &c) &&
             (k == TSL_EXPR_FLOORDIV || k == TSL_EXPR_FLOORMOD)) {
    const tsla_poly *r = tsla_divmod_sym(an, k, pa, pb);
    if (r)
      return r;
  }
  const tsl_expr *atom = tsla_bin(an, k, tsla_from(an, pa), tsla_from(an, pb));
  return tsla_poly_atom(S, dt, atom);
}

/* Is q the single atom `dual(x, y)` or `dual(y, x)` with x equal to p? */
static int absorbs(tsl_analyzer *an, const tsla_poly *p, const tsla_poly *q,
                   tsl_expr_kind dual) {
  if (q->n != 1 || q->c != 0 || q->t[0].coef != 1 || q->t[0].n_atoms != 1 ||
      q->t[0].atoms[0]->kind != dual)
    return 0;
  const tsl_expr *m = q->t[0].atoms[0];
  for (int i = 0; i < 2; i++)
    if (poly_same(tsla_poly_of_simplified(an, m->args[i]), p))
      return 1;
  return 0;
}

static const tsla_poly *minmax_poly(tsl_analyzer *an, const tsl_expr *e,
                                    tsl_dtype dt) {
  int is_min = e->kind == TSL_EXPR_MIN;
  const tsla_poly *pa = tsla_to_poly(an, e->args[0], dt);
  const tsla_poly *pb = tsla_to_poly(an, e->args[1], dt);
  tsla_ival d = tsla_bound_poly(an, psub(an, pa, pb), 0);
  if (d.hi <= 0)
    return is_min ? pa : pb;
  if (d.lo >= 0)
    return is_min ? pb : pa;
  /* TVM's absorption: min(x, max(x, y)) = x, max(x, min(x, y)) = x */
  tsl_expr_kind dual = is_min ? TSL_EXPR_MAX : TSL_EXPR_MIN;
  if (absorbs(an, pa, pb, dual))
    return pa;
  if (absorbs(an, pb, pa, dual))
    return pb;
  const tsl_expr *a = tsla_from(an, pa), *b = tsla_from(an, pb);
  if (tsla_cmp_expr(O, a, b) > 0) {
    const tsl_expr *t = a;
    a = b;
    b = t;
  }
  return tsla_poly_atom(S, dt, tsla_bin(an, (tsl_expr_kind)e->kind, a, b));
}

static const tsl_expr *fold_cast(tsl_analyzer *an, tsl_dtype t,
                                 const tsl_expr *x) {
  int64_t v;
  if (t.lanes == 1 && tsla_is_const(x, &v) &&
      (tsl_dtype_is_int(x->dtype) || tsl_dtype_is_bool(x->dtype))) {
    if (tsl_dtype_is_bool(t))
      return tsl_expr_bool(an->out, v != 0);
    if (tsl_dtype_is_int(t))
      return tsla_cint(an, t, v);
  }
  if (tsl_dtype_eq(x->dtype, t))
    return x;
  return NULL;
}

/* (x + 1) // 2 - x // 2 = x % 2 (in a * ... form), as TVM's rewrite rules
 * leave it: the two quotients of a strided read's region after compute_at
 * (conv2d_transpose's rh_0 % 2 * 96 + 96 fetched rows). Other pairs of
 * quotients stay. */
static const tsla_poly *fold_parity(tsl_analyzer *an, const tsla_poly *p) {
  if (!p || p->n < 2 || p->n > TSLA_MAX_TERMS)
    return p;
  for (uint32_t i = 0; i < p->n; i++) {
    const tsla_term *ti = &p->t[i];
    int64_t c;
    if (ti->n_atoms != 1 || ti->atoms[0]->kind != TSL_EXPR_FLOORDIV ||
        !tsla_is_const(ti->atoms[0]->args[1], &c) || c != 2)
      continue;
    for (uint32_t j = 0; j < p->n; j++) {
      const tsla_term *tj = &p->t[j];
      int64_t d, k;
      if (j == i || tj->coef != -ti->coef || tj->n_atoms != 1 ||
          tj->atoms[0]->kind != TSL_EXPR_FLOORDIV || !tsla_is_const(tj->atoms[0]->args[1], &d) ||
          d != 2)
        continue;
      const tsl_expr *x = ti->atoms[0]->args[0], *y = tj->atoms[0]->args[0];
      const tsla_poly *diff =
          tsla_poly_add(S, O, tsla_poly_of_simplified(an, x), tsla_poly_of_simplified(an, y), -1);
      if (!diff || diff->n || diff->c != 1 || !tsl_dtype_eq(x->dtype, y->dtype))
        continue;
      (void)k;
      tsla_term *terms = TSL_NEW_ARRAY(S, tsla_term, p->n);
      uint32_t n = 0;
      for (uint32_t m = 0; m < p->n; m++)
        if (m != i && m != j)
          terms[n++] = p->t[m];
      const tsl_expr **atom = TSL_NEW_ARRAY(S, const tsl_expr *, 1);
      atom[0] = tsla_bin(an, TSL_EXPR_FLOORMOD, y, tsla_cint(an, y->dtype, 2));
      terms[n++] = (tsla_term){ti->coef, 1, atom};
      return tsla_poly_make(S, O, p->dt, p->c, n, terms);
    }
  }
  return p;
}

static const tsla_poly *to_poly_inner(tsl_analyzer *an, const tsl_expr *e,
                                      tsl_dtype dt) {
  int64_t v;
  if (!tsl_dtype_eq(e->dtype, dt)) {
    if (tsla_is_const(e, &v))
      return tsla_poly_const(S, dt, v);
    const tsl_expr *x = tsla_simp(an, e);
    const tsl_expr *f = fold_cast(an, dt, x);
    if (f)
      return tsla_to_poly(an, f, dt);
    return tsla_poly_atom(S, dt, tsl_expr_cast(an->out, dt, x));
  }
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    return tsla_poly_const(S, dt, e->u.int_value);
  case TSL_EXPR_VAR: {
    const tsl_expr *val = tsla_analyzer_var_value(an, e->u.var);
    return val ? tsla_to_poly(an, val, dt) : tsla_poly_atom(S, dt, e);
  }
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB: {
    const tsla_poly *a = tsla_to_poly(an, e->args[0], dt);
    const tsla_poly *b = tsla_to_poly(an, e->args[1], dt);
    return fold_parity(an, tsla_poly_add(S, O, a, b, e->kind == TSL_EXPR_ADD ? 1 : -1));
  }
  case TSL_EXPR_MUL: {
    const tsla_poly *a = tsla_to_poly(an, e->args[0], dt);
    const tsla_poly *b = tsla_to_poly(an, e->args[1], dt);
    const tsla_poly *p = tsla_poly_mul(S, O, a, b);
    if (p)
      return p;
    const tsl_expr *x = tsla_from(an, a), *y = tsla_from(an, b);
    if (tsla_cmp_expr(O, x, y) > 0) {
      const tsl_expr *t = x;
      x = y;
      y = t;
    }
    return tsla_poly_atom(S, dt, tsla_bin(an, TSL_EXPR_MUL, x, y));
  }
  case TSL_EXPR_NEG:
    return tsla_poly_scale(S, O, tsla_to_poly(an, e->args[0], dt), -1);
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD:
  case TSL_EXPR_DIV:
  case TSL_EXPR_MOD:
    return div_poly(an, e, dt);
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX:
    return minmax_poly(an, e, dt);
  case TSL_EXPR_SELECT:
  case TSL_EXPR_IF_THEN_ELSE: {
    const tsl_expr *c = tsla_simp(an, e->args[0]);
    if (tsla_is_const(c, &v))
      return tsla_to_poly(an, e->args[v ? 1 : 2], dt);
    const tsla_poly *t = tsla_to_poly(an, e->args[1], dt);
    const tsla_poly *f = tsla_to_poly(an, e->args[2], dt);
    if (poly_same(t, f))
      return t;
    const tsl_expr *args[3] = {c, tsla_from(an, t), tsla_from(an, f)};
    return tsla_poly_atom(S, dt, tsl_expr_with_args(an->out, e, 3, args));
  }
  case TSL_EXPR_CAST: {
    const tsl_expr *x = tsla_simp(an, e->args[0]);
    const tsl_expr *f = fold_cast(an, dt, x);
    if (f)
      return tsla_to_poly(an, f, dt);
    return tsla_poly_atom(S, dt, x == e->args[0] ? e : tsl_expr_cast(an->out, dt, x));
  }
  case TSL_EXPR_CALL:
    if (e->intrin == TSL_INTRIN_ABS && e->n_args == 1) {
      const tsla_poly *a = tsla_to_poly(an, e->args[0], dt);
      if (tsla_poly_is_const(a, &v))
        return tsla_poly_const(S, dt, v < 0 ? (int64_t)(0 - (uint64_t)v) : v);
      tsla_ival b = tsla_bound_poly(an, a, 0);
      if (b.lo >= 0)
        return a;
      if (b.hi <= 0)
        return tsla_poly_scale(S, O, a, -1);
      const tsl_expr *arg = tsla_from(an, a);
      return tsla_poly_atom(S, dt, tsl_expr_with_args(an->out, e, 1, &arg));
    }
    return tsla_poly_atom(S, dt, simp_args(an, e));
  default:
    return tsla_poly_atom(S, dt, simp_args(an, e));
  }
}

const tsla_poly *tsla_to_poly(tsl_analyzer *an, const tsl_expr *e,
                              tsl_dtype dt) {
  if (!step(an))
    return tsla_poly_atom(S, dt, e);
  an->depth++;
  const tsla_poly *p = tsla_recombine(an, to_poly_inner(an, e, dt));
  an->depth--;
  return p;
}

const tsla_poly *tsla_poly_of_simplified(tsl_analyzer *an, const tsl_expr *e) {
  return tsla_to_poly(an, e, e->dtype);
}

/* ---- boolean and other expressions ---- */

static int is_cmp(tsl_expr_kind k) {
  return k >= TSL_EXPR_EQ && k <= TSL_EXPR_GE;
}

static int scalar_bool(const tsl_expr *e) {
  return tsl_dtype_is_bool(e->dtype) && e->dtype.lanes == 1;
}

/* Canonical integer comparison: `P op N + k` with positive terms left. */
static const tsl_expr *simp_cmp(tsl_analyzer *an, const tsl_expr *e) {
  const tsl_expr *a = e->args[0], *b = e->args[1];
  if (!tsla_is_sint(a->dtype) || !tsl_dtype_eq(a->dtype, b->dtype))
    return simp_args(an, e);
  tsl_dtype dt = a->dtype;
  tsl_expr_kind op = (tsl_expr_kind)e->kind;
  const tsla_poly *pa = tsla_to_poly(an, a, dt);
  const tsla_poly *pb = tsla_to_poly(an, b, dt);
  const tsla_poly *d;
  if (op == TSL_EXPR_GT || op == TSL_EXPR_GE) {
    d = psub(an, pb, pa);
    op = op == TSL_EXPR_GT ? TSL_EXPR_LT : TSL_EXPR_LE;
  } else {
    d = psub(an, pa, pb);
  }
  d = tsla_recombine(an, d);
  tsla_ival r = tsla_bound_poly(an, d, 0);
  int known = -1;
  switch (op) {
  case TSL_EXPR_LT:
    known = r.hi < 0 ? 1 : r.lo >= 0 ? 0 : -1;
    break;
  case TSL_EXPR_LE:
    known = r.hi <= 0 ? 1 : r.lo > 0 ? 0 : -1;
    break;
  case TSL_EXPR_EQ:
  case TSL_EXPR_NE:
    known = (r.lo == 0 && r.hi == 0) ? 1 : (r.lo > 0 || r.hi < 0) ? 0 : -1;
    if (known < 0 && d->n > 0) {
      int64_t g = 0;
      for (uint32_t i = 0; i < d->n; i++)
        g = tsla_gcd(g, d->t[i].coef);
      if (g > 1 && d->c % g != 0)
        known = 0;
      else if (g > 1)
        d = tsla_poly_div_exact(an, d, g);
      if (d->t[0].coef < 0)
        d = tsla_poly_scale(S, O, d, -1);
    }
    if (known >= 0 && op == TSL_EXPR_NE)
      known = !known;
    break;
  default:
    break;
  }
  if (known >= 0)
    return tsl_expr_bool(an->out, known);
  /* split d = P - N + k */
  tsla_term *pt = TSL_NEW_ARRAY(S, tsla_term, d->n);
  tsla_term *nt = TSL_NEW_ARRAY(S, tsla_term, d->n);
  uint32_t np = 0, nn = 0;
  for (uint32_t i = 0; i < d->n; i++) {
    if (d->t[i].coef > 0) {
      pt[np++] = d->t[i];
    } else {
      nt[nn] = d->t[i];
      nt[nn++].coef = (int64_t)(0 - (uint64_t)d->t[i].coef);
    }
  }
  int64_t k = d->c, nk = tsla_wrap(dt, (int64_t)(0 - (uint64_t)k));
  const tsla_poly *lhs, *rhs;
  if (np == 0) { /* -N + k op 0  <=>  N op' k */
    lhs = tsla_poly_make(S, O, dt, 0, nn, nt);
    rhs = tsla_poly_const(S, dt, k);
    op = op == TSL_EXPR_LT ? TSL_EXPR_GT : op == TSL_EXPR_LE ? TSL_EXPR_GE : op;
  } else if (nn == 0) {
    lhs = tsla_poly_make(S, O, dt, 0, np, pt);
    rhs = tsla_poly_const(S, dt, nk);
  } else if (k > 0) {
    lhs = tsla_poly_make(S, O, dt, k, np, pt);
    rhs = tsla_poly_make(S, O, dt, 0, nn, nt);
  } else {
    lhs = tsla_poly_make(S, O, dt, 0, np, pt);
    rhs = tsla_poly_make(S, O, dt, nk, nn, nt);
  }
  return tsla_bin(an, op, tsla_from(an, lhs), tsla_from(an, rhs));
}

static tsl_expr_kind negate_cmp(tsl_expr_kind k) {
  switch (k) {
  case TSL_EXPR_EQ: return TSL_EXPR_NE;
  case TSL_EXPR_NE: return TSL_EXPR_EQ;
  case TSL_EXPR_LT: return TSL_EXPR_GE;
  case TSL_EXPR_LE: return TSL_EXPR_GT;
  case TSL_EXPR_GT: return TSL_EXPR_LE;
  default: return TSL_EXPR_LT; /* GE */
  }
}

static const tsl_expr *simp_logic(tsl_analyzer *an, const tsl_expr *e) {
  int64_t v;
  if (!scalar_bool(e))
    return simp_args(an, e);
  if (e->kind == TSL_EXPR_NOT) {
    const tsl_expr *x = tsla_simp(an, e->args[0]);
    if (tsla_is_const(x, &v))
      return tsl_expr_bool(an->out, !v);
    if (x->kind == TSL_EXPR_NOT)
      return x->args[0];
    if (is_cmp((tsl_expr_kind)x->kind) && tsla_is_sint(x->args[0]->dtype))
      return tsla_simp(an, tsla_bin(an, negate_cmp((tsl_expr_kind)x->kind),
                               x->args[0], x->args[1]));
    return x == e->args[0] ? e : tsl_expr_unary(an->out, TSL_EXPR_NOT, x);
  }
  int is_and = e->kind == TSL_EXPR_AND;
  const tsl_expr *a = tsla_simp(an, e->args[0]);
  if (tsla_is_const(a, &v) && tsl_dtype_is_bool(a->dtype)) {
    if (is_and ? !v : v)
      return tsl_expr_bool(an->out, v != 0);
    return tsla_simp(an, e->args[1]);
  }
  const tsl_expr *b = tsla_simp(an, e->args[1]);
  if (tsla_is_const(b, &v) && tsl_dtype_is_bool(b->dtype))
    return (is_and ? !v : v) ? tsl_expr_bool(an->out, v != 0) : a;
  if (tsla_expr_same(a, b))
    return a;
  if (a == e->args[0] && b == e->args[1])
    return e;
  return tsla_bin(an, (tsl_expr_kind)e->kind, a, b);
}

/* Constant folding for unsigned integer arithmetic (no canonical form). */
static const tsl_expr *simp_uint(tsl_analyzer *an, const tsl_expr *e) {
  const tsl_expr *x = simp_args(an, e);
  int64_t a, b;
  if (x->n_args != 2 || !tsla_is_const(x->args[0], &a) || !tsla_is_const(x->args[1], &b))
    return x;
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
  switch ((tsl_expr_kind)x->kind) {
  case TSL_EXPR_ADD: r = ua + ub; break;
  case TSL_EXPR_SUB: r = ua - ub; break;
  case TSL_EXPR_MUL: r = ua * ub; break;
  case TSL_EXPR_DIV:
  case TSL_EXPR_FLOORDIV:
    if (!ub)
      return x;
    r = ua / ub;
    break;
  case TSL_EXPR_MOD:
  case TSL_EXPR_FLOORMOD:
    if (!ub)
      return x;
    r = ua % ub;
    break;
  case TSL_EXPR_MIN: r = ua < ub ? ua : ub; break;
  case TSL_EXPR_MAX: r = ua > ub ? ua : ub; break;
  default:
    return x;
  }
  return tsla_cint(an, x->dtype, (int64_t)r);
}

static const tsl_expr *simp_inner(tsl_analyzer *an, const tsl_expr *e) {
  int64_t v;
  tsl_expr_kind k = (tsl_expr_kind)e->kind;
  if (tsla_is_sint(e->dtype)) {
    if (k == TSL_EXPR_INT_IMM)
      return e;
    if (k == TSL_EXPR_VAR && !tsla_analyzer_var_value(an, e->u.var))
      return e;
    const tsl_expr *r = tsla_from(an, tsla_to_poly(an, e, e->dtype));
    return tsla_expr_same(r, e) ? e : r; /* share what did not change */
  }
  switch (k) {
  case TSL_EXPR_INT_IMM:
  case TSL_EXPR_FLOAT_IMM:
  case TSL_EXPR_STR_IMM:
    return e;
  case TSL_EXPR_VAR: {
    const tsl_expr *val = tsla_analyzer_var_value(an, e->u.var);
    return val && tsl_dtype_eq(val->dtype, e->dtype) ? tsla_simp(an, val) : e;
  }
  case TSL_EXPR_EQ:
  case TSL_EXPR_NE:
  case TSL_EXPR_LT:
  case TSL_EXPR_LE:
  case TSL_EXPR_GT:
  case TSL_EXPR_GE:
    return simp_cmp(an, e);
  case TSL_EXPR_AND:
  case TSL_EXPR_OR:
  case TSL_EXPR_NOT:
    return simp_logic(an, e);
  case TSL_EXPR_SELECT:
  case TSL_EXPR_IF_THEN_ELSE: {
    const tsl_expr *c = tsla_simp(an, e->args[0]);
    if (tsla_is_const(c, &v) && e->dtype.lanes == 1)
      return tsla_simp(an, e->args[v ? 1 : 2]);
    const tsl_expr *args[3] = {c, tsla_simp(an, e->args[1]),
                               tsla_simp(an, e->args[2])};
    if (args[0] == e->args[0] && args[1] == e->args[1] && args[2] == e->args[2])
      return e;
    return tsl_expr_with_args(an->out, e, 3, args);
  }
  case TSL_EXPR_CAST: {
    const tsl_expr *x = tsla_simp(an, e->args[0]);
    const tsl_expr *f = fold_cast(an, e->dtype, x);
    if (f)
      return f;
    return x == e->args[0] ? e : tsl_expr_cast(an->out, e->dtype, x);
  }
  default:
    if (e->dtype.code == TSL_DT_UINT && e->dtype.lanes == 1 &&
        !tsl_dtype_is_bool(e->dtype))
      return simp_uint(an, e);
    return simp_args(an, e);
  }
}

const tsl_expr *tsla_simp(tsl_analyzer *an, const tsl_expr *e) {
  if (!step(an))
    return e;
  an->depth++;
  const tsl_expr *r = simp_inner(an, e);
  an->depth--;
  return r;
}

/* ---- public entry points ---- */

const tsl_expr *tsl_simplify(tsl_analyzer *an, tsl_arena *arena,
                             const tsl_expr *e) {
  if (!an || !arena || !e || e->kind == TSL_EXPR_INT_IMM || e->kind == TSL_EXPR_FLOAT_IMM)
    return e; /* a constant is simplified already */
  tsla_enter(an, arena);
  const tsl_expr *r = tsla_simp(an, e);
  if (an->failed)
    r = e;
  tsla_leave(an);
  return r;
}

int tsl_analyzer_const_bound(tsl_analyzer *an, const tsl_expr *e, int64_t *lo,
                             int64_t *hi) {
  int64_t dl, dh;
  if (!lo)
    lo = &dl;
  if (!hi)
    hi = &dh;
  *lo = INT64_MIN;
  *hi = INT64_MAX;
  if (!an || !e)
    return 0;
  tsla_enter(an, NULL);
  tsla_ival r;
  if (tsla_is_sint(e->dtype)) {
    const tsla_poly *p = tsla_to_poly(an, e, e->dtype);
    if (an->failed) {
      an->failed = 0;
      an->budget = TSLA_BUDGET;
      r = tsla_bound_expr(an, e, 0);
    } else {
      r = tsla_bound_poly(an, p, 0);
    }
  } else {
    r = tsla_bound_expr(an, e, 0);
  }
  tsla_leave(an);
  if (r.lo == TSLA_NEG_INF || r.hi == TSLA_POS_INF)
    return 0; /* as documented: both stay at INT64_MIN / INT64_MAX */
  *lo = r.lo;
  *hi = r.hi;
  return 1;
}

/* a <= b (a < b when strict) taken apart at min and max first: min(x, y)
 * is below b when either is, a below max(x, y) when below either, max on
 * the left and min on the right when both are; then b - a bounded from
 * below. So [min(p, q), max(p, q)] covers [p, q] though p and q are not
 * ordered. */
static int ordered(tsl_analyzer *an, const tsl_expr *a, const tsl_expr *b, int strict,
                   int depth) {
  const int d = depth + 1;
  if (depth < 8) {
    if (a->kind == TSL_EXPR_MIN && (ordered(an, a->args[0], b, strict, d) ||
                                    ordered(an, a->args[1], b, strict, d)))
      return 1;
    if (b->kind == TSL_EXPR_MAX && (ordered(an, a, b->args[0], strict, d) ||
                                    ordered(an, a, b->args[1], strict, d)))
      return 1;
    if (a->kind == TSL_EXPR_MAX && ordered(an, a->args[0], b, strict, d) &&
        ordered(an, a->args[1], b, strict, d))
      return 1;
    if (b->kind == TSL_EXPR_MIN && ordered(an, a, b->args[0], strict, d) &&
        ordered(an, a, b->args[1], strict, d))
      return 1;
  }
  if (!tsla_is_sint(a->dtype) || !tsl_dtype_eq(a->dtype, b->dtype))
    return 0;
  tsla_ival r = tsla_bound_poly(an, psub(an, tsla_to_poly(an, b, b->dtype),
                                         tsla_to_poly(an, a, a->dtype)), 0);
  if (an->failed) {
    an->failed = 0;
    return 0;
  }
  return r.lo != TSLA_NEG_INF && r.lo >= strict;
}

static int is_minmax(const tsl_expr *e) {
  return e->kind == TSL_EXPR_MIN || e->kind == TSL_EXPR_MAX;
}

int tsl_analyzer_can_prove(tsl_analyzer *an, const tsl_expr *cond) {
  if (!an || !cond)
    return 0;
  int cmp = cond->kind == TSL_EXPR_LE || cond->kind == TSL_EXPR_LT ||
            cond->kind == TSL_EXPR_GE || cond->kind == TSL_EXPR_GT;
  if (cmp && (is_minmax(cond->args[0]) || is_minmax(cond->args[1]))) {
    int ge = cond->kind == TSL_EXPR_GE || cond->kind == TSL_EXPR_GT;
    int strict = cond->kind == TSL_EXPR_LT || cond->kind == TSL_EXPR_GT;
    tsla_enter(an, NULL);
    int ok = ordered(an, cond->args[ge], cond->args[!ge], strict, 0);
    tsla_leave(an);
    if (ok)
      return 1;
  }
  tsla_enter(an, NULL);
  const tsl_expr *r = tsla_simp(an, cond);
  int64_t v;
  int ok = !an->failed && tsla_is_const(r, &v) && v != 0;
  tsla_leave(an);
  return ok;
}

int tsl_analyzer_equal(tsl_analyzer *an, const tsl_expr *a, const tsl_expr *b) {
  if (!an || !a || !b)
    return 0;
  if (a == b)
    return 1;
  tsla_enter(an, NULL);
  int eq;
  if (tsla_is_sint(a->dtype) && tsl_dtype_eq(a->dtype, b->dtype)) {
    const tsla_poly *d = tsla_recombine(an, psub(an, tsla_to_poly(an, a, a->dtype),
                                            tsla_to_poly(an, b, b->dtype)));
    int64_t c;
    eq = !an->failed && tsla_poly_is_const(d, &c) && c == 0;
  } else if (tsla_is_sint(a->dtype) && tsla_is_sint(b->dtype)) {
    int64_t x, y;
    const tsl_expr *sa = tsla_simp(an, a), *sb = tsla_simp(an, b);
    eq = !an->failed && tsla_is_const(sa, &x) && tsla_is_const(sb, &y) && x == y;
  } else {
    const tsl_expr *sa = tsla_simp(an, a), *sb = tsla_simp(an, b);
    eq = !an->failed && tsla_expr_same(sa, sb);
  }
  tsla_leave(an);
  return eq;
}
