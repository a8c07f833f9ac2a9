/*
 * tessel/analysis.h — integer arithmetic simplifier, structural equality
 * and hashing, block access-region inference.
 *
 * Simplifier
 *   A tsl_analyzer holds known bounds of variables (from loop extents and
 *   block iteration domains; symbolic ranges are kept too) and values of
 *   variables (substituted). tsl_simplify rewrites integer expressions to a
 *   canonical form: constants folded, affine sums collected and ordered,
 *   floordiv/floormod by constants simplified using bounds (e.g.
 *   floordiv(i, 4) -> 0 when 0 <= i < 4, floormod(i*8 + j, 8) -> j when
 *   0 <= j < 8), floordiv/floormod by a symbolic divisor split off the
 *   terms that are multiples of it (floordiv(i * n + j, n) -> i +
 *   floordiv(j, n), floormod(n * 32, n) -> 0). Non-integer expressions are returned with their integer
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
/* Record that `v` ranges over [min, min + extent), as TVM's
 * Analyzer::Bind: an extent that is the literal 1 binds the value `min`
 * (as tsl_analyzer_bind_value: `v` is then replaced by `min` while
 * simplifying); otherwise the simplifier gets the constant bounds that
 * min and extent imply (none where they are unbounded), and the range
 * itself is kept for symbolic interval evaluation
 * (tsl_analyzer_can_prove_bound). min and extent are kept by reference:
 * they must outlive the binding. A later bind of the same var replaces
 * the earlier one (range and value). */
TSL_API void tsl_analyzer_bind(tsl_analyzer *an, const tsl_var *v,
                               const tsl_expr *min, const tsl_expr *extent);
/* As tsl_analyzer_bind, but a range of extent 1 gives only the constant
 * bounds of min (`v` is not replaced by it). For analyses that stand for
 * TVM's iterator domain maps rather than its Analyzer::Bind (binding
 * simplification after split/fuse, blockize, layout maps), where unit
 * iterators stay in the expressions. */
TSL_API void tsl_analyzer_bind_bounds(tsl_analyzer *an, const tsl_var *v,
                                      const tsl_expr *min,
                                      const tsl_expr *extent);
/* Record that the integer expression `e` (e.g. a buffer's shape) is >= 0,
 * as TVM's MarkGlobalNonNegValue: when `e` simplifies to `k * v + c` for
 * one variable v and k > 0 (n, n * 32, n + 1), v gets the constant lower
 * bound ceil(-c / k); other expressions are ignored. Keeps a known upper
 * bound. */
TSL_API void tsl_analyzer_mark_nonneg(tsl_analyzer *an, const tsl_expr *e);
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
/* TVM's CanProve with ProofStrength::kSymbolicBound: 1 when `cond`
 * simplifies to true, or when it is a comparison a < b, a <= b, a > b or
 * a >= b whose difference (b - a, resp. a - b), with every variable that
 * has a bound range relaxed to that range symbolically (and again where
 * the range uses such variables; variables without a range, e.g. shape
 * variables, stay), has a constant lower bound of at least 1 (strict) or
 * 0. Proves e.g. k0 * 32 + k1 < n * 32 from k0 in [0, n), k1 in [0, 32). */
TSL_API int tsl_analyzer_can_prove_bound(tsl_analyzer *an,
                                         const tsl_expr *cond);
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
/* tsl_analyzer_relax of `n` expressions over the same variables (bound
 * once, as a region's dimensions are relaxed): out[i] and ok[i] (1 when
 * exprs[i] was relaxed, else 0 and out[i] untouched). Returns TSL_OK, or
 * TSL_EUNSUPPORTED for bad arguments (every ok[i] then 0). */
TSL_API int tsl_analyzer_relax_n(tsl_analyzer *an, tsl_arena *arena, uint32_t n,
                                 const tsl_expr *const *exprs, uint32_t n_vars,
                                 const tsl_var *const *vars, const tsl_range *doms,
                                 tsl_range *out, int *ok);

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

/* ---- predicate rules (simplify_pred.c) --------------------------------
 * tsl_simplify, then TVM's rewrite rules for bounds in conditions that the
 * canonical form leaves alone: `floordiv(x, c1) < c2` becomes
 * `x < c1 * c2` (likewise <=, >, >=; c1 > 0), and in
 * `x < c1 and floormod(x, c2) < c3` the first bound is tightened
 * (`i < 16256 and i % 128 < 127` -> `i < 16255 and ...`). For predicates a
 * primitive synthesizes, so that they read as TVM's. Built in `arena`. */
TSL_API const tsl_expr *tsl_simplify_predicate(tsl_analyzer *an,
                                               tsl_arena *arena,
                                               const tsl_expr *e);

