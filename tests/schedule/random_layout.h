/*
 * tests/schedule/random_layout.h — random calls of the layout primitives
 * (transform_layout, transform_block_layout, set_axis_separator) for
 * test_random.c: index maps that permute, split (often with padding) and
 * fuse dimensions of a block's buffer or iteration space, pad values of
 * every form (number, T. expression, lambda), and now and then a wrong
 * parameter count or separator, which must fail cleanly.
 */
#ifndef TESSEL_TESTS_RANDOM_LAYOUT_H
#define TESSEL_TESTS_RANDOM_LAYOUT_H

static const tsl_block *rl_find(const tsl_stmt *s, const char *name) {
  const tsl_block *r = NULL;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    if (!strcmp(b->name, name))
      return b;
    if (b->init && (r = rl_find(b->init, name)))
      return r;
    return rl_find(b->body, name);
  }
  case TSL_STMT_FOR: return rl_find(s->u.loop.body, name);
  case TSL_STMT_LET: return rl_find(s->u.let.body, name);
  case TSL_STMT_IF:
    if ((r = rl_find(s->u.branch.then_case, name)))
      return r;
    return s->u.branch.else_case ? rl_find(s->u.branch.else_case, name) : NULL;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if ((r = rl_find(s->u.seq.stmts[i], name)))
        return r;
    return NULL;
  default: return NULL;
  }
}

/* A random index map over `n` parameters whose extents are `ext` (-1 when
 * not constant), as a lambda value: a permutation, then one split by 2..4
 * or one fusion of two neighbours (constant extents only). `wrong` adds a
 * parameter. *n_out gets the number of results. */
static tsl_sch_value rl_map(tsl_arena *ar, uint32_t n, const int64_t *ext, int wrong,
                            uint32_t *n_out) {
  uint32_t np = n + (wrong ? 1 : 0);
  const tsl_var **ps = TSL_NEW_ARRAY(ar, const tsl_var *, np + 1);
  for (uint32_t k = 0; k < np; k++) {
    char name[8];
    snprintf(name, sizeof name, "x%u", k);
    ps[k] = tsl_var_new(ar, name, TSL_INT32);
  }
  uint32_t perm[16];
  for (uint32_t k = 0; k < n && k < 16; k++)
    perm[k] = k;
  if (n > 1 && below(2)) {
    uint32_t x = below(n), y = below(n), t = perm[x];
    perm[x] = perm[y];
    perm[y] = t;
  }
  tsl_sch_value *items = TSL_NEW_ARRAY(ar, tsl_sch_value, n + 2);
  uint32_t m = 0;
  uint32_t how = below(3), at = n ? below(n) : 0;
  for (uint32_t k = 0; k < n; k++) {
    const tsl_expr *x = ps[perm[k]]->ref;
    if (how == 1 && k == at) { /* split */
      const tsl_expr *f = tsl_expr_i32(ar, 2 + below(3));
      items[m++] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORDIV, x, f));
      items[m++] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORMOD, x, f));
    } else if (how == 2 && k == at && k + 1 < n && ext[perm[k + 1]] > 0) { /* fuse */
      const tsl_expr *y = ps[perm[k + 1]]->ref;
      items[m++] = tsl_sv_expr(tsl_expr_binary(
          ar, TSL_EXPR_ADD,
          tsl_expr_binary(ar, TSL_EXPR_MUL, x, tsl_expr_i32(ar, ext[perm[k + 1]])), y));
      k++;
    } else {
      items[m++] = tsl_sv_expr(x);
    }
  }
  tsl_sch_lambda *l = TSL_NEW(ar, tsl_sch_lambda);
  l->n_params = np;
  l->params = ps;
  l->body = m == 1 && below(2) ? items[0] : tsl_sv_tuple(m, items);
  *n_out = m;
  return tsl_sv_lambda(l);
}

