/*
 * targets/cuda/kernels.c — the kernels of a lowered function: each
 * outermost thread-bound loop (blockIdx.* / threadIdx.*) and everything
 * inside it is one kernel, launched where the loop stands in the host
 * code. Loops of one tag inside a kernel are one hardware index: the
 * launch extent of a tag is the largest constant extent its loops have
 * (smaller loops are guarded in the kernel), or their common symbolic
 * extent. The kernel's parameters are the buffers and scalars it uses
 * that it does not allocate or bind itself.
 */
#include "cuda_internal.h"

#include <stdio.h>
#include <string.h>

#include "tessel/analysis.h"
#include "tessel/visit.h"

static const char *const tags[TCU_N_DIMS] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                             "threadIdx.x", "threadIdx.y", "threadIdx.z"};

int tcu_thread_dim(const char *tag) {
  for (int d = 0; tag && d < TCU_N_DIMS; d++)
    if (!strcmp(tag, tags[d]))
      return d;
  return -1;
}

typedef struct finder {
  tsl_arena *arena;
  const tsl_lowered_func *f;
  tcu_kernel *k;
  tsl_map bound;  /* var or buffer -> 1: defined inside the kernel */
  tsl_map seen;   /* var or buffer -> 1: already a parameter */
  tsl_diag *diag;
  int rc;
} finder;

static void fail(finder *fd, int code, const char *fmt, const char *a, const char *b) {
  if (!fd->rc)
    fd->rc = tsl_diag_set(fd->diag, code, fmt, a, b, fd->f->name);
}

static void use_buffer(finder *fd, const tsl_buffer *b) {
  if (tsl_map_get(&fd->bound, b) || tsl_map_get(&fd->seen, b))
    return;
  tsl_map_put(&fd->seen, b, (void *)1);
  TSL_VEC_PUSH(&fd->k->buffers, const tsl_buffer *, b);
}

static int use_expr(const tsl_expr *e, void *ud) {
  finder *fd = ud;
  if (e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_BUFFER_DATA)
    use_buffer(fd, e->u.buffer);
  else if (e->kind == TSL_EXPR_VAR && !tsl_map_get(&fd->bound, e->u.var) &&
           !tsl_map_get(&fd->seen, e->u.var)) {
    tsl_map_put(&fd->seen, e->u.var, (void *)1);
    TSL_VEC_PUSH(&fd->k->vars, const tsl_var *, e->u.var);
  }
  return 0;
}

static int free_var_bound_inside(const tsl_expr *e, void *ud) {
  finder *fd = ud;
  if (e->kind == TSL_EXPR_VAR && tsl_map_get(&fd->bound, e->u.var))
    fd->rc = fd->rc ? fd->rc : 1;
  return 0;
}

/* Merge one thread loop's extent into the launch extents. */
static void launch_extent(finder *fd, const tsl_stmt *s, int d) {
  const tsl_expr *e = s->u.loop.extent, **have = &fd->k->extent[d];
  int64_t a, b;
  int save = fd->rc;
  fd->rc = 0;
  tsl_expr_visit(e, free_var_bound_inside, fd);
  int inner = fd->rc;
  fd->rc = save;
  if (inner)
    return fail(fd, TSL_EUNSUPPORTED, "cuda target: the extent of the %s loop '%s' in function "
                "'%s' depends on a variable bound inside its kernel; a launch needs it before",
                tags[d], s->u.loop.loop_var->name);
  if (!*have || (tsl_expr_is_const_int(e, &a) && tsl_expr_is_const_int(*have, &b) && a > b))
    *have = e;
  else if (!tsl_expr_equal(e, *have) && !(tsl_expr_is_const_int(e, &a) &&
                                          tsl_expr_is_const_int(*have, &b)))
    fail(fd, TSL_EUNSUPPORTED, "cuda target: the %s loop '%s' in function '%s' has a symbolic "
         "extent that differs from another loop bound to the same index; give them one extent",
         tags[d], s->u.loop.loop_var->name);
}

static void walk_kernel(finder *fd, const tsl_stmt *s) {
  switch (s->kind) {
  case TSL_STMT_FOR: {
    int d = s->u.loop.for_kind == TSL_FOR_THREAD_BINDING ? tcu_thread_dim(s->u.loop.thread_tag)
                                                          : -1;
    tsl_expr_visit(s->u.loop.min, use_expr, fd);
    tsl_expr_visit(s->u.loop.extent, use_expr, fd);
    if (d >= 0)
      launch_extent(fd, s, d);
    else if (s->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
             strncmp(s->u.loop.thread_tag, "vthread", 7))
      fail(fd, TSL_EUNSUPPORTED, "cuda target: unknown thread tag '%s' on loop '%s' in "
           "function '%s'; valid: blockIdx.x/y/z, threadIdx.x/y/z, vthread.x/y/z",
           s->u.loop.thread_tag, s->u.loop.loop_var->name);
    tsl_map_put(&fd->bound, s->u.loop.loop_var, (void *)1);
    return walk_kernel(fd, s->u.loop.body);
  }
  case TSL_STMT_STORE:
    use_buffer(fd, s->u.store.buffer);
    tsl_expr_visit(s->u.store.indices[0], use_expr, fd);
    tsl_expr_visit(s->u.store.value, use_expr, fd);
    return;
  case TSL_STMT_IF:
    tsl_expr_visit(s->u.branch.cond, use_expr, fd);
    walk_kernel(fd, s->u.branch.then_case);
    if (s->u.branch.else_case)
      walk_kernel(fd, s->u.branch.else_case);
    return;
  case TSL_STMT_LET:
    tsl_expr_visit(s->u.let.value, use_expr, fd);
    tsl_map_put(&fd->bound, s->u.let.var, (void *)1);
    return walk_kernel(fd, s->u.let.body);
  case TSL_STMT_EVALUATE:
    tsl_expr_visit(s->u.evaluate.value, use_expr, fd);
    return;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      walk_kernel(fd, s->u.seq.stmts[i]);
    return;
  case TSL_STMT_ALLOCATE: {
    const tsl_buffer *b = s->u.alloc.buffer;
    if (!b->scope || !strcmp(b->scope, "global"))
      fail(fd, TSL_EUNSUPPORTED, "cuda target: buffer '%s' is allocated in global memory "
           "inside the kernel of loop '%s' in function '%s'; compute it in its own kernel or "
           "cache it in shared or local memory", b->name, fd->k->root->u.loop.loop_var->name);
    tsl_expr_visit(b->shape[0], use_expr, fd);
    tsl_map_put(&fd->bound, b, (void *)1);
    int64_t n;
    if (b->scope && !strcmp(b->scope, "shared.dyn")) { /* its place in the dynamic block */
      if (!tsl_expr_is_const_int(b->shape[0], &n))
        return fail(fd, TSL_EUNSUPPORTED, "cuda target: shared.dyn buffer '%s'%s in function "
                    "'%s' has a symbolic size", b->name, "");
      tcu_dyn_slot slot = {b, fd->k->dyn_smem};
      TSL_VEC_PUSH(&fd->k->dyn_slots, tcu_dyn_slot, slot);
      fd->k->dyn_smem += (n * b->dtype.bits / 8 + 15) / 16 * 16;
    }
    return walk_kernel(fd, s->u.alloc.body);
  }
  }
}

