/*
 * floordiv / floormod by a positive constant on canonical polynomials:
 * x = c*Q + R splits, bounds of R, nested divisions and moduli, common
 * factors and low-order parts, and the recombination
 * c*floordiv(X, c) + floormod(X, c) = X (and its relatives) that keeps
 * split and fused index expressions canonical; and the terms that are
 * multiples of a symbolic monomial divisor.
 */
#include "analysis_internal.h"

#define S (an->scratch)
#define O (&an->order)

static const tsla_poly *floordiv_c(tsl_analyzer *an, const tsla_poly *x,
                                   int64_t c, int level);
static const tsla_poly *floormod_c(tsl_analyzer *an, const tsla_poly *x,
                                   int64_t c, int level);

/* x = c*Q + R with every coefficient of R in (-c, c), constant in [0, c) */
static void split(tsl_analyzer *an, const tsla_poly *x, int64_t c,
                  const tsla_poly **q, const tsla_poly **r) {
  tsla_term *qt = TSL_NEW_ARRAY(S, tsla_term, x->n + 1);
  tsla_term *rt = TSL_NEW_ARRAY(S, tsla_term, x->n + 1);
  uint32_t nq = 0, nr = 0;
  for (uint32_t i = 0; i < x->n; i++) {
    int64_t k = x->t[i].coef, qq = k / c, rr = k - qq * c;
    if (qq) {
      qt[nq] = x->t[i];
      qt[nq++].coef = qq;
    }
    if (rr) {
      rt[nr] = x->t[i];
      rt[nr++].coef = rr;
    }
  }
  if (q)
    *q = tsla_poly_make(S, O, x->dt, tsla_floordiv(x->c, c), nq, qt);
  *r = tsla_poly_make(S, O, x->dt, tsla_floormod(x->c, c), nr, rt);
}

static int64_t poly_gcd(const tsla_poly *p, int64_t g) {
  for (uint32_t i = 0; i < p->n; i++)
    g = tsla_gcd(g, p->t[i].coef);
  return tsla_gcd(g, p->c);
}


/* Find g > 1 dividing c with r = g*Y + Z where the terms of Y have
 * coefficients divisible by g and 0 <= Z < g under the bounds; then
 * floordiv(r, c) = floordiv(Y, c/g) and floormod(r, c) =
 * g*floormod(Y, c/g) + Z. Tries the largest g first. */
static int lower_split(tsl_analyzer *an, const tsla_poly *r, int64_t c,
                       int64_t *g_out, const tsla_poly **y,
                       const tsla_poly **z) {
  int64_t cand[TSLA_MAX_TERMS + 1];
  uint32_t nc = 0;
  for (uint32_t i = 0; i < r->n && nc < TSLA_MAX_TERMS; i++) {
    int64_t g = tsla_gcd(c, r->t[i].coef);
    int dup = g <= 1;
    for (uint32_t k = 0; k < nc && !dup; k++)
      dup = cand[k] == g;
    if (!dup)
      cand[nc++] = g;
  }
  for (uint32_t k = 1; k < nc; k++) /* descending */
    for (uint32_t j = k; j > 0 && cand[j - 1] < cand[j]; j--) {
      int64_t t = cand[j];
      cand[j] = cand[j - 1];
      cand[j - 1] = t;
    }
  tsla_term *yt = TSL_NEW_ARRAY(S, tsla_term, r->n + 1);
  tsla_term *zt = TSL_NEW_ARRAY(S, tsla_term, r->n + 1);
  for (uint32_t k = 0; k < nc; k++) {
    int64_t g = cand[k];
    uint32_t ny = 0, nz = 0;
    for (uint32_t i = 0; i < r->n; i++) {
      if (r->t[i].coef % g == 0)
        yt[ny++] = r->t[i];
      else
        zt[nz++] = r->t[i];
    }
    const tsla_poly *zp = tsla_poly_make(S, O, r->dt, r->c, nz, zt);
    tsla_ival b = tsla_bound_poly(an, zp, 0);
    if (b.lo < 0 || b.hi >= g || b.hi == TSLA_POS_INF)
      continue;
    *g_out = g;
    *y = tsla_poly_div_exact(an, tsla_poly_make(S, O, r->dt, 0, ny, yt), g);
    *z = zp;
    return 1;
  }
  return 0;
}

