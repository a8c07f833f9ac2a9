/*
 * Canonical integer forms: the term order, exact integer helpers, and
 * polynomials (constant + sum of coefficient x monomial) with like terms
 * merged and a deterministic order that never depends on addresses or ids.
 */
#include "analysis_internal.h"

#include <string.h>

/* ---- integer helpers ---- */

int tsla_is_sint(tsl_dtype t) {
  return t.code == TSL_DT_INT && t.lanes == 1 && t.bits >= 8 && t.bits <= 64;
}

int64_t tsla_wrap(tsl_dtype t, int64_t v) {
  if (t.bits >= 64 || t.bits == 0)
    return v;
  uint64_t mask = (1ULL << t.bits) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (t.code == TSL_DT_INT && (u >> (t.bits - 1)) & 1)
    u |= ~mask;
  return (int64_t)u;
}

int64_t tsla_floordiv(int64_t a, int64_t b) {
  if (b == -1)
    return (int64_t)(0 - (uint64_t)a); /* wraps for INT64_MIN */
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

int64_t tsla_floormod(int64_t a, int64_t b) {
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

int64_t tsla_gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > (uint64_t)INT64_MAX ? 0 : (int64_t)x;
}

int64_t tsla_sat_add(int64_t a, int64_t b) {
  if (a == TSLA_NEG_INF || b == TSLA_NEG_INF)
    return (a == TSLA_POS_INF || b == TSLA_POS_INF) ? 0 : TSLA_NEG_INF;
  if (a == TSLA_POS_INF || b == TSLA_POS_INF)
    return TSLA_POS_INF;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return a > 0 ? TSLA_POS_INF : TSLA_NEG_INF;
  return r;
}

int64_t tsla_sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  int neg = (a < 0) != (b < 0);
  if (a == TSLA_NEG_INF || a == TSLA_POS_INF || b == TSLA_NEG_INF ||
      b == TSLA_POS_INF)
    return neg ? TSLA_NEG_INF : TSLA_POS_INF;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return neg ? TSLA_NEG_INF : TSLA_POS_INF;
  return r;
}

/* ---- term order and identity ---- */

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int cmp_str(const char *a, const char *b) {
  if (a == b)
    return 0;
  if (!a)
    return -1;
  if (!b)
    return 1;
  return strcmp(a, b);
}

static int cmp_dtype(tsl_dtype a, tsl_dtype b) {
  if (a.code != b.code)
    return cmp_i64(a.code, b.code);
  if (a.bits != b.bits)
    return cmp_i64(a.bits, b.bits);
  return cmp_i64(a.lanes, b.lanes);
}

static int cmp_var(const tsla_order *o, const tsl_var *a, const tsl_var *b) {
  if (a == b)
    return 0;
  int64_t ra = o && o->var_rank ? o->var_rank(a, o->user_data) : -1;
  int64_t rb = o && o->var_rank ? o->var_rank(b, o->user_data) : -1;
  if (ra >= 0 && rb >= 0)
    return cmp_i64(ra, rb);
  if (ra >= 0 || rb >= 0)
    return ra >= 0 ? -1 : 1;
  int c = cmp_str(a->name, b->name);
  return c ? c : cmp_dtype(a->dtype, b->dtype);
}

static int cmp_buf(const tsla_order *o, const tsl_buffer *a,
                   const tsl_buffer *b) {
  if (a == b)
    return 0;
  int64_t ra = o && o->buf_rank ? o->buf_rank(a, o->user_data) : -1;
  int64_t rb = o && o->buf_rank ? o->buf_rank(b, o->user_data) : -1;
  if (ra >= 0 && rb >= 0)
    return cmp_i64(ra, rb);
  if (ra >= 0 || rb >= 0)
    return ra >= 0 ? -1 : 1;
  int c = cmp_str(a->name, b->name);
  if (c)
    return c;
  c = cmp_dtype(a->dtype, b->dtype);
  return c ? c : cmp_i64(a->ndim, b->ndim);
}

enum { CMP_MAX_DEPTH = 512 };

/* Beyond CMP_MAX_DEPTH nested operands, deeper structure is ignored: keys
 * tie (order then follows appearance) and identity is denied (no merge);
 * both are safe. */
