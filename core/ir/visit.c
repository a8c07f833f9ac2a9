/*
 * Pre-order visitors and variable substitution.
 */
#include "tessel/visit.h"

#include <string.h>

/* The recursions call static versions (a TSL_API name is called through
 * the PLT); the public names are wrappers. */
static int expr_visit(const tsl_expr *e, tsl_expr_fn fn, void *ud) {
  int r = fn(e, ud);
  if (r)
    return r;
  for (uint32_t i = 0; i < e->n_args; i++)
    if ((r = expr_visit(e->args[i], fn, ud)))
      return r;
  return 0;
}

int tsl_expr_visit(const tsl_expr *e, tsl_expr_fn fn, void *ud) {
  return expr_visit(e, fn, ud);
}

#define VISIT_EXPR(e, owner)                                                   \
  do {                                                                         \
    if (v->expr && (e) && (r = v->expr((e), (owner), v->user_data)))           \
      return r;                                                                \
  } while (0)

static int visit_region(const tsl_buffer_region *reg, const tsl_stmt *owner,
                        const tsl_stmt_visitor *v) {
  int r;
  for (uint32_t d = 0; d < reg->ndim; d++) {
    VISIT_EXPR(reg->ranges[d].min, owner);
    VISIT_EXPR(reg->ranges[d].extent, owner);
  }
  return 0;
}

static int stmt_visit(const tsl_stmt *s, const tsl_stmt_visitor *v) {
  int r;
  if (v->stmt && (r = v->stmt(s, v->user_data)))
    return r == TSL_VISIT_SKIP ? 0 : r;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    VISIT_EXPR(s->u.loop.min, s);
    VISIT_EXPR(s->u.loop.extent, s);
    if ((r = stmt_visit(s->u.loop.body, v)))
      return r;
    break;
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < s->u.realize.n_iter_values; i++)
      VISIT_EXPR(s->u.realize.iter_values[i], s);
    VISIT_EXPR(s->u.realize.predicate, s);
    if (v->block && (r = v->block(b, s, v->user_data)))
      return r;
    for (uint32_t i = 0; i < b->n_iter_vars; i++) {
      VISIT_EXPR(b->iter_vars[i].dom.min, s);
      VISIT_EXPR(b->iter_vars[i].dom.extent, s);
    }
    for (uint32_t i = 0; i < b->n_reads; i++)
      if ((r = visit_region(&b->reads[i], s, v)))
        return r;
    for (uint32_t i = 0; i < b->n_writes; i++)
      if ((r = visit_region(&b->writes[i], s, v)))
        return r;
    for (uint32_t i = 0; i < b->n_match_buffers; i++)
      if ((r = visit_region(&b->match_buffers[i].source, s, v)))
        return r;
    if (b->init && (r = stmt_visit(b->init, v)))
      return r;
    if ((r = stmt_visit(b->body, v)))
      return r;
    break;
  }
  case TSL_STMT_STORE:
    for (uint32_t i = 0; i < s->u.store.n_indices; i++)
      VISIT_EXPR(s->u.store.indices[i], s);
    VISIT_EXPR(s->u.store.value, s);
    break;
  case TSL_STMT_IF:
    VISIT_EXPR(s->u.branch.cond, s);
    if ((r = stmt_visit(s->u.branch.then_case, v)))
      return r;
    if (s->u.branch.else_case && (r = stmt_visit(s->u.branch.else_case, v)))
      return r;
    break;
  case TSL_STMT_LET:
    VISIT_EXPR(s->u.let.value, s);
    if ((r = stmt_visit(s->u.let.body, v)))
      return r;
    break;
  case TSL_STMT_EVALUATE:
    VISIT_EXPR(s->u.evaluate.value, s);
    break;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if ((r = stmt_visit(s->u.seq.stmts[i], v)))
        return r;
    break;
  case TSL_STMT_ALLOCATE:
    if ((r = stmt_visit(s->u.alloc.body, v)))
      return r;
    break;
  case TSL_STMT_KIND_COUNT:
    break;
  }
  if (v->stmt_post && (r = v->stmt_post(s, v->user_data)))
    return r;
  return 0;
}

int tsl_stmt_visit(const tsl_stmt *s, const tsl_stmt_visitor *v) {
  return stmt_visit(s, v);
}

/* ---- substitution: a mutator with a var hook ---- */

typedef struct subst {
  tsl_subst_fn fn;
  void *ud;
} subst;

static const tsl_expr *subst_var(tsl_mutator *m, const tsl_var *v) {
  const subst *s = m->user_data;
  return s->fn(v, s->ud);
}

const tsl_expr *tsl_expr_substitute(tsl_arena *a, const tsl_expr *e,
                                    tsl_subst_fn fn, void *ud) {
  subst s = {fn, ud};
  tsl_mutator m = tsl_mutator_make(a);
  m.var = subst_var;
  m.user_data = &s;
  return tsl_mutate_expr(&m, e);
}

const tsl_stmt *tsl_stmt_substitute(tsl_arena *a, const tsl_stmt *st,
                                    tsl_subst_fn fn, void *ud) {
  subst s = {fn, ud};
  tsl_mutator m = tsl_mutator_make(a);
  m.var = subst_var;
  m.user_data = &s;
  return tsl_mutate_stmt(&m, st);
}

