/*
 * AddRFactor, as TVM's rule: a reduction block with too little spatial
 * parallelism for its reduction (TVM's NeedsRFactorOrCrossThreadReduction)
 * gets its reduction loops moved innermost and fused, the fused loop split
 * in two by sample_perfect_tile, and one sketch per split loop factored
 * out with rfactor (the original block annotated
 * meta_schedule.random_compute_producer, so that RandomComputeLocation
 * places the rfactor block), plus the schedule as it was.
 */
#include "rules_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct tsl_sch_rule {
  int64_t max_jobs_per_core;
  int64_t max_innermost_factor;
  int64_t max_parallel_extent, max_parallel_basic;
} rf_rule;

static const rule_opt rf_opts[] = {
    {"max_jobs_per_core", RULE_OPT_INT, offsetof(rf_rule, max_jobs_per_core)},
    {"max_innermost_factor", RULE_OPT_INT, offsetof(rf_rule, max_innermost_factor)},
};

/* Defaults: TVM's llvm list (16, 64). */
static int rf_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                     tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  rf_rule r = {16, 64, 0, 0};
  int rc = rule_parse_opts("AddRFactor", rf_opts, sizeof rf_opts / sizeof rf_opts[0], n, opts,
                           &r, diag);
  if (rc)
    return rc;
  if (!t || t->num_cores <= 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "AddRFactor: the target names no core count (threads or num_cores)");
  r.max_parallel_extent = r.max_jobs_per_core * t->num_cores;
  r.max_parallel_basic = t->num_cores;
  *out = malloc(sizeof r);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "AddRFactor: out of memory");
  **out = r;
  return TSL_OK;
}

static void rf_destroy(tsl_sch_rule *r) { free(r); }

enum { MAX_LOOPS = 64 };

/* The block's loops as handles, recorded (TVM calls sch->GetLoops). */
static int get_loops(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv *loops, uint32_t *n,
                     tsl_diag *diag) {
  tsl_sch_arg a = {NULL, tsl_sv_rv(block)};
  const tsl_sch_rv *outs;
  int rc = tsl_sch_call(sch, "get_loops", 1, &a, &outs, n, diag);
  if (rc)
    return rc;
  if (*n > MAX_LOOPS)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "AddRFactor: more than %d loops", MAX_LOOPS);
  memcpy(loops, outs, sizeof *loops * *n);
  return TSL_OK;
}

/* TVM's NeedsRFactorOrCrossThreadReduction, without recording anything. */
static int needs_rfactor(const rf_rule *r, tsl_schedule *sch, tsl_sch_rv block) {
  int64_t space, reduce;
  if (!rule_reduction_extents(sch, block, &space, &reduce))
    return 0;
  if (tsl_sch_needs_multi_level_tiling(sch, block))
    return !(space >= reduce || space > r->max_parallel_extent);
  return reduce > 1 && reduce > r->max_parallel_basic;
}

/* TVM's ReorderAndFuseReductionLoops: spatial loops first, the reduction
 * loops fused. */
static int reorder_and_fuse(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv *fused,
                            uint32_t *n_spatial, tsl_diag *diag) {
  tsl_sch_rv loops[MAX_LOOPS];
  uint32_t nl;
  int rc = get_loops(sch, block, loops, &nl, diag);
  if (rc)
    return rc;
  tsl_sch_arg order[MAX_LOOPS], red[MAX_LOOPS];
  uint32_t no = 0, nr = 0;
  int types[MAX_LOOPS];
  for (uint32_t i = 0; i < nl; i++)
    types[i] = tsl_sch_loop_iter_type(sch, loops[i]);
  for (uint32_t i = 0; i < nl; i++)
    if (types[i] == TSL_ITER_SPATIAL)
      order[no++] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[i])};
  *n_spatial = no;
  for (uint32_t i = 0; i < nl; i++)
    if (types[i] == TSL_ITER_REDUCE) {
      order[no++] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[i])};
      red[nr++] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[i])};
    }
  if (no != nl || !nr)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "AddRFactor: the loops of block '%s' are not all spatial or reduction",
                        tsl_schedule_rv_name(sch, block));
  for (uint32_t i = 0; i < nl; i++)
    if (order[i].value.u.rv != loops[i]) {
      if ((rc = tsl_sch_call(sch, "reorder", no, order, NULL, NULL, diag)))
        return rc;
      break;
    }
  if (nr == 1) {
    *fused = red[0].value.u.rv;
    return TSL_OK;
  }
  const tsl_sch_rv *outs;
  uint32_t n;
  if ((rc = tsl_sch_call(sch, "fuse", nr, red, &outs, &n, diag)))
    return rc;
  *fused = outs[0];
  return TSL_OK;
}

