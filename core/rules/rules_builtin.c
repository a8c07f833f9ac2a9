/*
 * The built-in schedule rules as registry components, the targets' default
 * rule lists, and creating rules by name.
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct builtin_rule {
  const char *name;
  const char *summary;
  const tsl_schedule_rule_vtable *vt;
} builtin_rule;

static const builtin_rule builtin_rules[] = {
    {"InlineConstantScalars", "inline blocks computing a 0-d constant",
     &rule_inline_const_scalars_vt},
    {"AutoInline", "inline elementwise blocks into their consumers (TVM's AutoInline)",
     &rule_auto_inline_vt},
    {"AddRFactor", "factor a reduction with little spatial parallelism (TVM's AddRFactor)",
     &rule_add_rfactor_vt},
    {"MultiLevelTiling",
     "tile a block with data reuse into levels of loops (TVM's MultiLevelTiling)",
     &rule_multi_level_tiling_vt},
    {"ParallelizeVectorizeUnroll",
     "annotate the root block for parallel, vectorize and a sampled unroll step",
     &rule_parallel_vectorize_unroll_vt},
    {"RandomComputeLocation", "move a block to a sampled compute_at location",
     &rule_random_compute_location_vt},
};

typedef struct builtin_postproc {
  const char *name;
  const char *summary;
  const tsl_postproc_vtable *vt;
} builtin_postproc;

static const builtin_postproc builtin_postprocs[] = {
    {"DisallowDynamicLoop", "reject programs with a loop of non-constant extent",
     &postproc_disallow_dynamic_loop_vt},
    {"RewriteParallelVectorizeUnroll",
     "turn the root block's parallel / vectorize / unroll annotations into loops",
     &postproc_parallel_vectorize_unroll_vt},
    {"RewriteReductionBlock", "decompose reduction blocks at their first reduction loop",
     &postproc_rewrite_reduction_block_vt},
    {"RewriteLayout", "pack layout-free weights into the layout their anchor reads walk",
     &postproc_rewrite_layout_vt},
};

typedef struct builtin_mutator {
  const char *name;
  const char *summary;
  const tsl_trace_mutator_vtable *vt;
} builtin_mutator;

static const builtin_mutator builtin_mutators[] = {
    {"MutateTileSize", "move a divisor between the factors of a sample_perfect_tile",
     &mutator_tile_size_vt},
    {"MutateUnroll", "redraw the unroll step of a sketch", &mutator_unroll_vt},
    {"MutateComputeLocation", "move a block to another of its compute_at locations",
     &mutator_compute_location_vt},
    {"MutateParallel", "change how many leading loops the parallel annotation fuses",
     &mutator_parallel_vt},
};

int rules_register_builtins(tsl_registry *reg, tsl_diag *diag) {
  for (size_t i = 0; i < sizeof builtin_mutators / sizeof builtin_mutators[0]; i++) {
    tsl_component c = {sizeof c,           TSL_COMPONENT_MUTATOR, builtin_mutators[i].name,
                       TSL_VERSION_STRING, builtin_mutators[i].summary,
                       builtin_mutators[i].vt, NULL};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  for (size_t i = 0; i < sizeof builtin_rules / sizeof builtin_rules[0]; i++) {
    tsl_component c = {sizeof c,     TSL_COMPONENT_SCHEDULE_RULE, builtin_rules[i].name,
                       TSL_VERSION_STRING, builtin_rules[i].summary,    builtin_rules[i].vt,
                       NULL};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  for (size_t i = 0; i < sizeof builtin_postprocs / sizeof builtin_postprocs[0]; i++) {
    tsl_component c = {sizeof c,           TSL_COMPONENT_POSTPROC, builtin_postprocs[i].name,
                       TSL_VERSION_STRING, builtin_postprocs[i].summary,
                       builtin_postprocs[i].vt, NULL};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  return TSL_OK;
}

/* The component `name` of `kind` whose vtable is at least `min_size`, or
 * NULL with the error in diag. */
static const tsl_component *find_component(const tsl_registry *reg, uint32_t kind,
                                           const char *what, const char *name, size_t min_size,
                                           tsl_diag *diag) {
  const tsl_component *c;
  if (tsl_registry_require(reg, kind, name, &c, diag))
    return NULL;
  if (*(const uint32_t *)c->vtable < min_size) {
    tsl_diag_set(diag, TSL_EINVALID, "%s '%s': its vtable is older than this tessel's (%u < %zu "
                 "bytes)", what, name, *(const uint32_t *)c->vtable, min_size);
    return NULL;
  }
  return c;
}

