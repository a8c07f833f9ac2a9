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

/* Blockize the loop `p` ends at (preconditions checked, failing through
 * sch_fail). *out gets the realize of the new outer block, which is to
 * replace the loop; nothing is committed. */
int bz_blockize_loop(sch_call *c, const sch_path *p, int preserve_unit_iters,
                     const tsl_stmt **out);

#endif
