/*
 * Private helpers of the layout primitives (transform_layout,
 * transform_block_layout, set_axis_separator): index maps read from
 * lambdas as TVM's IndexMap (also reindex_cache_read/write's), the site
 * that defines a buffer, the padding plan of transform_layout.
 */
#ifndef TESSEL_LAYOUT_INTERNAL_H
#define TESSEL_LAYOUT_INTERNAL_H

#include "sch_internal.h"

/* TVM's IndexMap: n_in parameters (initial indices) and n_out final
 * indices over them. Arrays in the call's arena. */
typedef struct lay_map {
  uint32_t n_in, n_out;
  const tsl_var **in;
  const tsl_expr **out;
} lay_map;

/* TVM's _get_block_default_dtype: the dtype of the block's first iterator,
 * else of its first region's first minimum, else int64. */
tsl_dtype lay_block_default_dtype(const tsl_block *b);

/* The lambda argument number `arg` as an index map (IndexMap.from_func):
 * parameters of dtype `dt`, the body a tuple / list of expressions or one
 * expression, each legalized to the parameters' dtype. Unless `n_in` is
 * LAY_ANY_ARITY the lambda must take that many parameters (`what` names
 * them in the message; zero for a block without iterators or a 0-d
 * buffer). */
#define LAY_ANY_ARITY UINT32_MAX
int lay_map_from_lambda(sch_call *c, uint32_t arg, tsl_dtype dt, uint32_t n_in,
                        const char *what, lay_map *out);

/* The map with its parameters retyped to `dt` (TVM's LegalizeIndexMapDType
 * when a buffer's shape has another index dtype than the block). */
lay_map lay_map_retype(sch_call *c, const lay_map *m, tsl_dtype dt);

/* MapIndices: the final indices with `idx` substituted for the parameters
 * (dtype-legalized), each simplified with the schedule's analyzer. */
const tsl_expr **lay_map_apply(sch_call *c, const lay_map *m,
                               const tsl_expr *const *idx);

/* The map as text, `lambda i, j: (j, i)` (arena string), for messages. */
const char *lay_map_text(sch_call *c, const lay_map *m);

/* MapRanges / MapShape: the range each final index covers when the
 * parameters range over [0, extents[k]) (TVM: the iterator-map route, else
 * bounds). Fails (naming `what`) when an output range does not start at 0. */
int lay_map_shape(sch_call *c, const lay_map *m, const tsl_expr *const *extents,
                  const char *what, const tsl_expr ***out);

/* TVM's IndexMap inverse over the domain [0, extents[k]) of each parameter:
 * `inv` maps the n_out final indices back to the n_in parameters.
 * bijective = 0: NonSurjectiveInverse, *padding gets the predicate (over
 * inv's parameters) that is true exactly on the indices no input reaches
 * (the constant false when none). bijective = 1: Inverse, fails when the
 * map is not bijective. Fails with TVM's reason when the map is not a sum
 * of iterator splits. */
int lay_map_inverse(sch_call *c, const lay_map *m, const tsl_expr *const *extents,
                    int bijective, lay_map *inv, const tsl_expr **padding);

/* Where buffer `b`, accessed by the block at the end of `p`, is defined:
 * *level = the path level of the block realize allocating it, or -1 for a
 * parameter of the function. Fails (EINVALID, TVM's message) for a buffer a
 * block declares with T.match_buffer. */
int lay_buffer_site(sch_call *c, const sch_path *p, const tsl_buffer *b,
                    int *level);

/* 1 when a T.match_buffer of `f` views buffer `b` (the view's name and the
 * block's go to *view / *block). */
int lay_buffer_viewed(const tsl_func *f, const tsl_buffer *b, tsl_str *view,
                      tsl_str *block);

/* ---- parameters in a new layout (layout_adapter.c) ---- */

/* One transform_layout of a parameter, recorded in the schedule
 * (param_layouts) for tsl_schedule_func_in_original_layout. */
typedef struct sch_param_layout {
  tsl_str func;
  uint32_t param;
  const tsl_buffer *before, *after;
  lay_map map;   /* typed as before's shape */
  lay_map pad;   /* n_out 0: no pad value */
} sch_param_layout;

void lay_record_param(sch_call *c, const tsl_func *f, const tsl_buffer *before,
                      const tsl_buffer *after, const lay_map *map, const lay_map *pad);

/* ---- transform_layout's padding (layout_pad.c) ---- */

/* What the padding plan works from. */
typedef struct lay_pad {
  const tsl_func *func; /* for fresh block names */
  const tsl_buffer *old_buf, *new_buf;
  lay_map inv;             /* new indices -> old indices (NonSurjectiveInverse) */
  const tsl_expr *padding; /* over inv.in: true exactly on the padding */
  lay_map pad;             /* the pad value over the new indices (one output) */
} lay_pad;

/* TVM's TransformLayoutPlanner, in its order of preference. */
enum {
  LAY_PLAN_NONE = 0,     /* no padding to write: accesses are remapped only */
  LAY_PLAN_PROLOGUE = 1, /* an input: a block asserting the pad value first */
  LAY_PLAN_REPLACE = 2,  /* row-major producer loops rewritten over the new
                            shape, writing the pad value into the padding */
  LAY_PLAN_EPILOGUE = 3  /* a block filling the padding after the last write */
};
typedef struct lay_plan {
  int kind;
  const tsl_stmt *prologue; /* PROLOGUE: put first in the scope block */
  tsl_map replace;          /* REPLACE: FOR -> the loop nest replacing it */
  const tsl_stmt *after;    /* EPILOGUE: the statement the block follows */
  const tsl_stmt *epilogue;
} lay_plan;

/* Plan the padding for the statements `body` (and `init`, may be NULL) of
 * the block that defines the buffer (the root block for a parameter).
 * Fails only where TVM would fail internally (a write outside any block or
 * loop). */
int lay_pad_plan(sch_call *c, const tsl_stmt *init, const tsl_stmt *body,
                 const lay_pad *in, lay_plan *out);

#endif
