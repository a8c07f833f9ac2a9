/*
 * targets/llvm/codegen_vector.c — memory accesses and vector values: RAMP
 * and BROADCAST, LOAD and STORE (scalar; contiguous vector when the index
 * is a stride-1 RAMP, possibly plus a broadcast; gather / scatter
 * otherwise; masked under a vector IF_THEN_ELSE), lane-by-lane calls.
 *
 * A vector access whose index is a scalar reads / writes `lanes`
 * consecutive elements starting there. Memory holds bool as one byte and
 * bfloat16 as its 16 raw bits.
 */
#include "llvm_internal.h"

#include <stdlib.h>

LLVMValueRef tll_splat(tll_cg *cg, LLVMValueRef scalar, unsigned lanes) {
  if (!scalar || lanes <= 1)
    return scalar;
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(scalar), lanes);
  LLVMValueRef v = LLVMBuildInsertElement(cg->b, LLVMGetUndef(vt), scalar,
                                          LLVMConstInt(cg->t_i32, 0, 0), "");
  LLVMValueRef mask = LLVMConstNull(LLVMVectorType(cg->t_i32, lanes));
  return LLVMBuildShuffleVector(cg->b, v, LLVMGetUndef(vt), mask, "");
}

/* <0, 1, ..., lanes-1> of the integer type `st` */
static LLVMValueRef iota(LLVMTypeRef st, unsigned lanes) {
  LLVMValueRef stackv[64];
  LLVMValueRef *v = lanes <= 64 ? stackv : malloc(lanes * sizeof *v);
  if (!v)
    return NULL;
  for (unsigned i = 0; i < lanes; i++)
    v[i] = LLVMConstInt(st, i, 0);
  LLVMValueRef r = LLVMConstVector(v, lanes);
  if (v != stackv)
    free(v);
  return r;
}

LLVMValueRef tll_ramp(tll_cg *cg, const tsl_expr *e) {
  tsl_dtype t = e->dtype, st = tsl_dtype_scalar(t);
  if (!tsl_dtype_is_int(st)) {
    tll_fail(cg, TSL_EUNSUPPORTED, "Ramp of a non-integer dtype");
    return NULL;
  }
  LLVMValueRef base = tll_expr_as(cg, e->args[0], st);
  LLVMValueRef stride = base ? tll_expr_as(cg, e->args[1], st) : NULL;
  if (!stride)
    return NULL;
  LLVMTypeRef sty = tll_scalar_type(cg, st);
  LLVMValueRef off = iota(sty, t.lanes);
  int64_t c;
  if (!(tsl_expr_is_const_int(e->args[1], &c) && c == 1))
    off = LLVMBuildMul(cg->b, off, tll_splat(cg, stride, t.lanes), "");
  return LLVMBuildAdd(cg->b, tll_splat(cg, base, t.lanes), off, "");
}

/* ---- addresses -------------------------------------------------------------- */

typedef struct access {
  LLVMValueRef ptr;   /* scalar or contiguous: the first element's address */
  LLVMValueRef ptrs;  /* gather/scatter: vector of addresses */
  LLVMTypeRef elem;   /* storage type of one element */
  unsigned align;
} access;

/* Base of a contiguous vector index: RAMP(b, 1) or RAMP(b, 1) + x. */
static const tsl_expr *ramp1(const tsl_expr *e, const tsl_expr **extra) {
  int64_t c;
  *extra = NULL;
  if (e->kind == TSL_EXPR_RAMP && tsl_expr_is_const_int(e->args[1], &c) &&
      c == 1)
    return e->args[0];
  if (e->kind == TSL_EXPR_ADD) {
    for (int s = 0; s < 2; s++) {
      const tsl_expr *r = e->args[s], *o = e->args[1 - s];
      if (r->kind == TSL_EXPR_RAMP && tsl_expr_is_const_int(r->args[1], &c) &&
          c == 1 && o->kind == TSL_EXPR_BROADCAST) {
        *extra = o->args[0];
        return r->args[0];
      }
    }
  }
  return NULL;
}

