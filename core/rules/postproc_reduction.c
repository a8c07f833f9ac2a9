/*
 * DisallowDynamicLoop and RewriteReductionBlock, as TVM's postprocessors:
 * a program with a loop of non-constant extent is rejected; every block
 * with an init whose reduction iterators are not bound to thread loops is
 * decomposed (decompose_reduction) at its first loop that is not spatial;
 * a tensorized update's init intrinsic (meta_schedule.auto_tensorize_init)
 * becomes its init block's meta_schedule.auto_tensorize.
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct tsl_postproc {
  int32_t which; /* 0 DisallowDynamicLoop, 1 RewriteReductionBlock */
} basic_pp;

static int create(const char *name, int which, uint32_t n, const tsl_kv *opts,
                  tsl_postproc **out, tsl_diag *diag) {
  int rc = rule_create_plain(name, n, opts, sizeof **out, (void **)out, diag);
  if (!rc)
    (*out)->which = which;
  return rc;
}

static int ddl_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_postproc **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return create("DisallowDynamicLoop", 0, n, opts, out, diag);
}

static int rrb_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_postproc **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return create("RewriteReductionBlock", 1, n, opts, out, diag);
}

static void pp_destroy(tsl_postproc *p) { free(p); }

/* ---- DisallowDynamicLoop ----------------------------------------------------- */

typedef struct dyn_scan {
  tsl_stmt_visitor v;
  const tsl_stmt *loop;
} dyn_scan;

static int find_dynamic(const tsl_stmt *s, void *ud) {
  int64_t ext;
  if (s->kind == TSL_STMT_FOR && !tsl_expr_is_const_int(s->u.loop.extent, &ext)) {
    ((dyn_scan *)ud)->loop = s;
    return 1;
  }
  return 0;
}

static int ddl_apply(tsl_schedule *sch, tsl_diag *diag) {
  const tsl_module *m = tsl_schedule_module(sch);
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    dyn_scan d = {{.stmt = find_dynamic}, NULL};
    d.v.user_data = &d;
    tsl_stmt_visit(m->funcs[i]->body, &d.v);
    if (d.loop)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "loop '%s' in '%s' has a non-constant extent",
                          d.loop->u.loop.loop_var->name, m->funcs[i]->name);
  }
  return TSL_OK;
}

/* ---- RewriteReductionBlock --------------------------------------------------- */

typedef struct red_scan {
  tsl_stmt_visitor v;
  tsl_vec thread_vars; /* const tsl_var * of blockIdx / threadIdx loops, in scope */
  tsl_vec found;       /* tsl_str: block names, in visit order */
} red_scan;

static int is_thread(const tsl_stmt *loop) {
  const char *tag = loop->u.loop.thread_tag;
  return loop->u.loop.for_kind == TSL_FOR_THREAD_BINDING && tag &&
         (!strncmp(tag, "threadIdx", 9) || !strncmp(tag, "blockIdx", 8));
}

static int uses_any(const tsl_expr *e, const tsl_vec *vars) {
  for (uint32_t i = 0; i < vars->len; i++)
    if (tsl_expr_uses_var(e, TSL_VEC_AT(vars, const tsl_var *, i)))
      return 1;
  return 0;
}

static int red_pre(const tsl_stmt *s, void *ud) {
  red_scan *r = ud;
  if (s->kind == TSL_STMT_FOR && is_thread(s))
    TSL_VEC_PUSH(&r->thread_vars, const tsl_var *, s->u.loop.loop_var);
  if (s->kind != TSL_STMT_BLOCK_REALIZE || !s->u.realize.block->init)
    return 0;
  const tsl_block *b = s->u.realize.block;
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i].iter_type == TSL_ITER_REDUCE &&
        uses_any(s->u.realize.iter_values[i], &r->thread_vars))
      return 0;
  TSL_VEC_PUSH(&r->found, tsl_str, b->name);
  return 0;
}

static int red_post(const tsl_stmt *s, void *ud) {
  red_scan *r = ud;
  if (s->kind == TSL_STMT_FOR && is_thread(s))
    r->thread_vars.len--;
  return 0;
}

static int annotation_call(tsl_schedule *sch, const char *inst, tsl_sch_rv block,
                           const char *key, const char *value, tsl_diag *diag) {
  tsl_ctx *ctx = tsl_schedule_ctx(sch);
  tsl_sch_arg a[3] = {{NULL, tsl_sv_rv(block)}, {NULL, tsl_sv_str(tsl_intern(ctx, key))},
                      {NULL, tsl_sv_str(tsl_intern(ctx, value ? value : ""))}};
  return tsl_sch_call(sch, inst, value ? 3 : 2, a, NULL, NULL, diag);
}