static int cmp_expr_d(const tsla_order *o, const tsl_expr *a,
                      const tsl_expr *b, int depth) {
  for (; a != b; depth++) {
    if (depth > CMP_MAX_DEPTH)
      return 0;
    int va = a->kind == TSL_EXPR_VAR, vb = b->kind == TSL_EXPR_VAR;
    if (va && vb)
      return cmp_var(o, a->u.var, b->u.var);
    if (va != vb)
      return va ? -1 : 1;
    if (a->kind != b->kind)
      return cmp_i64(a->kind, b->kind);
    int c = cmp_dtype(a->dtype, b->dtype);
    if (c)
      return c;
    switch ((tsl_expr_kind)a->kind) {
    case TSL_EXPR_INT_IMM:
      return cmp_i64(a->u.int_value, b->u.int_value);
    case TSL_EXPR_FLOAT_IMM: {
      int64_t x, y;
      memcpy(&x, &a->u.float_value, 8);
      memcpy(&y, &b->u.float_value, 8);
      return cmp_i64(x, y);
    }
    case TSL_EXPR_STR_IMM:
      return cmp_str(a->u.str_value, b->u.str_value);
    case TSL_EXPR_CALL_EXTERN:
      c = cmp_str(a->u.str_value, b->u.str_value);
      break;
    case TSL_EXPR_LOAD:
    case TSL_EXPR_BUFFER_DATA:
      c = cmp_buf(o, a->u.buffer, b->u.buffer);
      break;
    case TSL_EXPR_CALL:
    case TSL_EXPR_BUILTIN:
      c = cmp_i64(a->intrin, b->intrin);
      break;
    default:
      break;
    }
    if (c)
      return c;
    if (a->n_args != b->n_args)
      return cmp_i64(a->n_args, b->n_args);
    if (a->n_args == 0)
      return 0;
    for (uint32_t i = 0; i + 1 < a->n_args; i++)
      if ((c = cmp_expr_d(o, a->args[i], b->args[i], depth + 1)))
        return c;
    a = a->args[a->n_args - 1];
    b = b->args[b->n_args - 1];
  }
  return 0;
}

int tsla_cmp_expr(const tsla_order *o, const tsl_expr *a, const tsl_expr *b) {
  return cmp_expr_d(o, a, b, 0);
}

static int expr_same_d(const tsl_expr *a, const tsl_expr *b, int depth) {
  for (; a != b; depth++) {
    if (depth > CMP_MAX_DEPTH)
      return 0;
    if (a->kind != b->kind || !tsl_dtype_eq(a->dtype, b->dtype) ||
        a->n_args != b->n_args || a->intrin != b->intrin)
      return 0;
    switch ((tsl_expr_kind)a->kind) {
    case TSL_EXPR_INT_IMM:
      return a->u.int_value == b->u.int_value;
    case TSL_EXPR_FLOAT_IMM:
      return memcmp(&a->u.float_value, &b->u.float_value, 8) == 0;
    case TSL_EXPR_VAR:
      return a->u.var == b->u.var;
    case TSL_EXPR_STR_IMM:
      return cmp_str(a->u.str_value, b->u.str_value) == 0;
    case TSL_EXPR_CALL_EXTERN:
      if (cmp_str(a->u.str_value, b->u.str_value))
        return 0;
      break;
    case TSL_EXPR_LOAD:
      if (a->u.buffer != b->u.buffer)
        return 0;
      break;
    case TSL_EXPR_BUFFER_DATA:
      return a->u.buffer == b->u.buffer;
    default:
      break;
    }
    if (a->n_args == 0)
      return 1;
    for (uint32_t i = 0; i + 1 < a->n_args; i++)
      if (!expr_same_d(a->args[i], b->args[i], depth + 1))
        return 0;
    a = a->args[a->n_args - 1];
    b = b->args[b->n_args - 1];
  }
  return 1;
}

int tsla_expr_same(const tsl_expr *a, const tsl_expr *b) {
  return expr_same_d(a, b, 0);
}

/* ---- polynomials ---- */

static int cmp_mono(const tsla_order *o, const tsla_term *x,
                    const tsla_term *y) {
  uint32_t n = x->n_atoms < y->n_atoms ? x->n_atoms : y->n_atoms;
  for (uint32_t i = 0; i < n; i++) {
    int c = tsla_cmp_expr(o, x->atoms[i], y->atoms[i]);
    if (c)
      return c;
  }
  return cmp_i64(x->n_atoms, y->n_atoms);
}

