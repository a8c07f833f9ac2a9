/*
 * targets/llvm/codegen_intrin.c — what CPU tensor intrinsics are written
 * with: T.reinterpret (a bitcast) and T.call_llvm_pure_intrin /
 * T.call_llvm_intrin (a call of an LLVM intrinsic by name).
 *
 * An intrinsic is looked up by name in the LLVM this target is built
 * with, and only a non-overloaded one is called: the C API has no way to
 * infer an overload from argument types, and a wrong guess crashes LLVM.
 * Its parameter and result types are checked against the arguments
 * (bfloat16 vectors, which tessel computes as float lanes, are narrowed to
 * their 16 bits and bitcast to LLVM's bfloat for a bfloat parameter, and
 * widened back from a bfloat result, by integer operations: no LLVM
 * bfloat arithmetic, see tll_from_storage). An x86 intrinsic must belong
 * to a family of the table below whose features the target's CPU has:
 * LLVM would abort on an instruction it cannot select.
 */
#include "llvm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x86 intrinsic families and the instruction sets each needs (first
 * matching prefix wins). */
static const struct {
  const char *prefix;
  const char *isa[3];
} x86_families[] = {
    {"llvm.x86.avx512.vpdpbusd.", {"avx512vnni", "avx512vl", NULL}},
    {"llvm.x86.avx512.vpdpwssd.", {"avx512vnni", "avx512vl", NULL}},
    {"llvm.x86.avx512.vpdpbusds.", {"avx512vnni", "avx512vl", NULL}},
    {"llvm.x86.avx512.vpdpwssds.", {"avx512vnni", "avx512vl", NULL}},
    {"llvm.x86.avx512bf16.", {"avx512bf16", "avx512vl", NULL}},
    {"llvm.x86.avx512.", {"avx512f", "avx512bw", NULL}},
    {"llvm.x86.avx2.", {"avx2", NULL}},
    {"llvm.x86.fma.", {"fma", NULL}},
    {"llvm.x86.avx.", {"avx", NULL}},
    {"llvm.x86.sse41.", {"sse4.1", NULL}},
    {"llvm.x86.ssse3.", {"ssse3", NULL}},
    {"llvm.x86.sse2.", {NULL}},
    {"llvm.x86.sse.", {NULL}},
    {"llvm.x86.tdpbusd", {"amx-tile", "amx-int8", NULL}},
    {"llvm.x86.tdpbssd", {"amx-tile", "amx-int8", NULL}},
    {"llvm.x86.tdpbsud", {"amx-tile", "amx-int8", NULL}},
    {"llvm.x86.tdpbuud", {"amx-tile", "amx-int8", NULL}},
    {"llvm.x86.tdpbf16ps", {"amx-tile", "amx-bf16", NULL}},
    {"llvm.x86.tile", {"amx-tile", NULL}},
    {"llvm.x86.ldtilecfg", {"amx-tile", NULL}},
    {"llvm.x86.sttilecfg", {"amx-tile", NULL}},
};

/* The prefixes of LLVM 19's other targets' intrinsics (llvm.<arch>.*). */
static const char *const other_archs[] = {
    "aarch64", "amdgcn", "arm", "bpf", "dx", "hexagon", "loongarch", "mips", "nvvm", "ppc",
    "r600", "riscv", "s390", "spv", "ve", "wasm", "xcore", NULL};

/* TSL_OK when the target's CPU has what intrinsic `name` needs. */
static int check_isa(tll_cg *cg, const char *name) {
  if (strncmp(name, "llvm.x86.", 9)) {
    for (int i = 0; other_archs[i]; i++) {
      size_t n = strlen(other_archs[i]);
      if (!strncmp(name + 5, other_archs[i], n) && name[5 + n] == '.')
        return tll_fail(cg, TSL_EUNSUPPORTED, "T.call_llvm_pure_intrin: %s is another "
                        "architecture's intrinsic; the llvm target compiles for x86-64", name);
    }
    return TSL_OK; /* a target-independent intrinsic */
  }
  uint64_t isa = tll_isa_required(cg->opts->cpu, cg->opts->features);
  for (size_t i = 0; i < sizeof x86_families / sizeof x86_families[0]; i++) {
    if (strncmp(name, x86_families[i].prefix, strlen(x86_families[i].prefix)))
      continue;
    for (int k = 0; x86_families[i].isa[k]; k++)
      if (!tll_isa_has(isa, x86_families[i].isa[k]))
        return tll_fail(cg, TSL_EUNSUPPORTED, "T.call_llvm_pure_intrin: %s needs %s, which "
                        "the target's CPU (%s) does not have; tune with a target whose "
                        "mcpu has it, or without this tensor intrinsic", name,
                        x86_families[i].isa[k], cg->opts->cpu);
    return TSL_OK;
  }
  return tll_fail(cg, TSL_EUNSUPPORTED, "T.call_llvm_pure_intrin: %s is not in the llvm "
                  "target's table of x86 intrinsic families (VNNI, AVX-512, AVX-512 BF16, "
                  "AVX2, FMA, AVX, SSE, AMX), so which CPU features it needs is not known",
                  name);
}

static int is_bfloat_vector(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind &&
         LLVMGetTypeKind(LLVMGetElementType(t)) == LLVMBFloatTypeKind;
}

static char *type_str(LLVMTypeRef t) { return LLVMPrintTypeToString(t); }

