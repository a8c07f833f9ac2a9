/*
 * tests/schedule/random_loopprims.h — random calls of the primitives of
 * the loopprims group (add_unit_loop, merge, loop_partition,
 * reorder_block_iter_var, unsafe_set_dtype, unsafe_hide_buffer_access,
 * annotate_buffer_access, pad_einsum, decompose_padding,
 * can_decompose_padding, blockize of a list of blocks,
 * sample_partitioned_tile, get_output_blocks, work_on). Included by
 * test_random.c through random_groups.h.
 *
 * The unsafe primitives are drawn only where they keep the program's
 * meaning (what the property test checks): dtypes widen to float64,
 * hidden reads are of inputs nobody writes, annotated read regions cover
 * the real ones.
 */
#ifndef TESSEL_TESTS_RANDOM_LOOPPRIMS_H
#define TESSEL_TESTS_RANDOM_LOOPPRIMS_H

/* Values of one call (lists, lambdas) live here until the next call; the
 * schedule copies what it keeps. */
static tsl_arena *lp_arena;
static tsl_sch_value lp_items[4][16];

static const tsl_block *lp_find_block(const tsl_stmt *s, const char *name) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_BLOCK_REALIZE:
    if (!strcmp(s->u.realize.block->name, name))
      return s->u.realize.block;
    return lp_find_block(s->u.realize.block->body, name);
  case TSL_STMT_FOR: return lp_find_block(s->u.loop.body, name);
  case TSL_STMT_LET: return lp_find_block(s->u.let.body, name);
  case TSL_STMT_IF: {
    const tsl_block *b = lp_find_block(s->u.branch.then_case, name);
    return b || !s->u.branch.else_case ? b : lp_find_block(s->u.branch.else_case, name);
  }
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      const tsl_block *b = lp_find_block(s->u.seq.stmts[i], name);
      if (b)
        return b;
    }
    return NULL;
  default: return NULL;
  }
}

static const tsl_block *lp_block(gen *g, tsl_sch_rv rv) {
  return lp_find_block(tsl_schedule_func(g->sch)->body, tsl_schedule_rv_name(g->sch, rv));
}

/* 1 when some block of the function writes `b`. */
static int lp_written(const tsl_stmt *s, const tsl_buffer *b) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *k = s->u.realize.block;
    for (uint32_t i = 0; i < k->n_writes; i++)
      if (k->writes[i].buffer == b)
        return 1;
    return lp_written(k->body, b);
  }
  case TSL_STMT_FOR: return lp_written(s->u.loop.body, b);
  case TSL_STMT_LET: return lp_written(s->u.let.body, b);
  case TSL_STMT_IF:
    return lp_written(s->u.branch.then_case, b) ||
           (s->u.branch.else_case && lp_written(s->u.branch.else_case, b));
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if (lp_written(s->u.seq.stmts[i], b))
        return 1;
    return 0;
  default: return 0;
  }
}

typedef struct lp_subst {
  const tsl_block *b;
  const tsl_var *const *params;
} lp_subst;

static const tsl_expr *lp_param_of(const tsl_var *v, void *ud) {
  const lp_subst *s = ud;
  for (uint32_t i = 0; i < s->b->n_iter_vars; i++)
    if (s->b->iter_vars[i].var == v)
      return tsl_expr_var(s->params[i]);
  return NULL;
}

static int lp_foreign_fn(const tsl_expr *e, void *ud) {
  const tsl_block *b = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i].var == e->u.var)
      return 0;
  return 1;
}

/* 1 when `e` uses a variable other than the block's iter vars. */
static int lp_foreign(const tsl_block *b, const tsl_expr *e) {
  return tsl_expr_visit(e, lp_foreign_fn, (void *)b) != 0;
}

/* A lambda over the block's iter vars giving, per dimension of read region
 * `r`, either the region itself (exact) or the whole buffer. */
