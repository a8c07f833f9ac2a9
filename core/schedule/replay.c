/*
 * Replaying a trace on a module: each instruction is applied again with
 * its arguments' handles renumbered (and the sampled values' variables in
 * its lambdas with them), using the recorded decisions or fresh ones.
 */
#include "sch_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct rv_map {
  tsl_schedule *sch;
  const uint32_t *map;
  uint32_t n_map;
} rv_map;

/* A recorded lambda's variable `v<N>` -> the new schedule's variable of
 * the handle that N became. */
static const tsl_expr *map_var(const tsl_var *v, void *ud) {
  const rv_map *m = ud;
  tsl_sch_rv rv;
  if (!sch_rv_var_number(v, &rv) || rv >= m->n_map || m->map[rv] == UINT32_MAX)
    return NULL;
  const tsl_var *nv = tsl_schedule_rv_var(m->sch, m->map[rv]);
  return nv ? nv->ref : NULL;
}

static int map_value(const rv_map *m, const tsl_sch_value *v, tsl_sch_value *out) {
  tsl_arena *a = m->sch->arena;
  const uint32_t *map = m->map;
  uint32_t n_map = m->n_map;
  *out = *v;
  if (v->kind == TSL_SV_LAMBDA) {
    const tsl_var *bad;
    return sch_value_subst_rv_vars(a, v, map_var, (void *)m, out, &bad) == TSL_OK;
  } else if (v->kind == TSL_SV_RV) {
    if (v->u.rv >= n_map || map[v->u.rv] == UINT32_MAX)
      return 0;
    out->u.rv = map[v->u.rv];
  } else if (sch_value_has_items(v)) {
    tsl_sch_value *items = TSL_NEW_ARRAY(a, tsl_sch_value, v->n + 1);
    for (uint32_t i = 0; i < v->n; i++)
      if (!map_value(m, &v->u.items[i], &items[i]))
        return 0;
    out->u.items = items;
  }
  return 1;
}

int tsl_trace_replay(tsl_ctx *ctx, const tsl_trace *trace,
                     const tsl_module *mod, const tsl_replay_opts *opts,
                     tsl_schedule **out, tsl_diag *diag) {
  tsl_schedule_opts so = {sizeof so, opts ? opts->func_name : NULL,
                          opts ? opts->seed : 0, opts ? opts->intrins : NULL};
  tsl_schedule *sch;
  int rc = tsl_schedule_new(ctx, mod, &so, &sch, diag);
  if (rc)
    return rc;
  int fresh = opts && opts->fresh_decisions;
  uint32_t n_map = trace->rv_kinds.len;
  uint32_t *map = malloc(sizeof *map * (n_map + 1));
  if (!map) {
    tsl_schedule_free(sch);
    return tsl_diag_set(diag, TSL_ENOMEM, "replay: out of memory");
  }
  memset(map, 0xff, sizeof *map * (n_map + 1));
  rv_map m = {sch, map, n_map};
  for (uint32_t i = 0; i < trace->insts.len && rc == TSL_OK; i++) {
    const tsl_trace_inst *in = sch_trace_inst(trace, i);
    const tsl_sch_inst_kind *k = in->kind;
    tsl_sch_value *bound = TSL_NEW_ARRAY(sch->arena, tsl_sch_value, k->n_params + 1);
    for (uint32_t p = 0; p < k->n_params; p++)
      if (!map_value(&m, &in->args[p], &bound[p])) {
        rc = tsl_diag_set(diag, TSL_EINVALID,
                          "instruction %u (%s): argument '%s' uses a handle "
                          "no earlier instruction produced",
                          i, k->name, k->params[p].name);
        break;
      }
    if (rc)
      break;
    const tsl_sch_rv *outs;
    uint32_t n_outs;
    rc = sch_invoke(sch, (const sch_inst *)k, bound,
                    fresh || !k->is_sample ? NULL : &in->decision, &outs,
                    &n_outs, diag);
    if (rc) {
      sch_diag_prefix(diag, "instruction %u (%s): ", i, k->name);
      break;
    }
    if (n_outs != in->n_outs) {
      rc = tsl_diag_set(diag, TSL_EINVALID,
                        "instruction %u (%s) returned %u handles on replay but "
                        "%u when recorded",
                        i, k->name, n_outs, in->n_outs);
      break;
    }
    for (uint32_t j = 0; j < n_outs; j++)
      if (in->outs[j] < n_map)
        map[in->outs[j]] = outs[j];
  }
  free(map);
  if (rc) {
    tsl_schedule_free(sch);
    return rc;
  }
  *out = sch;
  return TSL_OK;
}
