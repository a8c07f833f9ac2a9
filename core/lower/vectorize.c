/*
 * Vectorization (opts.vectorize == 1), on the flat program.
 *
 * A VECTORIZED loop with a constant extent of 2..64 lanes whose body is
 * made of STORE, LET, SEQ and IF statements becomes straight-line vector
 * code: the loop variable is RAMP(min, 1, lanes); operands that do not
 * depend on it stay scalar and are BROADCAST where they meet a vector; a
 * LOAD or STORE with a vector index reads / writes `lanes` elements; every
 * node that carries lanes has dtype.lanes = lanes. Affine index arithmetic
 * stays a RAMP (ramp + x, ramp * c). The statements of the body are
 * vectorized one after the other (TensorIR's vectorize promises no
 * dependence between lanes). An IF whose condition does not depend on the
 * loop stays an IF around vector code.
 *
 * The loop is kept (a hint for the target) when any of these holds: an
 * inner loop, an ALLOCATE or an EVALUATE in the body; an IF condition
 * depending on the loop; a store whose index does not depend on the loop
 * (a reduction across lanes) or whose value does while its index does not;
 * integer division or modulo of a vector; a vector condition of
 * if_then_else; an extern call or an existing vector node.
 *
 * The walk is a statement-only mutator whose FOR hook tries each VECTORIZED
 * loop (inner loops first); a loop body is rewritten by a second mutator:
 * the loop variable and vector lets through its `var` hook and `vars` map,
 * expressions and statements through hooks that give up (`fail`) on
 * anything else.
 */
#include "lower_internal.h"

#include <string.h>

typedef struct vz {
  tsl_mutator m; /* first: the hooks' tsl_mutator * is the vz */
  lw_ctx *c;
  const tsl_var *var;
  const tsl_expr *ramp; /* the loop variable as a vector */
  uint16_t lanes;
  tsl_map lets;     /* scalar let var -> vector let var's ref (m.vars) */
  tsl_analyzer *an; /* canonical form of ramp bases and strides */
  int fail;
} vz;

static const tsl_expr *mk_ramp(vz *v, const tsl_expr *base, const tsl_expr *stride) {
  tsl_arena *a = v->c->arena;
  return tsl_expr_ramp(a, tsl_simplify(v->an, a, base), tsl_simplify(v->an, a, stride), v->lanes);
}

static int lanes_of(const tsl_expr *e) { return e->dtype.lanes > 1; }

static const tsl_expr *bcast(vz *v, const tsl_expr *e) {
  return lanes_of(e) ? e : tsl_expr_broadcast(v->c->arena, e, v->lanes);
}

/* A node like `proto` with the given args and dtype lanes set. */
static const tsl_expr *with_lanes(vz *v, const tsl_expr *proto, uint32_t n,
                                  const tsl_expr *const *args, uint16_t lanes) {
  tsl_expr p;
  memcpy(&p, proto, sizeof p);
  p.dtype.lanes = lanes;
  return tsl_expr_with_args(v->c->arena, &p, n, args);
}

static int is_ramp(const tsl_expr *e) { return e->kind == TSL_EXPR_RAMP; }

static const tsl_expr *ibin(tsl_arena *a, tsl_expr_kind k, const tsl_expr *x,
                            const tsl_expr *y) {
  tsl_dtype t = lw_wider(x->dtype, y->dtype);
  return tsl_expr_binary(a, k, lw_cast(a, x, t), lw_cast(a, y, t));
}

