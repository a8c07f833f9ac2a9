/*
 * targets/llvm/jit.c — in-process builds with ORC LLJIT.
 *
 * One LLJIT per kernel (freeing a kernel frees its code), built on a target
 * machine with the instance's CPU, features and opt level. Symbols the code
 * needs are resolved by a definition generator in this order: a few
 * compiler-runtime helpers implemented here (half-precision conversions that
 * LLVM may call when the CPU lacks F16C, or for double -> half) and the
 * thread pool's launch (thread_pool.c, the plugin's own copy: one pool for
 * every kernel; the plugin is loaded RTLD_LOCAL, so the global namespace is
 * not relied on), libmvec's vector functions (_ZGV*, vecmath.c), libm
 * (dlopen'ed per kernel), then the process (libc: aligned_alloc, free,
 * memset, ...).
 */
#include "llvm_internal.h"
#include "thread_pool.h"

#include <dlfcn.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tsl_kernel {
  LLVMOrcLLJITRef jit;
  void *libm, *amx_emu;
  uint32_t n;
  char **names;
  tsl_packed_fn *fns;
  char session_error[1024]; /* what the JIT session reported, if anything */
};

/* ---- compiler-runtime helpers ------------------------------------------------ */

static float h2f(_Float16 h) {
  uint16_t bits;
  memcpy(&bits, &h, 2);
  return tsl_f16_to_f32(bits);
}

static _Float16 f2h(float f) {
  uint16_t bits = tsl_f32_to_f16(f);
  _Float16 h;
  memcpy(&h, &bits, 2);
  return h;
}

/* double -> half with a single rounding (nearest even) */
static _Float16 d2h(double d) {
  uint64_t x;
  memcpy(&x, &d, 8);
  uint16_t sign = (uint16_t)((x >> 48) & 0x8000);
  int exp = (int)((x >> 52) & 0x7ff);
  uint64_t man = x & 0xfffffffffffffull;
  uint16_t out;
  if (exp == 0x7ff) {
    out = sign | 0x7c00 | (man ? 0x200 : 0);
  } else {
    int e = exp - 1023 + 15; /* half exponent */
    uint64_t m = man | (exp ? 1ull << 52 : 0);
    int shift;
    if (e >= 31) {
      out = sign | 0x7c00;
      goto done;
    }
    if (e <= 0) { /* subnormal half: value = m * 2^(exp-1075) in 2^-24 units */
      shift = 1 - e + 42;
      e = 0;
    } else {
      shift = 42;
    }
    if (shift > 63) {
      out = sign;
      goto done;
    }
    uint64_t q = m >> shift, rem = m & ((1ull << shift) - 1),
             half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
      q++;
    /* q holds the mantissa with the implicit bit; carry may bump e */
    uint32_t v = e ? (uint32_t)(((uint32_t)(e - 1) << 10) + q)
                   : (uint32_t)q;
    if (v >= 0x7c00)
      v = 0x7c00;
    out = sign | (uint16_t)v;
  }
done:;
  _Float16 h;
  memcpy(&h, &out, 2);
  return h;
}

static const struct {
  const char *name;
  void *addr;
} builtins[] = {
    {"__extendhfsf2", (void *)h2f},
    {"__gnu_h2f_ieee", (void *)h2f},
    {"__truncsfhf2", (void *)f2h},
    {"__gnu_f2h_ieee", (void *)f2h},
    {"__truncdfhf2", (void *)d2h},
    {TLL_PARALLEL_LAUNCH, (void *)tessel_parallel_launch},
};

static void *resolve(tsl_kernel *k, const char *name) {
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
    if (!strcmp(builtins[i].name, name))
      return builtins[i].addr;
  void *p = NULL;
  if (k->amx_emu && !strncmp(name, "tessel_amx_emu_", 15))
    return dlsym(k->amx_emu, name);
  if (!strncmp(name, "_ZGV", 4) && tll_libmvec())
    p = dlsym(tll_libmvec(), name);
  if (!p && k->libm)
    p = dlsym(k->libm, name);
  if (!p)
    p = dlsym(RTLD_DEFAULT, name);
  return p;
}

static LLVMErrorRef generate(LLVMOrcDefinitionGeneratorRef gen, void *ctx,
                             LLVMOrcLookupStateRef *state,
                             LLVMOrcLookupKind kind, LLVMOrcJITDylibRef jd,
                             LLVMOrcJITDylibLookupFlags flags,
                             LLVMOrcCLookupSet set, size_t n) {
  (void)gen;
  (void)state;
  (void)kind;
  (void)flags;
  tsl_kernel *k = ctx;
  LLVMOrcCSymbolMapPairs pairs = malloc((n ? n : 1) * sizeof *pairs);
  if (!pairs)
    return LLVMCreateStringError("out of memory");
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = LLVMOrcSymbolStringPoolEntryStr(set[i].Name);
    void *addr = name ? resolve(k, name) : NULL;
    if (!addr)
      continue;
    LLVMOrcRetainSymbolStringPoolEntry(set[i].Name);
    pairs[m].Name = set[i].Name;
    pairs[m].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)addr;
    pairs[m].Sym.Flags.GenericFlags =
        LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[m].Sym.Flags.TargetFlags = 0;
    m++;
  }
  LLVMErrorRef err = NULL;
  if (m) {
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, m);
    err = LLVMOrcJITDylibDefine(jd, mu);
    if (err)
      LLVMOrcDisposeMaterializationUnit(mu);
  }
  free(pairs);
  return err;
}

