/*
 * tsl_func_flops: arithmetic operations of one call, counted on the
 * (scheduled or not) TensorIR, much as TVM's estimate_tir_flops counts
 * them: each float ADD, SUB, MUL, DIV, MOD, FLOORDIV, FLOORMOD, MIN, MAX,
 * NEG and math call (TVM skips the last two; a softmax's exp is work)
 * counts one per lane per executed instance, and so does each integer one
 * of the first nine in an integer value stored, so an int8 matmul counts
 * 2 * M * N * K like a float one. Addressing is free: indices, and the
 * integer arithmetic of conditions, let values and float values (a
 * conv2d_transpose's stride test; TVM counts all of those). A
 * statement executes the product of its enclosing loops' constant extents
 * (predicates and IF conditions are ignored, both branches count). A
 * block's init executes once per point of the loops that drive no reduce
 * iterator. A symbolic extent around any counted operation makes the
 * result -1.
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

/* The operations of `e`, a load's indices left out; integer ones only
 * `with_int`. */
static double ops_of(const tsl_expr *e, int with_int) {
  if (e->kind == TSL_EXPR_LOAD)
    return 0;
  double n = 0;
  for (uint32_t i = 0; i < e->n_args; i++)
    n += ops_of(e->args[i], with_int);
  int is_float = tsl_dtype_is_float(e->dtype), is_int = with_int && tsl_dtype_is_int(e->dtype);
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
    if (is_float || is_int)
      n += e->dtype.lanes ? e->dtype.lanes : 1;
    break;
  case TSL_EXPR_NEG:
  case TSL_EXPR_CALL:
    if (is_float)
      n += e->dtype.lanes ? e->dtype.lanes : 1;
    break;
  default:
    break;
  }
  return n;
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
static void count(fc *f, const tsl_expr *e, int with_int) {
  double ops = ops_of(e, with_int);
  if (ops == 0)
    return;
  double t = trips(f);
  if (t < 0)
    f->unknown = 1;
  else
    f->total += ops * t;
}

/* Counted: store values, IF conditions, let values and evaluated values
 * (not indices or loop bounds; integer operations in integer stored values
 * only). */
static int count_stmt(const tsl_stmt *s, void *ud) {
  fc *f = ud;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    TSL_VEC_PUSH(&f->loops, const tsl_stmt *, s);
    return 0;
  case TSL_STMT_STORE:
    count(f, s->u.store.value, tsl_dtype_is_int(s->u.store.value->dtype));
    return 0;
  case TSL_STMT_IF:
    count(f, s->u.branch.cond, 0);
    return 0;
  case TSL_STMT_LET:
    count(f, s->u.let.value, 0);
    return 0;
  case TSL_STMT_EVALUATE:
    count(f, s->u.evaluate.value, 0);
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