const tsla_poly *tsla_poly_div_exact(tsl_analyzer *an, const tsla_poly *p,
                                     int64_t g) {
  if (g == 1)
    return p;
  tsla_term *t = TSL_NEW_ARRAY(S, tsla_term, p->n + 1);
  for (uint32_t i = 0; i < p->n; i++) {
    t[i] = p->t[i];
    t[i].coef = p->t[i].coef / g;
  }
  return tsla_poly_make(S, O, p->dt, p->c / g, p->n, t);
}

/* Is term t a single `kind` atom with a positive constant divisor? */
static int single_atom_term(const tsla_term *t, tsl_expr_kind kind, int64_t *k,
                            int64_t *divisor) {
  if (t->n_atoms != 1)
    return 0;
  const tsl_expr *a = t->atoms[0];
  if (a->kind != kind || !tsla_is_const(a->args[1], divisor) || *divisor <= 0)
    return 0;
  *k = t->coef;
  return 1;
}

static int single_atom(const tsla_poly *p, tsl_expr_kind kind, int64_t *k,
                       int64_t *divisor) {
  if (p->n != 1 || p->t[0].n_atoms != 1)
    return 0;
  const tsl_expr *a = p->t[0].atoms[0];
  if (a->kind != kind || !tsla_is_const(a->args[1], divisor) || *divisor <= 0)
    return 0;
  *k = p->t[0].coef;
  return 1;
}

static const tsla_poly *floordiv_c(tsl_analyzer *an, const tsla_poly *x,
                                   int64_t c, int level) {
  int64_t k, a, prod, off;
  if (c == 1)
    return x;
  x = tsla_recombine(an, x);
  if (tsla_poly_is_const(x, &k))
    return tsla_poly_const(S, x->dt, tsla_floordiv(k, c));
  const tsla_poly *q, *r;
  split(an, x, c, &q, &r); /* floordiv(x, c) = q + floordiv(r, c) */
  tsla_ival b = tsla_bound_poly(an, r, 0);
  if (b.lo != TSLA_NEG_INF && b.hi != TSLA_POS_INF &&
      tsla_floordiv(b.lo, c) == tsla_floordiv(b.hi, c))
    return tsla_poly_add(S, O, q,
                         tsla_poly_const(S, x->dt, tsla_floordiv(b.lo, c)), 1);
  if (level < 16 && single_atom(r, TSL_EXPR_FLOORDIV, &k, &a) && k == 1 &&
      !__builtin_mul_overflow(a, c, &prod) &&
      !__builtin_mul_overflow(r->c, a, &off) && tsla_wrap(x->dt, prod) == prod &&
      tsla_wrap(x->dt, off) == off) {
    /* floordiv(floordiv(y, a) + k, c) = floordiv(y + k*a, a*c) */
    const tsla_poly *y = tsla_poly_of_simplified(an, r->t[0].atoms[0]->args[0]);
    y = tsla_poly_add(S, O, y, tsla_poly_const(S, x->dt, off), 1);
    return tsla_poly_add(S, O, q, floordiv_c(an, y, prod, level + 1), 1);
  }
  if (level < 16 && single_atom(r, TSL_EXPR_FLOORMOD, &k, &a) && k == 1 &&
      r->c == 0 && a % c == 0 && a > c) {
    /* floordiv(floormod(y, m), c) = floormod(floordiv(y, c), m/c) if c | m */
    const tsla_poly *y = tsla_poly_of_simplified(an, r->t[0].atoms[0]->args[0]);
    return tsla_poly_add(
        S, O, q, floormod_c(an, floordiv_c(an, y, c, level + 1), a / c, level + 1), 1);
  }
  /* floordiv(g*Y + Z, g*m) = floordiv(Y, m) when 0 <= Z < g */
  int64_t g;
  const tsla_poly *y, *z;
  int reduced = 1;
  if (lower_split(an, r, c, &g, &y, &z)) {
    r = y;
    c /= g;
  } else if ((g = poly_gcd(r, c)) > 1) { /* floordiv(g*Y, g*m) = floordiv(Y, m) */
    r = tsla_poly_div_exact(an, r, g);
    c /= g;
  } else {
    reduced = 0;
  }
  if (c == 1)
    return tsla_poly_add(S, O, q, r, 1);
  if (reduced && level < 16) /* the smaller division may simplify further */
    return tsla_poly_add(S, O, q, floordiv_c(an, r, c, level + 1), 1);
  const tsl_expr *atom = tsla_bin(an, TSL_EXPR_FLOORDIV, tsla_from(an, r), tsla_cint(an, x->dt, c));
  return tsla_poly_add(S, O, q, tsla_poly_atom(S, x->dt, atom), 1);
}

