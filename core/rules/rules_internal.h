/*
 * Private helpers of core/rules: option tables, calls on a schedule, the
 * built-in components.
 */
#ifndef TESSEL_RULES_INTERNAL_H
#define TESSEL_RULES_INTERNAL_H

#include "tessel/tessel.h"

/* ---- options -------------------------------------------------------------- */

enum { RULE_OPT_BOOL, RULE_OPT_INT, RULE_OPT_INTS, RULE_OPT_STR };

#define RULE_STR_MAX 512

#define RULE_MAX_INTS 16
typedef struct rule_ints {
  uint32_t n;
  int64_t v[RULE_MAX_INTS];
} rule_ints;

/* One option: the key, its type and where it goes in the options struct
 * (int32_t for BOOL, int64_t for INT, rule_ints for INTS, char[RULE_STR_MAX]
 * for STR). */
typedef struct rule_opt {
  const char *key;
  int type;
  size_t offset;
} rule_opt;

/* Read `opts` into `out` by `table`: "true"/"false" (or 1/0), integers,
 * integer lists ("[0, 16, 64]" or "0,16,64"). An unknown key or a bad value
 * is TSL_EINVALID naming the rule, the key and what would be valid. */
int rule_parse_opts(const char *rule, const rule_opt *table, uint32_t n_table,
                    uint32_t n, const tsl_kv *opts, void *out, tsl_diag *diag);

/* A zeroed instance of `size` bytes for a component that takes no options
 * (any option is an error naming the component). */
int rule_create_plain(const char *name, uint32_t n, const tsl_kv *opts, size_t size,
                      void **out, tsl_diag *diag);

/* ---- schedule calls ---------------------------------------------------------- */

/* tsl_sch_call with positional arguments; *out the first output (may be
 * NULL). */
int rule_call(tsl_schedule *sch, const char *inst, uint32_t n, const tsl_sch_value *args,
              tsl_sch_rv *out, tsl_diag *diag);
/* tsl_sch_call with named or positional arguments; *out the first output
 * (may be NULL). */
int rule_call_args(tsl_schedule *sch, const char *inst, uint32_t n, const tsl_sch_arg *args,
                   tsl_sch_rv *out, tsl_diag *diag);
/* The outputs of a list-returning query (get_producers, ...), recorded in
 * the trace as TVM's rules record it: heap array (free()), or NULL with *n
 * 0. */
tsl_sch_rv *rule_query(tsl_schedule *sch, const char *inst, tsl_sch_rv rv, uint32_t *n);
/* The block's annotation `key`, or NULL. */
const tsl_attr_value *rule_block_ann(tsl_schedule *sch, tsl_sch_rv block, const char *key);

/* ---- thread binding (thread_bind.c) ------------------------------------------ */

/* How a block's loops are bound to blockIdx.x / threadIdx.x: the limits,
 * and the thread extents to sample from (NULL: the largest extent allowed,
 * no sample). */
typedef struct rule_bind_opts {
  int64_t max_threadblocks;
  int64_t max_threads_per_block;
  const rule_ints *thread_extents;
} rule_bind_opts;

/* TVM's BindBlockThreadIdx on `block` (thread_bind.c says what it does);
 * TSL_EINVALID naming the block when it cannot be bound. */
int rule_bind_block_thread_idx(tsl_schedule *sch, tsl_sch_rv block, const rule_bind_opts *o,
                               tsl_diag *diag);
/* The options in range, or TSL_EINVALID naming `who` and the valid range. */
int rule_bind_check_opts(const char *who, const rule_bind_opts *o, tsl_diag *diag);
/* 0 for a loop bound to blockIdx.*, 1 to threadIdx.*, -1 otherwise. */
int rule_loop_thread_rank(const tsl_stmt *loop);

/* The common part of TVM's NeedsRFactorOrCrossThreadReduction (AddRFactor
 * and CrossThreadReduction each end it their own way): a reduction block
 * with a write, trivial bindings and no tiling yet, its loops a perfect
 * chain of constant spatial or reduction loops with a reduction among
 * them. 1 with the products of the spatial and of the reduction extents. */
