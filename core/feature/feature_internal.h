/*
 * core/feature/feature_internal.h — what the per-store feature files share:
 * the loop nest around a store, the buffer-access features (group 2) of
 * one store, and small helpers. Folder-internal.
 */
#ifndef TSL_FEATURE_INTERNAL_H
#define TSL_FEATURE_INTERNAL_H

#include "tessel/analysis.h"
#include "tessel/container.h"
#include "tessel/feature.h"
#include "tessel/visit.h"

#include <math.h>

enum {
  FS_GROUP1_LEN = 57,
  FS_ACCESS_LEN = 18,
  FS_GROUP4_LEN = 4,
  FS_GROUP5_LEN = 3
};

/* TVM's slog: log2(1 + |x|). */
static inline double fs_slog(double x) { return log2((x >= 0 ? x : -x) + 1); }

/* A loop's constant extent, or 0 (TVM's GetLoopIntExtent == nullptr). */
static inline int fs_extent(const tsl_stmt *loop, int64_t *out) {
  return tsl_expr_is_const_int(loop->u.loop.extent, out);
}

/* TVM's dtype.bytes(): (bits + 7) / 8, lanes ignored. */
static inline int64_t fs_elem_bytes(const tsl_buffer *b) {
  return ((int64_t)b->dtype.bits + 7) / 8;
}

/* The loops around the statement being visited, outermost first. */
typedef struct fs_nest {
  tsl_vec loops;       /* const tsl_stmt * (FOR) */
  tsl_vec auto_unroll; /* int64_t: pragma_auto_unroll_max_step values > 0 */
  int64_t prod;        /* product of the constant extents */
} fs_nest;

/* State of one extraction that outlives a store: what each loop touched of
 * each buffer over all the stores visited so far (TVM's
 * buffer_touched_under_loop, which serial reuse is read from). */
typedef struct fs_touched {
  tsl_arena *arena;
  tsl_map loops; /* loop stmt -> tsl_map * (buffer -> tsl_vec * of int64_t) */
} fs_touched;

/* Group 2 of one store: exports buffers_per_store x FS_ACCESS_LEN values
 * into out and the bytes touched under each loop into for_touched_bytes
 * (one per loop of the nest, outermost first). */
void fs_buffer_access(tsl_arena *a, tsl_analyzer *an, const tsl_stmt *store,
                      const fs_nest *nest, int64_t cache_line_bytes, int32_t buffers_per_store,
                      fs_touched *touched, int64_t *for_touched_bytes, double *out);

/* GetBufferShape: constant dims, else the analyzer's upper bound, else 1. */
int64_t fs_dim(tsl_analyzer *an, const tsl_expr *dim);

#endif
