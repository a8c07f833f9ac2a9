/*
 * TVM builtins (the TSL_BUILTINS table: T.tvm_access_ptr, T.tvm_mma_sync,
 * T.likely, ...), buffer attributes (A.data, A.elem_offset, A.shape[i],
 * A.strides[i]) and Buffer.access_ptr, which TVM expands on the spot into
 * T.tvm_access_ptr(T.type_annotation(dtype), A.data, offset, extent, mask).
 * Arguments are converted as TVM's FFI converts Python values, and a
 * `dtype=` keyword is checked and dropped, as TVM's op wrapper drops it.
 */
#include "parser_internal.h"

#include <stdio.h>
#include <string.h>

const tsl_expr *ps_call_arg(pstate *ps, const anode *n) {
  if (n->kind == AX_STR)
    return tsl_expr_str(ps->arena, ps_intern(ps, n->s, n->slen));
  return ps_typed(ps, ps_expr(ps, n));
}

void ps_ignored_dtype(pstate *ps, const anode *call, const char *fname) {
  static const char *const kws[] = {"dtype", NULL};
  ps_check_kwargs(ps, call, fname, kws);
  for (uint32_t k = 0; k < call->nkw; k++) {
    const anode *v = call->kwval[k];
    if (!(v->kind == AX_STR && v->slen == 0))
      ps_dtype_or_void(ps, v);
  }
}

static tsl_dtype result_dtype(const tsl_builtin_info *bi, const tsl_expr *const *args) {
  switch (bi->result) {
  case TSL_BUILTIN_RES_INT32:
    return TSL_INT32;
  case TSL_BUILTIN_RES_BOOL:
    return TSL_BOOL;
  case TSL_BUILTIN_RES_ARG0:
    return args[0]->dtype;
  default:
    return TSL_HANDLE;
  }
}

/* `n` is the call T.<name>(...). */
static int is_t_call(const anode *n, const char *name) {
  size_t k = strlen(name);
  return n->kind == AX_CALL && n->a && n->a->kind == AX_ATTR && n->a->a &&
         n->a->a->kind == AX_NAME && n->a->a->slen == 1 && n->a->a->s[0] == 'T' &&
         n->a->slen == k && memcmp(n->a->s, name, k) == 0;
}

/* The LLVM intrinsic's name: a string, or T.llvm_lookup_intrinsic_id of
 * one (TVM turns it into LLVM's numeric id, which differs between LLVM
 * versions; the name is kept here and looked up by the llvm target). */
static const tsl_expr *llvm_intrin_name(pstate *ps, const anode *n) {
  const anode *s = n;
  if (is_t_call(n, "llvm_lookup_intrinsic_id")) {
    ps_check_arity(ps, n, "T.llvm_lookup_intrinsic_id", 1, 1,
                   "T.llvm_lookup_intrinsic_id(\"llvm.x86.avx512.vpdpbusd.512\")");
    s = n->items[0];
  }
  if (s->kind != AX_STR || s->slen < 6 || memcmp(s->s, "llvm.", 5) != 0)
    ps_fail(ps, s, "name it as a string, e.g. \"llvm.x86.avx512.vpdpbusd.512\", or "
                   "T.llvm_lookup_intrinsic_id(\"llvm....\")",
            "the LLVM intrinsic must be a name starting with \"llvm.\"");
  return tsl_expr_str(ps->arena, ps_intern(ps, s->s, s->slen));
}

/* T.call_llvm_pure_intrin / T.call_llvm_intrin: the result dtype first (or
 * dtype=), the intrinsic's name, the count of arguments its overload is
 * chosen by (a constant), then the arguments. */
static pval llvm_intrin_call(pstate *ps, const anode *call, const char *fname, tsl_builtin id,
                             const char *usage) {
  static const char *const kws[] = {"dtype", NULL};
  ps_check_kwargs(ps, call, fname, kws);
  uint32_t first = call->nkw ? 0 : 1;
  ps_check_arity(ps, call, fname, (int)first + 2, (int)first + 64, usage);
  const anode *dt = call->nkw ? call->kwval[0] : call->items[0];
  pval out;
  memset(&out, 0, sizeof out);
  out.node = call;
  tsl_dtype dtype = ps_dtype_arg(ps, dt);
  uint32_t n = call->n - first;
  const tsl_expr **args = TSL_NEW_ARRAY(ps->scratch, const tsl_expr *, n);
  args[0] = llvm_intrin_name(ps, call->items[first]);
  args[1] = ps_call_arg(ps, call->items[first + 1]);
  int64_t k;
  if (!tsl_expr_is_const_int(args[1], &k) || k < 0 || k > (int64_t)n - 2)
    ps_fail(ps, call->items[first + 1], "it is how many of the arguments after it choose "
                                        "an overloaded intrinsic, e.g. T.uint32(3)",
            "num_signature must be a constant from 0 to %u", n - 2);
  for (uint32_t i = 2; i < n; i++)
    args[i] = ps_call_arg(ps, call->items[first + i]);
  out.e = tsl_expr_builtin(ps->arena, id, dtype, n, args);
  return out;
}

