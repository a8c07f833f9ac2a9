/*
 * core/ir/base_internal.h — helpers of base.c that libtessel's folders
 * share and that are not part of its ABI (not exported): context ids,
 * arena statistics, directories. Included by core/ir, core/db and
 * core/tune (their README lists it).
 */
#ifndef TSL_BASE_INTERNAL_H
#define TSL_BASE_INTERNAL_H

#include "tessel/base.h"

/* A fresh id, unique within the context (used for vars and buffers). */
uint32_t tsl_ctx_next_id(tsl_ctx *ctx);
/* Bytes currently allocated from the arena (for tests and statistics). */
size_t tsl_arena_bytes(const tsl_arena *arena);
/* Create the folder `path` and its missing parents (mkdir -p). An existing
 * folder is fine. On failure returns TSL_EIO naming the folder that could
 * not be made and the OS reason. */
int tsl_mkdir_p(const char *path, tsl_diag *diag);

#endif
