/*
 * targets/llvm/codegen_math.c — math intrinsics (T.exp, T.tanh, ...) and
 * call_extern: the libm names the interpreter knows map to the same math
 * (computed in the node's float dtype, float32 for 16-bit floats, float64
 * for integer results, as the interpreter does): of vectors through
 * libmvec where it has the function (vecmath.c), else through llvm.*
 * intrinsics where LLVM has one and libm calls otherwise (scalarized lane
 * by lane for vectors); any other call_extern is a call of that external
 * function.
 */
#include "llvm_internal.h"

#include <stdio.h>
#include <string.h>

LLVMValueRef tll_unary_intrin(tll_cg *cg, const char *name, LLVMValueRef x) {
  LLVMTypeRef ty = LLVMTypeOf(x);
  return tll_call_intrinsic(cg, name, &ty, 1, &x, 1);
}

enum { CALL_CROUND = TSL_INTRIN_COUNT, CALL_FMAX, CALL_FMIN };

/* The libm names the interpreter knows; `vec`: libmvec has vector
 * versions, which math functions of vectors call (vecmath.c). */
static const struct {
  const char *name;
  int id, vec;
} extern_names[] = {
    {"exp", TSL_INTRIN_EXP, 1},     {"exp2", TSL_INTRIN_EXP2, 1},
    {"exp10", TSL_INTRIN_EXP10, 1}, {"log", TSL_INTRIN_LOG, 1},
    {"log2", TSL_INTRIN_LOG2, 1},   {"log10", TSL_INTRIN_LOG10, 1},
    {"log1p", TSL_INTRIN_LOG1P, 1}, {"sqrt", TSL_INTRIN_SQRT, 0},
    {"tanh", TSL_INTRIN_TANH, 1},   {"fabs", TSL_INTRIN_FABS, 0},
    {"pow", TSL_INTRIN_POW, 1},     {"floor", TSL_INTRIN_FLOOR, 0},
    {"ceil", TSL_INTRIN_CEIL, 0},   {"trunc", TSL_INTRIN_TRUNC, 0},
    {"round", CALL_CROUND, 0},      {"nearbyint", TSL_INTRIN_NEARBYINT, 0},
    {"rint", TSL_INTRIN_NEARBYINT, 0}, {"sin", TSL_INTRIN_SIN, 1},
    {"cos", TSL_INTRIN_COS, 1},     {"tan", TSL_INTRIN_TAN, 1},
    {"erf", TSL_INTRIN_ERF, 1},     {"atan", TSL_INTRIN_ATAN, 1},
    {"fmod", TSL_INTRIN_FMOD, 0},   {"fmax", CALL_FMAX, 0},
    {"fmin", CALL_FMIN, 0},
};

static int extern_id(const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof extern_names / sizeof extern_names[0]; i++) {
    size_t l = strlen(extern_names[i].name);
    if (!strncmp(name, extern_names[i].name, l) &&
        (n == l || (n == l + 1 && name[l] == 'f')))
      return extern_names[i].id;
  }
  return -1;
}

/* libm function on float32 (f) or float64 lanes */
static LLVMValueRef libm(tll_cg *cg, const char *base, LLVMValueRef *args,
                         unsigned n) {
  LLVMTypeRef ty = LLVMTypeOf(args[0]);
  int vec = LLVMGetTypeKind(ty) == LLVMVectorTypeKind;
  LLVMTypeRef st = vec ? LLVMGetElementType(ty) : ty;
  char name[32];
  snprintf(name, sizeof name, "%s%s", base,
           LLVMGetTypeKind(st) == LLVMFloatTypeKind ? "f" : "");
  if (vec)
    return tll_scalarize_call(cg, name, st, args, n);
  return tll_call_extern(cg, name, st, args, n);
}

/* The name libmvec's vector versions of a math function carry, or NULL. */
static const char *libmvec_name(int id) {
  for (size_t i = 0; i < sizeof extern_names / sizeof extern_names[0]; i++)
    if (extern_names[i].id == id && extern_names[i].vec)
      return extern_names[i].name;
  return NULL;
}

/* exp(x): libmvec's for a vector where it has one, else llvm.exp */
static LLVMValueRef exp_of(tll_cg *cg, LLVMValueRef x) {
  LLVMValueRef r = tll_vecmath_call(cg, "exp", &x, 1);
  return r ? r : tll_unary_intrin(cg, "llvm.exp", x);
}

