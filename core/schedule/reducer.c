/*
 * Recognizing the reduction a block performs (TVM's
 * GetInitValuesAndUpdatesFromReductionBlock and its reducer registry), for
 * rfactor: the init stores the identities, the body updates one buffer
 * (`C[i] = C[i] + x`, possibly through a let) or several at once through
 * lets (`v0 = T.Select(B1[i] >= y1, B0[i], y0); v1 = ...; B0[i] = v0;
 * B1[i] = v1`), and the updates match a known commutative reducer: +, *,
 * min, max, a pair of sums, argmax and argmin (with or without TVM's
 * smaller-index tie break). Building the combined values back (with lets
 * for several buffers) is here too.
 */
#include "prim_reduction.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int bad(sch_call *c, const tsl_block *b, const char *why) {
  return sch_fail(c, TSL_EINVALID,
                  "block '%s' is not a recognizable reduction: %s", b->name, why);
}

/* ---- the identities -------------------------------------------------------- */

static int float_is(const tsl_expr *e, double want) {
  return e->kind == TSL_EXPR_FLOAT_IMM && e->u.float_value == want;
}

/* 1 when `e` is the largest (hi) / lowest value of its dtype; floats also
 * accept +-infinity. */
static int is_extreme(const tsl_expr *e, int hi) {
  tsl_dtype t = e->dtype;
  if (e->kind == TSL_EXPR_FLOAT_IMM) {
    double big = t.code == TSL_DT_BFLOAT ? 3.38953138925153547590e+38
                 : t.bits == 16          ? 65504.0
                 : t.bits == 32          ? (double)FLT_MAX
                                         : DBL_MAX;
    return float_is(e, hi ? big : -big) || float_is(e, hi ? INFINITY : -INFINITY);
  }
  if (e->kind != TSL_EXPR_INT_IMM || !tsl_dtype_is_int(t))
    return 0;
  int64_t v = e->u.int_value, mx, mn;
  if (t.code == TSL_DT_UINT) {
    mn = 0;
    mx = t.bits >= 64 ? -1 : (int64_t)(((uint64_t)1 << t.bits) - 1);
  } else {
    mx = t.bits >= 64 ? INT64_MAX : ((int64_t)1 << (t.bits - 1)) - 1;
    mn = t.bits >= 64 ? INT64_MIN : -((int64_t)1 << (t.bits - 1));
  }
  return hi ? (v == mx || (t.code == TSL_DT_UINT && v == INT64_MAX)) : v == mn;
}

static int is_const_value(const tsl_expr *e, double v) {
  if (e->kind == TSL_EXPR_FLOAT_IMM)
    return e->u.float_value == v;
  return e->kind == TSL_EXPR_INT_IMM && (double)e->u.int_value == v;
}

/* ---- the reducers ------------------------------------------------------------ */

/* A pattern over placeholders x0.. (the buffers' loads) and y0.. (the
 * values combined in), built on demand. */
typedef struct reducer_def {
  uint32_t kind;
  uint32_t n;
  const char *name;
  int (*identity)(const tsl_expr *const *ids);
} reducer_def;

static int id_zero(const tsl_expr *const *v) { return is_const_value(v[0], 0); }
static int id_one(const tsl_expr *const *v) { return is_const_value(v[0], 1); }
static int id_hi(const tsl_expr *const *v) { return is_extreme(v[0], 1); }
static int id_lo(const tsl_expr *const *v) { return is_extreme(v[0], 0); }
static int id_zero2(const tsl_expr *const *v) {
  return is_const_value(v[0], 0) && is_const_value(v[1], 0);
}
static int id_argmax(const tsl_expr *const *v) {
  return is_const_value(v[0], -1) && is_extreme(v[1], 0);
}
static int id_argmin(const tsl_expr *const *v) {
  return is_const_value(v[0], -1) && is_extreme(v[1], 1);
}

static const reducer_def reducers[] = {
    {RED_ADD, 1, "+", id_zero},
    {RED_MUL, 1, "*", id_one},
    {RED_MIN, 1, "T.min", id_hi},
    {RED_MAX, 1, "T.max", id_lo},
    {RED_SUM2, 2, "a pair of sums", id_zero2},
    {RED_ARGMAX, 2, "argmax", id_argmax},
    {RED_ARGMAX_TIE, 2, "argmax (smaller index on ties)", id_argmax},
    {RED_ARGMIN, 2, "argmin", id_argmin},
    {RED_ARGMIN_TIE, 2, "argmin (smaller index on ties)", id_argmin},
};

