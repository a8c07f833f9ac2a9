/*
 * targets/cuda/allreduce.c — cross-thread reductions (TVM's
 * LowerCrossThreadReduction and tvm_thread_allreduce): a reduction whose
 * reduce loop is bound to threadIdx, as CrossThreadReduction schedules it.
 *
 * Lowered, such a reduction is a threadIdx loop (its variable not in the
 * output's index), maybe serial reduce loops inside it, and a body
 *     [if <all reduce bindings at their min>: S[i] = init]
 *     S[i] = S[i] op x            op: + * min max
 * which on a GPU is a race. It becomes
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

typedef struct pattern {
  const tsl_stmt *thread;   /* the threadIdx loop */
  tsl_vec serial;           /* const tsl_stmt *: serial loops inside it */
  const tsl_stmt *init;     /* IF around the init store, or NULL */
  const tsl_stmt *update;   /* S[i] = S[i] op x */
  tsl_expr_kind op;
  const tsl_expr *x;
} pattern;

static int uses(const tsl_expr *e, const tsl_var *v) { return tsl_expr_uses_var(e, v); }

/* S[i] op x with S[i] the store's own element (either side for + * min max). */
static int match_update(const tsl_stmt *s, pattern *p) {
  const tsl_expr *v = s->u.store.value;
  if (s->kind != TSL_STMT_STORE || v->dtype.lanes != 1 ||
      (v->kind != TSL_EXPR_ADD && v->kind != TSL_EXPR_MUL && v->kind != TSL_EXPR_MIN &&
       v->kind != TSL_EXPR_MAX))
    return 0;
  for (int side = 0; side < 2; side++) {
    const tsl_expr *self = v->args[side];
    if (self->kind == TSL_EXPR_LOAD && self->u.buffer == s->u.store.buffer &&
        tsl_expr_equal(self->args[0], s->u.store.indices[0])) {
      p->update = s;
      p->op = (tsl_expr_kind)v->kind;
      p->x = v->args[1 - side];
      return 1;
    }
  }
  return 0;
}

