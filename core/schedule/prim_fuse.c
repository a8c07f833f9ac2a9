/*
 * fuse: a chain of directly nested loops (outer to inner, each the only
 * child of the previous) becomes one loop over the product of their
 * extents; each old variable is recovered with floordiv/floormod.
 */
#include "loops_internal.h"

#include <string.h>

static int is_one(const tsl_expr *e) {
  int64_t v;
  return tsl_expr_is_const_int(e, &v) && v == 1;
}

int sch_apply_fuse(sch_call *c) {
  tsl_arena *a = c->arena;
  const tsl_sch_value *list = &c->args[0];
  uint32_t n = list->n;
  int preserve = (int)c->args[1].u.i;
  if (n == 0)
    return sch_fail(c, TSL_EINVALID, "needs at least one loop");
  const tsl_stmt **loops = TSL_NEW_ARRAY(a, const tsl_stmt *, n);
  sch_path *paths = sch_paths_new(c, n), *first = paths;
  for (uint32_t i = 0; i < n; i++) {
    sch_path *p = &paths[i];
    int rc = sch_loop_path(c, list->u.items[i].u.rv, p);
    if (rc)
      return rc;
    const tsl_stmt *l = sch_path_target(p);
    const char *name = l->u.loop.loop_var->name;
    for (uint32_t j = 0; j < i; j++)
      if (loops[j] == l)
        return sch_fail(c, TSL_EINVALID, "loop '%s' is given twice", name);
    if (l->u.loop.annotations.n || l->u.loop.for_kind == TSL_FOR_THREAD_BINDING)
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' has %s; only loops without annotations or "
                      "thread bindings can be fused",
                      name, l->u.loop.annotations.n ? "annotations"
                                                    : "a thread binding");
    if (i > 0) {
      const tsl_stmt *outer = loops[i - 1];
      const char *oname = outer->u.loop.loop_var->name;
      if (p->func != first->func || p->depth < 2 ||
          p->stmts[p->depth - 2] != outer) {
        uint32_t at = 0;
        for (uint32_t k = 0; k + 1 < p->depth && p->func == first->func; k++)
          if (p->stmts[k] == outer)
            at = k + 1;
        for (uint32_t k = at; at && k + 1 < p->depth; k++)
          if (p->stmts[k]->kind == TSL_STMT_BLOCK_REALIZE)
            return sch_fail(c, TSL_EINVALID,
                            "block '%s' lies between loop '%s' and loop '%s'; "
                            "fuse needs loops of one block scope",
                            p->stmts[k]->u.realize.block->name, oname, name);
        if (!at)
          return sch_fail(c, TSL_EINVALID,
                          "loop '%s' is not inside loop '%s'; fuse takes "
                          "consecutive loops, outer to inner",
                          name, oname);
        if (outer->u.loop.body->kind == TSL_STMT_FOR)
          return sch_fail(c, TSL_EINVALID,
                          "loop '%s' is not directly inside loop '%s' (loop "
                          "'%s' is in between); fuse takes consecutive loops, "
                          "outer to inner",
                          name, oname,
                          outer->u.loop.body->u.loop.loop_var->name);
        return sch_fail(c, TSL_EINVALID,
                        "loop '%s' is not the only child of loop '%s'; fuse "
                        "needs a chain of loops, each the only statement in "
                        "the previous one",
                        name, oname);
      }
      for (uint32_t j = 0; j < i; j++)
        if (tsl_expr_uses_var(l->u.loop.extent, loops[j]->u.loop.loop_var))
          return sch_fail(c, TSL_EINVALID,
                          "the extent of loop '%s' depends on loop '%s'; "
                          "such loops cannot be fused",
                          name, loops[j]->u.loop.loop_var->name);
    }
    int64_t v;
    if (!tsl_expr_is_const_int(sch_simplify(c, l->u.loop.min), &v) || v != 0)
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' does not start at 0; only loops starting at "
                      "0 can be fused",
                      name);
    loops[i] = l;
  }
  /* the fused variable: names joined, widest integer type */
  char name[512];
  size_t len = strlen(sch_name_join(name, sizeof name, loops[0]->u.loop.loop_var->name, NULL, -1));
  tsl_dtype dt = loops[0]->u.loop.loop_var->dtype;
  for (uint32_t i = 1; i < n; i++) {
    len += strlen(sch_name_join(name + len, sizeof name - len, "_",
                                loops[i]->u.loop.loop_var->name, -1));
    if (loops[i]->u.loop.loop_var->dtype.bits > dt.bits)
      dt = loops[i]->u.loop.loop_var->dtype;
  }
  sch_name_join(name + len, sizeof name - len, "_fused", NULL, -1);
  const tsl_var *fv = sch_new_var(c, name, dt);
  const tsl_expr *fe = tsl_expr_var(fv);
  const tsl_expr **exts = TSL_NEW_ARRAY(a, const tsl_expr *, n);
  const tsl_expr *extent = tsl_expr_int(a, dt, 1);
  for (uint32_t i = 0; i < n; i++) {
    exts[i] = loops[i]->u.loop.extent;
    if (!tsl_dtype_eq(exts[i]->dtype, dt))
      exts[i] = tsl_expr_cast(a, dt, exts[i]);
    extent = tsl_expr_binary(a, TSL_EXPR_MUL, extent, exts[i]);
  }
  extent = sch_simplify(c, extent);
  tsl_analyzer_bind_bounds(c->sch->an, fv, tsl_expr_int(a, dt, 0), extent);
  /* old variable i = floordiv(floormod(f, lower * ext_i), lower) */
  tsl_map vars;
  tsl_map_init(&vars, a);
  const tsl_expr *lower = NULL; /* NULL: 1 */
  for (uint32_t i = n; i-- > 0;) {
    const tsl_expr *ext = exts[i];
    const tsl_var *from = loops[i]->u.loop.loop_var;
    if (is_one(sch_simplify(c, ext))) {
      tsl_map_put(&vars, from, (void *)tsl_expr_int(a, from->dtype, 0));
      continue;
    }
    const tsl_expr *upper =
        lower ? tsl_expr_binary(a, TSL_EXPR_MUL, lower, ext) : ext;
    const tsl_expr *x = fe;
    if (i > 0)
      x = tsl_expr_binary(a, TSL_EXPR_FLOORMOD, x, upper);
    if (lower)
      x = tsl_expr_binary(a, TSL_EXPR_FLOORDIV, x, lower);
    x = sch_simplify(c, x);
    if (!tsl_dtype_eq(x->dtype, from->dtype))
      x = tsl_expr_cast(a, from->dtype, x);
    tsl_map_put(&vars, from, (void *)x);
    lower = upper;
  }
  const tsl_stmt *body = tsl_stmt_substitute_map(a, loops[n - 1]->u.loop.body, &vars);
  body = tsl_stmt_for(a, fv, tsl_expr_int(a, dt, 0), extent, TSL_FOR_SERIAL,
                      NULL, (tsl_attrs){0, NULL}, body);
  body = loops_simplify_bindings(c, first, first->depth - 1, body, preserve);
  tsl_analyzer_unbind(c->sch->an, fv);
  sch_commit(c, first->func, sch_path_rebuild(a, first, first->depth - 1, body));
  sch_out_loop(c, first->func->name, fv);
  return TSL_OK;
}
