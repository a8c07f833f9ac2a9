/*
 * What core/lower/promote.c does to generated code.
 *
 * TVM v0.19's best schedule of the 3x3 conv2d in one tuning run
 * (tests/llvm/conv3x3_rows2.sch) accumulates two output rows of 32
 * channels over a loop of 16 input channels. An output address has seven
 * GEPs, one more than LLVM's BasicAA follows, so without promotion LLVM
 * keeps loading and storing both accumulators in that loop (8.1 ms against
 * 3.5 ms promoted, TVM's own build 3.5 ms, on a Zen 1). Lowered as the
 * tuner lowers it, the reduction loop (a block that branches to itself and
 * multiplies vectors) has no vector store; lowered with `no_promote` the
 * count is printed, not asserted (a later LLVM may see through the seven
 * GEPs). Then the promoted functions of tests/lower/cases/promote.py run
 * compiled against the interpreter. Code for mcpu=x86-64-v3, skipped on a
 * host without AVX2.
 */
#include "llvm_util.h"

/* Vector stores inside the single-block loops that multiply vectors;
 * `loops` receives how many such loops there are. */
static int stores_in_reduction_loops(LLVMModuleRef mod, int *loops) {
  int stores = 0;
  *loops = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      int self = 0, fmul = 0, st = 0;
      for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++)
        self |= LLVMGetSuccessor(term, s) == bb;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(i);
        if (op == LLVMFMul && LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVectorTypeKind)
          fmul = 1;
        if (op == LLVMStore &&
            LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(i, 0))) == LLVMVectorTypeKind)
          st++;
      }
      if (self && fmul) {
        ++*loops;
        stores += st;
      }
    }
  return stores;
}

/* The conv2d under the schedule, lowered (no_promote as given), through
 * codegen and O3: the vector stores of its reduction loops, or -1. */
static int conv_stores(tsl_target *t, tsl_ctx *ctx, int no_promote, int *loops) {
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  tsl_schedule *sch = NULL;
  tsl_lower_opts lo = {sizeof lo, 1, no_promote};
  const tsl_lowered_func *lf = lt_lower_scripted(ctx, a, "bench/tune/conv2d_nhwc_3x3.py",
                                                 "tests/llvm/conv3x3_rows2.sch", &lo, &sch, &d);
  LLVMContextRef lc = LLVMContextCreate();
  tsl_build_stats st;
  LLVMModuleRef mod = lf ? lt_optimize(t, lf, lc, &st, &d) : NULL;
  int stores = mod ? stores_in_reduction_loops(mod, loops) : -1;
  if (mod)
    LLVMDisposeModule(mod);
  else
    tap_diag("%s", d.text);
  LLVMContextDispose(lc);
  tsl_schedule_free(sch);
  tsl_arena_free(a);
  return stores;
}

int main(void) {
  tsl_diag d = {0};
  int rc = 0;
  tsl_target *t = lt_target_rc("threads=2 mcpu=x86-64-v3", &d, &rc);
  if (rc == TSL_EUNSUPPORTED) {
    tap_skip(d.text, "promoted accumulators in code for x86-64-v3");
    return tap_done();
  }
  if (!ok(t != NULL, "a target (mcpu=x86-64-v3)")) {
    tap_diag("%s", d.text);
    return tap_done();
  }
  tsl_ctx *ctx = tsl_ctx_new();
  int loops = 0, kept_loops = 0;
  int stores = conv_stores(t, ctx, 0, &loops);
  int kept = conv_stores(t, ctx, 1, &kept_loops);
  tap_diag("3x3 conv2d, 2 rows x 32 channels over 16 input channels: %d vector stores in %d "
           "reduction loops promoted, %d in %d with no_promote",
           stores, loops, kept, kept_loops);
  ok(stores == 0 && loops >= 1,
     "3x3 conv2d: no vector store in its reduction loop (%d in %d loops)", stores, loops);

  char path[4200];
  snprintf(path, sizeof path, "%s/tests/lower/cases/promote.py", lt_root());
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  if (!ok(!tsl_parse_file(a, path, &m, &d), "tests/lower/cases/promote.py parses")) {
    tap_diag("%s", d.text);
  } else {
    for (uint32_t i = 0; i < m->n_funcs; i++)
      lt_check(t, ctx, m->funcs[i], m->funcs[i], NULL, 0, 1, m->funcs[i]->name);
  }
  tsl_arena_free(a);
  tll_vtable.destroy(t);
  tsl_ctx_free(ctx);
  return tap_done();
}
