/*
 * Shared helpers of the reduction primitives (decompose_reduction, rfactor):
 * variable maps, variable collection and predicate projection (the
 * reduction-block check is the shared one of sch_check.c).
 */
#include "prim_reduction.h"

#include <string.h>

void red_map_put(tsl_arena *a, red_map *m, const tsl_var *v,
                 const tsl_expr *e) {
  for (uint32_t i = 0; i < m->n; i++)
    if (m->from[i] == v) {
      m->to[i] = e;
      return;
    }
  if (m->n == m->cap) {
    uint32_t nc = m->cap ? m->cap * 2 : 8;
    const tsl_var **nf = TSL_NEW_ARRAY(a, const tsl_var *, nc);
    const tsl_expr **nt = TSL_NEW_ARRAY(a, const tsl_expr *, nc);
    if (m->n) {
      memcpy(nf, m->from, sizeof *nf * m->n);
      memcpy(nt, m->to, sizeof *nt * m->n);
    }
    m->from = nf;
    m->to = nt;
    m->cap = nc;
  }
  m->from[m->n] = v;
  m->to[m->n++] = e;
}

const tsl_expr *red_map_get(const red_map *m, const tsl_var *v) {
  for (uint32_t i = 0; i < m->n; i++)
    if (m->from[i] == v)
      return m->to[i];
  return NULL;
}

static const tsl_expr *map_fn(const tsl_var *v, void *ud) {
  return red_map_get((const red_map *)ud, v);
}

const tsl_expr *red_subst_expr(tsl_arena *a, const tsl_expr *e,
                               const red_map *m) {
  return m->n ? tsl_expr_substitute(a, e, map_fn, (void *)m) : e;
}

const tsl_stmt *red_subst_stmt(tsl_arena *a, const tsl_stmt *s,
                               const red_map *m) {
  return m->n ? tsl_stmt_substitute(a, s, map_fn, (void *)m) : s;
}

tsl_buffer_region *red_subst_regions(tsl_arena *a, const tsl_buffer_region *r,
                                     uint32_t n, const red_map *m) {
  tsl_buffer_region *out = TSL_NEW_ARRAY(a, tsl_buffer_region, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    tsl_range *rg = TSL_NEW_ARRAY(a, tsl_range, r[i].ndim ? r[i].ndim : 1);
    for (uint32_t d = 0; d < r[i].ndim; d++) {
      rg[d].min = red_subst_expr(a, r[i].ranges[d].min, m);
      rg[d].extent = red_subst_expr(a, r[i].ranges[d].extent, m);
    }
    out[i].buffer = r[i].buffer;
    out[i].ndim = r[i].ndim;
    out[i].ranges = rg;
  }
  return out;
}

typedef struct var_acc {
  tsl_arena *a;
  uint32_t n, cap;
  const tsl_var **vars;
} var_acc;

static int collect_var(const tsl_expr *e, void *ud) {
  var_acc *acc = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < acc->n; i++)
    if (acc->vars[i] == e->u.var)
      return 0;
  if (acc->n == acc->cap) {
    uint32_t nc = acc->cap ? acc->cap * 2 : 8;
    const tsl_var **nv = TSL_NEW_ARRAY(acc->a, const tsl_var *, nc);
    if (acc->n)
      memcpy(nv, acc->vars, sizeof *nv * acc->n);
    acc->vars = nv;
    acc->cap = nc;
  }
  acc->vars[acc->n++] = e->u.var;
  return 0;
}

uint32_t red_expr_vars(tsl_arena *a, const tsl_expr *e, const tsl_var ***out) {
  var_acc acc = {a, 0, 0, NULL};
  tsl_expr_visit(e, collect_var, &acc);
  *out = acc.vars;
  return acc.n;
}

int red_is_true(const tsl_expr *e) {
  return e->kind == TSL_EXPR_INT_IMM && e->u.int_value != 0 &&
         tsl_dtype_is_bool(e->dtype);
}

static int uses_any(const tsl_expr *e, uint32_t n, const tsl_var *const *vars) {
  for (uint32_t i = 0; i < n; i++)
    if (tsl_expr_uses_var(e, vars[i]))
      return 1;
  return 0;
}

/* ---- predicate projection ------------------------------------------------ */

typedef struct proj {
  sch_call *c;
  uint32_t n;
  const tsl_var **vars; /* the dropped loops */
  tsl_range *doms;
} proj;

/* One conjunct: NULL when it is dropped. */
static const tsl_expr *project(const proj *p, const tsl_expr *e) {
  tsl_arena *a = p->c->arena;
  if (e->kind == TSL_EXPR_AND) {
    const tsl_expr *l = project(p, e->args[0]);
    const tsl_expr *r = project(p, e->args[1]);
    if (!l || !r)
      return l ? l : r;
    return tsl_expr_binary(a, TSL_EXPR_AND, l, r);
  }
  if (red_is_true(e))
    return NULL;
  if (!uses_any(e, p->n, p->vars))
    return e;
  /* lhs < rhs holds for some iteration of the dropped loops iff it holds
   * at the minimum of lhs over them (exact for affine lhs) */
  if (e->kind != TSL_EXPR_LT || uses_any(e->args[1], p->n, p->vars))
    return NULL; /* as TVM: dropped */
  tsl_range r;
  if (tsl_analyzer_relax(p->c->sch->an, a, e->args[0], p->n, p->vars,
                         p->doms, &r) != TSL_OK ||
      uses_any(r.min, p->n, p->vars))
    return NULL;
  const tsl_expr *ne = tsl_expr_binary(a, TSL_EXPR_LT, r.min, e->args[1]);
  return tsl_analyzer_can_prove(p->c->sch->an, ne) ? NULL : ne;
}

const tsl_expr *red_project_predicate(sch_call *c, const sch_path *bp,
                                      const tsl_expr *pred, uint32_t n,
                                      const tsl_var *const *vars) {
  tsl_arena *a = c->arena;
  proj p = {c, n, TSL_NEW_ARRAY(a, const tsl_var *, n + 1),
            TSL_NEW_ARRAY(a, tsl_range, n + 1)};
  for (uint32_t i = 0; i < n; i++) {
    p.vars[i] = vars[i];
    for (uint32_t k = 0; k < bp->depth; k++)
      if (bp->stmts[k]->kind == TSL_STMT_FOR &&
          bp->stmts[k]->u.loop.loop_var == vars[i])
        p.doms[i] = (tsl_range){bp->stmts[k]->u.loop.min,
                                bp->stmts[k]->u.loop.extent};
  }
  /* the loops' domains make conjuncts over dropped loops provably true */
  for (uint32_t k = 0; k < bp->depth; k++)
    if (bp->stmts[k]->kind == TSL_STMT_FOR)
      tsl_analyzer_bind_bounds(c->sch->an, bp->stmts[k]->u.loop.loop_var,
                        bp->stmts[k]->u.loop.min, bp->stmts[k]->u.loop.extent);
  const tsl_expr *out = project(&p, pred);
  for (uint32_t k = 0; k < bp->depth; k++)
    if (bp->stmts[k]->kind == TSL_STMT_FOR)
      tsl_analyzer_unbind(c->sch->an, bp->stmts[k]->u.loop.loop_var);
  return out ? out : tsl_expr_bool(a, 1);
}
