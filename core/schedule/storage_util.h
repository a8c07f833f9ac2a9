/*
 * Helpers shared by the storage primitives (cache_read, cache_write,
 * set_scope, storage_align and the reindex family): storage-scope names and
 * ranks, buffers with a new scope, a tsl_mutator that replaces buffers in
 * the blocks it rewrites, and where a new stage goes while a tsl_mutator
 * rewrites a scope.
 */
#ifndef TESSEL_SCH_STORAGE_UTIL_H
#define TESSEL_SCH_STORAGE_UTIL_H

#include "sch_internal.h"

/* 1 when `scope` is a storage scope TVM accepts (global, shared,
 * shared.dyn, local, warp, wmma.*, ... with optional tags). */
int sto_scope_valid(const char *scope);
/* The list of valid scopes, for messages. */
const char *sto_scope_list(void);

/* Copy of `b` named "<name>_<scope>" in `scope`; shape replaced when
 * `shape` is non-NULL (strides and elem_offset dropped then). */
const tsl_buffer *sto_buffer_with_scope(sch_call *c, const tsl_buffer *b,
                                        const char *scope,
                                        const tsl_expr *const *shape);

/* Checks 0 <= index < n for a read/write buffer index of block `b`. */
int sto_check_index(sch_call *c, const tsl_block *b, int64_t index,
                    int is_write, const char *param);

/* Where a primitive inserts a new stage while a tsl_mutator rewrites its
 * scope body: into the SEQ `seq` at item `pos`; seq NULL means the scope
 * body itself (pos 0: before it, otherwise after it). */
typedef struct sto_place {
  const tsl_stmt *seq;
  uint32_t pos;
  const tsl_stmt *stage;
  int done;
} sto_place;

/* How the rewriter treats a block it meets (outside a rewritten block). */
enum { STO_SKIP = 0, STO_RECURSE = 1, STO_REWRITE = 2 };

/* A tsl_mutator replacing buffers inside the blocks it rewrites: loads,
 * stores, `A.data`, regions (bounds included), match buffer sources and
 * alloc_buffers, and every expression there (iter values and predicates
 * of nested realizes, loop bounds). Outside them it walks statements only,
 * asking `block_mode` how to treat each block it meets (NULL: rewrite);
 * the realize of such a block keeps its iter values and predicate. */
typedef struct sto_rw {
  tsl_mutator m; /* first: the hooks get the mutator */
  sch_call *c;
  tsl_map bufs; /* uses of a key become uses of its value */
  /* the primary buffer (sto_rw_init's `from`): `offset` (when set) is
   * subtracted from its indices and region minimums (compact caches) */
  const tsl_buffer *from;
  const tsl_expr *const *offset;
  /* set_scope: match buffers viewing a replaced buffer get this scope */
  const char *rescope_matches;
  int (*block_mode)(const tsl_block *b, void *ud);
  void *ud;
  sto_place place; /* a stage to insert (place.stage NULL: none) */
  int active;      /* inside a rewritten block */
} sto_rw;

void sto_rw_init(sto_rw *rw, sch_call *c, const tsl_buffer *from,
                 const tsl_buffer *to);
/* A statement of a scope, met outside any rewritten block. */
const tsl_stmt *sto_rw_stmt(sto_rw *rw, const tsl_stmt *s);
/* A rewritten block. */
const tsl_block *sto_rw_block(sto_rw *rw, const tsl_block *b);
/* `stage` inserted into `body` at `pos` (SEQ item index, or 0 = before /
 * otherwise after a single statement). */
const tsl_stmt *sto_insert(tsl_arena *a, const tsl_stmt *body, uint32_t pos,
                           const tsl_stmt *stage);

/* In a statement hook: `r`, the rewritten `s`, with the stage inserted when
 * `s` is the place's SEQ. */
const tsl_stmt *sto_place_in(tsl_arena *a, sto_place *pl, const tsl_stmt *s,
                             const tsl_stmt *r);
/* After the whole scope body was rewritten into `body`: the stage inserted
 * when the place is the body itself. Returns NULL when the place's SEQ was
 * never met. */
const tsl_stmt *sto_place_finish(tsl_arena *a, sto_place *pl,
                                 const tsl_stmt *body);

/* TVM's CanRelaxStorageUnderThread: 1 when a buffer in storage `scope` is
 * shared by the threads of a loop bound to `thread_tag` (its region is then
 * relaxed over that loop): global never; warp over threadIdx.x only;
 * otherwise when the scope's rank (shared 1, warp 2, local 3) is at most the
 * thread's (blockIdx 0, threadIdx and vthread 1). */
int sto_relax_under_thread(const char *scope, const char *thread_tag);

/* The block realize at path level `level` whose alloc_buffers hold `b`,
 * searching from the target up; returns the level or -1. */
int sto_alloc_site(const sch_path *p, const tsl_buffer *b);
/* 1 when `b` is a buffer parameter of `f`. */
int sto_is_param(const tsl_func *f, const tsl_buffer *b);

#endif
