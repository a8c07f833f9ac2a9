/*
 * core/tune/reference.c — the program a run's compiled reference is built
 * from: the unscheduled function with, in every loop nest whose innermost
 * loop is a reduction, the last spatial loop moved innermost (for a matmul
 * i, j, k becomes i, k, j) when that loop indexes only the last dimension
 * of what the block reads and writes. Each output element still adds its
 * terms in the same order, so the outputs are the same, but the innermost
 * loop now walks contiguous elements that LLVM vectorizes (docs/decisions.md,
 * "The reference's loop order"). A nest the reorder primitive refuses
 * stays as written.
 *
 * On a target whose default postprocessors bind unbound blocks to GPU
 * threads (RewriteUnboundBlock: cuda), a program as written cannot run, so
 * the reference is the unscheduled function with that postprocessor alone
 * applied: every outermost block's spatial loops fused and bound to
 * blockIdx.x / threadIdx.x, reductions serial in each thread. The reorder
 * is skipped there: a reduction loop between spatial ones would keep them
 * out of the binding.
 */
#include "tuner_internal.h"

#include "tessel/rules.h"
#include "tessel/visit.h"

#include <string.h>

enum { REF_MAX_LOOPS = 64 };

/* Every load and store of the block that indexes by `v` does so in its
 * last index only: moved innermost, `v` walks contiguous elements (for a
 * matmul's j: C[i, j] and B[k, j]; not a gemv's i, which strides A[i, k]). */
typedef struct contiguous {
  const tsl_var *v;
  int ok;
} contiguous;

static void check_indices(contiguous *c, uint32_t n, const tsl_expr *const *idx) {
  for (uint32_t i = 0; i + 1 < n; i++)
    if (tsl_expr_uses_var(idx[i], c->v))
      c->ok = 0;
}

static int check_load(const tsl_expr *e, void *user_data) {
  if (e->kind == TSL_EXPR_LOAD)
    check_indices(user_data, e->n_args, e->args);
  return 0;
}

static int check_stmt(const tsl_stmt *s, void *user_data) {
  if (s->kind == TSL_STMT_STORE)
    check_indices(user_data, s->u.store.n_indices, s->u.store.indices);
  return 0;
}

static int check_expr(const tsl_expr *e, const tsl_stmt *owner, void *user_data) {
  (void)owner;
  return tsl_expr_visit(e, check_load, user_data);
}

static int walks_contiguous(const tsl_stmt *realize, const tsl_var *loop_var) {
  const tsl_block *b = realize->u.realize.block;
  contiguous c = {NULL, 1};
  for (uint32_t i = 0; i < b->n_iter_vars && i < realize->u.realize.n_iter_values; i++) {
    const tsl_expr *bound = realize->u.realize.iter_values[i];
    if (bound->kind == TSL_EXPR_VAR && bound->u.var == loop_var)
      c.v = b->iter_vars[i].var;
  }
  if (!c.v) /* not a trivial binding */
    return 0;
  tsl_stmt_visitor v = {check_stmt, NULL, check_expr, NULL, &c};
  if (b->init)
    tsl_stmt_visit(b->init, &v);
  tsl_stmt_visit(b->body, &v);
  return c.ok;
}

/* The block's last spatial loop moved innermost when its innermost loop is
 * a reduction, every loop is spatial or reduction, and that loop walks
 * contiguous elements; else nothing. */
static void spatial_innermost(tsl_schedule *sch, const char *name) {
  tsl_diag d = {0};
  tsl_sch_rv block;
  const tsl_sch_rv *loops = NULL;
  uint32_t n = 0;
  if (tsl_sch_get_block(sch, name, &block, &d) || tsl_sch_get_loops(sch, block, &loops, &n, &d) ||
      n < 2 || n > REF_MAX_LOOPS || tsl_sch_loop_iter_type(sch, loops[n - 1]) != TSL_ITER_REDUCE)
    return;
  int last_spatial = -1;
  for (uint32_t i = 0; i < n; i++) {
    int type = tsl_sch_loop_iter_type(sch, loops[i]);
    if (type != TSL_ITER_SPATIAL && type != TSL_ITER_REDUCE)
      return;
    if (type == TSL_ITER_SPATIAL)
      last_spatial = (int)i;
  }
  const tsl_stmt *realize = tsl_schedule_get_stmt(sch, block);
  const tsl_stmt *loop = last_spatial < 0 ? NULL : tsl_schedule_get_stmt(sch, loops[last_spatial]);
  if (!realize || !loop || !walks_contiguous(realize, loop->u.loop.loop_var))
    return;
  tsl_sch_arg order[REF_MAX_LOOPS];
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if ((int)i != last_spatial)
      order[k++] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[i])};
  order[k++] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[last_spatial])};
  tsl_sch_call(sch, "reorder", k, order, NULL, NULL, &d); /* refused: unchanged */
}

/* Each block of the function as written (the schedule rewrites its own
 * copy, so the walk is not disturbed). */
static int reorder_block(const tsl_block *b, const tsl_stmt *realize, void *user_data) {
  (void)realize;
  if (b->name && *b->name)
    spatial_innermost(user_data, b->name);
  return 0;
}

/* The target's RewriteUnboundBlock among its default postprocessors,
 * applied alone; 1 when the target has none (nothing to bind), no default
 * space, or `reg` is NULL. */
static int bind_unbound(const tsl_registry *reg, const tsl_rule_target *target,
                        tsl_schedule *sch, tsl_diag *diag) {
  tsl_space_postproc *pps = NULL;
  uint32_t n = 0;
  if (!reg || !target)
    return 1;
  int drc = tsl_space_default_postprocs(reg, target, &pps, &n, diag);
  if (drc)
    return drc == TSL_EUNSUPPORTED ? 1 : drc;
  int rc = 1;
  for (uint32_t i = 0; i < n && rc == 1; i++)
    if (pps[i].name && !strcmp(pps[i].name, "RewriteUnboundBlock"))
      rc = tsl_space_apply_postprocs(sch, 1, &pps[i], diag);
  tsl_space_postprocs_free(pps, n);
  return rc;
}

int tsl_tune_reference_schedule(tsl_ctx *ctx, const tsl_module *mod, const char *func_name,
                                const tsl_func *func, const tsl_registry *reg,
                                const tsl_rule_target *target, tsl_schedule **out,
                                tsl_diag *diag) {
  *out = NULL;
  tsl_schedule_opts o = {sizeof o, func_name, 0, NULL};
  tsl_schedule *sch = NULL;
  int rc = tsl_schedule_new(ctx, mod, &o, &sch, diag);
  if (rc)
    return rc;
  rc = bind_unbound(reg, target, sch, diag);
  if (rc == 1) {
    tsl_stmt_visitor v = {NULL, reorder_block, NULL, NULL, sch};
    tsl_stmt_visit(func->body, &v);
  } else if (rc) {
    tsl_schedule_free(sch);
    return rc;
  }
  *out = sch;
  return TSL_OK;
}
