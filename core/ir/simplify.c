/*
 * The integer arithmetic simplifier: analyzer bindings, the canonical
 * polynomial of an integer expression (constants folded, like terms merged,
 * floordiv/floormod by constants split and resolved with bounds, min/max and
 * comparisons decided by bounds), and the public tsl_simplify family.
 * Non-integer expressions keep their shape; only their integer parts are
 * rewritten. Recursion depth and work are capped: past the cap a public
 * call returns its input unchanged.
 */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- analyzer state ---- */

tsl_analyzer *tsl_analyzer_new(tsl_ctx *ctx) {
  tsl_analyzer *an = calloc(1, sizeof *an);
  if (!an)
    return NULL;
  an->ctx = ctx;
  tsla_pmap_init(&an->index);
  return an;
}

void tsl_analyzer_free(tsl_analyzer *an) {
  if (!an)
    return;
  tsla_pmap_free(&an->index);
  free(an->binds);
  tsl_arena_free(an->scratch);
  free(an);
}

void tsla_analyzer_set_order(tsl_analyzer *an, const tsla_order *o) {
  if (o)
    an->order = *o;
  else
    memset(&an->order, 0, sizeof an->order);
}

static tsla_binding *find_binding(tsl_analyzer *an, const tsl_var *v) {
  tsla_pmap_slot *s = tsla_pmap_get(&an->index, v);
  return s ? &an->binds[s->val] : NULL;
}

static tsla_binding *get_binding(tsl_analyzer *an, const tsl_var *v) {
  tsla_binding *b = find_binding(an, v);
  if (b)
    return b;
  if (an->n_binds == an->cap_binds) {
    uint32_t cap = an->cap_binds ? an->cap_binds * 2 : 16;
    tsla_binding *nb = realloc(an->binds, sizeof *nb * cap);
    if (!nb)
      abort();
    an->binds = nb;
    an->cap_binds = cap;
  }
  b = &an->binds[an->n_binds];
  memset(b, 0, sizeof *b);
  b->var = v;
  tsla_pmap_put(&an->index, v, an->n_binds++, NULL);
  return b;
}

int tsla_analyzer_var_range(tsl_analyzer *an, const tsl_var *v,
                            tsla_ival *r) {
  tsla_binding *b = find_binding(an, v);
  if (!b || !b->has_range)
    return 0;
  *r = b->range;
  return 1;
}

const tsl_expr *tsla_analyzer_var_value(tsl_analyzer *an, const tsl_var *v) {
  tsla_binding *b = find_binding(an, v);
  return b ? b->value : NULL;
}

void tsla_enter(tsl_analyzer *an, tsl_arena *out) {
  if (an->nest++ == 0) {
    if (!an->scratch)
      an->scratch = tsl_arena_new(an->ctx);
    an->out = out ? out : an->scratch;
    an->failed = 0;
    an->depth = 0;
    an->budget = TSLA_BUDGET;
  }
}

void tsla_leave(tsl_analyzer *an) {
  if (--an->nest == 0) {
    an->out = NULL;
    /* keep a small scratch arena for the next call, drop a big one */
    if (an->scratch && tsl_arena_bytes(an->scratch) > 256 * 1024) {
      tsl_arena_free(an->scratch);
      an->scratch = NULL;
    }
  }
}

void tsl_analyzer_bind(tsl_analyzer *an, const tsl_var *v, const tsl_expr *min,
                       const tsl_expr *extent) {
  if (!an || !v || !min || !extent)
    return;
  tsla_enter(an, NULL);
  tsla_ival m = tsla_bound_expr(an, min, 0);
  tsla_ival x = tsla_bound_expr(an, extent, 0);
  tsla_leave(an);
  tsla_binding *b = get_binding(an, v);
  int64_t hi = TSLA_POS_INF;
  if (m.hi != TSLA_POS_INF && x.hi != TSLA_POS_INF)
    hi = tsla_sat_add(m.hi, tsla_sat_add(x.hi, -1));
  b->has_range = 0;
  if (m.lo == TSLA_NEG_INF && hi == TSLA_POS_INF)
    return;
  if (m.lo != TSLA_NEG_INF && hi != TSLA_POS_INF && hi < m.lo)
    return; /* empty range: the variable never takes a value */
  b->has_range = 1;
  b->range.lo = m.lo;
  b->range.hi = hi;
}

void tsl_analyzer_bind_value(tsl_analyzer *an, const tsl_var *v,
                             const tsl_expr *value) {
  if (!an || !v)
    return;
  get_binding(an, v)->value = value;
}