/* ---- iterator maps (iter_map.c) ---------------------------------------
 * TVM's affine iterator maps (arith/iter_affine_map.cc, v0.19): index
 * expressions over bounded iterators written as sums of splits of iterator
 * marks, the check that such indices are independent, surjective or
 * bijective, and the inverse of a map. The matching order and the shapes
 * of the expressions built follow TVM, so primitives built on them print
 * what TVM prints.
 *
 *   mark   an iterator over [0, extent): an input iterator (its variable
 *          minus its domain's min), a fused sum of splits of other marks,
 *          or one split (a padded division)
 *   split  floormod(floordiv(mark, lower_factor), extent) * scale
 *   sum    args[0] + ... + args[n-1] + base, outer (largest scale) first
 *
 * Nodes are immutable and built in the arena given to the call; marks and
 * splits are identified by address (a mark shared by two indices is the
 * same pointer). Expressions are int32 or int64.
 */
typedef struct tsl_iter_mark tsl_iter_mark;
typedef struct tsl_iter_split tsl_iter_split;
typedef struct tsl_iter_sum tsl_iter_sum;

struct tsl_iter_mark {
  const tsl_var *var;          /* input iterator, or NULL */
  const tsl_expr *var_min;     /* with var: the source is var - var_min */
  const tsl_iter_sum *sum;     /* else a fused sum, or NULL */
  const tsl_iter_split *split; /* else one split */
  const tsl_expr *extent;
  /* a padded mark (its sum is `unpadded` plus the left padding, its extent
   * that of `unpadded` plus both paddings): the mark it pads; else NULL */
  const tsl_iter_mark *unpadded;
};

struct tsl_iter_split {
  const tsl_iter_mark *source;
  const tsl_expr *lower_factor;
  const tsl_expr *extent;
  const tsl_expr *scale;
};

struct tsl_iter_sum {
  uint32_t n;
  const tsl_iter_split *const *args;
  const tsl_expr *base;
};

/* How much tsl_iter_map_detect checks (TVM's IterMapLevel). */
typedef enum tsl_iter_map_level {
  /* the splits of each mark do not overlap (a mark may be padded) */
  TSL_ITER_MAP_NO_CHECK = 0,
  /* ... and the indices could cover every mark they use */
  TSL_ITER_MAP_SURJECTIVE = 1,
  /* ... every mark is covered exactly, without padding, and every input
   * iterator of extent other than 1 is used */
  TSL_ITER_MAP_BIJECTIVE = 2
} tsl_iter_map_level;

typedef struct tsl_iter_map {
  uint32_t n;                         /* the number of indices */
  const tsl_iter_sum *const *indices; /* one sum per index */
  /* true exactly on the padding a NO_CHECK/SURJECTIVE map introduced
   * (e.g. i // 4 with i in [0, 18)), written over the input iterators;
   * the constant false when there is none */
  const tsl_expr *padding_predicate;
} tsl_iter_map;

/* TVM's DetectIterMap: rewrite `indices` over the iterators `iters`
 * ranging over `doms` (min and extent may use other variables, not the
 * iterators). `predicate` (NULL: true) is a conjunction of bounds `a < b`,
 * `a <= b`, `a > b`, `a >= b` on expressions of the iterators; a bound on a
 * single iterator narrows its domain, one on a sum constrains that fused
 * iterator. With `simplify_trivial`, iterators of extent 1 become their
 * min. Every subexpression that uses an iterator must be built from +, -,
 * * by a non-iterator, floordiv and floormod by a non-iterator. `an` may
 * hold bounds of other variables (symbolic shapes). Results are built in
 * `arena`. Returns TSL_OK, or TSL_EUNSUPPORTED with the reason in diag
 * (may be NULL) when the indices are not such a map. Unlike TVM, indices
 * that TVM would rewrite to a different value are refused: a modulus that
 * does not divide a split which wraps (`(x % 4) % 3`; `(x % 4) % 8` stays
 * `x % 4`), a dividend that does not start at a multiple of the divisor
 * where no padding is taken (`(x + 2) // 4` when bijective), and two uses
 * of one iterator that need different left paddings. Each detected index
 * equals, at every point of the domain, its sum evaluated split by split
 * (tests/analysis/test_itermap.c checks it by enumeration). */
TSL_API int tsl_iter_map_detect(tsl_analyzer *an, tsl_arena *arena,
                                uint32_t n_indices,
                                const tsl_expr *const *indices,
                                uint32_t n_iters, const tsl_var *const *iters,
                                const tsl_range *doms,
                                const tsl_expr *predicate,
                                tsl_iter_map_level level,
                                int simplify_trivial, tsl_iter_map *out,
                                tsl_diag *diag);

/* A detected index of at most one split as `base + scale * t`, t in
 * [0, extent): returns 1 and fills the outputs (a sum without splits has
 * scale 0 and extent NULL), or 0 when the sum has several splits or a
 * non-constant scale. */
TSL_API int tsl_iter_sum_as_line(const tsl_iter_sum *s, const tsl_expr **base,
                                 int64_t *scale, const tsl_expr **extent);