pval ps_builtin_call(pstate *ps, const anode *call, const char *fname, tsl_builtin id) {
  const tsl_builtin_info *bi = tsl_builtin_info_of(id);
  pval out;
  memset(&out, 0, sizeof out);
  out.node = call;
  char usage[320];
  if (bi->result == TSL_BUILTIN_RES_DTYPE) {
    static const char *const kws[] = {"dtype", NULL};
    ps_check_kwargs(ps, call, fname, kws);
    const anode *dt = ps_arg(ps, call, 0, "dtype");
    snprintf(usage, sizeof usage, "%s(\"float32\")", fname);
    if (!dt || call->n > 1)
      ps_check_arity(ps, call, fname, 1, 1, usage);
    out.e = tsl_expr_builtin(ps->arena, id, ps_dtype_arg(ps, dt), 0, NULL);
    return out;
  }
  snprintf(usage, sizeof usage, "%s(%s)", fname, bi->params);
  if (bi->n_args < 0)
    return llvm_intrin_call(ps, call, fname, id, usage);
  uint32_t n = (uint32_t)bi->n_args, first = 0;
  tsl_dtype dtype = TSL_HANDLE;
  if (bi->result == TSL_BUILTIN_RES_DTYPE_FIRST) {
    /* T.mma_fill("float32", 8, C.data, 0), as TVM prints it, or
     * T.mma_fill(8, C.data, 0, dtype="float32"), as intrinsics write it */
    static const char *const kws[] = {"dtype", NULL};
    ps_check_kwargs(ps, call, fname, kws);
    const anode *dt = call->nkw ? call->kwval[0] : NULL;
    if (!dt && call->n == n + 1) {
      dt = call->items[0];
      first = 1;
    }
    ps_check_arity(ps, call, fname, n + !call->nkw, n + !call->nkw, usage);
    dtype = ps_dtype_arg(ps, dt);
  } else {
    ps_ignored_dtype(ps, call, fname);
    ps_check_arity(ps, call, fname, bi->n_args, bi->n_args, usage);
  }
  const tsl_expr **args = TSL_NEW_ARRAY(ps->scratch, const tsl_expr *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++)
    args[i] = id == TSL_BUILTIN_ASSUME
                  ? ps_bool_expr(ps, call->items[i], "the condition of T.assume")
                  : ps_call_arg(ps, call->items[first + i]);
  int64_t v;
  if (id == TSL_BUILTIN_LIKELY &&
      (tsl_expr_is_const_int(args[0], &v) ||
       (args[0]->kind == TSL_EXPR_INT_IMM && tsl_dtype_is_bool(args[0]->dtype)))) {
    out.e = args[0]; /* TVM folds a constant hint away */
    return out;
  }
  if (id == TSL_BUILTIN_REINTERPRET &&
      (uint32_t)dtype.bits * dtype.lanes != (uint32_t)args[0]->dtype.bits * args[0]->dtype.lanes) {
    char a[32], b[32];
    ps_fail(ps, call, "the two dtypes must have as many bits, e.g. uint8x4 as int32",
            "T.reinterpret from %s (%u bits) to %s (%u bits)", tsl_dtype_str(args[0]->dtype, a),
            (unsigned)args[0]->dtype.bits * args[0]->dtype.lanes, tsl_dtype_str(dtype, b),
            (unsigned)dtype.bits * dtype.lanes);
  }
  out.e = tsl_expr_builtin(ps->arena, id,
                           bi->result == TSL_BUILTIN_RES_DTYPE_FIRST ? dtype
                                                                     : result_dtype(bi, args),
                           n, args);
  return out;
}

/* ---- buffer attributes ---- */