void tsl_analyzer_unbind(tsl_analyzer *an, const tsl_var *v) {
  if (!an || !v)
    return;
  tsla_binding *b = find_binding(an, v);
  if (b) {
    b->has_range = 0;
    b->value = NULL;
  }
}

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

static const tsl_expr *from(tsl_analyzer *an, const tsla_poly *p) {
  return tsla_poly_to_expr(an->out, p);
}

static const tsl_expr *cint(tsl_analyzer *an, tsl_dtype t, int64_t v) {
  return tsl_expr_int(an->out, t, tsla_wrap(t, v));
}

static int is_const(const tsl_expr *e, int64_t *v) {
  if (e->kind != TSL_EXPR_INT_IMM || e->dtype.lanes != 1)
    return 0;
  *v = e->u.int_value;
  return 1;
}

static const tsl_expr *bin(tsl_analyzer *an, tsl_expr_kind k, const tsl_expr *a,
                           const tsl_expr *b) {
  return tsl_expr_binary(an->out, k, a, b);
}

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

/* ---- floordiv / floormod by a positive constant ---- */

static const tsla_poly *floordiv_c(tsl_analyzer *an, const tsla_poly *x,
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

static const tsla_poly *poly_div_exact(tsl_analyzer *an, const tsla_poly *p,
                                       int64_t g);

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
    *y = poly_div_exact(an, tsla_poly_make(S, O, r->dt, 0, ny, yt), g);
    *z = zp;
    return 1;
  }
  return 0;
}

static const tsla_poly *poly_div_exact(tsl_analyzer *an, const tsla_poly *p,
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

static int single_atom(const tsla_poly *p, tsl_expr_kind kind, int64_t *k,
                       int64_t *divisor) {
  if (p->n != 1 || p->t[0].n_atoms != 1)
    return 0;
  const tsl_expr *a = p->t[0].atoms[0];
  if (a->kind != kind || !is_const(a->args[1], divisor) || *divisor <= 0)
    return 0;
  *k = p->t[0].coef;
  return 1;
}

static const tsla_poly *floordiv_c(tsl_analyzer *an, const tsla_poly *x,
                                   int64_t c, int level) {
  int64_t k, a, prod, off;
  if (c == 1)
    return x;
  if (tsla_poly_is_const(x, &k))
    return tsla_poly_const(S, x->dt, tsla_floordiv(k, c));
  /* floordiv(floordiv(y, a) + k, c) = floordiv(y + k*a, a*c) */
  if (level < 8 && single_atom(x, TSL_EXPR_FLOORDIV, &k, &a) && k == 1 &&
      !__builtin_mul_overflow(a, c, &prod) &&
      !__builtin_mul_overflow(x->c, a, &off) &&
      tsla_wrap(x->dt, prod) == prod && tsla_wrap(x->dt, off) == off) {
    const tsla_poly *y = tsla_poly_of_simplified(an, x->t[0].atoms[0]->args[0]);
    y = tsla_poly_add(S, O, y, tsla_poly_const(S, x->dt, off), 1);
    return floordiv_c(an, y, prod, level + 1);
  }
  const tsla_poly *q, *r;
  split(an, x, c, &q, &r);
  tsla_ival b = tsla_bound_poly(an, r, 0);
  if (b.lo != TSLA_NEG_INF && b.hi != TSLA_POS_INF &&
      tsla_floordiv(b.lo, c) == tsla_floordiv(b.hi, c))
    return tsla_poly_add(S, O, q,
                         tsla_poly_const(S, x->dt, tsla_floordiv(b.lo, c)), 1);
  /* floordiv(g*Y + Z, g*m) = floordiv(Y, m) when 0 <= Z < g */
  int64_t g;
  const tsla_poly *y, *z;
  if (lower_split(an, r, c, &g, &y, &z)) {
    r = y;
    c /= g;
  } else if ((g = poly_gcd(r, c)) > 1) { /* floordiv(g*Y, g*m) = floordiv(Y, m) */
    r = poly_div_exact(an, r, g);
    c /= g;
  }
  if (c == 1)
    return tsla_poly_add(S, O, q, r, 1);
  const tsl_expr *atom = bin(an, TSL_EXPR_FLOORDIV, from(an, r), cint(an, x->dt, c));
  return tsla_poly_add(S, O, q, tsla_poly_atom(S, x->dt, atom), 1);
}

static const tsla_poly *floormod_c(tsl_analyzer *an, const tsla_poly *x,
                                   int64_t c) {
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
          !is_const(t->atoms[0]->args[1], &m) || m <= 0 ||
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
    r = poly_div_exact(an, r, g);
    c /= g;
  } else {
    g = 1;
  }
  if (c == 1)
    return z;
  const tsl_expr *atom = bin(an, TSL_EXPR_FLOORMOD, from(an, r), cint(an, x->dt, c));
  return tsla_poly_add(S, O, z, tsla_poly_atom(S, x->dt, atom), g);
}

