/*
 * pad_einsum: pad the iteration space of an Einsum block (every access
 * `X[v0, v1, ...]` of iter vars or constants, each buffer accessed once)
 * to multiples of `padding`, as TVM's PadEinsum does. Each buffer indexed
 * by a padded iter gets a padded copy `X_pad` allocated in the scope block:
 * inputs are copied in before the block's loop nest (zero outside the
 * original shape), outputs are copied back after it; loops bound to padded
 * iters are extended.
 *
 *   for i in range(n): C[i] = A[i] ...       for i0: A_pad[v0] = if v0 < n: A[v0] else 0
 *                                      ->    for i in range(ceil(n/32)*32): C_pad[i] = A_pad[i] ...
 *                                            for i0: C[v0] = C_pad[v0]
 *
 * Besides TVM's checks we refuse what would change the result: a padded
 * iter whose extra iterations would not be discarded or neutral (see
 * core/schedule/README.md).
 */
#include "compute_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct pe_ctx {
  sch_call *c;
  const tsl_func *f;
  tsl_map used;        /* names of the copy blocks */
  const tsl_block *b;
  const tsl_stmt *realize;
  tsl_map padded;      /* iter var or loop var -> padded extent (tsl_expr) */
  tsl_map loop_ext;    /* loop var -> padded extent */
  tsl_map bufs;        /* buffer -> padded buffer */
  const char *why;     /* first access that is not of the einsum form */
  sch_path p;          /* the block */
  cmp_scope s;
  const tsl_sch_value *pad; /* the padding of each iter */
  int any_reduce;      /* a reduce iter is padded */
  const tsl_stmt *item; /* the scope body's item holding the block */
  uint32_t pos;        /* its position there */
  tsl_vec before, after; /* const tsl_stmt *: the copy nests in and out */
  tsl_vec allocs;      /* const tsl_buffer *: the padded buffers */
} pe_ctx;

/* An access region of the einsum: every range of extent 1 starting at a
 * variable or an integer constant. */
static int trivial_region(const tsl_buffer_region *r) {
  for (uint32_t d = 0; d < r->ndim; d++) {
    int64_t one;
    if (!tsl_expr_is_const_int(r->ranges[d].extent, &one) || one != 1)
      return 0;
    const tsl_expr *m = r->ranges[d].min;
    if (m->kind != TSL_EXPR_VAR && m->kind != TSL_EXPR_INT_IMM)
      return 0;
  }
  return 1;
}

static int same_index(const tsl_expr *a, const tsl_expr *b) {
  int64_t x, y;
  if (a->kind == TSL_EXPR_VAR || b->kind == TSL_EXPR_VAR)
    return a->kind == TSL_EXPR_VAR && b->kind == TSL_EXPR_VAR && a->u.var == b->u.var;
  return tsl_expr_is_const_int(a, &x) && tsl_expr_is_const_int(b, &y) && x == y;
}

/* Every access of the body and init must be at its region's point. */
static const tsl_buffer_region *region_of(const tsl_block *b, const tsl_buffer *buf) {
  for (uint32_t i = 0; i < b->n_reads; i++)
    if (b->reads[i].buffer == buf)
      return &b->reads[i];
  for (uint32_t i = 0; i < b->n_writes; i++)
    if (b->writes[i].buffer == buf)
      return &b->writes[i];
  return NULL;
}

static void check_access(pe_ctx *x, const tsl_buffer *buf, uint32_t n,
                         const tsl_expr *const *idx) {
  const tsl_buffer_region *r = region_of(x->b, buf);
  int ok = r && r->ndim == n;
  for (uint32_t d = 0; ok && d < n; d++)
    ok = same_index(idx[d], r->ranges[d].min);
  if (!ok && !x->why)
    x->why = buf->name;
}

static int acc_load(const tsl_expr *e, void *ud) {
  if (e->kind == TSL_EXPR_LOAD)
    check_access(ud, e->u.buffer, e->n_args, e->args);
  return 0;
}
static int acc_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, acc_load, ud);
}
static int acc_stmt(const tsl_stmt *s, void *ud) {
  pe_ctx *x = ud;
  if (s->kind == TSL_STMT_STORE)
    check_access(x, s->u.store.buffer, s->u.store.n_indices, s->u.store.indices);
  else if (s->kind == TSL_STMT_BLOCK_REALIZE && !x->why)
    x->why = "a nested block";
  return 0;
}