/* An index in int64, computed in int64 all the way down for signed
 * integer arithmetic (+, -, *, floordiv/floormod by a positive constant,
 * min, max, widening casts, Ramp, Broadcast) with nsw flags: int32 index
 * arithmetic sign-extended at the end hides the address structure from
 * alias analysis and SCEV (e.g. sext(x | 1024) vs sext(x | 2048)), which
 * keeps LICM from promoting accumulators to registers. An index whose
 * int32 arithmetic would overflow is out of bounds anyway. */
static LLVMValueRef index64(tll_cg *cg, const tsl_expr *e) {
  tsl_dtype t = e->dtype, i64 = TSL_INT64;
  i64.lanes = t.lanes;
  if (t.code != TSL_DT_INT || t.bits < 8)
    return tll_expr_as(cg, e, i64);
  LLVMBuilderRef b = cg->b;
  int64_t c;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    return tll_const_int(cg, i64, e->u.int_value);
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
  case TSL_EXPR_MUL:
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX: {
    if (e->args[0]->dtype.lanes != t.lanes || e->args[1]->dtype.lanes != t.lanes)
      break;
    LLVMValueRef x = index64(cg, e->args[0]);
    LLVMValueRef y = x ? index64(cg, e->args[1]) : NULL;
    if (!y)
      return NULL;
    switch ((tsl_expr_kind)e->kind) {
    case TSL_EXPR_ADD:
      return LLVMBuildNSWAdd(b, x, y, "");
    case TSL_EXPR_SUB:
      return LLVMBuildNSWSub(b, x, y, "");
    case TSL_EXPR_MUL:
      return LLVMBuildNSWMul(b, x, y, "");
    default: {
      LLVMValueRef lt = LLVMBuildICmp(
          b, e->kind == TSL_EXPR_MIN ? LLVMIntSLT : LLVMIntSGT, x, y, "");
      return LLVMBuildSelect(b, lt, x, y, "");
    }
    }
  }
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD: {
    if (!tsl_expr_is_const_int(e->args[1], &c) || c <= 0 ||
        e->args[0]->dtype.lanes != t.lanes || e->args[1]->dtype.lanes != 1 ||
        t.lanes != 1)
      break;
    LLVMValueRef x = index64(cg, e->args[0]);
    if (!x)
      return NULL;
    return tll_floor_divmod(cg, e->args[1], x,
                            LLVMConstInt(cg->t_i64, (unsigned long long)c, 0),
                            e->kind == TSL_EXPR_FLOORMOD, i64);
  }

  case TSL_EXPR_CAST: {
    tsl_dtype f = e->args[0]->dtype;
    if (f.code == TSL_DT_INT && f.bits <= t.bits && f.lanes == t.lanes)
      return index64(cg, e->args[0]);
    break;
  }
  case TSL_EXPR_RAMP: {
    LLVMValueRef base = index64(cg, e->args[0]);
    LLVMValueRef stride = base ? index64(cg, e->args[1]) : NULL;
    if (!stride)
      return NULL;
    LLVMValueRef off = iota(cg->t_i64, t.lanes);
    if (!(tsl_expr_is_const_int(e->args[1], &c) && c == 1))
      off = LLVMBuildNSWMul(b, off, tll_splat(cg, stride, t.lanes), "");
    return LLVMBuildNSWAdd(b, tll_splat(cg, base, t.lanes), off, "");
  }
  case TSL_EXPR_BROADCAST: {
    LLVMValueRef x = index64(cg, e->args[0]);
    return x ? tll_splat(cg, x, t.lanes) : NULL;
  }
  default:
    break;
  }
  return tll_expr_as(cg, e, i64);
}

