/*
 * CrossThreadReduction, as TVM's rule (v0.19): a reduction block the
 * target's threads should share (TVM's NeedsRFactorOrCrossThreadReduction
 * with max_threads_per_block and the warp size) gets a second sketch
 * besides the schedule as it was. In it a thread extent is drawn by
 * sample_categorical from `thread_extents`; when the block can be fused
 * into its consumer (one write, the first consumer not a tiling candidate,
 * the consumers under a common loop, the leading loops spatial), the block
 * is computed at the consumer's loop (the consumer's innermost loop split
 * by the extent and bound to threadIdx.x first, unless the consumer
 * already runs on threads, whose extent is then reused) and its output
 * moved to shared memory; then its reduction loops are moved innermost,
 * fused, split by the extent and the inner part bound to threadIdx.x.
 *
 * Where tessel differs from TVM (core/rules/README.md, Decisions): the
 * target's limits are options (defaults: 1024 threads and warps of 32 for
 * a target with threads, set by its default space, none otherwise, which
 * leaves every block alone); the
 * reused thread extent is the one of the consumer's own threadIdx.x loop;
 * a primitive that fails drops the second sketch instead of ending the
 * generation.
 */
#include "rules_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct tsl_sch_rule {
  rule_ints thread_extents;
  int64_t max_threads_per_block; /* -1: the target has no such limit */
  int64_t warp_size;             /* -1: the target has no warps */
} ctr_rule;

static const rule_opt ctr_opts[] = {
    {"thread_extents", RULE_OPT_INTS, offsetof(ctr_rule, thread_extents)},
    {"max_threads_per_block", RULE_OPT_INT, offsetof(ctr_rule, max_threads_per_block)},
    {"warp_size", RULE_OPT_INT, offsetof(ctr_rule, warp_size)},
};

enum { MAX_LOOPS = 64, MAX_CONSUMERS = 64 };
#define NO_RV UINT32_MAX

/* ---- creation ------------------------------------------------------------------ */

static int check_opts(const ctr_rule *r, tsl_diag *diag) {
  if (!r->thread_extents.n)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "CrossThreadReduction: option 'thread_extents' is empty; it must list "
                        "positive thread counts such as [4, 8, 16, 32, 64, 128, 256, 512]");
  for (uint32_t i = 0; i < r->thread_extents.n; i++)
    if (r->thread_extents.v[i] <= 0)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "CrossThreadReduction: option 'thread_extents' holds %lld; every "
                          "entry must be a positive thread count",
                          (long long)r->thread_extents.v[i]);
  if (r->max_threads_per_block == 0 || r->max_threads_per_block < -1)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "CrossThreadReduction: option 'max_threads_per_block' is %lld; it must "
                        "be positive, or -1 for a target without threads",
                        (long long)r->max_threads_per_block);
  if (r->warp_size == 0 || r->warp_size < -1)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "CrossThreadReduction: option 'warp_size' is %lld; it must be positive, "
                        "or -1 for a target without warps",
                        (long long)r->warp_size);
  return TSL_OK;
}

/* Defaults: TVM's CUDA list (thread extents 4 to 512) and no limits: a
 * target with threads names them (the cuda target: 1024 threads per block,
 * warps of 32); without them the rule does nothing, as TVM's on a CPU. */
static int ctr_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  ctr_rule r = {{8, {4, 8, 16, 32, 64, 128, 256, 512}}, -1, -1};
  int rc = rule_parse_opts("CrossThreadReduction", ctr_opts,
                           sizeof ctr_opts / sizeof ctr_opts[0], n, opts, &r, diag);
  if (!rc)
    rc = check_opts(&r, diag);
  if (rc)
    return rc;
  *out = malloc(sizeof r);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "CrossThreadReduction: out of memory");
  **out = r;
  return TSL_OK;
}

static void ctr_destroy(tsl_sch_rule *r) { free(r); }

/* ---- analyses ------------------------------------------------------------------- */

