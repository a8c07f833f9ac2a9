/*
 * targets/cuda/allreduce.c — cross-thread reductions (TVM's
 * LowerCrossThreadReduction and tvm_thread_allreduce): a reduction whose
 * reduce loop is bound to threadIdx, as CrossThreadReduction schedules it.
 *
 * Lowered, such a reduction is a threadIdx loop (its variable not in the
 * output's index), maybe serial reduce loops inside it, and a body
 *     [if <all reduce bindings at their min>: S[i] = init]
 *     S[i] = S[i] op x            op: + * min max
 * (several such updates for a reduction with several outputs, each x
 * independent of the outputs), which on a GPU is a race. It becomes
 *     acc = identity; for serial loops: acc = acc op x     (each thread)
 *     red = tsl_allreduce<op, extent, dim>(acc)             (every thread)
 *     if <the thread's index at its min>: [init (its guard with the thread
 *         and serial variables at their min)]; S[i] = S[i] op red
 * The allreduce (a helper of the device prelude) is warp shuffles for a
 * power-of-two extent of threadIdx.x up to 32, else a tree in shared
 * memory; every thread of the block calls it.
 */
#include "cuda_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tessel/analysis.h"
#include "tessel/visit.h"

enum { MAX_OUTS = 4 };

/* One output of the reduction: S[i] = S[i] op x. */
typedef struct update {
  const tsl_stmt *store;
  tsl_expr_kind op;
  const tsl_expr *self, *x; /* S[i] and x */
} update;

typedef struct pattern {
  const tsl_stmt *thread; /* the threadIdx loop */
  tsl_vec serial;         /* const tsl_stmt *: serial loops inside it */
  const tsl_stmt *init;   /* IF around the init stores, or NULL */
  const tsl_expr *pred;   /* the block's predicate (T.where) around it, or NULL */
  update up[MAX_OUTS];    /* several for a reduction with several outputs */
  uint32_t n;
} pattern;

static int uses(const tsl_expr *e, const tsl_var *v) { return tsl_expr_uses_var(e, v); }

/* S[i] op x with S[i] the store's own element (either side for + * min max). */
static int match_update(const tsl_stmt *s, update *u) {
  const tsl_expr *v = s->kind == TSL_STMT_STORE ? s->u.store.value : NULL;
  if (!v || v->dtype.lanes != 1 || (v->kind != TSL_EXPR_ADD && v->kind != TSL_EXPR_MUL &&
                                    v->kind != TSL_EXPR_MIN && v->kind != TSL_EXPR_MAX))
    return 0;
  for (int side = 0; side < 2; side++) {
    const tsl_expr *self = v->args[side];
    if (self->kind == TSL_EXPR_LOAD && self->u.buffer == s->u.store.buffer &&
        tsl_expr_equal(self->args[0], s->u.store.indices[0])) {
      *u = (update){s, (tsl_expr_kind)v->kind, self, v->args[1 - side]};
      return 1;
    }
  }
  return 0;
}

/* Is `s` a store to one output's element? */
static int stores_an_output(const tsl_stmt *s, const pattern *p) {
  for (uint32_t i = 0; s->kind == TSL_STMT_STORE && i < p->n; i++)
    if (s->u.store.buffer == p->up[i].store->u.store.buffer &&
        tsl_expr_equal(s->u.store.indices[0], p->up[i].store->u.store.indices[0]))
      return 1;
  return 0;
}

/* The init: an IF without else storing to the outputs' elements. */
static int match_init(const tsl_stmt *s, const pattern *p) {
  const tsl_stmt *t = s->kind == TSL_STMT_IF && !s->u.branch.else_case ? s->u.branch.then_case
                                                                         : NULL;
  if (t && t->kind == TSL_STMT_SEQ) {
    for (uint32_t i = 0; i < t->u.seq.n; i++)
      if (!stores_an_output(t->u.seq.stmts[i], p))
        return 0;
    return 1;
  }
  return t && stores_an_output(t, p);
}

typedef struct reads_output {
  const pattern *p;
  int found;
} reads_output;

