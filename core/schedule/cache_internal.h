/*
 * Private interface of the cache family (cache_read, cache_write,
 * cache_inplace, reindex, reindex_cache_read, reindex_cache_write): the
 * operands of a cache primitive, the single writer of a buffer in a scope,
 * TVM's CacheLocDetector, copy stages and installing the rewritten scope.
 */
#ifndef TESSEL_SCH_CACHE_INTERNAL_H
#define TESSEL_SCH_CACHE_INTERNAL_H

#include "storage_util.h"

typedef struct cache_op {
  sch_call *c;
  int is_write;
  sch_path p; /* the target block */
  const tsl_block *blk;
  const tsl_buffer *buf;
  tsl_str scope_name;
  uint32_t scope;    /* level of the scope realize in p */
  sch_path *kids;    /* child blocks of the scope */
  uint32_t n_kids;
  const tsl_block **cons; /* consumer_blocks given */
  uint32_t n_cons;
  const tsl_block **related; /* CacheLocDetector's related blocks */
  uint32_t n_related;
  int writer; /* index in kids of the producer, -1: none */
  /* insertion point: into the SEQ loc_seq at loc_pos; loc_seq NULL: the
   * scope body (loc_pos 0: first, else last) */
  const tsl_stmt *loc_seq;
  uint32_t loc_pos;
  int in_loop;
  int loose; /* the region may hold points the producer does not write */
} cache_op;

/* Operands from the call's arguments: the block (argument 0), the buffer
 * index (argument `index_arg`; a buffer name is resolved to its index and
 * the argument rewritten, as TVM's Python does), the storage scope
 * (argument `scope_arg`, checked) and, when consumers_arg >= 0, the
 * consumer_blocks list (children of the scope). Fills op->p, blk, buf,
 * scope_name, scope and the scope's child blocks. */
int cache_load(cache_op *op, sch_call *c, int is_write, uint32_t index_arg,
               uint32_t scope_arg, int consumers_arg);
/* The only child block of the scope writing op->buf (index in op->kids),
 * -1 when none (TVM's GetOnlyWriteBlock); fails when several do. */
int cache_find_writer(cache_op *op, int *out);
/* TVM's CacheLocDetector with op->writer and op->related: sets loc_seq,
 * loc_pos and in_loop (the end of the scope when nothing is related). */
int cache_locate(cache_op *op);
/* Kid number i of the scope. */
const tsl_block *cache_kid(const cache_op *op, uint32_t i);
int cache_has_block(const tsl_block *const *xs, uint32_t n, const tsl_block *b);

/* Commit the scope block of op with `body` as its body and `alloc`
 * (NULL: none) appended to its alloc_buffers. */
void cache_commit_scope(cache_op *op, const tsl_stmt *body,
                        const tsl_buffer *alloc);

/* TVM's MakeCacheStage: loops ax0.. over the region's extents around a
 * copy block (iterators v0..) between op->buf and `cache` (buffer -> cache
 * for a read, cache -> buffer when op->is_write). compact: the cache holds
 * the region only (indices shifted by its minimum); otherwise it has the
 * buffer's shape. guard[d] (GUARD_LO / GUARD_HI bits; NULL: none) adds a
 * T.where keeping index d inside the buffer. */
enum { CACHE_GUARD_LO = 1, CACHE_GUARD_HI = 2 };
const tsl_stmt *cache_make_stage(cache_op *op, tsl_str name,
                                 const tsl_buffer *cache,
                                 const tsl_range *region, int compact,
                                 const int *guard);

/* The statement p->stmts[level] replaced by `stmt`, rebuilt up to the body
 * of the scope block (p->stmts[scope + 1]). */
const tsl_stmt *cache_scope_body_with(tsl_arena *a, const sch_path *p,
                                      uint32_t scope, uint32_t level,
                                      const tsl_stmt *stmt);

/* Bounds [mn[d], mx[d]] (inclusive) of region `r` of the block at the end
 * of `kp`, its bindings substituted and relaxed over the loops below level
 * `top`. Returns 0 when they cannot be bounded or a block lies between. */
int cache_region_under(sch_call *c, const sch_path *kp, uint32_t top,
                       const tsl_buffer_region *r, const tsl_expr **mn,
                       const tsl_expr **mx);

/* A copy block: dst[dst_idx] = src[src_idx] with point regions, spatial
 * iter vars `ivs`, no init. */
tsl_block *cache_copy_block(sch_call *c, tsl_str name, uint32_t n_ivs,
                            const tsl_iter_var *ivs, const tsl_buffer *src,
                            const tsl_expr *const *src_idx,
                            const tsl_buffer *dst,
                            const tsl_expr *const *dst_idx);

/* A variable named `<prefix><k>` (ax0, v1, ...). */
const tsl_var *cache_num_var(sch_call *c, const char *prefix, uint32_t k,
                             tsl_dtype dt);

/* 1 when the block realized at the end of `p` provably runs every point of
 * its iteration domain exactly once below its scope (level `scope`): no
 * T.where, bindings that map the loops between scope and block one-to-one
 * into the domain, and as many loop iterations as domain points. A cache
 * that holds values the block writes, copied back over the whole domain,
 * needs it. */
int cache_block_covers_domain(sch_call *c, const sch_path *p, uint32_t scope);

#endif
