/*
 * targets/llvm/codegen_expr.c — expressions to LLVM values.
 *
 * Semantics follow the reference interpreter (interp.h): operands are
 * converted to the node's dtype; comparisons of mixed operands compare in
 * float64 / uint64 / int64; // and % floor for signed ints; / and truncmod
 * truncate; min/max are a < b ? a : b; AND/OR short-circuit when the right
 * operand reads memory; IF_THEN_ELSE evaluates one branch (a vector
 * condition masks the loads of each side instead). Math calls are in
 * codegen_math.c. Vector operands (lanes > 1) go through the same code.
 */
#include "llvm_internal.h"

#include <string.h>

/* Does `e` read memory or call a function (something unsafe to speculate)? */
static int has_side_reads(const tsl_expr *e) {
  if (!e)
    return 0;
  if (e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_CALL_EXTERN ||
      e->kind == TSL_EXPR_DIV || e->kind == TSL_EXPR_MOD ||
      e->kind == TSL_EXPR_FLOORDIV || e->kind == TSL_EXPR_FLOORMOD)
    return 1;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (has_side_reads(e->args[i]))
      return 1;
  return 0;
}

LLVMValueRef tll_expr_as(tll_cg *cg, const tsl_expr *e, tsl_dtype t) {
  LLVMValueRef v = tll_expr(cg, e);
  return v ? tll_convert(cg, v, e->dtype, t) : NULL;
}

LLVMValueRef tll_cond(tll_cg *cg, const tsl_expr *e, uint16_t lanes) {
  tsl_dtype b = TSL_BOOL;
  b.lanes = lanes;
  LLVMValueRef v = tll_expr(cg, e);
  if (!v)
    return NULL;
  tsl_dtype from = e->dtype;
  if (from.lanes > 1 && lanes == 1) {
    tll_fail(cg, TSL_EINVALID, "a vector condition is used where a scalar "
                               "one is needed");
    return NULL;
  }
  return tll_convert(cg, v, from, b);
}

static int pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

static int log2i(int64_t v) {
  int k = 0;
  while ((1ll << k) < v)
    k++;
  return k;
}

LLVMValueRef tll_floor_divmod(tll_cg *cg, const tsl_expr *divisor,
                              LLVMValueRef a, LLVMValueRef b, int mod,
                              tsl_dtype t) {
  LLVMBuilderRef bd = cg->b;
  int64_t c;
  if (tsl_expr_is_const_int(divisor, &c) && pow2(c)) {
    if (mod)
      return LLVMBuildAnd(bd, a, tll_const_int(cg, t, c - 1), "");
    return LLVMBuildAShr(bd, a, tll_const_int(cg, t, log2i(c)), "");
  }
  LLVMValueRef q = LLVMBuildSDiv(bd, a, b, "");
  LLVMValueRef r = LLVMBuildSRem(bd, a, b, "");
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(a));
  LLVMValueRef adjust;
  if (tsl_expr_is_const_int(divisor, &c) && c > 0)
    adjust = LLVMBuildICmp(bd, LLVMIntSLT, r, zero, "");
  else
    adjust = LLVMBuildAnd(
        bd, LLVMBuildICmp(bd, LLVMIntNE, r, zero, ""),
        LLVMBuildICmp(bd, LLVMIntSLT, LLVMBuildXor(bd, r, b, ""), zero, ""),
        "");
  if (mod)
    return LLVMBuildAdd(bd, r, LLVMBuildSelect(bd, adjust, b, zero, ""), "");
  return LLVMBuildSub(bd, q, LLVMBuildZExt(bd, adjust, LLVMTypeOf(a), ""), "");
}

static LLVMValueRef fround(tll_cg *cg, LLVMValueRef v, tsl_dtype t) {
  return v && t.code == TSL_DT_BFLOAT ? tll_bf16_round(cg, v) : v;
}