/* A pad value for a buffer of dtype `t` over `n` new indices. */
static tsl_sch_value rl_pad(tsl_arena *ar, tsl_dtype t, uint32_t n) {
  int is_f = t.code == TSL_DT_FLOAT;
  switch (below(4)) {
  case 0: return tsl_sv_none();
  case 1: return is_f ? tsl_sv_float(0.5) : tsl_sv_int(7);
  case 2: return tsl_sv_expr(is_f ? tsl_expr_float(ar, t, 2.0) : tsl_expr_int(ar, t, 3));
  default: {
    tsl_sch_lambda *l = TSL_NEW(ar, tsl_sch_lambda);
    const tsl_var **ps = TSL_NEW_ARRAY(ar, const tsl_var *, n + 1);
    const tsl_expr *sum = tsl_expr_i32(ar, 1);
    for (uint32_t k = 0; k < n; k++) {
      char name[16];
      snprintf(name, sizeof name, "p%u", k);
      ps[k] = tsl_var_new(ar, name, TSL_INT32);
      sum = tsl_expr_binary(ar, TSL_EXPR_ADD, sum, ps[k]->ref);
    }
    l->n_params = n;
    l->params = ps;
    l->body = tsl_sv_expr(tsl_dtype_eq(t, TSL_INT32) ? sum : tsl_expr_cast(ar, t, sum));
    return tsl_sv_lambda(l);
  }
  }
}

static const char *random_layout(gen *g, tsl_sch_arg *a, uint32_t *n) {
  static tsl_arena *ar;
  if (!ar)
    ar = tsl_arena_new(ctx);
  tsl_sch_rv b;
  *n = 0;
  if (!pick_block(g, &b))
    return NULL;
  const tsl_block *blk = rl_find(tsl_schedule_func(g->sch)->body,
                                 tsl_schedule_rv_name(g->sch, b));
  if (!blk)
    return NULL;
  a[0] = (tsl_sch_arg){NULL, rv_(b)};
  uint32_t pick = below(4);
  if (pick == 0) { /* transform_block_layout */
    int64_t ext[16];
    uint32_t ni = blk->n_iter_vars < 16 ? blk->n_iter_vars : 16;
    for (uint32_t k = 0; k < ni; k++)
      if (!tsl_expr_is_const_int(blk->iter_vars[k].dom.extent, &ext[k]))
        ext[k] = -1;
    uint32_t no;
    a[1] = (tsl_sch_arg){"index_map", rl_map(ar, ni, ext, below(8) == 0, &no)};
    *n = 2;
    return "transform_block_layout";
  }
  uint32_t nr = blk->n_reads, nw = blk->n_writes;
  if (!nr && !nw)
    return NULL;
  int is_write = nw && (!nr || below(2));
  uint32_t idx = below(is_write ? nw : nr);
  const tsl_buffer *buf = is_write ? blk->writes[idx].buffer : blk->reads[idx].buffer;
  if (below(3)) {
    tsl_sch_value *t = TSL_NEW_ARRAY(ar, tsl_sch_value, 2);
    t[0] = tsl_sv_str(tsl_intern(ctx, is_write ? "write" : "read"));
    t[1] = tsl_sv_int(idx);
    a[1] = (tsl_sch_arg){NULL, tsl_sv_tuple(2, t)};
  } else {
    a[1] = (tsl_sch_arg){NULL, tsl_sv_str(buf->name)};
  }
  if (pick == 1) { /* set_axis_separator */
    tsl_sch_value *s = TSL_NEW_ARRAY(ar, tsl_sch_value, 2);
    uint32_t k = below(3);
    for (uint32_t i = 0; i < k; i++)
      s[i] = tsl_sv_int(below(buf->ndim + (below(8) ? 1 : 2)));
    if (k == 2 && s[0].u.i > s[1].u.i && below(4)) {
      tsl_sch_value x = s[0];
      s[0] = s[1];
      s[1] = x;
    }
    a[2] = (tsl_sch_arg){NULL, tsl_sv_list(k, s)};
    *n = 3;
    return "set_axis_separator";
  }
  int64_t ext[16];
  uint32_t nd = buf->ndim < 16 ? buf->ndim : 16;
  for (uint32_t k = 0; k < nd; k++)
    if (!tsl_expr_is_const_int(buf->shape[k], &ext[k]))
      ext[k] = -1;
  uint32_t no;
  a[2] = (tsl_sch_arg){"index_map", rl_map(ar, nd, ext, below(10) == 0, &no)};
  a[3] = (tsl_sch_arg){"pad_value", rl_pad(ar, buf->dtype, no)};
  *n = 4;
  if (!below(6))
    a[(*n)++] = (tsl_sch_arg){"assume_injective_transform", tsl_sv_bool(1)};
  return "transform_layout";
}

#endif