static int mono_same(const tsla_term *x, const tsla_term *y) {
  if (x->n_atoms != y->n_atoms)
    return 0;
  for (uint32_t i = 0; i < x->n_atoms; i++)
    if (!tsla_expr_same(x->atoms[i], y->atoms[i]))
      return 0;
  return 1;
}

static uint64_t mag(int64_t c) {
  return c < 0 ? 0 - (uint64_t)c : (uint64_t)c;
}

/* final order: larger |coef| first, then monomial key */
static int cmp_term(const tsla_order *o, const tsla_term *x,
                    const tsla_term *y) {
  uint64_t mx = mag(x->coef), my = mag(y->coef);
  if (mx != my)
    return mx > my ? -1 : 1;
  return cmp_mono(o, x, y);
}

typedef int (*term_cmp_fn)(const tsla_order *, const tsla_term *,
                           const tsla_term *);

/* stable merge sort */
static void sort_terms(const tsla_order *o, tsla_term *t, uint32_t n,
                       tsla_term *tmp, term_cmp_fn cmp) {
  if (n < 2)
    return;
  if (n <= 8) { /* insertion sort */
    for (uint32_t i = 1; i < n; i++) {
      tsla_term x = t[i];
      uint32_t j = i;
      while (j > 0 && cmp(o, &t[j - 1], &x) > 0) {
        t[j] = t[j - 1];
        j--;
      }
      t[j] = x;
    }
    return;
  }
  uint32_t h = n / 2;
  sort_terms(o, t, h, tmp, cmp);
  sort_terms(o, t + h, n - h, tmp, cmp);
  uint32_t i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] = cmp(o, &t[j], &t[i]) < 0 ? t[j++] : t[i++];
  while (i < h)
    tmp[k++] = t[i++];
  while (j < n)
    tmp[k++] = t[j++];
  memcpy(t, tmp, sizeof *t * n);
}

const tsla_poly *tsla_poly_const(tsl_arena *s, tsl_dtype dt, int64_t c) {
  tsla_poly *p = TSL_NEW(s, tsla_poly);
  p->dt = dt;
  p->c = tsla_wrap(dt, c);
  return p;
}

const tsla_poly *tsla_poly_atom(tsl_arena *s, tsl_dtype dt,
                                const tsl_expr *a) {
  tsla_poly *p = TSL_NEW(s, tsla_poly);
  tsla_term *t = TSL_NEW(s, tsla_term);
  const tsl_expr **atoms = TSL_NEW_ARRAY(s, const tsl_expr *, 1);
  atoms[0] = a;
  t->coef = 1;
  t->n_atoms = 1;
  t->atoms = atoms;
  p->dt = dt;
  p->n = 1;
  p->t = t;
  return p;
}

const tsla_poly *tsla_poly_make(tsl_arena *s, const tsla_order *o,
                                tsl_dtype dt, int64_t c, uint32_t n,
                                const tsla_term *terms) {
  tsla_poly *p = TSL_NEW(s, tsla_poly);
  p->dt = dt;
  p->c = tsla_wrap(dt, c);
  if (n == 0)
    return p;
  tsla_term *t = TSL_NEW_ARRAY(s, tsla_term, n);
  tsla_term *tmp = n > 8 ? TSL_NEW_ARRAY(s, tsla_term, n) : NULL; /* merge sort only */
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    int64_t k = tsla_wrap(dt, terms[i].coef);
    if (k == 0)
      continue;
    t[m] = terms[i];
    t[m++].coef = k;
  }
  sort_terms(o, t, m, tmp, cmp_mono);
  /* merge identical monomials; they sit in one run of equal keys */
  uint32_t out = 0;
  for (uint32_t i = 0; i < m; i++) {
    int merged = 0;
    for (uint32_t j = out; j-- > 0;) {
      if (cmp_mono(o, &t[j], &t[i]) != 0)
        break;
      if (mono_same(&t[j], &t[i])) {
        t[j].coef = tsla_wrap(dt, (int64_t)((uint64_t)t[j].coef +
                                            (uint64_t)t[i].coef));
        merged = 1;
        break;
      }
    }
    if (!merged)
      t[out++] = t[i];
  }
  uint32_t kept = 0;
  for (uint32_t i = 0; i < out; i++)
    if (t[i].coef != 0)
      t[kept++] = t[i];
  sort_terms(o, t, kept, tmp, cmp_term);
  p->n = kept;
  p->t = t;
  return p;
}