/* The default lists are TVM's llvm ones; other targets name theirs. */
static int llvm_only(const tsl_rule_target *t, const char *what, tsl_diag *diag) {
  if (t && t->kind && !strcmp(t->kind, "llvm"))
    return TSL_OK;
  return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                      "space: no default %s for target '%s' (there are for: llvm); list them "
                      "in the config", what, t && t->kind ? t->kind : "(none)");
}

/* TVM's llvm list, in its order. */
static const char *const llvm_rules[] = {"InlineConstantScalars", "AutoInline", "AddRFactor",
                                         "MultiLevelTiling", "ParallelizeVectorizeUnroll",
                                         "RandomComputeLocation"};

int tsl_space_rule_create(const tsl_registry *reg, const char *name,
                          const tsl_rule_target *target, uint32_t n_opts,
                          const tsl_kv *opts, tsl_space_rule *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  const tsl_component *c = find_component(reg, TSL_COMPONENT_SCHEDULE_RULE, "schedule rule",
                                          name, sizeof(tsl_schedule_rule_vtable), diag);
  if (!c)
    return TSL_EINVALID;
  const tsl_schedule_rule_vtable *vt = c->vtable;
  if (!vt->create || !vt->apply)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "schedule rule '%s': its vtable lacks create or apply", name);
  out->struct_size = sizeof *out;
  out->name = c->name;
  out->vtable = vt;
  return vt->create(c->user_data, target, n_opts, opts, &out->rule, diag);
}

int tsl_space_default_rules(const tsl_registry *reg, const tsl_rule_target *target,
                            tsl_space_rule **out, uint32_t *n_out, tsl_diag *diag) {
  *out = NULL;
  *n_out = 0;
  int rc = llvm_only(target, "schedule rules", diag);
  if (rc)
    return rc;
  uint32_t n = sizeof llvm_rules / sizeof llvm_rules[0];
  tsl_space_rule *rules = calloc(n, sizeof *rules);
  if (!rules)
    return tsl_diag_set(diag, TSL_ENOMEM, "space: out of memory");
  for (uint32_t i = 0; i < n; i++) {
    rc = tsl_space_rule_create(reg, llvm_rules[i], target, 0, NULL, &rules[i], diag);
    if (rc) {
      tsl_space_rules_free(rules, i);
      return rc;
    }
  }
  *out = rules;
  *n_out = n;
  return TSL_OK;
}

void tsl_space_rules_free(tsl_space_rule *rules, uint32_t n) {
  for (uint32_t i = 0; rules && i < n; i++)
    if (rules[i].vtable && rules[i].vtable->destroy && rules[i].rule)
      rules[i].vtable->destroy(rules[i].rule);
  free(rules);
}

/* ---- postprocessors ---------------------------------------------------------- */

static const char *const llvm_postprocs[] = {"DisallowDynamicLoop",
                                             "RewriteParallelVectorizeUnroll",
                                             "RewriteReductionBlock", "RewriteLayout"};

int tsl_space_postproc_create(const tsl_registry *reg, const char *name,
                              const tsl_rule_target *target, uint32_t n_opts,
                              const tsl_kv *opts, tsl_space_postproc *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  const tsl_component *c = find_component(reg, TSL_COMPONENT_POSTPROC, "postprocessor", name,
                                          sizeof(tsl_postproc_vtable), diag);
  if (!c)
    return TSL_EINVALID;
  const tsl_postproc_vtable *vt = c->vtable;
  if (!vt->create || !vt->apply)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "postprocessor '%s': its vtable lacks create or apply", name);
  out->struct_size = sizeof *out;
  out->name = c->name;
  out->vtable = vt;
  return vt->create(c->user_data, target, n_opts, opts, &out->pp, diag);
}