/* TVM's NeedsRFactorOrCrossThreadReduction (v0.19), recording nothing: one
 * write at least, a reduction block with trivial bindings not tiled yet,
 * its loops a perfect chain of constant spatial or reduction loops with a
 * reduction among them; a tiling candidate only when its spatial loops
 * give less parallelism than its reduction and at most `max_extent`. */
static int needs_ctr(tsl_schedule *sch, tsl_sch_rv block, int64_t max_extent) {
  int64_t space, reduce;
  if (!rule_reduction_extents(sch, block, &space, &reduce))
    return 0;
  if (tsl_sch_needs_multi_level_tiling(sch, block))
    return space < reduce && space <= max_extent;
  return reduce > 1;
}

/* ---- schedule calls --------------------------------------------------------------- */

/* tsl_sch_call with its output handles copied to out (at most max). */
static int call_outs(tsl_schedule *sch, const char *inst, uint32_t n_args,
                     const tsl_sch_arg *args, tsl_sch_rv *out, uint32_t max, uint32_t *n,
                     tsl_diag *diag) {
  const tsl_sch_rv *outs = NULL;
  uint32_t k = 0;
  int rc = tsl_sch_call(sch, inst, n_args, args, &outs, &k, diag);
  if (rc)
    return rc;
  if (k > max)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "CrossThreadReduction: %s gave %u handles, more than the %u it handles",
                        inst, k, max);
  if (k)
    memcpy(out, outs, sizeof *out * k);
  if (n)
    *n = k;
  return TSL_OK;
}

static int get_loops(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv *loops, uint32_t *n,
                     tsl_diag *diag) {
  tsl_sch_arg a = {NULL, tsl_sv_rv(block)};
  return call_outs(sch, "get_loops", 1, &a, loops, MAX_LOOPS, n, diag);
}

static tsl_sch_value str_value(tsl_schedule *sch, const char *s) {
  return tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), s));
}

/* split(loop, [None, extent]), the inner loop bound to threadIdx.x; the
 * outer loop in *outer (may be NULL). */
static int split_and_bind(tsl_schedule *sch, tsl_sch_rv loop, tsl_sch_value extent,
                          tsl_sch_rv *outer, tsl_diag *diag) {
  tsl_sch_value f[2] = {tsl_sv_none(), extent};
  tsl_sch_arg sa[2] = {{"loop", tsl_sv_rv(loop)}, {"factors", tsl_sv_list(2, f)}};
  tsl_sch_rv parts[2];
  uint32_t n = 0;
  int rc = call_outs(sch, "split", 2, sa, parts, 2, &n, diag);
  if (!rc && n != 2)
    rc = tsl_diag_set(diag, TSL_EINVALID, "CrossThreadReduction: split gave %u loops, not 2", n);
  if (rc)
    return rc;
  tsl_sch_arg ba[2] = {{"loop", tsl_sv_rv(parts[1])},
                       {"thread_axis", str_value(sch, "threadIdx.x")}};
  if (outer)
    *outer = parts[0];
  return tsl_sch_call(sch, "bind", 2, ba, NULL, NULL, diag);
}

/* ---- where the block goes: TVM's GetComputeTargetLoopAndBlock ------------------------ */

typedef struct fuse_target {
  int fusible;
  tsl_sch_rv loop;      /* the compute_at loop */
  tsl_sch_rv block;     /* the first consumer */
  tsl_sch_rv innermost; /* its innermost loop */
} fuse_target;

/* The deepest loop around every consumer (pointer into the IR), or NULL
 * when their lowest common ancestor is a block (their scope; with one
 * consumer, the consumer itself). */
