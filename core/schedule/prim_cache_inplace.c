/*
 * cache_inplace (TVM's CacheInplace): a block that reads and writes a
 * buffer works on a cache "<buffer>_<scope>" of the buffer's shape
 * instead: a copy stage fills the cache with the region the block reads
 * right before the block and a second one copies the region it writes back
 * right after (TVM's CacheInplaceLocDetector: inside the innermost loop or
 * sequence around the block). Regions have the block's bindings
 * substituted and are relaxed over the loops between the stages and it.
 */
#include "cache_internal.h"

#include <stdio.h>
#include <string.h>

static tsl_str second_name(sch_call *c, const tsl_func *f, const char *base,
                           tsl_str first) {
  tsl_str n = sch_fresh_block_name(c, f, base);
  char buf[600];
  for (uint32_t k = 1; n == first; k++) {
    snprintf(buf, sizeof buf, "%s_%u", base, k);
    n = sch_fresh_block_name(c, f, buf);
  }
  return n;
}

int sch_apply_cache_inplace(sch_call *c) {
  cache_op op;
  int rc = cache_load(&op, c, 0, 1, 2, -1);
  if (rc)
    return rc;
  const tsl_block *blk = op.blk;
  const tsl_buffer *buf = op.buf;
  const tsl_buffer_region *rd = &blk->reads[c->args[1].u.i], *wr = NULL;
  for (uint32_t i = 0; i < blk->n_writes && !wr; i++)
    if (blk->writes[i].buffer == buf)
      wr = &blk->writes[i];
  if (!wr)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' reads '%s' but does not write it; cache_inplace "
                    "needs a block that both reads and writes the buffer",
                    blk->name, buf->name);

  /* where the stages go: the innermost loop or sequence around the block */
  tsl_arena *a = c->arena;
  const sch_path *p = &op.p;
  uint32_t at = op.scope + 1, pos = 0; /* the scope body by default */
  int at_seq = 0, at_loop = 0;
  for (uint32_t k = p->depth - 1; k-- > op.scope + 1;) {
    if (p->stmts[k]->kind == TSL_STMT_SEQ) {
      at = k;
      pos = p->index[k + 1];
      at_seq = 1;
      break;
    }
    if (p->stmts[k]->kind == TSL_STMT_FOR) {
      at = k;
      at_loop = 1;
      break;
    }
  }

  /* the copied region: what the block reads, covering what it writes */
  uint32_t nd = buf->ndim;
  const tsl_expr **rmn = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  const tsl_expr **rmx = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  const tsl_expr **wmn = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  const tsl_expr **wmx = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  uint32_t top = at_seq || at_loop ? at : op.scope;
  for (uint32_t k = 0; k < top; k++)
    if (p->stmts[k]->kind == TSL_STMT_FOR)
      tsl_analyzer_bind(c->sch->an, p->stmts[k]->u.loop.loop_var, p->stmts[k]->u.loop.min,
                        p->stmts[k]->u.loop.extent);
  if (at_loop)
    tsl_analyzer_bind(c->sch->an, p->stmts[at]->u.loop.loop_var,
                      p->stmts[at]->u.loop.min, p->stmts[at]->u.loop.extent);
  if (!cache_region_under(c, p, top, rd, rmn, rmx) ||
      !cache_region_under(c, p, top, wr, wmn, wmx))
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "cannot bound the region of '%s' that block '%s' accesses "
                    "over the loops around it", buf->name, blk->name);
  tsl_range *region = TSL_NEW_ARRAY(a, tsl_range, nd + 1);
  tsl_range *wregion = TSL_NEW_ARRAY(a, tsl_range, nd + 1);
  tsl_analyzer *an = c->sch->an;
  for (uint32_t d = 0; d < nd; d++) {
    const tsl_expr *shape = buf->shape[d];
    if (shape->dtype.bits != rmn[d]->dtype.bits)
      shape = tsl_expr_cast(a, rmn[d]->dtype, shape);
    const tsl_expr *zero = tsl_expr_int(a, rmn[d]->dtype, 0);
    if (!tsl_analyzer_can_prove(an, tsl_expr_binary(a, TSL_EXPR_LE, rmn[d], wmn[d])) ||
        !tsl_analyzer_can_prove(an, tsl_expr_binary(a, TSL_EXPR_LE, wmx[d], rmx[d])))
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' writes '%s' outside the region it reads (dimension "
                      "%u); the copy back would write elements the cache never "
                      "loaded", blk->name, buf->name, d);
    if (!tsl_analyzer_can_prove(an, tsl_expr_binary(a, TSL_EXPR_LE, zero, rmn[d])) ||
        !tsl_analyzer_can_prove(an, tsl_expr_binary(a, TSL_EXPR_LT, rmx[d], shape)))
      return sch_fail(c, TSL_EINVALID,
                      "the region of '%s' that block '%s' reads may leave the buffer "
                      "in dimension %u", buf->name, blk->name, d);
    const tsl_expr *ext = sch_simplify(
        c, tsl_expr_binary(a, TSL_EXPR_ADD,
                           tsl_expr_binary(a, TSL_EXPR_SUB, rmx[d], rmn[d]),
                           tsl_expr_int(a, rmn[d]->dtype, 1)));
    region[d] = (tsl_range){sch_simplify(c, rmn[d]), ext};
    const tsl_expr *wext = sch_simplify(
        c, tsl_expr_binary(a, TSL_EXPR_ADD,
                           tsl_expr_binary(a, TSL_EXPR_SUB, wmx[d], wmn[d]),
                           tsl_expr_int(a, wmn[d]->dtype, 1)));
    wregion[d] = (tsl_range){sch_simplify(c, wmn[d]), wext};
  }

  /* the cache and the two stages */
  const tsl_buffer *cache = sto_buffer_with_scope(c, buf, op.scope_name, NULL);
  char base[512];
  snprintf(base, sizeof base, "%s_%s", buf->name, op.scope_name);
  tsl_str n_read = sch_fresh_block_name(c, p->func, base);
  tsl_str n_write = second_name(c, p->func, base, n_read);
  op.is_write = 0;
  const tsl_stmt *s_read = cache_make_stage(&op, n_read, cache, region, 0, NULL);
  op.is_write = 1;
  const tsl_stmt *s_write = cache_make_stage(&op, n_write, cache, wregion, 0, NULL);

  /* the block on the cache */
  tsl_map bufs;
  tsl_map_init(&bufs, a);
  tsl_map_put(&bufs, buf, (void *)cache);
  tsl_mutator m = tsl_mutator_make(a);
  m.buffers = &bufs;
  const tsl_block *nblk = tsl_mutate_block_children(&m, blk);
  const tsl_stmt *inner = sch_with_block(a, sch_path_target(p), nblk);
  const tsl_stmt *place;
  if (at_seq) {
    /* the item holding the block, with the stages around it */
    const tsl_stmt *cur = inner;
    for (uint32_t lv = p->depth - 1; lv > at + 1; lv--)
      cur = sch_with_child(a, p->stmts[lv - 1], p->index[lv], cur);
    const tsl_stmt *seq = p->stmts[at];
    uint32_t n = seq->u.seq.n;
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, n + 2);
    for (uint32_t i = 0, k = 0; i < n; i++) {
      if (i == pos) {
        xs[k++] = s_read;
        xs[k++] = cur;
        xs[k++] = s_write;
      } else {
        xs[k++] = seq->u.seq.stmts[i];
      }
    }
    place = tsl_stmt_seq(a, n + 2, xs);
  } else {
    const tsl_stmt *body;
    uint32_t lv0 = at_loop ? at + 1 : op.scope + 1;
    const tsl_stmt *cur = inner;
    for (uint32_t lv = p->depth - 1; lv > lv0; lv--)
      cur = sch_with_child(a, p->stmts[lv - 1], p->index[lv], cur);
    const tsl_stmt *xs[3] = {s_read, cur, s_write};
    body = tsl_stmt_seq(a, 3, xs);
    place = at_loop ? sch_with_child(a, p->stmts[at], 0, body) : body;
    if (!at_loop)
      at = op.scope + 1;
  }
  const tsl_stmt *scope_body = cache_scope_body_with(a, p, op.scope, at, place);
  cache_commit_scope(&op, scope_body, cache);
  sch_out_block(c, p->func->name, n_read);
  sch_out_block(c, p->func->name, n_write);
  return TSL_OK;
}
