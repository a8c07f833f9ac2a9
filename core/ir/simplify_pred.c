/*
 * tsl_simplify_predicate: tsl_simplify, then the rules of TVM's
 * RewriteSimplifier (v0.19) for bounds in conditions that the canonical
 * integer form leaves alone: a comparison of floordiv(x, c) with a constant
 * becomes a comparison of x, and in `x < c1 and floormod(x, c2) < c3` the
 * bound on x is tightened to the last value the second conjunct allows.
 * Predicates a primitive synthesizes then print as TVM prints them
 * (`i < 16255 and i % 128 < 127`).
 */
#include "analysis_internal.h"

static int cint(const tsl_expr *e, int64_t *v) { return tsla_is_const(e, v); }

static const tsl_expr *ci(tsl_arena *a, tsl_dtype t, int64_t v) {
  return tsl_expr_int(a, t, tsla_wrap(t, v));
}

/* floordiv(x, c1) op c2 with c1 > 0, as a bound on x; NULL if no rule. */
static const tsl_expr *cmp_rule(tsl_arena *a, const tsl_expr *e) {
  const tsl_expr *l = e->args[0], *r = e->args[1];
  int64_t c1, c2;
  if (l->kind != TSL_EXPR_FLOORDIV || !cint(l->args[1], &c1) || c1 <= 0 ||
      !cint(r, &c2) || !tsla_is_sint(l->dtype))
    return NULL;
  const tsl_expr *x = l->args[0];
  tsl_dtype t = x->dtype;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_LT: /* x // c1 < c2  <=>  x < c1*c2 */
    return tsl_expr_binary(a, TSL_EXPR_LT, x, ci(a, t, c1 * c2));
  case TSL_EXPR_LE: /* x // c1 <= c2  <=>  x < c1*(c2+1) */
    return tsl_expr_binary(a, TSL_EXPR_LT, x, ci(a, t, c1 * (c2 + 1)));
  case TSL_EXPR_GT: /* c2 < x // c1  <=>  (c2+1)*c1 - 1 < x */
    return tsl_expr_binary(a, TSL_EXPR_GT, x, ci(a, t, (c2 + 1) * c1 - 1));
  case TSL_EXPR_GE: /* c2 <= x // c1  <=>  c2*c1 - 1 < x */
    return tsl_expr_binary(a, TSL_EXPR_GT, x, ci(a, t, c2 * c1 - 1));
  default:
    return NULL;
  }
}

/* x < c1 and x < c2 -> x < min(c1, c2) (likewise <=, >, >=); what TVM's
 * analyzer gets by simplifying each side under the other. */
static const tsl_expr *same_bound(const tsl_expr *p, const tsl_expr *q) {
  int64_t c1, c2;
  if (p->kind != q->kind || !cint(p->args[1], &c1) || !cint(q->args[1], &c2) ||
      !tsla_expr_same(p->args[0], q->args[0]))
    return NULL;
  switch ((tsl_expr_kind)p->kind) {
  case TSL_EXPR_LT:
  case TSL_EXPR_LE:
    return c1 <= c2 ? p : q;
  case TSL_EXPR_GT:
  case TSL_EXPR_GE:
    return c1 >= c2 ? p : q;
  default:
    return NULL;
  }
}

/* x < c1 and floormod(x, c2) < c3 (also x <= c1): tighten c1. */
static const tsl_expr *and_rule(tsl_arena *a, const tsl_expr *e) {
  const tsl_expr *p = e->args[0], *q = e->args[1];
  const tsl_expr *one = same_bound(p, q);
  if (one)
    return one;
  if (p->kind == TSL_EXPR_AND) {
    one = same_bound(p->args[1], q);
    if (one)
      return tsl_expr_binary(a, TSL_EXPR_AND, p->args[0], one);
  }
  int64_t c1, c2, c3;
  if ((p->kind != TSL_EXPR_LT && p->kind != TSL_EXPR_LE) ||
      q->kind != TSL_EXPR_LT || !cint(p->args[1], &c1) ||
      q->args[0]->kind != TSL_EXPR_FLOORMOD || !cint(q->args[1], &c3) ||
      !cint(q->args[0]->args[1], &c2) || c2 <= 0 ||
      !tsla_expr_same(p->args[0], q->args[0]->args[0]))
    return NULL;
  if (p->kind == TSL_EXPR_LE)
    c1 += 1; /* x <= c1  <=>  x < c1 + 1 */
  int64_t bound;
  if (c1 % c2 == 0)
    bound = c1 - c2 + c3;
  else if (tsla_floormod(c1, c2) > c3)
    bound = c1 - tsla_floormod(c1, c2) + c3;
  else
    return NULL;
  if (bound >= c1) /* no tighter (c3 >= c2: the second is always true) */
    return NULL;
  const tsl_expr *x = p->args[0];
  return tsl_expr_binary(a, TSL_EXPR_AND,
                         tsl_expr_binary(a, TSL_EXPR_LT, x, ci(a, x->dtype, bound)),
                         q);
}

static const tsl_expr *rules(tsl_analyzer *an, tsl_arena *a, const tsl_expr *e,
                             int depth) {
  if (depth > 64 || !tsl_dtype_is_bool(e->dtype) || e->dtype.lanes != 1)
    return e;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_AND:
  case TSL_EXPR_OR:
  case TSL_EXPR_NOT: {
    const tsl_expr *args[2];
    int changed = 0;
    for (uint32_t i = 0; i < e->n_args; i++) {
      args[i] = rules(an, a, e->args[i], depth + 1);
      changed |= args[i] != e->args[i];
    }
    const tsl_expr *r = changed ? tsl_expr_with_args(a, e, e->n_args, args) : e;
    if (r->kind == TSL_EXPR_AND && r->args[1]->kind == TSL_EXPR_AND) {
      /* x and (y and z)  ->  (x and y) and z */
      const tsl_expr *yz = r->args[1];
      r = tsl_expr_binary(a, TSL_EXPR_AND,
                          tsl_expr_binary(a, TSL_EXPR_AND, r->args[0], yz->args[0]),
                          yz->args[1]);
      return rules(an, a, r, depth + 1);
    }
    if (r->kind == TSL_EXPR_AND) {
      const tsl_expr *t = and_rule(a, r);
      if (t)
        return rules(an, a, tsl_simplify(an, a, t), depth + 1);
    }
    return r;
  }
  case TSL_EXPR_LT:
  case TSL_EXPR_LE:
  case TSL_EXPR_GT:
  case TSL_EXPR_GE: {
    const tsl_expr *t = cmp_rule(a, e);
    return t ? tsl_simplify(an, a, t) : e;
  }
  default:
    return e;
  }
}

const tsl_expr *tsl_simplify_predicate(tsl_analyzer *an, tsl_arena *arena,
                                       const tsl_expr *e) {
  if (!an || !arena || !e)
    return e;
  return rules(an, arena, tsl_simplify(an, arena, e), 0);
}
