/*
 * MutateParallel, as TVM's mutator: the value of a meta_schedule.parallel
 * annotation (the most jobs RewriteParallelVectorizeUnroll may fuse into a
 * parallel loop) changes to another limit that fuses a different number
 * of leading loops in some block of the scope.
 *
 * The sketch part of the trace is replayed on the workload; for every
 * block directly under the annotated scope block, the constant extents of
 * its leading loops (those above the innermost loop that drives a
 * non-spatial iterator, or has a symbolic extent) give running products
 * up to num_cores x max_jobs_per_core. Each product is a limit; a limit's
 * plan is, per block, the number of leading loops the postprocessor would
 * fuse under it. Plans different from the current value's are drawn from
 * uniformly (in the order of the plans, as TVM's ordered map), and the
 * annotation takes that plan's limit (the last limit seen for it, as TVM
 * overwrites its map).
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_BLOCKS = 64, MAX_DEPTH = 64 };

typedef struct tsl_trace_mutator {
  int64_t max_jobs_per_core;
  int64_t max_extent; /* num_cores x max_jobs_per_core */
} mp_mutator;

static int mp_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                     tsl_trace_mutator **out, tsl_diag *diag) {
  (void)ud;
  static const rule_opt table[] = {
      {"max_jobs_per_core", RULE_OPT_INT, offsetof(mp_mutator, max_jobs_per_core)}};
  mp_mutator o = {16, 0};
  int rc = rule_parse_opts("MutateParallel", table, 1, n, opts, &o, diag);
  if (rc)
    return rc;
  if (o.max_jobs_per_core < 1)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "MutateParallel: max_jobs_per_core: %lld; valid: an integer >= 1",
                        (long long)o.max_jobs_per_core);
  mp_mutator *m = malloc(sizeof *m);
  if (!m)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  *m = o;
  m->max_extent = (t && t->num_cores > 0 ? t->num_cores : 1) * o.max_jobs_per_core;
  *out = m;
  return TSL_OK;
}

static void mp_destroy(tsl_trace_mutator *m) { free(m); }

/* ---- the loops of the scope's blocks -------------------------------------------- */

typedef struct prods {
  uint32_t n;
  int64_t v[MAX_DEPTH]; /* running products from the outermost loop */
} prods;

/* The scope's block realizes (not those nested in them) with their loops. */
typedef struct scan {
  const tsl_stmt *loops[MAX_DEPTH];
  uint32_t depth;
  const tsl_stmt *rz[MAX_BLOCKS];
  const tsl_stmt *rz_loops[MAX_BLOCKS][MAX_DEPTH];
  uint32_t rz_depth[MAX_BLOCKS];
  uint32_t n_rz;
  prods out[MAX_BLOCKS];
  uint32_t n_out;
} scan;

static int pre(const tsl_stmt *st, void *ud) {
  scan *s = ud;
  if (st->kind == TSL_STMT_FOR) {
    if (s->depth < MAX_DEPTH)
      s->loops[s->depth] = st;
    s->depth++;
  } else if (st->kind == TSL_STMT_BLOCK_REALIZE) {
    if (s->depth <= MAX_DEPTH && s->n_rz < MAX_BLOCKS) {
      s->rz[s->n_rz] = st;
      s->rz_depth[s->n_rz] = s->depth;
      memcpy(s->rz_loops[s->n_rz++], s->loops, sizeof(s->loops[0]) * s->depth);
    }
    return TSL_VISIT_SKIP; /* blocks inside it are not the scope's */
  }
  return 0;
}

static int post(const tsl_stmt *st, void *ud) {
  scan *s = ud;
  if (st->kind == TSL_STMT_FOR)
    s->depth--;
  return 0;
}

static int uses(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_VAR && e->u.var == ud;
}

/* Whether `loop` drives a non-spatial iterator of any of the scope's blocks
 * (TVM's ScopeBlockLoopInfo::non_spatial_vars). */
static int non_spatial(const scan *s, const tsl_stmt *loop) {
  for (uint32_t r = 0; r < s->n_rz; r++) {
    const tsl_block *b = s->rz[r]->u.realize.block;
    for (uint32_t i = 0; i < b->n_iter_vars; i++)
      if (b->iter_vars[i].iter_type != TSL_ITER_SPATIAL &&
          tsl_expr_visit(s->rz[r]->u.realize.iter_values[i], uses,
                         (void *)loop->u.loop.loop_var))
        return 1;
  }
  return 0;
}

/* TVM's AnalyzeParallel: per block, the running products of the extents of
 * the loops above the outermost one with a symbolic extent or a
 * non-spatial variable, up to `limit`. */
static void analyze(scan *s, int64_t limit) {
  for (uint32_t r = 0; r < s->n_rz; r++) {
    const tsl_stmt *const *loops = s->rz_loops[r];
    uint32_t end = 0;
    int64_t e;
    while (end < s->rz_depth[r] && tsl_expr_is_const_int(loops[end]->u.loop.extent, &e) &&
           !non_spatial(s, loops[end]))
      end++;
    if (!end)
      continue;
    prods *p = &s->out[s->n_out++];
    p->n = 0;
    int64_t prod = 1;
    for (uint32_t k = 0; k < end; k++) {
      tsl_expr_is_const_int(loops[k]->u.loop.extent, &e);
      p->v[p->n++] = prod *= e;
      if (prod >= limit)
        break;
    }
  }
}

