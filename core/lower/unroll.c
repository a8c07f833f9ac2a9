/*
 * Unroll pragmas, the last lowering pass (after vectorize.c), with the rule
 * of TVM's UnrollLoop (README.md, "Unroll rule").
 *
 * One post-order walk keeps three counters for the statements visited so
 * far in the current sequence element: steps (a STORE or EVALUATE is one;
 * a loop that unrolls multiplies the steps of its body by its extent),
 * the depth of unrolled loops and the depth of loops that stay loops.
 * A SEQ visits each element from zero and then adds the steps and takes
 * the larger depths; IF, LET and ALLOCATE pass the counters through (an
 * else branch starts where the then branch ended). A SERIAL loop (or a
 * VECTORIZED one vectorize.c left, which TVM would have scalarized) with a
 * constant extent unrolls when no loop inside stays a loop, at most
 * UNROLL_MAX_DEPTH unrolled loops are inside, and extent * steps is at
 * most the pragma_auto_unroll_max_step in force (0 without one, so only an
 * extent-0 loop). An UNROLLED loop always unrolls. Explicitly (pragma
 * unroll_explicit 1, the default) the loop becomes one copy of its body
 * per iteration, its variable replaced by the value; otherwise it stays a
 * loop of kind UNROLLED, for the target's unroller. Thread-bound loops are
 * transparent (TVM has made them thread-extent attributes by then). The
 * two pragma annotations apply to the loop carrying them and everything
 * inside, and are removed from the loops that remain.
 */
#include "lower_internal.h"

#include <string.h>

#define KEY_MAX_STEP "pragma_auto_unroll_max_step"
#define KEY_EXPLICIT "pragma_unroll_explicit"
/* TVM's auto_max_depth default: unrolled loops allowed inside one that unrolls */
#define UNROLL_MAX_DEPTH 8

static int attr_int(const tsl_attr_value *v, int64_t *out) {
  if (!v)
    return 0;
  if (v->kind == TSL_ATTR_INT || v->kind == TSL_ATTR_BOOL) {
    *out = v->u.i;
    return 1;
  }
  return v->kind == TSL_ATTR_EXPR && v->u.expr && tsl_expr_is_const_int(v->u.expr, out);
}

static int is_unroll_key(tsl_str key) {
  return !strcmp(key, KEY_MAX_STEP) || !strcmp(key, KEY_EXPLICIT);
}

tsl_attrs lw_unroll_attrs(lw_ctx *c, tsl_attrs ann) {
  tsl_attr items[2];
  uint32_t n = 0;
  for (uint32_t i = 0; i < ann.n; i++)
    if (is_unroll_key(ann.items[i].key) && n < 2)
      items[n++] = ann.items[i];
  if (!n)
    return (tsl_attrs){0, NULL};
  return tsl_attrs_make(c->arena, n, items);
}

/* The counters of the statements visited so far in the current element
 * of a sequence. */
typedef struct ur_count {
  int64_t steps, unroll_depth, loop_depth;
} ur_count;

typedef struct ur {
  tsl_mutator m; /* first: the hooks' tsl_mutator * is the ur */
  lw_ctx *c;
  int64_t max_step; /* pragma_auto_unroll_max_step in force */
  int explicit_;    /* pragma_unroll_explicit in force */
  ur_count n;
  int in_seq; /* the statement visited is an element of a sequence */
} ur;

static int64_t sat_mul(int64_t a, int64_t b) {
  if (a && b > INT64_MAX / a)
    return INT64_MAX;
  return a * b;
}

/* ---- one copy of a loop body per iteration ------------------------------ */

typedef struct spec {
  tsl_mutator m;   /* first: the hooks' tsl_mutator * is the spec */
  tsl_mutator sub; /* the variable replaced in an expression */
  const tsl_var *var;
  const tsl_expr *value;
  tsl_analyzer *an;
} spec;

static const tsl_expr *spec_var(tsl_mutator *m, const tsl_var *v) {
  spec *p = m->user_data;
  return v == p->var ? p->value : NULL;
}

/* A statement's expression with the variable replaced, then simplified
 * when it changed. */
static const tsl_expr *spec_expr(tsl_mutator *m, const tsl_expr *e) {
  spec *p = (spec *)m;
  const tsl_expr *r = tsl_mutate_expr(&p->sub, e);
  return r == e ? e : tsl_simplify(p->an, m->arena, r);
}

/* An IF whose condition folds becomes the branch taken (an empty sequence
 * when that is a missing else). */
static const tsl_stmt *spec_stmt(tsl_mutator *m, const tsl_stmt *s) {
  if (s->kind != TSL_STMT_IF)
    return tsl_mutate_stmt_children(m, s);
  const tsl_expr *cond = spec_expr(m, s->u.branch.cond);
  const tsl_stmt *t = s->u.branch.then_case, *e = s->u.branch.else_case;
  if (cond != s->u.branch.cond && cond->dtype.lanes == 1 && cond->kind == TSL_EXPR_INT_IMM) {
    const tsl_stmt *taken = cond->u.int_value ? t : e;
    return taken ? tsl_mutate_stmt(m, taken) : tsl_stmt_seq(m->arena, 0, NULL);
  }
  t = tsl_mutate_stmt(m, t);
  e = e ? tsl_mutate_stmt(m, e) : NULL;
  if (cond == s->u.branch.cond && t == s->u.branch.then_case && e == s->u.branch.else_case)
    return s;
  return tsl_stmt_if(m->arena, cond, t, e);
}

