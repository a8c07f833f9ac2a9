/*
 * Helpers shared by the loop primitives (split, fuse, reorder, for-kinds,
 * annotate): simplifying block bindings after a loop variable was
 * replaced, and thread ranks. The binding checks TVM applies before
 * reorder, parallel, vectorize and bind are the shared ones of
 * sch_check.c.
 */
#ifndef TESSEL_SCH_LOOPS_INTERNAL_H
#define TESSEL_SCH_LOOPS_INTERNAL_H

#include "sch_internal.h"

/* Simplify the iter values of every block realize inside `s`, which will
 * replace p->stmts[level] (so the loops p->stmts[scope+1 .. level-1] and
 * the loops inside `s` are in scope), as TVM simplifies the bindings under
 * a split or fused loop. With preserve_unit_iters == 0, variables of loops
 * with extent 1 are first replaced by the loop's min (TVM's
 * simplify_trivial_iterators). */
const tsl_stmt *loops_simplify_bindings(sch_call *c, const sch_path *p,
                                        uint32_t level, const tsl_stmt *s,
                                        int preserve_unit_iters);

/* The thread scope of a thread tag: 0 blockIdx.x/y/z, 1 threadIdx.x/y/z,
 * 2 vthread / vthread.x/y/z; -1 for anything else. */
int loops_thread_rank(const char *tag);

#endif