const tsla_poly *tsla_poly_add(tsl_arena *s, const tsla_order *o,
                               const tsla_poly *p, const tsla_poly *q,
                               int64_t k) {
  if (q->n == 0 && p->n == 0)
    return tsla_poly_const(s, p->dt,
                           (int64_t)((uint64_t)p->c + (uint64_t)k * (uint64_t)q->c));
  int64_t c = (int64_t)((uint64_t)p->c + (uint64_t)k * (uint64_t)q->c);
  if (tsl_dtype_eq(p->dt, q->dt) && (q->n == 0 || (p->n == 0 && k == 1))) { /* one side's terms */
    tsla_poly *r = TSL_NEW(s, tsla_poly);
    *r = q->n ? *q : *p;
    r->dt = p->dt;
    r->c = tsla_wrap(p->dt, c);
    return r;
  }
  uint32_t n = p->n + q->n;
  tsla_term *t = TSL_NEW_ARRAY(s, tsla_term, n ? n : 1);
  if (p->n)
    memcpy(t, p->t, sizeof *t * p->n);
  for (uint32_t i = 0; i < q->n; i++) {
    t[p->n + i] = q->t[i];
    t[p->n + i].coef = (int64_t)((uint64_t)q->t[i].coef * (uint64_t)k);
  }
  return tsla_poly_make(s, o, p->dt, c, n, t);
}

const tsla_poly *tsla_poly_scale(tsl_arena *s, const tsla_order *o,
                                 const tsla_poly *p, int64_t k) {
  if (k == 1)
    return p;
  tsla_poly z = {p->dt, 0, 0, NULL};
  return tsla_poly_add(s, o, &z, p, k);
}

static const tsl_expr **merge_atoms(tsl_arena *s, const tsla_order *o,
                                    const tsla_term *x, const tsla_term *y) {
  uint32_t n = x->n_atoms + y->n_atoms;
  const tsl_expr **a = TSL_NEW_ARRAY(s, const tsl_expr *, n);
  uint32_t i = 0, j = 0, k = 0;
  while (i < x->n_atoms && j < y->n_atoms)
    a[k++] = tsla_cmp_expr(o, y->atoms[j], x->atoms[i]) < 0 ? y->atoms[j++]
                                                            : x->atoms[i++];
  while (i < x->n_atoms)
    a[k++] = x->atoms[i++];
  while (j < y->n_atoms)
    a[k++] = y->atoms[j++];
  return a;
}

/* node count of e, stopping at `cap` */
static uint32_t expr_size(const tsl_expr *e, uint32_t cap) {
  uint32_t n = 1;
  for (uint32_t i = 0; i < e->n_args && n < cap; i++)
    n += expr_size(e->args[i], cap - n);
  return n;
}

static uint32_t poly_atom_size(const tsla_poly *p, uint32_t cap) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->n && n < cap; i++)
    for (uint32_t k = 0; k < p->t[i].n_atoms && n < cap; k++)
      n += expr_size(p->t[i].atoms[k], cap - n);
  return n;
}

