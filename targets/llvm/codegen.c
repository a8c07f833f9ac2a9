/*
 * targets/llvm/codegen.c — what every codegen file shares: errors, the
 * scope of names, dtype -> LLVM type mapping, constants, conversions
 * between dtypes (with the interpreter's semantics: saturating float -> int,
 * bool as != 0, bfloat16 rounded to nearest even after every operation),
 * intrinsic and external calls, entry-block allocas, the failure exit.
 *
 * Value representation: bool is i1 (i8 in memory), int/uint N is iN, float16
 * is LLVM half, bfloat16 is computed as float and stored as i16, vectors are
 * LLVM vectors of the scalar type.
 */
#include "llvm_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tll_fail(tll_cg *cg, int status, const char *fmt, ...) {
  if (cg->status)
    return cg->status;
  cg->status = status;
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tsl_diag_set(cg->diag, status, "llvm codegen: %s", buf);
  return status;
}

tll_bind *tll_bind_push(tll_cg *cg, const void *key, LLVMValueRef v, int is_buf) {
  tll_bind *b = tsl_vec_push(&cg->binds);
  *b = (tll_bind){key, v, is_buf, 0};
  return b;
}

const tll_bind *tll_bind_get(tll_cg *cg, const void *key) {
  for (uint32_t i = cg->binds.len; i-- > 0;)
    if (TSL_VEC_AT(&cg->binds, tll_bind, i).key == key)
      return &TSL_VEC_AT(&cg->binds, tll_bind, i);
  return NULL;
}

LLVMValueRef tll_bind_find(tll_cg *cg, const void *key) {
  const tll_bind *b = tll_bind_get(cg, key);
  return b ? b->value : NULL;
}

/* ---- types ---------------------------------------------------------------- */

LLVMTypeRef tll_scalar_type(tll_cg *cg, tsl_dtype t) {
  switch (t.code) {
  case TSL_DT_INT:
  case TSL_DT_UINT:
    switch (t.bits) {
    case 1:
      return t.code == TSL_DT_UINT ? cg->t_i1 : NULL;
    case 8:
      return cg->t_i8;
    case 16:
      return cg->t_i16;
    case 32:
      return cg->t_i32;
    case 64:
      return cg->t_i64;
    default:
      return NULL;
    }
  case TSL_DT_FLOAT:
    return t.bits == 16 ? cg->t_f16
           : t.bits == 32 ? cg->t_f32
           : t.bits == 64 ? cg->t_f64
                          : NULL;
  case TSL_DT_BFLOAT:
    return t.bits == 16 ? cg->t_f32 : NULL;
  case TSL_DT_HANDLE:
    return t.bits == 64 ? cg->t_ptr : NULL;
  default:
    return NULL;
  }
}

LLVMTypeRef tll_type(tll_cg *cg, tsl_dtype t) {
  LLVMTypeRef s = tll_scalar_type(cg, t);
  if (s && t.lanes > 1)
    return LLVMVectorType(s, t.lanes);
  return s;
}

LLVMTypeRef tll_storage_type(tll_cg *cg, tsl_dtype t) {
  LLVMTypeRef s = tsl_dtype_is_bool(t)    ? cg->t_i8
                  : t.code == TSL_DT_BFLOAT ? cg->t_i16
                                            : tll_scalar_type(cg, t);
  if (s && t.lanes > 1)
    return LLVMVectorType(s, t.lanes);
  return s;
}

/* ---- constants ------------------------------------------------------------ */

static LLVMValueRef splat_const(LLVMValueRef c, unsigned lanes) {
  if (lanes <= 1)
    return c;
  LLVMValueRef stackv[64];
  LLVMValueRef *v = lanes <= 64 ? stackv : malloc(lanes * sizeof *v);
  if (!v)
    return NULL;
  for (unsigned i = 0; i < lanes; i++)
    v[i] = c;
  LLVMValueRef r = LLVMConstVector(v, lanes);
  if (v != stackv)
    free(v);
  return r;
}

