/*
 * split: one loop becomes a nest of loops whose extents are the factors
 * (one None factor inferred as a ceiling division). The old loop variable
 * is replaced by the mixed-radix combination of the new ones; when the
 * factors overshoot the extent, the blocks directly under the loop get a
 * T.where predicate (unless disable_predication).
 */
#include "loops_internal.h"

#define SPLIT_MAX_FACTORS 64

/* Conjoin `pred` (user_data) to the predicate of every block realize
 * directly under a statement (not inside other blocks). */
static const tsl_stmt *append_pred(tsl_mutator *m, const tsl_stmt *s) {
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return tsl_mutate_stmt_children(m, s);
  const tsl_expr *old = s->u.realize.predicate, *pred = m->user_data;
  int is_true = old->kind == TSL_EXPR_INT_IMM && tsl_dtype_is_bool(old->dtype) &&
                old->u.int_value != 0;
  return tsl_stmt_block_realize(
      m->arena, s->u.realize.n_iter_values, s->u.realize.iter_values,
      is_true ? pred : tsl_expr_binary(m->arena, TSL_EXPR_AND, old, pred),
      s->u.realize.block);
}

/* Read the factors: fills f[] (-1 for the inferred one) and *infer. */
static int read_factors(sch_call *c, const char *lname, int64_t *f,
                        uint32_t *n, int *infer) {
  const tsl_sch_value *list = &c->args[1];
  *n = list->n;
  *infer = -1;
  if (*n > SPLIT_MAX_FACTORS)
    return sch_fail(c, TSL_EINVALID, "%u factors; at most %d are supported",
                    *n, SPLIT_MAX_FACTORS);
  for (uint32_t i = 0; i < *n; i++) {
    const tsl_sch_value *v = &list->u.items[i];
    int64_t x;
    if (v->kind == TSL_SV_NONE)
      x = -1;
    else if (v->kind == TSL_SV_RV)
      x = tsl_schedule_rv_value(c->sch, v->u.rv);
    else
      x = v->u.i;
    if (x == -1 && v->kind != TSL_SV_RV) {
      if (*infer >= 0)
        return sch_fail(c, TSL_EINVALID,
                        "the factors at positions %d and %u are both None (or "
                        "-1); at most one factor of loop '%s' can be inferred",
                        *infer, i, lname);
      *infer = (int)i;
    } else if (x <= 0) {
      return sch_fail(c, TSL_EINVALID,
                      "the factor at position %u of loop '%s' is %lld; "
                      "factors must be positive (one may be None to infer it)",
                      i, lname, (long long)x);
    }
    f[i] = x;
  }
  return TSL_OK;
}

