/*
 * RewriteCooperativeFetch, as TVM's postprocessor: every block annotated
 * meta_schedule.cooperative_fetch (MultiLevelTiling's shared-memory cache
 * reads, the value a sampled vector length) has its innermost loop (the
 * fused copy loop) split so that the threads of a GPU block share the copy:
 * [rest, threadIdx.y, threadIdx.x, vector] (the parts that apply), the
 * middle parts bound to threadIdx.y / threadIdx.x, the vector part
 * vectorized; the annotation is removed.
 *
 * The thread extents are read from the trace, as TVM reads them: the
 * extent of the loop of the last bind to threadIdx.x (threadIdx.y) before
 * the annotate instruction, or the warp size when a warp_execution
 * annotation comes later. The vector length falls back to 1 when it does
 * not divide the loop's extent or when the block uses values wider than 4
 * bytes. All blocks are parsed first, then rewritten in trace order.
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

#define COOP_KEY "meta_schedule.cooperative_fetch"

typedef struct tsl_postproc {
  int64_t thread_warp_size; /* -1: the target has none */
} rcf_pp;

static int rcf_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_postproc **out, tsl_diag *diag) {
  (void)ud;
  static const rule_opt table[] = {
      {"thread_warp_size", RULE_OPT_INT, offsetof(rcf_pp, thread_warp_size)}};
  /* TVM reads the target's thread_warp_size; here the target's default
   * space sets it (the cuda target: 32); none by default */
  (void)t;
  rcf_pp o = {-1};
  int rc = rule_parse_opts("RewriteCooperativeFetch", table, 1, n, opts, &o, diag);
  if (rc)
    return rc;
  if (o.thread_warp_size < 1 && o.thread_warp_size != -1)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "RewriteCooperativeFetch: thread_warp_size: %lld; valid: an integer "
                        ">= 1",
                        (long long)o.thread_warp_size);
  rcf_pp *p = malloc(sizeof *p);
  if (!p)
    return tsl_diag_set(diag, TSL_ENOMEM, "RewriteCooperativeFetch: out of memory");
  *p = o;
  *out = p;
  return TSL_OK;
}

static void rcf_destroy(tsl_postproc *p) { free(p); }

/* ---- the trace ------------------------------------------------------------------ */

/* One annotated block and what the trace said before its annotation. */
typedef struct fetch_task {
  tsl_sch_rv block;
  int64_t x, y, lane; /* thread extents (-1: none), vector length */
} fetch_task;

static int is_inst(const tsl_trace_inst *in, const char *name) {
  return !strcmp(in->kind->name, name);
}

/* An annotate instruction's key, or NULL. */
static const char *ann_key(const tsl_trace_inst *in) {
  return is_inst(in, "annotate") && in->args[1].kind == TSL_SV_STR ? in->args[1].u.s : NULL;
}

/* The constant extent of a bind's loop into *ext. */
static int bound_extent(tsl_schedule *sch, const tsl_trace_inst *in, int64_t *ext,
                        tsl_diag *diag) {
  const tsl_stmt *loop =
      in->args[0].kind == TSL_SV_RV ? tsl_schedule_get_stmt(sch, in->args[0].u.rv) : NULL;
  if (!loop || loop->kind != TSL_STMT_FOR)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "the loop bound to %s no longer exists; valid: a bound loop the "
                        "schedule still has",
                        in->args[1].u.s);
  if (!tsl_expr_is_const_int(loop->u.loop.extent, ext))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "loop '%s' bound to %s has a non-constant extent; valid: a constant",
                        loop->u.loop.loop_var->name, in->args[1].u.s);
  return TSL_OK;
}

/* The vector length an annotate instruction gives (a sampled value or a
 * constant). */
static int fetch_lane(tsl_schedule *sch, const tsl_trace_inst *in, int64_t *lane,
                      tsl_diag *diag) {
  const tsl_sch_value *v = &in->args[2];
  if (v->kind == TSL_SV_RV && tsl_schedule_rv_kind(sch, v->u.rv) == TSL_RV_EXPR) {
    *lane = tsl_schedule_rv_value(sch, v->u.rv);
    return TSL_OK;
  }
  if (v->kind == TSL_SV_INT) {
    *lane = v->u.i;
    return TSL_OK;
  }
  return tsl_diag_set(diag, TSL_EINVALID,
                      "the value of annotation %s is not an integer; valid: a vector length "
                      "(an integer or a sampled value)",
                      COOP_KEY);
}

