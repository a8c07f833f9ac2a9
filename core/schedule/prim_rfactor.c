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

/* ---- the primitive ---- */

typedef struct rf_ctx {
  sch_call *c;
  tsl_arena *a;
  sch_path bp;             /* the block */
  const tsl_stmt *rf_loop; /* the loop factored */
  const char *lname;
  const tsl_block *b;
  const tsl_stmt *realize;
  uint32_t scope;          /* level of the scope block in bp */
  tsl_map dp, rd;          /* loop vars used by spatial / reduce iterators */
  tsl_vec levels;          /* uint32_t: levels of the block's loops, outermost first */
  tsl_vec loop_vars;       /* const tsl_var *: their vars */
  red_reducer red;
  uint32_t axis;           /* factor_axis, normalized */
  const tsl_buffer *rfs[RED_MAX_BUFFERS];
  /* the rfactor block */
  tsl_iter_var extra;      /* its iterator over the factored loop */
  tsl_map vmap;            /* block iter var -> its value there */
  uint32_t nidx;
  const tsl_expr **rf_idx; /* the rf buffers' index there */
  const tsl_expr *rf_load[RED_MAX_BUFFERS];
  tsl_block *rb;
} rf_ctx;

static uint32_t loop_level(const rf_ctx *x, uint32_t q) {
  return TSL_VEC_AT(&x->levels, uint32_t, q);
}

static const tsl_var *loop_var(const rf_ctx *x, uint32_t q) {
  return TSL_VEC_AT(&x->loop_vars, const tsl_var *, q);
}

/* The only block under the loop: a reduction of a stage pipeline, under a
 * serial loop. */
static int find_block(sch_call *c, rf_ctx *x) {
  sch_path lp;
  int rc = sch_loop_path(c, c->args[0].u.rv, &lp);
  if (rc)
    return rc;
  x->c = c;
  x->a = c->arena;
  x->rf_loop = sch_path_target(&lp);
  x->lname = x->rf_loop->u.loop.loop_var->name;
  if ((rc = sch_single_child_block(c, &lp, &x->bp)))
    return rc;
  sch_path sp = sch_scope_path(&x->bp);
  if ((rc = sch_check_stage_pipeline(c, &sp)) || (rc = sch_check_reduction(c, &x->bp)))
    return rc;
  x->b = sch_path_block(&x->bp);
  x->realize = sch_path_target(&x->bp);
  if (x->rf_loop->u.loop.for_kind != TSL_FOR_SERIAL)
    return sch_fail(c, TSL_EINVALID, "loop '%s' is %s; rfactor needs a serial loop",
                    x->lname,
                    tsl_for_kind_name((tsl_for_kind)x->rf_loop->u.loop.for_kind));
  return TSL_OK;
}

static void classify_loop_vars(rf_ctx *x) {
  const tsl_block *b = x->b;
  tsl_map_init(&x->dp, x->a);
  tsl_map_init(&x->rd, x->a);
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_var **vs;
    uint32_t nv = red_expr_vars(x->a, x->realize->u.realize.iter_values[i], &vs);
    for (uint32_t q = 0; q < nv; q++)
      tsl_map_put(b->iter_vars[i].iter_type == TSL_ITER_SPATIAL ? &x->dp : &x->rd, vs[q],
                  NULL);
  }
}

/* The block's loops below its scope (outermost first), with only
 * sequences in between. */
static int collect_loops(rf_ctx *x) {
  const sch_path *bp = &x->bp;
  x->scope = sch_path_scope_level(bp, bp->depth - 1);
  tsl_vec_init(&x->levels, sizeof(uint32_t), x->a);
  tsl_vec_init(&x->loop_vars, sizeof(const tsl_var *), x->a);
  for (uint32_t k = x->scope + 1; k + 1 < bp->depth; k++) {
    const tsl_stmt *s = bp->stmts[k];
    if (s->kind == TSL_STMT_FOR) {
      TSL_VEC_PUSH(&x->levels, uint32_t, k);
      TSL_VEC_PUSH(&x->loop_vars, const tsl_var *, s->u.loop.loop_var);
    } else if (s->kind != TSL_STMT_SEQ) {
      return sch_fail(x->c, TSL_EUNSUPPORTED,
                      "block '%s' is under a %s statement inside its loops; "
                      "rfactor supports loop nests (and sequences) only",
                      x->b->name, tsl_stmt_kind_name((tsl_stmt_kind)s->kind));
    }
  }
  return TSL_OK;
}

