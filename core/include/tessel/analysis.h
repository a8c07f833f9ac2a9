/*
 * tessel/analysis.h — integer arithmetic simplifier, structural equality
 * and hashing, block access-region inference.
 *
 * Simplifier
 *   A tsl_analyzer holds known bounds of variables (from loop extents and
 *   block iteration domains). tsl_simplify rewrites integer expressions to a
 *   canonical form: constants folded, affine sums collected and ordered,
 *   floordiv/floormod by constants simplified using bounds (e.g.
 *   floordiv(i, 4) -> 0 when 0 <= i < 4, floormod(i*8 + j, 8) -> j when
 *   0 <= j < 8). Non-integer expressions are returned with their integer
 *   subexpressions simplified. The result is semantically equal to the input
 *   for every assignment within the bounds. Analyzers are single-threaded
 *   and own heap memory (free with tsl_analyzer_free); simplified nodes are
 *   built in the arena passed to each call.
 *
 * Structural equality
 *   Alpha-equivalence: variable and buffer names do not matter (a variable
 *   in one program must correspond to the same variable everywhere in the
 *   other), block names do. Integer index, binding, region and predicate
 *   expressions are compared after canonical simplification, so `i*4 + j`
 *   equals `j + i*4`. Function attributes compare by value except
 *   "global_symbol". `True` equals `T.bool(True)`. Hashing agrees: equal
 *   modules have equal hashes.
 */
#ifndef TESSEL_ANALYSIS_H
#define TESSEL_ANALYSIS_H

#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- simplifier ------------------------------------------------------- */

typedef struct tsl_analyzer tsl_analyzer;

TSL_API tsl_analyzer *tsl_analyzer_new(tsl_ctx *ctx);
TSL_API void tsl_analyzer_free(tsl_analyzer *an);
/* Record that `v` ranges over [min, min + extent). Non-constant min/extent
 * are reduced to constant bounds when possible, else ignored. A later bind
 * of the same var replaces the earlier one. */
TSL_API void tsl_analyzer_bind(tsl_analyzer *an, const tsl_var *v,
                               const tsl_expr *min, const tsl_expr *extent);
/* Record that `v` is exactly `value` (substituted while simplifying). */
TSL_API void tsl_analyzer_bind_value(tsl_analyzer *an, const tsl_var *v,
                                     const tsl_expr *value);
/* Forget what is known of `v`. */
TSL_API void tsl_analyzer_unbind(tsl_analyzer *an, const tsl_var *v);

/* Simplified equivalent of `e`, built in `arena`. */
TSL_API const tsl_expr *tsl_simplify(tsl_analyzer *an, tsl_arena *arena,
                                     const tsl_expr *e);
/* Constant bounds lo <= e <= hi of an integer expression. Returns 1 when
 * both are finite, else 0 (and leaves lo and hi at INT64_MIN/INT64_MAX). */
TSL_API int tsl_analyzer_const_bound(tsl_analyzer *an, const tsl_expr *e,
                                     int64_t *lo, int64_t *hi);
/* 1 when the bool expression `cond` is provably true under the bounds. */
TSL_API int tsl_analyzer_can_prove(tsl_analyzer *an, const tsl_expr *cond);
/* 1 when a - b simplifies to the constant 0. */
TSL_API int tsl_analyzer_equal(tsl_analyzer *an, const tsl_expr *a,
                               const tsl_expr *b);
/* The range an integer expression `e` covers when each of `vars[k]` ranges
 * over `doms[k]` (other variables fixed): *out gets a symbolic min and a
 * (preferably constant) extent, both simplified. Exact for affine `e`;
 * otherwise a sound over-approximation. Returns TSL_OK, or TSL_EUNSUPPORTED
 * when no finite bound could be found. */
TSL_API int tsl_analyzer_relax(tsl_analyzer *an, tsl_arena *arena,
                               const tsl_expr *e, uint32_t n_vars,
                               const tsl_var *const *vars,
                               const tsl_range *doms, tsl_range *out);