/* 1 when `e` is 0 whenever a load of a buffer in `zero` is: a product (casts
 * allowed) with such a load as a factor. */
static int zero_product(const tsl_expr *e, const tsl_map *zero) {
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_CAST: return zero_product(e->args[0], zero);
  case TSL_EXPR_MUL: return zero_product(e->args[0], zero) || zero_product(e->args[1], zero);
  case TSL_EXPR_LOAD: return tsl_map_find(zero, e->u.buffer, NULL);
  default: return 0;
  }
}

/* A padded reduce iter adds iterations: the update must be `out = out + X`
 * with X a product that a zero padding element of a buffer indexed by the
 * iter (in a dimension exactly as long as the iter) makes 0. */
static int check_reduce_pad(pe_ctx *x, const tsl_iter_var *iv) {
  sch_call *c = x->c;
  const tsl_block *b = x->b;
  const tsl_stmt *st = b->body;
  const tsl_expr *upd = NULL;
  if (b->init && st->kind == TSL_STMT_STORE && st->u.store.value->kind == TSL_EXPR_ADD) {
    const tsl_expr *v = st->u.store.value;
    for (int k = 0; k < 2 && !upd; k++) {
      const tsl_expr *acc = v->args[k];
      int same = acc->kind == TSL_EXPR_LOAD && acc->u.buffer == st->u.store.buffer &&
                 acc->n_args == st->u.store.n_indices;
      for (uint32_t d = 0; same && d < acc->n_args; d++)
        same = same_index(acc->args[d], st->u.store.indices[d]);
      if (same)
        upd = v->args[1 - k];
    }
  }
  tsl_map zero;
  tsl_map_init(&zero, c->arena);
  for (uint32_t i = 0; i < b->n_reads; i++) {
    const tsl_buffer_region *r = &b->reads[i];
    for (uint32_t d = 0; d < r->ndim; d++)
      if (r->ranges[d].min->kind == TSL_EXPR_VAR && r->ranges[d].min->u.var == iv->var &&
          tsl_analyzer_equal(c->sch->an, r->buffer->shape[d], iv->dom.extent))
        tsl_map_put(&zero, r->buffer, NULL);
  }
  if (!upd || !zero_product(upd, &zero))
    return sch_fail(c, TSL_EINVALID,
                    "padding reduce iter '%s' of block '%s' adds iterations "
                    "that must not change the result: the update must be "
                    "`out = out + x * y...` with a factor read from a buffer "
                    "indexed by '%s' along a dimension of length %s",
                    iv->var->name, b->name, iv->var->name,
                    cmp_expr_str(c, iv->dom.extent));
  return TSL_OK;
}

/* ---- the copy blocks ------------------------------------------------------ */

static const tsl_expr *zero_of(tsl_arena *a, tsl_dtype t) {
  if (tsl_dtype_is_float(t))
    return tsl_expr_float(a, t, 0);
  if (tsl_dtype_is_bool(t))
    return tsl_expr_bool(a, 0);
  return tsl_expr_int(a, t, 0);
}

static tsl_str unique_name(pe_ctx *x, const char *base) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", base);
  for (uint32_t k = 1;; k++) {
    tsl_str s = tsl_intern(x->c->sch->ctx, buf);
    if (sch_fresh_block_name(x->c, x->f, buf) == s && !tsl_map_find(&x->used, s, NULL)) {
      tsl_map_put(&x->used, s, NULL);
      return s;
    }
    snprintf(buf, sizeof buf, "%s_%u", base, k);
  }
}

/* Loops i0.. over `shape`, a block named after the padded buffer copying
 * into it (is_read) or out of it. */
