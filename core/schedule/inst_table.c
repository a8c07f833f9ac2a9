/*
 * The instruction table: every schedule primitive with its parameters
 * (names, types, defaults as in TVM's tir.Schedule), its output and its
 * apply function.
 */
#include "sch_internal.h"

#include <string.h>

#define REQ TSL_SPF_REQUIRED
#define ATTR TSL_SPF_ATTR
#define NONE_ {TSL_SV_NONE, 0, {0}}
#define INT_(v) {TSL_SV_INT, 0, {.i = (v)}}
#define BOOL_(v) {TSL_SV_BOOL, 0, {.i = (v)}}
#define P(name, type, flags) {name, type, flags, NONE_}
#define PD(name, type, flags, def) {name, type, flags, def}
#define N_(arr) (uint32_t)(sizeof(arr) / sizeof(arr[0]))

static const tsl_sch_param p_get_block[] = {
    P("name", TSL_SP_STR, REQ | ATTR), P("func_name", TSL_SP_STR, ATTR)};
static const tsl_sch_param p_block[] = {P("block", TSL_SP_BLOCK, REQ)};
static const tsl_sch_param p_block_or_loop[] = {
    P("block_or_loop", TSL_SP_BLOCK_OR_LOOP, REQ)};
static const tsl_sch_param p_loop[] = {P("loop", TSL_SP_LOOP, REQ)};
static const tsl_sch_param p_split[] = {
    P("loop", TSL_SP_LOOP, REQ), P("factors", TSL_SP_FACTORS, REQ),
    PD("preserve_unit_iters", TSL_SP_BOOL, ATTR, BOOL_(1)),
    PD("disable_predication", TSL_SP_BOOL, ATTR, BOOL_(0))};
static const tsl_sch_param p_fuse[] = {
    P("loops", TSL_SP_LOOPS, REQ | TSL_SPF_VARARGS),
    PD("preserve_unit_iters", TSL_SP_BOOL, ATTR, BOOL_(1))};
static const tsl_sch_param p_reorder[] = {
    P("ordered_loops", TSL_SP_LOOPS, REQ | TSL_SPF_VARARGS)};
static const tsl_sch_param p_bind[] = {
    P("loop", TSL_SP_LOOP, REQ), P("thread_axis", TSL_SP_STR, REQ | ATTR)};
static const tsl_sch_param p_annotate[] = {
    P("block_or_loop", TSL_SP_BLOCK_OR_LOOP, REQ),
    P("ann_key", TSL_SP_STR, REQ | ATTR), P("ann_val", TSL_SP_ANY, REQ)};
static const tsl_sch_param p_unannotate[] = {
    P("block_or_loop", TSL_SP_BLOCK_OR_LOOP, REQ),
    P("ann_key", TSL_SP_STR, REQ | ATTR)};
static const tsl_sch_param p_compute_at[] = {
    P("block", TSL_SP_BLOCK, REQ), P("loop", TSL_SP_LOOP, REQ),
    PD("preserve_unit_loops", TSL_SP_BOOL, ATTR, BOOL_(0)),
    PD("index", TSL_SP_INT, ATTR, INT_(-1))};
static const tsl_sch_param p_sample_compute_location[] = {
    P("block", TSL_SP_BLOCK, REQ), P("decision", TSL_SP_DECISION, 0)};
#define BUFNAME TSL_SPF_BUFFER_NAME
static const tsl_sch_param p_cache_read[] = {
    P("block", TSL_SP_BLOCK, REQ),
    P("read_buffer_index", TSL_SP_INT, REQ | ATTR | BUFNAME),
    P("storage_scope", TSL_SP_STR, REQ | ATTR),
    P("consumer_blocks", TSL_SP_BLOCKS, 0)};
static const tsl_sch_param p_cache_write[] = {
    P("block", TSL_SP_BLOCK, REQ),
    P("write_buffer_index", TSL_SP_INT, REQ | ATTR | BUFNAME),
    P("storage_scope", TSL_SP_STR, REQ | ATTR),
    P("consumer_blocks", TSL_SP_BLOCKS, 0)};
