/*
 * lower_internal.h — shared between the lowering passes (the .c files of core/lower);
 * not installed. Names use the lw_ prefix. Every pass that rewrites the
 * program is a tsl_mutator whose hooks handle only the statements and
 * expressions it changes; read-only walks are tsl_stmt_visit visitors.
 *
 * Pass order (lower.c drives it):
 *   unblock.c      blocks -> plain statements (bindings, init guard,
 *                  predicates, match_buffer views), allocation records
 *   alloc_place.c  ALLOCATE at the innermost common loop + compaction
 *   flatten.c      one flat buffer per buffer, 1-index accesses, simplify
 *   vectorize.c    VECTORIZED loops -> RAMP / BROADCAST (opts.vectorize)
 *   unroll.c       pragma_auto_unroll_max_step / pragma_unroll_explicit and
 *                  UNROLLED loops (TVM's UnrollLoop, after vectorization)
 *   promote.c      loop-invariant accesses held in register buffers
 * flops.c counts the source's arithmetic operations (FLOPs as TVM counts them).
 */
#ifndef TESSEL_LOWER_INTERNAL_H
#define TESSEL_LOWER_INTERNAL_H

#include "tessel/analysis.h"
#include "tessel/lower.h"
#include "tessel/visit.h"

/* ---- allocations found in blocks --------------------------------------- */

typedef struct lw_alloc {
  const tsl_buffer *buffer; /* the original (multi-dimensional) buffer */
  /* Loop variables the allocation must stay outside of: the loops that
   * drive a reduce iterator of a block accessing the buffer (its values
   * are carried from one iteration of such a loop to the next). */
  tsl_vec pinned_loops; /* const tsl_var * (arena) */
  /* storage_align entries (the writing block's "buffer_dim_align"): the
   * stride of dimension axis[k] is padded to offset[k] modulo factor[k] */
  uint32_t n_align;
  int64_t align_axis[8], align_factor[8], align_offset[8];
} lw_alloc;

/* A match_buffer view of an allocated buffer, as an intrinsic's
 * implementation uses it: its memory reached through `V.data` and
 * `V.elem_offset` (T.tvm_access_ptr, WMMA fragment indices) rather than
 * loads and stores. Its offset and strides depend on the shape the
 * allocation is compacted to, so unblock.c leaves the view's elem_offset
 * and stride variables (and V.data) in the program and alloc_place.c
 * binds them; a use of the elem_offset variable is an access of the whole
 * view region (TVM compacts by the block's regions, before LowerMatchBuffer). */
typedef struct lw_view_use {
  const tsl_buffer *view, *root;
  const tsl_var *elem_offset;  /* NULL when the view declares none */
  const tsl_var **strides;     /* per root dim; NULL entries: none bound */
  const tsl_expr **mins;       /* per root dim, in the unblocked program */
  const tsl_expr **lasts;      /* per root dim: the region's last index */
} lw_view_use;

/* ---- the lowering context ----------------------------------------------- */

typedef struct lw_ctx {
  tsl_arena *arena;
  tsl_ctx *tctx;
  tsl_diag *diag;
  const tsl_func *func;
  int status;
  /* unblock: allocations in first-seen order (lw_alloc, arena) and their
   * index by buffer */
  tsl_vec allocs;
  tsl_map alloc_index; /* const tsl_buffer * -> index */
  tsl_vec view_uses;   /* lw_view_use, views of allocations (unblock) */
} lw_ctx;

/* Record a failure (first one wins); returns NULL for convenience. */
void *lw_fail(lw_ctx *c, int status, const char *fmt, ...) TSL_PRINTF(3, 4);

/* The allocation record of `b`, or NULL. */
lw_alloc *lw_alloc_find(const lw_ctx *c, const tsl_buffer *b);

/* The view use whose elem_offset variable is `v` (when v != NULL) or
 * whose view buffer is `view`, or NULL. */
const lw_view_use *lw_view_use_find(const lw_ctx *c, const tsl_var *v,
                                    const tsl_buffer *view);

/* Casts `e` to the integer dtype `t` when it differs. */
const tsl_expr *lw_cast(tsl_arena *a, const tsl_expr *e, tsl_dtype t);
/* The wider of two integer dtypes (int64 wins). */
tsl_dtype lw_wider(tsl_dtype a, tsl_dtype b);
/* x + y, x - y or x * y (`kind`) of two index expressions in the wider
 * dtype. A vector index (what a tensor intrinsic's implementation writes,
 * A[T.Ramp(0, 1, 16)]) stays a RAMP or BROADCAST where the other operand
 * is scalar, so the target still sees a contiguous access. */
const tsl_expr *lw_index_op(tsl_arena *a, tsl_expr_kind kind, const tsl_expr *x,
                            const tsl_expr *y);

/* unblock.c: the function body without blocks; fills c->allocs. */
const tsl_stmt *lw_unblock(lw_ctx *c, const tsl_stmt *body);
/* alloc_place.c: wraps each recorded allocation around the statements
 * that use it, with a compacted (still multi-dimensional) buffer. */
const tsl_stmt *lw_place_allocs(lw_ctx *c, const tsl_stmt *body);
/* flatten.c: every access gets one index into a flat buffer; `params`
 * (n entries, source order) receive the flat parameter buffers. */
const tsl_stmt *lw_flatten(lw_ctx *c, const tsl_stmt *body,
                           tsl_param *params);
/* unroll.c: unrolls loops as TVM's UnrollLoop does under the unroll
 * pragmas of loops (block pragmas were moved onto loops by unblock); runs
 * after vectorize. */
const tsl_stmt *lw_unroll(lw_ctx *c, const tsl_stmt *body);
/* The annotations a block's unroll pragmas leave on the loops they cover
 * (empty when it has none). */
tsl_attrs lw_unroll_attrs(lw_ctx *c, tsl_attrs block_annotations);
/* promote.c (unless opts.no_promote): loop-invariant accesses of a buffer
 * held in a "local" register buffer over the loop; runs after unroll. */
const tsl_stmt *lw_promote(lw_ctx *c, const tsl_stmt *body);
/* vectorize.c (opts.vectorize == 1 only) */
const tsl_stmt *lw_vectorize(lw_ctx *c, const tsl_stmt *body);

#endif /* TESSEL_LOWER_INTERNAL_H */