static const tsl_stmt *copy_nest(pe_ctx *x, const tsl_buffer *buf,
                                 const tsl_buffer *pad, int is_read) {
  sch_call *c = x->c;
  tsl_arena *a = c->arena;
  uint32_t nd = buf->ndim;
  const tsl_expr *const *shape = is_read ? pad->shape : buf->shape;
  const tsl_var **lv = TSL_NEW_ARRAY(a, const tsl_var *, nd + 1);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, nd + 1);
  const tsl_expr **idx = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, nd + 1);
  tsl_range *pt = TSL_NEW_ARRAY(a, tsl_range, nd + 1);
  const tsl_expr *pred = NULL;
  for (uint32_t d = 0; d < nd; d++) {
    char nm[32];
    tsl_dtype dt = shape[d]->dtype;
    snprintf(nm, sizeof nm, "i%u", d);
    lv[d] = sch_new_var(c, nm, dt);
    snprintf(nm, sizeof nm, "v%u", d);
    ivs[d].var = sch_new_var(c, nm, dt);
    ivs[d].dom = (tsl_range){tsl_expr_int(a, dt, 0), shape[d]};
    ivs[d].iter_type = TSL_ITER_SPATIAL;
    idx[d] = tsl_expr_var(ivs[d].var);
    vals[d] = tsl_expr_var(lv[d]);
    pt[d] = (tsl_range){idx[d], tsl_expr_int(a, dt, 1)};
    if (is_read && !tsl_analyzer_equal(c->sch->an, buf->shape[d], pad->shape[d])) {
      const tsl_expr *lt = tsl_expr_binary(a, TSL_EXPR_LT, idx[d], buf->shape[d]);
      pred = pred ? tsl_expr_binary(a, TSL_EXPR_AND, pred, lt) : lt;
    }
  }
  const tsl_stmt *body;
  if (is_read) {
    const tsl_expr *v = tsl_expr_load(a, buf, nd, idx);
    if (pred)
      v = tsl_expr_if_then_else(a, pred, v, zero_of(a, buf->dtype));
    body = tsl_stmt_store(a, pad, v, nd, idx);
  } else {
    body = tsl_stmt_store(a, buf, tsl_expr_load(a, pad, nd, idx), nd, idx);
  }
  tsl_block *nb = TSL_NEW(a, tsl_block);
  nb->name = unique_name(x, pad->name);
  nb->n_iter_vars = nd;
  nb->iter_vars = ivs;
  tsl_buffer_region *rd = TSL_NEW(a, tsl_buffer_region), *wr = TSL_NEW(a, tsl_buffer_region);
  *rd = (tsl_buffer_region){is_read ? buf : pad, nd, pt};
  *wr = (tsl_buffer_region){is_read ? pad : buf, nd, pt};
  nb->n_reads = nb->n_writes = 1;
  nb->reads = rd;
  nb->writes = wr;
  nb->body = body;
  const tsl_stmt *s = tsl_stmt_block_realize(a, nd, vals, tsl_expr_bool(a, 1), nb);
  for (uint32_t d = nd; d-- > 0;)
    s = tsl_stmt_for(a, lv[d], tsl_expr_int(a, shape[d]->dtype, 0), shape[d],
                     TSL_FOR_SERIAL, NULL, (tsl_attrs){0, NULL}, s);
  return s;
}

/* The padded buffer of a region: padded extents where a padded iter
 * indexes it, 1 at constants, the buffer's own extent elsewhere. */
static const tsl_buffer *padded_buffer(pe_ctx *x, const tsl_buffer_region *r) {
  sch_call *c = x->c;
  tsl_arena *a = c->arena;
  const tsl_buffer *buf = r->buffer;
  const tsl_expr **shape = TSL_NEW_ARRAY(a, const tsl_expr *, buf->ndim + 1);
  for (uint32_t d = 0; d < buf->ndim; d++) {
    const tsl_expr *m = r->ranges[d].min, *ext;
    if (m->kind == TSL_EXPR_INT_IMM)
      shape[d] = tsl_expr_int(a, m->dtype, 1);
    else if ((ext = tsl_map_get(&x->padded, m->u.var)))
      shape[d] = ext;
    else
      shape[d] = buf->shape[d];
  }
  char nm[512];
  snprintf(nm, sizeof nm, "%s_pad", buf->name);
  return tsl_buffer_new(a, nm, buf->dtype, buf->ndim, shape, NULL, NULL, buf->scope, 0, 0);
}

static int needs_padding(pe_ctx *x, const tsl_buffer_region *r) {
  for (uint32_t d = 0; d < r->ndim; d++)
    if (r->ranges[d].min->kind == TSL_EXPR_VAR &&
        tsl_map_find(&x->padded, r->ranges[d].min->u.var, NULL))
      return 1;
  return 0;
}

/* ---- rewriting the block's nest ------------------------------------------- */

