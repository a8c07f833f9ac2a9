/*
 * AutoBind, as TVM's rule: each block whose outer loops are not yet bound
 * to GPU threads gets its leading spatial loops fused and split into
 * blockIdx.x x threadIdx.x, the thread extent a sample_categorical over
 * the thread_extents that fit (thread_bind.c binds). One schedule in, the
 * same schedule out: the rule never branches.
 */
#include "rules_internal.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct tsl_sch_rule {
  int64_t max_threadblocks;
  rule_ints thread_extents;
  int64_t max_threads_per_block;
} auto_bind_rule;

static const rule_opt auto_bind_opts[] = {
    {"max_threadblocks", RULE_OPT_INT, offsetof(auto_bind_rule, max_threadblocks)},
    {"thread_extents", RULE_OPT_INTS, offsetof(auto_bind_rule, thread_extents)},
    {"max_threads_per_block", RULE_OPT_INT, offsetof(auto_bind_rule, max_threads_per_block)},
};

static rule_bind_opts bind_opts(const auto_bind_rule *r) {
  return (rule_bind_opts){r->max_threadblocks, r->max_threads_per_block, &r->thread_extents};
}

/* Defaults: TVM's (256 blocks, extents 32 to 1024); max_threads_per_block,
 * which TVM reads from the target, 1024. */
static int auto_bind_create(void *ud, const tsl_rule_target *t, uint32_t n,
                            const tsl_kv *opts, tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  auto_bind_rule r = {256, {6, {32, 64, 128, 256, 512, 1024}}, 1024};
  int rc = rule_parse_opts("AutoBind", auto_bind_opts,
                           sizeof auto_bind_opts / sizeof auto_bind_opts[0], n, opts, &r, diag);
  rule_bind_opts o = bind_opts(&r);
  if (rc || (rc = rule_bind_check_opts("AutoBind", &o, diag)))
    return rc;
  *out = malloc(sizeof r);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "AutoBind: out of memory");
  **out = r;
  return TSL_OK;
}

static void auto_bind_destroy(tsl_sch_rule *r) { free(r); }

static int auto_bind_apply(tsl_sch_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                           tsl_schedule_list *out, tsl_diag *diag) {
  rule_bind_opts o = bind_opts(r);
  int rc = rule_bind_block_thread_idx(sch, block, &o, diag);
  if (rc) {
    tsl_schedule_free(sch);
    return rc;
  }
  return tsl_schedule_list_push(out, sch);
}

const tsl_schedule_rule_vtable rule_auto_bind_vt = {
    sizeof(tsl_schedule_rule_vtable), auto_bind_create, auto_bind_destroy, auto_bind_apply};
