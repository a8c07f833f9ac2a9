/*
 * targets/cuda/sync.c — barrier insertion in the kernels of a lowered
 * program (TVM's ThreadSync, shared scope).
 *
 * The rule. Walking each sequence inside a kernel in order, the accesses
 * to `shared*` buffers since the last barrier are pending. A statement
 * conflicts with them when it reads what a pending access wrote, or writes
 * what one read or wrote, unless both index the buffer with the same
 * expression and that expression depends on threadIdx: then every thread
 * touches its own elements. A range T.tvm_access_ptr passes to an
 * intrinsic (a WMMA load or store) is read or written as its rw_mask says,
 * by threads together. Before a conflicting statement comes
 * `T.tvm_storage_sync("shared")`, and the pending set restarts. A loop
 * that runs in time (serial, unrolled, vthread) also conflicts with
 * itself: when the accesses after its body's last barrier conflict with
 * those before its first, the body starts with a barrier (the next
 * iteration may not overwrite what this one still reads). Thread-bound
 * loops are the threads themselves: no self-conflict. No barrier goes
 * inside an IF whose condition depends on threadIdx (the threads that skip
 * it would never reach it); its accesses are placed by the barriers around
 * it. Kernels start with nothing pending. Loop variables of one thread tag are one variable in a
 * kernel, so indices compare across sibling loop nests.
 */
#include "cuda_internal.h"

#include <string.h>

#include "tessel/analysis.h"
#include "tessel/visit.h"

typedef struct access {
  const tsl_buffer *buf;
  const tsl_expr *index; /* canonical: thread variables by tag; NULL: a range */
  int write;
} access;

/* The accesses of a statement before its first barrier (head) and after
 * its last (tail); both are all of them when it has none. */
typedef struct summary {
  tsl_vec head, tail; /* access */
  int sync;
} summary;

typedef struct planner {
  tsl_arena *arena;
  tsl_map canon;    /* thread loop var -> the canonical var expr of its tag */
  tsl_map tag_var;  /* interned tag -> canonical var expr */
  tsl_vec threads;  /* const tsl_var *: the canonical threadIdx vars */
  const tsl_stmt *barrier;
  int in_kernel;
  int divergent; /* inside an IF on threadIdx: no barrier may go there */
} planner;

static int is_shared(const tsl_buffer *b) {
  return b->scope && !strncmp(b->scope, "shared", 6);
}

static void summary_init(planner *p, summary *s) {
  tsl_vec_init(&s->head, sizeof(access), p->arena);
  tsl_vec_init(&s->tail, sizeof(access), p->arena);
  s->sync = 0;
}

static void add_access(planner *p, summary *s, const tsl_buffer *b, const tsl_expr *index,
                       int write) {
  access a = {b, index ? tsl_expr_substitute_map(p->arena, index, &p->canon) : NULL, write};
  TSL_VEC_PUSH(&s->head, access, a);
  TSL_VEC_PUSH(&s->tail, access, a);
}

typedef struct reads_ctx {
  planner *p;
  summary *s;
} reads_ctx;

/* Loads, and the ranges T.tvm_access_ptr hands an intrinsic (reads, writes
 * or both, by its rw_mask; a range is never a thread's own element). */
static int collect_read(const tsl_expr *e, void *ud) {
  reads_ctx *c = ud;
  if (e->kind == TSL_EXPR_LOAD && is_shared(e->u.buffer))
    add_access(c->p, c->s, e->u.buffer, e->args[0], 0);
  int64_t mask = 3;
  if (e->kind == TSL_EXPR_BUILTIN && e->intrin == TSL_BUILTIN_TVM_ACCESS_PTR &&
      e->args[1]->kind == TSL_EXPR_BUFFER_DATA && is_shared(e->args[1]->u.buffer)) {
    if (!tsl_expr_is_const_int(e->args[4], &mask))
      mask = 3;
    for (int w = 0; w < 2; w++)
      if (mask & (1 << w))
        add_access(c->p, c->s, e->args[1]->u.buffer, NULL, w);
  }
  return 0;
}

static void reads_of(planner *p, summary *s, const tsl_expr *e) {
  reads_ctx c = {p, s};
  if (e)
    tsl_expr_visit(e, collect_read, &c);
}