/* A loop no iterator uses is accepted as TVM does when it runs once (a unit
 * loop left by a split); repeated, each iteration would add a copy of the
 * whole reduction to the write-back. */
static int check_factored_loop_used(rf_ctx *x) {
  const tsl_stmt *l = x->rf_loop;
  int64_t rf_ext = 0;
  if (!tsl_map_find(&x->rd, l->u.loop.loop_var, NULL) &&
      !tsl_map_find(&x->dp, l->u.loop.loop_var, NULL) &&
      !(tsl_expr_is_const_int(l->u.loop.extent, &rf_ext) && rf_ext == 1))
    return sch_fail(x->c, TSL_EINVALID,
                    "loop '%s' is not used by any reduce iterator of block "
                    "'%s'; rfactor needs a loop bound to reduce iterators only "
                    "(or a loop of extent 1)",
                    x->lname, x->b->name);
  return TSL_OK;
}

/* The blocks under the loop at `level` of the block's path (their paths in
 * *kids); returns their count. */
static uint32_t blocks_under(rf_ctx *x, uint32_t level, sch_path **kids) {
  sch_path lp = x->bp;
  lp.depth = level + 1;
  return sch_child_blocks(x->c, &lp, kids);
}

static int check_first_block(rf_ctx *x) {
  sch_path *ok;
  uint32_t no = blocks_under(x, loop_level(x, 0), &ok);
  if (!no || sch_path_block(&ok[0]) != x->b)
    return sch_fail(x->c, TSL_EINVALID,
                    "block '%s' must be the first block under its outermost "
                    "loop '%s', but '%s' comes first",
                    x->b->name, loop_var(x, 0)->name,
                    no ? sch_path_block(&ok[0])->name : "nothing");
  return TSL_OK;
}

/* TVM's loop properties: each loop is used by one kind of iterator, the
 * factored one by reduce iterators, the outermost reduction loop holds only
 * the block, and loops no iterator uses under it run once. */
static int check_loop_kinds(rf_ctx *x) {
  const char *bname = x->b->name;
  int met_reduce = 0;
  for (uint32_t q = 0; q < x->levels.len; q++) {
    const tsl_stmt *l = x->bp.stmts[loop_level(x, q)];
    const tsl_var *v = loop_var(x, q);
    int d = tsl_map_find(&x->dp, v, NULL), r = tsl_map_find(&x->rd, v, NULL);
    if (d && r)
      return sch_fail(x->c, TSL_EINVALID,
                      "loop '%s' is used by both spatial and reduce iterators "
                      "of block '%s'; rfactor needs every loop used by one "
                      "kind only",
                      v->name, bname);
    if (d) {
      if (l == x->rf_loop)
        return sch_fail(x->c, TSL_EINVALID,
                        "loop '%s' is used by a spatial iterator of block "
                        "'%s'; rfactor needs a loop bound to reduce iterators "
                        "only",
                        x->lname, bname);
      continue;
    }
    if (r) {
      if (!met_reduce) {
        sch_path *rk;
        uint32_t nr = blocks_under(x, loop_level(x, q), &rk);
        if (nr != 1)
          return sch_fail(x->c, TSL_EINVALID,
                          "loop '%s', the outermost loop used by a reduce "
                          "iterator of block '%s', has %u blocks under it; "
                          "it must have only '%s'",
                          v->name, bname, nr, bname);
      }
      met_reduce = 1;
      continue;
    }
    int64_t ext;
    if (met_reduce && !(tsl_expr_is_const_int(l->u.loop.extent, &ext) && ext == 1))
      return sch_fail(x->c, TSL_EINVALID,
                      "loop '%s' is used by no iterator of block '%s' but lies "
                      "under a reduction loop; only loops of extent 1 may",
                      v->name, bname);
  }
  return TSL_OK;
}

/* The block's reducer, and factor_axis within the written buffer's
 * dimensions plus one. */
