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

typedef struct ur {
  lw_ctx *c;
  int64_t max_step; /* pragma_auto_unroll_max_step in force */
  int explicit_;    /* pragma_unroll_explicit in force */
  int64_t steps, unroll_depth, loop_depth;
} ur;

static int64_t sat_mul(int64_t a, int64_t b) {
  if (a && b > INT64_MAX / a)
    return INT64_MAX;
  return a * b;
}

/* ---- one copy of a loop body per iteration ------------------------------ */

typedef struct spec {
  tsl_arena *a;
  const tsl_var *var;
  const tsl_expr *value;
  tsl_analyzer *an;
} spec;

static const tsl_expr *spec_fn(const tsl_var *v, void *ud) {
  spec *p = ud;
  return v == p->var ? p->value : NULL;
}

/* e with the variable replaced, then simplified when it changed. */
static const tsl_expr *spec_expr(spec *p, const tsl_expr *e) {
  if (!e)
    return e;
  const tsl_expr *r = tsl_expr_substitute(p->a, e, spec_fn, p);
  return r == e ? e : tsl_simplify(p->an, p->a, r);
}

static const tsl_stmt *spec_stmt(spec *p, const tsl_stmt *s) {
  tsl_arena *a = p->a;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_expr *mn = spec_expr(p, s->u.loop.min), *ext = spec_expr(p, s->u.loop.extent);
    const tsl_stmt *b = spec_stmt(p, s->u.loop.body);
    if (mn == s->u.loop.min && ext == s->u.loop.extent && b == s->u.loop.body)
      return s;
    return tsl_stmt_for(a, s->u.loop.loop_var, mn, ext, (tsl_for_kind)s->u.loop.for_kind,
                        s->u.loop.thread_tag, s->u.loop.annotations, b);
  }
  case TSL_STMT_STORE: {
    const tsl_expr *ix = spec_expr(p, s->u.store.indices[0]);
    const tsl_expr *val = spec_expr(p, s->u.store.value);
    if (ix == s->u.store.indices[0] && val == s->u.store.value)
      return s;
    return tsl_stmt_store(a, s->u.store.buffer, val, 1, &ix);
  }
  case TSL_STMT_IF: {
    const tsl_expr *cond = spec_expr(p, s->u.branch.cond);
    if (cond != s->u.branch.cond && cond->dtype.lanes == 1 && cond->kind == TSL_EXPR_INT_IMM) {
      if (cond->u.int_value) /* the condition folded: the branch taken */
        return spec_stmt(p, s->u.branch.then_case);
      return s->u.branch.else_case ? spec_stmt(p, s->u.branch.else_case)
                                   : tsl_stmt_seq(a, 0, NULL);
    }
    const tsl_stmt *t = spec_stmt(p, s->u.branch.then_case);
    const tsl_stmt *e = s->u.branch.else_case ? spec_stmt(p, s->u.branch.else_case) : NULL;
    if (cond == s->u.branch.cond && t == s->u.branch.then_case && e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, cond, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_expr *val = spec_expr(p, s->u.let.value);
    const tsl_stmt *b = spec_stmt(p, s->u.let.body);
    if (val == s->u.let.value && b == s->u.let.body)
      return s;
    return tsl_stmt_let(a, s->u.let.var, val, b);
  }
  case TSL_STMT_EVALUATE: {
    const tsl_expr *val = spec_expr(p, s->u.evaluate.value);
    return val == s->u.evaluate.value ? s : tsl_stmt_evaluate(a, val);
  }
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n + 1);
    int changed = 0;
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      xs[i] = spec_stmt(p, s->u.seq.stmts[i]);
      changed |= xs[i] != s->u.seq.stmts[i];
    }
    return changed ? tsl_stmt_seq(a, s->u.seq.n, xs) : s;
  }
  case TSL_STMT_ALLOCATE: {
    const tsl_stmt *b = spec_stmt(p, s->u.alloc.body);
    return b == s->u.alloc.body ? s : tsl_stmt_allocate(a, s->u.alloc.buffer, b);
  }
  default:
    return s;
  }
}

