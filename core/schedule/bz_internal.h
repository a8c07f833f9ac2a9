/*
 * Private interface of blockize (one loop, a list of blocks) and of
 * tensorize, which blockizes a loop first.
 */
#ifndef TESSEL_BZ_INTERNAL_H
#define TESSEL_BZ_INTERNAL_H

#include "sch_internal.h"

#include "tessel/container.h"

/* ---- blockize ----------------------------------------------------------- */

typedef struct bz_ctx {
  sch_call *c;
  tsl_arena *a;
  tsl_analyzer *an;
  const tsl_func *f;
  const tsl_var *target;   /* loop var of the target loop (NULL: a list) */
  const char *target_name; /* "loop 'i'": what messages say the inner
                              loops are inside */
  uint32_t n_loops;        /* the inner loops, outer to inner */
  const tsl_stmt **loops;
  tsl_map sub; /* old iter var -> rewritten expression */
} bz_ctx;

/* One block divided for blockize (TVM's subspace division). */
typedef struct bz_part {
  uint32_t n;              /* outer iters: one per iter of the block */
  tsl_iter_var *oivs;
  const tsl_expr **ovals;  /* their bindings */
  const tsl_expr *outer_pred;
  const tsl_stmt *inner;   /* the inner realize (no init; under an outer
                              reduction its reads start with its writes) */
  const tsl_stmt *init;    /* the block's init rewritten, or NULL */
  int outer_reduce;        /* the init exists and an outer iter reduces */
  uint32_t n_reads, n_writes;
  tsl_buffer_region *reads, *writes; /* relaxed over the inner iters */
} bz_part;

/* Divide the block `bp` ends at: the loops of bp from level `top` down
 * (x->loops, x->n_loops) are inner, the rest outer. `reuse` (may be NULL)
 * gives the outer iter vars to use (one per iter) instead of new ones
 * `<iter>_o`. Fails through sch_fail. */
int bz_divide(bz_ctx *x, const sch_path *bp, uint32_t top, int preserve,
              const tsl_iter_var *reuse, bz_part *out);

/* blockize of a list of block handles (prim_blockize_blocks.c): commits
 * and hands out the outer block. */
int bz_blockize_blocks(sch_call *c, const tsl_sch_value *list, int preserve);

/* Blockize the loop `p` ends at (preconditions checked, failing through
 * sch_fail). *out gets the realize of the new outer block, which is to
 * replace the loop; nothing is committed. */
int bz_blockize_loop(sch_call *c, const sch_path *p, int preserve_unit_iters,
                     const tsl_stmt **out);

#endif