int tsl_space_default_postprocs(const tsl_registry *reg, const tsl_rule_target *target,
                                tsl_space_postproc **out, uint32_t *n_out, tsl_diag *diag) {
  *out = NULL;
  *n_out = 0;
  int rc = llvm_only(target, "postprocessors", diag);
  if (rc)
    return rc;
  uint32_t n = sizeof llvm_postprocs / sizeof llvm_postprocs[0];
  tsl_space_postproc *pps = calloc(n, sizeof *pps);
  if (!pps)
    return tsl_diag_set(diag, TSL_ENOMEM, "space: out of memory");
  for (uint32_t i = 0; i < n; i++) {
    rc = tsl_space_postproc_create(reg, llvm_postprocs[i], target, 0, NULL, &pps[i], diag);
    if (rc) {
      tsl_space_postprocs_free(pps, i);
      return rc;
    }
  }
  *out = pps;
  *n_out = n;
  return TSL_OK;
}

void tsl_space_postprocs_free(tsl_space_postproc *pps, uint32_t n) {
  for (uint32_t i = 0; pps && i < n; i++)
    if (pps[i].vtable && pps[i].vtable->destroy && pps[i].pp)
      pps[i].vtable->destroy(pps[i].pp);
  free(pps);
}

int tsl_space_apply_postprocs(tsl_schedule *sch, uint32_t n, const tsl_space_postproc *pps,
                              tsl_diag *diag) {
  int rc = tsl_sch_call(sch, "enter_postproc", 0, NULL, NULL, NULL, diag);
  for (uint32_t i = 0; i < n && !rc; i++) {
    rc = pps[i].vtable->apply(pps[i].pp, sch, diag);
    if (rc && rc != TSL_ENOMEM) {
      char msg[sizeof diag->text];
      memcpy(msg, diag->text, sizeof msg);
      tsl_diag_set(diag, TSL_EINVALID, "%s: %s", pps[i].name, msg);
      rc = TSL_EINVALID;
    }
  }
  return rc;
}

/* ---- mutators ------------------------------------------------------------------- */

/* TVM's llvm probabilities. */
static const struct {
  const char *name;
  double prob;
} llvm_mutators[] = {
    {"MutateTileSize", 0.9}, {"MutateComputeLocation", 0.05}, {"MutateUnroll", 0.03},
    {"MutateParallel", 0.02}};

int tsl_space_mutator_create(const tsl_registry *reg, const char *name,
                             const tsl_rule_target *target, double prob, uint32_t n_opts,
                             const tsl_kv *opts, tsl_space_mutator *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  const tsl_component *c = find_component(reg, TSL_COMPONENT_MUTATOR, "mutator", name,
                                          sizeof(tsl_trace_mutator_vtable), diag);
  if (!c)
    return TSL_EINVALID;
  const tsl_trace_mutator_vtable *vt = c->vtable;
  if (!vt->create || !vt->apply)
    return tsl_diag_set(diag, TSL_EINVALID, "mutator '%s': its vtable lacks create or apply",
                        name);
  out->struct_size = sizeof *out;
  out->name = c->name;
  out->vtable = vt;
  out->prob = prob;
  return vt->create(c->user_data, target, n_opts, opts, &out->m, diag);
}

int tsl_space_default_mutators(const tsl_registry *reg, const tsl_rule_target *target,
                               tsl_space_mutator **out, uint32_t *n_out, tsl_diag *diag) {
  *out = NULL;
  *n_out = 0;
  int rc = llvm_only(target, "mutators", diag);
  if (rc)
    return rc;
  uint32_t n = sizeof llvm_mutators / sizeof llvm_mutators[0];
  tsl_space_mutator *ms = calloc(n, sizeof *ms);
  if (!ms)
    return tsl_diag_set(diag, TSL_ENOMEM, "space: out of memory");
  for (uint32_t i = 0; i < n; i++) {
    rc = tsl_space_mutator_create(reg, llvm_mutators[i].name, target, llvm_mutators[i].prob, 0,
                                  NULL, &ms[i], diag);
    if (rc) {
      tsl_space_mutators_free(ms, i);
      return rc;
    }
  }
  *out = ms;
  *n_out = n;
  return TSL_OK;
}

void tsl_space_mutators_free(tsl_space_mutator *ms, uint32_t n) {
  for (uint32_t i = 0; ms && i < n; i++)
    if (ms[i].vtable && ms[i].vtable->destroy && ms[i].m)
      ms[i].vtable->destroy(ms[i].m);
  free(ms);
}
