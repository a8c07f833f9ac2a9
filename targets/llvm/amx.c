/*
 * targets/llvm/amx.c — what a module that calls AMX tile intrinsics
 * (llvm.x86.tileloadd64, llvm.x86.tdpbusd, ... with tile numbers as
 * immediates, as the x86 plugin's dot_16x16x64_amx does) needs around
 * those calls, added after codegen:
 *
 *  - Tile configuration. Every function that calls a tile intrinsic loads
 *    one configuration at its entry (palette 1, all eight tiles 16 rows of
 *    64 bytes: a tensor intrinsic uses whole tiles) and releases the tiles
 *    before each return. A parallel worker is such a function of its own,
 *    so each thread configures its tiles. A function that uses tiles and
 *    launches a parallel loop (thread_pool.h), or calls another function
 *    of the module that uses tiles, loads the configuration again after
 *    the call (the callee, run on this thread too, released it).
 *  - The OS's permission. Linux (5.16 and later) gives a process the tile
 *    data state only on request (arch_prctl ARCH_REQ_XCOMP_PERM); without
 *    it the first tile instruction faults. In-process builds ask before
 *    the kernel is returned (tll_amx_permit); an exported library asks in
 *    a constructor, when it is loaded (tll_amx_add_permit), and where
 *    Linux refuses, says so on stderr and its functions return 1.
 *  - Emulation, for tests on CPUs without AMX: with TESSEL_AMX_EMULATE set
 *    to a library that defines tessel_amx_emu_<op> for each llvm.x86.<op>
 *    used (tests/plugin/x86/amx_emu.c), every tile intrinsic call becomes a
 *    call of that function with the same arguments (tile numbers widened
 *    to int), the host is taken to
 *    have amx-tile, amx-int8 and amx-bf16, and in-process builds resolve
 *    the functions in that library.
 */
#include "llvm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

const char *tll_amx_emulator(void) {
  const char *p = getenv("TESSEL_AMX_EMULATE");
  return p && *p ? p : NULL;
}

int tll_amx_permit(tsl_diag *diag) {
  if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0)
    return TSL_OK;
  int e = errno;
  return tsl_diag_set(diag, TSL_EUNSUPPORTED, "llvm target: the kernel uses AMX tiles and "
                      "Linux did not grant this process their state (arch_prctl "
                      "ARCH_REQ_XCOMP_PERM: %s); Linux 5.16 or later grants it on a CPU with "
                      "AMX, or tune without the AMX tensor intrinsics", strerror(e));
}

/* The name of the function `call` calls, or NULL. */
static const char *callee_name(LLVMValueRef call) {
  if (!LLVMIsACallInst(call))
    return NULL;
  LLVMValueRef f = LLVMGetCalledValue(call);
  if (!f || !LLVMIsAFunction(f))
    return NULL;
  size_t n;
  return LLVMGetValueName2(f, &n);
}

static int is_tile_intrinsic(const char *name) {
  return name && (!strncmp(name, "llvm.x86.tile", 13) || !strncmp(name, "llvm.x86.tdp", 12) ||
                  !strcmp(name, "llvm.x86.ldtilecfg") || !strcmp(name, "llvm.x86.sttilecfg"));
}

static int calls_tiles(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (is_tile_intrinsic(callee_name(i)))
        return 1;
  return 0;
}

typedef struct amx_cx {
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMContextRef ctx;
  LLVMValueRef palette, load_cfg, release;
} amx_cx;

static LLVMValueRef intrinsic(amx_cx *x, const char *name) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  return LLVMGetIntrinsicDeclaration(x->mod, id, NULL, 0);
}

/* Palette 1; bytes 16-31: each tile's bytes per row (uint16); 48-55: its
 * rows. */
static LLVMValueRef palette(amx_cx *x) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(x->ctx);
  LLVMValueRef bytes[64];
  for (int i = 0; i < 64; i++) {
    int v = i == 0 ? 1 : (i >= 16 && i < 32 && i % 2 == 0) ? 64 : (i >= 48 && i < 56) ? 16 : 0;
    bytes[i] = LLVMConstInt(i8, (unsigned long long)v, 0);
  }
  LLVMTypeRef at = LLVMArrayType2(i8, 64);
  LLVMValueRef g = LLVMAddGlobal(x->mod, at, "tessel_amx_palette");
  LLVMSetInitializer(g, LLVMConstArray2(i8, bytes, 64));
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, 64);
  return g;
}