/* `e` (a scalar binary node) over operands x, y of which one is a vector. */
static const tsl_expr *vbinary(vz *v, const tsl_expr *e, const tsl_expr *x, const tsl_expr *y) {
  tsl_arena *a = v->c->arena;
  tsl_expr_kind k = (tsl_expr_kind)e->kind;
  int is_int = tsl_dtype_is_int(tsl_dtype_scalar(e->dtype));
  /* affine integer arithmetic on ramps stays a ramp */
  if (is_int && (k == TSL_EXPR_ADD || k == TSL_EXPR_SUB)) {
    if (is_ramp(x) && !lanes_of(y))
      return mk_ramp(v, ibin(a, k, x->args[0], y), x->args[1]);
    if (!lanes_of(x) && is_ramp(y)) {
      const tsl_expr *st = k == TSL_EXPR_ADD ? y->args[1]
                                             : tsl_expr_unary(a, TSL_EXPR_NEG, y->args[1]);
      return mk_ramp(v, ibin(a, k, x, y->args[0]), st);
    }
    if (is_ramp(x) && is_ramp(y))
      return mk_ramp(v, ibin(a, k, x->args[0], y->args[0]), ibin(a, k, x->args[1], y->args[1]));
  }
  if (is_int && k == TSL_EXPR_MUL) {
    if (is_ramp(x) && !lanes_of(y))
      return mk_ramp(v, ibin(a, k, x->args[0], y), ibin(a, k, x->args[1], y));
    if (!lanes_of(x) && is_ramp(y))
      return mk_ramp(v, ibin(a, k, x, y->args[0]), ibin(a, k, x, y->args[1]));
  }
  if (is_int && (k == TSL_EXPR_DIV || k == TSL_EXPR_MOD || k == TSL_EXPR_FLOORDIV ||
                 k == TSL_EXPR_FLOORMOD)) {
    v->fail = 1;
    return e;
  }
  const tsl_expr *args[2] = {bcast(v, x), bcast(v, y)};
  return with_lanes(v, e, 2, args, v->lanes);
}

static const tsl_expr *vz_var(tsl_mutator *m, const tsl_var *x) {
  vz *v = (vz *)m;
  return x == v->var ? v->ramp : NULL;
}

static const tsl_expr *vz_expr(tsl_mutator *m, const tsl_expr *e) {
  vz *v = (vz *)m;
  if (v->fail)
    return e;
  if (e->dtype.lanes > 1) {
    v->fail = 1; /* already vector code */
    return e;
  }
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_RAMP:
  case TSL_EXPR_BROADCAST:
  case TSL_EXPR_CALL_EXTERN:
  case TSL_EXPR_BUILTIN:
  case TSL_EXPR_BUFFER_DATA:
    for (uint32_t i = 0; i < e->n_args; i++)
      if (tsl_expr_uses_var(e->args[i], v->var))
        v->fail = 1;
    return e;
  default:
    break;
  }
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  int any_vec = 0;
  for (uint32_t i = 0; i < r->n_args; i++)
    any_vec |= lanes_of(r->args[i]);
  if (v->fail || !any_vec)
    return v->fail ? e : r;
  const tsl_expr **args = (const tsl_expr **)r->args;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_LOAD:
    return with_lanes(v, e, 1, args, v->lanes);
  case TSL_EXPR_IF_THEN_ELSE:
    if (lanes_of(args[0])) {
      v->fail = 1;
      return e;
    }
    __attribute__((fallthrough)); /* scalar condition, vector branches */
  case TSL_EXPR_SELECT: {
    const tsl_expr *xs[3] = {args[0], bcast(v, args[1]), bcast(v, args[2])};
    return with_lanes(v, e, 3, xs, v->lanes);
  }
  case TSL_EXPR_NOT:
  case TSL_EXPR_NEG:
  case TSL_EXPR_CAST:
    return with_lanes(v, e, 1, args, v->lanes);
  case TSL_EXPR_CALL: {
    const tsl_expr **xs = TSL_NEW_ARRAY(m->arena, const tsl_expr *, e->n_args);
    for (uint32_t i = 0; i < e->n_args; i++)
      xs[i] = bcast(v, args[i]);
    return with_lanes(v, e, e->n_args, xs, v->lanes);
  }
  default:
    if (e->n_args == 2 && e->kind >= TSL_EXPR_ADD && e->kind <= TSL_EXPR_OR)
      return vbinary(v, e, args[0], args[1]);
    v->fail = 1;
    return e;
  }
}

