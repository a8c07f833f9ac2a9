/*
 * Private interface shared by blockize and tensorize: a statement rewriter
 * with hooks for expressions, buffers and variable definitions, a small
 * variable map, and blockize of one loop as a building block of tensorize.
 */
#ifndef TESSEL_BZ_INTERNAL_H
#define TESSEL_BZ_INTERNAL_H

#include "sch_internal.h"

/* ---- variable map ------------------------------------------------------ */

typedef struct bz_map {
  uint32_t n, cap;
  const tsl_var **from;
  const tsl_expr **to;
  tsl_arena *a;
} bz_map;

void bz_map_init(bz_map *m, tsl_arena *a);
void bz_map_set(bz_map *m, const tsl_var *v, const tsl_expr *e);
const tsl_expr *bz_map_get(const bz_map *m, const tsl_var *v);
/* tsl_subst_fn over a bz_map (user data: the map). */
const tsl_expr *bz_map_subst(const tsl_var *v, void *map);

/* ---- statement rewriter -------------------------------------------------
 * Rebuilds a statement tree bottom-up. `expr` maps every top-level
 * expression (loop bounds, indices, values, bindings, predicates, region
 * bounds, iter domains); `buffer` maps buffers of stores, regions,
 * match_buffers and alloc_buffers (NULL: keep); `def` maps variables that
 * statements define (loop, let and block iter variables) and is called
 * before anything in their scope is rewritten (NULL: keep). Unchanged
 * subtrees are shared. */
typedef struct bz_rw bz_rw;
struct bz_rw {
  tsl_arena *a;
  const tsl_expr *(*expr)(bz_rw *rw, const tsl_expr *e);
  const tsl_buffer *(*buffer)(bz_rw *rw, const tsl_buffer *b);
  const tsl_var *(*def)(bz_rw *rw, const tsl_var *v);
  void *ud;
};

const tsl_stmt *bz_rw_stmt(bz_rw *rw, const tsl_stmt *s);
/* A rewritten copy of region `r`. */
tsl_buffer_region bz_rw_region(bz_rw *rw, const tsl_buffer_region *r);

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
  bz_map sub; /* old iter var -> rewritten expression */
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
