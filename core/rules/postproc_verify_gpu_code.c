/*
 * VerifyGPUCode, as TVM's postprocessor: a candidate whose GPU code breaks
 * the device's limits is rejected before it is built. First the thread
 * extents of each block against the bounds MultiLevelTiling annotated
 * (meta_schedule.thread_extent_low/high_inclusive); then, on the lowered
 * program, each kernel (an outermost blockIdx / threadIdx loop): threads
 * per block, shared memory, virtual threads and the bytes of a vector
 * access. A program that does not lower is rejected too.
 */
#include "rules_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tsl_postproc {
  int64_t max_shared_memory_per_block, max_threads_per_block, max_vthread, max_vector_bytes,
      thread_warp_size;
} vgc_pp;

static const rule_opt vgc_opts[] = {
    {"max_shared_memory_per_block", RULE_OPT_INT, offsetof(vgc_pp, max_shared_memory_per_block)},
    {"max_threads_per_block", RULE_OPT_INT, offsetof(vgc_pp, max_threads_per_block)},
    {"max_vthread", RULE_OPT_INT, offsetof(vgc_pp, max_vthread)},
    {"max_vector_bytes", RULE_OPT_INT, offsetof(vgc_pp, max_vector_bytes)},
    {"thread_warp_size", RULE_OPT_INT, offsetof(vgc_pp, thread_warp_size)},
};

/* Defaults: an NVIDIA GPU's (48 KiB of static shared memory, 1024 threads,
 * warps of 32) and TVM's fixed 8 virtual threads and 16-byte vectors. */
static int vgc_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_postproc **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  vgc_pp p = {49152, 1024, 8, 16, 32};
  int rc = rule_parse_opts("VerifyGPUCode", vgc_opts, sizeof vgc_opts / sizeof vgc_opts[0], n,
                           opts, &p, diag);
  if (rc)
    return rc;
  if (!(*out = malloc(sizeof p)))
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  **out = p;
  return TSL_OK;
}

static void vgc_destroy(tsl_postproc *p) { free(p); }

/* The dimension of a tag: 0..2 threadIdx.x/y/z, 3..5 blockIdx, 6..8
 * vthread, -1 otherwise. */
static int tag_dim(const char *tag) {
  static const char *const prefix[3] = {"threadIdx.", "blockIdx.", "vthread."};
  for (int k = 0; tag && k < 3; k++) {
    size_t n = strlen(prefix[k]);
    if (!strncmp(tag, prefix[k], n) && tag[n] >= 'x' && tag[n] <= 'z' && !tag[n + 1])
      return 3 * k + tag[n] - 'x';
  }
  return -1;
}

/* ---- thread extents of the blocks (TVM's ThreadExtentChecker) ------------------ */

typedef struct extent_walk {
  const vgc_pp *p;
  int64_t idx[3];
  tsl_diag *diag;
  int rc;
} extent_walk;

static void check_extents(extent_walk *w, const tsl_stmt *s);

static void check_block(extent_walk *w, const tsl_stmt *s) {
  const tsl_block *b = s->u.realize.block;
  int64_t old_x = w->idx[0];
  if (tsl_attrs_get(b->annotations, "warp_execution"))
    w->idx[0] = w->p->thread_warp_size;
  const tsl_attr_value *lo = tsl_attrs_get(b->annotations,
                                           "meta_schedule.thread_extent_low_inclusive");
  const tsl_attr_value *hi = tsl_attrs_get(b->annotations,
                                           "meta_schedule.thread_extent_high_inclusive");
  int64_t threads = w->idx[0] * w->idx[1] * w->idx[2];
  if (lo && hi && lo->kind == TSL_ATTR_INT && hi->kind == TSL_ATTR_INT &&
      (threads < lo->u.i || threads > hi->u.i) && !w->rc)
    w->rc = tsl_diag_set(w->diag, TSL_EINVALID, "block '%s' runs on %lld threads; "
                         "its tiling asks for %lld to %lld", b->name, (long long)threads,
                         (long long)lo->u.i, (long long)hi->u.i);
  if (b->init)
    check_extents(w, b->init);
  check_extents(w, b->body);
  w->idx[0] = old_x;
}

static void check_extents(extent_walk *w, const tsl_stmt *s) {
  int64_t e;
  switch (s->kind) {
  case TSL_STMT_FOR: {
    int d = s->u.loop.for_kind == TSL_FOR_THREAD_BINDING ? tag_dim(s->u.loop.thread_tag) : -1;
    if (d < 0 || d > 2)
      return check_extents(w, s->u.loop.body);
    if (!tsl_expr_is_const_int(s->u.loop.extent, &e)) {
      if (!w->rc)
        w->rc = tsl_diag_set(w->diag, TSL_EINVALID, "loop '%s' is bound to %s "
                             "with a dynamic extent", s->u.loop.loop_var->name,
                             s->u.loop.thread_tag);
      return;
    }
    int64_t old = w->idx[d];
    w->idx[d] = e;
    check_extents(w, s->u.loop.body);
    w->idx[d] = old;
    return;
  }
  case TSL_STMT_BLOCK_REALIZE: return check_block(w, s);
  case TSL_STMT_IF:
    check_extents(w, s->u.branch.then_case);
    if (s->u.branch.else_case)
      check_extents(w, s->u.branch.else_case);
    return;
  case TSL_STMT_LET: return check_extents(w, s->u.let.body);
  case TSL_STMT_ALLOCATE: return check_extents(w, s->u.alloc.body);
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      check_extents(w, s->u.seq.stmts[i]);
    return;
  }
}

/* ---- the kernels of the lowered program ---------------------------------------- */

typedef struct kernel_use {
  int64_t extent[9]; /* per tag dimension, the largest */
  int64_t shared_bytes, vector_bytes;
  const char *root;  /* the kernel's outermost loop */
} kernel_use;