/* TVM's GetNumFusedLoops: per block, the loops a limit fuses. */
static void plan_of(const scan *s, int64_t limit, int32_t *plan) {
  for (uint32_t b = 0; b < s->n_out; b++) {
    const prods *p = &s->out[b];
    uint32_t i = 0;
    while (i < p->n && p->v[i] <= limit) /* upper_bound */
      i++;
    if (i > 0 && p->v[i - 1] == limit)
      i--;
    if (i != p->n)
      i++;
    plan[b] = (int32_t)i;
  }
}

static int plan_cmp(const int32_t *a, const int32_t *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* ---- the mutation -------------------------------------------------------------------- */

static int is_inst(const tsl_trace_inst *in, const char *name) {
  return !strcmp(in->kind->name, name);
}

static int parallel_ann(const tsl_trace_inst *in) {
  return is_inst(in, "annotate") && in->args[1].kind == TSL_SV_STR &&
         !strcmp(in->args[1].u.s, "meta_schedule.parallel") && in->args[0].kind == TSL_SV_RV &&
         in->args[2].kind == TSL_SV_INT;
}

static int mp_apply(tsl_trace_mutator *m, const tsl_module *mod, const tsl_trace *trace,
                    uint64_t *rng, tsl_trace **out, tsl_diag *diag) {
  *out = NULL;
  if (!mod)
    return TSL_OK;
  tsl_trace *t = tsl_trace_before_postproc(trace);
  if (!t)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  uint32_t anns[256], na = 0;
  for (uint32_t i = 0; i < tsl_trace_len(t) && na < 256; i++)
    if (parallel_ann(tsl_trace_get(t, i)))
      anns[na++] = i;
  if (!na) {
    tsl_trace_free(t);
    return TSL_OK;
  }
  uint32_t which = anns[tsl_rand_below(rng, na)];
  const tsl_trace_inst *ann = tsl_trace_get(t, which);
  int64_t current = ann->args[2].u.i;
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  tsl_schedule *sch = NULL;
  tsl_diag d;
  scan *s = calloc(1, sizeof *s);
  int rc = TSL_OK;
  if (s && !tsl_trace_replay(ctx, t, mod, &ro, &sch, &d)) {
    /* the replayed schedule numbers the handles as the trace does */
    const tsl_stmt *scope = tsl_schedule_get_stmt(sch, ann->args[0].u.rv);
    if (scope && scope->kind == TSL_STMT_BLOCK_REALIZE) {
      tsl_stmt_visitor v = {.stmt = pre, .stmt_post = post, .user_data = s};
      tsl_stmt_visit(scope->u.realize.block->body, &v);
      analyze(s, m->max_extent);
    }
  }
  /* the plans of every limit, and the limit standing for each plan */
  int32_t *plans = s ? calloc((size_t)MAX_BLOCKS * MAX_DEPTH * MAX_BLOCKS, sizeof *plans) : NULL;
  int64_t *limits = s ? calloc((size_t)MAX_BLOCKS * MAX_DEPTH, sizeof *limits) : NULL;
  uint32_t np = 0;
  if (!s || !plans || !limits) {
    rc = tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  } else if (s->n_out) {
    int32_t cur[MAX_BLOCKS], plan[MAX_BLOCKS];
    plan_of(s, current, cur);
    for (uint32_t b = 0; b < s->n_out; b++)
      for (uint32_t k = 0; k < s->out[b].n; k++) {
        int64_t limit = s->out[b].v[k];
        if (limit > m->max_extent)
          continue;
        plan_of(s, limit, plan);
        if (!plan_cmp(plan, cur, s->n_out))
          continue;
        uint32_t j = 0; /* sorted insert; a plan seen before takes the later limit */
        while (j < np && plan_cmp(plans + (size_t)j * MAX_BLOCKS, plan, s->n_out) < 0)
          j++;
        if (j < np && !plan_cmp(plans + (size_t)j * MAX_BLOCKS, plan, s->n_out)) {
          limits[j] = limit;
          continue;
        }
        memmove(plans + (size_t)(j + 1) * MAX_BLOCKS, plans + (size_t)j * MAX_BLOCKS,
                sizeof *plans * MAX_BLOCKS * (np - j));
        memmove(limits + j + 1, limits + j, sizeof *limits * (np - j));
        memcpy(plans + (size_t)j * MAX_BLOCKS, plan, sizeof *plan * s->n_out);
        limits[j] = limit;
        np++;
      }
  }
  if (!rc && np) {
    tsl_sch_value v = tsl_sv_int(limits[tsl_rand_below(rng, np)]);
    rc = tsl_trace_set_arg(t, which, 2, &v, diag);
    if (!rc) {
      *out = t;
      t = NULL;
    }
  }
  free(plans);
  free(limits);
  free(s);
  tsl_schedule_free(sch);
  tsl_ctx_free(ctx);
  tsl_trace_free(t);
  return rc;
}

const tsl_trace_mutator_vtable mutator_parallel_vt = {sizeof(tsl_trace_mutator_vtable),
                                                      mp_create, mp_destroy, mp_apply};