static LLVMValueRef binary(tll_cg *cg, const tsl_expr *e) {
  tsl_dtype t = e->dtype;
  LLVMValueRef a = tll_expr_as(cg, e->args[0], t);
  LLVMValueRef b = a ? tll_expr_as(cg, e->args[1], t) : NULL;
  if (!b)
    return NULL;
  LLVMBuilderRef bd = cg->b;
  LLVMValueRef r = NULL;
  if (tsl_dtype_is_float(t)) {
    switch (e->kind) {
    case TSL_EXPR_ADD:
      r = LLVMBuildFAdd(bd, a, b, "");
      break;
    case TSL_EXPR_SUB:
      r = LLVMBuildFSub(bd, a, b, "");
      break;
    case TSL_EXPR_MUL:
      r = LLVMBuildFMul(bd, a, b, "");
      break;
    case TSL_EXPR_DIV:
      r = LLVMBuildFDiv(bd, a, b, "");
      break;
    case TSL_EXPR_MOD:
      r = LLVMBuildFRem(bd, a, b, "");
      break;
    case TSL_EXPR_FLOORDIV:
      r = LLVMBuildFDiv(bd, a, b, "");
      tll_fp_flags(cg, r, t);
      r = tll_unary_intrin(cg, "llvm.floor", r);
      break;
    case TSL_EXPR_FLOORMOD: {
      LLVMValueRef q = LLVMBuildFDiv(bd, a, b, "");
      q = tll_unary_intrin(cg, "llvm.floor", q);
      r = LLVMBuildFSub(bd, a, LLVMBuildFMul(bd, q, b, ""), "");
      break;
    }
    case TSL_EXPR_MIN:
      return LLVMBuildSelect(bd, LLVMBuildFCmp(bd, LLVMRealOLT, a, b, ""), a,
                             b, "");
    default:
      return LLVMBuildSelect(bd, LLVMBuildFCmp(bd, LLVMRealOGT, a, b, ""), a,
                             b, "");
    }
    tll_fp_flags(cg, r, t);
    return fround(cg, r, t);
  }
  if (tsl_dtype_is_bool(t)) {
    /* arithmetic on bools: as 0/1 integers of width 1 (wrapping) */
    t = TSL_DTYPE(TSL_DT_UINT, 1, t.lanes);
  }
  int sgn = t.code == TSL_DT_INT;
  int nsw = sgn && t.bits >= 32;
  switch (e->kind) {
  case TSL_EXPR_ADD:
    r = nsw ? LLVMBuildNSWAdd(bd, a, b, "") : LLVMBuildAdd(bd, a, b, "");
    return r;
  case TSL_EXPR_SUB:
    return nsw ? LLVMBuildNSWSub(bd, a, b, "") : LLVMBuildSub(bd, a, b, "");
  case TSL_EXPR_MUL:
    return nsw ? LLVMBuildNSWMul(bd, a, b, "") : LLVMBuildMul(bd, a, b, "");
  case TSL_EXPR_DIV:
    return sgn ? LLVMBuildSDiv(bd, a, b, "") : LLVMBuildUDiv(bd, a, b, "");
  case TSL_EXPR_MOD:
    return sgn ? LLVMBuildSRem(bd, a, b, "") : LLVMBuildURem(bd, a, b, "");
  case TSL_EXPR_FLOORDIV:
    return sgn ? tll_floor_divmod(cg, e->args[1], a, b, 0, t)
               : LLVMBuildUDiv(bd, a, b, "");
  case TSL_EXPR_FLOORMOD:
    return sgn ? tll_floor_divmod(cg, e->args[1], a, b, 1, t)
               : LLVMBuildURem(bd, a, b, "");
  case TSL_EXPR_MIN:
    return LLVMBuildSelect(
        bd, LLVMBuildICmp(bd, sgn ? LLVMIntSLT : LLVMIntULT, a, b, ""), a, b,
        "");
  default:
    return LLVMBuildSelect(
        bd, LLVMBuildICmp(bd, sgn ? LLVMIntSGT : LLVMIntUGT, a, b, ""), a, b,
        "");
  }
}