/* base + idx as a chain of GEPs, one per term of the index's sum (the
 * constant terms folded into one): alias analysis decomposes GEP chains
 * directly, while a flat sum gets rewritten by instcombine into `or`s it
 * can no longer see through. */
static LLVMValueRef gep_terms(tll_cg *cg, LLVMTypeRef elem, LLVMValueRef p,
                              const tsl_expr *e, int neg, int64_t *konst) {
  int64_t c;
  if (e->dtype.code == TSL_DT_INT && e->dtype.lanes == 1 &&
      (e->kind == TSL_EXPR_ADD || e->kind == TSL_EXPR_SUB)) {
    p = gep_terms(cg, elem, p, e->args[0], neg, konst);
    return p ? gep_terms(cg, elem, p, e->args[1],
                         e->kind == TSL_EXPR_SUB ? !neg : neg, konst)
             : NULL;
  }
  if (tsl_expr_is_const_int(e, &c)) {
    *konst += neg ? -c : c;
    return p;
  }
  LLVMValueRef i = index64(cg, e);
  if (!i)
    return NULL;
  if (neg)
    i = LLVMBuildNSWNeg(cg->b, i, "");
  return LLVMBuildInBoundsGEP2(cg->b, elem, p, &i, 1, "");
}

static LLVMValueRef gep_index(tll_cg *cg, LLVMTypeRef elem, LLVMValueRef base,
                              const tsl_expr *e, const tsl_expr *extra) {
  int64_t konst = 0;
  LLVMValueRef p = gep_terms(cg, elem, base, e, 0, &konst);
  if (p && extra)
    p = gep_terms(cg, elem, p, extra, 0, &konst);
  if (p && konst) {
    LLVMValueRef k = LLVMConstInt(cg->t_i64, (unsigned long long)konst, 1);
    p = LLVMBuildInBoundsGEP2(cg->b, elem, p, &k, 1, "");
  }
  return p;
}

static int address(tll_cg *cg, const tsl_buffer *buf, const tsl_expr *idx,
                   uint16_t lanes, access *out) {
  LLVMValueRef base = tll_bind_find(cg, buf);
  if (!base)
    return tll_fail(cg, TSL_EINVALID,
                    "buffer '%s' is accessed where it is not defined (not a "
                    "parameter nor an enclosing allocation)",
                    buf->name);
  tsl_dtype st = tsl_dtype_scalar(buf->dtype);
  out->elem = tll_storage_type(cg, st);
  if (!out->elem) {
    char dn[32];
    return tll_fail(cg, TSL_EUNSUPPORTED, "buffer '%s' has dtype %s",
                    buf->name, tsl_dtype_str(buf->dtype, dn));
  }
  out->align = (unsigned)tsl_dtype_bytes(st);
  out->ptr = out->ptrs = NULL;
  if (idx->dtype.lanes <= 1) {
    out->ptr = gep_index(cg, out->elem, base, idx, NULL);
    return out->ptr ? TSL_OK : cg->status;
  }
  if (idx->dtype.lanes != lanes)
    return tll_fail(cg, TSL_EINVALID,
                    "access of '%s' with a %u-lane index for a %u-lane value",
                    buf->name, (unsigned)idx->dtype.lanes, (unsigned)lanes);
  const tsl_expr *extra;
  const tsl_expr *rb = ramp1(idx, &extra);
  if (rb) {
    out->ptr = gep_index(cg, out->elem, base, rb, extra);
    return out->ptr ? TSL_OK : cg->status;
  }
  LLVMValueRef iv = index64(cg, idx);
  if (!iv)
    return cg->status;
  out->ptrs = LLVMBuildInBoundsGEP2(cg->b, out->elem, base, &iv, 1, "");
  return TSL_OK;
}

static LLVMValueRef all_true(tll_cg *cg, unsigned lanes) {
  return LLVMConstAllOnes(LLVMVectorType(cg->t_i1, lanes));
}