/* float -> int with the interpreter's saturation (NaN -> 0) */
static int64_t sat_f2i(double v, tsl_dtype t) {
  if (tsl_dtype_is_bool(t))
    return v != 0;
  if (v != v)
    return 0;
  double x = __builtin_trunc(v);
  if (t.code == TSL_DT_UINT) {
    double hi = t.bits == 64 ? 0x1p64 : (double)((1ull << t.bits) - 1);
    if (x <= 0)
      return 0;
    if (x >= hi)
      return t.bits == 64 ? (int64_t)UINT64_MAX
                          : (int64_t)((1ull << t.bits) - 1);
    return (int64_t)(uint64_t)x;
  }
  double lim = __builtin_ldexp(1.0, t.bits - 1);
  if (x >= lim)
    return t.bits == 64 ? INT64_MAX : (int64_t)lim - 1;
  if (x < -lim)
    return t.bits == 64 ? INT64_MIN : -(int64_t)lim;
  return (int64_t)x;
}

static LLVMTypeRef scalar_type_or_fail(tll_cg *cg, tsl_dtype t) {
  LLVMTypeRef s = tll_scalar_type(cg, t);
  if (!s) {
    char dn[32];
    tll_fail(cg, TSL_EUNSUPPORTED, "no LLVM type for dtype %s",
             tsl_dtype_str(t, dn));
  }
  return s;
}

LLVMValueRef tll_const_int(tll_cg *cg, tsl_dtype t, int64_t v) {
  LLVMTypeRef s = scalar_type_or_fail(cg, t);
  if (!s)
    return NULL;
  if (tsl_dtype_is_float(t))
    return tll_const_float(cg, t, (double)v);
  if (t.code == TSL_DT_HANDLE)
    return splat_const(LLVMConstNull(s), t.lanes);
  if (tsl_dtype_is_bool(t))
    v = v != 0;
  return splat_const(LLVMConstInt(s, (unsigned long long)v, 0), t.lanes);
}

LLVMValueRef tll_const_float(tll_cg *cg, tsl_dtype t, double v) {
  LLVMTypeRef s = scalar_type_or_fail(cg, t);
  if (!s)
    return NULL;
  if (!tsl_dtype_is_float(t))
    return tll_const_int(cg, t, sat_f2i(v, t));
  if (t.code == TSL_DT_BFLOAT)
    v = tsl_bf16_to_f32(tsl_f32_to_bf16((float)v));
  return splat_const(LLVMConstReal(s, v), t.lanes);
}

/* ---- conversions ---------------------------------------------------------- */

static LLVMValueRef ci(LLVMTypeRef scalar, unsigned lanes, uint64_t v) {
  return splat_const(LLVMConstInt(scalar, v, 0), lanes);
}

/* Round float lanes to bfloat16 precision (nearest even, NaN kept quiet). */
LLVMValueRef tll_bf16_round(tll_cg *cg, LLVMValueRef v) {
  LLVMTypeRef ft = LLVMTypeOf(v);
  unsigned lanes = LLVMGetTypeKind(ft) == LLVMVectorTypeKind
                       ? LLVMGetVectorSize(ft)
                       : 1;
  LLVMTypeRef it = lanes > 1 ? LLVMVectorType(cg->t_i32, lanes) : cg->t_i32;
  LLVMBuilderRef b = cg->b;
  LLVMValueRef bits = LLVMBuildBitCast(b, v, it, "");
  LLVMValueRef odd = LLVMBuildAnd(
      b, LLVMBuildLShr(b, bits, ci(cg->t_i32, lanes, 16), ""),
      ci(cg->t_i32, lanes, 1), "");
  LLVMValueRef bias = LLVMBuildAdd(b, odd, ci(cg->t_i32, lanes, 0x7fff), "");
  LLVMValueRef rounded = LLVMBuildAdd(b, bits, bias, "");
  LLVMValueRef quiet = LLVMBuildOr(b, bits, ci(cg->t_i32, lanes, 0x400000), "");
  LLVMValueRef isnan = LLVMBuildFCmp(b, LLVMRealUNO, v, v, "");
  LLVMValueRef r = LLVMBuildSelect(b, isnan, quiet, rounded, "");
  r = LLVMBuildAnd(b, r, ci(cg->t_i32, lanes, 0xffff0000u), "");
  return LLVMBuildBitCast(b, r, ft, "");
}