/* f(args) with args of float dtype `mt` (float32 or float64 lanes) */
static LLVMValueRef math(tll_cg *cg, int id, LLVMValueRef *a, unsigned n,
                         tsl_dtype mt) {
  LLVMBuilderRef b = cg->b;
  LLVMTypeRef ty = LLVMTypeOf(a[0]);
  LLVMValueRef r;
  const char *name = libmvec_name(id);
  if (name && (r = tll_vecmath_call(cg, name, a, n)))
    return r;
  switch (id) {
  case TSL_INTRIN_EXP:
    return tll_unary_intrin(cg, "llvm.exp", a[0]);
  case TSL_INTRIN_EXP2:
    return tll_unary_intrin(cg, "llvm.exp2", a[0]);
  case TSL_INTRIN_EXP10: {
    LLVMValueRef args[2] = {tll_const_float(cg, mt, 10.0), a[0]};
    return tll_call_intrinsic(cg, "llvm.pow", &ty, 1, args, 2);
  }
  case TSL_INTRIN_LOG:
    return tll_unary_intrin(cg, "llvm.log", a[0]);
  case TSL_INTRIN_LOG2:
    return tll_unary_intrin(cg, "llvm.log2", a[0]);
  case TSL_INTRIN_LOG10:
    return tll_unary_intrin(cg, "llvm.log10", a[0]);
  case TSL_INTRIN_SQRT:
    return tll_unary_intrin(cg, "llvm.sqrt", a[0]);
  case TSL_INTRIN_RSQRT:
    r = LLVMBuildFDiv(b, tll_const_float(cg, mt, 1.0),
                      tll_unary_intrin(cg, "llvm.sqrt", a[0]), "");
    tll_fp_flags(cg, r, mt);
    return r;
  case TSL_INTRIN_SIGMOID: {
    LLVMValueRef ex = exp_of(cg, LLVMBuildFNeg(b, a[0], ""));
    LLVMValueRef den = LLVMBuildFAdd(b, tll_const_float(cg, mt, 1.0), ex, "");
    r = LLVMBuildFDiv(b, tll_const_float(cg, mt, 1.0), den, "");
    tll_fp_flags(cg, r, mt);
    return r;
  }
  case TSL_INTRIN_FABS:
  case TSL_INTRIN_ABS:
    return tll_unary_intrin(cg, "llvm.fabs", a[0]);
  case TSL_INTRIN_POW:
    return tll_call_intrinsic(cg, "llvm.pow", &ty, 1, a, 2);
  case TSL_INTRIN_FLOOR:
    return tll_unary_intrin(cg, "llvm.floor", a[0]);
  case TSL_INTRIN_CEIL:
    return tll_unary_intrin(cg, "llvm.ceil", a[0]);
  case TSL_INTRIN_ROUND:
  case CALL_CROUND:
    return tll_unary_intrin(cg, "llvm.round", a[0]);
  case TSL_INTRIN_TRUNC:
    return tll_unary_intrin(cg, "llvm.trunc", a[0]);
  case TSL_INTRIN_NEARBYINT:
    return tll_unary_intrin(cg, "llvm.nearbyint", a[0]);
  case TSL_INTRIN_SIN:
    return tll_unary_intrin(cg, "llvm.sin", a[0]);
  case TSL_INTRIN_COS:
    return tll_unary_intrin(cg, "llvm.cos", a[0]);
  case TSL_INTRIN_TAN:
    return libm(cg, "tan", a, 1);
  case TSL_INTRIN_TANH:
    return libm(cg, "tanh", a, 1);
  case TSL_INTRIN_LOG1P:
    return libm(cg, "log1p", a, 1);
  case TSL_INTRIN_ERF:
    return libm(cg, "erf", a, 1);
  case TSL_INTRIN_ATAN:
    return libm(cg, "atan", a, 1);
  case TSL_INTRIN_FMOD:
    return LLVMBuildFRem(b, a[0], a[1], "");
  case CALL_FMAX:
    return tll_call_intrinsic(cg, "llvm.maxnum", &ty, 1, a, 2);
  case CALL_FMIN:
    return tll_call_intrinsic(cg, "llvm.minnum", &ty, 1, a, 2);
  default:
    tll_fail(cg, TSL_EUNSUPPORTED, "math function id %d has no code", id);
    return NULL;
  }
}

