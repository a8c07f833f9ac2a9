/*
 * RewriteTensorize, as TVM's postprocessor: every block annotated
 * meta_schedule.auto_tensorize with an intrinsic's name (what
 * MultiLevelTilingTensorCore and RewriteReductionBlock leave) is
 * tensorized with it, its annotation removed first. The blocks are found
 * first, then rewritten by name in program order. A block the intrinsic
 * does not match fails the candidate with tensorize's message (TVM logs a
 * warning and keeps an untensorized program, which the tensor-core scopes
 * would make invalid on the device anyway). An empty name (an init without
 * an intrinsic) only loses its annotation; with vectorize_init_loop (TVM's
 * CPU tensorization list sets it) the one loop of its one child block is
 * also vectorized, unless the block's name starts with "init" (TVM's test,
 * `name.find("init")` taken as a truth value).
 */
#include "rules_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define KEY "meta_schedule.auto_tensorize"

typedef struct tsl_postproc {
  int32_t vectorize_init_loop;
} rt_pp;

static const rule_opt rt_opts[] = {
    {"vectorize_init_loop", RULE_OPT_BOOL, offsetof(rt_pp, vectorize_init_loop)},
};

static int rt_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                     tsl_postproc **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  rt_pp *p = calloc(1, sizeof *p);
  if (!p)
    return tsl_diag_set(diag, TSL_ENOMEM, "RewriteTensorize: out of memory");
  int rc = rule_parse_opts("RewriteTensorize", rt_opts, 1, n, opts, p, diag);
  if (rc) {
    free(p);
    return rc;
  }
  *out = p;
  return TSL_OK;
}

/* TVM's vectorize_init_loop job: the one loop of the init block's one
 * child block vectorized (left alone when there is not exactly one). */
static int vectorize_init(tsl_schedule *sch, tsl_sch_rv block, tsl_diag *diag) {
  uint32_t n = 0, nl = 0;
  tsl_sch_rv *child = rule_query(sch, "get_child_blocks", block, &n);
  tsl_sch_rv *loops = n == 1 ? rule_query(sch, "get_loops", child[0], &nl) : NULL;
  int rc = TSL_OK;
  if (nl == 1) {
    tsl_sch_value a = tsl_sv_rv(loops[0]);
    rc = rule_call(sch, "vectorize", 1, &a, NULL, diag);
  }
  free(child);
  free(loops);
  return rc;
}

static void rt_destroy(tsl_postproc *p) { free(p); }

typedef struct job {
  tsl_str block, intrin;
} job;

static int collect(const tsl_stmt *s, void *ud) {
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  const tsl_attr_value *v = tsl_attrs_get(s->u.realize.block->annotations, KEY);
  if (v && v->kind == TSL_ATTR_STR)
    TSL_VEC_PUSH(ud, job, ((job){s->u.realize.block->name, v->u.s}));
  return 0;
}

static int rt_apply(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag) {
  const tsl_func *f = tsl_schedule_func(sch);
  if (!f)
    return TSL_OK;
  tsl_vec jobs;
  tsl_vec_init(&jobs, sizeof(job), NULL);
  tsl_stmt_visitor v = {.stmt = collect, .user_data = &jobs};
  tsl_stmt_visit(f->body, &v);
  tsl_ctx *ctx = tsl_schedule_ctx(sch);
  int rc = TSL_OK;
  for (uint32_t i = 0; i < jobs.len && !rc; i++) {
    const job *j = &TSL_VEC_AT(&jobs, job, i);
    tsl_sch_arg ga[2] = {{NULL, tsl_sv_str(j->block)}, {"func_name", tsl_sv_str(f->name)}};
    const tsl_sch_rv *outs;
    uint32_t n;
    if ((rc = tsl_sch_call(sch, "get_block", 2, ga, &outs, &n, diag)))
      break;
    tsl_sch_rv block = outs[0];
    tsl_sch_arg ua[2] = {{NULL, tsl_sv_rv(block)}, {NULL, tsl_sv_str(tsl_intern(ctx, KEY))}};
    rc = tsl_sch_call(sch, "unannotate", 2, ua, NULL, NULL, diag);
    tsl_sch_arg ta[2] = {{NULL, tsl_sv_rv(block)}, {NULL, tsl_sv_str(j->intrin)}};
    if (!rc && j->intrin[0])
      rc = tsl_sch_call(sch, "tensorize", 2, ta, NULL, NULL, diag);
    else if (!rc && pp->vectorize_init_loop && strncmp(j->block, "init", 4))
      rc = vectorize_init(sch, block, diag);
  }
  tsl_vec_free(&jobs);
  return rc;
}

const tsl_postproc_vtable postproc_rewrite_tensorize_vt = {sizeof(tsl_postproc_vtable),
                                                           rt_create, rt_destroy, rt_apply};