/* A block MultiLevelTilingTensorCore tensorizes: its init block gets the
 * init intrinsic as its meta_schedule.auto_tensorize (an empty one when
 * there is none, as TVM hints RewriteTensorize), not the update's. */
static int move_tensorize_init(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv init,
                               tsl_diag *diag) {
  const tsl_attr_value *t = rule_block_ann(sch, block, "meta_schedule.auto_tensorize");
  if (!t)
    return TSL_OK;
  const tsl_attr_value *i = rule_block_ann(sch, block, "meta_schedule.auto_tensorize_init");
  const char *init_name = i && i->kind == TSL_ATTR_STR ? i->u.s : "";
  int rc = annotation_call(sch, "unannotate", init, "meta_schedule.auto_tensorize", NULL, diag);
  if (!rc)
    rc = annotation_call(sch, "annotate", init, "meta_schedule.auto_tensorize", init_name, diag);
  if (!rc && i)
    rc = annotation_call(sch, "unannotate", block, "meta_schedule.auto_tensorize_init", NULL,
                         diag);
  if (!rc && i)
    rc = annotation_call(sch, "unannotate", init, "meta_schedule.auto_tensorize_init", NULL,
                         diag);
  return rc;
}

static int rrb_apply(tsl_schedule *sch, tsl_diag *diag) {
  const tsl_func *f = tsl_schedule_func(sch);
  if (!f)
    return TSL_OK;
  int rc = TSL_OK;
  for (int rewritten = 1; rewritten && !rc;) {
    rewritten = 0;
    red_scan r = {{.stmt = red_pre, .stmt_post = red_post}, {0}, {0}};
    r.v.user_data = &r;
    tsl_vec_init(&r.thread_vars, sizeof(const tsl_var *), NULL);
    tsl_vec_init(&r.found, sizeof(tsl_str), NULL);
    tsl_stmt_visit(tsl_schedule_func(sch)->body, &r.v);
    for (uint32_t i = 0; i < r.found.len && !rc; i++) {
      tsl_sch_arg ba[2] = {{NULL, tsl_sv_str(TSL_VEC_AT(&r.found, tsl_str, i))},
                           {"func_name", tsl_sv_str(f->name)}};
      const tsl_sch_rv *outs;
      uint32_t n;
      if ((rc = tsl_sch_call(sch, "get_block", 2, ba, &outs, &n, diag)))
        break;
      tsl_sch_rv block = outs[0];
      /* TVM's FindDecomposePoint: the first loop that is not spatial */
      int point = -1;
      tsl_sch_arg ga = {NULL, tsl_sv_rv(block)};
      if ((rc = tsl_sch_call(sch, "get_loops", 1, &ga, &outs, &n, diag)))
        break;
      tsl_sch_rv lrv[64];
      uint32_t nh = n < 64 ? n : 64;
      memcpy(lrv, outs, sizeof *lrv * nh);
      for (uint32_t k = 0; k < nh && point < 0; k++)
        if (tsl_sch_loop_iter_type(sch, lrv[k]) != TSL_ITER_SPATIAL)
          point = (int)k;
      if (point < 0)
        continue;
      tsl_sch_arg da[2] = {{NULL, tsl_sv_rv(block)}, {NULL, tsl_sv_rv(lrv[point])}};
      if ((rc = tsl_sch_call(sch, "decompose_reduction", 2, da, &outs, &n, diag)))
        break;
      if (n == 1)
        rc = move_tensorize_init(sch, block, outs[0], diag);
      rewritten++;
    }
    tsl_vec_free(&r.thread_vars);
    tsl_vec_free(&r.found);
  }
  return rc;
}

static int pp_apply(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag) {
  return pp->which == 0 ? ddl_apply(sch, diag) : rrb_apply(sch, diag);
}

const tsl_postproc_vtable postproc_disallow_dynamic_loop_vt = {
    sizeof(tsl_postproc_vtable), ddl_create, pp_destroy, pp_apply};
const tsl_postproc_vtable postproc_rewrite_reduction_block_vt = {
    sizeof(tsl_postproc_vtable), rrb_create, pp_destroy, pp_apply};