static const tsl_sch_param p_cache_inplace[] = {
    P("block", TSL_SP_BLOCK, REQ),
    P("read_buffer_index", TSL_SP_INT, REQ | ATTR | BUFNAME),
    P("storage_scope", TSL_SP_STR, REQ | ATTR)};
static const tsl_sch_param p_cache_index[] = {
    P("block", TSL_SP_BLOCK, REQ), P("storage_scope", TSL_SP_STR, REQ | ATTR),
    PD("cse_thresh", TSL_SP_INT, ATTR, INT_(0))};
static const tsl_sch_param p_reindex[] = {
    P("block", TSL_SP_BLOCK, REQ), P("buffer", TSL_SP_BUFFER, REQ | ATTR)};
static const tsl_sch_param p_reindex_cache_read[] = {
    P("block", TSL_SP_BLOCK, REQ), P("read_buffer_index", TSL_SP_INT, REQ | ATTR),
    P("storage_scope", TSL_SP_STR, REQ | ATTR),
    P("index_map", TSL_SP_LAMBDA, REQ)};
static const tsl_sch_param p_reindex_cache_write[] = {
    P("block", TSL_SP_BLOCK, REQ),
    P("write_buffer_index", TSL_SP_INT, REQ | ATTR),
    P("storage_scope", TSL_SP_STR, REQ | ATTR),
    P("index_map", TSL_SP_LAMBDA, REQ)};
static const tsl_sch_param p_read_at[] = {
    P("loop", TSL_SP_LOOP, REQ), P("block", TSL_SP_BLOCK, REQ),
    P("read_buffer_index", TSL_SP_INT, REQ | ATTR),
    P("storage_scope", TSL_SP_STR, REQ | ATTR)};
static const tsl_sch_param p_write_at[] = {
    P("loop", TSL_SP_LOOP, REQ), P("block", TSL_SP_BLOCK, REQ),
    P("write_buffer_index", TSL_SP_INT, REQ | ATTR),
    P("storage_scope", TSL_SP_STR, REQ | ATTR)};
static const tsl_sch_param p_rolling_buffer[] = {
    P("block", TSL_SP_BLOCK, REQ),
    P("write_buffer_index", TSL_SP_INT, REQ | ATTR)};
static const tsl_sch_param p_set_scope[] = {
    P("block", TSL_SP_BLOCK, REQ), P("buffer_index", TSL_SP_INT, REQ | ATTR | BUFNAME),
    P("storage_scope", TSL_SP_STR, REQ | ATTR)};
static const tsl_sch_param p_storage_align[] = {
    P("block", TSL_SP_BLOCK, REQ), P("buffer_index", TSL_SP_INT, REQ | ATTR),
    P("axis", TSL_SP_INT, REQ | ATTR), P("factor", TSL_SP_INT, REQ | ATTR),
    P("offset", TSL_SP_INT, REQ | ATTR)};
static const tsl_sch_param p_decompose[] = {P("block", TSL_SP_BLOCK, REQ),
                                            P("loop", TSL_SP_LOOP, REQ)};
static const tsl_sch_param p_rfactor[] = {
    P("loop", TSL_SP_LOOP, REQ), P("factor_axis", TSL_SP_INT, REQ | ATTR)};
static const tsl_sch_param p_blockize[] = {
    P("target", TSL_SP_BLOCK_OR_LOOPS, REQ),
    PD("preserve_unit_iters", TSL_SP_BOOL, ATTR, BOOL_(1))};
static const tsl_sch_param p_tensorize[] = {
    P("block_or_loop", TSL_SP_BLOCK_OR_LOOP, REQ),
    P("tensor_intrin", TSL_SP_STR, REQ | ATTR),
    PD("preserve_unit_iters", TSL_SP_BOOL, ATTR, BOOL_(1))};
static const tsl_sch_param p_sample_perfect_tile[] = {
    P("loop", TSL_SP_LOOP, REQ), P("n", TSL_SP_INT, REQ | ATTR),
    PD("max_innermost_factor", TSL_SP_INT, ATTR, INT_(16)),
    P("decision", TSL_SP_DECISION, 0)};
static const tsl_sch_param p_sample_categorical[] = {
    P("candidates", TSL_SP_INTS, REQ | ATTR),
    P("probs", TSL_SP_FLOATS, REQ | ATTR), P("decision", TSL_SP_DECISION, 0)};