static const tsl_expr *b2(tsl_arena *a, tsl_expr_kind k, const tsl_expr *x,
                          const tsl_expr *y) {
  return tsl_expr_binary(a, k, x, y);
}

/* The combined values of reducer `kind` for x (accumulated) and y (new). */
void red_combine(tsl_arena *a, uint32_t kind, const tsl_expr *const *x,
                 const tsl_expr *const *y, const tsl_expr **out) {
  switch (kind) {
  case RED_ADD: out[0] = b2(a, TSL_EXPR_ADD, x[0], y[0]); return;
  case RED_MUL: out[0] = b2(a, TSL_EXPR_MUL, x[0], y[0]); return;
  case RED_MIN: out[0] = b2(a, TSL_EXPR_MIN, x[0], y[0]); return;
  case RED_MAX: out[0] = b2(a, TSL_EXPR_MAX, x[0], y[0]); return;
  case RED_SUM2:
    out[0] = b2(a, TSL_EXPR_ADD, x[0], y[0]);
    out[1] = b2(a, TSL_EXPR_ADD, x[1], y[1]);
    return;
  case RED_ARGMAX:
  case RED_ARGMIN: {
    const tsl_expr *cmp = b2(a, kind == RED_ARGMAX ? TSL_EXPR_GE : TSL_EXPR_LE, x[1], y[1]);
    out[0] = tsl_expr_select(a, cmp, x[0], y[0]);
    out[1] = tsl_expr_select(a, cmp, x[1], y[1]);
    return;
  }
  default: { /* the tie-breaking variants */
    tsl_expr_kind strict = kind == RED_ARGMAX_TIE ? TSL_EXPR_GT : TSL_EXPR_LT;
    const tsl_expr *win = b2(a, strict, x[1], y[1]);
    const tsl_expr *tie = b2(a, TSL_EXPR_AND, b2(a, TSL_EXPR_EQ, x[1], y[1]),
                             b2(a, TSL_EXPR_LT, x[0], y[0]));
    out[0] = tsl_expr_select(a, b2(a, TSL_EXPR_OR, win, tie), x[0], y[0]);
    out[1] = tsl_expr_select(a, b2(a, strict, x[1], y[1]), x[1], y[1]);
    return;
  }
  }
}

/* Structural match of `e` against pattern `p`, whose placeholders (the
 * keys of `got`) bind to subexpressions (the same one at every use). */
static int match(tsl_map *got, const tsl_expr *p, const tsl_expr *e) {
  void *g;
  if (p->kind == TSL_EXPR_VAR && tsl_map_find(got, p->u.var, &g)) {
    if (g)
      return tsl_expr_equal(g, e);
    tsl_map_put(got, p->u.var, (void *)e);
    return 1;
  }
  if (p->kind != e->kind || p->n_args != e->n_args)
    return 0;
  for (uint32_t i = 0; i < p->n_args; i++)
    if (!match(got, p->args[i], e->args[i]))
      return 0;
  return 1;
}

/* ---- extracting inits and updates -------------------------------------------- */

static int same_indices(const tsl_stmt *s, const tsl_stmt *t) {
  if (s->u.store.n_indices != t->u.store.n_indices)
    return 0;
  for (uint32_t d = 0; d < s->u.store.n_indices; d++)
    if (!tsl_expr_equal(s->u.store.indices[d], t->u.store.indices[d]))
      return 0;
  return 1;
}

static int reads_buffer(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_LOAD && e->u.buffer == ud;
}

