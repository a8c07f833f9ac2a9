/*
 * Binding a block's outer loops to blockIdx.x / threadIdx.x, the helper
 * AutoBind and RewriteUnboundBlock share (TVM's BindBlockThreadIdx and
 * BindSpatialLoop semantics):
 *   - the root block and a block MultiLevelTiling tiled are left alone, and
 *     so is a block already under both a blockIdx and a threadIdx loop;
 *   - a block under blockIdx but no threadIdx is an error;
 *   - a block with no spatial loop outermost gets a unit loop above its
 *     loops (or above itself when it has none);
 *   - under threadIdx only: the loops above it (up to the first loop that is
 *     not serial or holds several statements, and the leading spatial ones)
 *     are fused and bound to blockIdx.x;
 *   - otherwise those leading spatial loops are fused and the fused loop
 *     split [None, f] into blockIdx.x x threadIdx.x, f chosen by the caller
 *     (sampled or fixed); past max_threadblocks x max_threads_per_block it
 *     is split [None, max_threadblocks, max_threads_per_block], the blocks
 *     and threads first and the rest serial inside.
 */
#include "rules_internal.h"

#include <string.h>

enum { MAX_BIND_LOOPS = 64 };

/* TVM's ThreadScope ranks: vthread and plain loops are neither. */
int rule_loop_thread_rank(const tsl_stmt *loop) {
  if (!loop || loop->kind != TSL_STMT_FOR || loop->u.loop.for_kind != TSL_FOR_THREAD_BINDING ||
      !loop->u.loop.thread_tag)
    return -1;
  const char *tag = loop->u.loop.thread_tag;
  if (!strncmp(tag, "blockIdx.", 9))
    return 0;
  if (!strncmp(tag, "threadIdx.", 10) && tag[10] >= 'x')
    return 1;
  return -1;
}

/* What the loops above a block say about binding it. */
typedef struct bind_facts {
  int block_idx, thread_idx; /* the first such loop, -1 when none */
  int multi_child;           /* fuse no loop from here on */
  uint32_t n;                /* loops above the block in its scope */
} bind_facts;

static int single_stmt(const tsl_stmt *body) {
  return body->kind != TSL_STMT_SEQ || body->u.seq.n == 1;
}

static int read_facts(tsl_schedule *sch, tsl_sch_rv block, bind_facts *f, tsl_diag *diag) {
  const tsl_stmt *loops[MAX_BIND_LOOPS];
  uint32_t n = 0;
  tsl_sch_block_scope(sch, block, loops, MAX_BIND_LOOPS, &n);
  *f = (bind_facts){-1, -1, -1, n};
  if (n > MAX_BIND_LOOPS)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "block '%s' has %u loops above it; at most %d can be bound",
                        tsl_schedule_rv_name(sch, block), n, MAX_BIND_LOOPS);
  for (uint32_t i = 0; i < n; i++) {
    int rank = rule_loop_thread_rank(loops[i]);
    if (rank == 0 && f->block_idx < 0)
      f->block_idx = (int)i;
    if (rank == 1 && f->thread_idx < 0)
      f->thread_idx = (int)i;
    if (f->multi_child < 0 && loops[i]->u.loop.for_kind != TSL_FOR_SERIAL)
      f->multi_child = (int)i;
    if (f->multi_child < 0 && !single_stmt(loops[i]->u.loop.body))
      f->multi_child = (int)i + 1;
  }
  if (f->multi_child < 0)
    f->multi_child = (int)n;
  return TSL_OK;
}

/* ---- schedule calls ------------------------------------------------------- */

static int get_loops(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv *out, uint32_t *n,
                     tsl_diag *diag) {
  const tsl_sch_rv *loops;
  int rc = tsl_sch_get_loops(sch, block, &loops, n, diag);
  if (!rc && *n > MAX_BIND_LOOPS)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "block '%s' has more than %d loops",
                        tsl_schedule_rv_name(sch, block), MAX_BIND_LOOPS);
  if (!rc && *n) /* a block without loops: no array */
    memcpy(out, loops, sizeof *out * *n);
  return rc;
}