static void add_kernel(finder *fd, const tsl_stmt *root, const char *prefix, tsl_vec *out) {
  tcu_kernel *k = tsl_vec_push(out);
  snprintf(k->name, sizeof k->name, "%s_%s_kernel%u", prefix, fd->f->name, out->len - 1);
  k->root = root;
  tsl_vec_init(&k->buffers, sizeof(const tsl_buffer *), fd->arena);
  tsl_vec_init(&k->vars, sizeof(const tsl_var *), fd->arena);
  tsl_vec_init(&k->dyn_slots, sizeof(tcu_dyn_slot), fd->arena);
  k->dyn_smem = 0;
  tsl_map_clear(&fd->bound);
  tsl_map_clear(&fd->seen);
  fd->k = k;
  walk_kernel(fd, root);
  fd->k = NULL;
}

static void walk_host(finder *fd, const tsl_stmt *s, const char *prefix, tsl_vec *out) {
  switch (s->kind) {
  case TSL_STMT_FOR:
    if (s->u.loop.for_kind == TSL_FOR_THREAD_BINDING && tcu_thread_dim(s->u.loop.thread_tag) >= 0)
      return add_kernel(fd, s, prefix, out);
    if (s->u.loop.for_kind == TSL_FOR_THREAD_BINDING)
      return fail(fd, TSL_EUNSUPPORTED, "cuda target: loop '%s' is bound to '%s' outside every "
                  "blockIdx/threadIdx loop in function '%s'; bind an outer loop to blockIdx.x",
                  s->u.loop.loop_var->name, s->u.loop.thread_tag);
    return walk_host(fd, s->u.loop.body, prefix, out);
  case TSL_STMT_STORE:
    return fail(fd, TSL_EUNSUPPORTED, "cuda target: the store to buffer '%s'%s in function '%s' "
                "is not inside a GPU kernel: bind its loops to blockIdx/threadIdx (did you "
                "forget to bind?)", s->u.store.buffer->name, "");
  case TSL_STMT_IF:
    walk_host(fd, s->u.branch.then_case, prefix, out);
    if (s->u.branch.else_case)
      walk_host(fd, s->u.branch.else_case, prefix, out);
    return;
  case TSL_STMT_LET:
    return walk_host(fd, s->u.let.body, prefix, out);
  case TSL_STMT_EVALUATE:
    return fail(fd, TSL_EUNSUPPORTED, "cuda target: an evaluated expression%s%s in function "
                "'%s' is outside every GPU kernel", "", "");
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      walk_host(fd, s->u.seq.stmts[i], prefix, out);
    return;
  case TSL_STMT_ALLOCATE: {
    const tsl_buffer *b = s->u.alloc.buffer;
    if (b->scope && strcmp(b->scope, "global"))
      fail(fd, TSL_EUNSUPPORTED, "cuda target: buffer '%s' of scope '%s' in function '%s' is "
           "allocated outside every GPU kernel; its scope needs a thread-bound loop around it",
           b->name, b->scope);
    return walk_host(fd, s->u.alloc.body, prefix, out);
  }
  }
}

int tcu_find_kernels(tsl_arena *arena, const tsl_lowered_func *f, const char *prefix,
                     tsl_vec *kernels, tsl_diag *diag) {
  finder fd = {.arena = arena, .f = f, .diag = diag};
  tsl_map_init(&fd.bound, NULL);
  tsl_map_init(&fd.seen, NULL);
  tsl_vec_init(kernels, sizeof(tcu_kernel), NULL);
  walk_host(&fd, f->body, prefix, kernels);
  tsl_map_free(&fd.bound);
  tsl_map_free(&fd.seen);
  if (fd.rc)
    tcu_kernels_free(kernels);
  return fd.rc;
}

void tcu_kernels_free(tsl_vec *kernels) { tsl_vec_free(kernels); }

int tcu_with_body(tsl_arena *arena, const tsl_lowered_func *f, const tsl_stmt *body,
                  const tsl_lowered_func **out, tsl_diag *diag) {
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