static int is_signed(tsl_dtype t) { return t.code == TSL_DT_INT; }

static unsigned float_bits(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
    t = LLVMGetElementType(t);
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
    return 16;
  case LLVMFloatTypeKind:
    return 32;
  default:
    return 64;
  }
}

LLVMValueRef tll_convert(tll_cg *cg, LLVMValueRef v, tsl_dtype from,
                         tsl_dtype to) {
  if (!v)
    return NULL;
  LLVMBuilderRef b = cg->b;
  if (from.lanes != to.lanes) {
    if (from.lanes == 1) {
      tsl_dtype ts = tsl_dtype_scalar(to);
      LLVMValueRef s = tll_convert(cg, v, from, ts);
      return s ? tll_splat(cg, s, to.lanes) : NULL;
    }
    char a[32], c[32];
    tll_fail(cg, TSL_EINVALID, "cannot convert %s to %s (lane counts differ)",
             tsl_dtype_str(from, a), tsl_dtype_str(to, c));
    return NULL;
  }
  if (tsl_dtype_eq(from, to))
    return v;
  LLVMTypeRef dst = tll_type(cg, to);
  if (!dst || !tll_type(cg, from)) {
    char a[32], c[32];
    tll_fail(cg, TSL_EUNSUPPORTED, "cannot convert %s to %s",
             tsl_dtype_str(from, a), tsl_dtype_str(to, c));
    return NULL;
  }
  int ff = tsl_dtype_is_float(from), tf = tsl_dtype_is_float(to);
  if (tsl_dtype_is_bool(to)) {
    if (ff)
      return LLVMBuildFCmp(b, LLVMRealUNE, v,
                           LLVMConstNull(LLVMTypeOf(v)), "");
    if (from.code == TSL_DT_HANDLE)
      return LLVMBuildIsNotNull(b, v, "");
    return LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  }
  if (tsl_dtype_is_bool(from)) {
    if (tf)
      return LLVMBuildUIToFP(b, v, dst, "");
    return LLVMBuildZExt(b, v, dst, "");
  }
  if (!ff && !tf) {
    unsigned fb = from.bits, tb = to.bits;
    if (fb == tb)
      return v;
    if (tb < fb)
      return LLVMBuildTrunc(b, v, dst, "");
    return is_signed(from) ? LLVMBuildSExt(b, v, dst, "")
                           : LLVMBuildZExt(b, v, dst, "");
  }
  if (!ff && tf) {
    LLVMValueRef r = is_signed(from) ? LLVMBuildSIToFP(b, v, dst, "")
                                     : LLVMBuildUIToFP(b, v, dst, "");
    return to.code == TSL_DT_BFLOAT ? tll_bf16_round(cg, r) : r;
  }
  if (ff && !tf) {
    LLVMTypeRef ov[2] = {dst, LLVMTypeOf(v)};
    return tll_call_intrinsic(cg,
                              is_signed(to) ? "llvm.fptosi.sat"
                                            : "llvm.fptoui.sat",
                              ov, 2, &v, 1);
  }
  /* float -> float; bfloat16 values are floats already */
  LLVMTypeRef src = LLVMTypeOf(v);
  LLVMValueRef r = v;
  if (src != dst)
    r = float_bits(src) < float_bits(dst) ? LLVMBuildFPExt(b, v, dst, "")
                                          : LLVMBuildFPTrunc(b, v, dst, "");
  if (to.code == TSL_DT_BFLOAT)
    r = tll_bf16_round(cg, r);
  return r;
}

/* ---- calls ---------------------------------------------------------------- */

LLVMValueRef tll_call_intrinsic(tll_cg *cg, const char *name,
                                LLVMTypeRef *overload, unsigned n_overload,
                                LLVMValueRef *args, unsigned n_args) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) {
    tll_fail(cg, TSL_EUNSUPPORTED, "LLVM has no intrinsic %s", name);
    return NULL;
  }
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, overload, n_overload);
  LLVMTypeRef ft = LLVMIntrinsicGetType(cg->ctx, id, overload, n_overload);
  return LLVMBuildCall2(cg->b, ft, fn, args, n_args, "");
}

