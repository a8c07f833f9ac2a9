/*
 * targets/llvm/passes.c — verification and the optimization pipeline
 * (new pass manager, "default<O3>" with loop and SLP vectorization, loop
 * unrolling and interleaving on), and tll_compile: codegen + verify +
 * optimize with timings.
 *
 * The module is always verified before optimizing: LLVM release builds do
 * not assert, so malformed IR from a codegen bug would crash a pass; here it
 * becomes an error naming the problem.
 */
#include "llvm_internal.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double tll_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int tll_verify(LLVMModuleRef mod, tsl_diag *diag) {
  char *msg = NULL;
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    tsl_diag_set(diag, TSL_EINVALID,
                 "llvm target: the generated LLVM IR is invalid (a code "
                 "generator bug): %.2000s",
                 msg ? msg : "?");
    LLVMDisposeMessage(msg);
    return TSL_EINVALID;
  }
  LLVMDisposeMessage(msg);
  return TSL_OK;
}

int tll_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int32_t level,
                 tsl_diag *diag) {
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  int on = level >= 2;
  LLVMPassBuilderOptionsSetLoopVectorization(po, on);
  LLVMPassBuilderOptionsSetSLPVectorization(po, on);
  LLVMPassBuilderOptionsSetLoopUnrolling(po, level >= 1);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, on);
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", (int)level);
  LLVMErrorRef err = LLVMRunPasses(mod, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (err) {
    char *m = LLVMGetErrorMessage(err);
    tsl_diag_set(diag, TSL_EINVALID, "llvm target: optimization failed: %s",
                 m ? m : "?");
    LLVMDisposeErrorMessage(m);
    return TSL_EINVALID;
  }
  return TSL_OK;
}

/* LLVM's own diagnostics: its remarks and warnings (a loop marked
 * llvm.loop.vectorize.enable that it could not vectorize) say nothing the
 * user can act on and would interleave with tessel's output, so they are
 * dropped; an error is printed (LLVM's default handler would also exit). */
static void llvm_diagnostic(LLVMDiagnosticInfoRef info, void *user_data) {
  (void)user_data;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError)
    return;
  char *m = LLVMGetDiagInfoDescription(info);
  fprintf(stderr, "llvm target: LLVM error: %s\n", m ? m : "?");
  LLVMDisposeMessage(m);
}

int tll_compile(LLVMContextRef ctx, const tll_opts *o, LLVMTargetMachineRef tm,
                const tsl_lowered_module *m, const char *prefix,
                LLVMModuleRef *out, tsl_build_stats *stats, tsl_diag *diag) {
  double t0 = tll_now();
  LLVMContextSetDiagnosticHandler(ctx, llvm_diagnostic, NULL);
  LLVMModuleRef mod = NULL;
  int rc = tll_codegen_module(ctx, o, m, prefix, &mod, diag);
  if (rc)
    return rc;
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(mod, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(mod, dl);
  LLVMDisposeTargetData(dl);
  rc = tll_verify(mod, diag);
  double t1 = tll_now();
  if (!rc)
    rc = tll_optimize(mod, tm, o->opt_level, diag);
  double t2 = tll_now();
  if (stats) {
    stats->codegen_s = t1 - t0;
    stats->optimize_s = t2 - t1;
  }
  if (rc) {
    LLVMDisposeModule(mod);
    return rc;
  }
  *out = mod;
  return TSL_OK;
}

int tll_module_ir(const tll_opts *o, const tsl_lowered_module *m,
                  int optimized, char **out, tsl_diag *diag) {
  *out = NULL;
  LLVMTargetMachineRef tm = NULL;
  int rc = tll_target_machine(o, 0, &tm, diag);
  if (rc)
    return rc;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = NULL;
  if (optimized) {
    rc = tll_compile(ctx, o, tm, m, TLL_JIT_PREFIX, &mod, NULL, diag);
  } else {
    rc = tll_codegen_module(ctx, o, m, TLL_JIT_PREFIX, &mod, diag);
  }
  if (!rc) {
    char *s = LLVMPrintModuleToString(mod);
    *out = strdup(s ? s : "");
    LLVMDisposeMessage(s);
    LLVMDisposeModule(mod);
    if (!*out)
      rc = tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  }
  LLVMContextDispose(ctx);
  LLVMDisposeTargetMachine(tm);
  return rc;
}
