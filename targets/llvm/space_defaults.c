/*
 * targets/llvm/space_defaults.c — the design space the llvm target tunes in
 * by default: TVM's lists for llvm, with their parameters as the built-in
 * components' defaults, and its mutator weights.
 *
 * TVM picks DefaultX86("vnni") for a CPU with AVX-512 VNNI or AVX-VNNI,
 * DefaultX86("avx512") for one with AVX-512F and BW, and DefaultLLVM
 * otherwise; the X86 lists are the LLVM ones plus MultiLevelTilingWithIntrin
 * before MultiLevelTiling and RewriteTensorize(vectorize_init_loop) before
 * RewriteLayout (DefaultCPUTensorization). tll_space_defaults_for picks
 * the same way from the CPU features the rules see (unknown features:
 * DefaultLLVM), and the X86 lists for AVX2 as well, where TVM has none:
 * the x86 plugin's dot_16x4_avx2 gives int8 blocks vpmaddubsw there. The
 * X86 list's MultiLevelTilingWithIntrin names the intrinsics in order of
 * preference and uses the first the CPU has (the x86 plugin's, with their
 * features; a CPU with AVX-VNNI gets dot_16x4_avx2, as TVM's
 * dot_16x4_vnni needs AVX-512), so a block no intrinsic applies to gets
 * DefaultLLVM's space; only the order of the sketches differs, as in TVM
 * (each rule pass reverses it).
 */
#include "llvm_internal.h"

#include "tessel/rules.h"

static const tsl_kv with_intrin[] = {
    {"intrin_name", "dot_32x32x256_amx,dot_16x16x64_amx,dot_16x4_vnni,dot_16x4_avx512,"
                    "dot_16x4_avx2,dot_32x32x128_bf16_amx,dot_16x16x32_bf16_amx,"
                    "dot_16x2_bf16_avx512"},
};

static const tsl_kv tensorize[] = {{"vectorize_init_loop", "true"}};

#define N(a) ((uint32_t)(sizeof a / sizeof a[0]))

static const tsl_space_entry rules[] = {
    {"InlineConstantScalars", 0, 0, NULL}, {"AutoInline", 0, 0, NULL},
    {"AddRFactor", 0, 0, NULL},            {"MultiLevelTiling", 0, 0, NULL},
    {"ParallelizeVectorizeUnroll", 0, 0, NULL}, {"RandomComputeLocation", 0, 0, NULL},
};

static const tsl_space_entry x86_rules[] = {
    {"InlineConstantScalars", 0, 0, NULL},
    {"AutoInline", 0, 0, NULL},
    {"AddRFactor", 0, 0, NULL},
    {"MultiLevelTilingWithIntrin", 0, N(with_intrin), with_intrin},
    {"MultiLevelTiling", 0, 0, NULL},
    {"ParallelizeVectorizeUnroll", 0, 0, NULL},
    {"RandomComputeLocation", 0, 0, NULL},
};

static const tsl_space_entry postprocs[] = {
    {"DisallowDynamicLoop", 0, 0, NULL},
    {"RewriteParallelVectorizeUnroll", 0, 0, NULL},
    {"RewriteReductionBlock", 0, 0, NULL},
    {"RewriteLayout", 0, 0, NULL},
};

static const tsl_space_entry x86_postprocs[] = {
    {"DisallowDynamicLoop", 0, 0, NULL},
    {"RewriteParallelVectorizeUnroll", 0, 0, NULL},
    {"RewriteReductionBlock", 0, 0, NULL},
    {"RewriteTensorize", 0, N(tensorize), tensorize},
    {"RewriteLayout", 0, 0, NULL},
};

static const tsl_space_entry mutators[] = {
    {"MutateTileSize", 0.9, 0, NULL},
    {"MutateComputeLocation", 0.05, 0, NULL},
    {"MutateUnroll", 0.03, 0, NULL},
    {"MutateParallel", 0.02, 0, NULL},
};

const tsl_space_defaults tll_space_defaults = {
    sizeof(tsl_space_defaults), N(rules), rules, N(postprocs), postprocs,
    N(mutators),                mutators,
};

static const tsl_space_defaults x86_defaults = {
    sizeof(tsl_space_defaults), N(x86_rules), x86_rules, N(x86_postprocs), x86_postprocs,
    N(mutators),                mutators,
};

const tsl_space_defaults *tll_space_defaults_for(const struct tsl_rule_target *t) {
  const char *f = tsl_rule_target_features(t);
  if (f && (tsl_cpu_features_have(f, "avx512vnni") || tsl_cpu_features_have(f, "avxvnni") ||
            tsl_cpu_features_have(f, "avx512f,avx512bw") || tsl_cpu_features_have(f, "avx2")))
    return &x86_defaults;
  return &tll_space_defaults;
}
