/*
 * Helpers shared by decompose_reduction and rfactor (prim_reduction.c):
 * variable maps for substitution, predicate projection and small
 * expression utilities.
 */
#ifndef TESSEL_PRIM_REDUCTION_H
#define TESSEL_PRIM_REDUCTION_H

#include "sch_internal.h"

/* A variable -> expression map for tsl_*_substitute (arena arrays). */
typedef struct red_map {
  uint32_t n, cap;
  const tsl_var **from;
  const tsl_expr **to;
} red_map;

void red_map_put(tsl_arena *a, red_map *m, const tsl_var *v,
                 const tsl_expr *e);
const tsl_expr *red_map_get(const red_map *m, const tsl_var *v);
const tsl_expr *red_subst_expr(tsl_arena *a, const tsl_expr *e,
                               const red_map *m);
const tsl_stmt *red_subst_stmt(tsl_arena *a, const tsl_stmt *s,
                               const red_map *m);
/* Regions with `m` applied to every range. */
tsl_buffer_region *red_subst_regions(tsl_arena *a, const tsl_buffer_region *r,
                                     uint32_t n, const red_map *m);

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

/* 1 when `e` is the constant true. */
int red_is_true(const tsl_expr *e);

#endif