static int uses_thread(planner *p, const tsl_expr *e) {
  for (uint32_t i = 0; i < p->threads.len; i++)
    if (tsl_expr_uses_var(e, TSL_VEC_DATA(&p->threads, const tsl_var *)[i]))
      return 1;
  return 0;
}

static int conflict(planner *p, const tsl_vec *before, const tsl_vec *after) {
  const access *a = before->data, *b = after->data;
  for (uint32_t i = 0; i < before->len; i++)
    for (uint32_t j = 0; j < after->len; j++)
      if (a[i].buf == b[j].buf && (a[i].write || b[j].write) &&
          !(a[i].index && b[j].index && tsl_expr_equal(a[i].index, b[j].index) &&
            uses_thread(p, a[i].index)))
        return 1;
  return 0;
}

static const tsl_stmt *plan(planner *p, const tsl_stmt *s, summary *out);

static const tsl_stmt *plan_seq(planner *p, const tsl_stmt *s, summary *out) {
  uint32_t n = s->kind == TSL_STMT_SEQ ? s->u.seq.n : 1;
  const tsl_stmt *const *items = s->kind == TSL_STMT_SEQ ? s->u.seq.stmts : &s;
  tsl_vec stmts, pending;
  tsl_vec_init(&stmts, sizeof(const tsl_stmt *), p->arena);
  tsl_vec_init(&pending, sizeof(access), p->arena);
  int changed = 0;
  for (uint32_t i = 0; i < n; i++) {
    summary e;
    const tsl_stmt *ns = plan(p, items[i], &e);
    changed |= ns != items[i];
    if (p->in_kernel && !p->divergent && conflict(p, &pending, &e.head)) {
      TSL_VEC_PUSH(&stmts, const tsl_stmt *, p->barrier);
      pending.len = 0;
      changed = 1;
      out->sync = 1;
    }
    if (!out->sync) /* no barrier yet: everything so far is the head */
      tsl_vec_append(&out->head, e.head.data, e.head.len);
    if (e.sync) {
      if (!out->sync)
        out->sync = 1;
      pending.len = 0;
    }
    tsl_vec_append(&pending, e.tail.data, e.tail.len);
    TSL_VEC_PUSH(&stmts, const tsl_stmt *, ns);
  }
  tsl_vec_append(&out->tail, pending.data, pending.len);
  if (!changed)
    return s;
  return tsl_stmt_seq(p->arena, stmts.len, TSL_VEC_DATA(&stmts, const tsl_stmt *));
}

static const tsl_stmt *plan_for(planner *p, const tsl_stmt *s, summary *out) {
  const tsl_var *v = s->u.loop.loop_var;
  int thread = s->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
               tcu_thread_dim(s->u.loop.thread_tag) >= 0;
  int kernel_root = thread && !p->in_kernel;
  if (thread) {
    const tsl_expr *cv = tsl_map_get(&p->tag_var, s->u.loop.thread_tag);
    if (!cv) {
      const tsl_var *nv = tsl_var_new(p->arena, s->u.loop.thread_tag, v->dtype);
      cv = tsl_expr_var(nv);
      tsl_map_put(&p->tag_var, s->u.loop.thread_tag, (void *)cv);
      if (tcu_thread_dim(s->u.loop.thread_tag) >= TCU_THREAD_X)
        TSL_VEC_PUSH(&p->threads, const tsl_var *, nv);
    }
    tsl_map_put(&p->canon, v, (void *)cv);
    p->in_kernel = 1;
  }
  summary b;
  summary_init(p, &b);
  reads_of(p, &b, s->u.loop.min);
  reads_of(p, &b, s->u.loop.extent);
  const tsl_stmt *body = plan_seq(p, s->u.loop.body, &b);
  if (kernel_root) { /* a kernel: nothing crosses its launch */
    p->in_kernel = 0;
    return body == s->u.loop.body ? s : tsl_stmt_for(p->arena, v, s->u.loop.min,
        s->u.loop.extent, s->u.loop.for_kind, s->u.loop.thread_tag, s->u.loop.annotations,
        body);
  }
  if (!thread && p->in_kernel && !p->divergent && conflict(p, &b.tail, &b.head)) {
    const tsl_stmt *two[2] = {p->barrier, body};
    body = tsl_stmt_seq(p->arena, 2, two);
    b.head.len = 0;
    b.sync = 1;
  }
  *out = b;
  if (body == s->u.loop.body)
    return s;
  return tsl_stmt_for(p->arena, v, s->u.loop.min, s->u.loop.extent, s->u.loop.for_kind,
                      s->u.loop.thread_tag, s->u.loop.annotations, body);
}