static void call0(amx_cx *x, LLVMValueRef fn, LLVMValueRef *args, unsigned n) {
  LLVMBuildCall2(x->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

/* Configuration after the entry block's allocas and after the calls that
 * release the tiles; release before each return. */
static void wrap(amx_cx *x, LLVMValueRef fn, const uint8_t *uses, LLVMValueRef *fns, size_t nf) {
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  LLVMValueRef at = LLVMGetFirstInstruction(entry);
  while (at && LLVMIsAAllocaInst(at))
    at = LLVMGetNextInstruction(at);
  LLVMPositionBuilderBefore(x->b, at);
  call0(x, x->load_cfg, &x->palette, 1);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) == LLVMRet) {
        LLVMPositionBuilderBefore(x->b, i);
        call0(x, x->release, NULL, 0);
        continue;
      }
      const char *name = callee_name(i);
      int releases = name && !strcmp(name, TLL_PARALLEL_LAUNCH);
      for (size_t k = 0; name && !releases && k < nf; k++)
        releases = uses[k] && LLVMGetCalledValue(i) == fns[k];
      if (releases) {
        LLVMPositionBuilderBefore(x->b, LLVMGetNextInstruction(i));
        call0(x, x->load_cfg, &x->palette, 1);
        i = LLVMGetNextInstruction(i);
      }
    }
}

/* Every call of llvm.x86.<op> becomes one of tessel_amx_emu_<op>, its i8
 * tile numbers passed as i32 (the C functions take int). */
static void emulate(amx_cx *x, LLVMValueRef fn) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(x->ctx), i32 = LLVMInt32TypeInContext(x->ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef i = LLVMGetFirstInstruction(bb);
    while (i) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      const char *name = callee_name(i);
      if (is_tile_intrinsic(name)) {
        char emu[96];
        snprintf(emu, sizeof emu, "tessel_amx_emu_%s", name + 9);
        unsigned n = (unsigned)LLVMGetNumArgOperands(i);
        LLVMValueRef args[8];
        LLVMTypeRef pt[8];
        LLVMPositionBuilderBefore(x->b, i);
        for (unsigned a = 0; a < n && a < 8; a++) {
          args[a] = LLVMGetOperand(i, a);
          pt[a] = LLVMTypeOf(args[a]);
          if (pt[a] == i8) {
            args[a] = LLVMBuildSExt(x->b, args[a], i32, "");
            pt[a] = i32;
          }
        }
        LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(x->ctx), pt, n, 0);
        LLVMValueRef f = LLVMGetNamedFunction(x->mod, emu);
        if (!f)
          f = LLVMAddFunction(x->mod, emu, ft);
        LLVMBuildCall2(x->b, ft, f, args, n, "");
        LLVMInstructionEraseFromParent(i);
      }
      i = next;
    }
  }
}

/* "if (tessel_amx_denied) return 1" at the entry of `fn`, in a block of
 * its own before the old entry. */
static void deny_guard(amx_cx *x, LLVMValueRef fn, LLVMValueRef denied) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->ctx);
  LLVMBasicBlockRef body = LLVMGetEntryBasicBlock(fn);
  LLVMBasicBlockRef check = LLVMInsertBasicBlockInContext(x->ctx, body, "amx.check");
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(x->ctx, fn, "amx.denied");
  LLVMPositionBuilderAtEnd(x->b, check);
  LLVMValueRef d = LLVMBuildLoad2(x->b, i32, denied, "");
  LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntNE, d, LLVMConstInt(i32, 0, 0), ""), out,
                  body);
  LLVMPositionBuilderAtEnd(x->b, out);
  LLVMBuildRet(x->b, LLVMConstInt(i32, 1, 0));
}