static int match_reducer(rf_ctx *x, int64_t factor_axis) {
  int rc = red_match_reducer(x->c, x->b, &x->red);
  if (rc)
    return rc;
  const tsl_buffer *out = x->red.buf[0];
  int64_t ndim = out->ndim;
  if (factor_axis < -(ndim + 1) || factor_axis > ndim)
    return sch_fail(x->c, TSL_EINVALID,
                    "factor_axis %lld is out of range: the written buffer '%s' "
                    "has %lld dimension(s), so factor_axis must be in [%lld, "
                    "%lld]",
                    (long long)factor_axis, out->name, (long long)ndim,
                    (long long)-(ndim + 1), (long long)ndim);
  x->axis = (uint32_t)(factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis);
  return TSL_OK;
}

/* "<buffer>_rf" (or "_rf_<n>", a name not yet taken) for each reduced
 * buffer, the factored loop's extent inserted at the axis. */
static void make_rf_buffers(rf_ctx *x) {
  const tsl_block *scope_b = x->bp.stmts[x->scope]->u.realize.block;
  for (uint32_t k = 0; k < x->red.n; k++) {
    const tsl_buffer *o = x->red.buf[k];
    char nbuf[512];
    snprintf(nbuf, sizeof nbuf, "%s_rf", o->name);
    for (uint32_t q = 1; buffer_name_taken(x->bp.func, scope_b, nbuf) ||
                         (k && !strcmp(nbuf, x->rfs[k - 1]->name));
         q++)
      snprintf(nbuf, sizeof nbuf, "%s_rf_%u", o->name, q);
    const tsl_expr **shape =
        insert_at(x->a, o->shape, o->ndim, x->axis, x->rf_loop->u.loop.extent);
    x->rfs[k] = tsl_buffer_new(x->a, nbuf, o->dtype, o->ndim + 1, shape, NULL, NULL,
                               o->scope, o->align, o->offset_factor);
  }
}

/* The rfactor block's iterators and their bindings (over the original
 * loops): one over the factored loop, the spatial iterators and the reduce
 * iterators the factored loop does not feed, and one per loop feeding the
 * reduce iterators it does feed. Fills x->vmap. */
static void rf_block_iters(rf_ctx *x, tsl_vec *ivs, tsl_vec *vals) {
  tsl_arena *a = x->a;
  const tsl_block *b = x->b;
  const tsl_var *rf_var = x->rf_loop->u.loop.loop_var;
  tsl_map l2b; /* loop var -> rf iter var */
  tsl_map_init(&l2b, a);
  tsl_map_init(&x->vmap, a);
  tsl_vec_init(ivs, sizeof(tsl_iter_var), a);
  tsl_vec_init(vals, sizeof(const tsl_expr *), a);
  x->extra = iter_from_loop(x->c, x->rf_loop, TSL_ITER_SPATIAL);
  TSL_VEC_PUSH(ivs, tsl_iter_var, x->extra);
  TSL_VEC_PUSH(vals, const tsl_expr *, tsl_expr_var(rf_var));
  tsl_map_put(&l2b, rf_var, (void *)tsl_expr_var(x->extra.var));
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    const tsl_expr *bind = x->realize->u.realize.iter_values[i];
    if (iv->iter_type == TSL_ITER_SPATIAL || !tsl_expr_uses_var(bind, rf_var)) {
      TSL_VEC_PUSH(ivs, tsl_iter_var, *iv);
      TSL_VEC_PUSH(vals, const tsl_expr *, bind);
      continue;
    }
    const tsl_var **vs;
    uint32_t nv = red_expr_vars(a, bind, &vs);
    for (uint32_t q = 0; q < nv; q++) {
      uint32_t nl = x->levels.len, li = nl;
      for (uint32_t t = 0; t < nl; t++)
        if (loop_var(x, t) == vs[q])
          li = t;
      if (li == nl || tsl_map_get(&l2b, vs[q]))
        continue;
      tsl_iter_var niv = iter_from_loop(x->c, x->bp.stmts[loop_level(x, li)], TSL_ITER_REDUCE);
      tsl_map_put(&l2b, vs[q], (void *)tsl_expr_var(niv.var));
      TSL_VEC_PUSH(ivs, tsl_iter_var, niv);
      TSL_VEC_PUSH(vals, const tsl_expr *, tsl_expr_var(vs[q]));
    }
    tsl_map_put(&x->vmap, iv->var, (void *)tsl_expr_substitute_map(a, bind, &l2b));
  }
}

