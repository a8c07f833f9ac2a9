/*
 * Constant interval bounds of integer expressions and polynomials under an
 * analyzer's variable bindings. Sound over-approximations with saturating
 * arithmetic (INT64_MIN/INT64_MAX stand for -inf/+inf); signed integer
 * arithmetic is assumed not to overflow, as in index expressions.
 */
#include "analysis_internal.h"

static const tsla_ival UNKNOWN = {TSLA_NEG_INF, TSLA_POS_INF};

static tsla_ival ival(int64_t lo, int64_t hi) {
  /* a finite extreme value must not be mistaken for an infinity */
  if (lo == TSLA_POS_INF)
    lo = TSLA_NEG_INF;
  if (hi == TSLA_NEG_INF)
    hi = TSLA_POS_INF;
  tsla_ival r = {lo, hi};
  return r;
}

static int is_inf(int64_t x) { return x == TSLA_NEG_INF || x == TSLA_POS_INF; }

/* What the type alone says. Narrow types (up to 16 bits) give their range;
 * int32/int64 values of unknown origin stay unbounded, so that an unbound
 * index variable is reported as such rather than as +-2^31. */
static tsla_ival dtype_range(tsl_dtype t) {
  if (tsl_dtype_is_bool(t))
    return ival(0, 1);
  if (t.lanes != 1)
    return UNKNOWN;
  if (t.code == TSL_DT_INT && t.bits >= 2 && t.bits <= 16)
    return ival(-(INT64_C(1) << (t.bits - 1)), (INT64_C(1) << (t.bits - 1)) - 1);
  if (t.code == TSL_DT_UINT && t.bits >= 2 && t.bits <= 16)
    return ival(0, (INT64_C(1) << t.bits) - 1);
  if (t.code == TSL_DT_UINT && t.bits >= 2)
    return ival(0, TSLA_POS_INF);
  return UNKNOWN;
}

static int64_t neg_b(int64_t x) {
  if (x == TSLA_NEG_INF)
    return TSLA_POS_INF;
  if (x == TSLA_POS_INF)
    return TSLA_NEG_INF;
  return -x;
}

static tsla_ival iv_add(tsla_ival a, tsla_ival b) {
  return ival(tsla_sat_add(a.lo, b.lo), tsla_sat_add(a.hi, b.hi));
}

static tsla_ival iv_neg(tsla_ival a) { return ival(neg_b(a.hi), neg_b(a.lo)); }

static tsla_ival iv_mul(tsla_ival a, tsla_ival b) {
  int64_t p[4] = {tsla_sat_mul(a.lo, b.lo), tsla_sat_mul(a.lo, b.hi),
                  tsla_sat_mul(a.hi, b.lo), tsla_sat_mul(a.hi, b.hi)};
  int64_t lo = p[0], hi = p[0];
  for (int i = 1; i < 4; i++) {
    lo = p[i] < lo ? p[i] : lo;
    hi = p[i] > hi ? p[i] : hi;
  }
  return ival(lo, hi);
}

static int64_t fdiv_b(int64_t x, int64_t c) { /* c > 0 */
  return is_inf(x) ? x : tsla_floordiv(x, c);
}

static int64_t tdiv_b(int64_t x, int64_t c) { /* c > 0 */
  return is_inf(x) ? x : x / c;
}

/* floor(x / c) for a constant c != 0 */
static tsla_ival iv_floordiv_c(tsla_ival a, int64_t c) {
  if (c < 0) {
    if (c == INT64_MIN)
      return UNKNOWN;
    a = iv_neg(a);
    c = -c;
  }
  return ival(fdiv_b(a.lo, c), fdiv_b(a.hi, c));
}

static tsla_ival iv_floormod_c(tsla_ival a, int64_t c) {
  if (c > 0) {
    if (!is_inf(a.lo) && !is_inf(a.hi)) {
      int64_t q = tsla_floordiv(a.lo, c);
      if (q == tsla_floordiv(a.hi, c))
        return ival(a.lo - q * c, a.hi - q * c);
    }
    return ival(0, c - 1);
  }
  if (c == INT64_MIN)
    return UNKNOWN;
  return ival(c + 1, 0);
}