void tll_amx_add_permit(LLVMModuleRef mod) {
  amx_cx cx = {mod, NULL, LLVMGetModuleContext(mod), NULL, NULL, NULL}, *x = &cx;
  x->b = LLVMCreateBuilderInContext(x->ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->ctx), i64 = LLVMInt64TypeInContext(x->ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(x->ctx, 0);
  LLVMTypeRef vt = LLVMVoidTypeInContext(x->ctx);
  /* the module's own functions first: the ones added below get no guard */
  LLVMValueRef denied = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (LLVMIsDeclaration(f) || LLVMGetLinkage(f) != LLVMExternalLinkage ||
        LLVMGetReturnType(LLVMGlobalGetValueType(f)) != i32 ||
        (n > 7 && !strcmp(name + n - 7, "_packed")))
      continue;
    if (!denied) {
      denied = LLVMAddGlobal(mod, i32, "tessel_amx_denied");
      LLVMSetInitializer(denied, LLVMConstInt(i32, 0, 0));
      LLVMSetLinkage(denied, LLVMInternalLinkage);
    }
    deny_guard(x, f, denied);
  }
  LLVMTypeRef sys_t = LLVMFunctionType(i64, &i64, 1, 1);
  LLVMValueRef sys = LLVMGetNamedFunction(mod, "syscall");
  if (!sys)
    sys = LLVMAddFunction(mod, "syscall", sys_t);
  LLVMTypeRef wt[3] = {i32, ptr, i64};
  LLVMTypeRef write_t = LLVMFunctionType(i64, wt, 3, 0);
  LLVMValueRef wr = LLVMGetNamedFunction(mod, "write");
  if (!wr)
    wr = LLVMAddFunction(mod, "write", write_t);
  LLVMValueRef fn = LLVMAddFunction(mod, "tessel_amx_permit", LLVMFunctionType(vt, NULL, 0, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(x->ctx, fn, "entry");
  LLVMBasicBlockRef refused = LLVMAppendBasicBlockInContext(x->ctx, fn, "refused");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(x->ctx, fn, "done");
  LLVMPositionBuilderAtEnd(x->b, entry);
  LLVMValueRef args[3] = {LLVMConstInt(i64, SYS_arch_prctl, 0),
                          LLVMConstInt(i64, ARCH_REQ_XCOMP_PERM, 0),
                          LLVMConstInt(i64, XFEATURE_XTILEDATA, 0)};
  LLVMValueRef r = LLVMBuildCall2(x->b, sys_t, sys, args, 3, "");
  LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntNE, r, LLVMConstInt(i64, 0, 0), ""), refused,
                  done);
  LLVMPositionBuilderAtEnd(x->b, refused);
  static const char msg[] = "tessel: this library's kernels use AMX tiles and Linux did not "
                            "grant the process their state (arch_prctl ARCH_REQ_XCOMP_PERM; "
                            "Linux 5.16 or later on a CPU with AMX): they return 1\n";
  LLVMValueRef text = LLVMBuildGlobalStringPtr(x->b, msg, "tessel_amx_refused");
  LLVMValueRef wa[3] = {LLVMConstInt(i32, 2, 0), text, LLVMConstInt(i64, sizeof msg - 1, 0)};
  LLVMBuildCall2(x->b, write_t, wr, wa, 3, "");
  if (denied)
    LLVMBuildStore(x->b, LLVMConstInt(i32, 1, 0), denied);
  LLVMBuildBr(x->b, done);
  LLVMPositionBuilderAtEnd(x->b, done);
  LLVMBuildRetVoid(x->b);
  tll_add_constructor(mod, fn);
  LLVMDisposeBuilder(x->b);
}

/* Whether the module declares a tile intrinsic: a walk over its functions
 * only, so that the modules of every other candidate pay nothing more. */
static int declares_tiles(LLVMModuleRef mod) {
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    if (LLVMIsDeclaration(f) && is_tile_intrinsic(LLVMGetValueName2(f, &n)))
      return 1;
  }
  return 0;
}

int tll_amx_finish(LLVMModuleRef mod, tsl_diag *diag) {
  if (!declares_tiles(mod))
    return TSL_OK;
  size_t nf = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    nf++;
  LLVMValueRef *fns = calloc(nf, sizeof *fns);
  uint8_t *uses = calloc(nf, 1);
  if (!fns || !uses) {
    free(fns);
    free(uses);
    return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
  }
  int any = 0;
  nf = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f), nf++) {
    fns[nf] = f;
    uses[nf] = !LLVMIsDeclaration(f) && calls_tiles(f);
    any |= uses[nf];
  }
  if (any) {
    amx_cx x = {mod, NULL, LLVMGetModuleContext(mod), NULL, NULL, NULL};
    x.b = LLVMCreateBuilderInContext(x.ctx);
    x.palette = palette(&x);
    x.load_cfg = intrinsic(&x, "llvm.x86.ldtilecfg");
    x.release = intrinsic(&x, "llvm.x86.tilerelease");
    for (size_t k = 0; k < nf; k++)
      if (uses[k])
        wrap(&x, fns[k], uses, fns, nf);
    if (tll_amx_emulator())
      for (size_t k = 0; k < nf; k++)
        if (uses[k])
          emulate(&x, fns[k]);
    LLVMDisposeBuilder(x.b);
  }
  free(fns);
  free(uses);
  return TSL_OK;
}

char *tll_amx_host_features(const char *features) {
  static const char *const amx[] = {"amx-tile", "amx-int8", "amx-bf16"};
  size_t n = strlen(features);
  char *s = malloc(n + 64);
  if (!s)
    return NULL;
  memcpy(s, features, n + 1);
  if (!tll_amx_emulator())
    return s;
  for (int k = 0; k < 3; k++) {
    size_t m = strlen(amx[k]);
    int found = 0;
    for (char *p = s; (p = strstr(p, amx[k])); p += m)
      if (p > s && (p[-1] == '-' || p[-1] == '+') && (p[m] == ',' || !p[m]) &&
          (p - 1 == s || p[-2] == ',')) {
        p[-1] = '+';
        found = 1;
      }
    if (!found)
      snprintf(s + strlen(s), n + 64 - strlen(s), "%s+%s", *s ? "," : "", amx[k]);
  }
  return s;
}

int tll_amx_used(LLVMModuleRef mod) { return LLVMGetNamedGlobal(mod, "tessel_amx_palette") != NULL; }
