/*
 * transform_block_layout (TVM's layout_transformation.cc
 * TransformBlockLayout): a block's iteration space is remapped by an index
 * map. The block must sit under a chain of loops starting at 0 that bind
 * its iterators one to one, in order; the map must be a bijective affine
 * map of the iterators' domain. The new iterators v0, v1, ... range over
 * the map's image (spatial or reduce as the old iterators they use), the
 * body reads the old iterators through the inverse map with buffer indices
 * simplified, and new loops ax0, ax1, ... replace the old chain.
 */
#include "layout_internal.h"

#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The iterator type of the old iterators `e` uses: one type, or -1 when it
 * mixes types or uses none (TVM's DetectNewBlockIterType). */
typedef struct iter_kind {
  const tsl_block *b;
  int type, found;
} iter_kind;

static int kind_fn(const tsl_expr *e, void *ud) {
  iter_kind *k = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < k->b->n_iter_vars; i++)
    if (k->b->iter_vars[i].var == e->u.var) {
      int t = (int)k->b->iter_vars[i].iter_type;
      if (k->found && k->type != t) {
        k->type = -1;
        return 1;
      }
      k->type = t;
      k->found = 1;
    }
  return 0;
}

static int new_iter_type(const tsl_block *b, const tsl_expr *e) {
  iter_kind k = {b, -1, 0};
  tsl_expr_visit(e, kind_fn, &k);
  return k.found ? k.type : -1;
}

/* Buffer indices and region minimums simplified with the new iterators'
 * domains known (TVM's BlockBufferAccessSimplifier). */
typedef struct simp {
  tsl_mutator m; /* first member */
  sch_call *c;
} simp;

static const tsl_expr *simp_expr(tsl_mutator *m, const tsl_expr *e) {
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (r->kind != TSL_EXPR_LOAD)
    return r;
  const tsl_expr **idx = TSL_NEW_ARRAY(m->arena, const tsl_expr *, r->n_args + 1);
  for (uint32_t i = 0; i < r->n_args; i++)
    idx[i] = sch_simplify(((simp *)m)->c, r->args[i]);
  return tsl_expr_load(m->arena, r->u.buffer, r->n_args, idx);
}

static const tsl_stmt *simp_stmt(tsl_mutator *m, const tsl_stmt *s) {
  sch_call *c = ((simp *)m)->c;
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (!r || r->kind != TSL_STMT_STORE)
    return r;
  const tsl_expr **idx = TSL_NEW_ARRAY(m->arena, const tsl_expr *, r->u.store.n_indices + 1);
  for (uint32_t i = 0; i < r->u.store.n_indices; i++)
    idx[i] = sch_simplify(c, r->u.store.indices[i]);
  return tsl_stmt_store(m->arena, r->u.store.buffer, r->u.store.value, r->u.store.n_indices,
                        idx);
}

static const tsl_buffer_region *simp_regions(simp *s, uint32_t n,
                                             const tsl_buffer_region *rs) {
  if (!n)
    return rs;
  tsl_buffer_region *out = TSL_NEW_ARRAY(s->m.arena, tsl_buffer_region, n);
  for (uint32_t i = 0; i < n; i++) {
    out[i] = tsl_mutate_region(&s->m, &rs[i]);
    tsl_range *r = TSL_NEW_ARRAY(s->m.arena, tsl_range, rs[i].ndim + 1);
    for (uint32_t d = 0; d < rs[i].ndim; d++)
      r[d] = (tsl_range){sch_simplify(s->c, out[i].ranges[d].min),
                         sch_simplify(s->c, out[i].ranges[d].extent)};
    out[i].ranges = r;
  }
  return out;
}

