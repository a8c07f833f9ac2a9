/*
 * blockize of a list of blocks (TVM's Blockize(Array<BlockRV>)): blocks
 * whose loop nests are consecutive statements of one sequence become one
 * outer block `outer_<B>_<C>_` holding those nests. Each block is divided
 * as blockize divides one (bz_divide) with the loops of its own nest
 * inner and the loops around the sequence outer; the outer parts must
 * agree (the outer block takes the first block's iters).
 *
 * Refused where TVM would produce a different program: a nest that is not
 * a chain of loops ending in its one block (TVM rebuilds only the loops),
 * blocks given out of program order (TVM runs them in the order given),
 * outer parts that differ (a TVM internal check). A block's init stays in
 * its inner block (TVM drops it, see README.md).
 */
#include "bz_internal.h"

#include <stdio.h>
#include <string.h>

static const char *block_name_of(const sch_path *p) { return sch_path_block(p)->name; }

/* The hull of two ranges when both are constant or equal, else the whole
 * dimension. */
static tsl_range hull(tsl_arena *a, tsl_analyzer *an, const tsl_range *x,
                      const tsl_range *y, const tsl_expr *dim) {
  int64_t m1, e1, m2, e2;
  if (tsl_expr_is_const_int(x->min, &m1) && tsl_expr_is_const_int(x->extent, &e1) &&
      tsl_expr_is_const_int(y->min, &m2) && tsl_expr_is_const_int(y->extent, &e2)) {
    int64_t lo = m1 < m2 ? m1 : m2, hi = m1 + e1 > m2 + e2 ? m1 + e1 : m2 + e2;
    return (tsl_range){tsl_expr_int(a, x->min->dtype, lo), tsl_expr_int(a, x->extent->dtype, hi - lo)};
  }
  if (tsl_analyzer_equal(an, x->min, y->min) && tsl_analyzer_equal(an, x->extent, y->extent))
    return *x;
  return (tsl_range){tsl_expr_int(a, dim->dtype, 0), dim};
}

/* Regions of all parts, one per buffer (first-appearance order), each the
 * hull of that buffer's regions. */
static void union_regions(tsl_arena *a, tsl_analyzer *an, const bz_part *parts,
                          uint32_t n, int writes, tsl_buffer_region **out,
                          uint32_t *n_out) {
  tsl_vec v;
  tsl_vec_init(&v, sizeof(tsl_buffer_region), a);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t nr = writes ? parts[i].n_writes : parts[i].n_reads;
    const tsl_buffer_region *rs = writes ? parts[i].writes : parts[i].reads;
    for (uint32_t k = 0; k < nr; k++) {
      tsl_buffer_region *have = NULL;
      for (uint32_t j = 0; j < v.len && !have; j++)
        if (TSL_VEC_AT(&v, tsl_buffer_region, j).buffer == rs[k].buffer)
          have = &TSL_VEC_AT(&v, tsl_buffer_region, j);
      if (!have) {
        TSL_VEC_PUSH(&v, tsl_buffer_region, rs[k]);
        continue;
      }
      tsl_range *r = TSL_NEW_ARRAY(a, tsl_range, have->ndim + 1);
      for (uint32_t d = 0; d < have->ndim; d++)
        r[d] = hull(a, an, &have->ranges[d], &rs[k].ranges[d], have->buffer->shape[d]);
      have->ranges = r;
    }
  }
  *out = tsl_vec_dup(&v, a);
  *n_out = v.len;
}