int rule_reduction_extents(tsl_schedule *sch, tsl_sch_rv block, int64_t *space,
                           int64_t *reduce);

/* A sample_categorical instruction's decision other than `old`, drawn by
 * the other candidates' probabilities (TVM's MakeMultinomialSampler after
 * erasing the old one); -1 when there is no other. */
int64_t rule_redraw_categorical(const tsl_trace_inst *in, int64_t old, uint64_t *rng);

/* ---- auto tensorization (tensorize_mapping.c) ------------------------------------ */

enum { RULE_TZ_MAX_ITERS = 16, RULE_TZ_MAX_BUFS = 8 };

/* TVM's AutoTensorizeMappingInfo: a block ("lhs") against a tensor
 * intrinsic's description block ("rhs"). */
typedef struct rule_tz_map {
  const tsl_block *block, *desc;
  uint32_t n_lhs, n_rhs;                /* their iterators */
  int32_t rhs_of[RULE_TZ_MAX_ITERS];    /* per block iterator: the description's it fuses
                                           into, -1 when it stays outside */
  uint32_t n_bufs;                      /* buffer pairs, in order of appearance */
  const tsl_buffer *lhs[RULE_TZ_MAX_BUFS], *rhs[RULE_TZ_MAX_BUFS];
  uint32_t n_lhs_idx[RULE_TZ_MAX_BUFS], n_rhs_idx[RULE_TZ_MAX_BUFS];
  const tsl_expr *lhs_idx[RULE_TZ_MAX_BUFS][RULE_TZ_MAX_ITERS]; /* the indices of each */
  const tsl_expr *rhs_idx[RULE_TZ_MAX_BUFS][RULE_TZ_MAX_ITERS];
} rule_tz_map;

/* 1 and *out when `block` computes what `desc` describes up to indices,
 * with a unique mapping of iterators (tensorize_mapping.c has the rule);
 * 0 otherwise. */
int rule_tz_mapping(const tsl_block *block, const tsl_func *desc, rule_tz_map *out);

/* ---- built-ins ------------------------------------------------------------------ */

extern const tsl_schedule_rule_vtable rule_auto_inline_vt;
extern const tsl_schedule_rule_vtable rule_inline_const_scalars_vt;
extern const tsl_schedule_rule_vtable rule_add_rfactor_vt;
extern const tsl_schedule_rule_vtable rule_multi_level_tiling_vt;
extern const tsl_schedule_rule_vtable rule_parallel_vectorize_unroll_vt;
extern const tsl_schedule_rule_vtable rule_random_compute_location_vt;
extern const tsl_schedule_rule_vtable rule_auto_bind_vt;
extern const tsl_schedule_rule_vtable rule_cross_thread_reduction_vt;
extern const tsl_schedule_rule_vtable rule_multi_level_tiling_tensor_core_vt;
extern const tsl_schedule_rule_vtable rule_multi_level_tiling_with_intrin_vt;

extern const tsl_postproc_vtable postproc_disallow_dynamic_loop_vt;
extern const tsl_postproc_vtable postproc_parallel_vectorize_unroll_vt;
extern const tsl_postproc_vtable postproc_rewrite_reduction_block_vt;
extern const tsl_postproc_vtable postproc_rewrite_layout_vt;
extern const tsl_postproc_vtable postproc_verify_gpu_code_vt;
extern const tsl_postproc_vtable postproc_rewrite_unbound_block_vt;
extern const tsl_postproc_vtable postproc_cooperative_fetch_vt;
extern const tsl_postproc_vtable postproc_rewrite_tensorize_vt;

extern const tsl_trace_mutator_vtable mutator_tile_size_vt;
extern const tsl_trace_mutator_vtable mutator_unroll_vt;
extern const tsl_trace_mutator_vtable mutator_compute_location_vt;
extern const tsl_trace_mutator_vtable mutator_parallel_vt;
extern const tsl_trace_mutator_vtable mutator_thread_binding_vt;

/* Register the built-in rules, postprocessors and mutators in `reg`. */
int rules_register_builtins(tsl_registry *reg, tsl_diag *diag);

#endif
