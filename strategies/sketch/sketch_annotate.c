/*
 * strategies/sketch/sketch_annotate.c — Ansor's init population rules as
 * trace instructions on a finished sketch: InitChangeComputeLocation as
 * sample_compute_location + compute_at, InitParallel / InitVectorization /
 * InitUnroll as the root block's meta_schedule annotations, which the
 * target's RewriteParallelVectorizeUnroll turns into loops (README.md).
 * Tile sizes (InitFillTileSize) are the sketch's sample_perfect_tile
 * decisions already.
 */
#include <string.h>

#include "sketch.h"
#include "tessel/visit.h"

static const int64_t sk_unroll_steps[4] = {0, 16, 64, 512}; /* Ansor's CPU configs */

static int count_blocks(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)b;
  (void)realize;
  ++*(int *)ud;
  return 0;
}

/* The stage a compute location may be sampled for (Ansor: not tiled, not
 * multi-level-tiling material, with a consumer), directly under the root
 * block with an outermost loop of its own, and with somewhere to go. */
static int movable(sk_state *st, int32_t s) {
  const tsl_block *b = sk_stage_block(st, s);
  tsl_sch_rv rv = st->stages[s];
  if (!b || tsl_attrs_get(b->annotations, "meta_schedule.tiling_structure") ||
      tsl_sch_needs_multi_level_tiling(st->sch, rv) ||
      !tsl_sch_block_deps(st->sch, rv, 0, NULL, 0))
    return 0;
  const tsl_stmt *loops[1];
  uint32_t n_loops = 0;
  const tsl_stmt *scope = tsl_sch_block_scope(st->sch, rv, loops, 1, &n_loops);
  if (!n_loops || scope != tsl_schedule_get_stmt(st->sch, st->root))
    return 0;
  int blocks = 0;
  tsl_stmt_visitor v = {.block = count_blocks, .user_data = &blocks};
  tsl_stmt_visit(loops[0], &v);
  int64_t where[2];
  return blocks == 1 && tsl_sch_compute_locations(st->sch, rv, where, 2) > 1;
}

static int annotate_root(sk_state *st, const char *key, tsl_sch_value v, tsl_diag *diag) {
  tsl_ctx *ctx = tsl_schedule_ctx(st->sch);
  tsl_sch_arg a[3] = {{NULL, tsl_sv_rv(st->root)},
                      {NULL, tsl_sv_str(tsl_intern(ctx, key))},
                      {NULL, v}};
  return tsl_sch_call(st->sch, "annotate", 3, a, NULL, NULL, diag);
}

int sk_annotate(const sk_ctx *c, sk_state *st, tsl_diag *diag) {
  int rc = TSL_OK, any_reduce = 0;
  for (int32_t s = (int32_t)st->n_stages - 1; s >= 0 && !rc; s--) {
    if (sk_stage_block(st, s) && !tsl_sch_is_spatial_block(st->sch, st->stages[s]))
      any_reduce = 1;
    if (c->disable_change_compute_location || !movable(st, s))
      continue;
    tsl_sch_arg sa = {NULL, tsl_sv_rv(st->stages[s])};
    const tsl_sch_rv *loc = NULL;
    rc = tsl_sch_call(st->sch, "sample_compute_location", 1, &sa, &loc, NULL, diag);
    if (!rc) {
      tsl_sch_arg ca[3] = {{NULL, tsl_sv_rv(st->stages[s])},
                           {NULL, tsl_sv_rv(loc[0])},
                           {"preserve_unit_loops", tsl_sv_bool(1)}};
      rc = tsl_sch_call(st->sch, "compute_at", 3, ca, NULL, NULL, diag);
    }
  }
  if (!rc)
    rc = annotate_root(st, "meta_schedule.parallel", tsl_sv_int((int64_t)c->num_cores * 16), diag);
  if (!rc)
    rc = annotate_root(st, "meta_schedule.vectorize", tsl_sv_int(c->max_vectorize_size), diag);
  if (!rc && any_reduce) {
    tsl_sch_value cand[4], prob[4];
    for (int i = 0; i < 4; i++) {
      cand[i] = tsl_sv_int(sk_unroll_steps[i]);
      prob[i] = tsl_sv_float(0.25);
    }
    tsl_sch_arg sa[2] = {{NULL, tsl_sv_list(4, cand)}, {NULL, tsl_sv_list(4, prob)}};
    const tsl_sch_rv *v = NULL;
    rc = tsl_sch_call(st->sch, "sample_categorical", 2, sa, &v, NULL, diag);
    if (!rc)
      rc = annotate_root(st, "meta_schedule.unroll_explicit", tsl_sv_rv(v[0]), diag);
  }
  return rc;
}
