/*
 * RewriteUnboundBlock, as TVM's postprocessor: every outermost block that
 * is not under both a blockIdx and a threadIdx loop (in every function of
 * the module, in program order) is bound as AutoBind binds it
 * (thread_bind.c), the thread extent min(extent, max_threads_per_block)
 * instead of a sample. A block that cannot be bound rejects the candidate.
 */
#include "rules_internal.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct tsl_postproc {
  int64_t max_threadblocks;
  int64_t max_threads_per_block;
} unbound_pp;

static const rule_opt unbound_opts[] = {
    {"max_threadblocks", RULE_OPT_INT, offsetof(unbound_pp, max_threadblocks)},
    {"max_threads_per_block", RULE_OPT_INT, offsetof(unbound_pp, max_threads_per_block)},
};

/* Defaults: TVM's 256 blocks; max_threads_per_block, which TVM reads from
 * the target, 1024. */
static int unbound_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                          tsl_postproc **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  unbound_pp p = {256, 1024};
  int rc = rule_parse_opts("RewriteUnboundBlock", unbound_opts,
                           sizeof unbound_opts / sizeof unbound_opts[0], n, opts, &p, diag);
  rule_bind_opts o = {p.max_threadblocks, p.max_threads_per_block, NULL};
  if (rc || (rc = rule_bind_check_opts("RewriteUnboundBlock", &o, diag)))
    return rc;
  *out = malloc(sizeof p);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "RewriteUnboundBlock: out of memory");
  **out = p;
  return TSL_OK;
}

static void unbound_destroy(tsl_postproc *p) { free(p); }

/* ---- the unbound blocks ------------------------------------------------------ */

typedef struct unbound_block {
  tsl_str func, block;
} unbound_block;

/* TVM's UnboundBlockFinder: outermost blocks (not those inside them), not
 * looking under a loop once both a blockIdx and a threadIdx loop are above
 * it. */
typedef struct finder {
  tsl_stmt_visitor v;
  int n_rank[2]; /* blockIdx / threadIdx loops above */
  tsl_str func;
  tsl_vec *found; /* unbound_block */
} finder;

static int find_pre(const tsl_stmt *s, void *ud) {
  finder *f = ud;
  if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    TSL_VEC_PUSH(f->found, unbound_block, ((unbound_block){f->func, s->u.realize.block->name}));
    return TSL_VISIT_SKIP;
  }
  if (s->kind != TSL_STMT_FOR)
    return 0;
  int rank = rule_loop_thread_rank(s);
  int n_block = f->n_rank[0] + (rank == 0), n_thread = f->n_rank[1] + (rank == 1);
  if (n_block && n_thread)
    return TSL_VISIT_SKIP; /* bound: nothing below is looked at */
  if (rank >= 0)
    f->n_rank[rank]++;
  return 0;
}

static int find_post(const tsl_stmt *s, void *ud) {
  finder *f = ud;
  int rank = rule_loop_thread_rank(s);
  if (rank >= 0)
    f->n_rank[rank]--;
  return 0;
}

static void find_unbound(const tsl_module *m, tsl_vec *found) {
  finder f = {{.stmt = find_pre, .stmt_post = find_post}, {0, 0}, NULL, found};
  f.v.user_data = &f;
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    const tsl_stmt *root = m->funcs[i]->body;
    f.func = m->funcs[i]->name;
    if (root && root->kind == TSL_STMT_BLOCK_REALIZE)
      tsl_stmt_visit(root->u.realize.block->body, &f.v);
  }
}

/* ---- apply -------------------------------------------------------------------- */

static int unbound_apply(tsl_postproc *p, tsl_schedule *sch, tsl_diag *diag) {
  tsl_vec found;
  tsl_vec_init(&found, sizeof(unbound_block), NULL);
  find_unbound(tsl_schedule_module(sch), &found);
  rule_bind_opts o = {p->max_threadblocks, p->max_threads_per_block, NULL};
  int rc = TSL_OK;
  for (uint32_t i = 0; i < found.len && !rc; i++) {
    unbound_block b = TSL_VEC_AT(&found, unbound_block, i);
    tsl_sch_arg a[2] = {{"name", tsl_sv_str(b.block)}, {"func_name", tsl_sv_str(b.func)}};
    tsl_sch_rv block;
    rc = rule_call_args(sch, "get_block", 2, a, &block, diag);
    if (!rc)
      rc = rule_bind_block_thread_idx(sch, block, &o, diag);
  }
  tsl_vec_free(&found);
  return rc;
}

const tsl_postproc_vtable postproc_rewrite_unbound_block_vt = {
    sizeof(tsl_postproc_vtable), unbound_create, unbound_destroy, unbound_apply};
