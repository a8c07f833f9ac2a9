/*
 * reorder: the given loops, which must lie on one chain of directly nested
 * loops in one block scope, take the listed order; unlisted loops between
 * them keep their positions.
 */
#include "loops_internal.h"

#include <string.h>

static const char *loop_name(const tsl_stmt *s) {
  return s->u.loop.loop_var->name;
}

/* Why loops x (path px) and y (path py, the deepest) are not on one chain. */
static int not_a_chain(sch_call *c, const sch_path *px, const sch_path *py) {
  const char *xn = loop_name(sch_path_target(px));
  const char *yn = loop_name(sch_path_target(py));
  uint32_t k = 0;
  while (k + 1 < px->depth && k + 1 < py->depth &&
         px->stmts[k + 1] == py->stmts[k + 1])
    k++;
  for (uint32_t j = k + 1; j-- > 0;) {
    const tsl_stmt *s = py->stmts[j];
    if (s->kind == TSL_STMT_FOR)
      return sch_fail(c, TSL_EINVALID,
                      "loops '%s' and '%s' are not in one chain: they are in "
                      "different branches under loop '%s'; reorder needs "
                      "loops nested one inside the other",
                      xn, yn, loop_name(s));
    if (s->kind == TSL_STMT_BLOCK_REALIZE)
      return sch_fail(c, TSL_EINVALID,
                      "loops '%s' and '%s' are not in one chain: they are in "
                      "different branches under block '%s'; reorder needs "
                      "loops nested one inside the other",
                      xn, yn, s->u.realize.block->name);
  }
  return sch_fail(c, TSL_EINVALID, "loops '%s' and '%s' are not in one chain",
                  xn, yn);
}

/* A loop feeding both a spatial and a reduce iterator of one block (e.g.
 * after fusing i, j and k) cannot move: another order could reach a
 * reduction's first iteration after later ones, so its init would run late
 * (TVM calls such loops opaque). */
typedef struct mixed_check {
  const tsl_var *var;
  const char *block;
} mixed_check;

static int block_mixes(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  mixed_check *m = ud;
  int spatial = 0, reduce = 0;
  for (uint32_t i = 0; i < b->n_iter_vars && i < realize->u.realize.n_iter_values; i++) {
    if (!tsl_expr_uses_var(realize->u.realize.iter_values[i], m->var))
      continue;
    if (b->iter_vars[i].iter_type == TSL_ITER_REDUCE)
      reduce = 1;
    else
      spatial = 1;
  }
  if (spatial && reduce) {
    m->block = b->name;
    return 1;
  }
  return 0;
}