static const tsl_stmt *consumers_lca_loop(tsl_schedule *sch, const tsl_sch_rv *cons,
                                          uint32_t nc) {
  if (nc < 2)
    return NULL;
  const tsl_stmt *first[MAX_LOOPS], *other[MAX_LOOPS];
  uint32_t common, n;
  tsl_sch_block_scope(sch, cons[0], first, MAX_LOOPS, &common);
  if (common > MAX_LOOPS)
    return NULL;
  for (uint32_t c = 1; c < nc && common; c++) {
    tsl_sch_block_scope(sch, cons[c], other, MAX_LOOPS, &n);
    uint32_t k = 0;
    while (k < common && k < n && k < MAX_LOOPS && first[k] == other[k])
      k++;
    common = k;
  }
  return common ? first[common - 1] : NULL;
}

/* TVM's GetComputePosition: the last loop position, up to the consumers'
 * common loop, under which the block's own loops are still spatial; -1
 * when the first is not. */
static int compute_position(tsl_schedule *sch, const tsl_sch_rv *block_loops, uint32_t nb,
                            const tsl_sch_rv *tgt_loops, uint32_t nt, const tsl_stmt *lca) {
  for (uint32_t i = 0; i < nb && i < nt; i++) {
    if (tsl_sch_loop_iter_type(sch, block_loops[i]) != TSL_ITER_SPATIAL)
      return (int)i - 1;
    if (lca && tsl_schedule_get_stmt(sch, tgt_loops[i]) == lca)
      return (int)i;
  }
  return (int)(nb < nt ? nb : nt) - 1;
}

/* Whether and where the block can be computed at its consumers, recording
 * the queries TVM's rule records (get_consumers, then get_loops of the
 * first consumer and of the block). */
static int find_fuse_target(tsl_schedule *sch, tsl_sch_rv block, fuse_target *ft,
                            tsl_diag *diag) {
  memset(ft, 0, sizeof *ft);
  if (tsl_schedule_get_stmt(sch, block)->u.realize.block->n_writes != 1)
    return TSL_OK; /* a tuple reduction: compute_at is not tried */
  tsl_sch_rv cons[MAX_CONSUMERS];
  uint32_t nc = 0;
  tsl_sch_arg a = {NULL, tsl_sv_rv(block)};
  int rc = call_outs(sch, "get_consumers", 1, &a, cons, MAX_CONSUMERS, &nc, diag);
  if (rc || !nc || tsl_sch_needs_multi_level_tiling(sch, cons[0]))
    return rc;
  const tsl_stmt *lca = consumers_lca_loop(sch, cons, nc);
  if (nc > 1 && !lca)
    return TSL_OK; /* the consumers share no loop */
  tsl_sch_rv tgt_loops[MAX_LOOPS], block_loops[MAX_LOOPS];
  uint32_t nt = 0, nb = 0;
  if ((rc = get_loops(sch, cons[0], tgt_loops, &nt, diag)) ||
      (rc = get_loops(sch, block, block_loops, &nb, diag)))
    return rc;
  int pos = compute_position(sch, block_loops, nb, tgt_loops, nt, lca);
  if (pos < 0)
    return TSL_OK;
  *ft = (fuse_target){1, tgt_loops[pos], cons[0], tgt_loops[nt - 1]};
  return TSL_OK;
}

/* ---- the consumer's thread extent ----------------------------------------------------- */

/* Whether a loop of `block` is bound to a threadIdx axis (TVM's
 * InThreadScope, recording get_loops); *tx the loop bound to threadIdx.x,
 * NO_RV when none is. */
static int in_thread_scope(tsl_schedule *sch, tsl_sch_rv block, int *in_scope, tsl_sch_rv *tx,
                           tsl_diag *diag) {
  tsl_sch_rv loops[MAX_LOOPS];
  uint32_t nl = 0;
  int rc = get_loops(sch, block, loops, &nl, diag);
  *in_scope = 0;
  *tx = NO_RV;
  for (uint32_t i = 0; !rc && i < nl; i++) {
    const tsl_stmt *l = tsl_schedule_get_stmt(sch, loops[i]);
    tsl_str tag = l->u.loop.thread_tag;
    if (l->u.loop.for_kind != TSL_FOR_THREAD_BINDING || !tag || strncmp(tag, "threadIdx.", 10))
      continue;
    *in_scope = 1;
    if (!strcmp(tag, "threadIdx.x") && *tx == NO_RV)
      *tx = loops[i];
  }
  return rc;
}

