/*
 * Facts about a block handle for schedule rules (tessel/rules.h), as TVM's
 * analyses state them: root, spatial, output block, trivial binding,
 * branches, the read/write index pattern.
 */
#include "sch_internal.h"
#include "tessel/rules.h"

#include <string.h>

/* The path to a live block handle's realize, or 0. */
static int block_at(tsl_schedule *sch, tsl_sch_rv rv, sch_path *p) {
  if (rv >= sch->n_rvs || sch->rvs[rv].kind != TSL_RV_BLOCK)
    return 0;
  const sch_rv *r = &sch->rvs[rv];
  const tsl_func *f = sch_func(sch, r->func);
  return f && sch_find_block(f, r->u.block, p) != 0;
}

int tsl_sch_is_root_block(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  return block_at(sch, block, &p) && p.depth == 1;
}

static int all_spatial(const tsl_block *b) {
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i].iter_type != TSL_ITER_SPATIAL)
      return 0;
  return 1;
}

int tsl_sch_is_spatial_block(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  return block_at(sch, block, &p) && all_spatial(sch_path_block(&p));
}

typedef struct spatial_walk {
  tsl_stmt_visitor v;
  int spatial;
} spatial_walk;

static int check_spatial(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  spatial_walk *w = ud;
  if (!all_spatial(b))
    w->spatial = 0;
  return w->spatial ? 0 : 1;
}

int tsl_sch_is_spatial_func(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  if (!block_at(sch, block, &p))
    return 0;
  spatial_walk w = {{.block = check_spatial}, 1};
  w.v.user_data = &w;
  tsl_stmt_visit(p.func->body, &w.v);
  return w.spatial;
}

int tsl_sch_is_output_block(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  if (!block_at(sch, block, &p) || p.depth == 1)
    return 0;
  const tsl_block *scope = p.stmts[sch_path_scope_level(&p, p.depth - 1)]
                               ->u.realize.block;
  const tsl_block *b = sch_path_block(&p);
  for (uint32_t w = 0; w < b->n_writes; w++) {
    int allocated = 0;
    for (uint32_t k = 0; k < scope->n_alloc_buffers && !allocated; k++)
      allocated = scope->alloc_buffers[k] == b->writes[w].buffer;
    if (!allocated)
      return 1;
  }
  return 0;
}

int tsl_sch_is_trivial_binding(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  if (!block_at(sch, block, &p))
    return 0;
  const tsl_stmt *rz = sch_path_target(&p);
  uint32_t n = rz->u.realize.n_iter_values, k = p.depth - 1;
  /* TVM's IsTrivialBinding: the loops right above, innermost last, bound
   * one to one (loops past the block's scope do not count) */
  uint32_t scope = sch_path_scope_level(&p, k);
  const tsl_var *loops[64];
  uint32_t nl = 0;
  for (uint32_t d = scope + 1; d < k && nl < 64; d++)
    if (p.stmts[d]->kind == TSL_STMT_FOR)
      loops[nl++] = p.stmts[d]->u.loop.loop_var;
  if (nl != n)
    return 0;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_expr *v = rz->u.realize.iter_values[i];
    if (v->kind != TSL_EXPR_VAR || v->u.var != loops[i])
      return 0;
  }
  return 1;
}

typedef struct branch_walk {
  tsl_stmt_visitor v;
  int found;
} branch_walk;

static int is_true(const tsl_expr *e) {
  return e->kind == TSL_EXPR_INT_IMM && e->u.int_value != 0;
}

static int branch_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  branch_walk *w = ud;
  if (e->kind == TSL_EXPR_SELECT || e->kind == TSL_EXPR_IF_THEN_ELSE)
    w->found = 1;
  return w->found;
}

static int branch_stmt(const tsl_stmt *s, void *ud) {
  branch_walk *w = ud;
  if (s->kind == TSL_STMT_IF ||
      (s->kind == TSL_STMT_BLOCK_REALIZE && !is_true(s->u.realize.predicate)))
    w->found = 1;
  return w->found;
}

int tsl_sch_has_if_then_else(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  if (!block_at(sch, block, &p))
    return 0;
  branch_walk w = {{.stmt = branch_stmt, .expr = branch_expr}, 0};
  w.v.user_data = &w;
  tsl_stmt_visit(sch_path_target(&p), &w.v);
  return w.found;
}