/* The session reports materialization failures (e.g. a symbol that cannot
 * be resolved) here rather than through the failing lookup. */
static void session_error(void *ctx, LLVMErrorRef err) {
  tsl_kernel *k = ctx;
  char *m = LLVMGetErrorMessage(err);
  if (!k->session_error[0])
    snprintf(k->session_error, sizeof k->session_error, "%s", m ? m : "?");
  LLVMDisposeErrorMessage(m);
}

static int llvm_error(LLVMErrorRef err, tsl_diag *diag, const char *what) {
  char *m = LLVMGetErrorMessage(err);
  int st = tsl_diag_set(diag, TSL_EINVALID, "llvm target: %s: %s", what,
                        m ? m : "?");
  LLVMDisposeErrorMessage(m);
  return st;
}

void tll_jit_free(tsl_kernel *k) {
  if (!k)
    return;
  if (k->jit) {
    LLVMErrorRef err = LLVMOrcDisposeLLJIT(k->jit);
    if (err)
      LLVMConsumeError(err);
  }
  for (uint32_t i = 0; i < k->n; i++)
    free(k->names[i]);
  free(k->names);
  free(k->fns);
  if (k->libm)
    dlclose(k->libm);
  if (k->amx_emu)
    dlclose(k->amx_emu);
  free(k);
}

int tll_jit_build(tsl_target *t, const tsl_lowered_module *m,
                  tsl_kernel **out, tsl_build_stats *stats, tsl_diag *diag) {
  *out = NULL;
  if (stats) {
    stats->codegen_s = stats->optimize_s = stats->jit_s = -1;
  }
  tsl_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
  k->n = m->n_funcs;
  k->names = calloc(k->n ? k->n : 1, sizeof *k->names);
  k->fns = calloc(k->n ? k->n : 1, sizeof *k->fns);
  if (!k->names || !k->fns) {
    tll_jit_free(k);
    return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
  }
  k->libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);

  LLVMTargetMachineRef tm = NULL;
  int rc = tll_target_machine(&t->opts, 0, &tm, diag);
  if (rc) {
    tll_jit_free(k);
    return rc;
  }
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMModuleRef mod = NULL;
  rc = tll_compile(LLVMOrcThreadSafeContextGetContext(tsc), &t->opts, tm, m,
                   TLL_JIT_PREFIX, &mod, stats, diag);
  if (rc) {
    LLVMOrcDisposeThreadSafeContext(tsc);
    LLVMDisposeTargetMachine(tm);
    tll_jit_free(k);
    return rc;
  }
  if (tll_amx_used(mod)) { /* amx.c */
    const char *emu = tll_amx_emulator();
    if (emu && !(k->amx_emu = dlopen(emu, RTLD_NOW | RTLD_LOCAL)))
      rc = tsl_diag_set(diag, TSL_EINVALID, "llvm target: TESSEL_AMX_EMULATE: %s", dlerror());
    else if (!emu)
      rc = tll_amx_permit(diag);
    if (rc) {
      LLVMDisposeModule(mod);
      LLVMOrcDisposeThreadSafeContext(tsc);
      LLVMDisposeTargetMachine(tm);
      tll_jit_free(k);
      return rc;
    }
  }
  double t0 = tll_now();
  LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
      jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&k->jit, jb);
  if (err) {
    k->jit = NULL;
    LLVMDisposeModule(mod);
    LLVMOrcDisposeThreadSafeContext(tsc);
    rc = llvm_error(err, diag, "cannot create the JIT");
    tll_jit_free(k);
    return rc;
  }
  LLVMOrcExecutionSessionSetErrorReporter(
      LLVMOrcLLJITGetExecutionSession(k->jit), session_error, k);
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(k->jit);
  LLVMOrcJITDylibAddGenerator(
      jd, LLVMOrcCreateCustomCAPIDefinitionGenerator(generate, k, NULL));
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  err = LLVMOrcLLJITAddLLVMIRModule(k->jit, jd, tsm);
  if (err) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    rc = llvm_error(err, diag, "cannot add the module to the JIT");
    tll_jit_free(k);
    return rc;
  }
  for (uint32_t i = 0; i < k->n; i++) {
    const char *name = m->funcs[i]->name;
    size_t len = strlen(name) + sizeof TLL_JIT_PREFIX + 16;
    char *sym = malloc(len);
    k->names[i] = strdup(name);
    if (!sym || !k->names[i]) {
      free(sym);
      tll_jit_free(k);
      return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
    }
    snprintf(sym, len, "%s_%s_packed", TLL_JIT_PREFIX, name);
    LLVMOrcExecutorAddress addr = 0;
    err = LLVMOrcLLJITLookup(k->jit, &addr, sym);
    free(sym);
    if (err) {
      rc = llvm_error(err, diag, "linking the JIT-compiled code failed");
      if (k->session_error[0])
        tsl_diag_append(diag, " (%s; external functions must be in libc, "
                              "libm or libmvec)",
                        k->session_error);
      tll_jit_free(k);
      return rc;
    }
    k->fns[i] = (tsl_packed_fn)(uintptr_t)addr;
  }
  if (stats)
    stats->jit_s = tll_now() - t0;
  *out = k;
  return TSL_OK;
}

tsl_packed_fn tll_jit_lookup(tsl_kernel *k, const char *name) {
  if (!k || !name)
    return NULL;
  for (uint32_t i = 0; i < k->n; i++)
    if (!strcmp(k->names[i], name))
      return k->fns[i];
  return NULL;
}