/* The extent of the threadIdx.x loop `tx` as the value its split took
 * (TVM's GetThreadIdxExtentFromTrace): the sampled variable (or constant)
 * of the split in the trace that made the loop; the loop's constant extent
 * when no split made it (a fused loop). */
static int thread_extent_of(tsl_schedule *sch, tsl_sch_rv tx, tsl_sch_value *out,
                            tsl_diag *diag) {
  const tsl_stmt *loop = tsl_schedule_get_stmt(sch, tx);
  const tsl_trace *t = tsl_schedule_trace(sch);
  for (uint32_t i = 0; i < tsl_trace_len(t); i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    if (strcmp(in->kind->name, "split") || in->n_args < 2 || in->args[1].kind != TSL_SV_LIST)
      continue;
    for (uint32_t k = 0; k < in->n_outs && k < in->args[1].n; k++) {
      const tsl_stmt *o = tsl_schedule_get_stmt(sch, in->outs[k]);
      const tsl_sch_value *f = &in->args[1].u.items[k];
      if (!o || o->u.loop.loop_var != loop->u.loop.loop_var)
        continue;
      if (f->kind == TSL_SV_RV || f->kind == TSL_SV_INT) {
        *out = *f;
        return TSL_OK;
      }
    }
  }
  int64_t ext;
  if (!tsl_expr_is_const_int(loop->u.loop.extent, &ext))
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "CrossThreadReduction: the threadIdx.x loop '%s' has no constant extent",
                        tsl_schedule_rv_name(sch, tx));
  *out = tsl_sv_int(ext);
  return TSL_OK;
}

/* ---- the transformation ------------------------------------------------------------------ */

/* TVM's ReorderAndFuseReductionLoops: spatial loops first, then the
 * reduction loops, fused when there are several. */
static int reorder_and_fuse(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv *fused,
                            tsl_diag *diag) {
  tsl_sch_rv loops[MAX_LOOPS];
  uint32_t nl = 0, no = 0, nr = 0;
  int rc = get_loops(sch, block, loops, &nl, diag);
  if (rc)
    return rc;
  tsl_sch_arg order[MAX_LOOPS], red[MAX_LOOPS];
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < nl; i++) {
      int t = tsl_sch_loop_iter_type(sch, loops[i]);
      if (t != (pass ? TSL_ITER_REDUCE : TSL_ITER_SPATIAL))
        continue;
      order[no++] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[i])};
      if (pass)
        red[nr++] = order[no - 1];
    }
  if (no != nl || !nr)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "CrossThreadReduction: the loops of block '%s' are not all spatial or "
                        "reduction loops",
                        tsl_schedule_rv_name(sch, block));
  for (uint32_t i = 0; i < nl; i++)
    if (order[i].value.u.rv != loops[i]) {
      if ((rc = tsl_sch_call(sch, "reorder", no, order, NULL, NULL, diag)))
        return rc;
      break;
    }
  *fused = red[0].value.u.rv;
  return nr == 1 ? TSL_OK : call_outs(sch, "fuse", nr, red, fused, 1, NULL, diag);
}

static int sample_extent(const ctr_rule *r, tsl_schedule *sch, tsl_sch_rv *v, tsl_diag *diag) {
  uint32_t k = r->thread_extents.n;
  tsl_sch_value cand[RULE_MAX_INTS], probs[RULE_MAX_INTS];
  for (uint32_t i = 0; i < k; i++) {
    cand[i] = tsl_sv_int(r->thread_extents.v[i]);
    probs[i] = tsl_sv_float(1.0 / k);
  }
  tsl_sch_arg a[2] = {{"candidates", tsl_sv_list(k, cand)}, {"probs", tsl_sv_list(k, probs)}};
  return call_outs(sch, "sample_categorical", 2, a, v, 1, NULL, diag);
}

