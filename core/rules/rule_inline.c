/*
 * AutoInline and InlineConstantScalars, as TVM's rules: inline a block
 * into its consumers (or a consumer into its single producer) when the
 * conditions below hold. "Can compute_inline" is the primitive itself: it
 * refuses without changing the schedule.
 */
#include "rules_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct tsl_sch_rule {
  int32_t into_producer, into_consumer, inline_const_tensor;
  int32_t disallow_if_then_else, require_injective, require_ordered;
  int32_t const_scalars; /* InlineConstantScalars */
  char disallow_op[RULE_STR_MAX]; /* comma-separated, "tir.exp" or "exp" */
} ai_rule;

static const rule_opt ai_opts[] = {
    {"into_producer", RULE_OPT_BOOL, offsetof(ai_rule, into_producer)},
    {"into_consumer", RULE_OPT_BOOL, offsetof(ai_rule, into_consumer)},
    {"inline_const_tensor", RULE_OPT_BOOL, offsetof(ai_rule, inline_const_tensor)},
    {"disallow_if_then_else", RULE_OPT_BOOL, offsetof(ai_rule, disallow_if_then_else)},
    {"require_injective", RULE_OPT_BOOL, offsetof(ai_rule, require_injective)},
    {"require_ordered", RULE_OPT_BOOL, offsetof(ai_rule, require_ordered)},
    {"disallow_op", RULE_OPT_STR, offsetof(ai_rule, disallow_op)},
};

/* The math intrinsic an op name names ("tir.exp" or "exp"), or -1. */
static int op_intrin(const char *name, size_t n) {
  if (n > 4 && !strncmp(name, "tir.", 4)) {
    name += 4;
    n -= 4;
  }
  return tsl_intrin_lookup(name, n);
}

/* Defaults: TVM's llvm list (into_producer false, the rest true,
 * disallow_op tir.exp). */
static int ai_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                     tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  ai_rule r = {0, 1, 1, 1, 1, 1, 0, "tir.exp"};
  int rc = rule_parse_opts("AutoInline", ai_opts, sizeof ai_opts / sizeof ai_opts[0], n,
                           opts, &r, diag);
  if (rc)
    return rc;
  for (const char *p = r.disallow_op; *p;) {
    size_t k = strcspn(p, ", ");
    if (k && op_intrin(p, k) < 0)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "AutoInline: disallow_op names '%.*s', which is not a math "
                          "intrinsic (e.g. tir.exp, tir.log, tir.sqrt, tir.tanh)",
                          (int)k, p);
    p += k;
    p += strspn(p, ", ");
  }
  *out = malloc(sizeof r);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "AutoInline: out of memory");
  **out = r;
  return TSL_OK;
}

static int ics_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  int rc = rule_create_plain("InlineConstantScalars", n, opts, sizeof **out, (void **)out, diag);
  if (!rc)
    (*out)->const_scalars = 1;
  return rc;
}

static void rule_destroy(tsl_sch_rule *r) { free(r); }

static int try_inline(tsl_schedule *sch, tsl_sch_rv block, const char *inst) {
  tsl_sch_value a = tsl_sv_rv(block);
  return rule_call(sch, inst, 1, &a, NULL, NULL) == TSL_OK;
}

typedef struct op_scan {
  const char *ops;
  int found;
} op_scan;

static int scan_op(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  op_scan *s = ud;
  if (e->kind != TSL_EXPR_CALL)
    return 0;
  for (const char *p = s->ops; *p && !s->found;) {
    size_t k = strcspn(p, ", ");
    if (k && op_intrin(p, k) == (int)e->intrin)
      s->found = 1;
    p += k;
    p += strspn(p, ", ");
  }
  return s->found;
}

/* TVM's HasOp: the block calls one of the ops. */
static int has_op(tsl_schedule *sch, tsl_sch_rv block, const char *ops) {
  if (!*ops)
    return 0;
  op_scan s = {ops, 0};
  tsl_stmt_visitor v = {.expr = scan_op, .user_data = &s};
  tsl_stmt_visit(tsl_schedule_get_stmt(sch, block), &v);
  return s.found;
}

static int is_str(const tsl_attr_value *v, const char *s) {
  return v && v->kind == TSL_ATTR_STR && !strcmp(v->u.s, s);
}

/* TVM's AutoInline::CheckInline, acting as it decides. */
static void auto_inline(const ai_rule *r, tsl_schedule *sch, tsl_sch_rv block) {
  const tsl_block *b = tsl_schedule_get_stmt(sch, block)->u.realize.block;
  int pure_spatial = tsl_sch_is_spatial_func(sch, block);
  if (b->n_writes != 1)
    return;
  if (r->inline_const_tensor && b->n_reads == 0 && tsl_sch_block_deps(sch, block, 0, NULL, 0) &&
      try_inline(sch, block, "compute_inline"))
    return;
  if (!pure_spatial && has_op(sch, block, r->disallow_op))
    return;
  if (!pure_spatial && r->disallow_if_then_else && tsl_sch_has_if_then_else(sch, block))
    return;
  if (!pure_spatial && (r->require_injective || r->require_ordered)) {
    for (uint32_t i = 0; i < b->n_reads; i++) {
      tsl_rw_pattern pat;
      if (!tsl_rw_pattern_analyze(&b->reads[i], &b->writes[0], &pat))
        return; /* no pattern: neither injective nor ordered */
      if ((r->require_injective && !pat.injective) || (r->require_ordered && !pat.ordered))
        return;
    }
  }
  if (is_str(rule_block_ann(sch, block, "meta_schedule.inline_rule"), "disable"))
    return;
  if (r->into_consumer && tsl_sch_block_deps(sch, block, 0, NULL, 0) &&
      try_inline(sch, block, "compute_inline"))
    return;
  if (r->into_producer) {
    const tsl_block *prod;
    if (tsl_sch_block_deps(sch, block, 1, &prod, 1) != 1 ||
        tsl_attrs_get(prod->annotations, "meta_schedule.auto_tensorize"))
      return;
    for (uint32_t i = 0; i < prod->n_iter_vars; i++)
      if (prod->iter_vars[i].iter_type != TSL_ITER_SPATIAL || prod->init)
        return; /* not a complete block */
    try_inline(sch, block, "reverse_compute_inline");
  }
}

/* InlineConstantScalars: a block computing a 0-d constant, not an output. */
static void const_scalars(tsl_schedule *sch, tsl_sch_rv block) {
  const tsl_block *b = tsl_schedule_get_stmt(sch, block)->u.realize.block;
  if (b->n_reads == 0 && b->n_writes == 1 && b->writes[0].buffer->ndim == 0 &&
      !tsl_sch_is_output_block(sch, block))
    try_inline(sch, block, "compute_inline");
}

static int rule_apply(tsl_sch_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                      tsl_schedule_list *out, tsl_diag *diag) {
  (void)diag;
  if (r->const_scalars)
    const_scalars(sch, block);
  else
    auto_inline(r, sch, block);
  return tsl_schedule_list_push(out, sch);
}

const tsl_schedule_rule_vtable rule_auto_inline_vt = {
    sizeof(tsl_schedule_rule_vtable), ai_create, rule_destroy, rule_apply};
const tsl_schedule_rule_vtable rule_inline_const_scalars_vt = {
    sizeof(tsl_schedule_rule_vtable), ics_create, rule_destroy, rule_apply};
