/*
 * targets/cuda/warp.c — "warp" buffers in each lane's registers (TVM's
 * LowerWarpMemory).
 *
 * A warp buffer is allocated outside the threadIdx.x loops of its warp
 * (core/lower places it so) and holds, for each of the 32 lanes, w
 * elements: in its flat index e the lane is floor(e / w) mod 32, the
 * lane's own slot floor(e / 32w) * w + e mod w. w is the stride the lanes
 * take in the accesses (the coefficient of the threadIdx.x variable; the
 * intrinsics of plugins/cuda-mma index lane tx at elem_offset + 8 * tx).
 * Lowered, the buffer is a "local" array of size / 32 elements in each
 * thread:
 *   - a store must write the storing lane's own element;
 *   - a load of the reading lane's own element is a local load, one of
 *     another lane's a shuffle (tsl_warp_shfl: every lane of the warp must
 *     execute it, as TVM's __shfl_sync);
 *   - the warp-wide builtins (T.ptx_ldmatrix, T.ptx_mma, T.mma_fill,
 *     T.mma_store) get the local array and the slot of their offset.
 * The kernel's threadIdx.x loops must all have extent 32 (one warp per
 * value of the other thread indices).
 */
#include "cuda_internal.h"

#include <string.h>

#include "tessel/analysis.h"
#include "tessel/visit.h"

enum { WARP = 32 };

/* The (data, offset) operand pairs of a warp-wide builtin: positions of the
 * data operands, each followed by its offset; 0-terminated. */
static const uint32_t *warp_operands(const tsl_expr *e) {
  static const uint32_t ldmatrix[] = {3, 0}, mma[] = {6, 8, 10, 0}, fill[] = {1, 0},
                        store[] = {3, 0};
  if (e->kind != TSL_EXPR_BUILTIN)
    return NULL;
  switch (e->intrin) {
  case TSL_BUILTIN_PTX_LDMATRIX: return ldmatrix;
  case TSL_BUILTIN_PTX_MMA: return mma;
  case TSL_BUILTIN_MMA_FILL: return fill;
  case TSL_BUILTIN_MMA_STORE: return store;
  }
  return NULL;
}

static int is_data_of(const tsl_expr *e, const tsl_buffer *b) {
  return e->kind == TSL_EXPR_BUFFER_DATA && e->u.buffer == b;
}

/* ---- the lanes' stride of one buffer -------------------------------------- */

typedef struct scan {
  tsl_arena *arena;
  tsl_analyzer *an;
  const tsl_buffer *buf;
  tsl_vec lanes;   /* const tsl_var *: enclosing threadIdx.x loop variables */
  tsl_vec allowed; /* const tsl_expr *: the buffer's .data in builtin operands */
  int64_t width;   /* 0 until an access that uses the lane is seen */
  const char *bad; /* the first problem */
} scan;

static const tsl_expr *at(const tsl_var *v, void *ud) {
  const tsl_var *const *pair = ud;
  return v == pair[0] ? (const tsl_expr *)pair[1] : NULL;
}

/* The coefficient of the lane variable in `e` (0 when it does not use it). */
static void stride_of(scan *s, const tsl_expr *e) {
  if (!s->lanes.len)
    return;
  const tsl_var *lane = TSL_VEC_DATA(&s->lanes, const tsl_var *)[s->lanes.len - 1];
  if (!tsl_expr_uses_var(e, lane))
    return;
  const void *p0[2] = {lane, tsl_expr_int(s->arena, lane->dtype, 0)},
             *p1[2] = {lane, tsl_expr_int(s->arena, lane->dtype, 1)};
  const tsl_expr *d = tsl_expr_binary(s->arena, TSL_EXPR_SUB,
                                      tsl_expr_substitute(s->arena, e, at, (void *)p1),
                                      tsl_expr_substitute(s->arena, e, at, (void *)p0));
  int64_t w;
  if (!tsl_expr_is_const_int(tsl_simplify(s->an, s->arena, d), &w) || w < 1)
    s->bad = s->bad ? s->bad : "its index is not the lane (threadIdx.x) times a constant stride "
                               "plus the lane's own part";
  else if (s->width && w != s->width)
    s->bad = s->bad ? s->bad : "two accesses index the lanes with different strides";
  else
    s->width = w;
}

