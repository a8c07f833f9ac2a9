/*
 * tessel/feature.h — program features for cost models: TVM MetaSchedule's
 * PerStoreFeature, one row of numbers per buffer the program stores to.
 *
 * The features are read from the scheduled prim_func after the first
 * lowering stages (tsl_lower_func_structured: blocks removed, allocations
 * placed and compacted, buffers still multi-dimensional, loops as
 * scheduled), as TVM reads them after its feature pass list. Every store
 * whose value is not a constant is visited with the loops around it; a
 * buffer stored several times keeps the features of its last store (TVM's
 * rule). Rows are in the order of each buffer's first store.
 *
 * A row (with the defaults: 164 values; every count x is given as
 * log2(1 + |x|), TVM's slog, flags as 0 or 1):
 *   group 1, computation (57): float mad, add/sub, mul, div/mod, cmp, math
 *     calls, other calls; the same 7 for integers; bool ops; selects (each
 *     op counted once per iteration of the loops around the store); for the
 *     vectorized, unrolled and parallel loops around it: number, product
 *     of extents, innermost extent, position one-hot (8: TVM always
 *     reports "mixed" when there is such a loop); is_gpu; extents of
 *     blockIdx.x/y/z, threadIdx.x/y/z, vthread;
 *   group 2, buffer access (18 per buffer, buffers_per_store buffers,
 *     sorted by touched cache lines, then bytes, then name; missing ones
 *     are zeros): access read / write / read-write; bytes, unique bytes,
 *     lines, unique lines; reuse by loop / serial / none; reuse distance in
 *     iterations and bytes; reuse count; bytes, unique bytes, lines, unique
 *     lines each over the reuse count; innermost stride;
 *   group 3, arithmetic intensity curve (arith_intensity_samples values):
 *     float ops over unique bytes touched, sampled along the loop nest from
 *     the innermost loop outwards;
 *   group 4, allocation (4): bytes of the stored buffer's allocation (its
 *     parameter or ALLOCATE), elements x loops around the allocation,
 *     product of the loops around the allocation, the store's loops over
 *     those;
 *   group 5, outer scope (3): product of the loops around the store, their
 *     number, the innermost pragma_auto_unroll_max_step (0 without).
 */
#ifndef TESSEL_FEATURE_H
#define TESSEL_FEATURE_H

#include <stddef.h>
#include <stdint.h>

#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TVM's defaults: 5 buffers per store, 10 curve samples, 64-byte lines. */
enum {
  TSL_FEATURE_BUFFERS_PER_STORE = 5,
  TSL_FEATURE_CURVE_SAMPLES = 10,
  TSL_FEATURE_CACHE_LINE_BYTES = 64,
  TSL_FEATURE_DEFAULT_LEN = 164
};

typedef struct tsl_feature_opts {
  uint32_t struct_size;
  int32_t buffers_per_store;       /* 0: TSL_FEATURE_BUFFERS_PER_STORE */
  int32_t arith_intensity_samples; /* 0: TSL_FEATURE_CURVE_SAMPLES */
  int32_t cache_line_bytes;        /* 0: TSL_FEATURE_CACHE_LINE_BYTES */
  int32_t is_gpu;                  /* 1: the thread extents are reported */
} tsl_feature_opts;

typedef struct tsl_features {
  uint32_t struct_size;
  uint32_t n_rows;      /* buffers stored with a non-constant value */
  uint32_t row_len;     /* tsl_feature_row_len */
  const double *values; /* n_rows x row_len, row-major */
} tsl_features;

/* Values per row for `opts` (NULL: the defaults, 164). */
TSL_API uint32_t tsl_feature_row_len(const tsl_feature_opts *opts);

/* The per-store features of a scheduled prim_func, in `arena`; as TVM's,
 * of the function without its weight-packing blocks (lower.h,
 * tsl_func_split_prepack: they run once, ahead of the calls). Errors are
 * those of the split and of tsl_lower_func_structured (a program lowering
 * refuses). */
TSL_API int tsl_features_per_store(tsl_arena *arena, const tsl_func *f,
                                   const tsl_feature_opts *opts, tsl_features *out,
                                   tsl_diag *diag);

/* The name of column `column` of a row for `opts`, e.g. "float_add_sub",
 * "B0.unique_lines", "arith_intensity_3", "outer_prod"; NULL past the end.
 * Static strings for fixed columns; per-buffer and curve names are written
 * into buf (cap bytes) and buf is returned. */
TSL_API const char *tsl_feature_name(const tsl_feature_opts *opts, uint32_t column,
                                     char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_FEATURE_H */