static LLVMValueRef compare(tll_cg *cg, const tsl_expr *e) {
  tsl_dtype ta = e->args[0]->dtype, tb = e->args[1]->dtype;
  uint16_t lanes = e->dtype.lanes;
  tsl_dtype c;
  if (tsl_dtype_eq(tsl_dtype_scalar(ta), tsl_dtype_scalar(tb)))
    c = ta;
  else if (tsl_dtype_is_float(ta) || tsl_dtype_is_float(tb))
    c = TSL_FLOAT64;
  else if ((ta.code == TSL_DT_UINT && ta.bits == 64) ||
           (tb.code == TSL_DT_UINT && tb.bits == 64))
    c = TSL_DTYPE(TSL_DT_UINT, 64, 1);
  else
    c = TSL_INT64;
  c.lanes = lanes;
  LLVMValueRef a = tll_expr_as(cg, e->args[0], c);
  LLVMValueRef b = a ? tll_expr_as(cg, e->args[1], c) : NULL;
  if (!b)
    return NULL;
  int k = e->kind - TSL_EXPR_EQ; /* EQ NE LT LE GT GE */
  if (tsl_dtype_is_float(c)) {
    static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE,
                                           LLVMRealOLT, LLVMRealOLE,
                                           LLVMRealOGT, LLVMRealOGE};
    return LLVMBuildFCmp(cg->b, fp[k], a, b, "");
  }
  static const LLVMIntPredicate sp[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT,
                                        LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
  static const LLVMIntPredicate up[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntULT,
                                        LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
  if (c.code == TSL_DT_HANDLE)
    return LLVMBuildICmp(cg->b, k == 1 ? LLVMIntNE : LLVMIntEQ, a, b, "");
  return LLVMBuildICmp(cg->b, c.code == TSL_DT_INT ? sp[k] : up[k], a, b, "");
}

/* AND / OR; short-circuit (as the interpreter) when the right side reads
 * memory. */
static LLVMValueRef logic(tll_cg *cg, const tsl_expr *e) {
  uint16_t lanes = e->dtype.lanes;
  int is_and = e->kind == TSL_EXPR_AND;
  LLVMValueRef a = tll_cond(cg, e->args[0], lanes);
  if (!a)
    return NULL;
  if (lanes > 1 || !has_side_reads(e->args[1])) {
    LLVMValueRef b = tll_cond(cg, e->args[1], lanes);
    if (!b)
      return NULL;
    return is_and ? LLVMBuildAnd(cg->b, a, b, "") : LLVMBuildOr(cg->b, a, b, "");
  }
  LLVMBasicBlockRef from = LLVMGetInsertBlock(cg->b);
  LLVMBasicBlockRef rhs = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "sc.rhs");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "sc.done");
  if (is_and)
    LLVMBuildCondBr(cg->b, a, rhs, done);
  else
    LLVMBuildCondBr(cg->b, a, done, rhs);
  LLVMPositionBuilderAtEnd(cg->b, rhs);
  LLVMValueRef b = tll_cond(cg, e->args[1], 1);
  if (!b)
    return NULL;
  LLVMBasicBlockRef rhs_end = LLVMGetInsertBlock(cg->b);
  LLVMBuildBr(cg->b, done);
  LLVMPositionBuilderAtEnd(cg->b, done);
  LLVMValueRef phi = LLVMBuildPhi(cg->b, cg->t_i1, "");
  LLVMValueRef vals[2] = {LLVMConstInt(cg->t_i1, is_and ? 0 : 1, 0), b};
  LLVMBasicBlockRef bbs[2] = {from, rhs_end};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}

