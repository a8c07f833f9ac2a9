/*
 * Shared helpers of the reduction primitives (decompose_reduction, rfactor):
 * region substitution, variable collection and predicate projection (the
 * reduction-block check is the shared one of sch_check.c).
 */
#include "prim_reduction.h"


tsl_buffer_region *red_subst_regions(tsl_arena *a, const tsl_buffer_region *r,
                                     uint32_t n, const tsl_map *vars) {
  tsl_buffer_region *out = TSL_NEW_ARRAY(a, tsl_buffer_region, n ? n : 1);
  tsl_mutator m = tsl_mutator_make(a);
  m.vars = (tsl_map *)vars; /* only read: no def hook */
  for (uint32_t i = 0; i < n; i++)
    out[i] = tsl_mutate_region(&m, &r[i]);
  return out;
}

static int collect_var(const tsl_expr *e, void *ud) {
  tsl_vec *vars = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < vars->len; i++)
    if (TSL_VEC_AT(vars, const tsl_var *, i) == e->u.var)
      return 0;
  TSL_VEC_PUSH(vars, const tsl_var *, e->u.var);
  return 0;
}

uint32_t red_expr_vars(tsl_arena *a, const tsl_expr *e, const tsl_var ***out) {
  tsl_vec vars;
  tsl_vec_init(&vars, sizeof(const tsl_var *), a);
  tsl_expr_visit(e, collect_var, &vars);
  *out = vars.data;
  return vars.len;
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
