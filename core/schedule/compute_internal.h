/*
 * Shared helpers of the compute-location primitives (compute_at,
 * reverse_compute_at, compute_inline, reverse_compute_inline,
 * sample_compute_location): the block scope and its dataflow, the block
 * kind checks TVM applies, removing a leaf block, and the entry points the
 * sampler uses for trial runs.
 */
#ifndef TESSEL_COMPUTE_INTERNAL_H
#define TESSEL_COMPUTE_INTERNAL_H

#include "sch_internal.h"

/* The scope (nearest enclosing block) of a block and its child blocks. */
typedef struct cmp_scope {
  sch_path path;          /* ends at the scope's BLOCK_REALIZE */
  uint32_t level;         /* == path.depth - 1 */
  const tsl_block *block; /* the scope block */
  uint32_t n;             /* child blocks, program order */
  sch_path *kids;
  uint32_t self; /* index of the block itself among kids */
} cmp_scope;

/* Fill `s` for the block at `p`. */
void cmp_scope_of(sch_call *c, const sch_path *p, cmp_scope *s);
const tsl_block *cmp_kid(const cmp_scope *s, uint32_t i);
/* 1 when `b` depends on `a` (TVM's RAW or WAW): `a` writes a buffer `b`
 * reads or writes. */
int cmp_feeds(const tsl_block *a, const tsl_block *b);
/* Producers (earlier kids feeding kid i) / consumers (later kids fed by
 * kid i) as kid indices; returns the count, *out arena-allocated. */
uint32_t cmp_producers(sch_call *c, const cmp_scope *s, uint32_t i,
                       uint32_t **out);
uint32_t cmp_consumers(sch_call *c, const cmp_scope *s, uint32_t i,
                       uint32_t **out);
/* Number of kids writing buffer `b`. */
uint32_t cmp_writers(const cmp_scope *s, const tsl_buffer *b);

/* Checks; each fails through sch_fail with a message naming the block. */
int cmp_check_stage_pipeline(sch_call *c, const cmp_scope *s);
int cmp_check_complete(sch_call *c, const cmp_scope *s, uint32_t i);
int cmp_check_complete_or_reduction(sch_call *c, const cmp_scope *s,
                                    uint32_t i);
/* 1 when the block writes a buffer its scope block does not allocate. */
int cmp_is_output(const cmp_scope *s, const tsl_block *b);
int cmp_buffer_allocated(const tsl_block *scope, const tsl_buffer *b);

/* The function body with the block at `p` removed together with the loops
 * that contain nothing else. Fails when nothing would be left of the scope
 * or the block sits under an if/let chain. */
int cmp_remove_leaf(sch_call *c, const sch_path *p, uint32_t scope_level,
                    const tsl_stmt **body);

/* Loop kind TVM's GetLoopIterType computes: TSL_ITER_SPATIAL,
 * TSL_ITER_REDUCE or TSL_ITER_OPAQUE from the bindings of the blocks
 * directly under the loop. */
uint32_t cmp_loop_iter_type(const tsl_stmt *loop);

/* What compute_at derives for one block var of the moved block: the range
 * of its new loop (TVM's CoverRange of the var's domain) and the bounds
 * that become a T.where when the loop may leave them (NULL: none). */
typedef struct cmp_var_dom {
  const tsl_expr *min, *extent;
  const tsl_expr *lo, *hi; /* inclusive */
} cmp_var_dom;

/* The domain of each block var of the block at `bp` when it moves under
 * the loop at `lp` (reverse: reverse_compute_at), from the regions the
 * kids `deps` of scope `s` (consumers; reverse: producers) need. `an` is
 * the call's analyzer (shape variables non-negative, the loops from `lp`
 * up to the scope bound), `fresh` one without bindings. Fails (through
 * sch_fail) when an index pattern cannot be solved. */
int cmp_block_var_domains(sch_call *c, tsl_analyzer *an, tsl_analyzer *fresh,
                          const sch_path *bp, const sch_path *lp,
                          const cmp_scope *s, const uint32_t *deps,
                          uint32_t n_deps, int reverse, cmp_var_dom *out);

/* The implementations, shared with the sampler's trial runs. */
int cmp_compute_at(sch_call *c, const sch_path *block, const sch_path *loop,
                   int preserve_unit_loops, int64_t index, int reverse);
int cmp_compute_inline(sch_call *c, const sch_path *block);
int cmp_reverse_compute_inline(sch_call *c, const sch_path *block);

/* The "loop" handles sample_compute_location returns for the root (-1)
 * and inline (-2) decisions: loop variables that no function contains,
 * recognized by their names. */
#define CMP_ROOT_MARK "<root>"
#define CMP_INLINE_MARK "<inline>"
/* -1 root mark, -2 inline mark, 0 an ordinary loop handle. */
int cmp_loop_mark(sch_call *c, tsl_sch_rv rv);

/* A heap-free printed expression for messages (arena string). */
const char *cmp_expr_str(sch_call *c, const tsl_expr *e);

#endif