static const tsl_stmt *pe_stmt(tsl_mutator *m, const tsl_stmt *s) {
  pe_ctx *x = m->user_data;
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  const tsl_expr *ext;
  if (r->kind == TSL_STMT_FOR && (ext = tsl_map_get(&x->loop_ext, s->u.loop.loop_var)))
    return tsl_stmt_for(m->arena, r->u.loop.loop_var, r->u.loop.min, ext,
                        (tsl_for_kind)r->u.loop.for_kind, r->u.loop.thread_tag,
                        r->u.loop.annotations, r->u.loop.body);
  if (r->kind == TSL_STMT_BLOCK_REALIZE && s->u.realize.block == x->b) {
    tsl_block *nb = tsl_block_clone(m->arena, r->u.realize.block);
    tsl_iter_var *ivs = TSL_NEW_ARRAY(m->arena, tsl_iter_var, nb->n_iter_vars + 1);
    for (uint32_t i = 0; i < nb->n_iter_vars; i++) {
      ivs[i] = nb->iter_vars[i];
      if ((ext = tsl_map_get(&x->padded, ivs[i].var)))
        ivs[i].dom.extent = ext;
    }
    nb->iter_vars = ivs;
    return sch_with_block(m->arena, r, nb);
  }
  return r;
}

/* The loop a binding is, when it is the variable of a loop of the path. */
static const tsl_stmt *bound_loop(const sch_path *p, uint32_t scope,
                                  const tsl_expr *v) {
  if (v->kind != TSL_EXPR_VAR)
    return NULL;
  for (uint32_t k = scope + 1; k + 1 < p->depth; k++)
    if (p->stmts[k]->kind == TSL_STMT_FOR && p->stmts[k]->u.loop.loop_var == v->u.var)
      return p->stmts[k];
  return NULL;
}

static int count_block(const tsl_stmt *s, void *ud) {
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  ++*(int *)ud;
  return TSL_VISIT_SKIP;
}

/* The blocks under `s`, not counting those inside blocks. */
static int count_blocks(const tsl_stmt *s) {
  int n = 0;
  tsl_stmt_visitor v = {.stmt = count_block, .user_data = &n};
  tsl_stmt_visit(s, &v);
  return n;
}

/* ---- the primitive -------------------------------------------------------- */

/* The block, not the root, a padding per iter, a stage pipeline scope. */
static int find_block(sch_call *c, pe_ctx *x) {
  int rc = sch_block_path(c, c->args[0].u.rv, &x->p);
  if (rc)
    return rc;
  const tsl_stmt *real = sch_path_target(&x->p);
  const tsl_block *b = real->u.realize.block;
  const tsl_sch_value *pad = &c->args[1];
  if (x->p.depth == 1)
    return sch_fail(c, TSL_EINVALID, "block '%s' is the root block", b->name);
  int valid = pad->n == b->n_iter_vars;
  for (uint32_t i = 0; valid && i < pad->n; i++)
    valid = pad->u.items[i].u.i > 0;
  if (!valid)
    return sch_fail(c, TSL_EINVALID,
                    "padding must be a list of %u positive integers, one per "
                    "iter var of block '%s'",
                    b->n_iter_vars, b->name);
  cmp_scope_of(c, &x->p, &x->s);
  if ((rc = cmp_check_stage_pipeline(c, &x->s)))
    return rc;
  x->c = c;
  x->f = x->p.func;
  x->b = b;
  x->realize = real;
  x->pad = pad;
  tsl_map_init(&x->used, c->arena);
  tsl_map_init(&x->padded, c->arena);
  tsl_map_init(&x->loop_ext, c->arena);
  tsl_map_init(&x->bufs, c->arena);
  return TSL_OK;
}

/* The einsum form: each buffer once in the regions, at a point of iter
 * vars and constants, and every access at its region's point. */