int sch_apply_split(sch_call *c) {
  sch_path p;
  int rc = sch_loop_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  tsl_arena *a = c->arena;
  const tsl_stmt *loop = sch_path_target(&p);
  const tsl_var *lv = loop->u.loop.loop_var;
  const char *lname = lv->name;
  int preserve = (int)c->args[2].u.i, no_pred = (int)c->args[3].u.i;
  if (loop->u.loop.annotations.n || loop->u.loop.for_kind == TSL_FOR_THREAD_BINDING)
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' has %s; only loops without annotations or "
                    "thread bindings can be split",
                    lname, loop->u.loop.annotations.n ? "annotations"
                                                      : "a thread binding");
  int64_t v;
  if (!tsl_expr_is_const_int(sch_simplify(c, loop->u.loop.min), &v) || v != 0)
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' does not start at 0; only loops starting at 0 "
                    "can be split",
                    lname);
  int64_t f[SPLIT_MAX_FACTORS];
  uint32_t n;
  int infer;
  if ((rc = read_factors(c, lname, f, &n, &infer)))
    return rc;
  int64_t prod = 1;
  for (uint32_t i = 0; i < n; i++)
    if ((int)i != infer) {
      if (f[i] > (INT64_C(1) << 40) || prod > (INT64_C(1) << 40))
        return sch_fail(c, TSL_EINVALID, "the factors of loop '%s' are too large",
                        lname);
      prod *= f[i];
    }
  tsl_dtype dt = lv->dtype;
  const tsl_expr *extent = sch_simplify(c, loop->u.loop.extent);
  int64_t ext = 0;
  int const_ext = tsl_expr_is_const_int(extent, &ext);
  const tsl_expr **fx = TSL_NEW_ARRAY(a, const tsl_expr *, n);
  for (uint32_t i = 0; i < n; i++)
    fx[i] = (int)i == infer ? NULL : tsl_expr_int(a, dt, f[i]);
  if (infer >= 0) {
    if (const_ext) {
      fx[infer] = tsl_expr_int(a, dt, ext <= 0 ? 0 : (ext + prod - 1) / prod);
    } else {
      const tsl_expr *num = tsl_expr_binary(a, TSL_EXPR_ADD, extent,
                                            tsl_expr_int(a, dt, prod - 1));
      fx[infer] = sch_simplify(
          c, tsl_expr_binary(a, TSL_EXPR_FLOORDIV, num, tsl_expr_int(a, dt, prod)));
    }
  } else if (const_ext && prod < ext) {
    return sch_fail(c, TSL_EINVALID,
                    "the factors multiply to %lld, less than the extent %lld of "
                    "loop '%s'; their product must be at least the extent (or "
                    "make one factor None)",
                    (long long)prod, (long long)ext, lname);
  } else if (!const_ext &&
             !tsl_analyzer_can_prove(
                 c->sch->an, tsl_expr_binary(a, TSL_EXPR_GE,
                                             tsl_expr_int(a, dt, prod), extent))) {
    return sch_fail(c, TSL_EINVALID,
                    "cannot prove that the factors (product %lld) cover the "
                    "symbolic extent of loop '%s'; make one factor None",
                    (long long)prod, lname);
  }
  /* new loop variables and the value that replaces the old one */
  const tsl_var **nv = TSL_NEW_ARRAY(a, const tsl_var *, n);
  const tsl_expr *sub = NULL;
  for (uint32_t i = 0; i < n; i++) {
    char name[256];
    sch_name_join(name, sizeof name, lname, "_", i);
    nv[i] = sch_new_var(c, name, dt);
    tsl_analyzer_bind(c->sch->an, nv[i], tsl_expr_int(a, dt, 0), fx[i]);
    if (sub) {
      int64_t one;
      if (!tsl_expr_is_const_int(fx[i], &one) || one != 1)
        sub = tsl_expr_binary(a, TSL_EXPR_MUL, sub, fx[i]);
      sub = tsl_expr_binary(a, TSL_EXPR_ADD, sub, tsl_expr_var(nv[i]));
    } else {
      sub = tsl_expr_var(nv[i]);
    }
  }
  tsl_map vars;
  tsl_map_init(&vars, a);
  tsl_map_put(&vars, lv, (void *)sub);
  const tsl_stmt *body = tsl_stmt_substitute_map(a, loop->u.loop.body, &vars);
  const tsl_expr *pred = tsl_expr_binary(a, TSL_EXPR_LT, sub, loop->u.loop.extent);
  /* constant factors and extent: the new loops stay below the extent exactly
   * when the factors multiply to at most it */
  int64_t all = 1, fv;
  for (uint32_t i = 0; i < n && all > 0; i++)
    all = tsl_expr_is_const_int(fx[i], &fv) && fv > 0 &&
                  !__builtin_mul_overflow(all, fv, &all)
              ? all
              : -1;
  int inside = no_pred || (const_ext && all > 0
                               ? all <= ext
                               : tsl_analyzer_can_prove_bound(c->sch->an, pred));
  if (!inside) {
    tsl_mutator m = tsl_mutator_make(a);
    m.stmt = append_pred;
    m.expr = tsl_mutate_expr_keep;
    m.user_data = (void *)pred;
    body = tsl_mutate_stmt(&m, body);
  }
  for (uint32_t i = n; i-- > 0;)
    body = tsl_stmt_for(a, nv[i], tsl_expr_int(a, dt, 0), fx[i], TSL_FOR_SERIAL,
                        NULL, (tsl_attrs){0, NULL}, body);
  body = loops_simplify_bindings(c, &p, p.depth - 1, body, preserve);
  for (uint32_t i = 0; i < n; i++)
    tsl_analyzer_unbind(c->sch->an, nv[i]);
  sch_commit(c, p.func, sch_path_rebuild(a, &p, p.depth - 1, body));
  for (uint32_t i = 0; i < n; i++)
    sch_out_loop(c, p.func->name, nv[i]);
  return TSL_OK;
}