/* Every reduction loop was the factored one: each element of the rf buffers
 * gets one value, stored without an init (as TVM), and the block reads no
 * rf buffer. */
static void rf_store_once(rf_ctx *x, tsl_block *rb, tsl_buffer_region *reads) {
  const red_reducer *red = &x->red;
  const tsl_stmt *st[RED_MAX_BUFFERS];
  for (uint32_t k = 0; k < red->n; k++)
    st[k] = tsl_stmt_store(x->a, x->rfs[k], red->rhs[k], x->nidx, x->rf_idx);
  rb->body = tsl_stmt_substitute_map(x->a, red->n == 1 ? st[0] : tsl_stmt_seq(x->a, red->n, st),
                                     &x->vmap);
  rb->init = NULL;
  uint32_t k = 0;
  for (uint32_t i = 0; i < rb->n_reads; i++) {
    int is_rf = 0;
    for (uint32_t q = 0; q < red->n; q++)
      is_rf |= reads[i].buffer == x->rfs[q];
    if (!is_rf)
      reads[k++] = reads[i];
  }
  rb->n_reads = k;
}

/* The rfactor block: the reduction into the rf buffers, at the point
 * [.., extra, ..] of the factored axis. */
static void make_rf_block(rf_ctx *x, const tsl_vec *ivs) {
  tsl_arena *a = x->a;
  const tsl_block *b = x->b;
  const red_reducer *red = &x->red;
  x->rf_idx = insert_at(a, red->indices, red->n_indices, x->axis, tsl_expr_var(x->extra.var));
  x->nidx = red->n_indices + 1;
  for (uint32_t k = 0; k < red->n; k++)
    x->rf_load[k] = tsl_expr_load(a, x->rfs[k], x->nidx, x->rf_idx);
  tsl_block *rb = TSL_NEW(a, tsl_block);
  rb->name = sch_fresh_block_name(x->c, x->bp.func, prefixed(x->c, "", b->name, "_rf"));
  rb->n_iter_vars = ivs->len;
  rb->iter_vars = TSL_VEC_DATA(ivs, tsl_iter_var);
  int rf_reduces = 0;
  for (uint32_t i = 0; i < rb->n_iter_vars; i++)
    rf_reduces |= rb->iter_vars[i].iter_type == TSL_ITER_REDUCE;
  tsl_buffer_region *rf_reads =
      rf_regions(a, b->reads, b->n_reads, &x->vmap, red, x->rfs, x->axis, x->extra.var);
  rb->n_reads = b->n_reads;
  rb->reads = rf_reads;
  if (rf_reduces) {
    const tsl_expr *val[RED_MAX_BUFFERS];
    red_combine(a, red->kind, x->rf_load, red->rhs, val);
    rb->body = tsl_stmt_substitute_map(
        a, red_update_stmt(x->c, red, x->rfs, x->nidx, x->rf_idx, val), &x->vmap);
    rb->init = red_init_stmt(x->c, red, x->rfs, x->nidx, x->rf_idx);
  } else {
    rf_store_once(x, rb, rf_reads);
  }
  rb->n_writes = b->n_writes;
  rb->writes =
      rf_regions(a, b->writes, b->n_writes, &x->vmap, red, x->rfs, x->axis, x->extra.var);
  rb->annotations = b->annotations;
  x->rb = rb;
}

/* The rfactor block realized under fresh copies of all the block's loops. */
static const tsl_stmt *rf_nest(rf_ctx *x, const tsl_vec *vals) {
  tsl_arena *a = x->a;
  uint32_t nl = x->levels.len;
  tsl_map lmap;
  tsl_map_init(&lmap, a);
  const tsl_var **new_lv = TSL_NEW_ARRAY(a, const tsl_var *, nl + 1);
  for (uint32_t q = 0; q < nl; q++) {
    new_lv[q] = sch_new_var(x->c, loop_var(x, q)->name, loop_var(x, q)->dtype);
    tsl_map_put(&lmap, loop_var(x, q), (void *)tsl_expr_var(new_lv[q]));
  }
  const tsl_expr **rf_vals = TSL_VEC_DATA(vals, const tsl_expr *);
  for (uint32_t i = 0; i < vals->len; i++)
    rf_vals[i] = tsl_expr_substitute_map(a, rf_vals[i], &lmap);
  const tsl_stmt *body = tsl_stmt_block_realize(
      a, vals->len, rf_vals, tsl_expr_substitute_map(a, x->realize->u.realize.predicate, &lmap),
      x->rb);
  for (uint32_t q = nl; q-- > 0;) {
    const tsl_stmt *l = x->bp.stmts[loop_level(x, q)];
    body = tsl_stmt_for(a, new_lv[q], tsl_expr_substitute_map(a, l->u.loop.min, &lmap),
                        tsl_expr_substitute_map(a, l->u.loop.extent, &lmap),
                        (tsl_for_kind)l->u.loop.for_kind, l->u.loop.thread_tag,
                        l->u.loop.annotations, body);
  }
  return body;
}

