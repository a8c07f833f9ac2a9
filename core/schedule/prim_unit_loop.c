/*
 * add_unit_loop: a serial loop `u` of extent 1 around a loop or a block
 * (TVM's AddUnitLoop; the root block has nothing around it to hold one).
 */
#include "sch_internal.h"

int sch_apply_add_unit_loop(sch_call *c) {
  tsl_sch_rv rv = c->args[0].u.rv;
  sch_path p;
  int rc = c->sch->rvs[rv].kind == TSL_RV_LOOP ? sch_loop_path(c, rv, &p)
                                                : sch_block_path(c, rv, &p);
  if (rc)
    return rc;
  if (p.depth == 1)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' is the root block of '%s'; a loop cannot be "
                    "added above it",
                    sch_path_block(&p)->name, p.func->name);
  const tsl_var *u = sch_new_var(c, "u", TSL_INT32);
  const tsl_stmt *loop =
      tsl_stmt_for(c->arena, u, tsl_expr_i32(c->arena, 0), tsl_expr_i32(c->arena, 1),
                   TSL_FOR_SERIAL, NULL, (tsl_attrs){0, NULL}, sch_path_target(&p));
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, p.depth - 1, loop));
  sch_out_loop(c, p.func->name, u);
  return TSL_OK;
}