/* The loop (with its body already rewritten) as `ext` copies of the body. */
static const tsl_stmt *unroll_copies(ur *u, const tsl_stmt *s, const tsl_stmt *body,
                                     int64_t ext) {
  tsl_arena *a = u->c->arena;
  const tsl_var *v = s->u.loop.loop_var;
  int64_t lo = 0;
  int const_min = tsl_expr_is_const_int(s->u.loop.min, &lo);
  const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, (size_t)ext + 1);
  spec p = {tsl_mutator_make(a), tsl_mutator_make(a), v, NULL, tsl_analyzer_new(u->c->tctx)};
  p.m.stmt = spec_stmt;
  p.m.expr = spec_expr;
  p.sub.var = spec_var;
  p.sub.user_data = &p;
  for (int64_t i = 0; i < ext; i++) {
    if (const_min)
      p.value = tsl_expr_int(a, v->dtype, lo + i);
    else
      p.value = tsl_expr_binary(a, TSL_EXPR_ADD, lw_cast(a, s->u.loop.min, v->dtype),
                                tsl_expr_int(a, v->dtype, i));
    xs[i] = tsl_mutate_stmt(&p.m, body);
  }
  tsl_analyzer_free(p.an);
  return tsl_stmt_seq(a, (uint32_t)ext, xs);
}

/* ---- the walk ------------------------------------------------------------ */

/* The loop's annotations without the two unroll pragmas. */
static tsl_attrs strip_pragmas(tsl_arena *a, tsl_attrs ann) {
  uint32_t keep = 0;
  for (uint32_t i = 0; i < ann.n; i++)
    keep += !is_unroll_key(ann.items[i].key);
  if (keep == ann.n)
    return ann;
  if (!keep)
    return (tsl_attrs){0, NULL};
  tsl_attr *items = TSL_NEW_ARRAY(a, tsl_attr, keep);
  uint32_t n = 0;
  for (uint32_t i = 0; i < ann.n; i++)
    if (!is_unroll_key(ann.items[i].key))
      items[n++] = ann.items[i];
  return tsl_attrs_make(a, n, items);
}

static const tsl_stmt *ur_loop(ur *u, const tsl_stmt *s) {
  tsl_arena *a = u->c->arena;
  int64_t saved_max = u->max_step, v;
  int saved_explicit = u->explicit_;
  tsl_attrs ann = s->u.loop.annotations;
  if (attr_int(tsl_attrs_get(ann, KEY_MAX_STEP), &v))
    u->max_step = v;
  if (attr_int(tsl_attrs_get(ann, KEY_EXPLICIT), &v))
    u->explicit_ = v != 0;
  const tsl_stmt *body = tsl_mutate_stmt(&u->m, s->u.loop.body);
  uint32_t kind = s->u.loop.for_kind;
  int64_t ext = -1;
  if (!tsl_expr_is_const_int(s->u.loop.extent, &ext) || ext > INT32_MAX)
    ext = -1; /* TVM: symbolic */
  int unroll = 0, copies = 0;
  if (kind != TSL_FOR_THREAD_BINDING) {
    if (kind == TSL_FOR_UNROLLED)
      unroll = ext >= 0; /* a symbolic UNROLLED loop stays a loop */
    else if (kind == TSL_FOR_SERIAL || kind == TSL_FOR_VECTORIZED)
      unroll = ext >= 0 && u->n.loop_depth == 0 && u->n.unroll_depth <= UNROLL_MAX_DEPTH &&
               (sat_mul(ext, u->n.steps) <= u->max_step || ext == 0);
    if (unroll) {
      u->n.steps = sat_mul(u->n.steps, ext);
      u->n.unroll_depth++;
      copies = u->explicit_;
      kind = TSL_FOR_UNROLLED;
    } else {
      u->n.loop_depth++;
    }
  }
  u->max_step = saved_max;
  u->explicit_ = saved_explicit;
  if (copies)
    return unroll_copies(u, s, body, ext);
  tsl_attrs kept = strip_pragmas(a, ann);
  if (body == s->u.loop.body && kind == s->u.loop.for_kind && kept.items == ann.items)
    return s;
  return tsl_stmt_for(a, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent,
                      (tsl_for_kind)kind, s->u.loop.thread_tag, kept, body);
}

static const tsl_stmt *ur_stmt(tsl_mutator *m, const tsl_stmt *s) {
  ur *u = (ur *)m;
  if (u->in_seq) {
    /* an element of a sequence is counted from zero; the sequence adds the
     * steps of its elements and keeps the largest depths */
    ur_count before = u->n;
    u->n = (ur_count){0, 0, 0};
    u->in_seq = 0;
    const tsl_stmt *r = ur_stmt(m, s);
    u->in_seq = 1;
    u->n.steps = u->n.steps > INT64_MAX - before.steps ? INT64_MAX : u->n.steps + before.steps;
    if (before.unroll_depth > u->n.unroll_depth)
      u->n.unroll_depth = before.unroll_depth;
    if (before.loop_depth > u->n.loop_depth)
      u->n.loop_depth = before.loop_depth;
    return r;
  }
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return ur_loop(u, s);
  case TSL_STMT_STORE:
  case TSL_STMT_EVALUATE:
    u->n.steps = u->n.steps < INT64_MAX ? u->n.steps + 1 : u->n.steps;
    return s;
  case TSL_STMT_SEQ: {
    u->in_seq = 1;
    const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
    u->in_seq = 0;
    return r;
  }
  default: /* IF, LET, ALLOCATE pass the counters through */
    return tsl_mutate_stmt_children(m, s);
  }
}

const tsl_stmt *lw_unroll(lw_ctx *c, const tsl_stmt *body) {
  ur u;
  memset(&u, 0, sizeof u);
  u.m = tsl_mutator_make(c->arena);
  u.m.stmt = ur_stmt;
  u.m.expr = tsl_mutate_expr_keep;
  u.c = c;
  u.explicit_ = 1;
  return tsl_mutate_stmt(&u.m, body);
}