static int rf_apply(tsl_sch_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                    tsl_schedule_list *out, tsl_diag *diag) {
  if (tsl_sch_is_root_block(sch, block) || !needs_rfactor(r, sch, block))
    return tsl_schedule_list_push(out, sch);
  tsl_schedule *orig = NULL;
  int rc = tsl_schedule_fork(sch, &orig, diag);
  tsl_sch_rv fused = 0, parts[2];
  uint32_t n_spatial = 0, n = 0;
  if (!rc)
    rc = reorder_and_fuse(sch, block, &fused, &n_spatial, diag);
  if (!rc) {
    tsl_sch_arg sa[3] = {{"loop", tsl_sv_rv(fused)},
                         {"n", tsl_sv_int(2)},
                         {"max_innermost_factor", tsl_sv_int(r->max_innermost_factor)}};
    const tsl_sch_rv *outs;
    rc = tsl_sch_call(sch, "sample_perfect_tile", 3, sa, &outs, &n, diag);
    tsl_sch_value f[2] = {tsl_sv_rv(n == 2 ? outs[0] : 0), tsl_sv_rv(n == 2 ? outs[1] : 0)};
    tsl_sch_arg sp[2] = {{"loop", tsl_sv_rv(fused)}, {"factors", tsl_sv_list(2, f)}};
    if (!rc)
      rc = tsl_sch_call(sch, "split", 2, sp, &outs, &n, diag);
    if (!rc)
      memcpy(parts, outs, sizeof parts);
  }
  for (uint32_t i = 0; i < 2 && !rc; i++) {
    tsl_schedule *tmp;
    if ((rc = tsl_schedule_fork(sch, &tmp, diag)))
      break;
    tsl_sch_arg ra[2] = {{"loop", tsl_sv_rv(parts[i])}, {"factor_axis", tsl_sv_int(n_spatial)}};
    const tsl_sch_rv *outs;
    uint32_t k;
    tsl_diag ignored;
    if (tsl_sch_call(tmp, "rfactor", 2, ra, &outs, &k, &ignored)) {
      tsl_schedule_free(tmp); /* TVM drops a split loop rfactor refuses */
      continue;
    }
    tsl_sch_rv rf_block = outs[0], loops[MAX_LOOPS];
    uint32_t nl;
    tsl_sch_arg aa[3] = {{NULL, tsl_sv_rv(block)},
                         {NULL, tsl_sv_str(tsl_intern(tsl_schedule_ctx(tmp),
                                                      "meta_schedule.random_compute_producer"))},
                         {NULL, tsl_sv_int(1)}};
    rc = get_loops(tmp, rf_block, loops, &nl, diag);
    if (!rc)
      rc = tsl_sch_call(tmp, "annotate", 3, aa, NULL, NULL, diag);
    if (rc)
      tsl_schedule_free(tmp);
    else
      tsl_schedule_list_push(out, tmp);
  }
  tsl_schedule_free(sch);
  if (rc) {
    tsl_schedule_free(orig);
    return rc;
  }
  return tsl_schedule_list_push(out, orig);
}

const tsl_schedule_rule_vtable rule_add_rfactor_vt = {
    sizeof(tsl_schedule_rule_vtable), rf_create, rf_destroy, rf_apply};