static const tsla_poly *floormod_c(tsl_analyzer *an, const tsla_poly *x,
                                   int64_t c, int level) {
  int64_t k;
  if (c == 1)
    return tsla_poly_const(S, x->dt, 0);
  if (tsla_poly_is_const(x, &k))
    return tsla_poly_const(S, x->dt, tsla_floormod(k, c));
  /* t * floormod(y, m) == t * y (mod c) when c divides t*m */
  for (int round = 0; round < 4; round++) {
    int changed = 0;
    for (uint32_t i = 0; i < x->n && !changed; i++) {
      const tsla_term *t = &x->t[i];
      int64_t m, tm;
      if (t->n_atoms != 1 || t->atoms[0]->kind != TSL_EXPR_FLOORMOD ||
          !tsla_is_const(t->atoms[0]->args[1], &m) || m <= 0 ||
          __builtin_mul_overflow(t->coef, m, &tm) || tm % c != 0)
        continue;
      const tsla_poly *y = tsla_poly_of_simplified(an, t->atoms[0]->args[0]);
      tsla_poly one = {x->dt, 0, 1, t};
      x = tsla_poly_add(S, O, tsla_poly_add(S, O, x, &one, -1), y, t->coef);
      changed = 1;
    }
    if (!changed)
      break;
  }
  if (tsla_poly_is_const(x, &k))
    return tsla_poly_const(S, x->dt, tsla_floormod(k, c));
  x = tsla_recombine(an, x);
  const tsla_poly *r;
  split(an, x, c, NULL, &r);
  tsla_ival b = tsla_bound_poly(an, r, 0);
  if (b.lo != TSLA_NEG_INF && b.hi != TSLA_POS_INF &&
      tsla_floordiv(b.lo, c) == tsla_floordiv(b.hi, c))
    return tsla_poly_add(S, O, r,
                         tsla_poly_const(S, x->dt, tsla_floordiv(b.lo, c)), -c);
  /* floormod(g*Y + Z, g*m) = g*floormod(Y, m) + Z when 0 <= Z < g */
  int64_t g;
  const tsla_poly *y, *z = tsla_poly_const(S, x->dt, 0);
  if (lower_split(an, r, c, &g, &y, &z)) {
    r = y;
    c /= g;
  } else if ((g = poly_gcd(r, c)) > 1) { /* floormod(g*Y, g*m) = g*floormod(Y, m) */
    r = tsla_poly_div_exact(an, r, g);
    c /= g;
  } else {
    g = 1;
  }
  if (c == 1)
    return z;
  if (g > 1 && level < 16) /* the smaller modulus may simplify further */
    return tsla_poly_add(S, O, z, floormod_c(an, r, c, level + 1), g);
  const tsl_expr *atom = tsla_bin(an, TSL_EXPR_FLOORMOD, tsla_from(an, r), tsla_cint(an, x->dt, c));
  return tsla_poly_add(S, O, z, tsla_poly_atom(S, x->dt, atom), g);
}