static tsl_sch_value lp_region_lambda(const tsl_block *b, const tsl_buffer_region *r,
                                      int whole) {
  tsl_arena *a = lp_arena;
  tsl_sch_lambda *l = TSL_NEW(a, tsl_sch_lambda);
  const tsl_var **ps = TSL_NEW_ARRAY(a, const tsl_var *, b->n_iter_vars + 1);
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    ps[i] = tsl_var_new(a, b->iter_vars[i].var->name, TSL_INT32);
  tsl_sch_value *dims = TSL_NEW_ARRAY(a, tsl_sch_value, r->ndim + 1);
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_expr *lo, *hi;
    if (whole) {
      lo = tsl_expr_int(a, r->buffer->shape[d]->dtype, 0);
      hi = r->buffer->shape[d];
    } else {
      lo = r->ranges[d].min;
      hi = tsl_expr_binary(a, TSL_EXPR_ADD, r->ranges[d].min, r->ranges[d].extent);
    }
    tsl_sch_value *pair = TSL_NEW_ARRAY(a, tsl_sch_value, 2);
    lp_subst sub = {b, ps};
    for (int k = 0; k < 2; k++) /* iter vars -> parameters */
      pair[k] = tsl_sv_expr(tsl_expr_substitute(a, k ? hi : lo, lp_param_of, &sub));
    dims[d] = tsl_sv_tuple(2, pair);
  }
  l->n_params = b->n_iter_vars;
  l->params = ps;
  l->body = tsl_sv_tuple(r->ndim, dims);
  return tsl_sv_lambda(l);
}

/* A block for which `want` holds, from a few random picks (else any). */
static int lp_pick(gen *g, int (*want)(gen *, const tsl_block *), tsl_sch_rv *out) {
  for (int t = 0; t < 8; t++) {
    if (!pick_block(g, out))
      return 0;
    const tsl_block *b = lp_block(g, *out);
    if (b && want(g, b))
      return 1;
  }
  return 1;
}

static int lp_writes_local(gen *g, const tsl_block *b) {
  if (!b->n_writes)
    return 0;
  const tsl_func *f = tsl_schedule_func(g->sch);
  for (uint32_t i = 0; i < f->n_params; i++)
    if (f->params[i].buffer == b->writes[0].buffer)
      return 0;
  return 1;
}

static int lp_pads(gen *g, const tsl_block *b) {
  (void)g;
  return b->body->kind == TSL_STMT_STORE &&
         b->body->u.store.value->kind == TSL_EXPR_IF_THEN_ELSE;
}

