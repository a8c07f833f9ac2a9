/*
 * targets/cuda/codegen_wmma.c — tensor-core fragments (nvcuda::wmma) in
 * kernel code: buffers of the scopes wmma.matrix_a, wmma.matrix_b and
 * wmma.accumulator, and the TVM builtins the WMMA intrinsics call
 * (T.tvm_fill_fragment, T.tvm_load_matrix_sync, T.tvm_mma_sync,
 * T.tvm_store_matrix_sync) and the pointers they take (T.tvm_access_ptr).
 *
 * A fragment buffer becomes an array of fragments, one per m x n (or
 * m x k, k x n) tile of its elements; the builtins index it with their
 * fragment-index argument. Shape and layout come from the builtins that
 * use the buffer (TVM's InferFragment): m, n, k of any fill, load or store,
 * and the layout of a matrix_a / matrix_b load. Every thread of a warp
 * executes each call, so the calls sit outside threadIdx.x loops.
 */
#include "cuda_internal.h"

#include <string.h>

#include "tessel/visit.h"

int tcu_is_fragment(const tsl_buffer *b) {
  return b->scope && !strncmp(b->scope, "wmma.", 5);
}

static int is_call(const tsl_expr *e, int id) {
  return e->kind == TSL_EXPR_BUILTIN && e->intrin == id;
}

/* The fragment buffer argument `i` of a call: BUFFER_DATA of a fragment. */
static const tsl_buffer *fragment_arg(const tsl_expr *call, uint32_t i) {
  const tsl_expr *a = i < call->n_args ? call->args[i] : NULL;
  return a && a->kind == TSL_EXPR_BUFFER_DATA && tcu_is_fragment(a->u.buffer) ? a->u.buffer
                                                                               : NULL;
}

typedef struct shape_scan {
  const tsl_buffer *buf;
  int64_t mnk[3];
  const char *layout; /* "row_major" / "col_major" of a load; NULL: none seen */
  int seen, mismatch, elements;
} shape_scan;

static int scan_call(const tsl_expr *e, void *ud) {
  shape_scan *s = ud;
  s->elements |= e->kind == TSL_EXPR_LOAD && e->u.buffer == s->buf;
  int shaped = is_call(e, TSL_BUILTIN_TVM_FILL_FRAGMENT) ||
               is_call(e, TSL_BUILTIN_TVM_LOAD_MATRIX_SYNC) ||
               is_call(e, TSL_BUILTIN_TVM_STORE_MATRIX_SYNC);
  if (!shaped || fragment_arg(e, 0) != s->buf)
    return 0;
  int64_t v[3];
  for (int i = 0; i < 3; i++)
    if (!tsl_expr_is_const_int(e->args[1 + i], &v[i]))
      return s->mismatch = 1, 0;
  if (s->seen && memcmp(v, s->mnk, sizeof v))
    s->mismatch = 1;
  memcpy(s->mnk, v, sizeof v);
  s->seen = 1;
  if (is_call(e, TSL_BUILTIN_TVM_LOAD_MATRIX_SYNC) && e->args[7]->kind == TSL_EXPR_STR_IMM)
    s->layout = e->args[7]->u.str_value;
  return 0;
}

static int scan_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  shape_scan *s = ud;
  s->elements |= owner->kind == TSL_STMT_STORE && owner->u.store.buffer == s->buf;
  return tsl_expr_visit(e, scan_call, ud);
}

void tcu_wmma_alloc(tcu_emitter *em, const tsl_stmt *s) {
  const tsl_buffer *b = s->u.alloc.buffer;
  shape_scan sc = {.buf = b};
  tsl_stmt_visitor v = {.expr = scan_expr, .user_data = &sc};
  tsl_stmt_visit(s->u.alloc.body, &v);
  const char *use = b->scope + 5; /* matrix_a, matrix_b, accumulator */
  int acc = !strcmp(use, "accumulator"), is_a = !strcmp(use, "matrix_a");
  if (!acc && !is_a && strcmp(use, "matrix_b"))
    return tcu_fail(em, "storage scope of buffer", b->name);
  if (sc.elements)
    return tcu_fail(em, "element access to a tensor-core fragment (tensorize it), buffer",
                    b->name);
  if (!sc.seen || sc.mismatch)
    return tcu_fail(em, sc.mismatch ? "fragment with calls of different shapes (m, n, k), buffer"
                                    : "fragment without a fill, load or store giving its shape "
                                      "(m, n, k), buffer", b->name);
  if (!acc && !sc.layout)
    return tcu_fail(em, "fragment without a load giving its layout, buffer", b->name);
  int64_t n, tile = is_a ? sc.mnk[0] * sc.mnk[2] : acc ? sc.mnk[0] * sc.mnk[1]
                                                       : sc.mnk[2] * sc.mnk[1];
  if (!tsl_expr_is_const_int(b->shape[0], &n) || tile <= 0 || n % tile)
    return tcu_fail(em, "fragment whose size is not a whole number of tiles, buffer", b->name);
  tcu_out(em, "{\nnvcuda::wmma::fragment<nvcuda::wmma::%s, %d, %d, %d, %t", use,
          (int)sc.mnk[0], (int)sc.mnk[1], (int)sc.mnk[2], b->dtype);
  if (!acc)
    tcu_out(em, ", nvcuda::wmma::%s", sc.layout);
  tcu_out(em, "> %b[%d];\n%S}\n", b, (int)(n / tile), s->u.alloc.body);
}