/* ---- iterator maps --------------------------------------------------------
 * tsl_iter_map_detect decides, as TVM's DetectIterMap, whether integer index
 * expressions are an iterator map of the iterators `iters[k]` ranging over
 * `doms[k]`: each index must be `base + scale * it`, where `it` fuses splits
 * `(x // lower) % extent` of the iterators (sums with chaining coefficients
 * such as `i * 4 + j` for j in [0, 4), floordiv/floormod by constants),
 * and the splits taken of any iterator must not overlap and must tile a
 * divisor of its extent (SURJECTIVE), or tile it exactly with every
 * iterator used (BIJECTIVE). `base` may use any variable that is not an
 * iterator. The predicate (NULL or true: none) is a conjunction of bounds
 * `lo <= e < hi` on iterator sums; a bounded sum shrinks to its bound, and
 * an index that uses part of it (only `j` of `i * 4 + j < 30`) is not a
 * map. Coefficients and divisors must be constants; extents may be
 * symbolic. TVM's padding of non-dividing splits is supported for a split
 * of a whole iterator that is its only use.
 * On success `out[i]` (n_indices entries, may be NULL) describes index i:
 * it covers base + scale * t for t in [0, extent) (scale 0: a constant).
 * Returns TSL_OK, or TSL_EINVALID with the first reason in `diag` (e.g.
 * "`l * 16`: ..."). Results are built in `arena`; the analyzer's bindings
 * of the iterators are restored on return. */
enum { TSL_ITER_MAP_SURJECTIVE = 0, TSL_ITER_MAP_BIJECTIVE = 1 };

typedef struct tsl_iter_index {
  const tsl_expr *base;
  int64_t scale;
  const tsl_expr *extent;
} tsl_iter_index;

TSL_API int tsl_iter_map_detect(tsl_analyzer *an, tsl_arena *arena,
                                uint32_t n_indices,
                                const tsl_expr *const *indices,
                                uint32_t n_iters, const tsl_var *const *iters,
                                const tsl_range *doms,
                                const tsl_expr *predicate, uint32_t level,
                                tsl_iter_index *out, tsl_diag *diag);

/* ---- structural equality and hashing ---------------------------------- */

/* 1 when equal, 0 when not. When not equal and `why` is non-NULL, writes a
 * NUL-terminated description of the first difference with its path, e.g.
 *   funcs[main].body.block[root].body.for[i].extent: 128 vs 64
 * into `why` (at most `why_cap` bytes). */
TSL_API int tsl_module_equal(const tsl_module *a, const tsl_module *b,
                             char *why, size_t why_cap);
TSL_API int tsl_func_equal(const tsl_func *a, const tsl_func *b, char *why,
                           size_t why_cap);
/* Expressions / statements with free variables: free variables compare by
 * identity (same tsl_var). */
TSL_API int tsl_expr_equal(const tsl_expr *a, const tsl_expr *b);
TSL_API int tsl_stmt_equal(const tsl_stmt *a, const tsl_stmt *b);

TSL_API uint64_t tsl_module_hash(const tsl_module *m);
TSL_API uint64_t tsl_func_hash(const tsl_func *f);

/* ---- access regions --------------------------------------------------- */

/* Infer the read and write regions of a block from its body and init, as
 * TVM's parser does for blocks without T.reads/T.writes: every buffer
 * accessed (except the block's own alloc_buffers) gets one region covering
 * all its accesses, with variables of loops inside the block relaxed over
 * their ranges; when the block has an init, buffers it writes are left out
 * of the reads. Regions are listed in first-access order. Results are built
 * in `arena`. Returns TSL_OK or TSL_EUNSUPPORTED (with diag) when an access
 * cannot be bounded. */
TSL_API int tsl_block_infer_regions(tsl_arena *arena, const tsl_block *block,
                                    tsl_buffer_region **reads,
                                    uint32_t *n_reads,
                                    tsl_buffer_region **writes,
                                    uint32_t *n_writes, tsl_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_ANALYSIS_H */