/* The block computed at its consumer's loop, the consumer's loop bound to
 * threads first when it is not yet; *extent becomes the consumer's thread
 * extent when it runs on threads already. */
static int fuse_into_consumer(tsl_schedule *sch, tsl_sch_rv block, fuse_target ft,
                              tsl_sch_value *extent, tsl_diag *diag) {
  int in_scope;
  tsl_sch_rv tx;
  int rc = in_thread_scope(sch, ft.block, &in_scope, &tx, diag);
  if (!rc && !in_scope) {
    tsl_sch_rv outer;
    rc = split_and_bind(sch, ft.innermost, *extent, &outer, diag);
    if (!rc && ft.innermost == ft.loop)
      ft.loop = outer;
  } else if (!rc && tx == NO_RV) {
    rc = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                      "CrossThreadReduction: block '%s' runs on threads but none on "
                      "threadIdx.x",
                      tsl_schedule_rv_name(sch, ft.block));
  } else if (!rc) {
    rc = thread_extent_of(sch, tx, extent, diag);
  }
  tsl_sch_arg ca[3] = {{"block", tsl_sv_rv(block)},
                       {"loop", tsl_sv_rv(ft.loop)},
                       {"preserve_unit_loops", tsl_sv_bool(1)}};
  if (!rc)
    rc = tsl_sch_call(sch, "compute_at", 3, ca, NULL, NULL, diag);
  tsl_sch_arg sa[3] = {{"block", tsl_sv_rv(block)},
                       {"buffer_index", tsl_sv_int(0)},
                       {"storage_scope", str_value(sch, "shared")}};
  if (!rc)
    rc = tsl_sch_call(sch, "set_scope", 3, sa, NULL, NULL, diag);
  return rc;
}

/* TVM's rule on its copy of the schedule. */
static int cross_thread(const ctr_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                        tsl_diag *diag) {
  fuse_target ft;
  tsl_sch_rv v = 0, fused = 0;
  int rc = find_fuse_target(sch, block, &ft, diag);
  if (!rc)
    rc = sample_extent(r, sch, &v, diag);
  tsl_sch_value extent = tsl_sv_rv(v);
  if (!rc && ft.fusible)
    rc = fuse_into_consumer(sch, block, ft, &extent, diag);
  if (!rc)
    rc = reorder_and_fuse(sch, block, &fused, diag);
  if (!rc)
    rc = split_and_bind(sch, fused, extent, NULL, diag);
  return rc;
}

static int ctr_apply(tsl_sch_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                     tsl_schedule_list *out, tsl_diag *diag) {
  if (r->max_threads_per_block == -1 || r->warp_size == -1 ||
      tsl_sch_is_root_block(sch, block) || !needs_ctr(sch, block, r->max_threads_per_block))
    return tsl_schedule_list_push(out, sch);
  tsl_schedule *tmp = NULL;
  int rc = tsl_schedule_fork(sch, &tmp, diag);
  if (rc) {
    tsl_schedule_free(sch);
    return rc;
  }
  tsl_diag why = {0};
  rc = cross_thread(r, tmp, block, &why);
  if (rc == TSL_ENOMEM) {
    tsl_schedule_free(tmp);
    tsl_schedule_free(sch);
    return tsl_diag_set(diag, rc, "%s", why.text);
  }
  if (rc) { /* a primitive refused: the sketch is dropped, the original kept */
    tsl_schedule_free(tmp);
  } else if ((rc = tsl_schedule_list_push(out, tmp))) {
    tsl_schedule_free(sch);
    return tsl_diag_set(diag, rc, "CrossThreadReduction: out of memory");
  }
  return tsl_schedule_list_push(out, sch);
}

const tsl_schedule_rule_vtable rule_cross_thread_reduction_vt = {
    sizeof(tsl_schedule_rule_vtable), ctr_create, ctr_destroy, ctr_apply};