static int loads_output(const tsl_expr *e, void *ud) {
  reads_output *r = ud;
  for (uint32_t i = 0; e->kind == TSL_EXPR_LOAD && i < r->p->n; i++)
    r->found |= e->u.buffer == r->p->up[i].store->u.store.buffer;
  return 0;
}

/* The body: updates alone, or an init and the updates; each output's x
 * independent of the outputs (an argmax's is not: refused). */
static int match_body(const tsl_stmt *s, pattern *p) {
  const tsl_stmt *const *items = s->kind == TSL_STMT_SEQ ? s->u.seq.stmts : &s;
  uint32_t n = s->kind == TSL_STMT_SEQ ? s->u.seq.n : 1, first = 0;
  if (n > 1 && items[0]->kind == TSL_STMT_IF)
    first = 1;
  if (n - first < 1 || n - first > MAX_OUTS)
    return 0;
  for (uint32_t i = first; i < n; i++)
    if (!match_update(items[i], &p->up[p->n++]))
      return 0;
  if (first && !match_init(items[0], p))
    return 0;
  p->init = first ? items[0] : NULL;
  for (uint32_t i = 0; i < p->n; i++) {
    reads_output r = {p, 0};
    tsl_expr_visit(p->up[i].x, loads_output, &r);
    if (r.found)
      return 0;
  }
  return 1;
}

static int match(const tsl_stmt *loop, pattern *p, tsl_arena *arena) {
  memset(p, 0, sizeof *p);
  p->thread = loop;
  tsl_vec_init(&p->serial, sizeof(const tsl_stmt *), arena);
  const tsl_stmt *s = loop->u.loop.body;
  while (s->kind == TSL_STMT_FOR && s->u.loop.for_kind != TSL_FOR_THREAD_BINDING) {
    TSL_VEC_PUSH(&p->serial, const tsl_stmt *, s);
    s = s->u.loop.body;
  }
  if (s->kind == TSL_STMT_IF && !s->u.branch.else_case && s->u.branch.then_case->kind ==
      TSL_STMT_SEQ) { /* a predicate: the threads past a split that does not divide */
    p->pred = s->u.branch.cond;
    s = s->u.branch.then_case;
  }
  if (!match_body(s, p))
    return 0;
  int reduces = 0;
  for (uint32_t i = 0; i < p->n; i++) {
    const tsl_expr *idx = p->up[i].store->u.store.indices[0];
    if (uses(idx, loop->u.loop.loop_var))
      return 0;
    for (uint32_t k = 0; k < p->serial.len; k++)
      if (uses(idx, TSL_VEC_DATA(&p->serial, const tsl_stmt *)[k]->u.loop.loop_var))
        return 0;
    reduces |= uses(p->up[i].x, loop->u.loop.loop_var);
  }
  return reduces;
}

static const tsl_expr *identity(tsl_arena *a, tsl_expr_kind op, tsl_dtype t) {
  int isf = t.code == TSL_DT_FLOAT || t.code == TSL_DT_BFLOAT;
  if (op == TSL_EXPR_ADD || op == TSL_EXPR_MUL)
    return isf ? tsl_expr_float(a, t, op == TSL_EXPR_MUL) : tsl_expr_int(a, t, op == TSL_EXPR_MUL);
  int max = op == TSL_EXPR_MAX; /* the identity of max is the lowest value */
  if (isf)
    return tsl_expr_float(a, t, max ? -INFINITY : INFINITY);
  if (t.code == TSL_DT_UINT)
    return tsl_expr_int(a, t, max ? 0 : (int64_t)(t.bits >= 64 ? UINT64_MAX : (1ULL << t.bits) - 1));
  int64_t hi = t.bits >= 64 ? INT64_MAX : (int64_t)((1ULL << (t.bits - 1)) - 1);
  return tsl_expr_int(a, t, max ? -hi - 1 : hi);
}

static const tsl_expr *var_at_min(const tsl_var *v, void *ud) {
  const tsl_map *mins = ud;
  return tsl_map_get(mins, v);
}

static const tsl_stmt *seq(tsl_arena *a, tsl_vec *v) {
  return tsl_stmt_seq(a, v->len, TSL_VEC_DATA(v, const tsl_stmt *));
}