LLVMValueRef tll_from_storage(tll_cg *cg, LLVMValueRef v, tsl_dtype t) {
  if (tsl_dtype_is_bool(t))
    return LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  if (t.code == TSL_DT_BFLOAT) {
    /* the 16 bits as a float's high half, in integer operations: no LLVM
     * bfloat arithmetic, which LLVM 19 lowers on CPUs without AVX-512 BF16
     * to calls of __truncsfbf2 (a select of bfloat lanes narrowed back),
     * a function GCC 12's libgcc lacks. An intrinsic's bfloat operand
     * (codegen_intrin.c: tll_to_storage, then a bitcast) folds to the load. */
    tsl_dtype i32 = TSL_DTYPE(TSL_DT_INT, 32, t.lanes);
    LLVMValueRef w = LLVMBuildZExt(cg->b, v, tll_type(cg, i32), "");
    w = LLVMBuildShl(cg->b, w, tll_const_int(cg, i32, 16), "");
    return LLVMBuildBitCast(cg->b, w, tll_type(cg, t), "");
  }
  return v;
}

LLVMValueRef tll_to_storage(tll_cg *cg, LLVMValueRef v, tsl_dtype t) {
  if (tsl_dtype_is_bool(t))
    return LLVMBuildZExt(cg->b, v, tll_storage_type(cg, t), "");
  if (t.code == TSL_DT_BFLOAT) {
    tsl_dtype i32 = TSL_DTYPE(TSL_DT_INT, 32, t.lanes);
    LLVMValueRef w = LLVMBuildBitCast(cg->b, v, tll_type(cg, i32), "");
    w = LLVMBuildLShr(cg->b, w, tll_const_int(cg, i32, 16), "");
    return LLVMBuildTrunc(cg->b, w, tll_storage_type(cg, t), "");
  }
  return v;
}

/* T.address_of(B[i]) (one scalar element) and B.data: raw pointers into a
 * buffer, as host code passes them to the kernels it calls. */
LLVMValueRef tll_address_of(tll_cg *cg, const tsl_expr *e) {
  if (e->kind == TSL_EXPR_BUFFER_DATA) {
    LLVMValueRef base = tll_bind_find(cg, e->u.buffer);
    if (!base)
      tll_fail(cg, TSL_EINVALID, "%s.data is used where the buffer is not defined",
               e->u.buffer->name);
    return base;
  }
  const tsl_expr *ld = e->n_args == 1 ? e->args[0] : NULL;
  if (!ld || ld->kind != TSL_EXPR_LOAD || ld->n_args != 1 || ld->args[0]->dtype.lanes > 1) {
    tll_fail(cg, TSL_EINVALID, "T.address_of takes one scalar buffer element, e.g. "
                               "T.address_of(A[i])");
    return NULL;
  }
  access a;
  if (address(cg, ld->u.buffer, ld->args[0], 1, &a))
    return NULL;
  return a.ptr;
}

LLVMValueRef tll_load(tll_cg *cg, const tsl_expr *e) {
  const tsl_buffer *buf = e->u.buffer;
  if (e->n_args != 1) {
    tll_fail(cg, TSL_EINVALID,
             "load of '%s' with %u indices; lowered programs use one flat "
             "index",
             buf->name, e->n_args);
    return NULL;
  }
  uint16_t lanes = e->dtype.lanes > 1 ? e->dtype.lanes : e->args[0]->dtype.lanes;
  tsl_dtype mt = tsl_dtype_scalar(buf->dtype);
  mt.lanes = lanes;
  access a;
  if (address(cg, buf, e->args[0], lanes, &a))
    return NULL;
  LLVMTypeRef vt = tll_storage_type(cg, mt);
  LLVMValueRef v;
  if (a.ptr && (lanes == 1 || !cg->mask)) {
    v = LLVMBuildLoad2(cg->b, vt, a.ptr, "");
    LLVMSetAlignment(v, a.align);
  } else if (a.ptr) {
    LLVMTypeRef ov[2] = {vt, cg->t_ptr};
    LLVMValueRef args[4] = {a.ptr, LLVMConstInt(cg->t_i32, a.align, 0),
                            cg->mask, LLVMConstNull(vt)};
    v = tll_call_intrinsic(cg, "llvm.masked.load", ov, 2, args, 4);
  } else {
    LLVMTypeRef ov[2] = {vt, LLVMTypeOf(a.ptrs)};
    LLVMValueRef args[4] = {a.ptrs, LLVMConstInt(cg->t_i32, a.align, 0),
                            cg->mask ? cg->mask : all_true(cg, lanes),
                            LLVMConstNull(vt)};
    v = tll_call_intrinsic(cg, "llvm.masked.gather", ov, 2, args, 4);
  }
  if (!v)
    return NULL;
  v = tll_from_storage(cg, v, mt);
  return tll_convert(cg, v, mt, e->dtype.lanes == lanes ? e->dtype : mt);
}