LLVMValueRef tll_call_extern(tll_cg *cg, const char *name, LLVMTypeRef ret,
                             LLVMValueRef *args, unsigned n_args) {
  LLVMTypeRef pt[64];
  if (n_args > 64) {
    tll_fail(cg, TSL_EUNSUPPORTED, "call of '%s' with %u arguments (at most 64)",
             name, n_args);
    return NULL;
  }
  for (unsigned i = 0; i < n_args; i++)
    pt[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef ft = LLVMFunctionType(ret, pt, n_args, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
  if (!fn) {
    fn = LLVMAddFunction(cg->mod, name, ft);
    unsigned k = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(cg->ctx, k, 0));
  } else if (LLVMGlobalGetValueType(fn) != ft) {
    tll_fail(cg, TSL_EINVALID,
             "external function '%s' is called with two different "
             "signatures",
             name);
    return NULL;
  }
  return LLVMBuildCall2(cg->b, ft, fn, args, n_args, "");
}

void tll_fp_flags(tll_cg *cg, LLVMValueRef inst, tsl_dtype t) {
  if (!inst || !LLVMIsAInstruction(inst) || !LLVMCanValueUseFastMathFlags(inst))
    return;
  if (cg->opts->fast_math)
    LLVMSetFastMathFlags(inst, LLVMFastMathAll);
  else if (t.code == TSL_DT_FLOAT && t.bits >= 32)
    LLVMSetFastMathFlags(inst, LLVMFastMathAllowContract);
}

LLVMValueRef tll_entry_alloca(tll_cg *cg, LLVMTypeRef t, unsigned align,
                              const char *name) {
  LLVMBuilderRef ab = LLVMCreateBuilderInContext(cg->ctx);
  LLVMValueRef first = LLVMGetFirstInstruction(cg->entry);
  if (first)
    LLVMPositionBuilderBefore(ab, first);
  else
    LLVMPositionBuilderAtEnd(ab, cg->entry);
  LLVMValueRef a = LLVMBuildAlloca(ab, t, name);
  LLVMSetAlignment(a, align);
  LLVMDisposeBuilder(ab);
  return a;
}

LLVMBasicBlockRef tll_fail_block(tll_cg *cg) {
  if (cg->fail_bb)
    return cg->fail_bb;
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "fail");
  LLVMBuilderRef fb = LLVMCreateBuilderInContext(cg->ctx);
  LLVMPositionBuilderAtEnd(fb, bb);
  if (cg->err_flag) {
    LLVMBuildStore(fb, LLVMConstInt(cg->t_i32, 1, 0), cg->err_flag);
    LLVMBuildRetVoid(fb);
  } else {
    LLVMBuildRet(fb, LLVMConstInt(cg->t_i32, 1, 0));
  }
  LLVMDisposeBuilder(fb);
  cg->fail_bb = bb;
  return bb;
}

void tll_add_constructor(LLVMModuleRef mod, LLVMValueRef fn) {
  LLVMContextRef ctx = LLVMGetModuleContext(mod);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef et[3] = {i32, ptr, ptr};
  LLVMTypeRef st = LLVMStructTypeInContext(ctx, et, 3, 0);
  LLVMValueRef old = LLVMGetNamedGlobal(mod, "llvm.global_ctors");
  LLVMValueRef init = old ? LLVMGetInitializer(old) : NULL;
  unsigned k = init ? (unsigned)LLVMGetArrayLength2(LLVMGlobalGetValueType(old)) : 0;
  LLVMValueRef *items = malloc((k + 1) * sizeof *items);
  if (!items)
    return;
  for (unsigned i = 0; i < k; i++) /* the constructors added before, kept in front */
    items[i] = LLVMGetOperand(init, i);
  if (old)
    LLVMDeleteGlobal(old);
  LLVMValueRef ev[3] = {LLVMConstInt(i32, 65535, 0), fn, LLVMConstNull(ptr)};
  items[k] = LLVMConstStructInContext(ctx, ev, 3, 0);
  LLVMValueRef g = LLVMAddGlobal(mod, LLVMArrayType2(st, k + 1), "llvm.global_ctors");
  LLVMSetInitializer(g, LLVMConstArray2(st, items, k + 1));
  LLVMSetLinkage(g, LLVMAppendingLinkage);
  free(items);
}
