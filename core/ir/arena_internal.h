/* Arena services private to the core library. */
#ifndef TSL_ARENA_INTERNAL_H
#define TSL_ARENA_INTERNAL_H

#include "tessel/base.h"

/* Small integer constants are immutable and hugely repeated (every split,
 * bound and simplification makes 0s and 1s), so tsl_expr_int hands out one
 * node per (dtype, value) and arena: this table of TSL_ARENA_CONST_SLOTS
 * pointers, created zeroed on first use, lives as long as the arena. */
enum { TSL_ARENA_CONST_MIN = -8, TSL_ARENA_CONST_MAX = 63, TSL_ARENA_CONST_TYPES = 3 };
#define TSL_ARENA_CONST_SLOTS                                                  \
  (TSL_ARENA_CONST_TYPES * (TSL_ARENA_CONST_MAX - TSL_ARENA_CONST_MIN + 1))
const void **tsl_arena_const_slots(tsl_arena *a);

/* `size` bytes of unspecified contents, freed with the arena: for large
 * records of which callers write and read only a part (schedule paths),
 * which would otherwise be cleared in full when the arena is freed. */
void *tsl_arena_alloc_raw(tsl_arena *a, size_t size);

/* Free every allocation but keep one chunk for reuse: a scratch arena
 * emptied between calls stays small and warm in the cache. */
void tsl_arena_reset(tsl_arena *a);

/* An arena for small, long-lived objects kept by the thousand (trace
 * copies: a search holds one per candidate): its chunks start at 1 KiB and
 * double up to the standard 64 KiB, where a standard arena starts. */
tsl_arena *tsl_arena_new_small(tsl_ctx *ctx);

#endif