/* c*floordiv(X, c)*k + floormod(X, c)*k  ->  X*k */
const tsla_poly *tsla_recombine(tsl_analyzer *an, const tsla_poly *p) {
  for (int round = 0; round < 8 && p->n >= 2; round++) {
    int changed = 0;
    for (uint32_t i = 0; i < p->n && !changed; i++) {
      const tsla_term *ti = &p->t[i];
      int64_t c;
      if (ti->n_atoms != 1 || ti->atoms[0]->kind != TSL_EXPR_FLOORMOD ||
          !tsla_is_const(ti->atoms[0]->args[1], &c) || c <= 0)
        continue;
      int has_div = 0;
      for (uint32_t j = 0; j < p->n && !has_div; j++)
        has_div = j != i && p->t[j].n_atoms == 1 &&
                  p->t[j].atoms[0]->kind == TSL_EXPR_FLOORDIV;
      if (!has_div)
        continue;
      /* p = rest + k*c*floordiv(X, c) + k*floormod(X, c) = rest + k*X, with
       * floordiv(X, c) in its canonical form (so X // 4 // 3 is found as
       * X // 12) */
      const tsl_expr *xm = ti->atoms[0]->args[0];
      const tsla_poly *px = tsla_poly_of_simplified(an, xm);
      const tsla_poly *fd = floordiv_c(an, px, c, 0);
      if (fd->n == 0)
        continue;
      int64_t kc = (int64_t)((uint64_t)ti->coef * (uint64_t)c);
      tsla_poly one = {p->dt, 0, 1, ti};
      const tsla_poly *p2 = tsla_poly_add(S, O, p, fd, -kc);
      if (p2->n + fd->n == p->n) {
        p = tsla_poly_add(S, O, tsla_poly_add(S, O, p2, &one, -1), px, ti->coef);
        changed = 1;
        continue;
      }
      /* k*c*floormod(X // c, m) + k*floormod(X, c) = k*floormod(X, c*m) */
      int64_t k0, m, cm;
      if (fd->n != 1 || fd->t[0].n_atoms != 1 || fd->t[0].coef != 1 || fd->c != 0)
        continue;
      for (uint32_t j = 0; j < p->n && !changed; j++) {
        const tsla_term *tj = &p->t[j];
        if (j == i || tj->n_atoms != 1 || tj->coef != kc ||
            !single_atom_term(tj, TSL_EXPR_FLOORMOD, &k0, &m) ||
            __builtin_mul_overflow(c, m, &cm) || tsla_wrap(p->dt, cm) != cm ||
            !tsla_expr_same(tj->atoms[0]->args[0], fd->t[0].atoms[0]))
          continue;
        tsla_term *rest = TSL_NEW_ARRAY(S, tsla_term, p->n);
        uint32_t n = 0;
        for (uint32_t q = 0; q < p->n; q++)
          if (q != i && q != j)
            rest[n++] = p->t[q];
        const tsla_poly *base = tsla_poly_make(S, O, p->dt, p->c, n, rest);
        p = tsla_poly_add(S, O, base, floormod_c(an, px, cm, 0), ti->coef);
        changed = 1;
      }
    }
    /* a*floordiv(X, c) + (a/c)*X... -> -(a/c)*floormod(X, c) when that
     * leaves fewer terms (x - x//4*4 -> x % 4) */
    for (uint32_t i = 0; i < p->n && !changed; i++) {
      const tsla_term *ti = &p->t[i];
      int64_t c, a = ti->coef;
      if (ti->n_atoms != 1 || ti->atoms[0]->kind != TSL_EXPR_FLOORDIV ||
          !tsla_is_const(ti->atoms[0]->args[1], &c) || c <= 1 || a % c != 0)
        continue;
      const tsl_expr *xd = ti->atoms[0]->args[0];
      const tsla_poly *px = tsla_poly_of_simplified(an, xd);
      const tsl_expr *fm = tsla_bin(an, TSL_EXPR_FLOORMOD, xd, ti->atoms[0]->args[1]);
      tsla_poly one = {p->dt, 0, 1, ti};
      const tsla_poly *np = tsla_poly_add(S, O, p, &one, -1);
      np = tsla_poly_add(S, O, np, px, a / c);
      np = tsla_poly_add(S, O, np, tsla_poly_atom(S, p->dt, fm), -(a / c));
      if (np->n < p->n) {
        p = np;
        changed = 1;
      }
    }
    if (!changed)
      break;
  }
  return p;
}

