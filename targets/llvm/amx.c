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
 *    calls GOMP_parallel, or another function of the module that uses
 *    tiles, loads the configuration again after the call (the callee, run
 *    on this thread too, released it).
 *  - The OS's permission. Linux (5.16 and later) gives a process the tile
 *    data state only on request (arch_prctl ARCH_REQ_XCOMP_PERM); without
 *    it the first tile instruction faults. In-process builds ask before
 *    the kernel is returned (tll_amx_permit); an exported library asks in
 *    a constructor, when it is loaded.
 *  - Emulation, for tests on CPUs without AMX: with TESSEL_AMX_EMULATE set
 *    to a library that defines tessel_amx_emu_<op> for each llvm.x86.<op>
 *    used (tests/plugin/x86/amx_emu.c), every tile intrinsic call becomes a
 *    call of that function with the same arguments, the host is taken to
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
      int releases = name && !strcmp(name, "GOMP_parallel");
      for (size_t k = 0; name && !releases && k < nf; k++)
        releases = uses[k] && LLVMGetCalledValue(i) == fns[k];
      if (releases) {
        LLVMPositionBuilderBefore(x->b, LLVMGetNextInstruction(i));
        call0(x, x->load_cfg, &x->palette, 1);
        i = LLVMGetNextInstruction(i);
      }
    }
}

/* Every call of llvm.x86.<op> becomes one of tessel_amx_emu_<op>. */
static void emulate(amx_cx *x, LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef i = LLVMGetFirstInstruction(bb);
    while (i) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      const char *name = callee_name(i);
      if (is_tile_intrinsic(name)) {
        char emu[96];
        snprintf(emu, sizeof emu, "tessel_amx_emu_%s", name + 9);
        LLVMTypeRef ft = LLVMGlobalGetValueType(LLVMGetCalledValue(i));
        LLVMValueRef f = LLVMGetNamedFunction(x->mod, emu);
        if (!f)
          f = LLVMAddFunction(x->mod, emu, ft);
        unsigned n = (unsigned)LLVMGetNumArgOperands(i);
        LLVMValueRef args[8];
        for (unsigned a = 0; a < n && a < 8; a++)
          args[a] = LLVMGetOperand(i, a);
        LLVMPositionBuilderBefore(x->b, i);
        LLVMBuildCall2(x->b, ft, f, args, n, "");
        LLVMInstructionEraseFromParent(i);
      }
      i = next;
    }
  }
}

/* Linux's permission, asked for when an exported library is loaded. */
static void permit_ctor(amx_cx *x) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->ctx), i64 = LLVMInt64TypeInContext(x->ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(x->ctx, 0);
  LLVMTypeRef vt = LLVMVoidTypeInContext(x->ctx);
  LLVMTypeRef sys_t = LLVMFunctionType(i64, &i64, 1, 1);
  LLVMValueRef sys = LLVMGetNamedFunction(x->mod, "syscall");
  if (!sys)
    sys = LLVMAddFunction(x->mod, "syscall", sys_t);
  LLVMValueRef fn = LLVMAddFunction(x->mod, "tessel_amx_permit", LLVMFunctionType(vt, NULL, 0, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMPositionBuilderAtEnd(x->b, LLVMAppendBasicBlockInContext(x->ctx, fn, "entry"));
  LLVMValueRef args[3] = {LLVMConstInt(i64, SYS_arch_prctl, 0),
                          LLVMConstInt(i64, ARCH_REQ_XCOMP_PERM, 0),
                          LLVMConstInt(i64, XFEATURE_XTILEDATA, 0)};
  LLVMBuildCall2(x->b, sys_t, sys, args, 3, "");
  LLVMBuildRetVoid(x->b);
  LLVMTypeRef et[3] = {i32, ptr, ptr};
  LLVMTypeRef st = LLVMStructTypeInContext(x->ctx, et, 3, 0);
  LLVMValueRef ev[3] = {LLVMConstInt(i32, 65535, 0), fn, LLVMConstNull(ptr)};
  LLVMValueRef entry = LLVMConstNamedStruct(st, ev, 3);
  LLVMValueRef g = LLVMAddGlobal(x->mod, LLVMArrayType2(st, 1), "llvm.global_ctors");
  LLVMSetInitializer(g, LLVMConstArray2(st, &entry, 1));
  LLVMSetLinkage(g, LLVMAppendingLinkage);
}

int tll_amx_finish(LLVMModuleRef mod, int *uses_tiles, tsl_diag *diag) {
  *uses_tiles = 0;
  size_t nf = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    nf++;
  LLVMValueRef *fns = calloc(nf ? nf : 1, sizeof *fns);
  uint8_t *uses = calloc(nf ? nf : 1, 1);
  if (!fns || !uses) {
    free(fns);
    free(uses);
    return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
  }
  nf = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f), nf++) {
    fns[nf] = f;
    uses[nf] = !LLVMIsDeclaration(f) && calls_tiles(f);
    *uses_tiles |= uses[nf];
  }
  if (*uses_tiles) {
    amx_cx x = {mod, NULL, LLVMGetModuleContext(mod), NULL, NULL, NULL};
    x.b = LLVMCreateBuilderInContext(x.ctx);
    x.palette = palette(&x);
    x.load_cfg = intrinsic(&x, "llvm.x86.ldtilecfg");
    x.release = intrinsic(&x, "llvm.x86.tilerelease");
    for (size_t k = 0; k < nf; k++)
      if (uses[k])
        wrap(&x, fns[k], uses, fns, nf);
    if (tll_amx_emulator()) {
      for (size_t k = 0; k < nf; k++)
        if (uses[k])
          emulate(&x, fns[k]);
    } else {
      permit_ctor(&x);
    }
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