/* The init: an IF without else storing to the update's element. */
static int match_init(const tsl_stmt *s, const pattern *p) {
  const tsl_stmt *t = s->kind == TSL_STMT_IF && !s->u.branch.else_case ? s->u.branch.then_case
                                                                         : NULL;
  return t && t->kind == TSL_STMT_STORE && t->u.store.buffer == p->update->u.store.buffer &&
         tsl_expr_equal(t->u.store.indices[0], p->update->u.store.indices[0]);
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
  if (s->kind == TSL_STMT_SEQ && s->u.seq.n == 2) {
    if (!match_update(s->u.seq.stmts[1], p) || !match_init(s->u.seq.stmts[0], p))
      return 0;
    p->init = s->u.seq.stmts[0];
  } else if (!match_update(s, p)) {
    return 0;
  }
  const tsl_expr *idx = p->update->u.store.indices[0];
  if (uses(idx, loop->u.loop.loop_var) || !uses(p->x, loop->u.loop.loop_var))
    return 0;
  for (uint32_t i = 0; i < p->serial.len; i++)
    if (uses(idx, TSL_VEC_DATA(&p->serial, const tsl_stmt *)[i]->u.loop.loop_var))
      return 0;
  return 1;
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

static const tsl_stmt *rewrite(tsl_arena *a, const pattern *p, int dim, tsl_diag *diag) {
  const tsl_dtype t = p->update->u.store.value->dtype;
  const tsl_stmt *loop = p->thread;
  int64_t extent;
  if (!tsl_expr_is_const_int(loop->u.loop.extent, &extent) || extent < 1 || extent > 1024) {
    tsl_diag_set(diag, TSL_EUNSUPPORTED, "cuda target: the cross-thread reduction over loop "
                 "'%s' needs a constant extent of 1 to 1024 threads", loop->u.loop.loop_var->name);
    return NULL;
  }
  const tsl_expr *one = tsl_expr_int(a, TSL_INT32, 1);
  const tsl_buffer *acc = tsl_buffer_new(a, "red_acc", t, 1, &one, NULL, NULL, "local", 0, 0);
  const tsl_expr *zero = tsl_expr_int(a, TSL_INT32, 0);
  const tsl_expr *acc0 = tsl_expr_load(a, acc, 1, &zero);
  /* acc = identity; serial loops: acc = acc op x */
  const tsl_stmt *fold = tsl_stmt_store(a, acc, tsl_expr_binary(a, p->op, acc0, p->x), 1, &zero);
  tsl_map mins;
  tsl_map_init(&mins, a);
  tsl_map_put(&mins, loop->u.loop.loop_var, (void *)loop->u.loop.min);
  for (uint32_t i = p->serial.len; i-- > 0;) {
    const tsl_stmt *l = TSL_VEC_DATA(&p->serial, const tsl_stmt *)[i];
    tsl_map_put(&mins, l->u.loop.loop_var, (void *)l->u.loop.min);
    fold = tsl_stmt_for(a, l->u.loop.loop_var, l->u.loop.min, l->u.loop.extent,
                        (tsl_for_kind)l->u.loop.for_kind, l->u.loop.thread_tag,
                        l->u.loop.annotations, fold);
  }
  static const char *const ops[] = {[TSL_EXPR_ADD] = "tsl_sum", [TSL_EXPR_MUL] = "tsl_prod",
                                    [TSL_EXPR_MIN] = "tsl_min_op", [TSL_EXPR_MAX] = "tsl_max_op"};
  char name[96];
  snprintf(name, sizeof name, "tsl_allreduce<%s, %lld, %d>", ops[p->op], (long long)extent, dim);
  const tsl_expr *red = tsl_expr_call_extern(a, t, tsl_intern(tsl_arena_ctx(a), name), 1, &acc0);
  const tsl_var *rv = tsl_var_new(a, "red", t);
  /* the first thread writes: [init]; S[i] = S[i] op red */
  const tsl_stmt *upd = tsl_stmt_store(a, p->update->u.store.buffer,
      tsl_expr_binary(a, p->op, p->update->u.store.value->args[p->x == p->update->u.store.value
                                                                     ->args[1] ? 0 : 1],
                      tsl_expr_var(rv)), 1, p->update->u.store.indices);
  if (p->init) {
    const tsl_expr *cond = tsl_expr_substitute(a, p->init->u.branch.cond, var_at_min, &mins);
    const tsl_stmt *two[2] = {tsl_stmt_if(a, cond, p->init->u.branch.then_case, NULL), upd};
    upd = tsl_stmt_seq(a, 2, two);
  }
  const tsl_expr *first = tsl_expr_binary(a, TSL_EXPR_EQ, tsl_expr_var(loop->u.loop.loop_var),
                                          loop->u.loop.min);
  const tsl_stmt *body[3] = {
      tsl_stmt_store(a, acc, identity(a, p->op, t), 1, &zero), fold,
      tsl_stmt_let(a, rv, red, tsl_stmt_if(a, first, upd, NULL))};
  const tsl_stmt *inner = tsl_stmt_allocate(a, acc, tsl_stmt_seq(a, 3, body));
  return tsl_stmt_for(a, loop->u.loop.loop_var, loop->u.loop.min, loop->u.loop.extent,
                      (tsl_for_kind)loop->u.loop.for_kind, loop->u.loop.thread_tag,
                      loop->u.loop.annotations, inner);
}

typedef struct lowerer {
  tsl_mutator m;
  tsl_diag *diag;
  int rc;
} lowerer;

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
  if (body == f->body) {
    *out = f;
    return TSL_OK;
  }
  tsl_lowered_func *nf = tsl_arena_alloc(arena, sizeof *nf);
  if (!nf)
    return tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  *nf = *f;
  nf->body = body;
  *out = nf;
  return TSL_OK;
}
