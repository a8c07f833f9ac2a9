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
 */
#include "lower_internal.h"

#include <string.h>

typedef struct vz {
  lw_ctx *c;
  const tsl_var *var;
  const tsl_expr *ramp; /* the loop variable as a vector */
  uint16_t lanes;
  lw_map lets; /* scalar let var -> vector let var's ref */
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

static const tsl_expr *vexpr(vz *v, const tsl_expr *e);

static const tsl_expr *vbinary(vz *v, const tsl_expr *e, const tsl_expr *x, const tsl_expr *y) {
  tsl_arena *a = v->c->arena;
  tsl_expr_kind k = (tsl_expr_kind)e->kind;
  if (!lanes_of(x) && !lanes_of(y))
    return x == e->args[0] && y == e->args[1] ? e
                                              : tsl_expr_with_args(a, e, 2, (const tsl_expr *[]){x, y});
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

static const tsl_expr *vexpr(vz *v, const tsl_expr *e) {
  tsl_arena *a = v->c->arena;
  if (v->fail || !e)
    return e;
  if (e->dtype.lanes > 1) {
    v->fail = 1; /* already vector code */
    return e;
  }
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_VAR: {
    if (e->u.var == v->var)
      return v->ramp;
    const tsl_expr *r = lw_map_get(&v->lets, e->u.var);
    return r ? r : e;
  }
  case TSL_EXPR_INT_IMM:
  case TSL_EXPR_FLOAT_IMM:
  case TSL_EXPR_STR_IMM:
    return e;
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
  const tsl_expr *stack[8];
  const tsl_expr **args = e->n_args <= 8 ? stack : TSL_NEW_ARRAY(a, const tsl_expr *, e->n_args);
  int any_vec = 0, changed = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = vexpr(v, e->args[i]);
    any_vec |= lanes_of(args[i]);
    changed |= args[i] != e->args[i];
  }
  if (v->fail)
    return e;
  if (!any_vec)
    return changed ? tsl_expr_with_args(a, e, e->n_args, args) : e;
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
    for (uint32_t i = 0; i < e->n_args; i++)
      args[i] = bcast(v, args[i]);
    return with_lanes(v, e, e->n_args, args, v->lanes);
  }
  default:
    if (e->n_args == 2 && e->kind >= TSL_EXPR_ADD && e->kind <= TSL_EXPR_OR)
      return vbinary(v, e, args[0], args[1]);
    v->fail = 1;
    return e;
  }
}

static const tsl_stmt *vstmt(vz *v, const tsl_stmt *s) {
  tsl_arena *a = v->c->arena;
  if (v->fail)
    return s;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_STORE: {
    const tsl_expr *ix = vexpr(v, s->u.store.indices[0]);
    const tsl_expr *val = vexpr(v, s->u.store.value);
    if (v->fail || !lanes_of(ix)) {
      v->fail = 1;
      return s;
    }
    return tsl_stmt_store(a, s->u.store.buffer, bcast(v, val), 1, &ix);
  }
  case TSL_STMT_LET: {
    const tsl_expr *val = vexpr(v, s->u.let.value);
    if (v->fail)
      return s;
    if (!lanes_of(val)) {
      const tsl_stmt *b = vstmt(v, s->u.let.body);
      return tsl_stmt_let(a, s->u.let.var, val, b);
    }
    tsl_dtype t = s->u.let.var->dtype;
    t.lanes = v->lanes;
    const tsl_var *nv = tsl_var_new(a, s->u.let.var->name, t);
    const void *prev = lw_map_put(&v->lets, s->u.let.var, tsl_expr_var(nv));
    const tsl_stmt *b = vstmt(v, s->u.let.body);
    lw_map_put(&v->lets, s->u.let.var, prev);
    return tsl_stmt_let(a, nv, val, b);
  }
  case TSL_STMT_IF: {
    const tsl_expr *cond = vexpr(v, s->u.branch.cond);
    if (v->fail || lanes_of(cond)) {
      v->fail = 1;
      return s;
    }
    const tsl_stmt *t = vstmt(v, s->u.branch.then_case);
    const tsl_stmt *e = s->u.branch.else_case ? vstmt(v, s->u.branch.else_case) : NULL;
    return tsl_stmt_if(a, cond, t, e);
  }
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n + 1);
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      xs[i] = vstmt(v, s->u.seq.stmts[i]);
    return tsl_stmt_seq(a, s->u.seq.n, xs);
  }
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
  v.c = c;
  v.var = s->u.loop.loop_var;
  v.lanes = (uint16_t)n;
  v.an = tsl_analyzer_new(c->tctx);
  tsl_dtype t = v.var->dtype;
  v.ramp = tsl_expr_ramp(c->arena, lw_cast(c->arena, s->u.loop.min, t), tsl_expr_int(c->arena, t, 1),
                         v.lanes);
  const tsl_stmt *r = vstmt(&v, s->u.loop.body);
  lw_map_free(&v.lets);
  tsl_analyzer_free(v.an);
  return v.fail ? NULL : r;
}

static const tsl_stmt *walk(lw_ctx *c, const tsl_stmt *s) {
  tsl_arena *a = c->arena;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_stmt *b = walk(c, s->u.loop.body);
    const tsl_stmt *l = s;
    if (b != s->u.loop.body)
      l = tsl_stmt_for(a, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent,
                       (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                       s->u.loop.annotations, b);
    if (l->u.loop.for_kind == TSL_FOR_VECTORIZED) {
      const tsl_stmt *vec = vectorize_loop(c, l);
      if (vec)
        return vec;
    }
    return l;
  }
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n + 1);
    int changed = 0;
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      xs[i] = walk(c, s->u.seq.stmts[i]);
      changed |= xs[i] != s->u.seq.stmts[i];
    }
    return changed ? tsl_stmt_seq(a, s->u.seq.n, xs) : s;
  }
  case TSL_STMT_IF: {
    const tsl_stmt *t = walk(c, s->u.branch.then_case);
    const tsl_stmt *e = s->u.branch.else_case ? walk(c, s->u.branch.else_case) : NULL;
    if (t == s->u.branch.then_case && e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, s->u.branch.cond, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_stmt *b = walk(c, s->u.let.body);
    return b == s->u.let.body ? s : tsl_stmt_let(a, s->u.let.var, s->u.let.value, b);
  }
  case TSL_STMT_ALLOCATE: {
    const tsl_stmt *b = walk(c, s->u.alloc.body);
    return b == s->u.alloc.body ? s : tsl_stmt_allocate(a, s->u.alloc.buffer, b);
  }
  default:
    return s;
  }
}

const tsl_stmt *lw_vectorize(lw_ctx *c, const tsl_stmt *body) { return walk(c, body); }