static int fuse(tsl_schedule *sch, const tsl_sch_rv *loops, uint32_t n, tsl_sch_rv *out,
                tsl_diag *diag) {
  tsl_sch_arg a[MAX_BIND_LOOPS + 1];
  for (uint32_t i = 0; i < n; i++)
    a[i] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[i])};
  return rule_call_args(sch, "fuse", n, a, out, diag);
}

static int bind(tsl_schedule *sch, tsl_sch_rv loop, const char *axis, tsl_diag *diag) {
  tsl_sch_value a[2] = {tsl_sv_rv(loop), tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), axis))};
  return rule_call(sch, "bind", 2, a, NULL, diag);
}

static int split(tsl_schedule *sch, tsl_sch_rv loop, uint32_t n, const tsl_sch_value *factors,
                 tsl_sch_rv *parts, tsl_diag *diag) {
  tsl_sch_arg a[2] = {{"loop", tsl_sv_rv(loop)}, {"factors", tsl_sv_list(n, factors)}};
  const tsl_sch_rv *outs;
  uint32_t n_outs;
  int rc = tsl_sch_call(sch, "split", 2, a, &outs, &n_outs, diag);
  if (!rc)
    memcpy(parts, outs, sizeof *parts * (n_outs < n ? n_outs : n));
  return rc;
}

/* ---- BindSpatialLoop ------------------------------------------------------ */

/* The thread extent: with candidates (AutoBind), those not above
 * max_extent, sampled with equal probabilities when there are several, the
 * one when there is one, max_extent when there is none (TVM's
 * MakeFactorSampler); without (RewriteUnboundBlock), max_extent. */
static int thread_factor(tsl_schedule *sch, const rule_ints *cands, int64_t max_extent,
                         tsl_sch_value *out, tsl_diag *diag) {
  tsl_sch_value c[RULE_MAX_INTS], p[RULE_MAX_INTS];
  uint32_t k = 0;
  for (uint32_t i = 0; cands && i < cands->n; i++)
    if (cands->v[i] <= max_extent)
      c[k++] = tsl_sv_int(cands->v[i]);
  if (k <= 1) {
    *out = k ? c[0] : tsl_sv_int(max_extent);
    return TSL_OK;
  }
  for (uint32_t i = 0; i < k; i++)
    p[i] = tsl_sv_float(1.0 / k);
  tsl_sch_value a[2] = {tsl_sv_list(k, c), tsl_sv_list(k, p)};
  tsl_sch_rv v;
  int rc = rule_call(sch, "sample_categorical", 2, a, &v, diag);
  if (!rc)
    *out = tsl_sv_rv(v);
  return rc;
}

static int bind_spatial_loop(tsl_schedule *sch, tsl_sch_rv loop, const rule_bind_opts *o,
                             tsl_diag *diag) {
  const tsl_stmt *s = tsl_schedule_get_stmt(sch, loop);
  int64_t extent;
  if (!s || !tsl_expr_is_const_int(s->u.loop.extent, &extent))
    extent = INT64_MAX;
  tsl_sch_rv parts[3];
  int rc;
  if (extent <= o->max_threadblocks * o->max_threads_per_block) {
    tsl_sch_value f[2] = {tsl_sv_none(), tsl_sv_none()};
    int64_t max_extent = extent < o->max_threads_per_block ? extent : o->max_threads_per_block;
    if ((rc = thread_factor(sch, o->thread_extents, max_extent, &f[1], diag)) ||
        (rc = split(sch, loop, 2, f, parts, diag)))
      return rc;
  } else {
    tsl_sch_value f[3] = {tsl_sv_none(), tsl_sv_int(o->max_threadblocks),
                          tsl_sv_int(o->max_threads_per_block)};
    if ((rc = split(sch, loop, 3, f, parts, diag)))
      return rc;
    tsl_sch_value r[3] = {tsl_sv_rv(parts[1]), tsl_sv_rv(parts[2]), tsl_sv_rv(parts[0])};
    if ((rc = rule_call(sch, "reorder", 3, r, NULL, diag)))
      return rc;
    parts[0] = parts[1];
    parts[1] = parts[2];
  }
  if ((rc = bind(sch, parts[0], "blockIdx.x", diag)))
    return rc;
  return bind(sch, parts[1], "threadIdx.x", diag);
}