/* The write-back's predicate: the conjuncts of the block's over the loops
 * the write-back keeps. */
static const tsl_expr *writeback_predicate(rf_ctx *x) {
  tsl_vec gone;
  tsl_vec_init(&gone, sizeof(const tsl_var *), x->a);
  for (uint32_t q = 0; q < x->loop_vars.len; q++)
    if (tsl_map_find(&x->rd, loop_var(x, q), NULL) &&
        loop_var(x, q) != x->rf_loop->u.loop.loop_var)
      TSL_VEC_PUSH(&gone, const tsl_var *, loop_var(x, q));
  return red_project_predicate(x->c, &x->bp, x->realize->u.realize.predicate, gone.len,
                               TSL_VEC_DATA(&gone, const tsl_var *));
}

/* The write-back block (the original one): reduces the rf buffers over the
 * factored axis into the original buffers. Returns its realize. */
static const tsl_stmt *make_writeback(rf_ctx *x) {
  tsl_arena *a = x->a;
  const tsl_block *b = x->b;
  const red_reducer *red = &x->red;
  tsl_vec ivs, vals;
  tsl_vec_init(&ivs, sizeof(tsl_iter_var), a);
  tsl_vec_init(&vals, sizeof(const tsl_expr *), a);
  tsl_map wmap;
  tsl_map_init(&wmap, a);
  tsl_iter_var rv = iter_from_loop(x->c, x->rf_loop, TSL_ITER_REDUCE);
  TSL_VEC_PUSH(&ivs, tsl_iter_var, rv);
  TSL_VEC_PUSH(&vals, const tsl_expr *, tsl_expr_var(x->rf_loop->u.loop.loop_var));
  tsl_map_put(&wmap, x->extra.var, (void *)tsl_expr_var(rv.var));
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    if (iv->iter_type != TSL_ITER_SPATIAL)
      continue;
    tsl_iter_var niv = *iv;
    niv.var = sch_new_var(x->c, iv->var->name, iv->var->dtype);
    TSL_VEC_PUSH(&ivs, tsl_iter_var, niv);
    TSL_VEC_PUSH(&vals, const tsl_expr *, x->realize->u.realize.iter_values[i]);
    tsl_map_put(&wmap, iv->var, (void *)tsl_expr_var(niv.var));
  }
  const tsl_expr *lhs[RED_MAX_BUFFERS], *rhs[RED_MAX_BUFFERS], *val[RED_MAX_BUFFERS];
  tsl_buffer_region *reads = TSL_NEW_ARRAY(a, tsl_buffer_region, red->n);
  tsl_buffer_region *writes = TSL_NEW_ARRAY(a, tsl_buffer_region, red->n);
  for (uint32_t k = 0; k < red->n; k++) {
    lhs[k] = tsl_expr_substitute_map(a, red->lhs[k], &wmap);
    rhs[k] = tsl_expr_substitute_map(a, x->rf_load[k], &wmap);
    reads[k] = *point_region(a, rhs[k]);
    writes[k] = *point_region(a, lhs[k]);
  }
  red_combine(a, red->kind, lhs, rhs, val);
  tsl_block *wb = tsl_block_clone(a, b);
  wb->n_iter_vars = ivs.len;
  wb->iter_vars = TSL_VEC_DATA(&ivs, tsl_iter_var);
  wb->body = red_update_stmt(x->c, red, red->buf, lhs[0]->n_args, lhs[0]->args, val);
  wb->init = red_init_stmt(x->c, red, red->buf, lhs[0]->n_args, lhs[0]->args);
  wb->n_reads = red->n;
  wb->reads = reads;
  wb->n_writes = red->n;
  wb->writes = writes;
  wb->n_alloc_buffers = 0;
  wb->alloc_buffers = NULL;
  return tsl_stmt_block_realize(a, vals.len, TSL_VEC_DATA(&vals, const tsl_expr *),
                                writeback_predicate(x), wb);
}