static int check_einsum(pe_ctx *x) {
  const tsl_block *b = x->b;
  tsl_map seen;
  tsl_map_init(&seen, x->c->arena);
  for (uint32_t i = 0; i < b->n_reads + b->n_writes; i++) {
    const tsl_buffer_region *r = i < b->n_reads ? &b->reads[i] : &b->writes[i - b->n_reads];
    if (!tsl_map_put(&seen, r->buffer, NULL) || !trivial_region(r))
      return sch_fail(x->c, TSL_EINVALID,
                      "block '%s' is not an Einsum: %s '%s' %s",
                      b->name, i < b->n_reads ? "read of" : "write of", r->buffer->name,
                      trivial_region(r) ? "appears twice in its regions"
                                        : "is not at a point of iter vars and constants");
  }
  tsl_stmt_visitor vis = {.stmt = acc_stmt, .expr = acc_expr, .user_data = x};
  tsl_stmt_visit(b->body, &vis);
  if (b->init)
    tsl_stmt_visit(b->init, &vis);
  if (x->why)
    return sch_fail(x->c, TSL_EINVALID,
                    "block '%s' is not an Einsum: an access of %s is not at "
                    "the point its region names",
                    b->name, x->why);
  return TSL_OK;
}

/* The loop `l` (of var `v`) that iter i is bound to can be extended with
 * the iter: it runs over the iter's domain, holds only the block and binds
 * only iter i. */
static int check_bound_loop(pe_ctx *x, uint32_t i, const tsl_stmt *l, const tsl_var *v) {
  sch_call *c = x->c;
  const tsl_block *b = x->b;
  const tsl_iter_var *iv = &b->iter_vars[i];
  int64_t lm;
  if (!tsl_expr_is_const_int(sch_simplify(c, l->u.loop.min), &lm) || lm != 0 ||
      !tsl_analyzer_equal(c->sch->an, l->u.loop.extent, iv->dom.extent))
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s', bound to iter '%s' of block '%s', does not "
                    "run over the iter's domain [0, %s)",
                    l->u.loop.loop_var->name, iv->var->name, b->name,
                    cmp_expr_str(c, iv->dom.extent));
  if (count_blocks(l->u.loop.body) != 1)
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' holds other blocks than '%s'; extending it "
                    "would run them for the padding too",
                    l->u.loop.loop_var->name, b->name);
  for (uint32_t j = 0; j < b->n_iter_vars; j++)
    if (j != i && tsl_expr_uses_var(x->realize->u.realize.iter_values[j], v))
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' binds more than iter '%s' of block '%s'",
                      l->u.loop.loop_var->name, iv->var->name, b->name);
  return TSL_OK;
}

/* Iter i's extent rounded up to a multiple of its padding; when that
 * changes it, the iter (starting at 0, spatial or reduce), the var it is
 * bound to and the loop of that var get the padded extent. */
static int pad_iter(pe_ctx *x, uint32_t i) {
  sch_call *c = x->c;
  tsl_arena *a = c->arena;
  const tsl_iter_var *iv = &x->b->iter_vars[i];
  const tsl_expr *ext = iv->dom.extent;
  const tsl_expr *pe = tsl_expr_int(a, ext->dtype, x->pad->u.items[i].u.i);
  const tsl_expr *padded = sch_simplify(
      c, tsl_expr_binary(a, TSL_EXPR_MUL,
                         tsl_expr_binary(a, TSL_EXPR_FLOORDIV,
                                         tsl_expr_binary(a, TSL_EXPR_SUB,
                                                         tsl_expr_binary(a, TSL_EXPR_ADD, ext, pe),
                                                         tsl_expr_int(a, ext->dtype, 1)),
                                         pe),
                         pe));
  if (tsl_analyzer_equal(c->sch->an, padded, ext))
    return TSL_OK;
  int64_t m0;
  if (!tsl_expr_is_const_int(sch_simplify(c, iv->dom.min), &m0) || m0 != 0)
    return sch_fail(c, TSL_EINVALID,
                    "iter '%s' of block '%s' does not start at 0; only iters "
                    "starting at 0 can be padded",
                    iv->var->name, x->b->name);
  if (iv->iter_type != TSL_ITER_SPATIAL && iv->iter_type != TSL_ITER_REDUCE)
    return sch_fail(c, TSL_EINVALID,
                    "iter '%s' of block '%s' is neither spatial nor reduce",
                    iv->var->name, x->b->name);
  tsl_map_put(&x->padded, iv->var, (void *)padded);
  x->any_reduce |= iv->iter_type == TSL_ITER_REDUCE;
  const tsl_expr *v = x->realize->u.realize.iter_values[i];
  if (v->kind != TSL_EXPR_VAR)
    return TSL_OK;
  tsl_map_put(&x->padded, v->u.var, (void *)padded);
  const tsl_stmt *l = bound_loop(&x->p, x->s.level, v);
  if (!l)
    return TSL_OK;
  int rc = check_bound_loop(x, i, l, v->u.var);
  if (rc)
    return rc;
  tsl_map_put(&x->loop_ext, v->u.var, (void *)padded);
  return TSL_OK;
}