static const tsl_sch_param p_transform_layout[] = {
    P("block", TSL_SP_BLOCK, REQ), P("buffer", TSL_SP_BUFFER, REQ | ATTR),
    P("index_map", TSL_SP_LAMBDA, REQ | ATTR),
    P("pad_value", TSL_SP_EXPR_OR_LAMBDA, ATTR),
    PD("assume_injective_transform", TSL_SP_BOOL, ATTR, BOOL_(0))};
static const tsl_sch_param p_transform_block_layout[] = {
    P("block", TSL_SP_BLOCK, REQ), P("index_map", TSL_SP_LAMBDA, REQ | ATTR)};
static const tsl_sch_param p_set_axis_separator[] = {
    P("block", TSL_SP_BLOCK, REQ), P("buffer", TSL_SP_BUFFER, REQ | ATTR),
    P("axis_separators", TSL_SP_INTS, REQ | ATTR)};
static const tsl_sch_param p_merge[] = {
    P("loops", TSL_SP_LOOPS, REQ | TSL_SPF_VARARGS)};
static const tsl_sch_param p_loop_partition[] = {
    P("loop", TSL_SP_LOOP, REQ), P("factors", TSL_SP_FACTORS, REQ),
    PD("preserve_unit_iters", TSL_SP_BOOL, ATTR, BOOL_(1))};
static const tsl_sch_param p_reorder_block_iter_var[] = {
    P("block", TSL_SP_BLOCK, REQ), P("new_order", TSL_SP_INTS, REQ | ATTR)};
static const tsl_sch_param p_unsafe_set_dtype[] = {
    P("block", TSL_SP_BLOCK, REQ), P("buffer_index", TSL_SP_INT, REQ | ATTR),
    P("dtype", TSL_SP_STR, REQ | ATTR)};
static const tsl_sch_param p_unsafe_hide_buffer_access[] = {
    P("block", TSL_SP_BLOCK, REQ), P("buf_type", TSL_SP_STR, REQ | ATTR),
    P("buf_index_array", TSL_SP_INTS, REQ | ATTR)};
static const tsl_sch_param p_annotate_buffer_access[] = {
    P("block", TSL_SP_BLOCK, REQ), P("buffer_index", TSL_SP_INT, REQ | ATTR),
    P("buf_type", TSL_SP_STR, REQ | ATTR),
    P("gen_new_ranges", TSL_SP_LAMBDA, REQ | ATTR)};
static const tsl_sch_param p_pad_einsum[] = {
    P("block", TSL_SP_BLOCK, REQ), P("padding", TSL_SP_INTS, REQ | ATTR)};
static const tsl_sch_param p_sample_partitioned_tile[] = {
    P("loop", TSL_SP_LOOP, REQ), P("n", TSL_SP_INT, REQ | ATTR),
    PD("partition_pos", TSL_SP_INT, ATTR, INT_(0)),
    PD("innerpart_factor", TSL_SP_INT, ATTR, INT_(1)),
    P("decision", TSL_SP_DECISION, 0)};
static const tsl_sch_param p_get_output_blocks[] = {
    P("scope_block", TSL_SP_BLOCK, REQ)};
static const tsl_sch_param p_work_on[] = {
    P("func_name", TSL_SP_STR, REQ | ATTR)};
static const tsl_sch_param p_seed[] = {P("seed", TSL_SP_INT, REQ | ATTR)};
static const tsl_sch_param p_get[] = {
    P("rand_var_or_sref", TSL_SP_HANDLE, REQ)};
static const tsl_sch_param p_remove_rv[] = {
    P("rand_var", TSL_SP_HANDLE, REQ)};