/* ---- BindBlockThreadIdx --------------------------------------------------- */

/* The last of the leading loops whose iterators are all spatial, -1 when
 * the first is not. */
static int last_leading_spatial(tsl_schedule *sch, const tsl_sch_rv *loops, uint32_t n) {
  int last = -1;
  for (uint32_t i = 0; i < n && last == (int)i - 1; i++)
    if (tsl_sch_loop_iter_type(sch, loops[i]) == TSL_ITER_SPATIAL)
      last = (int)i;
  return last;
}

static int fuse_count_error(tsl_schedule *sch, tsl_sch_rv block, tsl_diag *diag) {
  return tsl_diag_set(diag, TSL_EINVALID,
                      "block '%s': no loop can be fused for blockIdx.x, the outermost loop "
                      "above it is not serial (parallel, vectorized, unrolled or "
                      "thread-bound); only leading serial spatial loops are fused and bound",
                      tsl_schedule_rv_name(sch, block));
}

int rule_bind_block_thread_idx(tsl_schedule *sch, tsl_sch_rv block, const rule_bind_opts *o,
                               tsl_diag *diag) {
  if (tsl_sch_is_root_block(sch, block) ||
      rule_block_ann(sch, block, "meta_schedule.tiling_structure"))
    return TSL_OK;
  bind_facts f;
  int rc = read_facts(sch, block, &f, diag);
  if (rc || (f.block_idx >= 0 && f.thread_idx >= 0))
    return rc;
  if (f.block_idx >= 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "block '%s' is under a blockIdx loop but no threadIdx loop; bind a "
                        "threadIdx loop inside the blockIdx one, or neither",
                        tsl_schedule_rv_name(sch, block));
  tsl_sch_rv loops[MAX_BIND_LOOPS + 1];
  uint32_t n;
  if ((rc = get_loops(sch, block, loops, &n, diag)))
    return rc;
  int spatial = last_leading_spatial(sch, loops, n);
  if (spatial < 0) {
    tsl_sch_rv unit;
    tsl_sch_value a = tsl_sv_rv(n ? loops[0] : block);
    if ((rc = rule_call(sch, "add_unit_loop", 1, &a, &unit, diag)))
      return rc;
    memmove(loops + 1, loops, sizeof *loops * n++);
    loops[0] = unit;
    spatial = 0;
    f.thread_idx += f.thread_idx >= 0;
    f.multi_child++;
  }
  tsl_sch_rv fused;
  if (f.thread_idx >= 0) {
    int k = f.multi_child < f.thread_idx ? f.multi_child : f.thread_idx;
    k = k < spatial + 1 ? k : spatial + 1;
    if (k <= 0)
      return fuse_count_error(sch, block, diag);
    if ((rc = get_loops(sch, block, loops, &n, diag)) ||
        (rc = fuse(sch, loops, (uint32_t)k, &fused, diag)))
      return rc;
    return bind(sch, fused, "blockIdx.x", diag);
  }
  int k = f.multi_child < spatial + 1 ? f.multi_child : spatial + 1;
  if (k <= 0)
    return fuse_count_error(sch, block, diag);
  if ((rc = fuse(sch, loops, (uint32_t)k, &fused, diag)))
    return rc;
  return bind_spatial_loop(sch, fused, o, diag);
}

/* ---- options ------------------------------------------------------------------ */

int rule_bind_check_opts(const char *who, const rule_bind_opts *o, tsl_diag *diag) {
  const int64_t limit = (int64_t)1 << 31;
  if (o->max_threadblocks < 1 || o->max_threadblocks > limit)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s: max_threadblocks is %lld; it must be from 1 to 2^31", who,
                        (long long)o->max_threadblocks);
  if (o->max_threads_per_block < 1 || o->max_threads_per_block > limit)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s: max_threads_per_block is %lld; it must be from 1 to 2^31", who,
                        (long long)o->max_threads_per_block);
  for (uint32_t i = 0; o->thread_extents && i < o->thread_extents->n; i++)
    if (o->thread_extents->v[i] < 1)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "%s: thread_extents has %lld; thread extents must be positive", who,
                          (long long)o->thread_extents->v[i]);
  return TSL_OK;
}
