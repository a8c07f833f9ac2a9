/*
 * The utility methods of TVM's tir.Schedule that a schedule script can use:
 * work_on, seed, fork_seed, get, remove_rv, show and copy. None is recorded
 * in the trace (TVM does not trace them either): get_block records the
 * function it looked in, and a replay takes its seed from its options.
 */
#include "sch_internal.h"

#include <string.h>

int sch_apply_work_on(sch_call *c) {
  tsl_schedule *sch = c->sch;
  tsl_str name = c->args[0].u.s;
  if (!sch_func(sch, name)) {
    sch_fail(c, TSL_ENOTFOUND, "the module has no function '%s'; functions:",
             name);
    for (uint32_t i = 0; i < sch->mod->n_funcs; i++)
      tsl_diag_append(c->diag, "%s %s", i ? "," : "", sch->mod->funcs[i]->name);
    return TSL_ENOTFOUND;
  }
  sch->func_name = name;
  return TSL_OK;
}

int sch_apply_seed(sch_call *c) {
  int64_t seed = c->args[0].u.i;
  if (seed < -1)
    return sch_fail(c, TSL_EINVALID,
                    "seed %lld is invalid; give a non-negative seed, or -1 for "
                    "one drawn from the current generator",
                    (long long)seed);
  sch_rng_seed(c->sch, seed == -1 ? sch_rand_u64(c->sch) : (uint64_t)seed);
  return TSL_OK;
}

int sch_apply_fork_seed(sch_call *c) {
  sch_out_int(c, (int64_t)(sch_rand_u64(c->sch) >> 33));
  return TSL_OK;
}

int sch_apply_get(sch_call *c) {
  tsl_sch_rv rv = c->args[0].u.rv;
  const sch_rv *r = &c->sch->rvs[rv];
  if (r->kind != TSL_RV_EXPR)
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "%s: get of a block or loop handle returns the IR node, "
                    "which a script cannot hold; use the handle itself",
                    sch_rv_describe(c->sch, rv));
  sch_out_int(c, r->u.value);
  return TSL_OK;
}

int sch_apply_remove_rv(sch_call *c) {
  c->sch->rvs[c->args[0].u.rv].kind = 0;
  return TSL_OK;
}

int sch_apply_show(sch_call *c) {
  (void)c; /* TVM prints the module and trace; tessel schedule --print does */
  return TSL_OK;
}

int sch_apply_copy(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED,
                  "a schedule script works on one schedule, `sch`; a copy "
                  "would be a second one (replay the trace for another)");
}
