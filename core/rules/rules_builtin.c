/*
 * The built-in schedule rules, postprocessors and mutators as registry
 * components. Which of them a target tunes with is the target's choice
 * (tsl_target_vtable.space_defaults); creating them is space_components.c.
 */
#include "rules_internal.h"

typedef struct builtin_component {
  uint32_t kind;
  const char *name;
  const char *summary;
  const void *vtable;
} builtin_component;

static const builtin_component builtins[] = {
    {TSL_COMPONENT_MUTATOR, "MutateTileSize",
     "move a divisor between the factors of a sample_perfect_tile", &mutator_tile_size_vt},
    {TSL_COMPONENT_MUTATOR, "MutateUnroll", "redraw the unroll step of a sketch",
     &mutator_unroll_vt},
    {TSL_COMPONENT_MUTATOR, "MutateComputeLocation",
     "move a block to another of its compute_at locations", &mutator_compute_location_vt},
    {TSL_COMPONENT_MUTATOR, "MutateParallel",
     "change how many leading loops the parallel annotation fuses", &mutator_parallel_vt},
    {TSL_COMPONENT_MUTATOR, "MutateThreadBinding",
     "redraw the sampled thread count of a split bound to threadIdx.x",
     &mutator_thread_binding_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "InlineConstantScalars",
     "inline blocks computing a 0-d constant", &rule_inline_const_scalars_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "AutoInline",
     "inline elementwise blocks into their consumers (TVM's AutoInline)", &rule_auto_inline_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "AddRFactor",
     "factor a reduction with little spatial parallelism (TVM's AddRFactor)",
     &rule_add_rfactor_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "MultiLevelTiling",
     "tile a block with data reuse into levels of loops (TVM's MultiLevelTiling)",
     &rule_multi_level_tiling_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "ParallelizeVectorizeUnroll",
     "annotate the root block for parallel, vectorize and a sampled unroll step",
     &rule_parallel_vectorize_unroll_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "RandomComputeLocation",
     "move a block to a sampled compute_at location", &rule_random_compute_location_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "AutoBind",
     "bind a block's outer spatial loops to blockIdx.x / threadIdx.x (sampled thread extent)",
     &rule_auto_bind_vt},
    {TSL_COMPONENT_POSTPROC, "DisallowDynamicLoop",
     "reject programs with a loop of non-constant extent", &postproc_disallow_dynamic_loop_vt},
    {TSL_COMPONENT_POSTPROC, "RewriteParallelVectorizeUnroll",
     "turn the root block's parallel / vectorize / unroll annotations into loops",
     &postproc_parallel_vectorize_unroll_vt},
    {TSL_COMPONENT_POSTPROC, "RewriteReductionBlock",
     "decompose reduction blocks at their first reduction loop",
     &postproc_rewrite_reduction_block_vt},
    {TSL_COMPONENT_POSTPROC, "RewriteLayout",
     "pack layout-free weights into the layout their anchor reads walk",
     &postproc_rewrite_layout_vt},
    {TSL_COMPONENT_POSTPROC, "VerifyGPUCode",
     "reject GPU programs past the device's threads, shared memory, virtual threads or vector "
     "width", &postproc_verify_gpu_code_vt},
    {TSL_COMPONENT_POSTPROC, "RewriteUnboundBlock",
     "bind every block not under GPU thread loops to blockIdx.x / threadIdx.x",
     &postproc_rewrite_unbound_block_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "CrossThreadReduction",
     "bind a reduction's fused loops to threadIdx.x, at its consumer's loop when it fuses "
     "(TVM's CrossThreadReduction)",
     &rule_cross_thread_reduction_vt},
    {TSL_COMPONENT_POSTPROC, "RewriteCooperativeFetch",
     "split cooperative-fetch loops across threadIdx.x / .y and a vector lane",
     &postproc_cooperative_fetch_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "MultiLevelTilingTensorCore",
     "tile a block that matches a WMMA intrinsic group for tensor cores (TVM's "
     "MultiLevelTilingTensorCore)",
     &rule_multi_level_tiling_tensor_core_vt},
    {TSL_COMPONENT_POSTPROC, "RewriteTensorize",
     "tensorize the blocks annotated meta_schedule.auto_tensorize", &postproc_rewrite_tensorize_vt},
    {TSL_COMPONENT_SCHEDULE_RULE, "MultiLevelTilingWithIntrin",
     "shape a block's inner loops as a CPU tensor intrinsic's, then tile it (TVM's "
     "MultiLevelTilingWithIntrin)",
     &rule_multi_level_tiling_with_intrin_vt},
};

int rules_register_builtins(tsl_registry *reg, tsl_diag *diag) {
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
    const builtin_component *b = &builtins[i];
    tsl_component c = {.struct_size = sizeof c,
                       .kind = b->kind,
                       .name = b->name,
                       .version = TSL_VERSION_STRING,
                       .summary = b->summary,
                       .vtable = b->vtable};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  return TSL_OK;
}