static tsla_ival iv_truncdiv_c(tsla_ival a, int64_t c) {
  if (c > 0)
    return ival(tdiv_b(a.lo, c), tdiv_b(a.hi, c));
  if (c == INT64_MIN)
    return UNKNOWN;
  tsla_ival r = ival(tdiv_b(a.lo, -c), tdiv_b(a.hi, -c));
  return iv_neg(r);
}

static tsla_ival iv_truncmod_c(tsla_ival a, int64_t c) {
  if (c == INT64_MIN)
    return UNKNOWN;
  int64_t m = (c < 0 ? -c : c) - 1;
  if (a.lo >= 0 && !is_inf(a.lo))
    return ival(0, a.hi < m ? a.hi : m);
  if (a.hi <= 0 && !is_inf(a.hi))
    return ival(a.lo > -m ? a.lo : -m, 0);
  return ival(-m, m);
}

static tsla_ival iv_union(tsla_ival a, tsla_ival b) {
  return ival(a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
}

static tsla_ival iv_meet(tsla_ival a, tsla_ival b) {
  return ival(a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi);
}

/* A divisor's range with TVM's assumption that a valid program never
 * divides by zero: a range starting at 0 starts at 1. */
static tsla_ival no_zero_divisor(tsla_ival d) {
  if (d.lo == 0 && d.hi >= 1)
    d.lo = 1;
  return d;
}

/* x / y rounded down (floor) or toward zero, y > 0, either may be
 * infinite (an infinite x keeps its sign; x / +inf is 0, or -1 for a
 * negative x rounded down) */
static int64_t div_end(int64_t x, int64_t y, int floor) {
  if (is_inf(x))
    return x;
  if (y == TSLA_POS_INF)
    return floor && x < 0 ? -1 : 0;
  return floor ? tsla_floordiv(x, y) : x / y;
}

/* floor or trunc division by a non-constant divisor range */
static tsla_ival iv_div_range(tsla_ival a, tsla_ival d, int floor) {
  d = no_zero_divisor(d);
  if (d.lo > 0) {
    int64_t c[4] = {div_end(a.lo, d.lo, floor), div_end(a.lo, d.hi, floor),
                    div_end(a.hi, d.lo, floor), div_end(a.hi, d.hi, floor)};
    int64_t lo = c[0], hi = c[0];
    for (int i = 1; i < 4; i++) {
      lo = c[i] < lo ? c[i] : lo;
      hi = c[i] > hi ? c[i] : hi;
    }
    return ival(lo, hi);
  }
  if (is_inf(a.lo) || is_inf(a.hi) || is_inf(d.lo) || is_inf(d.hi))
    return UNKNOWN;
  if (d.lo <= 0 && d.hi >= 0)
    return UNKNOWN;
  int64_t xs[2] = {a.lo, a.hi}, ds[2] = {d.lo, d.hi};
  int64_t lo = TSLA_POS_INF, hi = TSLA_NEG_INF;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      if (ds[j] == -1 && xs[i] == INT64_MIN)
        return UNKNOWN;
      int64_t q = floor ? tsla_floordiv(xs[i], ds[j]) : xs[i] / ds[j];
      lo = q < lo ? q : lo;
      hi = q > hi ? q : hi;
    }
  return ival(lo, hi);
}