LLVMValueRef tll_math_call(tll_cg *cg, const tsl_expr *e, int id) {
  tsl_dtype k = e->dtype;
  uint16_t lanes = k.lanes;
  if (e->n_args < 1 || e->n_args > 2) {
    tll_fail(cg, TSL_EINVALID, "math call with %u arguments", e->n_args);
    return NULL;
  }
  if (id == TSL_INTRIN_ISNAN) {
    tsl_dtype b = TSL_BOOL;
    b.lanes = lanes;
    LLVMValueRef x = tll_expr(cg, e->args[0]);
    if (!x)
      return NULL;
    LLVMValueRef r = tsl_dtype_is_float(e->args[0]->dtype)
                         ? LLVMBuildFCmp(cg->b, LLVMRealUNO, x, x, "")
                         : tll_const_int(cg, b, 0);
    return tll_convert(cg, r, b, k);
  }
  if (!tsl_dtype_is_float(k)) {
    const tsl_expr *a0 = e->args[0];
    int int_arg = !tsl_dtype_is_float(a0->dtype);
    if (int_arg && (id == TSL_INTRIN_ABS || id == TSL_INTRIN_FABS)) {
      LLVMValueRef x = tll_expr_as(cg, a0, k);
      if (!x || k.code != TSL_DT_INT)
        return x;
      LLVMTypeRef ty = LLVMTypeOf(x);
      LLVMValueRef args[2] = {x, LLVMConstInt(cg->t_i1, 0, 0)};
      return tll_call_intrinsic(cg, "llvm.abs", &ty, 1, args, 2);
    }
    if (int_arg && (id == TSL_INTRIN_FLOOR || id == TSL_INTRIN_CEIL ||
                    id == TSL_INTRIN_ROUND || id == TSL_INTRIN_TRUNC ||
                    id == TSL_INTRIN_NEARBYINT || id == CALL_CROUND))
      return tll_expr_as(cg, a0, k);
  }
  tsl_dtype ck = tsl_dtype_is_float(k) ? k : TSL_FLOAT64;
  ck.lanes = lanes;
  tsl_dtype mt = ck.bits == 64 ? ck : TSL_FLOAT32; /* 16-bit: in float32 */
  mt.lanes = lanes;
  LLVMValueRef a[2];
  for (uint32_t i = 0; i < e->n_args; i++) {
    a[i] = tll_expr_as(cg, e->args[i], ck);
    if (a[i] && !tsl_dtype_eq(ck, mt))
      a[i] = tll_convert(cg, a[i], ck, mt);
    if (!a[i])
      return NULL;
  }
  LLVMValueRef r = math(cg, id, a, e->n_args, mt);
  if (!r)
    return NULL;
  if (!tsl_dtype_eq(ck, mt))
    r = tll_convert(cg, r, mt, ck);
  return tll_convert(cg, r, ck, k);
}

/* A call_extern of a function of the module being compiled (a compiled
 * model's entry calling its kernels): its natural symbol, with the int32
 * status it returns. */
static LLVMValueRef module_call(tll_cg *cg, const tsl_expr *e, const char *name) {
  char sym[512];
  snprintf(sym, sizeof sym, "%s_%s", cg->prefix, name);
  LLVMValueRef args[64];
  if (e->n_args > 64) {
    tll_fail(cg, TSL_EUNSUPPORTED, "call of '%s' with %u arguments (at most 64)", name,
             e->n_args);
    return NULL;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    if (!(args[i] = tll_expr(cg, e->args[i])))
      return NULL;
  LLVMValueRef r = tll_call_extern(cg, sym, cg->t_i32, args, e->n_args);
  return r && tsl_dtype_is_void(e->dtype) ? LLVMConstInt(cg->t_i32, 0, 0) : r;
}

LLVMValueRef tll_extern_call(tll_cg *cg, const tsl_expr *e) {
  const char *name = e->u.str_value ? e->u.str_value : "";
  for (uint32_t i = 0; cg->lm && cg->prefix && i < cg->lm->n_funcs; i++)
    if (!strcmp(cg->lm->funcs[i]->name, name))
      return module_call(cg, e, name);
  int id = extern_id(name);
  if (id >= 0) {
    int32_t want = (id == TSL_INTRIN_POW || id == TSL_INTRIN_FMOD ||
                    id == CALL_FMAX || id == CALL_FMIN)
                       ? 2
                       : 1;
    if ((int32_t)e->n_args != want) {
      tll_fail(cg, TSL_EINVALID, "call_extern(\"%s\") takes %d argument%s, "
                                 "got %u",
               name, want, want == 1 ? "" : "s", e->n_args);
      return NULL;
    }
    return tll_math_call(cg, e, id);
  }
  if (!*name) {
    tll_fail(cg, TSL_EINVALID, "call_extern without a function name");
    return NULL;
  }
  LLVMValueRef args[16];
  if (e->n_args > 16) {
    tll_fail(cg, TSL_EUNSUPPORTED, "call_extern(\"%s\") with %u arguments "
                                   "(at most 16)",
             name, e->n_args);
    return NULL;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    if (!(args[i] = tll_expr(cg, e->args[i])))
      return NULL;
  int is_void = tsl_dtype_is_void(e->dtype);
  LLVMTypeRef ret = is_void ? cg->t_void : tll_scalar_type(cg, e->dtype);
  if (!ret) {
    tll_fail(cg, TSL_EUNSUPPORTED, "call_extern(\"%s\") returns an "
                                   "unsupported dtype",
             name);
    return NULL;
  }
  if (e->dtype.lanes > 1)
    return tll_scalarize_call(cg, name, ret, args, e->n_args);
  LLVMValueRef r = tll_call_extern(cg, name, ret, args, e->n_args);
  return is_void ? LLVMConstInt(cg->t_i32, 0, 0) : r;
}
