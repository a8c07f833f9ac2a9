/*
 * targets/llvm/space_defaults.c — the design space the llvm target tunes in
 * by default: TVM's lists for llvm (DefaultLLVM), with their parameters as
 * the built-in components' defaults, and its mutator weights.
 */
#include "llvm_internal.h"

static const tsl_space_entry rules[] = {
    {"InlineConstantScalars", 0, 0, NULL}, {"AutoInline", 0, 0, NULL},
    {"AddRFactor", 0, 0, NULL},            {"MultiLevelTiling", 0, 0, NULL},
    {"ParallelizeVectorizeUnroll", 0, 0, NULL}, {"RandomComputeLocation", 0, 0, NULL},
};

static const tsl_space_entry postprocs[] = {
    {"DisallowDynamicLoop", 0, 0, NULL},
    {"RewriteParallelVectorizeUnroll", 0, 0, NULL},
    {"RewriteReductionBlock", 0, 0, NULL},
    {"RewriteLayout", 0, 0, NULL},
};

static const tsl_space_entry mutators[] = {
    {"MutateTileSize", 0.9, 0, NULL},
    {"MutateComputeLocation", 0.05, 0, NULL},
    {"MutateUnroll", 0.03, 0, NULL},
    {"MutateParallel", 0.02, 0, NULL},
};

#define N(a) ((uint32_t)(sizeof a / sizeof a[0]))

const tsl_space_defaults tll_space_defaults = {
    sizeof(tsl_space_defaults), N(rules), rules, N(postprocs), postprocs,
    N(mutators),                mutators,
};