tsla_ival tsla_bound_expr(tsl_analyzer *an, const tsl_expr *e, int depth) {
  int64_t v;
  if (e->kind == TSL_EXPR_INT_IMM)
    return ival(e->u.int_value, e->u.int_value);
  tsla_ival dr = dtype_range(e->dtype);
  if (depth > TSLA_BOUND_DEPTH || an->budget-- <= 0)
    return dr;
  if (e->kind == TSL_EXPR_VAR) {
    tsla_ival r = dr;
    tsla_ival b;
    if (tsla_analyzer_var_range(an, e->u.var, &b))
      r = iv_meet(r, b);
    const tsl_expr *val = tsla_analyzer_var_value(an, e->u.var);
    if (val && tsl_dtype_eq(val->dtype, e->dtype))
      r = iv_meet(r, tsla_bound_expr(an, val, depth + 1));
    if (r.lo > r.hi && !is_inf(r.lo) && !is_inf(r.hi))
      return dr; /* contradictory bindings: claim nothing */
    return r;
  }
  if (tsl_dtype_is_bool(e->dtype))
    return ival(0, 1);
  if (!tsla_is_sint(e->dtype)) {
    if (e->kind == TSL_EXPR_CAST && e->dtype.lanes == 1 &&
        tsl_dtype_is_int(e->dtype) && tsla_is_sint(e->args[0]->dtype)) {
      tsla_ival r = tsla_bound_expr(an, e->args[0], depth + 1);
      if (r.lo >= dr.lo && r.hi <= dr.hi && !is_inf(r.lo) && !is_inf(r.hi))
        return r;
    }
    return dr;
  }
  const tsl_expr *const *x = e->args;
#define B(i) tsla_bound_expr(an, x[i], depth + 1)
  tsla_ival r;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_ADD:
    r = iv_add(B(0), B(1));
    break;
  case TSL_EXPR_SUB:
    r = iv_add(B(0), iv_neg(B(1)));
    break;
  case TSL_EXPR_MUL:
    r = iv_mul(B(0), B(1));
    break;
  case TSL_EXPR_NEG:
    r = iv_neg(B(0));
    break;
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_DIV:
    if (tsl_expr_is_const_int(x[1], &v)) {
      if (v == 0)
        return dr;
      r = e->kind == TSL_EXPR_FLOORDIV ? iv_floordiv_c(B(0), v)
                                       : iv_truncdiv_c(B(0), v);
    } else {
      r = iv_div_range(B(0), B(1), e->kind == TSL_EXPR_FLOORDIV);
    }
    break;
  case TSL_EXPR_FLOORMOD:
  case TSL_EXPR_MOD:
    if (tsl_expr_is_const_int(x[1], &v)) {
      if (v == 0)
        return dr;
      r = e->kind == TSL_EXPR_FLOORMOD ? iv_floormod_c(B(0), v)
                                       : iv_truncmod_c(B(0), v);
    } else {
      tsla_ival d = no_zero_divisor(B(1));
      if (d.lo > 0) {
        tsla_ival a = B(0);
        int64_t cap = is_inf(d.hi) ? TSLA_POS_INF : d.hi - 1;
        if (e->kind == TSL_EXPR_FLOORMOD || (a.lo >= 0 && !is_inf(a.lo)))
          r = ival(0, cap);
        else
          r = ival(is_inf(cap) ? TSLA_NEG_INF : -cap, cap);
        if (a.lo >= 0 && !is_inf(a.lo) && a.hi < cap)
          r.hi = a.hi;
      } else {
        return dr;
      }
    }
    break;
  case TSL_EXPR_MIN: {
    tsla_ival a = B(0), b = B(1);
    r = ival(a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi);
    break;
  }
  case TSL_EXPR_MAX: {
    tsla_ival a = B(0), b = B(1);
    r = ival(a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
    break;
  }
  case TSL_EXPR_SELECT:
  case TSL_EXPR_IF_THEN_ELSE:
    r = iv_union(B(1), B(2));
    break;
  case TSL_EXPR_CAST: {
    const tsl_expr *in = x[0];
    if (tsl_dtype_is_bool(in->dtype))
      return ival(0, 1);
    if (in->dtype.lanes == 1 && tsl_dtype_is_int(in->dtype)) {
      r = tsla_bound_expr(an, in, depth + 1);
      if (!is_inf(r.lo) && !is_inf(r.hi) && r.lo >= dr.lo && r.hi <= dr.hi)
        return r;
    }
    return dr;
  }
  case TSL_EXPR_CALL:
    if (e->intrin == TSL_INTRIN_ABS && e->n_args == 1) {
      tsla_ival a = B(0);
      if (a.lo >= 0 && !is_inf(a.lo))
        r = a;
      else if (a.hi <= 0 && !is_inf(a.hi))
        r = iv_neg(a);
      else
        r = ival(0, neg_b(a.lo) > a.hi ? neg_b(a.lo) : a.hi);
      break;
    }
    return dr;
  default:
    return dr;
  }
#undef B
  /* the value lies in the dtype's range; keep the tighter side when sane */
  if (r.lo > r.hi)
    return dr;
  return r;
}

