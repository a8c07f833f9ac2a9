/*
 * tests/schedule/random_reindex.h — random calls of the reindex / cache
 * family (reindex, reindex_cache_read, reindex_cache_write, cache_inplace,
 * cache_index, read_at, write_at, rolling_buffer) for test_random.c: buffers
 * named by index, by name or by ("read" | "write", i), index maps that
 * permute and split the block's iterators (now and then with a wrong
 * parameter count), loops of the block itself or of another block.
 */
#ifndef TESSEL_TESTS_RANDOM_REINDEX_H
#define TESSEL_TESTS_RANDOM_REINDEX_H

static const tsl_block *rr_find(const tsl_stmt *s, const char *name) {
  const tsl_block *r = NULL;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    if (!strcmp(b->name, name))
      return b;
    return rr_find(b->body, name);
  }
  case TSL_STMT_FOR: return rr_find(s->u.loop.body, name);
  case TSL_STMT_LET: return rr_find(s->u.let.body, name);
  case TSL_STMT_IF:
    if ((r = rr_find(s->u.branch.then_case, name)))
      return r;
    return s->u.branch.else_case ? rr_find(s->u.branch.else_case, name) : NULL;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if ((r = rr_find(s->u.seq.stmts[i], name)))
        return r;
    return NULL;
  default: return NULL;
  }
}

/* An index map over `n` parameters: a permutation, sometimes one split by
 * 2 (`x // 2, x % 2`); `wrong` adds a parameter. */
static tsl_sch_value rr_map(tsl_arena *ar, uint32_t n, int wrong) {
  uint32_t np = n + (wrong ? 1 : 0);
  const tsl_var **ps = TSL_NEW_ARRAY(ar, const tsl_var *, np + 1);
  for (uint32_t k = 0; k < np; k++) {
    char name[16];
    snprintf(name, sizeof name, "i%u", k);
    ps[k] = tsl_var_new(ar, name, TSL_INT32);
  }
  uint32_t perm[16];
  for (uint32_t k = 0; k < n && k < 16; k++)
    perm[k] = k;
  for (uint32_t k = n < 16 ? n : 16; k-- > 1;) {
    uint32_t j = below(k + 1), t = perm[k];
    perm[k] = perm[j];
    perm[j] = t;
  }
  tsl_sch_value *items = TSL_NEW_ARRAY(ar, tsl_sch_value, n + 2);
  uint32_t m = 0, at = below(4) == 0 && n ? below(n) : n;
  for (uint32_t k = 0; k < n && k < 16; k++) {
    const tsl_expr *x = ps[perm[k]]->ref;
    if (k == at) {
      const tsl_expr *two = tsl_expr_i32(ar, 2);
      items[m++] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORDIV, x, two));
      items[m++] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORMOD, x, two));
    } else {
      items[m++] = tsl_sv_expr(x);
    }
  }
  tsl_sch_lambda *l = TSL_NEW(ar, tsl_sch_lambda);
  l->n_params = np;
  l->params = ps;
  l->body = tsl_sv_tuple(m, items);
  return tsl_sv_lambda(l);
}

