/*
 * loop_partition: a loop over [min, min + extent) becomes consecutive
 * loops over [min, min + f0), [min + f0, min + f0 + f1), ..., each a copy
 * of the body, as TVM's LoopPartition builds them:
 *
 *   with T.block("B_i_common"):              # B: the first block inside
 *     with T.block("B_i0_partition"):
 *       for i0 in range(0, 2): ... block "B_i0" ...
 *     with T.block("B_i1_partition"):
 *       for i1 in range(2, 128): ... block "B_i1" ...
 *
 * Factors (one may be None) must sum to less than the extent unless one
 * is None; the rest of the range is one more partition. Every block of a
 * copy is renamed `<name>_<loop var>`; a block iter bound to the new loop
 * variable gets the partition's range as its domain. Unlike TVM, regions
 * stay per instance and the new opaque blocks declare what they access
 * (see README.md: TVM's regions let later primitives go wrong).
 */
#include "sch_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct part_ctx {
  sch_call *c;
  const tsl_func *f;
  tsl_map used; /* block names given so far (interned) */
  const tsl_var *nv;
  const tsl_expr *lo, *hi;
} part_ctx;

static tsl_str unique_name(part_ctx *x, const char *base) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", base);
  for (uint32_t k = 1;; k++) {
    tsl_str s = tsl_intern(x->c->sch->ctx, buf);
    if (sch_fresh_block_name(x->c, x->f, buf) == s && !tsl_map_get(&x->used, s)) {
      tsl_map_put(&x->used, s, (void *)s);
      return s;
    }
    snprintf(buf, sizeof buf, "%s_%u", base, k);
  }
}

/* ---- renaming the blocks of one copy -------------------------------------- */

static const tsl_stmt *part_stmt(tsl_mutator *m, const tsl_stmt *s) {
  part_ctx *x = m->user_data;
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return r;
  tsl_arena *a = x->c->arena;
  const tsl_block *b = r->u.realize.block;
  tsl_block *nb = tsl_block_clone(a, b);
  char name[512];
  snprintf(name, sizeof name, "%s_%s", b->name, x->nv->name);
  nb->name = unique_name(x, name);
  int k = -1;
  for (uint32_t i = 0; i < r->u.realize.n_iter_values && k < 0; i++) {
    const tsl_expr *v = r->u.realize.iter_values[i];
    if (v->kind == TSL_EXPR_VAR && v->u.var == x->nv)
      k = (int)i;
  }
  if (k >= 0) {
    tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, b->n_iter_vars);
    memcpy(ivs, b->iter_vars, sizeof *ivs * b->n_iter_vars);
    tsl_dtype dt = ivs[k].var->dtype;
    const tsl_expr *lo = tsl_dtype_eq(x->lo->dtype, dt) ? x->lo : tsl_expr_cast(a, dt, x->lo);
    const tsl_expr *hi = tsl_dtype_eq(x->hi->dtype, dt) ? x->hi : tsl_expr_cast(a, dt, x->hi);
    int64_t m0, l0;
    int drop_init = b->init && ivs[k].iter_type == TSL_ITER_REDUCE &&
                    tsl_expr_is_const_int(ivs[k].dom.min, &m0) &&
                    tsl_expr_is_const_int(lo, &l0) && l0 > m0;
    ivs[k].dom.min = lo;
    ivs[k].dom.extent = tsl_simplify(x->c->sch->an, a, tsl_expr_binary(a, TSL_EXPR_SUB, hi, lo));
    nb->iter_vars = ivs;
    if (drop_init) {
      /* the reduction's first iteration is in an earlier partition: this
       * one accumulates onto what that one started (TVM keeps the init,
       * which restarts the reduction) */
      nb->init = NULL;
      tsl_buffer_region *rd = TSL_NEW_ARRAY(a, tsl_buffer_region, b->n_reads + b->n_writes + 1);
      memcpy(rd, b->writes, sizeof *rd * b->n_writes);
      if (b->n_reads)
        memcpy(rd + b->n_writes, b->reads, sizeof *rd * b->n_reads);
      nb->reads = rd;
      nb->n_reads = b->n_reads + b->n_writes;
    }
  }
  return sch_with_block(a, r, nb);
}

/* The regions of a new opaque block: what its body accesses. TVM leaves
 * them empty, which hides the accesses from every analysis of the scope
 * (e.g. cache_write then misplaces its copy; found by the random-script
 * test). */
static int declare_accesses(sch_call *c, tsl_block *b) {
  tsl_buffer_region *r, *w;
  uint32_t nr, nw;
  tsl_diag d = {0};
  int rc = tsl_block_infer_regions(c->arena, b, &r, &nr, &w, &nw, &d);
  if (rc)
    return sch_fail(c, rc, "the regions of block '%s' cannot be inferred: %s",
                    b->name, d.text);
  b->reads = r;
  b->n_reads = nr;
  b->writes = w;
  b->n_writes = nw;
  return TSL_OK;
}