/* A padded reduce iter must not change the result. */
static int check_reduce_pads(pe_ctx *x) {
  const tsl_block *b = x->b;
  int rc;
  for (uint32_t i = 0; x->any_reduce && i < b->n_iter_vars; i++)
    if (b->iter_vars[i].iter_type == TSL_ITER_REDUCE &&
        tsl_map_find(&x->padded, b->iter_vars[i].var, NULL) &&
        (rc = check_reduce_pad(x, &b->iter_vars[i])))
      return rc;
  return TSL_OK;
}

/* The scope item holding the block: nothing else may see the padding. */
static int find_item(pe_ctx *x) {
  const tsl_stmt *sbody = x->s.block->body;
  uint32_t item_level = x->s.level + 1;
  x->pos = 0;
  if (sbody->kind == TSL_STMT_SEQ) {
    item_level = x->s.level + 2;
    x->pos = x->p.index[item_level];
  }
  x->item = x->p.stmts[item_level];
  if (count_blocks(x->item) != 1)
    return sch_fail(x->c, TSL_EINVALID,
                    "block '%s' shares its statement of the scope with other "
                    "blocks; pad_einsum copies buffers around that statement",
                    x->b->name);
  return TSL_OK;
}

/* 1 when the block writes all of a dimension of extent `extent` indexed by
 * `var`: a spatial iter from 0 over `extent`, bound to a loop from 0 over
 * it. */
static int writes_whole_dim(pe_ctx *x, const tsl_var *var, const tsl_expr *extent) {
  sch_call *c = x->c;
  const tsl_block *b = x->b;
  const tsl_iter_var *iv = NULL;
  uint32_t at = 0;
  for (uint32_t j = 0; j < b->n_iter_vars && !iv; j++)
    if (b->iter_vars[j].var == var) {
      iv = &b->iter_vars[j];
      at = j;
    }
  const tsl_stmt *l =
      iv ? bound_loop(&x->p, x->s.level, x->realize->u.realize.iter_values[at]) : NULL;
  int64_t dm, lm;
  return iv && iv->iter_type == TSL_ITER_SPATIAL && l &&
         tsl_expr_is_const_int(sch_simplify(c, iv->dom.min), &dm) && dm == 0 &&
         tsl_analyzer_equal(c->sch->an, iv->dom.extent, extent) &&
         tsl_expr_is_const_int(sch_simplify(c, l->u.loop.min), &lm) && lm == 0 &&
         tsl_analyzer_equal(c->sch->an, l->u.loop.extent, iv->dom.extent);
}

/* A padded buffer's copy is valid: constant indices are 0 (the copy has
 * extent 1 there), and an output, copied back over its whole shape, is
 * written whole. */
static int check_copy(pe_ctx *x, const tsl_buffer_region *r, int is_read) {
  sch_call *c = x->c;
  const tsl_block *b = x->b;
  const tsl_buffer *buf = r->buffer;
  const tsl_expr *pr = x->realize->u.realize.predicate;
  if (!is_read && !(pr->kind == TSL_EXPR_INT_IMM && pr->u.int_value))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' has a predicate; its padded output '%s' would "
                    "be copied back where it wrote nothing",
                    b->name, buf->name);
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_expr *m = r->ranges[d].min;
    int64_t k;
    if (tsl_expr_is_const_int(m, &k) && k != 0)
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' accesses '%s' at the constant %lld in "
                      "dimension %u; its padded copy has extent 1 there",
                      b->name, buf->name, (long long)k, d);
    if (is_read || m->kind != TSL_EXPR_VAR)
      continue;
    if (!writes_whole_dim(x, m->u.var, buf->shape[d]))
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' does not write all of '%s' along dimension "
                      "%u (its index must be a spatial iter bound to a loop "
                      "over the whole extent %s); the padded copy would be "
                      "copied back over values it did not compute",
                      b->name, buf->name, d, cmp_expr_str(c, buf->shape[d]));
  }
  return TSL_OK;
}