/* The divisor of a term a * (X // c) with c a positive constant, else 0. */
static int64_t floordiv_term(const tsla_term *t) {
  int64_t c;
  if (t->n_atoms != 1 || t->atoms[0]->kind != TSL_EXPR_FLOORDIV ||
      !tsla_is_const(t->atoms[0]->args[1], &c) || c <= 0 || c > (INT64_C(1) << 40))
    return 0;
  return c;
}

/* a * (X // c) - a * (Y // c) where X - Y lies in [klo, khi]: floor
 * division is monotonic, so X // c - Y // c lies in [floor(klo / c),
 * floor((khi + c - 1) / c)] (TVM proves min(x // c, (x + 1) // c) = x // c
 * by its rewrite rules; the two terms bounded one by one would not). */
static int pair_bound(tsl_analyzer *an, const tsla_term *ti, const tsla_term *tj, int64_t c,
                      int depth, tsla_ival *out) {
  if (tj->coef != -ti->coef || floordiv_term(tj) != c || depth > 4)
    return 0;
  const tsla_poly *x = tsla_poly_of_simplified(an, ti->atoms[0]->args[0]);
  const tsla_poly *y = tsla_poly_of_simplified(an, tj->atoms[0]->args[0]);
  const tsla_poly *d = tsla_poly_add(an->scratch, &an->order, x, y, -1);
  if (!d)
    return 0;
  tsla_ival k = tsla_bound_poly(an, d, depth + 1);
  if (is_inf(k.lo) || is_inf(k.hi) || k.lo < -(INT64_C(1) << 40) || k.hi > (INT64_C(1) << 40))
    return 0;
  int64_t lo = k.lo >= 0 ? k.lo / c : -((-k.lo + c - 1) / c);
  int64_t hi = k.hi + c - 1 >= 0 ? (k.hi + c - 1) / c : -((-(k.hi + c - 1) + c - 1) / c);
  *out = iv_mul(ival(lo, hi), ival(ti->coef, ti->coef));
  return 1;
}

tsla_ival tsla_bound_poly(tsl_analyzer *an, const tsla_poly *p, int depth) {
  tsla_ival r = ival(p->c, p->c);
  uint8_t paired[TSLA_MAX_TERMS] = {0};
  for (uint32_t i = 0; i < p->n && i < TSLA_MAX_TERMS; i++) {
    int64_t c = paired[i] ? 0 : floordiv_term(&p->t[i]);
    for (uint32_t j = i + 1; c && j < p->n && j < TSLA_MAX_TERMS; j++) {
      tsla_ival b;
      if (!paired[j] && pair_bound(an, &p->t[i], &p->t[j], c, depth, &b)) {
        r = iv_add(r, b);
        paired[i] = paired[j] = 1;
        break;
      }
    }
  }
  for (uint32_t i = 0; i < p->n; i++) {
    if (i < TSLA_MAX_TERMS && paired[i])
      continue;
    const tsla_term *t = &p->t[i];
    tsla_ival m = tsla_bound_expr(an, t->atoms[0], depth + 1);
    for (uint32_t k = 1; k < t->n_atoms; k++)
      m = iv_mul(m, tsla_bound_expr(an, t->atoms[k], depth + 1));
    r = iv_add(r, iv_mul(m, ival(t->coef, t->coef)));
  }
  return r;
}
