/*
 * targets/llvm/vecmath.c — math functions of vectors through glibc's
 * libmvec: T.exp of a float32x64 becomes four calls of libmvec's 16-lane
 * expf instead of 64 calls of libm's expf (README.md, "Vector math").
 *
 * libmvec (part of glibc, x86-64) exports the variants of the x86-64 vector
 * function ABI, `_ZGV<isa>N<lanes><v per argument>_<name>`: isa 'b' (SSE2,
 * 128-bit), 'd' (AVX2, 256-bit), 'e' (AVX-512F, 512-bit). A vector is cut
 * into the widest variants the target's instruction sets and vector width
 * allow, padded with zeros up to a whole number of the narrowest, and the
 * results put back together. Which functions exist depends on the glibc
 * (2.22: exp, log, sin, cos, pow; 2.35: the others), so each variant is
 * looked up in the process's libmvec before a call of it is emitted.
 */
#include "llvm_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t mvec_once = PTHREAD_ONCE_INIT;
static void *mvec_handle;

static void open_mvec(void) {
#if defined(__x86_64__)
  mvec_handle = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
#endif
}

void *tll_libmvec(void) {
  pthread_once(&mvec_once, open_mvec);
  return mvec_handle;
}

int tll_uses_libmvec(LLVMModuleRef mod) {
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    size_t n = 0;
    const char *name = LLVMGetValueName2(f, &n);
    if (LLVMIsDeclaration(f) && n > 4 && !strncmp(name, "_ZGV", 4))
      return 1;
  }
  return 0;
}

/* The variants, widest first: ABI letter, register bits, the instruction
 * set it needs (NULL: x86-64's baseline). */
static const struct {
  char isa;
  int bits;
  const char *feature;
} variants[] = {{'e', 512, "avx512f"}, {'d', 256, "avx2"}, {'b', 128, NULL}};
enum { N_VARIANTS = sizeof variants / sizeof variants[0] };

/* A constant i32 vector of `n` shuffle indices, -1 for "any lane". */
static LLVMValueRef mask_of(tll_cg *cg, const int *idx, unsigned n) {
  LLVMValueRef m[512];
  for (unsigned i = 0; i < n; i++)
    m[i] = idx[i] < 0 ? LLVMGetUndef(cg->t_i32) : LLVMConstInt(cg->t_i32, (unsigned)idx[i], 0);
  return LLVMConstVector(m, n);
}

/* Lanes [from, from + n) of x (n == all of x: x itself). */
static LLVMValueRef lanes_of(tll_cg *cg, LLVMValueRef x, unsigned from, unsigned n) {
  if (from == 0 && n == LLVMGetVectorSize(LLVMTypeOf(x)))
    return x;
  int idx[512];
  for (unsigned i = 0; i < n; i++)
    idx[i] = (int)(from + i);
  return LLVMBuildShuffleVector(cg->b, x, LLVMGetPoison(LLVMTypeOf(x)), mask_of(cg, idx, n), "");
}

/* x (`lanes` lanes) widened to `to` lanes, the new ones 0. */
static LLVMValueRef pad(tll_cg *cg, LLVMValueRef x, unsigned lanes, unsigned to) {
  if (to == lanes)
    return x;
  int idx[512];
  for (unsigned i = 0; i < to; i++)
    idx[i] = i < lanes ? (int)i : (int)lanes; /* lane 0 of the zeros */
  return LLVMBuildShuffleVector(cg->b, x, LLVMConstNull(LLVMTypeOf(x)), mask_of(cg, idx, to), "");
}