static const char *random_reindex(gen *g, tsl_sch_arg *a, uint32_t *n) {
  static const char *rr_scopes[] = {"global", "shared", "local"};
  static tsl_arena *ar;
  static tsl_sch_value items[2];
  if (!ar)
    ar = tsl_arena_new(ctx);
  *n = 0;
  if (!pick_loops(g))
    return NULL;
  tsl_sch_rv b = g->block;
  const tsl_block *blk = rr_find(tsl_schedule_func(g->sch)->body,
                                 tsl_schedule_rv_name(g->sch, b));
  if (!blk)
    return NULL;
  uint32_t nr = blk->n_reads, nw = blk->n_writes;
  int is_write = nw && (!nr || below(2));
  uint32_t idx = below(is_write ? (nw ? nw : 1) : (nr ? nr : 1));
  tsl_sch_value scope = tsl_sv_str(tsl_intern(ctx, rr_scopes[below(3)]));
  a[0] = (tsl_sch_arg){NULL, rv_(b)};
  switch (below(8)) {
  case 0: /* reindex */
    if (below(3) == 0 && (is_write ? nw : nr)) {
      const tsl_buffer *buf = is_write ? blk->writes[idx].buffer : blk->reads[idx].buffer;
      a[1] = (tsl_sch_arg){"buffer", tsl_sv_str(buf->name)};
    } else {
      items[0] = tsl_sv_str(tsl_intern(ctx, is_write ? "write" : "read"));
      items[1] = tsl_sv_int(idx);
      a[1] = (tsl_sch_arg){"buffer", tsl_sv_tuple(2, items)};
    }
    *n = 2;
    return "reindex";
  case 1:
  case 2: { /* reindex_cache_read / reindex_cache_write */
    int w = below(2);
    a[1] = (tsl_sch_arg){NULL, tsl_sv_int(below(2))};
    a[2] = (tsl_sch_arg){NULL, scope};
    a[3] = (tsl_sch_arg){"index_map", rr_map(ar, blk->n_iter_vars, below(8) == 0)};
    *n = 4;
    return w ? "reindex_cache_write" : "reindex_cache_read";
  }
  case 3: /* cache_inplace */
    a[1] = (tsl_sch_arg){NULL, tsl_sv_int(below(2))};
    a[2] = (tsl_sch_arg){NULL, scope};
    *n = 3;
    return "cache_inplace";
  case 4: /* cache_index */
    a[1] = (tsl_sch_arg){NULL, scope};
    a[2] = (tsl_sch_arg){"cse_thresh", tsl_sv_int(below(3))};
    *n = 3;
    return "cache_index";
  case 5:
  case 6: { /* read_at / write_at at a loop of this block or of another */
    tsl_sch_rv loop = g->loops[below(g->n_loops)];
    if (below(4) == 0 && pick_loops(g))
      loop = g->loops[below(g->n_loops)];
    a[0] = (tsl_sch_arg){NULL, rv_(loop)};
    a[1] = (tsl_sch_arg){NULL, rv_(b)};
    a[2] = (tsl_sch_arg){NULL, tsl_sv_int(below(2))};
    a[3] = (tsl_sch_arg){NULL, scope};
    *n = 4;
    return below(2) ? "read_at" : "write_at";
  }
  default: { /* rolling_buffer, mostly after computing the block at a loop of
                its first consumer (split first, so that tiles overlap) */
    const tsl_sch_rv *cons, *cl, *parts;
    uint32_t n_cons, n_cl, n_parts;
    tsl_sch_arg q[3] = {{NULL, rv_(b)}};
    if (below(4) && !tsl_sch_call(g->sch, "get_consumers", 1, q, &cons, &n_cons, &g->diag) &&
        n_cons) {
      q[0] = (tsl_sch_arg){NULL, rv_(cons[0])};
      if (!tsl_sch_call(g->sch, "get_loops", 1, q, &cl, &n_cl, &g->diag) && n_cl) {
        tsl_sch_rv at = cl[below(n_cl < 3 ? n_cl : 3)];
        items[0] = tsl_sv_none();
        items[1] = tsl_sv_int(2 + below(3));
        q[0] = (tsl_sch_arg){NULL, rv_(at)};
        q[1] = (tsl_sch_arg){NULL, tsl_sv_list(2, items)};
        if (!tsl_sch_call(g->sch, "split", 2, q, &parts, &n_parts, &g->diag)) {
          q[0] = (tsl_sch_arg){NULL, rv_(b)};
          q[1] = (tsl_sch_arg){NULL, rv_(parts[0])};
          tsl_sch_call(g->sch, "compute_at", 2, q, NULL, NULL, &g->diag);
        }
      }
    }
    a[1] = (tsl_sch_arg){NULL, tsl_sv_int(below(4) ? 0 : 1)};
    *n = 2;
    return "rolling_buffer";
  }
  }
}

#endif