int red_match_reducer(sch_call *c, const tsl_block *b, red_reducer *r) {
  memset(r, 0, sizeof *r);
  /* the inits: one store, or a sequence of stores to distinct buffers */
  const tsl_stmt *inits[RED_MAX_BUFFERS];
  uint32_t n = 0;
  const tsl_stmt *in = b->init;
  if (in && in->kind == TSL_STMT_STORE) {
    inits[n++] = in;
  } else if (in && in->kind == TSL_STMT_SEQ && in->u.seq.n <= RED_MAX_BUFFERS) {
    for (uint32_t i = 0; i < in->u.seq.n; i++) {
      const tsl_stmt *s = in->u.seq.stmts[i];
      if (s->kind != TSL_STMT_STORE)
        return bad(c, b, "its T.init() must be buffer stores only");
      for (uint32_t k = 0; k < n; k++)
        if (inits[k]->u.store.buffer == s->u.store.buffer)
          return bad(c, b, "its T.init() stores to one buffer twice");
      inits[n++] = s;
    }
  } else {
    return bad(c, b, "its T.init() must be one buffer store or a few of them");
  }
  /* the updates: one store, or n lets whose variables n stores store */
  const tsl_stmt *up = b->body;
  const tsl_var *lv[RED_MAX_BUFFERS];
  const tsl_expr *vals[RED_MAX_BUFFERS];
  uint32_t nl = 0;
  while (up->kind == TSL_STMT_LET && nl < n) {
    for (uint32_t k = 0; k < nl; k++)
      if (lv[k] == up->u.let.var)
        return bad(c, b, "two of its lets bind the same variable");
    lv[nl] = up->u.let.var;
    vals[nl++] = up->u.let.value;
    up = up->u.let.body;
  }
  if (up->kind == TSL_STMT_LET || (nl && nl != n))
    return bad(c, b, "its body must have as many lets as its T.init() has stores");
  const tsl_stmt *stores[RED_MAX_BUFFERS];
  uint32_t ns = 0;
  if (up->kind == TSL_STMT_STORE) {
    stores[ns++] = up;
  } else if (up->kind == TSL_STMT_SEQ && nl) {
    for (uint32_t i = 0; i < up->u.seq.n; i++) {
      if (up->u.seq.stmts[i]->kind != TSL_STMT_STORE)
        return bad(c, b, "the statements after its lets must be buffer stores");
      if (ns == RED_MAX_BUFFERS)
        return bad(c, b, "it updates more buffers than its T.init() initializes");
      stores[ns++] = up->u.seq.stmts[i];
    }
  } else {
    return bad(c, b, "its body must be one buffer store, or lets followed by stores");
  }
  if (ns != n)
    return bad(c, b, "it updates a different number of buffers than its T.init() "
                     "initializes");
  r->n = n;
  uint8_t used[RED_MAX_BUFFERS] = {0};
  for (uint32_t i = 0; i < ns; i++) {
    const tsl_stmt *s = stores[i];
    uint32_t idx = i;
    if (nl) {
      const tsl_expr *v = s->u.store.value;
      idx = n;
      for (uint32_t k = 0; k < nl && v->kind == TSL_EXPR_VAR; k++)
        if (lv[k] == v->u.var)
          idx = k;
      if (idx == n)
        return bad(c, b, "each store after its lets must store one of the let variables");
      if (used[idx]++)
        return bad(c, b, "two stores store the same let variable");
    }
    for (uint32_t k = 0; k < i; k++)
      if (stores[k]->u.store.buffer == s->u.store.buffer)
        return bad(c, b, "it updates one buffer twice");
    r->buf[idx] = s->u.store.buffer;
    r->store[idx] = s;
    r->value[idx] = nl ? vals[idx] : s->u.store.value;
  }
  const tsl_stmt *first = r->store[0];
  for (uint32_t i = 0; i < n; i++) {
    if (r->buf[i]->ndim != r->buf[0]->ndim)
      return bad(c, b, "the buffers it reduces into have different shapes");
    for (uint32_t d = 0; d < r->buf[i]->ndim; d++)
      if (!tsl_expr_equal(r->buf[i]->shape[d], r->buf[0]->shape[d]))
        return bad(c, b, "the buffers it reduces into have different shapes");
    if (!same_indices(r->store[i], first))
      return bad(c, b, "its stores index their buffers differently");
    uint32_t k = 0;
    while (k < n && inits[k]->u.store.buffer != r->buf[i])
      k++;
    if (k == n)
      return bad(c, b, "its T.init() and its body store to different buffers");
    if (!same_indices(inits[k], first))
      return bad(c, b, "its T.init() and its body store to different elements");
    r->identity[i] = inits[k]->u.store.value;
  }
  r->n_indices = first->u.store.n_indices;
  r->indices = first->u.store.indices;
  /* the reducer */
  tsl_arena *a = c->arena;
  const reducer_def *wrong_identity = NULL;
  for (uint32_t q = 0; q < sizeof reducers / sizeof *reducers; q++) {
    const reducer_def *d = &reducers[q];
    if (d->n != n)
      continue;
    const tsl_expr *x[RED_MAX_BUFFERS], *y[RED_MAX_BUFFERS], *pat[RED_MAX_BUFFERS];
    for (uint32_t i = 0; i < n; i++) {
      x[i] = tsl_expr_var(sch_new_var(c, "x", r->value[i]->dtype));
      y[i] = tsl_expr_var(sch_new_var(c, "y", r->value[i]->dtype));
    }
    red_combine(a, d->kind, x, y, pat);
    tsl_map got; /* placeholder -> what it matched (NULL: nothing yet) */
    tsl_map_init(&got, a);
    for (int swap = 0; swap < (n == 1 ? 2 : 1); swap++) {
      for (uint32_t i = 0; i < n; i++) {
        tsl_map_put(&got, x[i]->u.var, NULL);
        tsl_map_put(&got, y[i]->u.var, NULL);
      }
      int okm = 1;
      for (uint32_t i = 0; i < n && okm; i++) {
        const tsl_expr *v = r->value[i];
        if (swap) { /* C = x op C: the one-buffer reducers commute */
          if (v->kind != TSL_EXPR_ADD && v->kind != TSL_EXPR_MUL &&
              v->kind != TSL_EXPR_MIN && v->kind != TSL_EXPR_MAX) {
            okm = 0;
            break;
          }
          v = tsl_expr_binary(a, (tsl_expr_kind)v->kind, v->args[1], v->args[0]);
        }
        okm = match(&got, pat[i], v);
      }
      for (uint32_t i = 0; i < n && okm; i++) {
        const tsl_expr *lhs = tsl_map_get(&got, x[i]->u.var);
        okm = lhs && lhs->kind == TSL_EXPR_LOAD && lhs->u.buffer == r->buf[i] &&
              lhs->n_args == r->n_indices;
        for (uint32_t dd = 0; okm && dd < r->n_indices; dd++)
          okm = tsl_expr_equal(lhs->args[dd], r->indices[dd]);
      }
      if (!okm)
        continue;
      if (!d->identity(r->identity)) {
        wrong_identity = wrong_identity ? wrong_identity : d;
        continue;
      }
      r->kind = d->kind;
      for (uint32_t i = 0; i < n; i++) {
        r->lhs[i] = tsl_map_get(&got, x[i]->u.var);
        r->rhs[i] = tsl_map_get(&got, y[i]->u.var);
        for (uint32_t k = 0; k < n; k++)
          if (tsl_expr_visit(r->rhs[i], reads_buffer, (void *)r->buf[k]))
            return sch_fail(c, TSL_EINVALID,
                            "block '%s' is not a recognizable reduction: the value "
                            "combined into '%s' reads '%s' itself",
                            b->name, r->buf[i]->name, r->buf[k]->name);
      }
      return TSL_OK;
    }
  }
  if (wrong_identity)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' is not a recognizable reduction: its T.init() "
                    "does not store the identity of %s (0 for +, 1 for *, the "
                    "largest value for min, the lowest for max, -1 and the "
                    "lowest/largest value for argmax/argmin)",
                    b->name, wrong_identity->name);
  if (n == 1)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' is not a recognizable reduction: its body must "
                    "read '%s' at the stored element and combine it with +, *, "
                    "T.min or T.max (e.g. %s[...] = %s[...] + x)",
                    b->name, r->buf[0]->name, r->buf[0]->name, r->buf[0]->name);
  return sch_fail(c, TSL_EINVALID,
                  "block '%s' is not a recognizable reduction: its %u updates match "
                  "no known reducer of %u buffers (a pair of sums, argmax or argmin "
                  "as T.Select of the accumulated and the new pair, from the "
                  "identities (0, 0) / (-1, lowest) / (-1, largest))",
                  b->name, n, n);
}