static const tsl_stmt *rewrite(tsl_arena *a, const pattern *p, int dim, tsl_diag *diag) {
  const tsl_stmt *loop = p->thread;
  int64_t extent;
  if (!tsl_expr_is_const_int(loop->u.loop.extent, &extent) || extent < 1 || extent > 1024) {
    tsl_diag_set(diag, TSL_EUNSUPPORTED, "cuda target: the cross-thread reduction over loop "
                 "'%s' needs a constant extent of 1 to 1024 threads", loop->u.loop.loop_var->name);
    return NULL;
  }
  static const char *const ops[] = {[TSL_EXPR_ADD] = "tsl_sum", [TSL_EXPR_MUL] = "tsl_prod",
                                    [TSL_EXPR_MIN] = "tsl_min_op", [TSL_EXPR_MAX] = "tsl_max_op"};
  const tsl_expr *one = tsl_expr_int(a, TSL_INT32, 1), *zero = tsl_expr_int(a, TSL_INT32, 0);
  const tsl_buffer *acc[MAX_OUTS];
  const tsl_expr *acc0[MAX_OUTS];
  const tsl_var *red[MAX_OUTS];
  tsl_vec start, fold, finish;
  tsl_vec_init(&start, sizeof(const tsl_stmt *), a);
  tsl_vec_init(&fold, sizeof(const tsl_stmt *), a);
  tsl_vec_init(&finish, sizeof(const tsl_stmt *), a);
  for (uint32_t i = 0; i < p->n; i++) { /* acc_i = identity; acc_i = acc_i op x_i */
    const tsl_dtype t = p->up[i].store->u.store.value->dtype;
    acc[i] = tsl_buffer_new(a, "red_acc", t, 1, &one, NULL, NULL, "local", 0, 0);
    acc0[i] = tsl_expr_load(a, acc[i], 1, &zero);
    red[i] = tsl_var_new(a, "red", t);
    TSL_VEC_PUSH(&start, const tsl_stmt *, tsl_stmt_store(a, acc[i], identity(a, p->up[i].op, t),
                                                           1, &zero));
    TSL_VEC_PUSH(&fold, const tsl_stmt *, tsl_stmt_store(a, acc[i],
                 tsl_expr_binary(a, p->up[i].op, acc0[i], p->up[i].x), 1, &zero));
    TSL_VEC_PUSH(&finish, const tsl_stmt *, tsl_stmt_store(a, p->up[i].store->u.store.buffer,
                 tsl_expr_binary(a, p->up[i].op, p->up[i].self, tsl_expr_var(red[i])), 1,
                 p->up[i].store->u.store.indices));
  }
  const tsl_stmt *folded = seq(a, &fold);
  if (p->pred)
    folded = tsl_stmt_if(a, p->pred, folded, NULL);
  tsl_map mins;
  tsl_map_init(&mins, a);
  tsl_map_put(&mins, loop->u.loop.loop_var, (void *)loop->u.loop.min);
  for (uint32_t i = p->serial.len; i-- > 0;) {
    const tsl_stmt *l = TSL_VEC_DATA(&p->serial, const tsl_stmt *)[i];
    tsl_map_put(&mins, l->u.loop.loop_var, (void *)l->u.loop.min);
    folded = tsl_stmt_for(a, l->u.loop.loop_var, l->u.loop.min, l->u.loop.extent,
                          (tsl_for_kind)l->u.loop.for_kind, l->u.loop.thread_tag,
                          l->u.loop.annotations, folded);
  }
  /* the first thread writes: [init]; S_i = S_i op red_i */
  const tsl_stmt *upd = seq(a, &finish);
  if (p->init) {
    const tsl_expr *cond = tsl_expr_substitute(a, p->init->u.branch.cond, var_at_min, &mins);
    const tsl_stmt *two[2] = {tsl_stmt_if(a, cond, p->init->u.branch.then_case, NULL), upd};
    upd = tsl_stmt_seq(a, 2, two);
  }
  const tsl_expr *first = tsl_expr_binary(a, TSL_EXPR_EQ, tsl_expr_var(loop->u.loop.loop_var),
                                          loop->u.loop.min);
  if (p->pred) /* the predicate where the reduction starts, for the writes */
    first = tsl_expr_binary(a, TSL_EXPR_AND, first,
                            tsl_expr_substitute(a, p->pred, var_at_min, &mins));
  const tsl_stmt *body = tsl_stmt_if(a, first, upd, NULL);
  for (uint32_t i = p->n; i-- > 0;) { /* every thread: red_i = allreduce(acc_i) */
    char name[96];
    snprintf(name, sizeof name, "tsl_allreduce<%s, %lld, %d>", ops[p->up[i].op],
             (long long)extent, dim);
    const tsl_expr *call = tsl_expr_call_extern(a, red[i]->dtype,
                                                tsl_intern(tsl_arena_ctx(a), name), 1, &acc0[i]);
    body = tsl_stmt_let(a, red[i], call, body);
  }
  TSL_VEC_PUSH(&start, const tsl_stmt *, folded);
  TSL_VEC_PUSH(&start, const tsl_stmt *, body);
  const tsl_stmt *inner = seq(a, &start);
  for (uint32_t i = p->n; i-- > 0;)
    inner = tsl_stmt_allocate(a, acc[i], inner);
  return tsl_stmt_for(a, loop->u.loop.loop_var, loop->u.loop.min, loop->u.loop.extent,
                      (tsl_for_kind)loop->u.loop.for_kind, loop->u.loop.thread_tag,
                      loop->u.loop.annotations, inner);
}

