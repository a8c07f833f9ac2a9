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

int rules_register_builtins(tsl_registry *reg, tsl_diag *diag) {
  for (size_t i = 0; i < sizeof builtin_rules / sizeof builtin_rules[0]; i++) {
    tsl_component c = {sizeof c,     TSL_COMPONENT_SCHEDULE_RULE, builtin_rules[i].name,
                       TSL_VERSION_STRING, builtin_rules[i].summary,    builtin_rules[i].vt,
                       NULL};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  return TSL_OK;
}

/* TVM's llvm list, in its order. */
static const char *const llvm_rules[] = {"InlineConstantScalars", "AutoInline", "AddRFactor",
                                         "MultiLevelTiling", "ParallelizeVectorizeUnroll",
                                         "RandomComputeLocation"};

int tsl_space_rule_create(const tsl_registry *reg, const char *name,
                          const tsl_rule_target *target, uint32_t n_opts,
                          const tsl_kv *opts, tsl_space_rule *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  const tsl_component *c;
  int rc = tsl_registry_require(reg, TSL_COMPONENT_SCHEDULE_RULE, name, &c, diag);
  if (rc)
    return rc;
  const tsl_schedule_rule_vtable *vt = c->vtable;
  if (vt->struct_size < sizeof *vt || !vt->create || !vt->apply)
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
  if (!target || !target->kind || strcmp(target->kind, "llvm"))
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "space: no default schedule rules for target '%s' (there are "
                        "for: llvm); list the rules in the config",
                        target && target->kind ? target->kind : "(none)");
  uint32_t n = sizeof llvm_rules / sizeof llvm_rules[0];
  tsl_space_rule *rules = calloc(n, sizeof *rules);
  if (!rules)
    return tsl_diag_set(diag, TSL_ENOMEM, "space: out of memory");
  for (uint32_t i = 0; i < n; i++) {
    int rc = tsl_space_rule_create(reg, llvm_rules[i], target, 0, NULL, &rules[i], diag);
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