/* c*floordiv(X, c)*k + floormod(X, c)*k  ->  X*k */
static const tsla_poly *recombine(tsl_analyzer *an, const tsla_poly *p) {
  for (int round = 0; round < 8 && p->n >= 2; round++) {
    int changed = 0;
    for (uint32_t i = 0; i < p->n && !changed; i++) {
      const tsla_term *ti = &p->t[i];
      int64_t c;
      if (ti->n_atoms != 1 || ti->atoms[0]->kind != TSL_EXPR_FLOORMOD ||
          !is_const(ti->atoms[0]->args[1], &c) || c <= 0)
        continue;
      const tsl_expr *xm = ti->atoms[0]->args[0];
      int64_t want = tsla_wrap(p->dt, (int64_t)((uint64_t)ti->coef * (uint64_t)c));
      for (uint32_t j = 0; j < p->n; j++) {
        const tsla_term *tj = &p->t[j];
        int64_t c2;
        if (j == i || tj->n_atoms != 1 || tj->atoms[0]->kind != TSL_EXPR_FLOORDIV ||
            !is_const(tj->atoms[0]->args[1], &c2) || c2 != c ||
            tj->coef != want || !tsla_expr_same(tj->atoms[0]->args[0], xm))
          continue;
        tsla_term *rest = TSL_NEW_ARRAY(S, tsla_term, p->n);
        uint32_t n = 0;
        for (uint32_t k = 0; k < p->n; k++)
          if (k != i && k != j)
            rest[n++] = p->t[k];
        const tsla_poly *q = tsla_poly_make(S, O, p->dt, p->c, n, rest);
        p = tsla_poly_add(S, O, q, tsla_poly_of_simplified(an, xm), ti->coef);
        changed = 1;
        break;
      }
    }
    /* a*floordiv(X, c) + (a/c)*X... -> -(a/c)*floormod(X, c) when that
     * leaves fewer terms (x - x//4*4 -> x % 4) */
    for (uint32_t i = 0; i < p->n && !changed; i++) {
      const tsla_term *ti = &p->t[i];
      int64_t c, a = ti->coef;
      if (ti->n_atoms != 1 || ti->atoms[0]->kind != TSL_EXPR_FLOORDIV ||
          !is_const(ti->atoms[0]->args[1], &c) || c <= 1 || a % c != 0)
        continue;
      const tsl_expr *xd = ti->atoms[0]->args[0];
      const tsla_poly *px = tsla_poly_of_simplified(an, xd);
      const tsl_expr *fm = bin(an, TSL_EXPR_FLOORMOD, xd, ti->atoms[0]->args[1]);
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
      return is_div ? floordiv_c(an, pa, c, 0) : floormod_c(an, pa, c);
  }
  const tsl_expr *atom = bin(an, k, from(an, pa), from(an, pb));
  return tsla_poly_atom(S, dt, atom);
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
  const tsl_expr *a = from(an, pa), *b = from(an, pb);
  if (tsla_cmp_expr(O, a, b) > 0) {
    const tsl_expr *t = a;
    a = b;
    b = t;
  }
  return tsla_poly_atom(S, dt, bin(an, (tsl_expr_kind)e->kind, a, b));
}

static const tsl_expr *fold_cast(tsl_analyzer *an, tsl_dtype t,
                                 const tsl_expr *x) {
  int64_t v;
  if (t.lanes == 1 && is_const(x, &v) &&
      (tsl_dtype_is_int(x->dtype) || tsl_dtype_is_bool(x->dtype))) {
    if (tsl_dtype_is_bool(t))
      return tsl_expr_bool(an->out, v != 0);
    if (tsl_dtype_is_int(t))
      return cint(an, t, v);
  }
  if (tsl_dtype_eq(x->dtype, t))
    return x;
  return NULL;
}

static const tsla_poly *to_poly_inner(tsl_analyzer *an, const tsl_expr *e,
                                      tsl_dtype dt) {
  int64_t v;
  if (!tsl_dtype_eq(e->dtype, dt)) {
    if (is_const(e, &v))
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
    return recombine(an, tsla_poly_add(S, O, a, b,
                                       e->kind == TSL_EXPR_ADD ? 1 : -1));
  }
  case TSL_EXPR_MUL: {
    const tsla_poly *a = tsla_to_poly(an, e->args[0], dt);
    const tsla_poly *b = tsla_to_poly(an, e->args[1], dt);
    const tsla_poly *p = tsla_poly_mul(S, O, a, b);
    if (p)
      return recombine(an, p);
    const tsl_expr *x = from(an, a), *y = from(an, b);
    if (tsla_cmp_expr(O, x, y) > 0) {
      const tsl_expr *t = x;
      x = y;
      y = t;
    }
    return tsla_poly_atom(S, dt, bin(an, TSL_EXPR_MUL, x, y));
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
    if (is_const(c, &v))
      return tsla_to_poly(an, e->args[v ? 1 : 2], dt);
    const tsla_poly *t = tsla_to_poly(an, e->args[1], dt);
    const tsla_poly *f = tsla_to_poly(an, e->args[2], dt);
    if (poly_same(t, f))
      return t;
    const tsl_expr *args[3] = {c, from(an, t), from(an, f)};
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
      const tsl_expr *arg = from(an, a);
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
  const tsla_poly *p = to_poly_inner(an, e, dt);
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
        d = poly_div_exact(an, d, g);
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
  return bin(an, op, from(an, lhs), from(an, rhs));
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
    if (is_const(x, &v))
      return tsl_expr_bool(an->out, !v);
    if (x->kind == TSL_EXPR_NOT)
      return x->args[0];
    if (is_cmp((tsl_expr_kind)x->kind) && tsla_is_sint(x->args[0]->dtype))
      return tsla_simp(an, bin(an, negate_cmp((tsl_expr_kind)x->kind),
                               x->args[0], x->args[1]));
    return x == e->args[0] ? e : tsl_expr_unary(an->out, TSL_EXPR_NOT, x);
  }
  int is_and = e->kind == TSL_EXPR_AND;
  const tsl_expr *a = tsla_simp(an, e->args[0]);
  if (is_const(a, &v) && tsl_dtype_is_bool(a->dtype)) {
    if (is_and ? !v : v)
      return tsl_expr_bool(an->out, v != 0);
    return tsla_simp(an, e->args[1]);
  }
  const tsl_expr *b = tsla_simp(an, e->args[1]);
  if (is_const(b, &v) && tsl_dtype_is_bool(b->dtype))
    return (is_and ? !v : v) ? tsl_expr_bool(an->out, v != 0) : a;
  if (tsla_expr_same(a, b))
    return a;
  if (a == e->args[0] && b == e->args[1])
    return e;
  return bin(an, (tsl_expr_kind)e->kind, a, b);
}

/* Constant folding for unsigned integer arithmetic (no canonical form). */
static const tsl_expr *simp_uint(tsl_analyzer *an, const tsl_expr *e) {
  const tsl_expr *x = simp_args(an, e);
  int64_t a, b;
  if (x->n_args != 2 || !is_const(x->args[0], &a) || !is_const(x->args[1], &b))
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
  return cint(an, x->dtype, (int64_t)r);
}

static const tsl_expr *simp_inner(tsl_analyzer *an, const tsl_expr *e) {
  int64_t v;
  tsl_expr_kind k = (tsl_expr_kind)e->kind;
  if (tsla_is_sint(e->dtype)) {
    if (k == TSL_EXPR_INT_IMM)
      return e;
    if (k == TSL_EXPR_VAR && !tsla_analyzer_var_value(an, e->u.var))
      return e;
    const tsl_expr *r = from(an, tsla_to_poly(an, e, e->dtype));
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
    if (is_const(c, &v) && e->dtype.lanes == 1)
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
  if (!an || !arena || !e)
    return e;
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

int tsl_analyzer_can_prove(tsl_analyzer *an, const tsl_expr *cond) {
  if (!an || !cond)
    return 0;
  tsla_enter(an, NULL);
  const tsl_expr *r = tsla_simp(an, cond);
  int64_t v;
  int ok = !an->failed && is_const(r, &v) && v != 0;
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
    const tsla_poly *d = psub(an, tsla_to_poly(an, a, a->dtype),
                              tsla_to_poly(an, b, b->dtype));
    int64_t c;
    eq = !an->failed && tsla_poly_is_const(d, &c) && c == 0;
  } else if (tsla_is_sint(a->dtype) && tsla_is_sint(b->dtype)) {
    int64_t x, y;
    const tsl_expr *sa = tsla_simp(an, a), *sb = tsla_simp(an, b);
    eq = !an->failed && is_const(sa, &x) && is_const(sb, &y) && x == y;
  } else {
    const tsl_expr *sa = tsla_simp(an, a), *sb = tsla_simp(an, b);
    eq = !an->failed && tsla_expr_same(sa, sb);
  }
  tsla_leave(an);
  return eq;
}