/* `e` as `v + c` (c may be 0) of a variable: the variable, or NULL. */
static const tsl_var *var_with_shift(const tsl_expr *e, int64_t *shift) {
  *shift = 0;
  if (e->kind == TSL_EXPR_VAR)
    return e->u.var;
  int64_t c;
  if ((e->kind == TSL_EXPR_ADD || e->kind == TSL_EXPR_SUB) &&
      e->args[0]->kind == TSL_EXPR_VAR && tsl_expr_is_const_int(e->args[1], &c)) {
    *shift = e->kind == TSL_EXPR_ADD ? c : -c;
    return e->args[0]->u.var;
  }
  if (e->kind == TSL_EXPR_ADD && e->args[1]->kind == TSL_EXPR_VAR &&
      tsl_expr_is_const_int(e->args[0], &c)) {
    *shift = c;
    return e->args[1]->u.var;
  }
  return NULL;
}

int tsl_rw_pattern_analyze(const tsl_buffer_region *r, const tsl_buffer_region *w,
                           tsl_rw_pattern *out) {
  memset(out, 0, sizeof *out);
  enum { MAX_DIMS = 32 };
  if (w->ndim > MAX_DIMS || r->ndim > MAX_DIMS)
    return 0;
  const tsl_var *wvars[MAX_DIMS];
  int64_t c;
  for (uint32_t i = 0; i < w->ndim; i++) {
    if (!tsl_expr_is_const_int(w->ranges[i].extent, &c) ||
        w->ranges[i].min->kind != TSL_EXPR_VAR)
      return 0;
    wvars[i] = w->ranges[i].min->u.var;
  }
  int mapped[MAX_DIMS];
  out->no_const_read = out->no_shift_read = 1;
  for (uint32_t i = 0; i < r->ndim; i++) {
    mapped[i] = -1;
    if (!tsl_expr_is_const_int(r->ranges[i].extent, &c))
      return 0;
    if (tsl_expr_is_const_int(r->ranges[i].min, &c)) {
      out->no_const_read = 0;
      continue;
    }
    int64_t shift;
    const tsl_var *v = var_with_shift(r->ranges[i].min, &shift);
    for (uint32_t k = 0; v && k < w->ndim && mapped[i] < 0; k++)
      if (wvars[k] == v)
        mapped[i] = (int)k;
    if (mapped[i] < 0)
      return 0;
    if (shift)
      out->no_shift_read = 0;
  }
  int count[MAX_DIMS] = {0}, last = -1;
  out->ordered = 1;
  for (uint32_t i = 0; i < r->ndim; i++) {
    if (mapped[i] < 0)
      continue;
    count[mapped[i]]++;
    if (last > mapped[i])
      out->ordered = 0;
    last = mapped[i];
  }
  out->surjective = out->injective = 1;
  for (uint32_t k = 0; k < w->ndim; k++) {
    if (!count[k])
      out->surjective = 0;
    else if (count[k] > 1)
      out->injective = 0;
  }
  return 1;
}

uint32_t tsl_sch_block_deps(tsl_schedule *sch, tsl_sch_rv block, int producers,
                            const tsl_block **out, uint32_t max) {
  sch_path p;
  if (!block_at(sch, block, &p) || p.depth == 1)
    return 0;
  sch_call c = {.sch = sch, .arena = sch->arena};
  uint32_t n = sch_block_deps(&c, &p, producers, NULL, 0);
  uint32_t k = n < max ? n : max;
  if (out && k) {
    sch_path *found = TSL_NEW_ARRAY(sch->arena, sch_path, k);
    sch_block_deps(&c, &p, producers, found, k);
    for (uint32_t i = 0; i < k; i++)
      out[i] = sch_path_block(&found[i]);
  }
  return n;
}

const tsl_stmt *tsl_sch_block_scope(tsl_schedule *sch, tsl_sch_rv block,
                                    const tsl_stmt **loops, uint32_t max,
                                    uint32_t *n_loops) {
  sch_path p;
  if (n_loops)
    *n_loops = 0;
  if (!block_at(sch, block, &p) || p.depth == 1)
    return NULL;
  uint32_t scope = sch_path_scope_level(&p, p.depth - 1), n = 0;
  for (uint32_t d = scope + 1; d + 1 < p.depth; d++)
    if (p.stmts[d]->kind == TSL_STMT_FOR) {
      if (loops && n < max)
        loops[n] = p.stmts[d];
      n++;
    }
  if (n_loops)
    *n_loops = n;
  return p.stmts[scope];
}

typedef struct var_set {
  const tsl_var *v[64];
  uint32_t n;
  int overflow;
} var_set;