static const tsl_stmt *vz_stmt(tsl_mutator *m, const tsl_stmt *s) {
  vz *v = (vz *)m;
  tsl_arena *a = m->arena;
  if (v->fail)
    return s;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_STORE: {
    const tsl_expr *ix = tsl_mutate_expr(m, s->u.store.indices[0]);
    const tsl_expr *val = tsl_mutate_expr(m, s->u.store.value);
    if (v->fail || !lanes_of(ix)) {
      v->fail = 1;
      return s;
    }
    return tsl_stmt_store(a, s->u.store.buffer, bcast(v, val), 1, &ix);
  }
  case TSL_STMT_LET: {
    const tsl_expr *val = tsl_mutate_expr(m, s->u.let.value);
    if (v->fail)
      return s;
    if (!lanes_of(val))
      return tsl_stmt_let(a, s->u.let.var, val, tsl_mutate_stmt(m, s->u.let.body));
    tsl_dtype t = s->u.let.var->dtype;
    t.lanes = v->lanes;
    const tsl_var *nv = tsl_var_new(a, s->u.let.var->name, t);
    tsl_map_binding b = tsl_map_bind(&v->lets, s->u.let.var, (void *)tsl_expr_var(nv));
    const tsl_stmt *body = tsl_mutate_stmt(m, s->u.let.body);
    tsl_map_unbind(&v->lets, &b);
    return tsl_stmt_let(a, nv, val, body);
  }
  case TSL_STMT_IF:
    if (lanes_of(tsl_mutate_expr(m, s->u.branch.cond)) || v->fail) {
      v->fail = 1;
      return s;
    }
    return tsl_mutate_stmt_children(m, s); /* the condition stays as it is */
  case TSL_STMT_SEQ:
    return tsl_mutate_stmt_children(m, s);
  default:
    v->fail = 1;
    return s;
  }
}

/* The loop as vector code, or NULL when it must stay a loop. */
static const tsl_stmt *vectorize_loop(lw_ctx *c, const tsl_stmt *s) {
  int64_t n;
  if (!tsl_expr_is_const_int(s->u.loop.extent, &n) || n < 2 || n > 64)
    return NULL;
  vz v;
  memset(&v, 0, sizeof v);
  v.m = tsl_mutator_make(c->arena);
  v.m.stmt = vz_stmt;
  v.m.expr = vz_expr;
  v.m.var = vz_var;
  v.m.vars = &v.lets;
  v.c = c;
  v.var = s->u.loop.loop_var;
  v.lanes = (uint16_t)n;
  v.an = tsl_analyzer_new(c->tctx);
  tsl_dtype t = v.var->dtype;
  v.ramp = tsl_expr_ramp(c->arena, lw_cast(c->arena, s->u.loop.min, t), tsl_expr_int(c->arena, t, 1),
                         v.lanes);
  const tsl_stmt *r = tsl_mutate_stmt(&v.m, s->u.loop.body);
  tsl_map_free(&v.lets);
  tsl_analyzer_free(v.an);
  return v.fail ? NULL : r;
}

/* Inner loops first, then the loop itself when it is VECTORIZED. */
static const tsl_stmt *walk_stmt(tsl_mutator *m, const tsl_stmt *s) {
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (s->kind == TSL_STMT_FOR && s->u.loop.for_kind == TSL_FOR_VECTORIZED) {
    const tsl_stmt *vec = vectorize_loop(m->user_data, r);
    if (vec)
      return vec;
  }
  return r;
}

const tsl_stmt *lw_vectorize(lw_ctx *c, const tsl_stmt *body) {
  tsl_mutator m = tsl_mutator_make(c->arena);
  m.stmt = walk_stmt;
  m.expr = tsl_mutate_expr_keep;
  m.user_data = c;
  return tsl_mutate_stmt(&m, body);
}