static int type_mismatch(tll_cg *cg, const char *name, const char *what, LLVMTypeRef want,
                         LLVMTypeRef got) {
  char *w = type_str(want), *g = type_str(got);
  tll_fail(cg, TSL_EINVALID, "T.call_llvm_pure_intrin: %s takes %s of type %s, given %s", name,
           what, w, g);
  LLVMDisposeMessage(w);
  LLVMDisposeMessage(g);
  return cg->status;
}

LLVMValueRef tll_llvm_intrin(tll_cg *cg, const tsl_expr *e) {
  if (e->n_args < 2 || e->args[0]->kind != TSL_EXPR_STR_IMM) {
    tll_fail(cg, TSL_EINVALID, "T.call_llvm_pure_intrin needs the intrinsic's name and "
             "num_signature before its arguments");
    return NULL;
  }
  const char *name = e->args[0]->u.str_value;
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) {
    tll_fail(cg, TSL_EINVALID, "T.call_llvm_pure_intrin: LLVM 19 has no intrinsic named %s",
             name);
    return NULL;
  }
  if (check_isa(cg, name))
    return NULL;
  if (LLVMIntrinsicIsOverloaded(id)) {
    tll_fail(cg, TSL_EUNSUPPORTED, "T.call_llvm_pure_intrin: %s is overloaded (its types are "
             "chosen per call), which the llvm target does not call; use the operation's own "
             "T. form or a non-overloaded intrinsic", name);
    return NULL;
  }
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, NULL, 0);
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  uint32_t n = e->n_args - 2, np = LLVMCountParamTypes(fty);
  if (np != n || LLVMIsFunctionVarArg(fty)) {
    tll_fail(cg, TSL_EINVALID, "T.call_llvm_pure_intrin: %s takes %u argument%s, given %u",
             name, np, np == 1 ? "" : "s", n);
    return NULL;
  }
  LLVMTypeRef *params = calloc(np ? np : 1, sizeof *params);
  LLVMValueRef *args = calloc(np ? np : 1, sizeof *args);
  LLVMValueRef out = NULL;
  if (!params || !args) {
    tll_fail(cg, TSL_ENOMEM, "out of memory");
    goto done;
  }
  LLVMGetParamTypes(fty, params);
  for (uint32_t i = 0; i < n && !cg->status; i++) {
    const tsl_expr *a = e->args[2 + i];
    args[i] = tll_expr(cg, a);
    if (!args[i])
      goto done;
    if (a->dtype.code == TSL_DT_BFLOAT && is_bfloat_vector(params[i]) &&
        LLVMGetTypeKind(LLVMTypeOf(args[i])) == LLVMVectorTypeKind &&
        LLVMGetVectorSize(LLVMTypeOf(args[i])) == LLVMGetVectorSize(params[i]))
      args[i] = LLVMBuildBitCast(cg->b, tll_to_storage(cg, args[i], a->dtype), params[i], "");
    if (LLVMTypeOf(args[i]) != params[i]) {
      char what[32];
      snprintf(what, sizeof what, "argument %u", i + 1);
      type_mismatch(cg, name, what, params[i], LLVMTypeOf(args[i]));
      goto done;
    }
  }
  LLVMTypeRef ret = LLVMGetReturnType(fty), want = tll_type(cg, e->dtype);
  out = LLVMBuildCall2(cg->b, fty, fn, args, n, "");
  if (LLVMGetTypeKind(ret) == LLVMVoidTypeKind) {
    out = tll_const_int(cg, e->dtype, 0); /* as TVM gives a void intrinsic's call */
  } else if (e->dtype.code == TSL_DT_BFLOAT && is_bfloat_vector(ret) && want &&
             LLVMGetTypeKind(want) == LLVMVectorTypeKind &&
             LLVMGetVectorSize(want) == LLVMGetVectorSize(ret)) {
    out = tll_from_storage(
        cg, LLVMBuildBitCast(cg->b, out, tll_storage_type(cg, e->dtype), ""), e->dtype);
  } else if (ret != want) {
    type_mismatch(cg, name, "its result", ret, want ? want : cg->t_void);
    out = NULL;
  }
done:
  free(params);
  free(args);
  return cg->status ? NULL : out;
}

LLVMValueRef tll_reinterpret(tll_cg *cg, const tsl_expr *e) {
  const tsl_expr *v = e->n_args == 1 ? e->args[0] : NULL;
  char a[32], b[32];
  if (!v || tsl_dtype_is_bool(v->dtype) || tsl_dtype_is_bool(e->dtype) ||
      (uint32_t)v->dtype.bits * v->dtype.lanes != (uint32_t)e->dtype.bits * e->dtype.lanes) {
    tll_fail(cg, TSL_EUNSUPPORTED, "T.reinterpret from %s to %s: the llvm target "
             "reinterprets between int, uint and float dtypes of as many bits",
             v ? tsl_dtype_str(v->dtype, a) : "nothing", tsl_dtype_str(e->dtype, b));
    return NULL;
  }
  LLVMValueRef x = tll_expr(cg, v);
  if (!x)
    return NULL;
  if (v->dtype.code == TSL_DT_BFLOAT) /* the 16 bits of each lane */
    x = tll_to_storage(cg, x, v->dtype);
  if (e->dtype.code != TSL_DT_BFLOAT)
    return LLVMBuildBitCast(cg->b, x, tll_type(cg, e->dtype), "");
  x = LLVMBuildBitCast(cg->b, x, tll_storage_type(cg, e->dtype), "");
  return tll_from_storage(cg, x, e->dtype);
}
