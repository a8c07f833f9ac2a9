/*
 * tsl_func_flops: floating-point operations of one call, counted on the
 * (scheduled or not) TensorIR. Each float-typed ADD, SUB, MUL, DIV, MOD,
 * FLOORDIV, FLOORMOD, MIN, MAX, NEG and math call counts one per lane per
 * executed instance; a statement executes the product of its enclosing
 * loops' constant extents (predicates and IF conditions are ignored, both
 * branches count). A block's init executes once per point of the loops
 * that drive no reduce iterator. Integer (index) arithmetic is free. A
 * symbolic extent around any counted operation makes the result -1.
 */
#include "lower_internal.h"

typedef struct fc {
  double total;
  int unknown;
  lw_vec loops; /* enclosing FOR statements */
} fc;

static int count_fn(const tsl_expr *e, void *ud) {
  double *n = ud;
  if (!tsl_dtype_is_float(e->dtype))
    return 0;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
  case TSL_EXPR_MUL:
  case TSL_EXPR_DIV:
  case TSL_EXPR_MOD:
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD:
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX:
  case TSL_EXPR_NEG:
  case TSL_EXPR_CALL:
    *n += e->dtype.lanes ? e->dtype.lanes : 1;
    break;
  default:
    break;
  }
  return 0;
}

static double ops_in(const tsl_expr *e) {
  double n = 0;
  if (e)
    tsl_expr_visit(e, count_fn, &n);
  return n;
}

/* Product of the enclosing loops' extents, skipping loops whose var is in
 * `skip` (NULL: none). -1 when an extent is symbolic. */
static double trips(const fc *f, const lw_vec *skip) {
  double t = 1;
  for (uint32_t i = 0; i < f->loops.n; i++) {
    const tsl_stmt *l = f->loops.items[i];
    int skipped = 0;
    for (uint32_t k = 0; skip && k < skip->n; k++)
      skipped |= skip->items[k] == l->u.loop.loop_var;
    if (skipped)
      continue;
    int64_t ext;
    if (!tsl_expr_is_const_int(l->u.loop.extent, &ext))
      return -1;
    t *= (double)ext;
  }
  return t;
}

static void add(fc *f, double ops, const lw_vec *skip) {
  if (ops == 0)
    return;
  double t = trips(f, skip);
  if (t < 0)
    f->unknown = 1;
  else
    f->total += ops * t;
}

static int collect_vars(const tsl_expr *e, void *ud) {
  if (e->kind == TSL_EXPR_VAR)
    lw_vec_push(ud, e->u.var);
  return 0;
}

static void walk(fc *f, const tsl_stmt *s, const lw_vec *skip);

static void walk(fc *f, const tsl_stmt *s, const lw_vec *skip) {
  if (!s)
    return;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    lw_vec_push(&f->loops, s);
    walk(f, s->u.loop.body, skip);
    f->loops.n--;
    break;
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    if (b->init) {
      lw_vec red = {0};
      if (skip)
        for (uint32_t i = 0; i < skip->n; i++)
          lw_vec_push(&red, skip->items[i]);
      for (uint32_t i = 0; i < b->n_iter_vars && i < s->u.realize.n_iter_values; i++)
        if (b->iter_vars[i].iter_type == TSL_ITER_REDUCE)
          tsl_expr_visit(s->u.realize.iter_values[i], collect_vars, &red);
      walk(f, b->init, &red);
      lw_vec_free(&red);
    }
    walk(f, b->body, skip);
    break;
  }
  case TSL_STMT_STORE:
    add(f, ops_in(s->u.store.value), skip);
    break;
  case TSL_STMT_IF:
    add(f, ops_in(s->u.branch.cond), skip);
    walk(f, s->u.branch.then_case, skip);
    walk(f, s->u.branch.else_case, skip);
    break;
  case TSL_STMT_LET:
    add(f, ops_in(s->u.let.value), skip);
    walk(f, s->u.let.body, skip);
    break;
  case TSL_STMT_EVALUATE:
    add(f, ops_in(s->u.evaluate.value), skip);
    break;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      walk(f, s->u.seq.stmts[i], skip);
    break;
  case TSL_STMT_ALLOCATE:
    walk(f, s->u.alloc.body, skip);
    break;
  default:
    break;
  }
}

double tsl_func_flops(const tsl_func *f) {
  if (!f || !f->body)
    return -1;
  fc c = {0, 0, {0}};
  walk(&c, f->body, NULL);
  lw_vec_free(&c.loops);
  return c.unknown ? -1 : c.total;
}
