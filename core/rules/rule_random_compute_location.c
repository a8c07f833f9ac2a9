/*
 * RandomComputeLocation, as TVM's rule: a block directly under the root
 * block, with loops whose outermost holds only this block, not tiled by
 * MultiLevelTiling and with a consumer, is moved to a sampled location
 * (sample_compute_location, then compute_at keeping unit loops; the
 * sample may also say "stay at root" or "inline"). A block annotated
 * meta_schedule.random_compute_producer has its single producer moved the
 * same way afterwards.
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct tsl_sch_rule {
  int32_t unused;
} rcl_rule;

static int rcl_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return rule_create_plain("RandomComputeLocation", n, opts, sizeof **out, (void **)out, diag);
}

static void rcl_destroy(tsl_sch_rule *r) { free(r); }

static int count_block(const tsl_stmt *s, void *ud) {
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  ++*(uint32_t *)ud;
  return TSL_VISIT_SKIP; /* blocks nested in it are not children */
}

/* TVM's CheckConditions. */
static int applies(tsl_schedule *sch, tsl_sch_rv block) {
  const tsl_stmt *outer;
  uint32_t n_loops;
  const tsl_stmt *scope = tsl_sch_block_scope(sch, block, &outer, 1, &n_loops);
  if (!scope || scope != tsl_schedule_func(sch)->body || !n_loops)
    return 0; /* the root, under another block, or no loop */
  uint32_t kids = 0;
  tsl_stmt_visitor v = {.stmt = count_block, .user_data = &kids};
  tsl_stmt_visit(outer->u.loop.body, &v);
  if (kids > 1 || rule_block_ann(sch, block, "meta_schedule.tiling_structure"))
    return 0;
  return tsl_sch_block_deps(sch, block, 0, NULL, 0) > 0;
}

static int compute_at_sampled(tsl_schedule *sch, tsl_sch_rv block, tsl_diag *diag) {
  tsl_sch_value a = tsl_sv_rv(block);
  tsl_sch_rv loc;
  int rc = rule_call(sch, "sample_compute_location", 1, &a, &loc, diag);
  if (rc)
    return rc;
  tsl_sch_value b[3] = {tsl_sv_rv(block), tsl_sv_rv(loc), tsl_sv_bool(1)};
  return rule_call(sch, "compute_at", 3, b, NULL, diag);
}

static int rcl_apply(tsl_sch_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                     tsl_schedule_list *out, tsl_diag *diag) {
  (void)r;
  int rc = TSL_OK;
  if (applies(sch, block)) {
    tsl_sch_rv *prods = NULL;
    uint32_t n_prods = 0;
    const tsl_attr_value *ann =
        rule_block_ann(sch, block, "meta_schedule.random_compute_producer");
    if (ann && !(ann->kind == TSL_ATTR_INT && ann->u.i == 0)) {
      prods = rule_query(sch, "get_producers", block, &n_prods);
      tsl_sch_value u[2] = {tsl_sv_rv(block),
                            tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch),
                                                  "meta_schedule.random_compute_producer"))};
      rc = rule_call(sch, "unannotate", 2, u, NULL, diag);
      if (!rc && n_prods != 1)
        rc = tsl_diag_set(diag, TSL_EINVALID,
                          "block '%s' is annotated meta_schedule.random_compute_producer "
                          "but has %u producers; the annotation needs exactly one",
                          tsl_schedule_rv_name(sch, block), n_prods);
    }
    if (!rc)
      rc = compute_at_sampled(sch, block, diag);
    if (!rc && n_prods == 1)
      rc = compute_at_sampled(sch, prods[0], diag);
    free(prods);
  }
  if (rc) {
    tsl_schedule_free(sch);
    return rc;
  }
  return tsl_schedule_list_push(out, sch);
}

const tsl_schedule_rule_vtable rule_random_compute_location_vt = {
    sizeof(tsl_schedule_rule_vtable), rcl_create, rcl_destroy, rcl_apply};
