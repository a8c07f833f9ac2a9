/*
 * tests/llvm/test_amx.c — what the llvm target adds around AMX tile
 * intrinsic calls (targets/llvm/amx.c), on the IR and the assembly it
 * builds for a Sapphire Rapids (nothing runs, so any host checks it):
 * tiles configured where each function first uses them and after a
 * parallel loop, released before each return, the OS's permission asked
 * in a constructor; under TESSEL_AMX_EMULATE the calls go to the
 * emulator's functions instead and the host is taken to have AMX.
 * tests/plugin/test_x86_intrins.sh runs the tensorized programs (on the
 * emulator where the CPU has no AMX).
 */
#include "llvm_util.h"

#include <llvm-c/TargetMachine.h>

static tsl_ctx *ctx;

static const char *callee(LLVMValueRef i) {
  if (!LLVMIsACallInst(i) || !LLVMIsAFunction(LLVMGetCalledValue(i)))
    return NULL;
  size_t n;
  return LLVMGetValueName2(LLVMGetCalledValue(i), &n);
}

static int is_tile_call(const char *n) {
  return n && (!strncmp(n, "llvm.x86.tile", 13) || !strncmp(n, "llvm.x86.tdp", 12) ||
               !strcmp(n, "llvm.x86.ldtilecfg"));
}

/* The module of amx_tiles.py for `spec`, optimized; NULL with a diag. */
static LLVMModuleRef build(const char *spec, LLVMContextRef lc, tsl_diag *d) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/llvm/amx_tiles.py", lt_root());
  char *src = lt_slurp(path);
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  const tsl_lowered_func *lf = NULL;
  LLVMModuleRef mod = NULL;
  tll_opts o;
  tsl_kv kv[4];
  char buf[128];
  uint32_t n = lt_parse_kv(spec, buf, sizeof buf, kv, 4);
  tsl_lower_opts lo = {sizeof lo, 0, 0};
  if (!src)
    tsl_diag_set(d, TSL_EINVALID, "cannot read %s", path);
  if (src && !tsl_parse(a, "amx_tiles.py", src, strlen(src), &m, d) &&
      !tsl_lower_func(a, m->funcs[0], &lo, &lf, d) && !tll_opts_parse(n, kv, &o, d)) {
    const tsl_lowered_func *fl[1] = {lf};
    tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
    tll_module_ir(&o, &lm, 1, lc, &mod, d);
    tll_opts_free(&o);
  }
  tsl_arena_free(a);
  free(src);
  return mod;
}

/* Per function that calls tiles: the first such call is ldtilecfg, each
 * return follows a tilerelease. Counts the functions. */
static int wrapped(LLVMModuleRef mod, int *n_fns) {
  int good = 1;
  *n_fns = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    const char *first = NULL;
    int uses = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        const char *c = callee(i);
        if (is_tile_call(c)) {
          uses = 1;
          if (!first)
            first = c;
        }
        if (LLVMGetInstructionOpcode(i) == LLVMRet && uses) {
          const char *prev = callee(LLVMGetPreviousInstruction(i));
          good &= prev && !strcmp(prev, "llvm.x86.tilerelease");
        }
      }
    if (uses) {
      ++*n_fns;
      good &= !strcmp(first, "llvm.x86.ldtilecfg");
    }
  }
  return good;
}

/* The function named `fn` launches a parallel loop and configures the tiles
 * right after. */
static int reconfigured(LLVMModuleRef mod, const char *fn) {
  LLVMValueRef f = LLVMGetNamedFunction(mod, fn);
  int seen = 0;
  for (LLVMBasicBlockRef bb = f ? LLVMGetFirstBasicBlock(f) : NULL; bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      const char *c = callee(i);
      if (c && !strcmp(c, TLL_PARALLEL_LAUNCH)) {
        const char *next = callee(LLVMGetNextInstruction(i));
        if (!next || strcmp(next, "llvm.x86.ldtilecfg"))
          return 0;
        seen++;
      }
    }
  return seen;
}

static int count_calls(LLVMModuleRef mod, const char *prefix) {
  int n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        const char *c = callee(i);
        n += c && !strncmp(c, prefix, strlen(prefix));
      }
  return n;
}

static char *assembly(LLVMModuleRef mod, const char *spec) {
  tsl_kv kv[4];
  char buf[128];
  uint32_t n = lt_parse_kv(spec, buf, sizeof buf, kv, 4);
  tll_opts o;
  tsl_diag d = {0};
  LLVMTargetMachineRef tm = NULL;
  LLVMMemoryBufferRef mb = NULL;
  char *err = NULL, *out = NULL;
  if (tll_opts_parse(n, kv, &o, &d) || tll_target_machine(&o, 0, &tm, &d))
    return NULL;
  if (!LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &mb)) {
    size_t len = LLVMGetBufferSize(mb);
    out = malloc(len + 1);
    memcpy(out, LLVMGetBufferStart(mb), len);
    out[len] = 0;
    LLVMDisposeMemoryBuffer(mb);
  } else {
    tap_diag("emit: %s", err);
    LLVMDisposeMessage(err);
  }
  LLVMDisposeTargetMachine(tm);
  tll_opts_free(&o);
  return out;
}

