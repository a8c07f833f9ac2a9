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

#include <string.h>

typedef struct fc {
  double total;
  int unknown;
  tsl_vec loops;        /* const tsl_stmt *: enclosing FOR statements */
  const tsl_vec *skip;  /* const tsl_var *: loops not counted, or NULL */
  tsl_stmt_visitor v;
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

/* Product of the enclosing loops' extents, skipping loops whose var is in
 * f->skip. -1 when an extent is symbolic. */
static double trips(const fc *f) {
  double t = 1;
  const tsl_var *const *skip = f->skip ? f->skip->data : NULL;
  for (uint32_t i = 0; i < f->loops.len; i++) {
    const tsl_stmt *l = TSL_VEC_AT(&f->loops, const tsl_stmt *, i);
    int skipped = 0;
    for (uint32_t k = 0; skip && k < f->skip->len; k++)
      skipped |= skip[k] == l->u.loop.loop_var;
    if (skipped)
      continue;
    int64_t ext;
    if (!tsl_expr_is_const_int(l->u.loop.extent, &ext))
      return -1;
    t *= (double)ext;
  }
  return t;
}

static int collect_vars(const tsl_expr *e, void *ud) {
  if (e->kind == TSL_EXPR_VAR)
    TSL_VEC_PUSH(ud, const tsl_var *, e->u.var);
  return 0;
}

/* The ops of `e`, once per point of the enclosing loops. */
static void count(fc *f, const tsl_expr *e) {
  double ops = 0;
  tsl_expr_visit(e, count_fn, &ops);
  if (ops == 0)
    return;
  double t = trips(f);
  if (t < 0)
    f->unknown = 1;
  else
    f->total += ops * t;
}

/* Counted: store values, IF conditions, let values and evaluated values
 * (not indices or loop bounds). */
static int count_stmt(const tsl_stmt *s, void *ud) {
  fc *f = ud;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    TSL_VEC_PUSH(&f->loops, const tsl_stmt *, s);
    return 0;
  case TSL_STMT_STORE:
    count(f, s->u.store.value);
    return 0;
  case TSL_STMT_IF:
    count(f, s->u.branch.cond);
    return 0;
  case TSL_STMT_LET:
    count(f, s->u.let.value);
    return 0;
  case TSL_STMT_EVALUATE:
    count(f, s->u.evaluate.value);
    return 0;
  case TSL_STMT_BLOCK_REALIZE:
    break;
  default:
    return 0;
  }
  /* a block: its init once per point of the loops driving no reduce
   * iterator, its body as any statement */
  const tsl_block *b = s->u.realize.block;
  if (b->init) {
    const tsl_vec *outer = f->skip;
    tsl_vec red;
    tsl_vec_init(&red, sizeof(const tsl_var *), NULL);
    if (outer)
      tsl_vec_append(&red, outer->data, outer->len);
    for (uint32_t i = 0; i < b->n_iter_vars && i < s->u.realize.n_iter_values; i++)
      if (b->iter_vars[i].iter_type == TSL_ITER_REDUCE)
        tsl_expr_visit(s->u.realize.iter_values[i], collect_vars, &red);
    f->skip = &red;
    tsl_stmt_visit(b->init, &f->v);
    f->skip = outer;
    tsl_vec_free(&red);
  }
  tsl_stmt_visit(b->body, &f->v);
  return TSL_VISIT_SKIP;
}

static int count_post(const tsl_stmt *s, void *ud) {
  fc *f = ud;
  if (s->kind == TSL_STMT_FOR)
    f->loops.len--;
  return 0;
}

double tsl_func_flops(const tsl_func *f) {
  if (!f || !f->body)
    return -1;
  fc c;
  memset(&c, 0, sizeof c);
  tsl_vec_init(&c.loops, sizeof(const tsl_stmt *), NULL);
  c.v = (tsl_stmt_visitor){.stmt = count_stmt, .stmt_post = count_post, .user_data = &c};
  tsl_stmt_visit(f->body, &c.v);
  tsl_vec_free(&c.loops);
  return c.unknown ? -1 : c.total;
}