int sch_apply_loop_partition(sch_call *c) {
  tsl_arena *a = c->arena;
  sch_path p;
  int rc = sch_loop_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_stmt *loop = sch_path_target(&p);
  const tsl_var *lv = loop->u.loop.loop_var;
  const char *lname = lv->name;
  int64_t min, extent;
  if (!tsl_expr_is_const_int(sch_simplify(c, loop->u.loop.min), &min) ||
      !tsl_expr_is_const_int(sch_simplify(c, loop->u.loop.extent), &extent))
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' has a symbolic min or extent; loop_partition "
                    "needs both known",
                    lname);
  const tsl_sch_value *fs = &c->args[1];
  uint32_t n = fs->n;
  int64_t *f = TSL_NEW_ARRAY(a, int64_t, n + 2), total = 0;
  int infer = -1;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_sch_value *v = &fs->u.items[i];
    if (v->kind == TSL_SV_NONE) {
      if (infer >= 0)
        return sch_fail(c, TSL_EINVALID,
                        "factors has more than one None; at most one factor "
                        "can be inferred");
      infer = (int)i;
      continue;
    }
    f[i] = v->kind == TSL_SV_RV ? tsl_schedule_rv_value(c->sch, v->u.rv) : v->u.i;
    if (f[i] <= 0)
      return sch_fail(c, TSL_EINVALID,
                      "factor %u is %lld; factors must be positive integers "
                      "(or one None)",
                      i, (long long)f[i]);
    total += f[i];
  }
  if (loop->u.loop.annotations.n || loop->u.loop.for_kind == TSL_FOR_THREAD_BINDING)
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' has %s; only loops without annotations or "
                    "thread bindings can be partitioned",
                    lname, loop->u.loop.annotations.n ? "annotations" : "a thread binding");
  if (total >= extent)
    return sch_fail(c, TSL_EINVALID,
                    "the factors sum to %lld, not less than the extent %lld of "
                    "loop '%s'; the last partition takes the rest of the range",
                    (long long)total, (long long)extent, lname);
  /* bounds of the partitions, relative to min */
  uint32_t np = n;
  if (infer >= 0)
    f[infer] = extent - total;
  else
    f[np++] = extent - total;
  const char *base = sch_first_block_name(loop->u.loop.body);
  if (!base)
    return sch_fail(c, TSL_EINVALID, "loop '%s' contains no block", lname);
  char name[512];
  snprintf(name, sizeof name, "%s_%s", base, lname);
  part_ctx x = {.c = c, .f = p.func};
  tsl_map_init(&x.used, a);
  tsl_dtype dt = lv->dtype;
  const tsl_stmt **parts = TSL_NEW_ARRAY(a, const tsl_stmt *, np);
  const tsl_var **vars = TSL_NEW_ARRAY(a, const tsl_var *, np);
  int64_t at = min;
  for (uint32_t i = 0; i < np; i++) {
    char vn[300], bn[600];
    snprintf(vn, sizeof vn, "%s%u", lname, i);
    const tsl_var *nv = sch_new_var(c, vn, dt);
    vars[i] = nv;
    x.nv = nv;
    x.lo = tsl_expr_int(a, dt, at);
    x.hi = tsl_expr_int(a, dt, at + f[i]);
    tsl_map vm;
    tsl_map_init(&vm, a);
    tsl_map_put(&vm, lv, (void *)tsl_expr_var(nv));
    const tsl_stmt *body = sch_stmt_copy_fresh(c, loop->u.loop.body, &vm);
    tsl_mutator m = tsl_mutator_make(a);
    m.stmt = part_stmt;
    m.user_data = &x;
    body = tsl_mutate_stmt(&m, body);
    const tsl_stmt *nl = tsl_stmt_for(a, nv, x.lo, tsl_expr_int(a, dt, f[i]),
                                      TSL_FOR_SERIAL, NULL, (tsl_attrs){0, NULL}, body);
    tsl_block *pb = TSL_NEW(a, tsl_block);
    snprintf(bn, sizeof bn, "%s%u_partition", name, i);
    pb->name = unique_name(&x, bn);
    pb->body = nl;
    if ((rc = declare_accesses(c, pb)))
      return rc;
    parts[i] = tsl_stmt_block_realize(a, 0, NULL, tsl_expr_bool(a, 1), pb);
    at += f[i];
  }
  char cn[600];
  snprintf(cn, sizeof cn, "%s_common", name);
  tsl_block *cb = TSL_NEW(a, tsl_block);
  cb->name = unique_name(&x, cn);
  cb->body = tsl_stmt_seq(a, np, parts);
  if ((rc = declare_accesses(c, cb)))
    return rc;
  const tsl_stmt *cr = tsl_stmt_block_realize(a, 0, NULL, tsl_expr_bool(a, 1), cb);
  sch_commit(c, p.func, sch_path_rebuild(a, &p, p.depth - 1, cr));
  for (uint32_t i = 0; i < np; i++)
    sch_out_loop(c, p.func->name, vars[i]);
  return TSL_OK;
}