static void test_sapphire_rapids(void) {
  const char *spec = "mcpu=sapphirerapids threads=2";
  LLVMContextRef lc = LLVMContextCreate();
  tsl_diag d = {0};
  LLVMModuleRef mod = build(spec, lc, &d);
  ok(mod != NULL, "the tile calls build for a Sapphire Rapids, 2 threads%s%s", mod ? "" : ": ",
     mod ? "" : d.text);
  int n_fns = 0, good = mod && wrapped(mod, &n_fns);
  ok(good && n_fns == 2,
     "each of the 2 functions using tiles (the parallel worker, the serial part) configures "
     "them first and releases them before returning (%d functions)", n_fns);
  ok(mod && reconfigured(mod, TLL_JIT_PREFIX "_main") == 1,
     "the function configures its tiles again right after its parallel loop");
  LLVMValueRef pal = mod ? LLVMGetNamedGlobal(mod, "tessel_amx_palette") : NULL;
  size_t len = 0;
  const char *b = pal ? LLVMGetAsString(LLVMGetInitializer(pal), &len) : NULL;
  good = b && len == 64 && b[0] == 1;
  for (int t = 0; good && t < 8; t++)
    good = b[16 + 2 * t] == 64 && b[17 + 2 * t] == 0 && b[48 + t] == 16;
  ok(good, "the configuration: palette 1, eight tiles of 16 rows x 64 bytes");
  ok(mod && !LLVMGetNamedGlobal(mod, "llvm.global_ctors"),
     "an in-process build has no constructor (the target asks Linux itself)");
  if (mod)
    tll_amx_add_permit(mod); /* what an export adds */
  LLVMValueRef permit = mod ? LLVMGetNamedFunction(mod, "tessel_amx_permit") : NULL;
  LLVMValueRef sc = NULL;
  for (LLVMValueRef i = permit ? LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(permit)) : NULL;
       i && !sc; i = LLVMGetNextInstruction(i))
    if (callee(i) && !strcmp(callee(i), "syscall"))
      sc = i;
  ok(sc && LLVMConstIntGetZExtValue(LLVMGetOperand(sc, 0)) == 158 &&
         LLVMConstIntGetZExtValue(LLVMGetOperand(sc, 1)) == 0x1023 &&
         LLVMConstIntGetZExtValue(LLVMGetOperand(sc, 2)) == 18 &&
         LLVMGetNamedGlobal(mod, "llvm.global_ctors"),
     "an exported library's constructor asks Linux for the tile data (arch_prctl "
     "ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)");
  LLVMValueRef nat = mod ? LLVMGetNamedFunction(mod, TLL_JIT_PREFIX "_main") : NULL;
  LLVMValueRef first = nat ? LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(nat)) : NULL;
  LLVMValueRef packed = mod ? LLVMGetNamedFunction(mod, TLL_JIT_PREFIX "_main_packed") : NULL;
  LLVMValueRef pfirst = packed ? LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(packed)) : NULL;
  LLVMValueRef denied = mod ? LLVMGetNamedGlobal(mod, "tessel_amx_denied") : NULL;
  ok(denied && first && LLVMIsALoadInst(first) && LLVMGetOperand(first, 0) == denied && pfirst &&
         !(LLVMIsALoadInst(pfirst) && LLVMGetOperand(pfirst, 0) == denied),
     "  ... and the function returns 1 first thing where Linux refused (its packed wrapper "
     "passes that on)");
  char *s = mod ? assembly(mod, spec) : NULL;
  static const char *const insns[] = {"ldtilecfg", "tileloadd", "tdpbusd", "tilestored",
                                      "tilerelease"};
  for (int i = 0; i < 5; i++)
    ok(s && strstr(s, insns[i]), "the assembly has %s", insns[i]);
  free(s);
  if (mod)
    LLVMDisposeModule(mod);
  LLVMContextDispose(lc);
}

static void test_other_cpus(void) {
  LLVMContextRef lc = LLVMContextCreate();
  tsl_diag d = {0};
  LLVMModuleRef mod = build("mcpu=znver4 threads=2", lc, &d);
  ok(!mod && strstr(d.text, "llvm.x86.tileloadd64 needs amx-tile, which the target's CPU "
                            "(znver4) does not have"),
     "a CPU without AMX refuses the tile calls by name");
  if (mod)
    LLVMDisposeModule(mod);
  LLVMContextDispose(lc);
}

static void test_emulated(void) {
  setenv("TESSEL_AMX_EMULATE", "/nonexistent/libemu.so", 1);
  LLVMContextRef lc = LLVMContextCreate();
  tsl_diag d = {0};
  LLVMModuleRef mod = build("mcpu=sapphirerapids threads=2", lc, &d);
  ok(mod && count_calls(mod, "tessel_amx_emu_") > 0 && count_calls(mod, "llvm.x86.t") == 0 &&
         count_calls(mod, "llvm.x86.ldtilecfg") == 0,
     "TESSEL_AMX_EMULATE: every tile call (and the configuration) calls the emulator instead");
  ok(mod && count_calls(mod, "tessel_amx_emu_ldtilecfg") >= 3 &&
         count_calls(mod, "tessel_amx_emu_tilerelease") >= 2,
     "  ... configured and released at the same places");
  ok(mod && !LLVMGetNamedGlobal(mod, "llvm.global_ctors"), "  ... with no constructor");
  char *f = tll_amx_host_features("+avx2,-amx-tile,+amx-int8,-amx-bf16x,-amx-bf16");
  ok(f && !strcmp(f, "+avx2,+amx-tile,+amx-int8,-amx-bf16x,+amx-bf16"),
     "  ... and the host's features have amx-tile, amx-int8 and amx-bf16 (%s)", f ? f : "");
  free(f);
  unsetenv("TESSEL_AMX_EMULATE");
  f = tll_amx_host_features("+avx2,-amx-tile");
  ok(f && !strcmp(f, "+avx2,-amx-tile"), "without it, the host's features are as LLVM says");
  free(f);
  if (mod)
    LLVMDisposeModule(mod);
  LLVMContextDispose(lc);
}

int main(void) {
  tll_llvm_init();
  ctx = tsl_ctx_new();
  test_sapphire_rapids();
  test_other_cpus();
  test_emulated();
  tsl_ctx_free(ctx);
  return tap_done();
}
