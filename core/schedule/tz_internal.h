/*
 * Private interface of tensorize: the built-in intrinsic table and the
 * structural matcher of a block against an intrinsic's description.
 */
#ifndef TESSEL_TZ_INTERNAL_H
#define TESSEL_TZ_INTERNAL_H

#include "sch_internal.h"

typedef struct tz_builtin {
  const char *name;
  const char *desc_src; /* TVMScript of the description prim_func */
  const char *impl_src; /* TVMScript of the implementation prim_func */
} tz_builtin;

/* The built-in intrinsics (intrin_builtin.c). */
const tz_builtin *tz_builtins(uint32_t *n);

/* The region of `buf` among the block's T.reads/T.writes, or NULL. */
const tsl_buffer_region *tz_find_region(const tsl_block *b, const tsl_buffer *buf);

/* How one parameter of the description binds to the program. */
typedef struct tz_binding {
  const tsl_buffer *buffer; /* the program's buffer; NULL: never used */
  uint32_t n_base;          /* == buffer->ndim */
  const tsl_expr **base;    /* where the description's region starts */
} tz_binding;

/* Match the block realized by `realize` against `desc` (its root block
 * and body) as TVM's tensorize does: same loop nest, iterators, accesses
 * and computation, buffers and variables renamed, accesses offset by the
 * block's region starts. On success fills res[k] for each parameter k of
 * `desc` and returns TSL_OK; else TSL_EINVALID with the first difference
 * in `why`. */
int tz_match(tsl_ctx *ctx, tsl_arena *a, const tsl_stmt *realize,
             const tsl_func *desc, tz_binding *res, char *why, size_t cap);

#endif