int sch_apply_reorder(sch_call *c) {
  tsl_arena *a = c->arena;
  const tsl_sch_value *list = &c->args[0];
  uint32_t n = list->n;
  sch_path *paths = sch_paths_new(c, n);
  uint32_t deep = 0;
  for (uint32_t i = 0; i < n; i++) {
    int rc = sch_loop_path(c, list->u.items[i].u.rv, &paths[i]);
    if (rc)
      return rc;
    for (uint32_t j = 0; j < i; j++)
      if (sch_path_target(&paths[j]) == sch_path_target(&paths[i]))
        return sch_fail(c, TSL_EINVALID,
                        "loop '%s' appears more than once; each loop may be "
                        "listed once",
                        loop_name(sch_path_target(&paths[i])));
    if (paths[i].func != paths[0].func)
      return sch_fail(c, TSL_EINVALID,
                      "loops '%s' and '%s' are in different functions",
                      loop_name(sch_path_target(&paths[0])),
                      loop_name(sch_path_target(&paths[i])));
    if (paths[i].depth > paths[deep].depth)
      deep = i;
  }
  if (n <= 1)
    return TSL_OK;
  const sch_path *dp = &paths[deep];
  uint32_t *level = TSL_NEW_ARRAY(a, uint32_t, n);
  uint32_t top = dp->depth, bottom = 0;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_stmt *l = sch_path_target(&paths[i]);
    level[i] = dp->depth;
    for (uint32_t k = 0; k < dp->depth; k++)
      if (dp->stmts[k] == l)
        level[i] = k;
    if (level[i] == dp->depth)
      return not_a_chain(c, &paths[i], dp);
    top = level[i] < top ? level[i] : top;
    bottom = level[i] > bottom ? level[i] : bottom;
  }
  const char *tn = loop_name(dp->stmts[top]), *bn = loop_name(dp->stmts[bottom]);
  for (uint32_t k = top; k < bottom; k++) {
    const tsl_stmt *s = dp->stmts[k], *ch = dp->stmts[k + 1];
    if (ch->kind == TSL_STMT_FOR)
      continue;
    if (ch->kind == TSL_STMT_BLOCK_REALIZE)
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' lies between loop '%s' and loop '%s'; "
                      "reorder needs loops of one block scope",
                      ch->u.realize.block->name, tn, bn);
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' has %s as its body, not a single loop; the "
                    "loops from '%s' to '%s' must form a chain where each "
                    "loop is the only child of the previous one",
                    loop_name(s),
                    ch->kind == TSL_STMT_SEQ ? "several statements"
                    : ch->kind == TSL_STMT_IF ? "an if statement"
                                              : "a let statement",
                    tn, bn);
  }
  /* TVM: the blocks directly under the loops have spatial/reduce iterators
   * and affine bindings, over all their loops or over the reordered ones */
  sch_path bl = *dp;
  bl.depth = bottom + 1;
  sch_path *kids;
  uint32_t nk = sch_child_blocks(c, &bl, &kids);
  for (uint32_t k = 0; k < nk; k++) {
    const tsl_block *b = sch_path_block(&kids[k]);
    for (uint32_t i = 0; i < b->n_iter_vars; i++) {
      uint32_t t = b->iter_vars[i].iter_type;
      if (t != TSL_ITER_SPATIAL && t != TSL_ITER_REDUCE)
        return sch_fail(c, TSL_EINVALID,
                        "block '%s' under the loops has iterator '%s' of kind "
                        "%s; reorder needs blocks with spatial and reduce "
                        "iterators only",
                        b->name, b->iter_vars[i].var->name,
                        tsl_iter_type_name((tsl_iter_type)t));
    }
    const char *why = NULL;
    if (!sch_binding_affine(c, &kids[k], 0, NULL) &&
        !sch_binding_affine(c, &kids[k], top, &why))
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' under the loops does not have affine bindings "
                      "over loops '%s'..'%s': %s; reorder needs each binding "
                      "to be an iterator of the loops that steps by 1 (sums of "
                      "loops with chaining coefficients, floordiv/floormod by "
                      "constants), under a predicate that bounds whole "
                      "bindings only",
                      b->name, tn, bn, why);
  }
  for (uint32_t i = 0; i < n; i++) {
    mixed_check m = {sch_path_target(&paths[i])->u.loop.loop_var, NULL};
    tsl_stmt_visitor v = {.block = block_mixes, .user_data = &m};
    if (tsl_stmt_visit(dp->stmts[bottom], &v))
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' feeds both spatial and reduction iterators of "
                      "block '%s' (it was fused from both kinds); reordering it "
                      "could run the reduction's init after its updates, so "
                      "only loops of one kind can be reordered",
                      m.var->name, m.block);
  }
  /* listed loops fill the listed positions, top to bottom, in list order */
  uint32_t span = bottom - top + 1;
  const tsl_stmt **chain = TSL_NEW_ARRAY(a, const tsl_stmt *, span);
  for (uint32_t k = 0; k < span; k++)
    chain[k] = dp->stmts[top + k];
  uint32_t next = 0;
  for (uint32_t k = 0; k < span; k++) {
    int listed = 0;
    for (uint32_t i = 0; i < n; i++)
      listed |= level[i] == top + k;
    if (listed)
      chain[k] = sch_path_target(&paths[next++]);
  }
  const tsl_stmt *body = dp->stmts[bottom]->u.loop.body;
  for (uint32_t k = span; k-- > 0;) {
    const tsl_stmt *l = chain[k];
    for (uint32_t j = k + 1; j < span; j++) {
      const tsl_var *iv = chain[j]->u.loop.loop_var;
      if (tsl_expr_uses_var(l->u.loop.min, iv) ||
          tsl_expr_uses_var(l->u.loop.extent, iv))
        return sch_fail(c, TSL_EINVALID,
                        "the range of loop '%s' depends on loop '%s', which "
                        "would be inside it in the new order",
                        loop_name(l), iv->name);
    }
    body = sch_with_child(a, l, 0, body);
  }
  sch_commit(c, dp->func, sch_path_rebuild(a, dp, top, body));
  return TSL_OK;
}