int ps_is_buffer_attr(pstate *ps, const anode *n) {
  if (!n || n->kind != AX_ATTR || !n->a || n->a->kind != AX_NAME)
    return 0;
  const psym *s = ps_lookup(ps, ps_intern(ps, n->a->s, n->a->slen));
  return s && s->kind == SYM_BUFFER;
}

static int attr_is(const anode *n, const char *name) {
  size_t k = strlen(name);
  return n->slen == k && memcmp(n->s, name, k) == 0;
}

static PS_NOINLINE _Noreturn void bad_attr(pstate *ps, const anode *n, const tsl_buffer *b) {
  ps_note(ps, "buffer attributes are %s.data, %s.elem_offset, %s.shape[i], %s.strides[i] "
              "and %s.access_ptr(...)",
          b->name, b->name, b->name, b->name, b->name);
  ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, n->optok),
              "unsupported buffer attribute '%.*s'", (int)(n->slen > 64 ? 64 : n->slen), n->s);
}

/* The element offset TVM gives a buffer declared without one: 0 of its
 * index dtype (the dtype of the first dimension). */
static const tsl_expr *elem_offset(pstate *ps, const tsl_buffer *b) {
  if (b->elem_offset)
    return b->elem_offset;
  return tsl_expr_int(ps->arena, b->ndim ? b->shape[0]->dtype : TSL_INT32, 0);
}

pval ps_buffer_attr(pstate *ps, const anode *n) {
  const tsl_buffer *b = ps_buffer_ref(ps, n->a);
  pval out;
  memset(&out, 0, sizeof out);
  out.node = n;
  if (attr_is(n, "data")) {
    out.e = tsl_expr_buffer_data(ps->arena, b);
    return out;
  }
  if (attr_is(n, "elem_offset")) {
    out.e = elem_offset(ps, b);
    return out;
  }
  if (attr_is(n, "shape") || attr_is(n, "strides")) {
    ps_note(ps, "index it, as in %s.%.*s[0]", b->name, (int)n->slen, n->s);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "%s.%.*s is a list, not a value",
                b->name, (int)n->slen, n->s);
  }
  if (attr_is(n, "access_ptr")) {
    ps_note(ps, "call it: %s.access_ptr(\"r\")", b->name);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "%s.access_ptr is a method", b->name);
  }
  bad_attr(ps, n, b);
}

pval ps_buffer_attr_index(pstate *ps, const anode *sub) {
  const anode *n = sub->a;
  const tsl_buffer *b = ps_buffer_ref(ps, n->a);
  int shape = attr_is(n, "shape");
  if (!shape && !attr_is(n, "strides")) {
    if (attr_is(n, "data") || attr_is(n, "elem_offset"))
      ps_fail(ps, sub, "only buffers can be indexed", "%s.%.*s cannot be indexed", b->name,
              (int)n->slen, n->s);
    bad_attr(ps, n, b);
  }
  if (sub->n != 1 || sub->items[0]->kind == AX_SLICE)
    ps_fail(ps, sub, "index it with one dimension number, as in A.shape[0]",
            "%s.%.*s takes one index", b->name, (int)n->slen, n->s);
  int64_t d = ps_int_literal(ps, sub->items[0], "the dimension");
  if (d < 0)
    d += b->ndim;
  if (d < 0 || d >= (int64_t)b->ndim) {
    ps_note(ps, "buffer '%s' has %u dimension%s", b->name, b->ndim, b->ndim == 1 ? "" : "s");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, sub->items[0]), "dimension out of range");
  }
  if (!shape && !b->strides) {
    ps_note(ps, "declare them, as in T.match_buffer(..., strides=[s0, s1])");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, sub), "buffer '%s' has no explicit strides",
                b->name);
  }
  pval out;
  memset(&out, 0, sizeof out);
  out.node = sub;
  out.e = shape ? b->shape[d] : b->strides[d];
  return out;
}

/* ---- Buffer.access_ptr ---- */

static int64_t access_mask(pstate *ps, const anode *n) {
  if (n->kind != AX_STR)
    return ps_int_literal(ps, n, "the access mask");
  int64_t m = 0;
  for (uint32_t i = 0; i < n->slen; i++) {
    if (n->s[i] == 'r')
      m |= 1;
    else if (n->s[i] == 'w')
      m |= 2;
    else
      ps_fail(ps, n, "the mask is made of 'r' (read) and 'w' (write), e.g. \"rw\"",
              "unknown access mask \"%.*s\"", (int)(n->slen > 16 ? 16 : n->slen), n->s);
  }
  return m;
}