int sch_apply_transform_block_layout(sch_call *c) {
  tsl_arena *a = c->arena;
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_stmt *rz = sch_path_target(&p);
  const tsl_block *b = rz->u.realize.block;
  /* the loops between the scope block and the block: a chain binding the
   * iterators one to one */
  uint32_t top = p.depth - 1;
  while (top > 0 && p.stmts[top - 1]->kind == TSL_STMT_FOR)
    top--;
  uint32_t n_loops = p.depth - 1 - top;
  for (uint32_t k = top; k < p.depth - 1; k++) {
    const tsl_stmt *l = p.stmts[k];
    int64_t mn;
    if (!tsl_expr_is_const_int(sch_simplify(c, l->u.loop.min), &mn) || mn != 0)
      return sch_fail(c, TSL_EINVALID, "loop '%s' does not start at 0; the primitive "
                      "only supports loops starting at 0", l->u.loop.loop_var->name);
  }
  if (p.stmts[top - 1]->kind == TSL_STMT_IF || p.stmts[top - 1]->kind == TSL_STMT_LET)
    return sch_fail(c, TSL_EUNSUPPORTED, "an if or let stands between block '%s''s loops "
                    "and its scope block", b->name);
  for (uint32_t k = top; k + 1 < p.depth; k++) {
    const tsl_stmt *l = p.stmts[k];
    if (l->u.loop.body != p.stmts[k + 1])
      return sch_fail(c, TSL_EINVALID, "loop '%s' must have block '%s' as its only child "
                      "(through a chain of loops)", l->u.loop.loop_var->name, b->name);
  }
  int trivial = rz->u.realize.n_iter_values == n_loops;
  for (uint32_t i = 0; trivial && i < n_loops; i++) {
    const tsl_expr *v = rz->u.realize.iter_values[i];
    trivial = v->kind == TSL_EXPR_VAR && v->u.var == p.stmts[top + i]->u.loop.loop_var;
  }
  if (!trivial)
    return sch_fail(c, TSL_EINVALID, "block '%s' must have trivial bindings: each "
                    "iterator bound to the loop at its position, one loop per iterator",
                    b->name);
  const tsl_expr *pred = rz->u.realize.predicate;
  if (!(pred->kind == TSL_EXPR_INT_IMM && pred->u.int_value == 1))
    return sch_fail(c, TSL_EUNSUPPORTED, "block '%s' has a T.where predicate over the "
                    "loops it would replace", b->name);
  uint32_t n_it = b->n_iter_vars;
  const tsl_expr **vars = TSL_NEW_ARRAY(a, const tsl_expr *, n_it + 1);
  const tsl_expr **exts = TSL_NEW_ARRAY(a, const tsl_expr *, n_it + 1);
  for (uint32_t i = 0; i < n_it; i++) {
    int64_t mn;
    if (!tsl_expr_is_const_int(b->iter_vars[i].dom.min, &mn) || mn != 0)
      return sch_fail(c, TSL_EINVALID, "iterator '%s' of block '%s' does not start at 0",
                      b->iter_vars[i].var->name, b->name);
    vars[i] = b->iter_vars[i].var->ref;
    exts[i] = b->iter_vars[i].dom.extent;
  }
  char what[300];
  snprintf(what, sizeof what, "one per iterator of block '%s'", b->name);
  lay_map map;
  if ((rc = lay_map_from_lambda(c, 1, lay_block_default_dtype(b), n_it, what, &map)))
    return rc;
  const tsl_expr **mapped = lay_map_apply(c, &map, vars);
  const tsl_expr **shape;
  if ((rc = lay_map_shape(c, &map, exts, "index_map", &shape)))
    return rc;
  lay_map inv;
  if ((rc = lay_map_inverse(c, &map, exts, 1, &inv, NULL))) {
    tsl_diag_set(c->diag, TSL_EINVALID, "the index map %s is not bijective affine over "
                 "the iterators of block '%s'", lay_map_text(c, &map), b->name);
    return TSL_EINVALID;
  }
  uint32_t n_new = map.n_out;
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, n_new + 1);
  const tsl_expr **nrefs = TSL_NEW_ARRAY(a, const tsl_expr *, n_new + 1);
  for (uint32_t i = 0; i < n_new; i++) {
    int64_t one;
    int type = tsl_expr_is_const_int(shape[i], &one) && one == 1
                   ? TSL_ITER_SPATIAL : new_iter_type(b, mapped[i]);
    if (type < 0) {
      char *t = tsl_print_expr(mapped[i]);
      sch_fail(c, TSL_EINVALID, "new iterator %u = %s mixes iterators of different types "
               "(spatial and reduce) of block '%s'; its type cannot be decided", i,
               t ? t : "?", b->name);
      free(t);
      return TSL_EINVALID;
    }
    char name[32];
    snprintf(name, sizeof name, "v%u", i);
    tsl_dtype dt = mapped[i]->dtype;
    const tsl_var *v = sch_new_var(c, name, dt);
    const tsl_expr *ext = shape[i];
    if (!tsl_dtype_eq(ext->dtype, dt))
      ext = ext->kind == TSL_EXPR_INT_IMM ? tsl_expr_int(a, dt, ext->u.int_value)
                                          : tsl_expr_cast(a, dt, ext);
    ivs[i] = (tsl_iter_var){v, {tsl_expr_int(a, dt, 0), ext}, (uint32_t)type};
    nrefs[i] = v->ref;
  }
  const tsl_expr **olds = lay_map_apply(c, &inv, nrefs);
  tsl_map sub;
  tsl_map_init(&sub, a);
  for (uint32_t i = 0; i < n_it; i++)
    tsl_map_put(&sub, b->iter_vars[i].var, (void *)olds[i]);
  for (uint32_t i = 0; i < n_new; i++)
    tsl_analyzer_bind_bounds(c->sch->an, ivs[i].var, ivs[i].dom.min, ivs[i].dom.extent);
  simp s;
  memset(&s, 0, sizeof s);
  s.m = tsl_mutator_make(a);
  s.m.expr = simp_expr;
  s.m.stmt = simp_stmt;
  s.m.vars = &sub;
  s.c = c;
  tsl_block *fb = tsl_block_clone(a, b);
  fb->body = tsl_mutate_stmt(&s.m, b->body);
  fb->init = b->init ? tsl_mutate_stmt(&s.m, b->init) : NULL;
  fb->reads = simp_regions(&s, b->n_reads, b->reads);
  fb->writes = simp_regions(&s, b->n_writes, b->writes);
  for (uint32_t i = 0; i < n_new; i++)
    tsl_analyzer_unbind(c->sch->an, ivs[i].var);
  fb->n_iter_vars = n_new;
  fb->iter_vars = ivs;
  const tsl_var **lv = TSL_NEW_ARRAY(a, const tsl_var *, n_new + 1);
  const tsl_expr **lrefs = TSL_NEW_ARRAY(a, const tsl_expr *, n_new + 1);
  for (uint32_t i = 0; i < n_new; i++) {
    char name[32];
    snprintf(name, sizeof name, "ax%u", i);
    lv[i] = sch_new_var(c, name, ivs[i].var->dtype);
    lrefs[i] = lv[i]->ref;
  }
  const tsl_stmt *body = tsl_stmt_block_realize(a, n_new, lrefs, pred, fb);
  for (uint32_t i = n_new; i-- > 0;)
    body = tsl_stmt_for(a, lv[i], tsl_expr_int(a, shape[i]->dtype, 0), shape[i],
                        TSL_FOR_SERIAL, NULL, (tsl_attrs){0, NULL}, body);
  sch_commit(c, p.func, sch_path_rebuild(a, &p, n_loops ? top : p.depth - 1, body));
  return TSL_OK;
}