static LLVMValueRef if_then_else(tll_cg *cg, const tsl_expr *e) {
  tsl_dtype t = e->dtype;
  const tsl_expr *ce = e->args[0];
  if (ce->dtype.lanes > 1) {
    /* vector condition: each side's loads read only its own lanes */
    LLVMValueRef c = tll_cond(cg, ce, t.lanes);
    if (!c)
      return NULL;
    LLVMValueRef saved = cg->mask;
    LLVMValueRef nc = LLVMBuildNot(cg->b, c, "");
    cg->mask = saved ? LLVMBuildAnd(cg->b, saved, c, "") : c;
    LLVMValueRef tv = tll_expr_as(cg, e->args[1], t);
    cg->mask = saved ? LLVMBuildAnd(cg->b, saved, nc, "") : nc;
    LLVMValueRef fv = tv ? tll_expr_as(cg, e->args[2], t) : NULL;
    cg->mask = saved;
    return fv ? LLVMBuildSelect(cg->b, c, tv, fv, "") : NULL;
  }
  LLVMValueRef c = tll_cond(cg, ce, 1);
  if (!c)
    return NULL;
  if (!has_side_reads(e->args[1]) && !has_side_reads(e->args[2])) {
    LLVMValueRef tv = tll_expr_as(cg, e->args[1], t);
    LLVMValueRef fv = tv ? tll_expr_as(cg, e->args[2], t) : NULL;
    return fv ? LLVMBuildSelect(cg->b, c, tv, fv, "") : NULL;
  }
  LLVMBasicBlockRef tb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ite.then");
  LLVMBasicBlockRef fb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ite.else");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ite.done");
  LLVMBuildCondBr(cg->b, c, tb, fb);
  LLVMPositionBuilderAtEnd(cg->b, tb);
  LLVMValueRef tv = tll_expr_as(cg, e->args[1], t);
  if (!tv)
    return NULL;
  LLVMBasicBlockRef tend = LLVMGetInsertBlock(cg->b);
  LLVMBuildBr(cg->b, done);
  LLVMPositionBuilderAtEnd(cg->b, fb);
  LLVMValueRef fv = tll_expr_as(cg, e->args[2], t);
  if (!fv)
    return NULL;
  LLVMBasicBlockRef fend = LLVMGetInsertBlock(cg->b);
  LLVMBuildBr(cg->b, done);
  LLVMPositionBuilderAtEnd(cg->b, done);
  LLVMValueRef phi = LLVMBuildPhi(cg->b, tll_type(cg, t), "");
  LLVMValueRef vals[2] = {tv, fv};
  LLVMBasicBlockRef bbs[2] = {tend, fend};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}

/* ---- TVM builtins ----------------------------------------------------------- */

/* The hints compile to their meaning (T.likely: its argument, T.assume:
 * true), raw pointers (B.data, T.address_of) to addresses, T.reinterpret
 * and LLVM intrinsic calls as codegen_intrin.c says; the other builtins
 * are refused by name. */
static LLVMValueRef builtin(tll_cg *cg, const tsl_expr *e) {
  if (e->kind == TSL_EXPR_BUFFER_DATA ||
      (e->intrin == TSL_BUILTIN_ADDRESS_OF && e->n_args == 1))
    return tll_address_of(cg, e);
  if (e->intrin >= TSL_BUILTIN_COUNT) {
    tll_fail(cg, TSL_EINVALID, "call of unknown builtin id %u",
             (unsigned)e->intrin);
    return NULL;
  }
  if (e->intrin == TSL_BUILTIN_REINTERPRET)
    return tll_reinterpret(cg, e);
  if (e->intrin == TSL_BUILTIN_CALL_LLVM_PURE_INTRIN || e->intrin == TSL_BUILTIN_CALL_LLVM_INTRIN)
    return tll_llvm_intrin(cg, e);
  const tsl_builtin_info *bi = tsl_builtin_info_of((tsl_builtin)e->intrin);
  if ((int32_t)e->n_args == bi->n_args && bi->eval == TSL_BUILTIN_EVAL_ARG0)
    return tll_expr(cg, e->args[0]);
  if ((int32_t)e->n_args == bi->n_args && bi->eval == TSL_BUILTIN_EVAL_TRUE)
    return tll_const_int(cg, e->dtype, 1);
  tll_fail(cg, TSL_EUNSUPPORTED,
           "T.%s cannot be compiled by the llvm target: %s", bi->name,
           bi->what);
  return NULL;
}

/* ---- the dispatcher -------------------------------------------------------- */

