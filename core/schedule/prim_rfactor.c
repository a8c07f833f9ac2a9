/*
 * rfactor(loop, factor_axis): factorize the reduction of the only block
 * under `loop` over that loop. An rfactor block "<name>_rf" computes partial
 * results into a new buffer "<buffer>_rf" (the output shape with the loop's
 * extent inserted at factor_axis, allocated in the scope block) under fresh
 * copies of all the block's loops; the original block becomes the write-back
 * block that reduces the partial results over the factored axis. Returns
 * the rfactor block. Semantics follow TVM's RFactor; the reducers are
 * those of reducer.c (+, *, min, max, pairs of sums, argmax, argmin), a
 * reduction over several buffers getting one rfactor buffer each.
 */
#include "prim_reduction.h"

#include <stdio.h>
#include <string.h>

static const char *prefixed(sch_call *c, const char *pre, const char *name,
                            const char *suf) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s%s%s", pre, name, suf);
  return tsl_arena_strdup(c->arena, buf);
}

static int buffer_name_taken(const tsl_func *f, const tsl_block *scope,
                             const char *name) {
  for (uint32_t i = 0; i < f->n_params; i++)
    if (f->params[i].buffer && !strcmp(f->params[i].buffer->name, name))
      return 1;
  for (uint32_t i = 0; i < scope->n_alloc_buffers; i++)
    if (!strcmp(scope->alloc_buffers[i]->name, name))
      return 1;
  return 0;
}

static tsl_iter_var iter_from_loop(sch_call *c, const tsl_stmt *loop,
                                   uint32_t type) {
  tsl_iter_var iv;
  const tsl_var *lv = loop->u.loop.loop_var;
  iv.var = sch_new_var(c, prefixed(c, "v", lv->name, ""), lv->dtype);
  iv.dom.min = loop->u.loop.min;
  iv.dom.extent = loop->u.loop.extent;
  iv.iter_type = type;
  return iv;
}

static const tsl_expr **insert_at(tsl_arena *a, const tsl_expr *const *xs,
                                  uint32_t n, uint32_t at, const tsl_expr *x) {
  const tsl_expr **out = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  for (uint32_t i = 0, j = 0; i <= n; i++)
    out[i] = i == at ? x : xs[j++];
  return out;
}

/* Regions with `m` applied; regions of outs[k] become regions of rfs[k]
 * with [var, var + 1) inserted at `axis`. */
static tsl_buffer_region *rf_regions(tsl_arena *a, const tsl_buffer_region *r,
                                     uint32_t n, const tsl_map *m,
                                     const red_reducer *red,
                                     const tsl_buffer *const *rfs, uint32_t axis,
                                     const tsl_var *var) {
  tsl_buffer_region *res = red_subst_regions(a, r, n, m);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k = 0;
    while (k < red->n && res[i].buffer != red->buf[k])
      k++;
    if (k == red->n)
      continue;
    tsl_range *rg = TSL_NEW_ARRAY(a, tsl_range, res[i].ndim + 1);
    for (uint32_t d = 0, j = 0; d <= res[i].ndim; d++) {
      if (d == axis) {
        rg[d].min = tsl_expr_var(var);
        rg[d].extent = tsl_expr_int(a, var->dtype, 1);
      } else {
        rg[d] = res[i].ranges[j++];
      }
    }
    res[i].buffer = rfs[k];
    res[i].ndim++;
    res[i].ranges = rg;
  }
  return res;
}

static tsl_buffer_region *point_region(tsl_arena *a, const tsl_expr *load) {
  tsl_buffer_region *r = TSL_NEW(a, tsl_buffer_region);
  tsl_range *rg = TSL_NEW_ARRAY(a, tsl_range, load->n_args ? load->n_args : 1);
  for (uint32_t d = 0; d < load->n_args; d++) {
    rg[d].min = load->args[d];
    rg[d].extent = tsl_expr_int(a, load->args[d]->dtype, 1);
  }
  r->buffer = load->u.buffer;
  r->ndim = load->n_args;
  r->ranges = rg;
  return r;
}