const tsla_poly *tsla_floordiv_c(tsl_analyzer *an, const tsla_poly *x,
                                 int64_t c) {
  return floordiv_c(an, x, c, 0);
}

const tsla_poly *tsla_floormod_c(tsl_analyzer *an, const tsla_poly *x,
                                 int64_t c) {
  return floormod_c(an, x, c, 0);
}

/* ---- symbolic divisors ------------------------------------------------- */

/* Does monomial t contain every atom of monomial d (as a multiset) and a
 * multiple of its coefficient? Then *q gets t / d. */
static int term_divides(tsl_arena *s, const tsla_term *t, const tsla_term *d,
                        tsla_term *q) {
  if (d->coef == 0 || t->coef % d->coef != 0 || t->n_atoms < d->n_atoms)
    return 0;
  const tsl_expr **rest = TSL_NEW_ARRAY(s, const tsl_expr *, t->n_atoms + 1);
  uint8_t used[TSLA_MAX_DEGREE + 1] = {0};
  if (t->n_atoms > TSLA_MAX_DEGREE)
    return 0;
  for (uint32_t i = 0; i < d->n_atoms; i++) {
    uint32_t k = 0;
    while (k < t->n_atoms && (used[k] || !tsla_expr_same(t->atoms[k], d->atoms[i])))
      k++;
    if (k == t->n_atoms)
      return 0;
    used[k] = 1;
  }
  uint32_t n = 0;
  for (uint32_t k = 0; k < t->n_atoms; k++)
    if (!used[k])
      rest[n++] = t->atoms[k];
  q->coef = t->coef / d->coef;
  q->n_atoms = n;
  q->atoms = rest;
  return 1;
}

const tsla_poly *tsla_divmod_sym(tsl_analyzer *an, tsl_expr_kind k,
                                 const tsla_poly *x, const tsla_poly *d) {
  if (d->n != 1 || d->c != 0 || d->t[0].n_atoms == 0)
    return NULL;
  /* floor((q*d + r) / d) = q + floor(r / d) for every d != 0 (TVM asks
   * d >= 0 for some of these rules, not for floordiv(x * c, x) = c) */
  tsla_term *qt = TSL_NEW_ARRAY(S, tsla_term, x->n + 1);
  tsla_term *rt = TSL_NEW_ARRAY(S, tsla_term, x->n + 1);
  uint32_t nq = 0, nr = 0;
  for (uint32_t i = 0; i < x->n; i++) {
    if (term_divides(S, &x->t[i], &d->t[0], &qt[nq]))
      nq++;
    else
      rt[nr++] = x->t[i];
  }
  if (!nq)
    return NULL;
  /* quotient terms without atoms are constants */
  int64_t qc = 0;
  uint32_t m = 0;
  for (uint32_t i = 0; i < nq; i++) {
    if (qt[i].n_atoms == 0)
      qc += qt[i].coef;
    else
      qt[m++] = qt[i];
  }
  const tsla_poly *q = tsla_poly_make(S, O, x->dt, qc, m, qt);
  const tsla_poly *r = tsla_poly_make(S, O, x->dt, x->c, nr, rt);
  int64_t rc;
  if (tsla_poly_is_const(r, &rc) && rc == 0)
    return k == TSL_EXPR_FLOORDIV ? q : tsla_poly_const(S, x->dt, 0);
  const tsl_expr *rest = tsla_bin(an, k, tsla_from(an, r), tsla_from(an, d));
  const tsla_poly *pr = tsla_poly_atom(S, x->dt, rest);
  return k == TSL_EXPR_FLOORDIV ? tsla_poly_add(S, O, q, pr, 1) : pr;
}