/* The new scope: the reduce loops but the factored one dropped around the
 * write-back, the rfactor nest placed before it under the outermost loop,
 * and the rf buffers allocated. */
static void rebuild(rf_ctx *x, const tsl_stmt *rf_body, const tsl_stmt *cur) {
  tsl_arena *a = x->a;
  const sch_path *bp = &x->bp;
  uint32_t outer = loop_level(x, 0);
  for (uint32_t k = bp->depth - 1; k > outer; k--) {
    const tsl_stmt *s = bp->stmts[k - 1];
    if (s->kind == TSL_STMT_FOR && s != x->rf_loop &&
        tsl_map_find(&x->rd, s->u.loop.loop_var, NULL))
      continue; /* the loop disappears; its rebuilt body replaces it */
    cur = sch_with_child(a, s, bp->index[k], cur);
  }
  const tsl_stmt *items[2] = {rf_body, cur};
  cur = tsl_stmt_seq(a, 2, items);
  for (uint32_t k = outer; k > x->scope + 1; k--)
    cur = sch_with_child(a, bp->stmts[k - 1], bp->index[k], cur);
  const tsl_stmt *scope_realize = bp->stmts[x->scope];
  const tsl_block *scope_b = scope_realize->u.realize.block;
  tsl_block *nsb = tsl_block_clone(a, scope_b);
  nsb->body = cur;
  const tsl_buffer **allocs =
      TSL_NEW_ARRAY(a, const tsl_buffer *, scope_b->n_alloc_buffers + x->red.n);
  for (uint32_t i = 0; i < scope_b->n_alloc_buffers; i++)
    allocs[i] = scope_b->alloc_buffers[i];
  for (uint32_t k = 0; k < x->red.n; k++)
    allocs[scope_b->n_alloc_buffers + k] = x->rfs[k];
  nsb->alloc_buffers = allocs;
  nsb->n_alloc_buffers = scope_b->n_alloc_buffers + x->red.n;
  sch_commit(x->c, bp->func,
             sch_path_rebuild(a, bp, x->scope, sch_with_block(a, scope_realize, nsb)));
}

/* A predicate that ties the factored loop to the other reduction loops
 * leaves the rfactor block without affine bindings (TVM fails then). */
static int check_rf_affine(rf_ctx *x) {
  sch_path np;
  const char *why = NULL;
  if (sch_find_block(sch_func(x->c->sch, x->bp.func->name), x->rb->name, &np) &&
      !sch_binding_affine(x->c, &np, 0, &why))
    return sch_fail(x->c, TSL_EINVALID,
                    "the rfactor block '%s' would not have affine bindings: %s; "
                    "the predicate of block '%s' bounds loop '%s' together with "
                    "other reduction loops, which rfactor would separate (split "
                    "the reduction loop by a factor that divides its extent)",
                    x->rb->name, why, x->b->name, x->lname);
  return TSL_OK;
}

int sch_apply_rfactor(sch_call *c) {
  rf_ctx x;
  memset(&x, 0, sizeof x);
  int rc;
  if ((rc = find_block(c, &x)))
    return rc;
  classify_loop_vars(&x);
  if ((rc = collect_loops(&x)) || (rc = check_factored_loop_used(&x)) ||
      (rc = check_first_block(&x)) || (rc = check_loop_kinds(&x)) ||
      (rc = match_reducer(&x, c->args[1].u.i)))
    return rc;
  make_rf_buffers(&x);
  tsl_vec ivs, vals;
  rf_block_iters(&x, &ivs, &vals);
  make_rf_block(&x, &ivs);
  const tsl_stmt *rf_body = rf_nest(&x, &vals);
  rebuild(&x, rf_body, make_writeback(&x));
  if ((rc = check_rf_affine(&x)))
    return rc;
  sch_out_block(c, x.bp.func->name, x.rb->name);
  return TSL_OK;
}