const tsla_poly *tsla_poly_mul(tsl_arena *s, const tsla_order *o,
                               const tsla_poly *p, const tsla_poly *q) {
  int64_t k;
  if (tsla_poly_is_const(p, &k))
    return tsla_poly_scale(s, o, q, k);
  if (tsla_poly_is_const(q, &k))
    return tsla_poly_scale(s, o, p, k);
  uint64_t n = (uint64_t)p->n * q->n + p->n + q->n;
  if (n > TSLA_MAX_TERMS)
    return NULL;
  /* expansion copies every atom of p q->n times (and vice versa): refuse
   * when the printed result would grow large */
  uint64_t grown = (uint64_t)poly_atom_size(p, TSLA_MAX_EXPAND) * (q->n + 1) +
                   (uint64_t)poly_atom_size(q, TSLA_MAX_EXPAND) * (p->n + 1);
  if (grown > TSLA_MAX_EXPAND)
    return NULL;
  tsla_term *t = TSL_NEW_ARRAY(s, tsla_term, n);
  uint32_t m = 0;
  for (uint32_t i = 0; i < p->n; i++)
    for (uint32_t j = 0; j < q->n; j++) {
      if (p->t[i].n_atoms + q->t[j].n_atoms > TSLA_MAX_DEGREE)
        return NULL;
      t[m].coef = (int64_t)((uint64_t)p->t[i].coef * (uint64_t)q->t[j].coef);
      t[m].n_atoms = p->t[i].n_atoms + q->t[j].n_atoms;
      t[m].atoms = merge_atoms(s, o, &p->t[i], &q->t[j]);
      m++;
    }
  for (uint32_t i = 0; i < p->n; i++) {
    t[m] = p->t[i];
    t[m++].coef = (int64_t)((uint64_t)p->t[i].coef * (uint64_t)q->c);
  }
  for (uint32_t j = 0; j < q->n; j++) {
    t[m] = q->t[j];
    t[m++].coef = (int64_t)((uint64_t)q->t[j].coef * (uint64_t)p->c);
  }
  return tsla_poly_make(s, o, p->dt,
                        (int64_t)((uint64_t)p->c * (uint64_t)q->c), m, t);
}

int tsla_poly_is_const(const tsla_poly *p, int64_t *c) {
  if (p->n != 0)
    return 0;
  if (c)
    *c = p->c;
  return 1;
}

const tsl_expr *tsla_mono_to_expr(tsl_arena *out, tsl_dtype dt,
                                  const tsla_term *t) {
  const tsl_expr *e = t->atoms[0];
  for (uint32_t i = 1; i < t->n_atoms; i++)
    e = tsl_expr_binary(out, TSL_EXPR_MUL, e, t->atoms[i]);
  (void)dt;
  return e;
}

const tsl_expr *tsla_poly_to_expr(tsl_arena *out, const tsla_poly *p) {
  tsl_dtype dt = p->dt;
  if (p->n == 0)
    return tsl_expr_int(out, dt, p->c);
  /* start with the first positive term so that `j - i` reads naturally */
  uint32_t start = 0;
  for (uint32_t i = 0; i < p->n; i++)
    if (p->t[i].coef > 0) {
      start = i;
      break;
    }
  const tsl_expr *acc = NULL;
  int has_pos = 0;
  for (uint32_t i = 0; i < p->n; i++)
    has_pos |= p->t[i].coef > 0;
  int const_first = !has_pos && p->c > 0; /* 1 - x rather than -x + 1 */
  if (const_first)
    acc = tsl_expr_int(out, dt, p->c);
  for (uint32_t k = 0; k < p->n; k++) {
    uint32_t i = k == 0 ? start : (k <= start ? k - 1 : k);
    const tsla_term *t = &p->t[i];
    const tsl_expr *m = tsla_mono_to_expr(out, dt, t);
    int64_t c = t->coef;
    if (!acc) {
      if (c == 1)
        acc = m;
      else if (c == -1)
        acc = tsl_expr_unary(out, TSL_EXPR_NEG, m);
      else
        acc = tsl_expr_binary(out, TSL_EXPR_MUL, m, tsl_expr_int(out, dt, c));
      continue;
    }
    int64_t nc = tsla_wrap(dt, (int64_t)(0 - (uint64_t)c));
    if (c > 0 || nc == c) {
      const tsl_expr *x =
          c == 1 ? m : tsl_expr_binary(out, TSL_EXPR_MUL, m, tsl_expr_int(out, dt, c));
      acc = tsl_expr_binary(out, TSL_EXPR_ADD, acc, x);
    } else {
      const tsl_expr *x =
          nc == 1 ? m : tsl_expr_binary(out, TSL_EXPR_MUL, m, tsl_expr_int(out, dt, nc));
      acc = tsl_expr_binary(out, TSL_EXPR_SUB, acc, x);
    }
  }
  if (p->c != 0 && !const_first) {
    int64_t nc = tsla_wrap(dt, (int64_t)(0 - (uint64_t)p->c));
    if (p->c > 0 || nc == p->c)
      acc = tsl_expr_binary(out, TSL_EXPR_ADD, acc, tsl_expr_int(out, dt, p->c));
    else
      acc = tsl_expr_binary(out, TSL_EXPR_SUB, acc, tsl_expr_int(out, dt, nc));
  }
  return acc;
}
