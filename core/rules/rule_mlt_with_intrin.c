/*
 * MultiLevelTilingWithIntrin, as TVM's rule for CPU tensor intrinsics
 * (dot_16x4_vnni, ...): a block that computes what the intrinsic's
 * description computes (the auto-tensorize mapping of tensorize_mapping.c)
 * gets its innermost loops shaped as the description's (TileWithTensorIntrin,
 * no padding), blockized and annotated meta_schedule.auto_tensorize; the
 * outer block is then tiled as MultiLevelTiling tiles (TileLoopNest, write
 * and read reuse). RewriteTensorize tensorizes what is annotated.
 *
 * intrin_name may list several intrinsics, comma-separated, in order of
 * preference (tessel's extension; TVM takes one): the first that is
 * registered, whose CPU features (tsl_intrin_registry_requires) the
 * target has, and that the block maps onto, is used. A single name must be
 * registered, as in TVM; in a list, names not registered are skipped (the
 * plugin that registers them may be absent). A block none applies to is
 * left to the next rule, untouched.
 */
#include "rule_mlt.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_INTRINS = 8, NAME_LEN = 96 };

struct tsl_sch_rule {
  mlt_rule r; /* first: the options' offsets are MultiLevelTiling's */
  char intrin_name[RULE_STR_MAX];
  uint32_t n_names;
  char names[MAX_INTRINS][NAME_LEN];
  char features[RULE_STR_MAX]; /* the target's; unknown when !has_features */
  int has_features;
};

static const char who[] = "MultiLevelTilingWithIntrin";

static int mwi_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  rule_opt table[32];
  memcpy(table, mlt_opts, mlt_n_opts * sizeof *table);
  table[mlt_n_opts] =
      (rule_opt){"intrin_name", RULE_OPT_STR, offsetof(struct tsl_sch_rule, intrin_name)};
  struct tsl_sch_rule *rule = calloc(1, sizeof *rule);
  if (!rule)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", who);
  mlt_defaults(&rule->r); /* TVM's x86 defaults: SSRSRS, 64, write reuse may [1, 2] global */
  int rc = rule_parse_opts(who, table, mlt_n_opts + 1, n, opts, rule, diag);
  if (!rc)
    rc = mlt_finish(who, &rule->r, diag);
  char list[RULE_STR_MAX];
  snprintf(list, sizeof list, "%s", rule->intrin_name);
  for (char *tok = strtok(list, ", "); !rc && tok; tok = strtok(NULL, ", ")) {
    if (rule->n_names == MAX_INTRINS || strlen(tok) >= NAME_LEN)
      rc = tsl_diag_set(diag, TSL_EINVALID, "%s: intrin_name lists more than %d names, or a "
                        "name of %d characters or more", who, MAX_INTRINS, NAME_LEN);
    else
      snprintf(rule->names[rule->n_names++], NAME_LEN, "%s", tok);
  }
  if (!rc && !rule->n_names)
    rc = tsl_diag_set(diag, TSL_EINVALID, "%s: intrin_name is required: a tensor intrinsic, "
                      "e.g. dot_16x4_vnni, or several in order of preference, e.g. "
                      "dot_16x4_vnni,dot_16x4_avx512", who);
  const char *f = tsl_rule_target_features(t);
  if (f) {
    rule->has_features = 1;
    snprintf(rule->features, sizeof rule->features, "%s", f);
  }
  if (rc) {
    free(rule);
    return rc;
  }
  *out = rule;
  return TSL_OK;
}

static void mwi_destroy(tsl_sch_rule *r) { free(r); }

static int annotate(tsl_schedule *sch, tsl_sch_rv b, const char *key, const char *value,
                    tsl_diag *diag) {
  tsl_sch_arg a[3] = {{NULL, mlt_rv(b)}, {NULL, mlt_str(sch, key)}, {NULL, mlt_str(sch, value)}};
  return tsl_sch_call(sch, "annotate", 3, a, NULL, NULL, diag);
}

/* TVM's TileForIntrin then MultiLevelTiling's sub-rules, on a copy of
 * `sch`: the states pushed to `out`, *used 1; *used 0 when the block's
 * loops do not map onto the description. */
static int tile_for(const struct tsl_sch_rule *rule, tsl_schedule *sch, tsl_sch_rv block,
                    const char *name, const tsl_func *desc, tsl_schedule_list *out, int *used,
                    tsl_diag *diag) {
  tsl_schedule *copy;
  *used = 0;
  int rc = tsl_schedule_fork(sch, &copy, diag);
  if (rc)
    return rc;
  tsl_sch_rv inner, outer;
  int ok = 0;
  rc = annotate(copy, block, "meta_schedule.tiling_structure", rule->r.structure, diag);
  if (!rc)
    rc = rule_tile_with_intrin(copy, block, desc, 0, &inner, &ok, diag);
  if (rc || !ok) {
    tsl_schedule_free(copy);
    return rc;
  }
  uint32_t k;
  tsl_sch_arg ba = {"target", mlt_rv(inner)};
  rc = mlt_call_list(copy, "blockize", 1, &ba, &outer, 1, &k, diag);
  if (!rc)
    rc = annotate(copy, outer, "meta_schedule.auto_tensorize", name, diag);
  if (rc) {
    tsl_schedule_free(copy);
    return rc;
  }
  *used = 1;
  return mlt_tile_and_push(&rule->r, copy, outer, out, diag);
}

static int mwi_apply(tsl_sch_rule *rule, tsl_schedule *sch, tsl_sch_rv block,
                     tsl_schedule_list *out, tsl_diag *diag) {
  if (!tsl_sch_needs_multi_level_tiling(sch, block))
    return tsl_schedule_list_push(out, sch);
  const tsl_intrin_registry *reg = tsl_schedule_intrins(sch);
  const tsl_stmt *realize = tsl_schedule_get_stmt(sch, block);
  for (uint32_t i = 0; i < rule->n_names; i++) {
    const char *name = rule->names[i];
    const tsl_func *desc = NULL;
    if (!tsl_intrin_registry_get(reg, name, &desc, NULL)) {
      if (rule->n_names > 1)
        continue;
      tsl_schedule_free(sch);
      return tsl_diag_set(diag, TSL_EINVALID, "%s: no tensor intrinsic named '%s' is "
                          "registered (the x86 plugin registers dot_16x4_vnni, "
                          "dot_16x4_avx512, dot_16x4_avx2, dot_16x2_bf16_avx512 and the AMX "
                          "tiles dot_32x32x256_amx, dot_16x16x64_amx, dot_32x32x128_bf16_amx, "
                          "dot_16x16x32_bf16_amx; `tessel "
                          "plugins` lists what is loaded)", who, name);
    }
    if (rule->has_features &&
        !tsl_cpu_features_have(rule->features, tsl_intrin_registry_requires(reg, name)))
      continue;
    rule_tz_map m;
    if (!rule_tz_mapping(realize->u.realize.block, desc, &m))
      continue;
    int used;
    int rc = tile_for(rule, sch, block, name, desc, out, &used, diag);
    if (rc || used) {
      tsl_schedule_free(sch);
      return rc;
    }
  }
  return tsl_schedule_list_push(out, sch);
}

const tsl_schedule_rule_vtable rule_multi_level_tiling_with_intrin_vt = {
    sizeof(tsl_schedule_rule_vtable), mwi_create, mwi_destroy, mwi_apply};
