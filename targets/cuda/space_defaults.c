/*
 * targets/cuda/space_defaults.c — the design space the cuda target tunes in
 * by default: TVM's lists for cuda with tensor cores (DefaultCUDATensorCore,
 * the space TVM picks for sm_75 and newer): MultiLevelTilingTensorCore with
 * the WMMA groups first, then DefaultCUDA's rules; RewriteTensorize after
 * DefaultCUDA's postprocessors. A block no WMMA group matches (float32) gets
 * DefaultCUDA's space unchanged. By the built-in components' names, with
 * TVM's parameters and mutator weights.
 */
#include "cuda_internal.h"

#define N(a) ((uint32_t)(sizeof a / sizeof a[0]))

static const tsl_kv mlt[] = {
    {"structure", "SSSRRSRS"},
    {"tile_binds", "blockIdx.x,vthread.x,threadIdx.x"},
    {"max_innermost_factor", "64"},
    {"vector_load_lens", "1,2,3,4,8,16"},
    {"reuse_read_req", "must"},
    {"reuse_read_levels", "4"},
    {"reuse_read_scope", "shared"},
    {"reuse_write_req", "must"},
    {"reuse_write_levels", "3"},
    {"reuse_write_scope", "local"},
    {"thread_warp_size", "32"},
    {"max_threads_per_block", "1024"},
};

/* TVM's WMMA groups of DefaultCUDATensorCore (float16 in, float32 and
 * float16 accumulators; int8 in, int32 accumulators; B as [k, n] and
 * [n, k]) */
static const tsl_kv mlt_tc[] = {
    {"intrin_groups", "wmma_sync_16x16x16_f16f16f32,wmma_sync_16x16x16_f16f16f32_trans,"
                      "wmma_sync_16x16x16_f16f16f16,wmma_sync_16x16x16_f16f16f16_trans,"
                      "wmma_sync_16x16x16_s8s8s32,wmma_sync_16x16x16_s8s8s32_trans"},
    {"structure", "SSSRRSRS"},
    {"tile_binds", "blockIdx.y,blockIdx.x,threadIdx.y"},
    {"max_innermost_factor", "4"},
    {"vector_load_lens", "1,2,3,4,8,16"},
    {"reuse_read_req", "must"},
    {"reuse_read_levels", "4"},
    {"reuse_read_scope", "shared.dyn"},
    {"reuse_write_req", "must"},
    {"reuse_write_levels", "2"},
    {"reuse_write_scope", "shared.dyn"},
    {"thread_warp_size", "32"},
    {"max_threads_per_block", "1024"},
};

static const tsl_kv auto_inline[] = {
    {"into_producer", "true"},         {"into_consumer", "true"},
    {"inline_const_tensor", "true"},   {"disallow_if_then_else", "false"},
    {"require_injective", "false"},    {"require_ordered", "false"},
    {"disallow_op", ""},
};

static const tsl_kv ctr[] = {
    {"thread_extents", "4,8,16,32,64,128,256,512"},
    {"max_threads_per_block", "1024"},
    {"warp_size", "32"},
};

static const tsl_kv pvu[] = {
    {"max_jobs_per_core", "-1"},
    {"max_vectorize_extent", "-1"},
    {"unroll_max_steps", "0,16,64,512,1024"},
    {"unroll_explicit", "true"},
};

static const tsl_kv auto_bind[] = {
    {"max_threadblocks", "256"},
    {"thread_extents", "32,64,128,256,512,1024"},
    {"max_threads_per_block", "1024"},
};

static const tsl_kv unbound[] = {{"max_threadblocks", "256"}};
static const tsl_kv fetch[] = {{"thread_warp_size", "32"}};

static const tsl_space_entry rules[] = {
    {"MultiLevelTilingTensorCore", 0, N(mlt_tc), mlt_tc},
    {"MultiLevelTiling", 0, N(mlt), mlt},
    {"InlineConstantScalars", 0, 0, NULL},
    {"AutoInline", 0, N(auto_inline), auto_inline},
    {"CrossThreadReduction", 0, N(ctr), ctr},
    {"ParallelizeVectorizeUnroll", 0, N(pvu), pvu},
    {"AutoBind", 0, N(auto_bind), auto_bind},
};

static const tsl_space_entry postprocs[] = {
    {"DisallowDynamicLoop", 0, 0, NULL},
    {"RewriteCooperativeFetch", 0, N(fetch), fetch},
    {"RewriteUnboundBlock", 0, N(unbound), unbound},
    {"RewriteParallelVectorizeUnroll", 0, 0, NULL},
    {"RewriteReductionBlock", 0, 0, NULL},
    {"VerifyGPUCode", 0, 0, NULL},
    {"RewriteTensorize", 0, 0, NULL},
};

static const tsl_space_entry mutators[] = {
    {"MutateTileSize", 0.9, 0, NULL},
    {"MutateUnroll", 0.08, 0, NULL},
    {"MutateThreadBinding", 0.02, 0, NULL},
};

const tsl_space_defaults tcu_space_defaults = {
    sizeof(tsl_space_defaults), N(rules), rules, N(postprocs), postprocs,
    N(mutators),                mutators,
};