/* TVM's walk over the trace: the annotated blocks in order, each with the
 * thread extents seen before it. *tasks is heap (free()). */
static int parse_trace(const rcf_pp *pp, tsl_schedule *sch, fetch_task **tasks, uint32_t *n,
                       tsl_diag *diag) {
  const tsl_trace *t = tsl_schedule_trace(sch);
  uint32_t len = tsl_trace_len(t);
  *tasks = NULL;
  *n = 0;
  fetch_task cur = {0, -1, -1, 1};
  for (uint32_t i = 0; i < len; i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    int rc = TSL_OK;
    if (is_inst(in, "bind") && in->args[1].kind == TSL_SV_STR) {
      if (!strcmp(in->args[1].u.s, "threadIdx.x"))
        rc = bound_extent(sch, in, &cur.x, diag);
      else if (!strcmp(in->args[1].u.s, "threadIdx.y"))
        rc = bound_extent(sch, in, &cur.y, diag);
    } else if (ann_key(in) && !strcmp(ann_key(in), "warp_execution")) {
      cur.x = pp->thread_warp_size;
    } else if (ann_key(in) && !strcmp(ann_key(in), COOP_KEY)) {
      if (in->args[0].kind != TSL_SV_RV ||
          tsl_schedule_rv_kind(sch, in->args[0].u.rv) != TSL_RV_BLOCK)
        rc = tsl_diag_set(diag, TSL_EINVALID,
                          "annotation %s is on a loop; valid: on a block", COOP_KEY);
      else
        rc = fetch_lane(sch, in, &cur.lane, diag);
      if (!rc) {
        fetch_task *grown = realloc(*tasks, sizeof **tasks * (*n + 1));
        if (!grown)
          rc = tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
        else {
          *tasks = grown;
          cur.block = in->args[0].u.rv;
          (*tasks)[(*n)++] = cur;
        }
      }
    }
    if (rc) {
      free(*tasks);
      *tasks = NULL;
      *n = 0;
      return rc;
    }
  }
  return TSL_OK;
}

/* ---- one block ------------------------------------------------------------------ */

static int dtype_bytes(tsl_dtype t) { return (t.bits + 7) / 8; }

static int widest_expr(const tsl_expr *e, void *ud) {
  int *w = ud;
  int b = 0;
  if (e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_CAST)
    b = dtype_bytes(e->dtype);
  else if (e->kind == TSL_EXPR_BUILTIN && (e->intrin == TSL_BUILTIN_Q_MULTIPLY_SHIFT ||
                                           e->intrin == TSL_BUILTIN_Q_MULTIPLY_SHIFT_PER_AXIS))
    b = 8; /* a 64-bit multiply */
  if (b > *w)
    *w = b;
  return 0;
}

static int widest_top(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, widest_expr, ud);
}

static int widest_store(const tsl_stmt *s, void *ud) {
  int *w = ud;
  if (s->kind == TSL_STMT_STORE && dtype_bytes(s->u.store.value->dtype) > *w)
    *w = dtype_bytes(s->u.store.value->dtype);
  return 0;
}

/* TVM's GetMaxUsedDtypeBytes of the block's body: the widest value stored,
 * loaded or cast to, 8 for fixed-point multiplies, at least 1. */
static int max_used_bytes(const tsl_block *b) {
  int w = 1;
  tsl_stmt_visitor v = {.stmt = widest_store, .expr = widest_top, .user_data = &w};
  tsl_stmt_visit(b->body, &v);
  return w;
}

static tsl_sch_value key(tsl_schedule *sch, const char *s) {
  return tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), s));
}