/* A padded copy of each buffer a padded iter indexes, copied in before the
 * item (inputs) or back after it (outputs). */
static int make_copies(pe_ctx *x) {
  const tsl_block *b = x->b;
  tsl_arena *a = x->c->arena;
  tsl_vec_init(&x->before, sizeof(const tsl_stmt *), a);
  tsl_vec_init(&x->after, sizeof(const tsl_stmt *), a);
  tsl_vec_init(&x->allocs, sizeof(const tsl_buffer *), a);
  for (uint32_t i = 0; i < b->n_reads + b->n_writes; i++) {
    int is_read = i < b->n_reads, rc;
    const tsl_buffer_region *r = is_read ? &b->reads[i] : &b->writes[i - b->n_reads];
    if (!needs_padding(x, r))
      continue;
    if ((rc = check_copy(x, r, is_read)))
      return rc;
    const tsl_buffer *pb = padded_buffer(x, r);
    tsl_map_put(&x->bufs, r->buffer, (void *)pb);
    TSL_VEC_PUSH(&x->allocs, const tsl_buffer *, pb);
    TSL_VEC_PUSH(is_read ? &x->before : &x->after, const tsl_stmt *,
                 copy_nest(x, r->buffer, pb, is_read));
  }
  return TSL_OK;
}

/* The scope with the item rewritten to the padded loops and buffers between
 * the copies, and the padded buffers allocated. */
static void rebuild(pe_ctx *x) {
  tsl_arena *a = x->c->arena;
  const tsl_block *sblk = x->s.block;
  const tsl_stmt *sbody = sblk->body;
  tsl_mutator m = tsl_mutator_make(a);
  m.stmt = pe_stmt;
  m.buffers = &x->bufs;
  m.user_data = x;
  const tsl_stmt *nitem = tsl_mutate_stmt(&m, x->item);
  tsl_vec items;
  tsl_vec_init(&items, sizeof(const tsl_stmt *), a);
  uint32_t n_items = sbody->kind == TSL_STMT_SEQ ? sbody->u.seq.n : 1;
  for (uint32_t i = 0; i < n_items; i++) {
    const tsl_stmt *it = sbody->kind == TSL_STMT_SEQ ? sbody->u.seq.stmts[i] : sbody;
    if (i != x->pos) {
      TSL_VEC_PUSH(&items, const tsl_stmt *, it);
      continue;
    }
    tsl_vec_append(&items, x->before.data, x->before.len);
    TSL_VEC_PUSH(&items, const tsl_stmt *, nitem);
    tsl_vec_append(&items, x->after.data, x->after.len);
  }
  tsl_block *nsb = tsl_block_clone(a, sblk);
  nsb->body = tsl_stmt_seq(a, items.len, TSL_VEC_DATA(&items, const tsl_stmt *));
  const tsl_buffer **al =
      TSL_NEW_ARRAY(a, const tsl_buffer *, sblk->n_alloc_buffers + x->allocs.len + 1);
  if (sblk->n_alloc_buffers)
    memcpy(al, sblk->alloc_buffers, sizeof *al * sblk->n_alloc_buffers);
  memcpy(al + sblk->n_alloc_buffers, x->allocs.data, sizeof *al * x->allocs.len);
  nsb->alloc_buffers = al;
  nsb->n_alloc_buffers = sblk->n_alloc_buffers + x->allocs.len;
  const tsl_stmt *nsr = sch_with_block(a, x->p.stmts[x->s.level], nsb);
  sch_commit(x->c, x->p.func, sch_path_rebuild(a, &x->p, x->s.level, nsr));
}

int sch_apply_pad_einsum(sch_call *c) {
  pe_ctx x;
  memset(&x, 0, sizeof x);
  int rc;
  if ((rc = find_block(c, &x)) || (rc = check_einsum(&x)))
    return rc;
  for (uint32_t i = 0; i < x.b->n_iter_vars; i++)
    if ((rc = pad_iter(&x, i)))
      return rc;
  if (!x.padded.n)
    return TSL_OK; /* every extent is already a multiple: nothing to do */
  if ((rc = check_reduce_pads(&x)) || (rc = find_item(&x)) || (rc = make_copies(&x)))
    return rc;
  rebuild(&x);
  return TSL_OK;
}