const tsl_stmt *red_update_stmt(sch_call *c, const red_reducer *r,
                                const tsl_buffer *const *bufs, uint32_t n_idx,
                                const tsl_expr *const *idx,
                                const tsl_expr *const *values) {
  tsl_arena *a = c->arena;
  if (r->n == 1)
    return tsl_stmt_store(a, bufs[0], values[0], n_idx, idx);
  const tsl_stmt *st[RED_MAX_BUFFERS];
  const tsl_var *v[RED_MAX_BUFFERS];
  for (uint32_t i = 0; i < r->n; i++) {
    char name[300];
    snprintf(name, sizeof name, "v_%s", bufs[i]->name);
    v[i] = sch_new_var(c, name, values[i]->dtype);
    st[i] = tsl_stmt_store(a, bufs[i], tsl_expr_var(v[i]), n_idx, idx);
  }
  const tsl_stmt *body = tsl_stmt_seq(a, r->n, st);
  for (uint32_t i = r->n; i-- > 0;)
    body = tsl_stmt_let(a, v[i], values[i], body);
  return body;
}

const tsl_stmt *red_init_stmt(sch_call *c, const red_reducer *r,
                              const tsl_buffer *const *bufs, uint32_t n_idx,
                              const tsl_expr *const *idx) {
  tsl_arena *a = c->arena;
  const tsl_stmt *st[RED_MAX_BUFFERS];
  for (uint32_t i = 0; i < r->n; i++)
    st[i] = tsl_stmt_store(a, bufs[i], r->identity[i], n_idx, idx);
  return r->n == 1 ? st[0] : tsl_stmt_seq(a, r->n, st);
}