static int loop_call(tsl_schedule *sch, const char *inst, tsl_sch_rv loop, const char *axis,
                     tsl_diag *diag) {
  tsl_sch_arg a[2] = {{NULL, tsl_sv_rv(loop)}, {NULL, axis ? key(sch, axis) : tsl_sv_none()}};
  return rule_call_args(sch, inst, axis ? 2 : 1, a, NULL, diag);
}

/* Split `fused` by [None, y?, x, lane?]: *parts gets the handles. */
static int split_fetch(tsl_schedule *sch, tsl_sch_rv fused, const fetch_task *t,
                       tsl_sch_rv *parts, uint32_t *n, tsl_diag *diag) {
  tsl_sch_value f[4];
  uint32_t nf = 0;
  f[nf++] = tsl_sv_none();
  if (t->y != -1)
    f[nf++] = tsl_sv_int(t->y);
  f[nf++] = tsl_sv_int(t->x);
  if (t->lane > 1)
    f[nf++] = tsl_sv_int(t->lane);
  tsl_sch_arg sa[2] = {{"loop", tsl_sv_rv(fused)}, {"factors", tsl_sv_list(nf, f)}};
  const tsl_sch_rv *outs;
  int rc = tsl_sch_call(sch, "split", 2, sa, &outs, n, diag);
  if (!rc)
    memcpy(parts, outs, sizeof *parts * *n);
  return rc;
}

/* TVM's task for one block: unannotate, then split, vectorize and bind the
 * innermost loop when its extent is constant. */
static int rewrite_block(tsl_schedule *sch, fetch_task t, tsl_diag *diag) {
  const char *name = tsl_schedule_rv_name(sch, t.block);
  tsl_sch_arg ua[2] = {{NULL, tsl_sv_rv(t.block)}, {NULL, key(sch, COOP_KEY)}};
  int rc = rule_call_args(sch, "unannotate", 2, ua, NULL, diag);
  const tsl_sch_rv *loops;
  uint32_t nl = 0;
  if (!rc)
    rc = tsl_sch_get_loops(sch, t.block, &loops, &nl, diag);
  if (rc)
    return rc;
  if (!nl)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "block '%s' is annotated %s but has no loop; valid: a block under "
                        "its fused copy loop",
                        name ? name : "?", COOP_KEY);
  tsl_sch_rv fused = loops[nl - 1];
  int64_t extent;
  if (!tsl_expr_is_const_int(tsl_schedule_get_stmt(sch, fused)->u.loop.extent, &extent))
    return TSL_OK;
  if (t.lane < 1 || extent % t.lane != 0)
    t.lane = 1;
  if (max_used_bytes(tsl_schedule_get_stmt(sch, t.block)->u.realize.block) > 4)
    t.lane = 1; /* TVM: 64-bit values vectorize badly on CUDA */
  if (t.x == -1)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "block '%s' is annotated %s but the trace binds no loop to threadIdx.x "
                        "before it; valid: a threadIdx.x bind (or a warp_execution annotation "
                        "with a target warp size) earlier in the trace",
                        name ? name : "?", COOP_KEY);
  tsl_sch_rv parts[4];
  uint32_t np;
  if ((rc = split_fetch(sch, fused, &t, parts, &np, diag)))
    return rc;
  uint32_t ix = t.lane > 1 ? np - 2 : np - 1;
  if (t.lane > 1 && (rc = loop_call(sch, "vectorize", parts[np - 1], NULL, diag)))
    return rc;
  if ((rc = loop_call(sch, "bind", parts[ix], "threadIdx.x", diag)))
    return rc;
  if (t.y != -1)
    rc = loop_call(sch, "bind", parts[ix - 1], "threadIdx.y", diag);
  return rc;
}

static int rcf_apply(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag) {
  fetch_task *tasks;
  uint32_t n;
  int rc = parse_trace(pp, sch, &tasks, &n, diag);
  for (uint32_t i = 0; i < n && !rc; i++)
    rc = rewrite_block(sch, tasks[i], diag);
  free(tasks);
  return rc;
}

const tsl_postproc_vtable postproc_cooperative_fetch_vt = {
    sizeof(tsl_postproc_vtable), rcf_create, rcf_destroy, rcf_apply};
