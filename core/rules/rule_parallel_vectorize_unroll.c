/*
 * ParallelizeVectorizeUnroll, as TVM's rule: it only annotates the root
 * block, meta_schedule.parallel = cores * max_jobs_per_core,
 * meta_schedule.vectorize = max_vectorize_extent and, unless every block is
 * spatial, meta_schedule.unroll_explicit (or unroll_implicit) = a
 * sample_categorical over unroll_max_steps with equal probabilities. The
 * postprocessor RewriteParallelVectorizeUnroll turns the annotations into
 * loop kinds.
 */
#include "rules_internal.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct tsl_sch_rule {
  int64_t max_jobs_per_core;
  int64_t max_vectorize_extent;
  rule_ints unroll_max_steps;
  int32_t unroll_explicit;
  int64_t max_parallel_extent;
} pvu_rule;

static const rule_opt pvu_opts[] = {
    {"max_jobs_per_core", RULE_OPT_INT, offsetof(pvu_rule, max_jobs_per_core)},
    {"max_vectorize_extent", RULE_OPT_INT, offsetof(pvu_rule, max_vectorize_extent)},
    {"unroll_max_steps", RULE_OPT_INTS, offsetof(pvu_rule, unroll_max_steps)},
    {"unroll_explicit", RULE_OPT_BOOL, offsetof(pvu_rule, unroll_explicit)},
};

/* Defaults: TVM's llvm list (16, 64, [0, 16, 64, 512], explicit). */
static int pvu_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  pvu_rule r = {16, 64, {4, {0, 16, 64, 512}}, 1, -1};
  int rc = rule_parse_opts("ParallelizeVectorizeUnroll", pvu_opts,
                           sizeof pvu_opts / sizeof pvu_opts[0], n, opts, &r, diag);
  if (rc)
    return rc;
  if (r.max_jobs_per_core != -1) {
    if (!t || t->num_cores <= 0)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "ParallelizeVectorizeUnroll: the target names no core count "
                          "(threads or num_cores); set one or max_jobs_per_core: -1");
    r.max_parallel_extent = r.max_jobs_per_core * t->num_cores;
  }
  *out = malloc(sizeof r);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "ParallelizeVectorizeUnroll: out of memory");
  **out = r;
  return TSL_OK;
}

static void pvu_destroy(tsl_sch_rule *r) { free(r); }

static int annotate(tsl_schedule *sch, tsl_sch_rv root, const char *key, tsl_sch_value v,
                    tsl_diag *diag) {
  tsl_sch_value a[3] = {tsl_sv_rv(root), tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), key)), v};
  return rule_call(sch, "annotate", 3, a, NULL, diag);
}

static int pvu_apply(tsl_sch_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                     tsl_schedule_list *out, tsl_diag *diag) {
  int rc = TSL_OK;
  if (tsl_sch_is_root_block(sch, block)) {
    if (r->max_jobs_per_core != -1)
      rc = annotate(sch, block, "meta_schedule.parallel", tsl_sv_int(r->max_parallel_extent),
                    diag);
    if (!rc && r->max_vectorize_extent != -1)
      rc = annotate(sch, block, "meta_schedule.vectorize",
                    tsl_sv_int(r->max_vectorize_extent), diag);
    if (!rc && r->unroll_max_steps.n && !tsl_sch_is_spatial_func(sch, block)) {
      uint32_t k = r->unroll_max_steps.n;
      tsl_sch_value cand[RULE_MAX_INTS], probs[RULE_MAX_INTS];
      for (uint32_t i = 0; i < k; i++) {
        cand[i] = tsl_sv_int(r->unroll_max_steps.v[i]);
        probs[i] = tsl_sv_float(1.0 / k);
      }
      tsl_sch_value a[2] = {tsl_sv_list(k, cand), tsl_sv_list(k, probs)};
      tsl_sch_rv v;
      rc = rule_call(sch, "sample_categorical", 2, a, &v, diag);
      if (!rc)
        rc = annotate(sch, block,
                      r->unroll_explicit ? "meta_schedule.unroll_explicit"
                                         : "meta_schedule.unroll_implicit",
                      tsl_sv_rv(v), diag);
    }
  }
  if (rc) {
    tsl_schedule_free(sch);
    return rc;
  }
  return tsl_schedule_list_push(out, sch);
}

const tsl_schedule_rule_vtable rule_parallel_vectorize_unroll_vt = {
    sizeof(tsl_schedule_rule_vtable), pvu_create, pvu_destroy, pvu_apply};