static int scan_expr_node(const tsl_expr *e, void *ud) {
  scan *s = ud;
  const uint32_t *ops = warp_operands(e);
  for (; ops && *ops; ops++)
    if (is_data_of(e->args[*ops], s->buf)) {
      TSL_VEC_PUSH(&s->allowed, const tsl_expr *, e->args[*ops]);
      stride_of(s, e->args[*ops + 1]);
    }
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == s->buf)
    stride_of(s, e->args[0]);
  if (is_data_of(e, s->buf)) {
    int ok = 0;
    for (uint32_t i = 0; i < s->allowed.len; i++)
      ok |= TSL_VEC_DATA(&s->allowed, const tsl_expr *)[i] == e;
    if (!ok && !s->bad)
      s->bad = "its pointer is used by something other than the warp-wide builtins "
               "(T.ptx_ldmatrix, T.ptx_mma, T.mma_fill, T.mma_store)";
  }
  return 0;
}

static int is_lane_loop(const tsl_stmt *s) {
  return s->kind == TSL_STMT_FOR && s->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
         tcu_thread_dim(s->u.loop.thread_tag) == TCU_THREAD_X;
}

static int scan_stmt(const tsl_stmt *st, void *ud) {
  scan *s = ud;
  if (st->kind == TSL_STMT_FOR) {
    tsl_analyzer_bind(s->an, st->u.loop.loop_var, st->u.loop.min, st->u.loop.extent);
    if (is_lane_loop(st))
      TSL_VEC_PUSH(&s->lanes, const tsl_var *, st->u.loop.loop_var);
  }
  if (st->kind == TSL_STMT_STORE && st->u.store.buffer == s->buf)
    stride_of(s, st->u.store.indices[0]);
  return 0;
}

static int scan_post(const tsl_stmt *st, void *ud) {
  scan *s = ud;
  if (is_lane_loop(st))
    s->lanes.len--;
  return 0;
}

static int scan_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, scan_expr_node, ud);
}

/* ---- the rewrite ------------------------------------------------------------ */

typedef struct warp_buf {
  const tsl_buffer *old, *local;
  int64_t width;
} warp_buf;

typedef struct lowerer {
  tsl_mutator m;
  tsl_analyzer *an;
  tsl_diag *diag;
  int rc;
  const tsl_stmt *kernel; /* the outermost thread-bound loop around */
  tsl_vec lanes;          /* const tsl_var *: enclosing threadIdx.x loops */
  tsl_vec bufs;           /* warp_buf: the warp buffers in scope */
} lowerer;

static const warp_buf *find(const lowerer *l, const tsl_buffer *b) {
  for (uint32_t i = 0; i < l->bufs.len; i++)
    if (TSL_VEC_DATA(&l->bufs, warp_buf)[i].old == b)
      return &TSL_VEC_DATA(&l->bufs, warp_buf)[i];
  return NULL;
}

static int fail(lowerer *l, const char *fmt, const char *a, const char *b) {
  if (!l->rc)
    l->rc = tsl_diag_set(l->diag, TSL_EUNSUPPORTED, fmt, a, b);
  return l->rc;
}

static const tsl_expr *simplified(lowerer *l, const tsl_expr *e) {
  return tsl_simplify(l->an, l->m.arena, e);
}

/* The lane's own slot of flat index e: floor(e / 32w) * w + e mod w. */
static const tsl_expr *slot(lowerer *l, const warp_buf *w, const tsl_expr *e) {
  tsl_arena *a = l->m.arena;
  const tsl_expr *wd = tsl_expr_int(a, e->dtype, w->width),
                 *group = tsl_expr_int(a, e->dtype, w->width * WARP);
  return simplified(l, tsl_expr_binary(a, TSL_EXPR_ADD,
                                       tsl_expr_binary(a, TSL_EXPR_MUL,
                                                       tsl_expr_binary(a, TSL_EXPR_FLOORDIV, e, group), wd),
                                       tsl_expr_binary(a, TSL_EXPR_FLOORMOD, e, wd)));
}

/* The lane that holds flat index e: floor(e / w) mod 32. */
static const tsl_expr *lane_of(lowerer *l, const warp_buf *w, const tsl_expr *e) {
  tsl_arena *a = l->m.arena;
  return simplified(l, tsl_expr_binary(a, TSL_EXPR_FLOORMOD,
                                       tsl_expr_binary(a, TSL_EXPR_FLOORDIV, e,
                                                       tsl_expr_int(a, e->dtype, w->width)),
                                       tsl_expr_int(a, e->dtype, WARP)));
}

