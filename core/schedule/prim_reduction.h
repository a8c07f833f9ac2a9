/*
 * Helpers shared by decompose_reduction and rfactor (prim_reduction.c):
 * region substitution, predicate projection and small expression
 * utilities; recognizing a block's reducer (reducer.c).
 */
#ifndef TESSEL_PRIM_REDUCTION_H
#define TESSEL_PRIM_REDUCTION_H

#include "sch_internal.h"

/* Regions (a new array) with the variables of `vars` (const tsl_var * ->
 * const tsl_expr *) substituted in every range. */
tsl_buffer_region *red_subst_regions(tsl_arena *a, const tsl_buffer_region *r,
                                     uint32_t n, const tsl_map *vars);

/* Distinct variables of `e` in pre-order (left to right). Returns the
 * count; *out is arena-allocated. */
uint32_t red_expr_vars(tsl_arena *a, const tsl_expr *e, const tsl_var ***out);

/* The predicate for a copy of the block realize at the end of `bp` that
 * loses the loops `vars` (loops of `bp`): conjuncts that use none of them
 * are kept; a conjunct `lhs < rhs` whose lhs uses some becomes
 * `min(lhs) < rhs`, the minimum taken over those loops' domains (it holds
 * iff some iteration of them satisfies the original), and is dropped when
 * provably true; any other conjunct that uses them is dropped (TVM's
 * RemakePredicate drops them all, which can leave spatial iterators of
 * the copy unbounded). Constant true when none is left. */
const tsl_expr *red_project_predicate(sch_call *c, const sch_path *bp,
                                      const tsl_expr *pred, uint32_t n,
                                      const tsl_var *const *vars);

/* ---- the reduction a block performs (reducer.c) ---- */

#define RED_MAX_BUFFERS 4
enum {
  RED_ADD,
  RED_MUL,
  RED_MIN,
  RED_MAX,
  RED_SUM2,       /* (x0 + y0, x1 + y1) */
  RED_ARGMAX,     /* Select(x1 >= y1, x0, y0), Select(x1 >= y1, x1, y1) */
  RED_ARGMAX_TIE, /* ties keep the smaller index */
  RED_ARGMIN,
  RED_ARGMIN_TIE
};

/* A block's reduction: buffers in reduction order (the order of the body's
 * lets), all stored at the same indices; updates value[i] =
 * combine(lhs, rhs)[i] with lhs[i] the load of buf[i] at the indices. */
typedef struct red_reducer {
  uint32_t n, kind;
  const tsl_buffer *buf[RED_MAX_BUFFERS];
  const tsl_stmt *store[RED_MAX_BUFFERS];
  const tsl_expr *value[RED_MAX_BUFFERS]; /* let values inlined */
  const tsl_expr *identity[RED_MAX_BUFFERS];
  const tsl_expr *lhs[RED_MAX_BUFFERS], *rhs[RED_MAX_BUFFERS];
  uint32_t n_indices;
  const tsl_expr *const *indices;
} red_reducer;

/* Recognize the reduction of block `b` (TVM's conditions on init, lets and
 * stores, then its reducer registry); fails through sch_fail. */
int red_match_reducer(sch_call *c, const tsl_block *b, red_reducer *r);
/* The combined values (r->n of them) of reducer `kind`. */
void red_combine(tsl_arena *a, uint32_t kind, const tsl_expr *const *x,
                 const tsl_expr *const *y, const tsl_expr **out);
/* Store values[i] to bufs[i] at idx: one store, or for several buffers
 * lets `v_<buffer>` followed by the stores (as TVM writes them). */
const tsl_stmt *red_update_stmt(sch_call *c, const red_reducer *r,
                                const tsl_buffer *const *bufs, uint32_t n_idx,
                                const tsl_expr *const *idx,
                                const tsl_expr *const *values);
/* The identities stored to bufs[i] at idx (an init). */
const tsl_stmt *red_init_stmt(sch_call *c, const red_reducer *r,
                              const tsl_buffer *const *bufs, uint32_t n_idx,
                              const tsl_expr *const *idx);

/* 1 when `e` is the constant true. */
int red_is_true(const tsl_expr *e);

#endif
