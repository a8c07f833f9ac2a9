/*
 * Helpers of the cache family (cache_internal.h): copy blocks, numbered
 * variables, and the check that a block runs its whole iteration domain,
 * which a cache copied back over the domain relies on.
 */
#include "cache_internal.h"

#include <stdio.h>

const tsl_var *cache_num_var(sch_call *c, const char *prefix, uint32_t k,
                             tsl_dtype dt) {
  char nm[64];
  snprintf(nm, sizeof nm, "%s%u", prefix, k);
  return sch_new_var(c, nm, dt);
}

static tsl_buffer_region point_region(sch_call *c, const tsl_buffer *b,
                                      const tsl_expr *const *idx) {
  tsl_range *rs = TSL_NEW_ARRAY(c->arena, tsl_range, b->ndim + 1);
  for (uint32_t d = 0; d < b->ndim; d++)
    rs[d] = (tsl_range){idx[d], tsl_expr_int(c->arena, idx[d]->dtype, 1)};
  return (tsl_buffer_region){b, b->ndim, rs};
}

tsl_block *cache_copy_block(sch_call *c, tsl_str name, uint32_t n_ivs,
                            const tsl_iter_var *ivs, const tsl_buffer *src,
                            const tsl_expr *const *src_idx,
                            const tsl_buffer *dst,
                            const tsl_expr *const *dst_idx) {
  tsl_arena *a = c->arena;
  tsl_block *b = TSL_NEW(a, tsl_block);
  b->name = name;
  b->n_iter_vars = n_ivs;
  b->iter_vars = tsl_arena_dup(a, ivs, sizeof *ivs * (n_ivs ? n_ivs : 1));
  tsl_buffer_region rd = point_region(c, src, src_idx);
  tsl_buffer_region wr = point_region(c, dst, dst_idx);
  b->n_reads = 1;
  b->reads = tsl_arena_dup(a, &rd, sizeof rd);
  b->n_writes = 1;
  b->writes = tsl_arena_dup(a, &wr, sizeof wr);
  b->body = tsl_stmt_store(a, dst, tsl_expr_load(a, src, src->ndim, src_idx),
                           dst->ndim, dst_idx);
  return b;
}

int cache_block_covers_domain(sch_call *c, const sch_path *p, uint32_t scope) {
  const tsl_stmt *real = sch_path_target(p);
  const tsl_block *b = real->u.realize.block;
  const tsl_expr *pred = real->u.realize.predicate;
  if (pred->kind != TSL_EXPR_INT_IMM || !pred->u.int_value)
    return 0;
  uint32_t nl = 0;
  const tsl_var **vars = TSL_NEW_ARRAY(c->arena, const tsl_var *, p->depth);
  tsl_range *doms = TSL_NEW_ARRAY(c->arena, tsl_range, p->depth);
  tsl_analyzer *an = c->sch->an;
  const tsl_expr *loops = NULL, *points = NULL;
  for (uint32_t k = scope + 1; k + 1 < p->depth; k++) {
    const tsl_stmt *s = p->stmts[k];
    if (s->kind != TSL_STMT_FOR)
      continue;
    vars[nl] = s->u.loop.loop_var;
    doms[nl++] = (tsl_range){s->u.loop.min, s->u.loop.extent};
    tsl_analyzer_bind(an, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent);
    const tsl_expr *e = s->u.loop.extent;
    if (loops && loops->dtype.bits != e->dtype.bits)
      e = tsl_expr_cast(c->arena, loops->dtype, e);
    loops = loops ? tsl_expr_binary(c->arena, TSL_EXPR_MUL, loops, e) : e;
  }
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    const tsl_expr *e = iv->dom.extent;
    if (points && points->dtype.bits != e->dtype.bits)
      e = tsl_expr_cast(c->arena, points->dtype, e);
    points = points ? tsl_expr_binary(c->arena, TSL_EXPR_MUL, points, e) : e;
    tsl_range r;
    if (tsl_analyzer_relax(an, c->arena, real->u.realize.iter_values[i], nl,
                           vars, doms, &r))
      return 0;
    const tsl_expr *lo = iv->dom.min, *hi = tsl_expr_binary(
                                         c->arena, TSL_EXPR_ADD, iv->dom.min,
                                         iv->dom.extent);
    const tsl_expr *end = tsl_expr_binary(c->arena, TSL_EXPR_ADD, r.min, r.extent);
    if (lo->dtype.bits != r.min->dtype.bits) {
      lo = tsl_expr_cast(c->arena, r.min->dtype, lo);
      hi = tsl_expr_cast(c->arena, r.min->dtype, hi);
    }
    if (!tsl_analyzer_can_prove(an, tsl_expr_binary(c->arena, TSL_EXPR_LE, lo, r.min)) ||
        !tsl_analyzer_can_prove(an, tsl_expr_binary(c->arena, TSL_EXPR_LE, end, hi)))
      return 0;
  }
  if (!loops || !points)
    return !loops == !points;
  if (loops->dtype.bits != points->dtype.bits)
    points = tsl_expr_cast(c->arena, loops->dtype, points);
  if (!tsl_analyzer_equal(an, loops, points))
    return 0;
  tsl_iter_map map;
  return tsl_iter_map_detect(an, c->arena, b->n_iter_vars, real->u.realize.iter_values,
                             nl, vars, doms, NULL, TSL_ITER_MAP_BIJECTIVE, 0, &map,
                             NULL) == TSL_OK;
}

const tsl_stmt *cache_scope_body_with(tsl_arena *a, const sch_path *p,
                                      uint32_t scope, uint32_t level,
                                      const tsl_stmt *stmt) {
  for (uint32_t lv = level; lv > scope + 1; lv--)
    stmt = sch_with_child(a, p->stmts[lv - 1], p->index[lv], stmt);
  return stmt;
}