LLVMValueRef tll_expr(tll_cg *cg, const tsl_expr *e) {
  if (cg->status)
    return NULL;
  if (!e) {
    tll_fail(cg, TSL_EINVALID, "missing expression");
    return NULL;
  }
  if (e->kind == TSL_EXPR_BUILTIN || e->kind == TSL_EXPR_BUFFER_DATA)
    return builtin(cg, e);
  tsl_dtype t = e->dtype;
  if (!tll_type(cg, t) && e->kind != TSL_EXPR_CALL_EXTERN) {
    char dn[32];
    tll_fail(cg, TSL_EUNSUPPORTED, "dtype %s has no LLVM representation",
             tsl_dtype_str(t, dn));
    return NULL;
  }
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    return tll_const_int(cg, t, e->u.int_value);
  case TSL_EXPR_FLOAT_IMM:
    return tll_const_float(cg, t, e->u.float_value);
  case TSL_EXPR_STR_IMM:
    tll_fail(cg, TSL_EUNSUPPORTED, "a string constant (\"%s\") has no value",
             e->u.str_value ? e->u.str_value : "");
    return NULL;
  case TSL_EXPR_VAR: {
    const tll_bind *bv = tll_bind_get(cg, e->u.var);
    if (!bv) {
      tll_fail(cg, TSL_EINVALID, "variable '%s' is used where it has no value",
               e->u.var->name);
      return NULL;
    }
    tsl_dtype vt = e->u.var->dtype;
    if (bv->is_wide)
      vt.bits = 64;
    return tll_convert(cg, bv->value, vt, t);
  }
  case TSL_EXPR_LOAD:
    return tll_load(cg, e);
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
  case TSL_EXPR_MUL:
  case TSL_EXPR_DIV:
  case TSL_EXPR_MOD:
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD:
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX:
    return binary(cg, e);
  case TSL_EXPR_EQ:
  case TSL_EXPR_NE:
  case TSL_EXPR_LT:
  case TSL_EXPR_LE:
  case TSL_EXPR_GT:
  case TSL_EXPR_GE: {
    LLVMValueRef c = compare(cg, e);
    tsl_dtype b = TSL_BOOL;
    b.lanes = t.lanes;
    return c ? tll_convert(cg, c, b, t) : NULL;
  }
  case TSL_EXPR_AND:
  case TSL_EXPR_OR: {
    LLVMValueRef c = logic(cg, e);
    tsl_dtype b = TSL_BOOL;
    b.lanes = t.lanes;
    return c ? tll_convert(cg, c, b, t) : NULL;
  }
  case TSL_EXPR_NOT: {
    LLVMValueRef c = tll_cond(cg, e->args[0], t.lanes);
    tsl_dtype b = TSL_BOOL;
    b.lanes = t.lanes;
    return c ? tll_convert(cg, LLVMBuildNot(cg->b, c, ""), b, t) : NULL;
  }
  case TSL_EXPR_NEG: {
    LLVMValueRef x = tll_expr_as(cg, e->args[0], t);
    if (!x)
      return NULL;
    return tsl_dtype_is_float(t) ? LLVMBuildFNeg(cg->b, x, "")
                                 : LLVMBuildNeg(cg->b, x, "");
  }
  case TSL_EXPR_SELECT: {
    const tsl_expr *c = e->args[0];
    LLVMValueRef cv = tll_cond(cg, c, c->dtype.lanes > 1 ? t.lanes : 1);
    LLVMValueRef tv = cv ? tll_expr_as(cg, e->args[1], t) : NULL;
    LLVMValueRef fv = tv ? tll_expr_as(cg, e->args[2], t) : NULL;
    return fv ? LLVMBuildSelect(cg->b, cv, tv, fv, "") : NULL;
  }
  case TSL_EXPR_IF_THEN_ELSE:
    return if_then_else(cg, e);
  case TSL_EXPR_CAST:
    return tll_expr_as(cg, e->args[0], t);
  case TSL_EXPR_CALL:
    if (e->intrin >= TSL_INTRIN_COUNT ||
        (int32_t)e->n_args != tsl_intrin_arity((tsl_intrin)e->intrin)) {
      tll_fail(cg, TSL_EINVALID, "bad math call (intrinsic %u with %u "
                                 "arguments)",
               (unsigned)e->intrin, e->n_args);
      return NULL;
    }
    return tll_math_call(cg, e, e->intrin);
  case TSL_EXPR_CALL_EXTERN:
    return tll_extern_call(cg, e);
  case TSL_EXPR_RAMP:
    return tll_ramp(cg, e);
  case TSL_EXPR_BROADCAST: {
    LLVMValueRef v = tll_expr_as(cg, e->args[0], tsl_dtype_scalar(t));
    return v ? tll_splat(cg, v, t.lanes) : NULL;
  }
  case TSL_EXPR_BUILTIN:
  case TSL_EXPR_BUFFER_DATA: /* handled above */
  case TSL_EXPR_KIND_COUNT:
    break;
  }
  tll_fail(cg, TSL_EINVALID, "unknown expression kind %u", (unsigned)e->kind);
  return NULL;
}