static int own_lane(lowerer *l, const tsl_expr *lane) {
  if (!l->lanes.len)
    return 0;
  const tsl_var *v = TSL_VEC_DATA(&l->lanes, const tsl_var *)[l->lanes.len - 1];
  return tsl_analyzer_equal(l->an, lane, tsl_expr_var(v));
}

static const tsl_expr *on_expr(tsl_mutator *m, const tsl_expr *e) {
  lowerer *l = (lowerer *)m;
  const warp_buf *w;
  const uint32_t *ops = warp_operands(e);
  if (ops) {
    const tsl_expr *args[16];
    memcpy(args, e->args, e->n_args * sizeof *args);
    int changed = 0;
    for (; *ops; ops++)
      if (args[*ops]->kind == TSL_EXPR_BUFFER_DATA && (w = find(l, args[*ops]->u.buffer))) {
        args[*ops] = tsl_expr_buffer_data(m->arena, w->local);
        args[*ops + 1] = slot(l, w, tsl_mutate_expr(m, args[*ops + 1]));
        changed = 1;
      }
    if (changed) {
      for (uint32_t i = 0; i < e->n_args; i++)
        if (args[i] == e->args[i])
          args[i] = tsl_mutate_expr(m, args[i]);
      return tsl_expr_with_args(m->arena, e, e->n_args, args);
    }
  }
  if (e->kind == TSL_EXPR_LOAD && (w = find(l, e->u.buffer))) {
    const tsl_expr *idx = tsl_mutate_expr(m, e->args[0]), *s = slot(l, w, idx),
                   *lane = lane_of(l, w, idx), *own = tsl_expr_load(m->arena, w->local, 1, &s);
    if (own_lane(l, lane))
      return own;
    /* another lane's element: the shuffle returns the source lane's
     * local[s], so s must be the same in every lane (TVM's check) */
    const tsl_var *tx = l->lanes.len ? TSL_VEC_DATA(&l->lanes, const tsl_var *)[l->lanes.len - 1]
                                     : NULL;
    if (!tx || tsl_expr_uses_var(s, tx))
      fail(l, "cuda target: a read of warp buffer '%s' %s", w->old->name,
           "takes another lane's element at a place that depends on the reading lane (a "
           "shuffle reads one place of every lane); each lane may read its own elements, or "
           "the same place of another lane");
    const tsl_expr *two[2] = {own, lane};
    return tsl_expr_call_extern(m->arena, e->dtype, tsl_intern(tsl_arena_ctx(m->arena),
                                                               "tsl_warp_shfl"), 2, two);
  }
  return tsl_mutate_expr_children(m, e);
}

/* Every threadIdx.x loop of the kernel runs the 32 lanes of a warp. */
static int lanes_ok(const tsl_stmt *s, void *ud) {
  int64_t n, lo;
  if (is_lane_loop(s) && !(tsl_expr_is_const_int(s->u.loop.extent, &n) && n == WARP &&
                           tsl_expr_is_const_int(s->u.loop.min, &lo) && lo == 0)) {
    *(const tsl_stmt **)ud = s;
    return 1;
  }
  return 0;
}

