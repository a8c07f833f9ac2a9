/*
 * Unroll pragmas (the rule is also in README.md).
 *
 * A loop annotated "pragma_auto_unroll_max_step" = N (its own annotation,
 * or one unblock.c moved there from the block that covered it) governs its
 * nest: itself and every loop inside, down to a loop with its own N. In
 * that nest a SERIAL loop whose iteration count is at most N becomes
 * UNROLLED. The iteration count of a loop is its extent times the count of
 * its body; a body's count is the largest count among the loops directly
 * in it (1 when it has none); any non-constant extent makes it unbounded.
 * With "pragma_unroll_explicit" = 0 on the same loop the qualifying loops
 * stay SERIAL and get the annotation "pragma_unroll" = 1 instead: the
 * target decides. N <= 0 unrolls nothing. Annotations are kept.
 */
#include "lower_internal.h"

#include <string.h>

#define KEY_MAX_STEP "pragma_auto_unroll_max_step"
#define KEY_EXPLICIT "pragma_unroll_explicit"
#define KEY_HINT "pragma_unroll"

static int attr_int(const tsl_attr_value *v, int64_t *out) {
  if (!v)
    return 0;
  if (v->kind == TSL_ATTR_INT || v->kind == TSL_ATTR_BOOL) {
    *out = v->u.i;
    return 1;
  }
  if (v->kind == TSL_ATTR_EXPR && v->u.expr)
    return tsl_expr_is_const_int(v->u.expr, out) ||
           (v->u.expr->kind == TSL_EXPR_INT_IMM && (*out = v->u.expr->u.int_value, 1));
  return 0;
}

tsl_attrs lw_unroll_attrs(lw_ctx *c, tsl_attrs ann) {
  tsl_attr items[2];
  uint32_t n = 0;
  for (uint32_t i = 0; i < ann.n; i++)
    if (!strcmp(ann.items[i].key, KEY_MAX_STEP) || !strcmp(ann.items[i].key, KEY_EXPLICIT))
      items[n++] = ann.items[i];
  if (!n)
    return (tsl_attrs){0, NULL};
  return tsl_attrs_make(c->arena, n, items);
}

#define UNBOUNDED INT64_MAX

static int64_t count_body(const tsl_stmt *s);

static int64_t count_loop(const tsl_stmt *s) {
  int64_t ext;
  if (!tsl_expr_is_const_int(s->u.loop.extent, &ext))
    return UNBOUNDED;
  int64_t inner = count_body(s->u.loop.body);
  if (ext <= 0)
    return 0;
  if (inner == UNBOUNDED || inner > UNBOUNDED / ext)
    return UNBOUNDED;
  return ext * inner;
}

static int64_t count_body(const tsl_stmt *s) {
  int64_t m = 1, x;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return count_loop(s);
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if ((x = count_body(s->u.seq.stmts[i])) > m)
        m = x;
    return m;
  case TSL_STMT_IF:
    m = count_body(s->u.branch.then_case);
    if (s->u.branch.else_case && (x = count_body(s->u.branch.else_case)) > m)
      m = x;
    return m;
  case TSL_STMT_LET:
    return count_body(s->u.let.body);
  case TSL_STMT_ALLOCATE:
    return count_body(s->u.alloc.body);
  default:
    return 1;
  }
}

typedef struct ur {
  lw_ctx *c;
  int64_t max_step; /* < 0: no pragma in force */
  int explicit_;
} ur;

static const tsl_stmt *ur_stmt(ur *u, const tsl_stmt *s);

static const tsl_stmt *ur_loop(ur *u, const tsl_stmt *s) {
  tsl_arena *a = u->c->arena;
  ur saved = *u;
  tsl_attrs ann = s->u.loop.annotations;
  int64_t v;
  if (attr_int(tsl_attrs_get(ann, KEY_MAX_STEP), &v)) {
    u->max_step = v;
    u->explicit_ = 1;
    if (attr_int(tsl_attrs_get(ann, KEY_EXPLICIT), &v))
      u->explicit_ = v != 0;
  }
  const tsl_stmt *body = ur_stmt(u, s->u.loop.body);
  uint32_t kind = s->u.loop.for_kind;
  if (u->max_step > 0 && kind == TSL_FOR_SERIAL) {
    int64_t n = count_loop(s);
    if (n != UNBOUNDED && n <= u->max_step) {
      if (u->explicit_)
        kind = TSL_FOR_UNROLLED;
      else if (!tsl_attrs_get(ann, KEY_HINT)) {
        tsl_attr *items = TSL_NEW_ARRAY(a, tsl_attr, ann.n + 1);
        if (ann.n)  /* ann.items may be NULL when empty */
          memcpy(items, ann.items, sizeof *items * ann.n);
        items[ann.n].key = tsl_intern(u->c->tctx, KEY_HINT);
        items[ann.n].value.kind = TSL_ATTR_INT;
        items[ann.n].value.dtype = TSL_INT32;
        items[ann.n].value.u.i = 1;
        ann = tsl_attrs_make(a, ann.n + 1, items);
      }
    }
  }
  *u = saved;
  if (body == s->u.loop.body && kind == s->u.loop.for_kind &&
      ann.items == s->u.loop.annotations.items)
    return s;
  return tsl_stmt_for(a, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent,
                      (tsl_for_kind)kind, s->u.loop.thread_tag, ann, body);
}

static const tsl_stmt *ur_stmt(ur *u, const tsl_stmt *s) {
  tsl_arena *a = u->c->arena;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return ur_loop(u, s);
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n + 1);
    int changed = 0;
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      xs[i] = ur_stmt(u, s->u.seq.stmts[i]);
      changed |= xs[i] != s->u.seq.stmts[i];
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
  ur u = {c, -1, 1};
  return ur_stmt(&u, body);
}