static const tsl_stmt *plan(planner *p, const tsl_stmt *s, summary *out) {
  summary_init(p, out);
  switch (s->kind) {
  case TSL_STMT_SEQ:
    return plan_seq(p, s, out);
  case TSL_STMT_FOR:
    return plan_for(p, s, out);
  case TSL_STMT_STORE:
    reads_of(p, out, s->u.store.value);
    reads_of(p, out, s->u.store.indices[0]);
    if (is_shared(s->u.store.buffer))
      add_access(p, out, s->u.store.buffer, s->u.store.indices[0], 1);
    return s;
  case TSL_STMT_EVALUATE:
    if (s->u.evaluate.value->kind == TSL_EXPR_BUILTIN &&
        s->u.evaluate.value->intrin == TSL_BUILTIN_TVM_STORAGE_SYNC) {
      out->sync = 1;
      return s;
    }
    reads_of(p, out, s->u.evaluate.value);
    return s;
  case TSL_STMT_LET: {
    reads_of(p, out, s->u.let.value);
    summary b;
    const tsl_stmt *body = plan_seq(p, s->u.let.body, (summary_init(p, &b), &b));
    tsl_vec_append(&out->head, b.head.data, b.head.len);
    tsl_vec_append(&out->tail, b.tail.data, b.tail.len);
    out->sync = b.sync;
    return body == s->u.let.body ? s : tsl_stmt_let(p->arena, s->u.let.var, s->u.let.value, body);
  }
  case TSL_STMT_ALLOCATE: {
    const tsl_stmt *body = plan_seq(p, s->u.alloc.body, out);
    return body == s->u.alloc.body ? s : tsl_stmt_allocate(p->arena, s->u.alloc.buffer, body);
  }
  case TSL_STMT_IF: {
    reads_of(p, out, s->u.branch.cond);
    summary t, e;
    summary_init(p, &e);
    /* a condition on threadIdx splits the threads: a barrier inside would
     * wait for threads that never come; its accesses count before it */
    int divergent = uses_thread(p, tsl_expr_substitute_map(p->arena, s->u.branch.cond,
                                                            &p->canon));
    p->divergent += divergent;
    const tsl_stmt *th = plan_seq(p, s->u.branch.then_case, (summary_init(p, &t), &t));
    const tsl_stmt *el = s->u.branch.else_case ? plan_seq(p, s->u.branch.else_case, &e) : NULL;
    p->divergent -= divergent;
    if (divergent) { /* all of them both before and after its (absent) barriers */
      tsl_vec_append(&t.head, t.tail.data, t.tail.len);
      tsl_vec_append(&e.head, e.tail.data, e.tail.len);
      t.tail = t.head;
      e.tail = e.head;
      t.sync = e.sync = 0;
    }
    tsl_vec_append(&out->head, t.head.data, t.head.len);
    tsl_vec_append(&out->head, e.head.data, e.head.len);
    tsl_vec_append(&out->tail, t.tail.data, t.tail.len);
    tsl_vec_append(&out->tail, e.tail.data, e.tail.len);
    out->sync = t.sync || e.sync;
    if (th == s->u.branch.then_case && el == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(p->arena, s->u.branch.cond, th, el);
  }
  }
  return s;
}

int tcu_insert_syncs(tsl_arena *arena, const tsl_lowered_func *f, const tsl_lowered_func **out,
                     tsl_diag *diag) {
  planner p = {.arena = arena};
  tsl_map_init(&p.canon, arena);
  tsl_map_init(&p.tag_var, arena);
  tsl_vec_init(&p.threads, sizeof(const tsl_var *), arena);
  const tsl_expr *scope = tsl_expr_str(arena, tsl_intern(tsl_arena_ctx(arena), "shared"));
  p.barrier = tsl_stmt_evaluate(arena, tsl_expr_builtin(arena, TSL_BUILTIN_TVM_STORAGE_SYNC,
                                                        TSL_INT32, 1, &scope));
  summary s;
  summary_init(&p, &s);
  const tsl_stmt *body = plan_seq(&p, f->body, &s);
  return tcu_with_body(arena, f, body, out, diag);
}
