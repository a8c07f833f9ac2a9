/*
 * The operator pattern of a prim_func (TVM's AnnotateTIROpPattern), which
 * decides what fuses: per block, how each load's indices relate to the
 * store's (the same: element-wise; a subsequence, dims of 1 read at 0:
 * broadcast; only the store's variables: injective); a reduction is
 * output-fusible when it is a multiply-add whose operands reuse data
 * (matmul, conv) or reads through more than its loop variables, else a
 * plain reduction; an element-wise block writing an output after a
 * reduction makes the whole output-fusible (softmax's normalisation).
 */
#include "passes_internal.h"

#include "tessel/analysis.h"
#include "tessel/visit.h"

#include <string.h>

typedef struct scan {
  const tsl_func *f;
  const tsl_stmt *store; /* the block body's store */
  int opaque;            /* two different stores, or none */
  tsl_vec loads;         /* const tsl_expr * */
} scan;

static int collect_load(const tsl_expr *e, void *user_data) {
  if (e->kind == TSL_EXPR_LOAD)
    TSL_VEC_PUSH(&((scan *)user_data)->loads, const tsl_expr *, e);
  return 0;
}

static int same_indices(uint32_t n, const tsl_expr *const *a, uint32_t m,
                        const tsl_expr *const *b) {
  if (n != m)
    return 0;
  for (uint32_t i = 0; i < n; i++)
    if (!tsl_expr_equal(a[i], b[i]))
      return 0;
  return 1;
}

static int body_stmt(const tsl_stmt *s, void *user_data) {
  scan *sc = user_data;
  if (s->kind == TSL_STMT_BLOCK_REALIZE)
    return TSL_VISIT_SKIP; /* a nested block is its own */
  if (s->kind != TSL_STMT_STORE)
    return 0;
  if (sc->store && !same_indices(sc->store->u.store.n_indices, sc->store->u.store.indices,
                                 s->u.store.n_indices, s->u.store.indices))
    sc->opaque = 1;
  sc->store = s;
  tsl_expr_visit(s->u.store.value, collect_load, sc);
  for (uint32_t i = 0; i < s->u.store.n_indices; i++)
    tsl_expr_visit(s->u.store.indices[i], collect_load, sc);
  return 0;
}

static int is_const(const tsl_expr *e, int64_t v) {
  int64_t x;
  return tsl_expr_is_const_int(e, &x) && x == v;
}

static int is_elemwise(const tsl_stmt *st, const tsl_expr *ld) {
  return same_indices(st->u.store.n_indices, st->u.store.indices, ld->n_args, ld->args);
}

static int is_broadcast(const tsl_stmt *st, const tsl_expr *ld) {
  const tsl_buffer *lb = ld->u.buffer;
  for (uint32_t i = 0, j = 0; i < ld->n_args; i++) {
    if (i < lb->ndim && is_const(lb->shape[i], 1) && is_const(ld->args[i], 0))
      continue;
    while (j < st->u.store.n_indices && !tsl_expr_equal(st->u.store.indices[j], ld->args[i]))
      j++;
    if (j == st->u.store.n_indices)
      return 0;
  }
  return 1;
}

typedef struct varset {
  const tsl_var *vars[16];
  uint32_t n;
  int outside; /* a variable not in the set was met */
} varset;

static int in_set(const varset *vs, const tsl_var *v) {
  for (uint32_t i = 0; i < vs->n; i++)
    if (vs->vars[i] == v)
      return 1;
  return 0;
}

static int check_var(const tsl_expr *e, void *user_data) {
  varset *vs = user_data;
  if (e->kind == TSL_EXPR_VAR && !in_set(vs, e->u.var))
    vs->outside = 1;
  return 0;
}

/* The store's indices as a variable set; 0 when one is not a variable. */
static int store_vars(const tsl_stmt *st, varset *vs) {
  vs->n = 0;
  vs->outside = 0;
  for (uint32_t i = 0; i < st->u.store.n_indices; i++) {
    const tsl_expr *e = st->u.store.indices[i];
    if (e->kind != TSL_EXPR_VAR || vs->n == 16)
      return 0;
    vs->vars[vs->n++] = e->u.var;
  }
  return 1;
}

static int is_injective(const tsl_stmt *st, const tsl_expr *ld) {
  varset vs;
  if (!store_vars(st, &vs))
    return 0;
  for (uint32_t i = 0; i < ld->n_args; i++)
    tsl_expr_visit(ld->args[i], check_var, &vs);
  return !vs.outside;
}

static int mark_seen(const tsl_expr *e, void *user_data) {
  varset *vs = user_data;
  if (e->kind == TSL_EXPR_VAR)
    for (uint32_t i = 0; i < vs->n; i++)
      if (vs->vars[i] == e->u.var)
        vs->vars[i] = NULL;
  return 0;
}

/* Some store variable is not among the load's: the load is reused. */
static int allows_reuse(const tsl_stmt *st, const tsl_expr *ld) {
  varset vs;
  if (!store_vars(st, &vs))
    return 0;
  for (uint32_t i = 0; i < ld->n_args; i++)
    tsl_expr_visit(ld->args[i], mark_seen, &vs);
  for (uint32_t i = 0; i < vs.n; i++)
    if (vs.vars[i])
      return 1;
  return 0;
}

static const tsl_expr *uncast(const tsl_expr *e) {
  while (e->kind == TSL_EXPR_CAST)
    e = e->args[0];
  return e;
}