const tsl_expr *tsl_expr_substitute_map(tsl_arena *a, const tsl_expr *e,
                                        const tsl_map *vars) {
  if (!vars || !vars->n)
    return e;
  tsl_mutator m = tsl_mutator_make(a);
  m.vars = (tsl_map *)vars; /* only read: no def hook */
  return tsl_mutate_expr(&m, e);
}

const tsl_stmt *tsl_stmt_substitute_map(tsl_arena *a, const tsl_stmt *st,
                                        const tsl_map *vars) {
  if (!vars || !vars->n)
    return st;
  tsl_mutator m = tsl_mutator_make(a);
  m.vars = (tsl_map *)vars;
  return tsl_mutate_stmt(&m, st);
}

static int uses_var_fn(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_VAR && e->u.var == (const tsl_var *)ud;
}

int tsl_expr_uses_var(const tsl_expr *e, const tsl_var *v) {
  return expr_visit(e, uses_var_fn, (void *)v);
}

/* ---- substitution with dtype legalization ---- */

static const tsl_expr *widen_to(tsl_arena *a, const tsl_expr *x, tsl_dtype t) {
  if (tsl_dtype_eq(x->dtype, t))
    return x;
  if (x->kind == TSL_EXPR_INT_IMM)
    return tsl_expr_int(a, t, x->u.int_value);
  return tsl_expr_cast(a, t, x);
}

/* Two integer operands of different widths: the wider dtype (0 if none). */
static int wider_int(const tsl_expr *x, const tsl_expr *y, tsl_dtype *t) {
  if (!tsl_dtype_is_int(x->dtype) || !tsl_dtype_is_int(y->dtype) ||
      tsl_dtype_eq(x->dtype, y->dtype) || x->dtype.lanes != y->dtype.lanes)
    return 0;
  *t = x->dtype.bits >= y->dtype.bits ? x->dtype : y->dtype;
  return 1;
}

const tsl_expr *tsl_mutate_expr_legalize(tsl_mutator *m, const tsl_expr *e) {
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  tsl_arena *a = m->arena;
  tsl_dtype t;
  switch ((tsl_expr_kind)r->kind) {
  case TSL_EXPR_ADD: case TSL_EXPR_SUB: case TSL_EXPR_MUL: case TSL_EXPR_DIV:
  case TSL_EXPR_MOD: case TSL_EXPR_FLOORDIV: case TSL_EXPR_FLOORMOD:
  case TSL_EXPR_MIN: case TSL_EXPR_MAX: case TSL_EXPR_EQ: case TSL_EXPR_NE:
  case TSL_EXPR_LT: case TSL_EXPR_LE: case TSL_EXPR_GT: case TSL_EXPR_GE:
    if (wider_int(r->args[0], r->args[1], &t))
      return tsl_expr_binary(a, (tsl_expr_kind)r->kind, widen_to(a, r->args[0], t),
                             widen_to(a, r->args[1], t));
    if (r != e && !tsl_dtype_is_bool(r->dtype) && !tsl_dtype_eq(r->dtype, r->args[0]->dtype))
      return tsl_expr_binary(a, (tsl_expr_kind)r->kind, r->args[0], r->args[1]);
    return r;
  case TSL_EXPR_NEG:
    return tsl_dtype_eq(r->dtype, r->args[0]->dtype) ? r
                                                      : tsl_expr_unary(a, TSL_EXPR_NEG, r->args[0]);
  case TSL_EXPR_SELECT: case TSL_EXPR_IF_THEN_ELSE: {
    const tsl_expr *x = r->args[1], *y = r->args[2];
    if (wider_int(x, y, &t)) {
      x = widen_to(a, x, t);
      y = widen_to(a, y, t);
    }
    if (x == r->args[1] && y == r->args[2] && tsl_dtype_eq(r->dtype, x->dtype))
      return r;
    return r->kind == TSL_EXPR_SELECT ? tsl_expr_select(a, r->args[0], x, y)
                                      : tsl_expr_if_then_else(a, r->args[0], x, y);
  }
  default:
    return r;
  }
}

const tsl_expr *tsl_expr_substitute_legalize(tsl_arena *a, const tsl_expr *e,
                                             tsl_subst_fn fn, void *ud) {
  subst s = {fn, ud};
  tsl_mutator m = tsl_mutator_make(a);
  m.var = subst_var;
  m.expr = tsl_mutate_expr_legalize;
  m.user_data = &s;
  return tsl_mutate_expr(&m, e);
}

/* ---- opaque uses of a buffer's storage ---- */

static int data_fn(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_BUFFER_DATA && e->u.buffer == ud;
}

static int data_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, data_fn, ud);
}

int tsl_stmt_uses_buffer_data(const tsl_stmt *s, const tsl_buffer *buf) {
  tsl_stmt_visitor v;
  memset(&v, 0, sizeof v);
  v.expr = data_expr;
  v.user_data = (void *)(uintptr_t)buf;
  return s && tsl_stmt_visit(s, &v) != 0;
}