int sch_apply_rfactor(sch_call *c) {
  sch_path lp;
  int rc = sch_loop_path(c, c->args[0].u.rv, &lp);
  if (rc)
    return rc;
  tsl_arena *a = c->arena;
  const tsl_stmt *rf_loop = sch_path_target(&lp);
  const char *lname = rf_loop->u.loop.loop_var->name;
  int64_t factor_axis = c->args[1].u.i;

  /* ---- checks and information --------------------------------------- */
  sch_path bp;
  if ((rc = sch_single_child_block(c, &lp, &bp)))
    return rc;
  sch_path sp = sch_scope_path(&bp);
  if ((rc = sch_check_stage_pipeline(c, &sp)) ||
      (rc = sch_check_reduction(c, &bp)))
    return rc;
  const tsl_block *b = sch_path_block(&bp);
  const tsl_stmt *realize = sch_path_target(&bp);
  if (rf_loop->u.loop.for_kind != TSL_FOR_SERIAL)
    return sch_fail(c, TSL_EINVALID, "loop '%s' is %s; rfactor needs a serial loop",
                    lname,
                    tsl_for_kind_name((tsl_for_kind)rf_loop->u.loop.for_kind));

  /* loop vars used by spatial (dp) / reduce (rd) iterators */
  tsl_map dp, rd;
  tsl_map_init(&dp, a);
  tsl_map_init(&rd, a);
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_var **vs;
    uint32_t nv = red_expr_vars(a, realize->u.realize.iter_values[i], &vs);
    for (uint32_t q = 0; q < nv; q++)
      tsl_map_put(b->iter_vars[i].iter_type == TSL_ITER_SPATIAL ? &dp : &rd, vs[q], NULL);
  }

  /* the block's loops (outermost first) and the statements in between */
  uint32_t scope = sch_path_scope_level(&bp, bp.depth - 1);
  uint32_t nl = 0;
  uint32_t *lv_level = TSL_NEW_ARRAY(a, uint32_t, bp.depth);
  for (uint32_t k = scope + 1; k + 1 < bp.depth; k++) {
    const tsl_stmt *s = bp.stmts[k];
    if (s->kind == TSL_STMT_FOR)
      lv_level[nl++] = k;
    else if (s->kind != TSL_STMT_SEQ)
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "block '%s' is under a %s statement inside its loops; "
                      "rfactor supports loop nests (and sequences) only",
                      b->name, tsl_stmt_kind_name((tsl_stmt_kind)s->kind));
  }
  const tsl_var **loop_vars = TSL_NEW_ARRAY(a, const tsl_var *, nl + 1);
  for (uint32_t q = 0; q < nl; q++)
    loop_vars[q] = bp.stmts[lv_level[q]]->u.loop.loop_var;
  /* a loop no iterator uses is accepted as TVM does when it runs once (a
   * unit loop left by a split); repeated, each iteration would add a copy
   * of the whole reduction to the write-back */
  int64_t rf_ext = 0;
  if (!tsl_map_find(&rd, rf_loop->u.loop.loop_var, NULL) &&
      !tsl_map_find(&dp, rf_loop->u.loop.loop_var, NULL) &&
      !(tsl_expr_is_const_int(rf_loop->u.loop.extent, &rf_ext) && rf_ext == 1))
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' is not used by any reduce iterator of block "
                    "'%s'; rfactor needs a loop bound to reduce iterators only "
                    "(or a loop of extent 1)",
                    lname, b->name);

  /* TVM's loop properties */
  {
    sch_path op = bp;
    op.depth = lv_level[0] + 1;
    sch_path *ok;
    uint32_t no = sch_child_blocks(c, &op, &ok);
    if (!no || sch_path_block(&ok[0]) != b)
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' must be the first block under its outermost "
                      "loop '%s', but '%s' comes first",
                      b->name, loop_vars[0]->name,
                      no ? sch_path_block(&ok[0])->name : "nothing");
  }
  int met_reduce = 0;
  for (uint32_t q = 0; q < nl; q++) {
    const tsl_stmt *l = bp.stmts[lv_level[q]];
    const tsl_var *v = loop_vars[q];
    int d = tsl_map_find(&dp, v, NULL), r = tsl_map_find(&rd, v, NULL);
    if (d && r)
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' is used by both spatial and reduce iterators "
                      "of block '%s'; rfactor needs every loop used by one "
                      "kind only",
                      v->name, b->name);
    if (d) {
      if (l == rf_loop)
        return sch_fail(c, TSL_EINVALID,
                        "loop '%s' is used by a spatial iterator of block "
                        "'%s'; rfactor needs a loop bound to reduce iterators "
                        "only",
                        lname, b->name);
      continue;
    }
    if (r) {
      if (!met_reduce) {
        sch_path rp = bp;
        rp.depth = lv_level[q] + 1;
        sch_path *rk;
        uint32_t nr = sch_child_blocks(c, &rp, &rk);
        if (nr != 1)
          return sch_fail(c, TSL_EINVALID,
                          "loop '%s', the outermost loop used by a reduce "
                          "iterator of block '%s', has %u blocks under it; "
                          "it must have only '%s'",
                          v->name, b->name, nr, b->name);
      }
      met_reduce = 1;
      continue;
    }
    int64_t ext;
    if (met_reduce && !(tsl_expr_is_const_int(l->u.loop.extent, &ext) && ext == 1))
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' is used by no iterator of block '%s' but lies "
                      "under a reduction loop; only loops of extent 1 may",
                      v->name, b->name);
  }

  red_reducer red;
  rc = red_match_reducer(c, b, &red);
  if (rc)
    return rc;
  const tsl_buffer *out = red.buf[0];
  int64_t ndim = out->ndim;
  if (factor_axis < -(ndim + 1) || factor_axis > ndim)
    return sch_fail(c, TSL_EINVALID,
                    "factor_axis %lld is out of range: the written buffer '%s' "
                    "has %lld dimension(s), so factor_axis must be in [%lld, "
                    "%lld]",
                    (long long)factor_axis, out->name, (long long)ndim,
                    (long long)-(ndim + 1), (long long)ndim);
  uint32_t axis = (uint32_t)(factor_axis < 0 ? factor_axis + ndim + 1
                                             : factor_axis);

  /* ---- the rfactor buffers ---------------------------------------------- */
  const tsl_stmt *scope_realize = bp.stmts[scope];
  const tsl_block *scope_b = scope_realize->u.realize.block;
  const tsl_buffer *rfs[RED_MAX_BUFFERS];
  for (uint32_t k = 0; k < red.n; k++) {
    const tsl_buffer *o = red.buf[k];
    char nbuf[512];
    snprintf(nbuf, sizeof nbuf, "%s_rf", o->name);
    for (uint32_t q = 1; buffer_name_taken(bp.func, scope_b, nbuf) ||
                         (k && !strcmp(nbuf, rfs[k - 1]->name));
         q++)
      snprintf(nbuf, sizeof nbuf, "%s_rf_%u", o->name, q);
    const tsl_expr **shape = insert_at(a, o->shape, o->ndim, axis, rf_loop->u.loop.extent);
    rfs[k] = tsl_buffer_new(a, nbuf, o->dtype, o->ndim + 1, shape, NULL, NULL,
                            o->scope, o->align, o->offset_factor);
  }

  /* ---- the rfactor block ------------------------------------------------- */
  uint32_t cap = b->n_iter_vars + nl + 1, nrf = 0;
  tsl_iter_var *rf_ivs = TSL_NEW_ARRAY(a, tsl_iter_var, cap);
  const tsl_expr **rf_vals = TSL_NEW_ARRAY(a, const tsl_expr *, cap);
  tsl_map l2b, vmap; /* loop var -> rf iter var; block iter var -> its value */
  tsl_map_init(&l2b, a);
  tsl_map_init(&vmap, a);
  tsl_iter_var extra = iter_from_loop(c, rf_loop, TSL_ITER_SPATIAL);
  rf_ivs[nrf] = extra;
  rf_vals[nrf++] = tsl_expr_var(rf_loop->u.loop.loop_var);
  tsl_map_put(&l2b, rf_loop->u.loop.loop_var, (void *)tsl_expr_var(extra.var));
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    const tsl_expr *bind = realize->u.realize.iter_values[i];
    if (iv->iter_type == TSL_ITER_SPATIAL ||
        !tsl_expr_uses_var(bind, rf_loop->u.loop.loop_var)) {
      rf_ivs[nrf] = *iv;
      rf_vals[nrf++] = bind;
      continue;
    }
    const tsl_var **vs;
    uint32_t nv = red_expr_vars(a, bind, &vs);
    for (uint32_t q = 0; q < nv; q++) {
      uint32_t li = nl;
      for (uint32_t t = 0; t < nl; t++)
        if (loop_vars[t] == vs[q])
          li = t;
      if (li == nl || tsl_map_get(&l2b, vs[q]))
        continue;
      tsl_iter_var niv =
          iter_from_loop(c, bp.stmts[lv_level[li]], TSL_ITER_REDUCE);
      tsl_map_put(&l2b, vs[q], (void *)tsl_expr_var(niv.var));
      rf_ivs[nrf] = niv;
      rf_vals[nrf++] = tsl_expr_var(vs[q]);
    }
    tsl_map_put(&vmap, iv->var, (void *)tsl_expr_substitute_map(a, bind, &l2b));
  }
  const tsl_expr **rf_idx =
      insert_at(a, red.indices, red.n_indices, axis, tsl_expr_var(extra.var));
  uint32_t nidx = red.n_indices + 1;
  const tsl_expr *rf_load[RED_MAX_BUFFERS], *rhs[RED_MAX_BUFFERS], *val[RED_MAX_BUFFERS];
  for (uint32_t k = 0; k < red.n; k++) {
    rf_load[k] = tsl_expr_load(a, rfs[k], nidx, rf_idx);
    rhs[k] = red.rhs[k];
  }
  tsl_block *rb = TSL_NEW(a, tsl_block);
  rb->name = sch_fresh_block_name(c, bp.func, prefixed(c, "", b->name, "_rf"));
  rb->n_iter_vars = nrf;
  rb->iter_vars = rf_ivs;
  int rf_reduces = 0;
  for (uint32_t i = 0; i < nrf; i++)
    rf_reduces |= rf_ivs[i].iter_type == TSL_ITER_REDUCE;
  tsl_buffer_region *rf_reads =
      rf_regions(a, b->reads, b->n_reads, &vmap, &red, rfs, axis, extra.var);
  rb->n_reads = b->n_reads;
  rb->reads = rf_reads;
  if (rf_reduces) {
    red_combine(a, red.kind, rf_load, rhs, val);
    rb->body = tsl_stmt_substitute_map(a, red_update_stmt(c, &red, rfs, nidx, rf_idx, val), &vmap);
    rb->init = red_init_stmt(c, &red, rfs, nidx, rf_idx);
  } else {
    /* every reduction loop was the factored one: each element of the rf
     * buffers gets one value, stored without an init (as TVM) */
    const tsl_stmt *st[RED_MAX_BUFFERS];
    for (uint32_t k = 0; k < red.n; k++)
      st[k] = tsl_stmt_store(a, rfs[k], rhs[k], nidx, rf_idx);
    rb->body = tsl_stmt_substitute_map(a, red.n == 1 ? st[0] : tsl_stmt_seq(a, red.n, st), &vmap);
    rb->init = NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < rb->n_reads; i++) {
      int is_rf = 0;
      for (uint32_t q = 0; q < red.n; q++)
        is_rf |= rf_reads[i].buffer == rfs[q];
      if (!is_rf)
        rf_reads[k++] = rf_reads[i];
    }
    rb->n_reads = k;
  }
  rb->n_writes = b->n_writes;
  rb->writes =
      rf_regions(a, b->writes, b->n_writes, &vmap, &red, rfs, axis, extra.var);
  rb->annotations = b->annotations;

  /* its loops: fresh copies of all the block's loops */
  tsl_map lmap;
  tsl_map_init(&lmap, a);
  const tsl_var **new_lv = TSL_NEW_ARRAY(a, const tsl_var *, nl + 1);
  for (uint32_t q = 0; q < nl; q++) {
    new_lv[q] = sch_new_var(c, loop_vars[q]->name, loop_vars[q]->dtype);
    tsl_map_put(&lmap, loop_vars[q], (void *)tsl_expr_var(new_lv[q]));
  }
  for (uint32_t i = 0; i < nrf; i++)
    rf_vals[i] = tsl_expr_substitute_map(a, rf_vals[i], &lmap);
  const tsl_stmt *rf_body = tsl_stmt_block_realize(
      a, nrf, rf_vals, tsl_expr_substitute_map(a, realize->u.realize.predicate, &lmap),
      rb);
  for (uint32_t q = nl; q-- > 0;) {
    const tsl_stmt *l = bp.stmts[lv_level[q]];
    rf_body = tsl_stmt_for(a, new_lv[q], tsl_expr_substitute_map(a, l->u.loop.min, &lmap),
                           tsl_expr_substitute_map(a, l->u.loop.extent, &lmap),
                           (tsl_for_kind)l->u.loop.for_kind, l->u.loop.thread_tag,
                           l->u.loop.annotations, rf_body);
  }

  /* ---- the write-back block ------------------------------------------------ */
  uint32_t nwb = 0;
  tsl_iter_var *wb_ivs = TSL_NEW_ARRAY(a, tsl_iter_var, b->n_iter_vars + 1);
  const tsl_expr **wb_vals =
      TSL_NEW_ARRAY(a, const tsl_expr *, b->n_iter_vars + 1);
  tsl_map wmap;
  tsl_map_init(&wmap, a);
  wb_ivs[nwb] = iter_from_loop(c, rf_loop, TSL_ITER_REDUCE);
  wb_vals[nwb] = tsl_expr_var(rf_loop->u.loop.loop_var);
  tsl_map_put(&wmap, extra.var, (void *)tsl_expr_var(wb_ivs[nwb++].var));
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    if (iv->iter_type != TSL_ITER_SPATIAL)
      continue;
    wb_ivs[nwb] = *iv;
    wb_ivs[nwb].var = sch_new_var(c, iv->var->name, iv->var->dtype);
    wb_vals[nwb] = realize->u.realize.iter_values[i];
    tsl_map_put(&wmap, iv->var, (void *)tsl_expr_var(wb_ivs[nwb++].var));
  }
  const tsl_expr *wb_lhs[RED_MAX_BUFFERS], *wb_rhs[RED_MAX_BUFFERS];
  tsl_buffer_region *wb_reads = TSL_NEW_ARRAY(a, tsl_buffer_region, red.n);
  tsl_buffer_region *wb_writes = TSL_NEW_ARRAY(a, tsl_buffer_region, red.n);
  for (uint32_t k = 0; k < red.n; k++) {
    wb_lhs[k] = tsl_expr_substitute_map(a, red.lhs[k], &wmap);
    wb_rhs[k] = tsl_expr_substitute_map(a, rf_load[k], &wmap);
    wb_reads[k] = *point_region(a, wb_rhs[k]);
    wb_writes[k] = *point_region(a, wb_lhs[k]);
  }
  red_combine(a, red.kind, wb_lhs, wb_rhs, val);
  tsl_block *wb = tsl_block_clone(a, b);
  wb->n_iter_vars = nwb;
  wb->iter_vars = wb_ivs;
  wb->body = red_update_stmt(c, &red, red.buf, wb_lhs[0]->n_args, wb_lhs[0]->args, val);
  wb->init = red_init_stmt(c, &red, red.buf, wb_lhs[0]->n_args, wb_lhs[0]->args);
  wb->n_reads = red.n;
  wb->reads = wb_reads;
  wb->n_writes = red.n;
  wb->writes = wb_writes;
  wb->n_alloc_buffers = 0;
  wb->alloc_buffers = NULL;
  /* keep the predicate's conjuncts over the loops the write-back keeps */
  const tsl_var **gone = TSL_NEW_ARRAY(a, const tsl_var *, nl + 1);
  uint32_t ngone = 0;
  for (uint32_t q = 0; q < nl; q++)
    if (tsl_map_find(&rd, loop_vars[q], NULL) &&
        loop_vars[q] != rf_loop->u.loop.loop_var)
      gone[ngone++] = loop_vars[q];
  const tsl_expr *wb_pred =
      red_project_predicate(c, &bp, realize->u.realize.predicate, ngone, gone);
  const tsl_stmt *cur = tsl_stmt_block_realize(a, nwb, wb_vals, wb_pred, wb);

  /* ---- rebuild: drop reduce loops except rf_loop, put the rf nest first -- */
  uint32_t outer = lv_level[0];
  for (uint32_t k = bp.depth - 1; k > outer; k--) {
    const tsl_stmt *s = bp.stmts[k - 1];
    if (s->kind == TSL_STMT_FOR && s != rf_loop &&
        tsl_map_find(&rd, s->u.loop.loop_var, NULL))
      continue; /* the loop disappears; its rebuilt body replaces it */
    cur = sch_with_child(a, s, bp.index[k], cur);
  }
  const tsl_stmt *items[2] = {rf_body, cur};
  cur = tsl_stmt_seq(a, 2, items);
  for (uint32_t k = outer; k > scope + 1; k--)
    cur = sch_with_child(a, bp.stmts[k - 1], bp.index[k], cur);
  tsl_block *nsb = tsl_block_clone(a, scope_b);
  nsb->body = cur;
  const tsl_buffer **allocs =
      TSL_NEW_ARRAY(a, const tsl_buffer *, scope_b->n_alloc_buffers + red.n);
  for (uint32_t i = 0; i < scope_b->n_alloc_buffers; i++)
    allocs[i] = scope_b->alloc_buffers[i];
  for (uint32_t k = 0; k < red.n; k++)
    allocs[scope_b->n_alloc_buffers + k] = rfs[k];
  nsb->alloc_buffers = allocs;
  nsb->n_alloc_buffers = scope_b->n_alloc_buffers + red.n;
  sch_commit(c, bp.func,
             sch_path_rebuild(a, &bp, scope, sch_with_block(a, scope_realize, nsb)));
  /* a predicate that ties the factored loop to the other reduction loops
   * leaves the rfactor block without affine bindings (TVM fails then) */
  sch_path np;
  const char *why = NULL;
  if (sch_find_block(sch_func(c->sch, bp.func->name), rb->name, &np) &&
      !sch_binding_affine(c, &np, 0, &why))
    return sch_fail(c, TSL_EINVALID,
                    "the rfactor block '%s' would not have affine bindings: %s; "
                    "the predicate of block '%s' bounds loop '%s' together with "
                    "other reduction loops, which rfactor would separate (split "
                    "the reduction loop by a factor that divides its extent)",
                    rb->name, why, b->name, lname);
  sch_out_block(c, bp.func->name, rb->name);
  return TSL_OK;
}