pval ps_buffer_method(pstate *ps, const anode *call) {
  const anode *attr = call->a;
  const tsl_buffer *b = ps_buffer_ref(ps, attr->a);
  if (!attr_is(attr, "access_ptr")) {
    if (attr_is(attr, "data") || attr_is(attr, "elem_offset") || attr_is(attr, "shape") ||
        attr_is(attr, "strides"))
      ps_fail(ps, call, "it is a value, not a method", "%s.%.*s is not callable", b->name,
              (int)attr->slen, attr->s);
    bad_attr(ps, attr, b);
  }
  char fname[96];
  snprintf(fname, sizeof fname, "%s.access_ptr", b->name);
  static const char *const kws[] = {"access_mask", "ptr_type", "content_lanes", "offset",
                                    "extent", NULL};
  ps_check_kwargs(ps, call, fname, kws);
  const anode *mask_n = ps_arg(ps, call, 0, "access_mask");
  const anode *ptype_n = ps_arg(ps, call, 1, "ptr_type");
  const anode *lanes_n = ps_arg(ps, call, 2, "content_lanes");
  const anode *off_n = ps_arg(ps, call, 3, "offset");
  const anode *ext_n = ps_arg(ps, call, 4, "extent");
  if (!mask_n || call->n > 5)
    ps_check_arity(ps, call, fname, 1, 5,
                   "A.access_ptr(\"rw\", ptr_type=\"handle\", content_lanes=1, offset=0, "
                   "extent=None)");
  int64_t mask = access_mask(ps, mask_n);
  if (ptype_n && !(ptype_n->kind == AX_STR && ptype_n->slen == 6 &&
                   memcmp(ptype_n->s, "handle", 6) == 0))
    ps_fail(ps, ptype_n, "only ptr_type=\"handle\" is supported", "unsupported pointer type");
  int64_t lanes = lanes_n ? ps_int_literal(ps, lanes_n, "content_lanes") : 1;
  if (lanes < 1 || lanes > 65535)
    ps_fail(ps, lanes_n, "use 1 to 65535 lanes", "invalid content_lanes %lld", (long long)lanes);
  const tsl_expr *offset = off_n ? ps_int_expr(ps, off_n, "the offset")
                                 : tsl_expr_int(ps->arena, TSL_INT32, 0);
  /* as TVM's Buffer::access_ptr, folding constants as its operators do */
  tsl_dtype index_t = b->ndim ? b->shape[0]->dtype : TSL_INT32;
  const tsl_expr *extent;
  if (b->ndim == 0) {
    extent = tsl_expr_int(ps->arena, index_t, 1);
  } else if (b->strides) {
    extent = ps_int_arith(ps, TSL_EXPR_MUL, b->strides[0], b->shape[0], call);
    extent = ps_int_arith(ps, TSL_EXPR_SUB, extent, offset, call);
  } else {
    extent = tsl_expr_int(ps->arena, TSL_INT32, 1);
    for (uint32_t d = 0; d < b->ndim; d++)
      extent = ps_int_arith(ps, TSL_EXPR_MUL, extent, b->shape[d], call);
    extent = ps_int_arith(ps, TSL_EXPR_SUB, extent, offset, call);
  }
  const tsl_expr *eo = elem_offset(ps, b);
  const tsl_expr *start = ps_int_arith(ps, TSL_EXPR_ADD, eo, offset, call);
  tsl_dtype et = b->dtype;
  if (lanes > 1) {
    et.lanes = (uint16_t)(et.lanes * lanes);
    const tsl_expr *l = tsl_expr_int(ps->arena, eo->dtype, lanes);
    extent = ps_int_arith(ps, TSL_EXPR_DIV, extent, l, call);
    start = ps_int_arith(ps, TSL_EXPR_DIV, eo, l, call);
  }
  if (ext_n)
    extent = ps_int_expr(ps, ext_n, "the extent");
  const tsl_expr *args[5] = {
      tsl_expr_builtin(ps->arena, TSL_BUILTIN_TYPE_ANNOTATION, et, 0, NULL),
      tsl_expr_buffer_data(ps->arena, b), start, extent,
      tsl_expr_int(ps->arena, TSL_INT32, mask)};
  pval out;
  memset(&out, 0, sizeof out);
  out.node = call;
  out.e = tsl_expr_builtin(ps->arena, TSL_BUILTIN_TVM_ACCESS_PTR, TSL_HANDLE, 5, args);
  return out;
}