int tll_store(tll_cg *cg, const tsl_stmt *s) {
  const tsl_buffer *buf = s->u.store.buffer;
  if (s->u.store.n_indices != 1)
    return tll_fail(cg, TSL_EINVALID,
                    "store to '%s' with %u indices; lowered programs use one "
                    "flat index",
                    buf->name, s->u.store.n_indices);
  const tsl_expr *idx = s->u.store.indices[0];
  uint16_t lanes = idx->dtype.lanes > 1 ? idx->dtype.lanes
                                        : s->u.store.value->dtype.lanes;
  tsl_dtype mt = tsl_dtype_scalar(buf->dtype);
  mt.lanes = lanes;
  LLVMValueRef v = tll_expr_as(cg, s->u.store.value, mt);
  if (!v)
    return cg->status;
  access a;
  if (address(cg, buf, idx, lanes, &a))
    return cg->status;
  v = tll_to_storage(cg, v, mt);
  if (a.ptr) {
    LLVMValueRef st = LLVMBuildStore(cg->b, v, a.ptr);
    LLVMSetAlignment(st, a.align);
    return TSL_OK;
  }
  LLVMTypeRef ov[2] = {LLVMTypeOf(v), LLVMTypeOf(a.ptrs)};
  LLVMValueRef args[4] = {v, a.ptrs, LLVMConstInt(cg->t_i32, a.align, 0),
                          all_true(cg, lanes)};
  return tll_call_intrinsic(cg, "llvm.masked.scatter", ov, 2, args, 4)
             ? TSL_OK
             : cg->status;
}

LLVMValueRef tll_scalarize_call(tll_cg *cg, const char *name, LLVMTypeRef ret,
                                LLVMValueRef *args, unsigned n_args) {
  unsigned lanes = 1;
  for (unsigned i = 0; i < n_args; i++) {
    LLVMTypeRef t = LLVMTypeOf(args[i]);
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
      lanes = LLVMGetVectorSize(t);
  }
  if (n_args > 16) {
    tll_fail(cg, TSL_EUNSUPPORTED, "call of '%s' with %u arguments", name,
             n_args);
    return NULL;
  }
  LLVMValueRef r = LLVMGetUndef(LLVMVectorType(ret, lanes));
  for (unsigned l = 0; l < lanes; l++) {
    LLVMValueRef lane = LLVMConstInt(cg->t_i32, l, 0), a[16];
    for (unsigned i = 0; i < n_args; i++)
      a[i] = LLVMGetTypeKind(LLVMTypeOf(args[i])) == LLVMVectorTypeKind
                 ? LLVMBuildExtractElement(cg->b, args[i], lane, "")
                 : args[i];
    LLVMValueRef x = tll_call_extern(cg, name, ret, a, n_args);
    if (!x)
      return NULL;
    r = LLVMBuildInsertElement(cg->b, r, x, lane, "");
  }
  return r;
}