/* The loop (with its body already rewritten) as `ext` copies of the body. */
static const tsl_stmt *unroll_copies(ur *u, const tsl_stmt *s, const tsl_stmt *body,
                                     int64_t ext) {
  tsl_arena *a = u->c->arena;
  const tsl_var *v = s->u.loop.loop_var;
  int64_t lo = 0;
  int const_min = tsl_expr_is_const_int(s->u.loop.min, &lo);
  const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, (size_t)ext + 1);
  spec p = {a, v, NULL, tsl_analyzer_new(u->c->tctx)};
  for (int64_t i = 0; i < ext; i++) {
    if (const_min)
      p.value = tsl_expr_int(a, v->dtype, lo + i);
    else
      p.value = tsl_expr_binary(a, TSL_EXPR_ADD, lw_cast(a, s->u.loop.min, v->dtype),
                                tsl_expr_int(a, v->dtype, i));
    xs[i] = spec_stmt(&p, body);
  }
  tsl_analyzer_free(p.an);
  return tsl_stmt_seq(a, (uint32_t)ext, xs);
}

/* ---- the walk ------------------------------------------------------------ */

static const tsl_stmt *ur_stmt(ur *u, const tsl_stmt *s);

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
  const tsl_stmt *body = ur_stmt(u, s->u.loop.body);
  uint32_t kind = s->u.loop.for_kind;
  int64_t ext = -1;
  if (!tsl_expr_is_const_int(s->u.loop.extent, &ext) || ext > INT32_MAX)
    ext = -1; /* TVM: symbolic */
  int unroll = 0, copies = 0;
  if (kind != TSL_FOR_THREAD_BINDING) {
    if (kind == TSL_FOR_UNROLLED)
      unroll = ext >= 0; /* a symbolic UNROLLED loop stays a loop */
    else if (kind == TSL_FOR_SERIAL || kind == TSL_FOR_VECTORIZED)
      unroll = ext >= 0 && u->loop_depth == 0 && u->unroll_depth <= UNROLL_MAX_DEPTH &&
               (sat_mul(ext, u->steps) <= u->max_step || ext == 0);
    if (unroll) {
      u->steps = sat_mul(u->steps, ext);
      u->unroll_depth++;
      copies = u->explicit_;
      kind = TSL_FOR_UNROLLED;
    } else {
      u->loop_depth++;
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

static const tsl_stmt *ur_stmt(ur *u, const tsl_stmt *s) {
  tsl_arena *a = u->c->arena;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return ur_loop(u, s);
  case TSL_STMT_STORE:
  case TSL_STMT_EVALUATE:
    u->steps = u->steps < INT64_MAX ? u->steps + 1 : u->steps;
    return s;
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n + 1);
    int changed = 0;
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      ur before = *u;
      u->steps = u->unroll_depth = u->loop_depth = 0;
      xs[i] = ur_stmt(u, s->u.seq.stmts[i]);
      changed |= xs[i] != s->u.seq.stmts[i];
      u->steps = u->steps > INT64_MAX - before.steps ? INT64_MAX : u->steps + before.steps;
      if (before.unroll_depth > u->unroll_depth)
        u->unroll_depth = before.unroll_depth;
      if (before.loop_depth > u->loop_depth)
        u->loop_depth = before.loop_depth;
    }
    return changed ? tsl_stmt_seq(a, s->u.seq.n, xs) : s;
  }
  case TSL_STMT_IF: {
    const tsl_stmt *t = ur_stmt(u, s->u.branch.then_case);
    const tsl_stmt *e = s->u.branch.else_case ? ur_stmt(u, s->u.branch.else_case) : NULL;
    if (t == s->u.branch.then_case && e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, s->u.branch.cond, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_stmt *b = ur_stmt(u, s->u.let.body);
    return b == s->u.let.body ? s : tsl_stmt_let(a, s->u.let.var, s->u.let.value, b);
  }
  case TSL_STMT_ALLOCATE: {
    const tsl_stmt *b = ur_stmt(u, s->u.alloc.body);
    return b == s->u.alloc.body ? s : tsl_stmt_allocate(a, s->u.alloc.buffer, b);
  }
  default:
    return s;
  }
}

const tsl_stmt *lw_unroll(lw_ctx *c, const tsl_stmt *body) {
  ur u = {c, 0, 1, 0, 0, 0};
  return ur_stmt(&u, body);
}