static int collect_var(const tsl_expr *e, void *ud) {
  var_set *s = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->v[i] == e->u.var)
      return 0;
  if (s->n < 64)
    s->v[s->n++] = e->u.var;
  else
    s->overflow = 1;
  return 0;
}

int tsl_sch_needs_multi_level_tiling(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  if (!block_at(sch, block, &p) || p.depth == 1)
    return 0;
  const tsl_block *b = sch_path_block(&p);
  if (tsl_attrs_get(b->annotations, "meta_schedule.tiling_structure") || b->n_writes != 1 ||
      !b->n_reads || all_spatial(b) || !tsl_sch_is_trivial_binding(sch, block))
    return 0;
  const tsl_buffer *wbuf = b->writes[0].buffer;
  /* spatial iterators, leaving out those of domain [0, 1) */
  const tsl_var *spatial[64];
  uint32_t ns = 0;
  for (uint32_t i = 0; i < b->n_iter_vars && ns < 64; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    int64_t mn, ext;
    int unit = tsl_expr_is_const_int(iv->dom.min, &mn) && tsl_expr_is_const_int(iv->dom.extent, &ext) &&
               mn == 0 && ext == 1;
    if (iv->iter_type == TSL_ITER_SPATIAL && !unit)
      spatial[ns++] = iv->var;
  }
  uint32_t unused = 0;
  for (uint32_t r = 0; r < b->n_reads; r++) {
    const tsl_buffer_region *rg = &b->reads[r];
    for (uint32_t q = 0; q < r; q++)
      if (b->reads[q].buffer == rg->buffer)
        return 0; /* a buffer read twice */
    if (rg->buffer == wbuf)
      continue; /* the reduction's own buffer */
    var_set vs = {{0}, 0, 0};
    for (uint32_t d = 0; d < rg->ndim; d++) {
      int64_t ext;
      if (!tsl_expr_is_const_int(rg->ranges[d].extent, &ext))
        return 0;
      tsl_expr_visit(rg->ranges[d].min, collect_var, &vs);
    }
    for (uint32_t k = 0; k < ns; k++) {
      int used = vs.overflow;
      for (uint32_t i = 0; i < vs.n && !used; i++)
        used = vs.v[i] == spatial[k];
      unused += !used;
    }
  }
  return unused >= 1;
}

int tsl_sch_is_reduction_block(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  if (!block_at(sch, block, &p) || p.depth == 1)
    return 0;
  sch_call c = {.sch = sch, .arena = sch->arena};
  return sch_is_reduction(&c, &p);
}

int tsl_sch_is_complete_block(tsl_schedule *sch, tsl_sch_rv block) {
  sch_path p;
  if (!block_at(sch, block, &p) || p.depth == 1)
    return 0;
  sch_call c = {.sch = sch, .arena = sch->arena};
  return sch_is_complete(&c, &p);
}

typedef struct loop_kind {
  tsl_stmt_visitor v;
  const tsl_var *loop;
  uint32_t spatial, reduce, other;
} loop_kind;

static int uses_loop(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_VAR && e->u.var == (const tsl_var *)ud;
}

static int kind_realize(const tsl_stmt *s, void *ud) {
  loop_kind *k = ud;
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  const tsl_block *b = s->u.realize.block;
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    if (!tsl_expr_visit(s->u.realize.iter_values[i], uses_loop, (void *)k->loop))
      continue;
    tsl_iter_type t = (tsl_iter_type)b->iter_vars[i].iter_type;
    if (t == TSL_ITER_SPATIAL)
      k->spatial++;
    else if (t == TSL_ITER_REDUCE)
      k->reduce++;
    else
      k->other++;
  }
  return TSL_VISIT_SKIP; /* TVM looks at the outermost blocks only */
}

int tsl_sch_loop_iter_type(tsl_schedule *sch, tsl_sch_rv loop) {
  const tsl_stmt *s = tsl_schedule_get_stmt(sch, loop);
  if (!s || s->kind != TSL_STMT_FOR)
    return -1;
  loop_kind k = {{.stmt = kind_realize}, s->u.loop.loop_var, 0, 0, 0};
  k.v.user_data = &k;
  tsl_stmt_visit(s->u.loop.body, &k.v);
  if (k.other || (k.spatial && k.reduce))
    return TSL_ITER_OPAQUE;
  return k.reduce ? TSL_ITER_REDUCE : TSL_ITER_SPATIAL;
}