/* name, params, is_sample, is_pure, output kind, returns list */
#define INST(nm, params, sample, pure, out, list)                              \
  static const sch_inst inst_##nm = {                                          \
      {#nm, N_(params), params, sample, pure, out, list}, sch_apply_##nm, 0};
#define INST0(nm, sample, pure, out, list)                                     \
  static const sch_inst inst_##nm = {{#nm, 0, NULL, sample, pure, out, list}, \
                                     sch_apply_##nm, 0};
/* not recorded in traces (TVM's untraced Schedule methods) */
#define UNTRACED(nm, params, out)                                              \
  static const sch_inst inst_##nm = {                                          \
      {#nm, N_(params), params, 0, 1, out, 0}, sch_apply_##nm, 1};
#define UNTRACED0(nm, out)                                                     \
  static const sch_inst inst_##nm = {{#nm, 0, NULL, 0, 1, out, 0},             \
                                     sch_apply_##nm, 1};

INST(get_block, p_get_block, 0, 1, TSL_RV_BLOCK, 0)
INST(get_loops, p_block, 0, 1, TSL_RV_LOOP, 1)
INST(get_child_blocks, p_block_or_loop, 0, 1, TSL_RV_BLOCK, 1)
INST(get_producers, p_block, 0, 1, TSL_RV_BLOCK, 1)
INST(get_consumers, p_block, 0, 1, TSL_RV_BLOCK, 1)
INST(split, p_split, 0, 0, TSL_RV_LOOP, 1)
INST(fuse, p_fuse, 0, 0, TSL_RV_LOOP, 0)
INST(reorder, p_reorder, 0, 0, 0, 0)
INST(parallel, p_loop, 0, 0, 0, 0)
INST(vectorize, p_loop, 0, 0, 0, 0)
INST(unroll, p_loop, 0, 0, 0, 0)
INST(bind, p_bind, 0, 0, 0, 0)
INST(annotate, p_annotate, 0, 0, 0, 0)
INST(unannotate, p_unannotate, 0, 0, 0, 0)
INST(compute_at, p_compute_at, 0, 0, 0, 0)
static const sch_inst inst_reverse_compute_at = {
    {"reverse_compute_at", N_(p_compute_at), p_compute_at, 0, 0, 0, 0},
    sch_apply_reverse_compute_at, 0};
INST(compute_inline, p_block, 0, 0, 0, 0)
INST(reverse_compute_inline, p_block, 0, 0, 0, 0)
INST(sample_compute_location, p_sample_compute_location, 1, 1, TSL_RV_LOOP, 0)
INST(cache_read, p_cache_read, 0, 0, TSL_RV_BLOCK, 0)
INST(cache_write, p_cache_write, 0, 0, TSL_RV_BLOCK, 0)
INST(cache_inplace, p_cache_inplace, 0, 0, TSL_RV_BLOCK, 1)
INST(cache_index, p_cache_index, 0, 0, TSL_RV_BLOCK, 1)
INST(reindex, p_reindex, 0, 0, TSL_RV_BLOCK, 0)
INST(reindex_cache_read, p_reindex_cache_read, 0, 0, TSL_RV_BLOCK, 0)
INST(reindex_cache_write, p_reindex_cache_write, 0, 0, TSL_RV_BLOCK, 0)
INST(read_at, p_read_at, 0, 0, TSL_RV_BLOCK, 0)
INST(write_at, p_write_at, 0, 0, TSL_RV_BLOCK, 0)
INST(rolling_buffer, p_rolling_buffer, 0, 0, 0, 0)
INST(set_scope, p_set_scope, 0, 0, 0, 0)
INST(storage_align, p_storage_align, 0, 0, 0, 0)
INST(decompose_reduction, p_decompose, 0, 0, TSL_RV_BLOCK, 0)
INST(rfactor, p_rfactor, 0, 0, TSL_RV_BLOCK, 0)
INST(blockize, p_blockize, 0, 0, TSL_RV_BLOCK, 0)
INST(tensorize, p_tensorize, 0, 0, 0, 0)
INST(sample_perfect_tile, p_sample_perfect_tile, 1, 1, TSL_RV_EXPR, 1)
INST(sample_categorical, p_sample_categorical, 1, 1, TSL_RV_EXPR, 0)
INST0(enter_postproc, 0, 0, 0, 0)
INST(transform_layout, p_transform_layout, 0, 0, 0, 0)
INST(transform_block_layout, p_transform_block_layout, 0, 0, 0, 0)
INST(set_axis_separator, p_set_axis_separator, 0, 0, 0, 0)
INST(add_unit_loop, p_block_or_loop, 0, 0, TSL_RV_LOOP, 0)
INST(merge, p_merge, 0, 0, TSL_RV_LOOP, 0)
INST(loop_partition, p_loop_partition, 0, 0, TSL_RV_LOOP, 1)
INST(reorder_block_iter_var, p_reorder_block_iter_var, 0, 0, 0, 0)
INST(unsafe_set_dtype, p_unsafe_set_dtype, 0, 0, 0, 0)
INST(unsafe_hide_buffer_access, p_unsafe_hide_buffer_access, 0, 0, 0, 0)
INST(annotate_buffer_access, p_annotate_buffer_access, 0, 0, 0, 0)
INST(pad_einsum, p_pad_einsum, 0, 0, 0, 0)
INST(decompose_padding, p_decompose, 0, 0, TSL_RV_BLOCK, 0)
UNTRACED(can_decompose_padding, p_decompose, TSL_RV_EXPR)
INST(sample_partitioned_tile, p_sample_partitioned_tile, 1, 1, TSL_RV_EXPR, 1)
INST(get_output_blocks, p_get_output_blocks, 0, 1, TSL_RV_BLOCK, 1)
UNTRACED(work_on, p_work_on, 0)
UNTRACED(seed, p_seed, 0)
UNTRACED0(fork_seed, TSL_RV_EXPR)
UNTRACED(get, p_get, TSL_RV_EXPR)
UNTRACED(remove_rv, p_remove_rv, 0)
UNTRACED0(show, 0)
UNTRACED0(copy, 0)

static const tsl_sch_inst_kind *const all_kinds[] = {
    &inst_get_block.pub,        &inst_get_loops.pub,
    &inst_get_child_blocks.pub, &inst_get_producers.pub,
    &inst_get_consumers.pub,    &inst_split.pub,
    &inst_fuse.pub,             &inst_reorder.pub,
    &inst_parallel.pub,         &inst_vectorize.pub,
    &inst_unroll.pub,           &inst_bind.pub,
    &inst_annotate.pub,         &inst_unannotate.pub,
    &inst_compute_at.pub,       &inst_reverse_compute_at.pub,
    &inst_compute_inline.pub,   &inst_reverse_compute_inline.pub,
    &inst_sample_compute_location.pub,
    &inst_cache_read.pub,       &inst_cache_write.pub,
    &inst_set_scope.pub,        &inst_storage_align.pub,
    &inst_reindex.pub,          &inst_reindex_cache_read.pub,
    &inst_reindex_cache_write.pub, &inst_cache_inplace.pub,
    &inst_cache_index.pub,      &inst_read_at.pub,
    &inst_write_at.pub,         &inst_rolling_buffer.pub,
    &inst_decompose_reduction.pub,
    &inst_rfactor.pub,          &inst_blockize.pub,
    &inst_tensorize.pub,        &inst_sample_perfect_tile.pub,
    &inst_sample_categorical.pub,
    &inst_enter_postproc.pub,
    &inst_transform_layout.pub, &inst_transform_block_layout.pub,
    &inst_set_axis_separator.pub,
    &inst_add_unit_loop.pub,    &inst_merge.pub,
    &inst_loop_partition.pub,   &inst_reorder_block_iter_var.pub,
    &inst_unsafe_set_dtype.pub, &inst_unsafe_hide_buffer_access.pub,
    &inst_annotate_buffer_access.pub,
    &inst_pad_einsum.pub,       &inst_decompose_padding.pub,
    &inst_can_decompose_padding.pub,
    &inst_sample_partitioned_tile.pub,
    &inst_get_output_blocks.pub,
    &inst_work_on.pub,          &inst_seed.pub,
    &inst_fork_seed.pub,        &inst_get.pub,
    &inst_remove_rv.pub,        &inst_show.pub,
    &inst_copy.pub,
};

const tsl_sch_inst_kind *const *tsl_sch_inst_kinds(uint32_t *n) {
  *n = N_(all_kinds);
  return all_kinds;
}

const sch_inst *sch_inst_find(const char *name) {
  for (uint32_t i = 0; i < N_(all_kinds); i++)
    if (strcmp(all_kinds[i]->name, name) == 0)
      return (const sch_inst *)all_kinds[i];
  return NULL;
}

const tsl_sch_inst_kind *tsl_sch_inst_kind_find(const char *name) {
  const sch_inst *i = sch_inst_find(name);
  return i ? &i->pub : NULL;
}