/* C[..] = C[..] + A[..] * B[..], A and B each reused. */
static int is_fma(const tsl_stmt *body) {
  if (body->kind != TSL_STMT_STORE)
    return 0;
  const tsl_expr *add = uncast(body->u.store.value);
  if (add->kind != TSL_EXPR_ADD)
    return 0;
  const tsl_expr *acc = uncast(add->args[0]), *mul = uncast(add->args[1]);
  if (mul->kind != TSL_EXPR_MUL || acc->kind != TSL_EXPR_LOAD ||
      acc->u.buffer != body->u.store.buffer || !is_elemwise(body, acc))
    return 0;
  const tsl_expr *l = uncast(mul->args[0]), *r = uncast(mul->args[1]);
  return l->kind == TSL_EXPR_LOAD && r->kind == TSL_EXPR_LOAD && allows_reuse(body, l) &&
         allows_reuse(body, r);
}

/* No index mixes a reduction variable into an expression (k + r:
 * pooling); a bare variable is fine. */
static int pure_reduce(const tsl_block *b, const tsl_expr *ld) {
  varset vs = {.n = 0};
  for (uint32_t i = 0; i < b->n_iter_vars && vs.n < 16; i++)
    if (b->iter_vars[i].iter_type != TSL_ITER_REDUCE)
      vs.vars[vs.n++] = b->iter_vars[i].var; /* the others: "outside" means reduced */
  for (uint32_t i = 0; i < ld->n_args; i++) {
    if (ld->args[i]->kind == TSL_EXPR_VAR)
      continue;
    vs.outside = 0;
    tsl_expr_visit(ld->args[i], check_var, &vs);
    if (vs.outside)
      return 0;
  }
  return 1;
}

static int writes_param(const tsl_func *f, const tsl_block *b) {
  for (uint32_t w = 0; w < b->n_writes; w++)
    for (uint32_t p = 0; p < f->n_params; p++)
      if (f->params[p].buffer == b->writes[w].buffer)
        return 1;
  return 0;
}

typedef struct walk {
  const tsl_func *f;
  int kind;
} walk;

static int max_kind(int a, int b) { return a > b ? a : b; }

static int on_block(const tsl_block *b, const tsl_stmt *realize, void *user_data) {
  (void)realize;
  walk *w = user_data;
  if (!strcmp(b->name, "root") || w->kind == PASS_PATTERN_OPAQUE)
    return 0;
  scan sc = {.f = w->f};
  tsl_vec_init(&sc.loads, sizeof(const tsl_expr *), NULL);
  tsl_stmt_visitor v = {.stmt = body_stmt, .user_data = &sc};
  tsl_stmt_visit(b->body, &v);
  if (!sc.store || sc.opaque) {
    w->kind = PASS_PATTERN_OPAQUE;
    tsl_vec_free(&sc.loads);
    return 0;
  }
  int pair = PASS_PATTERN_ELEMWISE, has_elemwise = 0;
  for (uint32_t i = 0; i < sc.loads.len && pair != PASS_PATTERN_OPAQUE; i++) {
    const tsl_expr *ld = TSL_VEC_AT(&sc.loads, const tsl_expr *, i);
    if (is_elemwise(sc.store, ld))
      has_elemwise = 1;
    else if (is_broadcast(sc.store, ld))
      pair = max_kind(pair, PASS_PATTERN_BROADCAST);
    else if (is_injective(sc.store, ld))
      pair = max_kind(pair, PASS_PATTERN_INJECTIVE);
    else
      pair = PASS_PATTERN_OPAQUE;
  }
  if (pair == PASS_PATTERN_BROADCAST && has_elemwise)
    pair = PASS_PATTERN_ELEMWISE;
  if (pair != PASS_PATTERN_OPAQUE) {
    if (writes_param(w->f, b) && w->kind == PASS_PATTERN_COMM_REDUCE)
      w->kind = PASS_PATTERN_OUT_EWISE_FUSABLE;
    else
      w->kind = max_kind(w->kind, pair);
  } else {
    int reduce = 0;
    for (uint32_t i = 0; i < b->n_iter_vars; i++)
      reduce |= b->iter_vars[i].iter_type == TSL_ITER_REDUCE;
    if (!reduce) {
      w->kind = PASS_PATTERN_OPAQUE;
    } else if (is_fma(b->body)) {
      w->kind = max_kind(w->kind, PASS_PATTERN_OUT_EWISE_FUSABLE);
    } else {
      int k = PASS_PATTERN_COMM_REDUCE;
      for (uint32_t i = 0; i < sc.loads.len; i++)
        if (!pure_reduce(b, TSL_VEC_AT(&sc.loads, const tsl_expr *, i)))
          k = PASS_PATTERN_OUT_EWISE_FUSABLE;
      w->kind = max_kind(w->kind, k);
    }
  }
  tsl_vec_free(&sc.loads);
  return 0;
}

int pass_op_pattern(const tsl_func *f) {
  walk w = {f, PASS_PATTERN_ELEMWISE};
  tsl_stmt_visitor v = {.block = on_block, .user_data = &w};
  tsl_stmt_visit(f->body, &v);
  return w.kind;
}

const char *pass_pattern_name(int kind) {
  switch (kind) {
  case PASS_PATTERN_ELEMWISE: return "elemwise";
  case PASS_PATTERN_BROADCAST: return "broadcast";
  case PASS_PATTERN_INJECTIVE: return "injective";
  case PASS_PATTERN_COMM_REDUCE: return "reduction";
  case PASS_PATTERN_OUT_EWISE_FUSABLE: return "output-fusible";
  default: return "opaque";
  }
}