typedef struct lowerer {
  tsl_mutator m;
  tsl_diag *diag;
  int rc;
} lowerer;

typedef struct racy {
  const tsl_var *thread;
  const tsl_stmt *store;
} racy;

/* A store that accumulates into an element every thread of `thread`
 * shares (its index without the thread, its value with it; `local`
 * buffers are each thread's own). */
static int find_racy(const tsl_stmt *s, void *ud) {
  racy *r = ud;
  update u;
  const char *scope = s->kind == TSL_STMT_STORE ? s->u.store.buffer->scope : NULL;
  if (scope && !strcmp(scope, "local")) /* each thread's own */
    return 0;
  if (!r->store && s->kind == TSL_STMT_STORE && match_update(s, &u) &&
      !uses(s->u.store.indices[0], r->thread) && uses(u.x, r->thread))
    r->store = s;
  return 0;
}

static const tsl_stmt *on_stmt(tsl_mutator *m, const tsl_stmt *s) {
  lowerer *l = (lowerer *)m;
  int dim = s->kind == TSL_STMT_FOR && s->u.loop.for_kind == TSL_FOR_THREAD_BINDING
                ? tcu_thread_dim(s->u.loop.thread_tag) - TCU_THREAD_X : -1;
  pattern p;
  if (dim >= 0 && match(s, &p, m->arena)) {
    const tsl_stmt *r = rewrite(m->arena, &p, dim, l->diag);
    if (!r && !l->rc)
      l->rc = TSL_EUNSUPPORTED;
    return r ? r : s;
  }
  if (dim >= 0) { /* a reduction over threads this lowering does not know: refused */
    racy r = {s->u.loop.loop_var, NULL};
    tsl_stmt_visitor v = {.stmt = find_racy, .user_data = &r};
    tsl_stmt_visit(s->u.loop.body, &v);
    if (r.store && !l->rc)
      l->rc = tsl_diag_set(l->diag, TSL_EUNSUPPORTED, "cuda target: buffer '%s' accumulates "
                           "over the threads of loop '%s' in a form the cross-thread "
                           "reduction cannot lower (outputs that depend on each other, as an "
                           "argmax's, or the reduction split around the thread loop)",
                           r.store->u.store.buffer->name, s->u.loop.loop_var->name);
    if (r.store)
      return s;
  }
  return tsl_mutate_stmt_children(m, s);
}

int tcu_lower_allreduce(tsl_arena *arena, const tsl_lowered_func *f,
                        const tsl_lowered_func **out, tsl_diag *diag) {
  lowerer l = {tsl_mutator_make(arena), diag, TSL_OK};
  l.m.stmt = on_stmt;
  l.m.expr = tsl_mutate_expr_keep;
  const tsl_stmt *body = tsl_mutate_stmt(&l.m, f->body);
  if (l.rc)
    return l.rc;
  return tcu_with_body(arena, f, body, out, diag);
}