static const char *random_loopprims(gen *g, tsl_sch_arg *a, uint32_t *n) {
  if (lp_arena)
    tsl_arena_free(lp_arena);
  lp_arena = tsl_arena_new(ctx);
  *n = 0;
  tsl_sch_rv b2;
  switch (below(15)) {
  case 0: /* add_unit_loop above a block or a loop */
    if (!pick_loops(g))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, below(2) ? rv_(g->block) : rv_(g->loops[below(g->n_loops)])};
    *n = 1;
    return "add_unit_loop";
  case 1: { /* merge loops of two blocks at one level */
    if (!pick_loops(g))
      return NULL;
    tsl_sch_rv first[16];
    uint32_t n1 = g->n_loops < 16 ? g->n_loops : 16;
    memcpy(first, g->loops, sizeof first[0] * n1);
    tsl_sch_rv b1 = g->block;
    for (int t = 0; t < 4; t++)
      if (!pick_loops(g) || strcmp(tsl_schedule_rv_name(g->sch, g->block),
                                   tsl_schedule_rv_name(g->sch, b1)))
        break;
    if (!g->n_loops)
      return NULL;
    uint32_t m = n1 < g->n_loops ? n1 : g->n_loops, k = below(m);
    a[0] = (tsl_sch_arg){NULL, rv_(first[k])};
    a[1] = (tsl_sch_arg){NULL, rv_(g->loops[below(2) ? k : below(g->n_loops)])};
    *n = 2;
    return "merge";
  }
  case 2: { /* loop_partition with small factors, maybe one None */
    if (!pick_loops(g))
      return NULL;
    uint32_t k = 1 + below(3);
    for (uint32_t i = 0; i < k; i++)
      lp_items[0][i] = tsl_sv_int(1 + below(6));
    if (below(2))
      lp_items[0][below(k)] = tsl_sv_none();
    a[0] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    a[1] = (tsl_sch_arg){"factors", tsl_sv_list(k, lp_items[0])};
    *n = 2;
    return "loop_partition";
  }
  case 3: { /* reorder_block_iter_var: a permutation, sometimes a bad one */
    if (!pick_block(g, &b2))
      return NULL;
    const tsl_block *b = lp_block(g, b2);
    uint32_t m = b ? b->n_iter_vars : 2;
    if (m > 16)
      m = 16;
    for (uint32_t i = 0; i < m; i++)
      lp_items[0][i] = tsl_sv_int(i);
    for (uint32_t i = m; i-- > 1;) {
      uint32_t j = below(i + 1);
      tsl_sch_value t = lp_items[0][i];
      lp_items[0][i] = lp_items[0][j];
      lp_items[0][j] = t;
    }
    if (m && !below(6))
      lp_items[0][below(m)] = tsl_sv_int(below(m + 1));
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_list(m, lp_items[0])};
    *n = 2;
    return "reorder_block_iter_var";
  }
  case 4: /* widening a buffer's type to float64 keeps every value */
    if (!lp_pick(g, lp_writes_local, &b2))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_int(below(6) ? 0 : 1)};
    a[2] = (tsl_sch_arg){NULL, tsl_sv_str(tsl_intern(ctx, "float64"))};
    *n = 3;
    return "unsafe_set_dtype";
  case 5: { /* hide the read of an input nobody writes, or fail cleanly */
    if (!pick_block(g, &b2))
      return NULL;
    const tsl_block *b = lp_block(g, b2);
    int64_t idx = below(4);
    const char *type = below(8) ? "read" : "written";
    if (b && !strcmp(type, "read") && idx < b->n_reads &&
        lp_written(tsl_schedule_func(g->sch)->body, b->reads[idx].buffer))
      idx = 100; /* hiding it could mislead later primitives: out of range */
    lp_items[0][0] = tsl_sv_int(idx);
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_str(tsl_intern(ctx, type))};
    a[2] = (tsl_sch_arg){NULL, tsl_sv_list(1, lp_items[0])};
    *n = 3;
    return "unsafe_hide_buffer_access";
  }
  case 6: { /* annotate a read region with itself or with the whole buffer */
    if (!pick_block(g, &b2))
      return NULL;
    const tsl_block *b = lp_block(g, b2);
    if (!b || !b->n_reads)
      return NULL;
    uint32_t idx = below(b->n_reads);
    const tsl_buffer_region *r = &b->reads[idx];
    int whole = (int)below(2);
    for (uint32_t d = 0; d < r->ndim && !whole; d++) /* other names: whole */
      whole = lp_foreign(b, r->ranges[d].min) || lp_foreign(b, r->ranges[d].extent);
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_int(idx)};
    a[2] = (tsl_sch_arg){NULL, tsl_sv_str(tsl_intern(ctx, "read"))};
    a[3] = (tsl_sch_arg){NULL, lp_region_lambda(b, r, whole)};
    *n = 4;
    return "annotate_buffer_access";
  }
  case 7: { /* pad_einsum with small paddings */
    if (!pick_block(g, &b2))
      return NULL;
    const tsl_block *b = lp_block(g, b2);
    uint32_t m = b ? b->n_iter_vars : 1;
    if (m > 16)
      m = 16;
    for (uint32_t i = 0; i < m; i++)
      lp_items[0][i] = tsl_sv_int(1 + below(8));
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_list(m, lp_items[0])};
    *n = 2;
    return "pad_einsum";
  }
  case 8: case 9: /* decompose_padding (or the question) at a loop */
    if (!lp_pick(g, lp_pads, &g->block) ||
        tsl_sch_get_loops(g->sch, g->block, &g->loops, &g->n_loops, &g->diag) ||
        !g->n_loops)
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(g->block)};
    a[1] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    *n = 2;
    return below(4) ? "decompose_padding" : "can_decompose_padding";
  case 10: { /* blockize of two blocks, mostly neighbours in program order */
    tsl_str names[64];
    uint32_t nb = 0;
    collect_blocks(tsl_schedule_func(g->sch)->body, names, &nb, 64);
    if (nb < 2)
      return NULL;
    uint32_t k = below(nb - 1), k2 = below(4) ? k + 1 : below(nb);
    tsl_sch_rv x, y;
    if (tsl_sch_get_block(g->sch, names[k], &x, &g->diag) ||
        tsl_sch_get_block(g->sch, names[k2], &y, &g->diag))
      return NULL;
    lp_items[0][0] = rv_(x);
    lp_items[0][1] = rv_(y);
    a[0] = (tsl_sch_arg){NULL, tsl_sv_list(2, lp_items[0])};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_bool((int)below(2))};
    *n = 2;
    return "blockize";
  }
  case 11: { /* split by a sampled partitioned tile */
    if (!pick_loops(g))
      return NULL;
    tsl_sch_rv loop = g->loops[below(g->n_loops)];
    tsl_sch_arg s[4] = {{NULL, rv_(loop)}, {"n", tsl_sv_int(2 + below(2))},
                        {"partition_pos", tsl_sv_int(below(2))},
                        {"innerpart_factor", tsl_sv_int(1 << below(3))}};
    const tsl_sch_rv *v;
    uint32_t nv;
    if (tsl_sch_call(g->sch, "sample_partitioned_tile", 4, s, &v, &nv, &g->diag))
      return NULL;
    for (uint32_t i = 0; i < nv; i++)
      lp_items[1][i] = rv_(v[i]);
    a[0] = (tsl_sch_arg){NULL, rv_(loop)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_list(nv, lp_items[1])};
    *n = 2;
    return "split";
  }
  case 12: /* output blocks of the root or of another block */
    if (!below(2) ? tsl_sch_get_block(g->sch, "root", &b2, &g->diag) != TSL_OK
                  : !pick_block(g, &b2))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    *n = 1;
    return "get_output_blocks";
  case 13: /* the function the schedule works on already */
    a[0] = (tsl_sch_arg){NULL, tsl_sv_str(tsl_schedule_func(g->sch)->name)};
    *n = 1;
    return "work_on";
  default: { /* merge the first loops of two blocks (siblings meet rarely) */
    tsl_str names[64];
    uint32_t nb = 0;
    collect_blocks(tsl_schedule_func(g->sch)->body, names, &nb, 64);
    if (nb < 2)
      return NULL;
    uint32_t k = below(nb - 1);
    tsl_sch_rv x, y;
    const tsl_sch_rv *lx, *ly;
    uint32_t nx, ny;
    if (tsl_sch_get_block(g->sch, names[k], &x, &g->diag) ||
        tsl_sch_get_block(g->sch, names[k + 1 + below(nb - k - 1)], &y, &g->diag) ||
        tsl_sch_get_loops(g->sch, x, &lx, &nx, &g->diag) || !nx ||
        tsl_sch_get_loops(g->sch, y, &ly, &ny, &g->diag) || !ny)
      return NULL;
    uint32_t lvl = below(nx < ny ? nx : ny);
    a[0] = (tsl_sch_arg){NULL, rv_(lx[lvl])};
    a[1] = (tsl_sch_arg){NULL, rv_(ly[lvl])};
    *n = 2;
    return "merge";
  }
  }
}

#endif