int bz_blockize_blocks(sch_call *c, const tsl_sch_value *list, int preserve) {
  tsl_arena *a = c->arena;
  uint32_t n = list->n;
  if (n < 2)
    return sch_fail(c, TSL_EINVALID,
                    "a list of blocks needs at least two blocks; to blockize "
                    "one block, blockize the loop above it");
  sch_path *ps = TSL_NEW_ARRAY(a, sch_path, n);
  for (uint32_t i = 0; i < n; i++) {
    int rc = sch_block_path(c, list->u.items[i].u.rv, &ps[i]);
    if (rc)
      return rc;
    if (ps[i].func != ps[0].func)
      return sch_fail(c, TSL_EINVALID, "blocks '%s' and '%s' are in different functions",
                      block_name_of(&ps[0]), block_name_of(&ps[i]));
    for (uint32_t j = 0; j < i; j++)
      if (sch_path_target(&ps[j]) == sch_path_target(&ps[i]))
        return sch_fail(c, TSL_EINVALID, "block '%s' is given twice", block_name_of(&ps[i]));
  }
  /* the sequence the blocks' nests are items of */
  uint32_t L = sch_paths_common_level(ps, n);
  for (uint32_t i = 0; i < n; i++)
    if (L + 1 >= ps[i].depth)
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' contains the other blocks; the blocks must "
                      "not be nested",
                      block_name_of(&ps[i]));
  const tsl_stmt *seq = ps[0].stmts[L];
  if (seq->kind != TSL_STMT_SEQ || L == 0 ||
      (ps[0].stmts[L - 1]->kind != TSL_STMT_FOR &&
       ps[0].stmts[L - 1]->kind != TSL_STMT_BLOCK_REALIZE) ||
      ps[0].index[L] != 0)
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "the nests of the blocks must be statements of one "
                    "sequence that is the body of a loop or a block");
  for (uint32_t i = 0; i < n; i++) {
    for (uint32_t k = L + 1; k + 1 < ps[i].depth; k++)
      if (ps[i].stmts[k]->kind != TSL_STMT_FOR)
        return sch_fail(c, TSL_EINVALID,
                        "the statement holding block '%s' is not a chain of "
                        "loops ending in that block; blockize of several "
                        "blocks moves whole nests",
                        block_name_of(&ps[i]));
    if (ps[i].index[L + 1] != ps[0].index[L + 1] + i)
      return sch_fail(c, TSL_EINVALID,
                      "the nests of the blocks must be consecutive statements "
                      "of the sequence, given in program order (block '%s' is "
                      "out of place)",
                      block_name_of(&ps[i]));
  }
  /* divide each block at its own nest */
  bz_part *parts = TSL_NEW_ARRAY(a, bz_part, n);
  const tsl_stmt **nests = TSL_NEW_ARRAY(a, const tsl_stmt *, n);
  tsl_analyzer *an = tsl_analyzer_new(c->sch->ctx);
  int rc = TSL_OK;
  char names[1024];
  size_t len = (size_t)snprintf(names, sizeof names, "outer_");
  for (uint32_t i = 0; i < n && rc == TSL_OK; i++) {
    const sch_path *p = &ps[i];
    bz_ctx x = {.c = c, .a = a, .an = an, .f = p->func,
                .target_name = "the nests of the blocks"};
    x.n_loops = p->depth - L - 2;
    x.loops = TSL_NEW_ARRAY(a, const tsl_stmt *, x.n_loops + 1);
    for (uint32_t l = 0; l < x.n_loops; l++)
      x.loops[l] = p->stmts[L + 1 + l];
    if (i && sch_path_block(p)->n_iter_vars != parts[0].n) {
      rc = sch_fail(c, TSL_EINVALID,
                    "blocks '%s' and '%s' have %u and %u iter vars; blockize of "
                    "several blocks needs one outer iteration for all",
                    block_name_of(&ps[0]), block_name_of(p), parts[0].n,
                    sch_path_block(p)->n_iter_vars);
      break;
    }
    rc = bz_divide(&x, p, L + 1, preserve, i ? parts[0].oivs : NULL, &parts[i]);
    if (rc)
      break;
    const bz_part *q = &parts[i], *p0 = &parts[0];
    int outer_reduce = 0;
    for (uint32_t k = 0; k < q->n && q->outer_reduce; k++) {
      int64_t e;
      outer_reduce |= q->oivs[k].iter_type == TSL_ITER_REDUCE &&
                      !(tsl_expr_is_const_int(q->oivs[k].dom.extent, &e) && e == 1);
    }
    if (outer_reduce) {
      rc = sch_fail(c, TSL_EINVALID,
                    "block '%s' reduces over a loop outside its nest; blockize "
                    "of several blocks allows no outer reduction",
                    block_name_of(p));
      break;
    }
    for (uint32_t k = 0; k < q->n && rc == TSL_OK; k++)
      if (!tsl_analyzer_equal(an, q->oivs[k].dom.extent, p0->oivs[k].dom.extent) ||
          !tsl_analyzer_equal(an, q->ovals[k], p0->ovals[k]))
        rc = sch_fail(c, TSL_EINVALID,
                      "the part of iter %u of block '%s' outside its nest "
                      "differs from that of block '%s'; blockize of several "
                      "blocks needs one outer iteration for all",
                      k, block_name_of(p), block_name_of(&ps[0]));
    if (rc == TSL_OK && !tsl_expr_equal(q->outer_pred, p0->outer_pred))
      rc = sch_fail(c, TSL_EINVALID,
                    "blocks '%s' and '%s' have different predicates on the "
                    "loops outside their nests",
                    block_name_of(&ps[0]), block_name_of(p));
    if (rc)
      break;
    const tsl_stmt *inner = q->inner;
    if (q->init) { /* the init stays with its block, a whole reduction */
      tsl_block *ib = tsl_block_clone(a, inner->u.realize.block);
      ib->init = q->init;
      if (q->outer_reduce) { /* bz_divide put the writes first in the reads */
        ib->reads += ib->n_writes;
        ib->n_reads -= ib->n_writes;
      }
      inner = sch_with_block(a, inner, ib);
    }
    for (uint32_t l = x.n_loops; l-- > 0;)
      inner = sch_with_child(a, x.loops[l], 0, inner);
    nests[i] = inner;
    if (len < sizeof names)
      len += (size_t)snprintf(names + len, sizeof names - len, "%s_", block_name_of(p));
  }
  if (rc) {
    tsl_analyzer_free(an);
    return rc;
  }
  tsl_block *ob = TSL_NEW(a, tsl_block);
  ob->name = sch_fresh_block_name(c, ps[0].func, names);
  ob->n_iter_vars = parts[0].n;
  ob->iter_vars = parts[0].oivs;
  tsl_buffer_region *rd, *wr;
  union_regions(a, an, parts, n, 0, &rd, &ob->n_reads);
  union_regions(a, an, parts, n, 1, &wr, &ob->n_writes);
  ob->reads = rd;
  ob->writes = wr;
  ob->body = tsl_stmt_seq(a, n, nests);
  tsl_analyzer_free(an);
  const tsl_stmt *outer =
      tsl_stmt_block_realize(a, parts[0].n, parts[0].ovals, parts[0].outer_pred, ob);
  /* the outer block takes the place of the nests */
  uint32_t first = ps[0].index[L + 1];
  const tsl_stmt **items = TSL_NEW_ARRAY(a, const tsl_stmt *, seq->u.seq.n);
  uint32_t m = 0;
  for (uint32_t k = 0; k < seq->u.seq.n; k++) {
    if (k == first)
      items[m++] = outer;
    else if (k < first || k >= first + n)
      items[m++] = seq->u.seq.stmts[k];
  }
  sch_commit(c, ps[0].func, sch_path_rebuild(a, &ps[0], L, tsl_stmt_seq(a, m, items)));
  sch_out_block(c, ps[0].func->name, ob->name);
  return TSL_OK;
}