/* `%b[index]`: fragment argument `i` of a call, at index argument `j`. */
static void fragment(tcu_emitter *em, const tsl_expr *call, uint32_t i, uint32_t j) {
  const tsl_buffer *b = fragment_arg(call, i);
  if (!b)
    return tcu_fail(em, "fragment argument (not a wmma.* buffer's data) of",
                    tsl_builtin_info_of((tsl_builtin)call->intrin)->name);
  tcu_out(em, "%b[%e]", b, call->args[j]);
}

static const char *mem_layout(tcu_emitter *em, const tsl_expr *call) {
  const tsl_expr *l = call->args[7];
  if (l->kind == TSL_EXPR_STR_IMM && !strcmp(l->u.str_value, "row_major"))
    return "nvcuda::wmma::mem_row_major";
  if (l->kind == TSL_EXPR_STR_IMM && !strcmp(l->u.str_value, "col_major"))
    return "nvcuda::wmma::mem_col_major";
  tcu_fail(em, "layout (row_major or col_major) of",
           tsl_builtin_info_of((tsl_builtin)call->intrin)->name);
  return "";
}

int tcu_wmma_stmt(tcu_emitter *em, const tsl_expr *e) {
  if (e->kind != TSL_EXPR_BUILTIN)
    return 0;
  switch (e->intrin) {
  case TSL_BUILTIN_TVM_FILL_FRAGMENT:
    tcu_out(em, "nvcuda::wmma::fill_fragment(");
    fragment(em, e, 0, 4);
    tcu_out(em, ", %e);\n", e->args[5]);
    return 1;
  case TSL_BUILTIN_TVM_LOAD_MATRIX_SYNC: {
    const tsl_buffer *b = fragment_arg(e, 0);
    tcu_out(em, "nvcuda::wmma::load_matrix_sync(");
    fragment(em, e, 0, 4);
    tcu_out(em, ", %e, %e", e->args[5], e->args[6]);
    if (b && !strcmp(b->scope, "wmma.accumulator"))
      tcu_out(em, ", %s", mem_layout(em, e));
    tcu_out(em, ");\n");
    return 1;
  }
  case TSL_BUILTIN_TVM_STORE_MATRIX_SYNC:
    tcu_out(em, "nvcuda::wmma::store_matrix_sync(%e, ", e->args[5]);
    fragment(em, e, 0, 4);
    tcu_out(em, ", %e, %s);\n", e->args[6], mem_layout(em, e));
    return 1;
  case TSL_BUILTIN_TVM_MMA_SYNC:
    tcu_out(em, "nvcuda::wmma::mma_sync(");
    for (uint32_t i = 0; i < 8; i += 2) {
      tcu_out(em, i ? ", " : "");
      fragment(em, e, i, i + 1);
    }
    tcu_out(em, ");\n");
    return 1;
  }
  return 0;
}

void tcu_access_ptr(tcu_emitter *em, const tsl_expr *e) {
  const tsl_expr *type = e->args[0], *data = e->args[1];
  if (type->kind != TSL_EXPR_BUILTIN || type->intrin != TSL_BUILTIN_TYPE_ANNOTATION ||
      data->kind != TSL_EXPR_BUFFER_DATA || tcu_is_fragment(data->u.buffer))
    return tcu_fail(em, "pointer (T.tvm_access_ptr of a buffer that is not in memory)",
                    data->kind == TSL_EXPR_BUFFER_DATA ? data->u.buffer->name : "?");
  tcu_out(em, "((%t *)%b + %e)", type->dtype, data->u.buffer, e->args[2]);
}
