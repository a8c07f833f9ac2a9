/*
 * core/rules/rule_mlt.h — MultiLevelTiling's parts its tensor-core variant
 * shares (rule_multi_level_tiling.c, rule_mlt_tensor_core.c): options,
 * the states a block's sketches branch into, and the sub-rules.
 */
#ifndef TESSEL_RULE_MLT_H
#define TESSEL_RULE_MLT_H

#include "rules_internal.h"

enum { MAX_LEVELS = 16, MAX_PER_LEVEL = 32, MAX_STATES = 64, MAX_READS = 16 };
enum { REUSE_NO, REUSE_MAY, REUSE_MUST };

typedef struct reuse {
  char req[RULE_STR_MAX];
  rule_ints levels;
  char scope[RULE_STR_MAX];
} reuse;

typedef struct mlt_rule {
  char structure[RULE_STR_MAX];
  char tile_binds[RULE_STR_MAX]; /* comma-separated thread axes */
  int64_t max_innermost_factor;
  rule_ints vector_load_lens;
  int64_t thread_warp_size;      /* -1: no thread-extent annotations (CPU) */
  int64_t max_threads_per_block; /* their upper bound */
  reuse read, write;
  /* derived */
  uint32_t s_idx[MAX_LEVELS], r_idx[MAX_LEVELS], n_s, n_r;
  int read_req, write_req;
} mlt_rule;


typedef struct state {
  tsl_schedule *sch;
  uint32_t n_levels;
  uint32_t n[MAX_LEVELS];
  tsl_sch_rv tiles[MAX_LEVELS][MAX_PER_LEVEL];
  /* per level, the sampled factor of each loop split into it (TVM's
   * tile_factors: loops whose kind has one tile get none) */
  uint32_t n_factors[MAX_LEVELS];
  tsl_sch_rv factors[MAX_LEVELS][MAX_PER_LEVEL];
  /* the caches the reuse steps made (TVM's read_reuse / write_reuse) */
  uint32_t n_read_cache;
  tsl_sch_rv read_cache[MAX_READS];
  int32_t read_cache_index[MAX_READS]; /* the read buffer each caches */
  int has_write_cache;
  tsl_sch_rv write_cache;
  /* MultiLevelTilingTensorCore: the reindex blocks of the output and the
   * two inputs, the intrinsic group */
  tsl_sch_rv tc_reindex_store, tc_reindex_a, tc_reindex_b;
  int32_t tc_group;
} state;

typedef struct states {
  uint32_t n;
  state *s[MAX_STATES];
} states;

/* The options table (offsets into mlt_rule) and its defaults: TVM's llvm
 * list ("SSRSRS", 64, write reuse may / [1, 2] / global, no read reuse). */
extern const rule_opt mlt_opts[];
extern const uint32_t mlt_n_opts;
void mlt_defaults(mlt_rule *r);
/* The derived fields and the checks, after the options were read; `who`
 * names the rule in messages. */
int mlt_finish(const char *who, mlt_rule *r, tsl_diag *diag);

void mlt_states_free(states *ss);
int mlt_states_push(states *ss, state *s, tsl_diag *diag);
state *mlt_state_copy(const state *s, tsl_diag *diag);
/* Push `s` when rc is TSL_OK, else drop it; rc or the push's status. */
int mlt_keep_or_drop(states *out, state *s, int rc, tsl_diag *diag);
/* A call returning a list of handles into out[0 .. *n). */
int mlt_call_list(tsl_schedule *sch, const char *inst, uint32_t n_args, const tsl_sch_arg *args,
                  tsl_sch_rv *out, uint32_t max, uint32_t *n, tsl_diag *diag);
static inline tsl_sch_value mlt_rv(tsl_sch_rv x) { return tsl_sv_rv(x); }
static inline tsl_sch_value mlt_str(tsl_schedule *sch, const char *s) {
  return tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), s));
}

/* TVM's TileLoopNest: every loop of `block` split into the structure's
 * tiles, reordered, the first levels fused and bound; `inner_spatial` >= 0
 * tiles only that many innermost spatial loops (the others join the first
 * level's fuse), -1 all of them. */
int mlt_tile_loop_nest(const mlt_rule *r, state *st, tsl_sch_rv block, int inner_spatial,
                       tsl_diag *diag);
tsl_sch_rv mlt_last_of_level(const state *s, int64_t level);
/* compute_at / reverse_compute_at (`inst`) of `cache` under the last loop
 * of tile level `level` (1-based), unit loops kept. */
int mlt_move_under(state *s, tsl_sch_rv cache, int64_t level, const char *inst,
                   tsl_diag *diag);
/* TVM's AnnotateCooperativeFetching: a sampled vector length on `cache`. */
int mlt_annotate_cooperative_fetch(const mlt_rule *r, tsl_schedule *sch, tsl_sch_rv cache,
                                   tsl_diag *diag);

/* Sub-rules: each takes a state and pushes what it becomes onto `out`. */
typedef int (*sub_rule)(const mlt_rule *r, state *st, tsl_sch_rv block, states *out,
                        tsl_diag *diag);
int mlt_add_write_reuse(const mlt_rule *r, state *st, tsl_sch_rv block, states *out,
                        tsl_diag *diag);
int mlt_add_read_reuse(const mlt_rule *r, state *st, tsl_sch_rv block, states *out,
                       tsl_diag *diag);
/* MultiLevelTiling's sub-rules on `block` of `sch` (which it takes):
 * TileLoopNest, AddWriteReuse, AddReadReuse; the schedules pushed to
 * `out`. */
int mlt_tile_and_push(const mlt_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                      tsl_schedule_list *out, tsl_diag *diag);
/* The loops above `block`, outermost first (at most MAX_PER_LEVEL * 2;
 * a recorded get_loops). */
int mlt_loops_of(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv *loops, uint32_t *n,
                 tsl_diag *diag);
/* TVM's SubRule: each state through `fn`, the results concatenated. */
int mlt_apply_sub(const mlt_rule *r, states *ss, sub_rule fn, tsl_sch_rv block, tsl_diag *diag);

/* ---- tensor intrinsics (tensorize_tiling.c) ------------------------------ */

/* The extents of the loops of a description's nest, outermost first (the
 * intrinsic's tile); 0 when one is not constant. */
uint32_t rule_desc_extents(const tsl_func *desc, int64_t *ext, uint32_t max);
/* TVM's TileWithTensorIntrin: the block's loops mapped to the description's
 * (GetTensorizeLoopMapping), padded when `allow_padding` and needed, split
 * by its extents and the inner parts reordered innermost; *inner the first
 * of them. *applicable 0 (the schedule untouched) when they do not map. */
int rule_tile_with_intrin(tsl_schedule *sch, tsl_sch_rv block, const tsl_func *desc,
                          int allow_padding, tsl_sch_rv *inner, int *applicable,
                          tsl_diag *diag);

#endif
