/*
 * parallel, vectorize, unroll, bind: change a loop's kind (and thread
 * tag). parallel/vectorize/bind first run TVM's checks
 * (sch_check_parallelizable: compact data flow under the loop, and the
 * loop feeds only spatial block iterators, or reduce iterators when bound
 * to threadIdx.x/y/z).
 */
#include "loops_internal.h"

static int set_kind(sch_call *c, tsl_for_kind kind, tsl_str tag) {
  sch_path p;
  int rc = sch_loop_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_stmt *loop = sch_path_target(&p);
  const char *name = loop->u.loop.loop_var->name;
  if (kind != TSL_FOR_UNROLLED && (rc = sch_check_parallelizable(c, &p, kind, tag)))
    return rc;
  if (kind == TSL_FOR_VECTORIZED) {
    int64_t ext;
    if (!tsl_expr_is_const_int(sch_simplify(c, loop->u.loop.extent), &ext))
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' has a non-constant extent; only loops with a "
                      "constant extent can be vectorized",
                      name);
  }
  const tsl_stmt *nl = tsl_stmt_for(
      c->arena, loop->u.loop.loop_var, loop->u.loop.min, loop->u.loop.extent,
      kind, tag, loop->u.loop.annotations, loop->u.loop.body);
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, p.depth - 1, nl));
  return TSL_OK;
}

int sch_apply_parallel(sch_call *c) {
  return set_kind(c, TSL_FOR_PARALLEL, NULL);
}

int sch_apply_vectorize(sch_call *c) {
  return set_kind(c, TSL_FOR_VECTORIZED, NULL);
}

int sch_apply_unroll(sch_call *c) { return set_kind(c, TSL_FOR_UNROLLED, NULL); }

int sch_apply_bind(sch_call *c) {
  tsl_str tag = c->args[1].u.s;
  if (loops_thread_rank(tag) < 0)
    return sch_fail(c, TSL_EINVALID,
                    "unknown thread axis '%s'; valid: blockIdx.x/y/z, "
                    "threadIdx.x/y/z, vthread, vthread.x/y/z",
                    tag);
  return set_kind(c, TSL_FOR_THREAD_BINDING, tag);
}