/* r (`total` lanes) with lanes [at, at + n) replaced by the n lanes of c. */
static LLVMValueRef put(tll_cg *cg, LLVMValueRef r, LLVMValueRef c, unsigned at, unsigned n,
                        unsigned total) {
  if (n == total)
    return c;
  int idx[512];
  for (unsigned i = 0; i < total; i++)
    idx[i] = i < n ? (int)i : -1;
  LLVMValueRef wide = LLVMBuildShuffleVector(cg->b, c, LLVMGetPoison(LLVMTypeOf(c)),
                                             mask_of(cg, idx, total), "");
  for (unsigned i = 0; i < total; i++)
    idx[i] = i >= at && i < at + n ? (int)(total + i - at) : (int)i;
  return LLVMBuildShuffleVector(cg->b, r, wide, mask_of(cg, idx, total), "");
}

/* The call of the variant `sym` on its n_args vectors. */
static LLVMValueRef call_variant(tll_cg *cg, const char *sym, LLVMValueRef *args,
                                 unsigned n_args) {
  LLVMValueRef call = tll_call_extern(cg, sym, LLVMTypeOf(args[0]), args, n_args);
  if (!call)
    return NULL;
  /* no memory touched, no errno: LLVM may hoist and merge the calls */
  LLVMValueRef fn = LLVMGetCalledValue(call);
  unsigned mem = LLVMGetEnumAttributeKindForName("memory", 6);
  unsigned wr = LLVMGetEnumAttributeKindForName("willreturn", 10);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, mem, 0));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, wr, 0));
  return call;
}

LLVMValueRef tll_vecmath_call(tll_cg *cg, const char *base, LLVMValueRef *a, unsigned n_args) {
  LLVMTypeRef ty = LLVMTypeOf(a[0]);
  if (!cg->opts->vector_math || n_args < 1 || n_args > 2 ||
      LLVMGetTypeKind(ty) != LLVMVectorTypeKind || !tll_libmvec())
    return NULL;
  LLVMTypeKind ek = LLVMGetTypeKind(LLVMGetElementType(ty));
  if (ek != LLVMFloatTypeKind && ek != LLVMDoubleTypeKind)
    return NULL;
  unsigned lanes = LLVMGetVectorSize(ty), elem_bits = ek == LLVMFloatTypeKind ? 32 : 64;
  if (lanes > 256)
    return NULL;
  uint64_t isa = tll_isa_required(cg->opts->cpu, cg->opts->features);
  int max_bits = cg->opts->vector_width ? cg->opts->vector_width : 512;
  /* the usable variants, widest first: their symbols and lanes */
  char syms[N_VARIANTS][64];
  unsigned width[N_VARIANTS], n_usable = 0;
  for (int v = 0; v < N_VARIANTS; v++) {
    if (variants[v].bits > max_bits ||
        (variants[v].feature && !tll_isa_has(isa, variants[v].feature)))
      continue;
    unsigned w = (unsigned)variants[v].bits / elem_bits;
    snprintf(syms[n_usable], sizeof syms[0], "_ZGV%cN%u%s_%s%s", variants[v].isa, w,
             n_args == 2 ? "vv" : "v", base, elem_bits == 32 ? "f" : "");
    if (!dlsym(tll_libmvec(), syms[n_usable]))
      continue;
    width[n_usable++] = w;
  }
  if (!n_usable)
    return NULL;
  /* padded to whole numbers of the narrowest; each piece as wide as fits */
  unsigned narrow = width[n_usable - 1], total = (lanes + narrow - 1) / narrow * narrow;
  LLVMValueRef x[2], r;
  for (unsigned i = 0; i < n_args; i++)
    x[i] = pad(cg, a[i], lanes, total);
  r = LLVMGetPoison(LLVMTypeOf(x[0]));
  for (unsigned at = 0; at < total;) {
    unsigned v = 0;
    while (width[v] > total - at)
      v++;
    LLVMValueRef piece[2];
    for (unsigned i = 0; i < n_args; i++)
      piece[i] = lanes_of(cg, x[i], at, width[v]);
    LLVMValueRef c = call_variant(cg, syms[v], piece, n_args);
    if (!c)
      return NULL;
    r = put(cg, r, c, at, width[v], total);
    at += width[v];
  }
  return total == lanes ? r : lanes_of(cg, r, 0, lanes);
}