static const tsl_stmt *warp_alloc(lowerer *l, const tsl_stmt *s) {
  tsl_arena *a = l->m.arena;
  const tsl_buffer *b = s->u.alloc.buffer;
  scan sc = {.arena = a, .an = tsl_analyzer_new(tsl_arena_ctx(a)), .buf = b};
  tsl_vec_init(&sc.lanes, sizeof(const tsl_var *), a);
  tsl_vec_init(&sc.allowed, sizeof(const tsl_expr *), a);
  tsl_stmt_visitor v = {.stmt = scan_stmt, .stmt_post = scan_post, .expr = scan_expr,
                        .user_data = &sc};
  tsl_stmt_visit(s->u.alloc.body, &v);
  tsl_analyzer_free(sc.an);
  int64_t size = tsl_buffer_const_size(b);
  const tsl_stmt *short_loop = NULL;
  if (sc.bad)
    fail(l, "cuda target: warp buffer '%s' cannot live in the lanes' registers: %s", b->name,
         sc.bad);
  else if (!sc.width)
    fail(l, "cuda target: warp buffer '%s' cannot live in the lanes' registers: %s", b->name,
         "no access indexes it by the lane (a threadIdx.x loop variable), so its elements per "
         "lane are unknown");
  else if (!l->kernel)
    fail(l, "cuda target: warp buffer '%s' %s", b->name, "is allocated outside every kernel");
  else if (tsl_stmt_visit(l->kernel, &(tsl_stmt_visitor){.stmt = lanes_ok,
                                                         .user_data = &short_loop}))
    fail(l, "cuda target: warp buffer '%s' needs the threadIdx.x loops of its kernel to run "
         "the 32 lanes of a warp (extent 32 from 0), not loop '%s'", b->name,
         short_loop->u.loop.loop_var->name);
  else if (size < 0 || sc.width > size / WARP || size % (sc.width * WARP))
    fail(l, "cuda target: warp buffer '%s' cannot live in the lanes' registers: %s", b->name,
         "its size is not a whole number of rows of 32 lanes");
  if (l->rc)
    return s;
  const tsl_expr *n = tsl_expr_int(a, b->shape[0]->dtype, size / WARP);
  warp_buf w = {b, tsl_buffer_new(a, b->name, b->dtype, 1, &n, NULL, NULL, "local", 0, 0),
                sc.width};
  TSL_VEC_PUSH(&l->bufs, warp_buf, w);
  const tsl_stmt *body = tsl_mutate_stmt(&l->m, s->u.alloc.body);
  l->bufs.len--;
  return body ? tsl_stmt_allocate(a, w.local, body) : NULL;
}

static const tsl_stmt *on_stmt(tsl_mutator *m, const tsl_stmt *s) {
  lowerer *l = (lowerer *)m;
  const warp_buf *w;
  if (s->kind == TSL_STMT_ALLOCATE && s->u.alloc.buffer->scope &&
      !strcmp(s->u.alloc.buffer->scope, "warp"))
    return warp_alloc(l, s);
  if (s->kind == TSL_STMT_STORE && (w = find(l, s->u.store.buffer))) {
    const tsl_expr *idx = tsl_mutate_expr(m, s->u.store.indices[0]),
                   *own = slot(l, w, idx);
    if (!own_lane(l, lane_of(l, w, idx)))
      fail(l, "cuda target: a store to warp buffer '%s' %s", w->old->name,
           "writes another lane's element (each lane writes only its own)");
    return tsl_stmt_store(m->arena, w->local, tsl_mutate_expr(m, s->u.store.value), 1, &own);
  }
  if (s->kind != TSL_STMT_FOR)
    return tsl_mutate_stmt_children(m, s);
  const tsl_stmt *kernel = l->kernel;
  const int lane = is_lane_loop(s);
  if (!kernel && s->u.loop.for_kind == TSL_FOR_THREAD_BINDING)
    l->kernel = s;
  if (lane)
    TSL_VEC_PUSH(&l->lanes, const tsl_var *, s->u.loop.loop_var);
  tsl_analyzer_bind(l->an, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent);
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  tsl_analyzer_unbind(l->an, s->u.loop.loop_var);
  l->lanes.len -= lane;
  l->kernel = kernel;
  return r;
}

/* Is there a warp buffer at all? (Most programs have none: nothing to do.) */
static int has_warp(const tsl_stmt *s, void *ud) {
  (void)ud;
  return s->kind == TSL_STMT_ALLOCATE && s->u.alloc.buffer->scope &&
         !strcmp(s->u.alloc.buffer->scope, "warp");
}

int tcu_lower_warp(tsl_arena *arena, const tsl_lowered_func *f, const tsl_lowered_func **out,
                   tsl_diag *diag) {
  tsl_stmt_visitor v = {.stmt = has_warp};
  if (!tsl_stmt_visit(f->body, &v)) {
    *out = f;
    return TSL_OK;
  }
  lowerer l = {.m = tsl_mutator_make(arena), .an = tsl_analyzer_new(tsl_arena_ctx(arena)),
               .diag = diag};
  l.m.stmt = on_stmt;
  l.m.expr = on_expr;
  tsl_vec_init(&l.lanes, sizeof(const tsl_var *), arena);
  tsl_vec_init(&l.bufs, sizeof(warp_buf), arena);
  const tsl_stmt *body = tsl_mutate_stmt(&l.m, f->body);
  tsl_analyzer_free(l.an);
  if (l.rc)
    return l.rc;
  return tcu_with_body(arena, f, body, out, diag);
}