static int vector_access(const tsl_expr *e, void *ud) {
  kernel_use *k = ud;
  if (e->kind == TSL_EXPR_LOAD && e->dtype.lanes > 1) {
    int64_t bytes = (int64_t)e->dtype.lanes * ((e->dtype.bits + 7) / 8);
    k->vector_bytes = bytes > k->vector_bytes ? bytes : k->vector_bytes;
  }
  return 0;
}

static void use_kernel(kernel_use *k, const tsl_stmt *s) {
  int64_t e;
  switch (s->kind) {
  case TSL_STMT_FOR: {
    int d = s->u.loop.for_kind == TSL_FOR_THREAD_BINDING ? tag_dim(s->u.loop.thread_tag) : -1;
    if (d >= 0 && tsl_expr_is_const_int(s->u.loop.extent, &e) && e > k->extent[d])
      k->extent[d] = e;
    return use_kernel(k, s->u.loop.body);
  }
  case TSL_STMT_STORE: {
    const tsl_expr *v = s->u.store.value;
    if (v->dtype.lanes > 1) {
      int64_t bytes = (int64_t)v->dtype.lanes * ((v->dtype.bits + 7) / 8);
      k->vector_bytes = bytes > k->vector_bytes ? bytes : k->vector_bytes;
    }
    tsl_expr_visit(v, vector_access, k);
    return;
  }
  case TSL_STMT_IF:
    use_kernel(k, s->u.branch.then_case);
    if (s->u.branch.else_case)
      use_kernel(k, s->u.branch.else_case);
    return;
  case TSL_STMT_LET: return use_kernel(k, s->u.let.body);
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      use_kernel(k, s->u.seq.stmts[i]);
    return;
  case TSL_STMT_ALLOCATE: {
    const tsl_buffer *b = s->u.alloc.buffer;
    if (b->scope && !strncmp(b->scope, "shared", 6) && tsl_expr_is_const_int(b->shape[0], &e))
      k->shared_bytes += e * ((b->dtype.bits * b->dtype.lanes + 7) / 8);
    return use_kernel(k, s->u.alloc.body);
  }
  default: return;
  }
}

static int limit(tsl_diag *diag, const kernel_use *k, const char *what, int64_t have,
                 int64_t max) {
  if (have <= max)
    return TSL_OK;
  return tsl_diag_set(diag, TSL_EINVALID, "the kernel of loop '%s' has %lld %s; "
                      "at most %lld", k->root, (long long)have, what, (long long)max);
}

static int check_kernel(const vgc_pp *p, const tsl_stmt *root, tsl_diag *diag) {
  kernel_use k = {.root = root->u.loop.loop_var->name};
  for (int d = 0; d < 9; d++)
    k.extent[d] = 1;
  use_kernel(&k, root);
  int64_t threads = k.extent[0] * k.extent[1] * k.extent[2];
  int64_t vthreads = k.extent[6] * k.extent[7] * k.extent[8];
  int rc = limit(diag, &k, "threads per block", threads, p->max_threads_per_block);
  rc = rc ? rc : limit(diag, &k, "bytes of shared memory", k.shared_bytes,
                       p->max_shared_memory_per_block);
  rc = rc ? rc : limit(diag, &k, "virtual threads", vthreads, p->max_vthread);
  return rc ? rc : limit(diag, &k, "bytes in one vector access", k.vector_bytes,
                         p->max_vector_bytes);
}

/* The kernels: outermost loops bound to threadIdx or blockIdx. */
static int check_kernels(const vgc_pp *p, const tsl_stmt *s, tsl_diag *diag) {
  int rc = TSL_OK;
  switch (s->kind) {
  case TSL_STMT_FOR: {
    int d = s->u.loop.for_kind == TSL_FOR_THREAD_BINDING ? tag_dim(s->u.loop.thread_tag) : -1;
    return d >= 0 && d < 6 ? check_kernel(p, s, diag) : check_kernels(p, s->u.loop.body, diag);
  }
  case TSL_STMT_IF:
    rc = check_kernels(p, s->u.branch.then_case, diag);
    return rc || !s->u.branch.else_case ? rc : check_kernels(p, s->u.branch.else_case, diag);
  case TSL_STMT_LET: return check_kernels(p, s->u.let.body, diag);
  case TSL_STMT_ALLOCATE: return check_kernels(p, s->u.alloc.body, diag);
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n && !rc; i++)
      rc = check_kernels(p, s->u.seq.stmts[i], diag);
    return rc;
  default: return TSL_OK;
  }
}

static int vgc_apply(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag) {
  const tsl_module *m = tsl_schedule_module(sch);
  int rc = TSL_OK;
  for (uint32_t i = 0; i < m->n_funcs && !rc; i++) {
    extent_walk w = {pp, {1, 1, 1}, diag, TSL_OK};
    check_extents(&w, m->funcs[i]->body);
    if ((rc = w.rc))
      break;
    tsl_arena *arena = tsl_arena_new(tsl_schedule_ctx(sch));
    const tsl_lowered_func *lf = NULL;
    tsl_lower_opts o = {sizeof o, 1, 0};
    tsl_diag ld = {0};
    if (!arena)
      return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
    if (tsl_lower_func(arena, m->funcs[i], &o, &lf, &ld))
      rc = tsl_diag_set(diag, TSL_EINVALID, "the program does not lower: %s",
                        ld.text);
    else
      rc = check_kernels(pp, lf->body, diag);
    tsl_arena_free(arena);
  }
  return rc;
}

const tsl_postproc_vtable postproc_verify_gpu_code_vt = {
    sizeof(tsl_postproc_vtable), vgc_create, vgc_destroy, vgc_apply};