/* TVM's InverseAffineIterMap: given the `n` sums of a map and `outputs`
 * (the values the indices take), the expression of each input iterator the
 * map uses, written over the outputs. On TSL_OK *n_vars pairs are written
 * to *vars / *values (arena arrays, in first-reached order). The map must
 * be a fuse/split pattern (the splits of every sum of more than one split
 * have scales that multiply up by their extents, a lone split has scale 1
 * or -1, no mark is a lone split): otherwise TSL_EUNSUPPORTED with diag. */
TSL_API int tsl_iter_map_inverse(tsl_arena *arena, uint32_t n,
                                 const tsl_iter_sum *const *sums,
                                 const tsl_expr *const *outputs,
                                 uint32_t *n_vars, const tsl_var ***vars,
                                 const tsl_expr ***values, tsl_diag *diag);

/* TVM's NormalizeIterMapToExpr: the expression a sum / split stands for,
 * over the input iterators; splits covering their whole mark print without
 * floormod. Built in `arena`. */
TSL_API const tsl_expr *tsl_iter_sum_to_expr(tsl_analyzer *an,
                                             tsl_arena *arena,
                                             const tsl_iter_sum *sum);
TSL_API const tsl_expr *tsl_iter_split_to_expr(tsl_analyzer *an,
                                               tsl_arena *arena,
                                               const tsl_iter_split *split);

/* ---- suggested layouts (layout_suggest.c) -------------------------------
 * TVM's SuggestIndexMap (tir/schedule/analysis/layout.cc), what
 * MetaSchedule's RewriteLayout packs a layout-free weight by: the layout in
 * which one read of `buf` walks the buffer in loop order. The read's
 * indices (over the loop variables: block iterators already replaced by
 * their bindings) are flattened with the buffer's strides and detected as
 * an iterator map over `loops` (For statements, outermost first) under
 * `predicate` (NULL: true), surjective, unit loops dropped. Each split of
 * a loop in it becomes one dimension of the new layout; the dimensions are
 * ordered as their loops nest (outer first) and, for one loop, by lower
 * factor (larger first). The map takes the old indices `i0, i1, ...` (the
 * shape's index dtype), flattens them and splits the flat index by the
 * dimensions' extents. E.g. B[k, j] of shape (16, 16) read as
 * B[k0 * 4 + k1, j] under loops (i0, j, k0, i1, k1) gives
 * `lambda i0, i1: (i1, i0 // 4, i0 % 4)`. TSL_EUNSUPPORTED (no
 * suggestion, the reason in diag) when the index is not such a map, or
 * no loop reaches it. The analyzer's bindings of the parameters are
 * removed again; results in `arena`. */
typedef struct tsl_suggested_map {
  uint32_t n_params;
  const tsl_var *const *params;
  uint32_t n_results;
  const tsl_expr *const *results;
} tsl_suggested_map;

TSL_API int tsl_suggest_index_map(tsl_analyzer *an, tsl_arena *arena,
                                  const tsl_buffer *buf,
                                  const tsl_expr *const *indices,
                                  uint32_t n_loops, const tsl_stmt *const *loops,
                                  const tsl_expr *predicate,
                                  tsl_suggested_map *out, tsl_diag *diag);

/* ==== specialization ====================================================
 * TVM's PrimFunc.specialize with constant values: `names[k]` (a scalar
 * parameter of `f`, or a variable of its parameter buffers' shapes,
 * strides or offsets: a symbolic size such as `m = T.int64()`) becomes the
 * constant `values[k]`, written as text and read in the variable's dtype
 * (an integer for integer and bool variables, a positive one for a size;
 * a number for float ones). Every use is replaced, parameter and
 * allocated buffers whose shape changes are rebuilt, integer expressions
 * that changed are simplified (a shape `m * 2` with m = 32 becomes 64),
 * and bound scalar parameters leave the signature. Names not bound stay
 * symbolic; n 0 returns `f`. TSL_ENOTFOUND for a name that is neither
 * (the message lists the valid ones), TSL_EINVALID for a value that does
 * not parse or fit, or a name bound twice. Results in `a`. */
TSL_API int tsl_func_specialize(tsl_arena *a, const tsl_func *f, uint32_t n,
                                const char *const *names,
                                const char *const *values,
                                const tsl_func **out, tsl_diag *diag);
/* `m` with `f` in place of its function of the same name (a new module
 * in `a`; `m` itself when it holds no such function). */
TSL_API const tsl_module *tsl_module_with_func(tsl_arena *a,
                                               const tsl_module *m,
                                               const tsl_func *f);
/* The names tsl_func_specialize can bind in `f` (its scalar parameters,
 * then its symbolic sizes), comma-separated into `buf` (truncated to
 * `cap`); returns how many there are: 0 for a function with constant
 * shapes and no scalar parameters. */
TSL_API uint32_t tsl_func_free_names(const tsl_func *f, char *buf,
                                     size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_ANALYSIS_H */
