/*
 * targets/llvm/codegen_stmt.c — statements: loops of every kind (serial,
 * unrolled with llvm.loop.unroll.full (lowering leaves UNROLLED loops only
 * under pragma_unroll_explicit = 0), vectorized loops left by lowering
 * with llvm.loop.vectorize.enable, parallel through codegen_parallel.c,
 * thread bindings run serially), IF, LET, SEQ, EVALUATE, STORE, ALLOCATE.
 *
 * ALLOCATE: a constant size up to TLL_STACK_MAX bytes is an alloca in the
 * function's entry block (64-byte aligned, reused by every iteration of
 * enclosing loops); anything else is aligned_alloc(64, ..) / free around
 * the body, and a failed allocation makes the call return 1. Allocations
 * are not zero-filled (as in TVM).
 */
#include "llvm_internal.h"

#include <llvm-c/DebugInfo.h>
#include <string.h>

#include "tessel/visit.h"

#define TLL_STACK_MAX 65536

/* A distinct loop ID !{self, property...}: each property !{"name"}, or
 * !{"name", i1 value} with a value of 0 or 1 (-1: none). */
static LLVMMetadataRef loop_id(tll_cg *cg, uint32_t n, const char *const *names,
                               const int *values) {
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(cg->ctx, NULL, 0);
  LLVMMetadataRef ops[3] = {tmp};
  for (uint32_t k = 0; k < n && k < 2; k++) {
    LLVMMetadataRef pops[2];
    pops[0] = LLVMMDStringInContext2(cg->ctx, names[k], strlen(names[k]));
    pops[1] = LLVMValueAsMetadata(LLVMConstInt(cg->t_i1, values[k] > 0, 0));
    ops[k + 1] = LLVMMDNodeInContext2(cg->ctx, pops, values[k] >= 0 ? 2 : 1);
  }
  LLVMMetadataRef node = LLVMMDNodeInContext2(cg->ctx, ops, n < 2 ? n + 1 : 3);
  LLVMMetadataReplaceAllUsesWith(tmp, node);
  return node;
}

/* A loop ID with one property; `flag` adds i1 true. */
static LLVMMetadataRef loop_md(tll_cg *cg, const char *prop, int flag) {
  int value = flag ? 1 : -1;
  return loop_id(cg, 1, &prop, &value);
}

/* LLVM's loop vectorizer checks the loads and stores of a loop against each
 * other (LoopAccessAnalysis, quadratic in their number): a loop around an
 * explicitly unrolled body of hundreds of them took most of its candidate's
 * build. A serial loop with no loop inside and at least this many loads and
 * stores is not offered to it unless the vectorizer could widen it: every
 * value scalar (it refuses a loop with a vector in it) and some access
 * contiguous in the loop's variable (without one it finds nothing worth
 * widening). Widening such a loop is what makes some schedules fast: a body
 * unrolled over a reduction inside a loop over 64 output channels ran 4.5x
 * faster (README.md, "Compile time"). */
#define TLL_LV_MAX_ACCESSES 1024

typedef struct access_scan {
  const tsl_var *loop_var;
  int64_t n;
  int has_loop, has_vector, has_contiguous;
} access_scan;

/* Whether `e` is affine in `v` as far as its sums, constant multiples and
 * casts show, with that coefficient in *coef (0 where `v` does not occur). */
static int coefficient(const tsl_expr *e, const tsl_var *v, int64_t *coef) {
  int64_t x, y;
  switch (e->kind) {
  case TSL_EXPR_VAR:
    *coef = e->u.var == v;
    return 1;
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
    if (!coefficient(e->args[0], v, &x) || !coefficient(e->args[1], v, &y))
      return 0;
    return e->kind == TSL_EXPR_ADD ? !__builtin_add_overflow(x, y, coef)
                                   : !__builtin_sub_overflow(x, y, coef);
  case TSL_EXPR_MUL:
    for (int i = 0; i < 2; i++)
      if (e->args[i]->kind == TSL_EXPR_INT_IMM && coefficient(e->args[1 - i], v, &x))
        return !__builtin_mul_overflow(x, e->args[i]->u.int_value, coef);
    break;
  case TSL_EXPR_CAST:
    if (tsl_dtype_is_int(e->dtype))
      return coefficient(e->args[0], v, coef);
    break;
  default:
    break;
  }
  *coef = 0;
  return !tsl_expr_uses_var(e, v);
}

/* An access is contiguous when its last index steps by one with the loop. */
static void note_access(access_scan *c, uint32_t n_indices, const tsl_expr *const *indices) {
  int64_t coef;
  c->n++;
  if (n_indices && coefficient(indices[n_indices - 1], c->loop_var, &coef) && coef == 1)
    c->has_contiguous = 1;
}

static int scan_expr_node(const tsl_expr *e, void *user_data) {
  access_scan *c = user_data;
  c->has_vector |= e->dtype.lanes > 1;
  if (e->kind == TSL_EXPR_LOAD)
    note_access(c, e->n_args, e->args);
  return 0;
}

static int scan_stmt(const tsl_stmt *s, void *user_data) {
  access_scan *c = user_data;
  if (s->kind == TSL_STMT_FOR) {
    c->has_loop = 1;
    return 1; /* not an innermost loop: the count does not matter */
  }
  if (s->kind == TSL_STMT_STORE)
    note_access(c, s->u.store.n_indices, s->u.store.indices);
  return 0;
}

static int scan_expr(const tsl_expr *e, const tsl_stmt *owner, void *user_data) {
  (void)owner;
  return tsl_expr_visit(e, scan_expr_node, user_data);
}

/* A long innermost body the loop vectorizer could not widen. */
static int keep_from_vectorizer(const tsl_stmt *loop) {
  access_scan c = {loop->u.loop.loop_var, 0, 0, 0, 0};
  tsl_stmt_visitor v = {scan_stmt, NULL, scan_expr, NULL, &c};
  tsl_stmt_visit(loop->u.loop.body, &v);
  return !c.has_loop && c.n >= TLL_LV_MAX_ACCESSES && (c.has_vector || !c.has_contiguous);
}

int tll_emit_loop(tll_cg *cg, const tsl_var *var, LLVMValueRef lo,
                  LLVMValueRef hi, LLVMMetadataRef md, tll_body_fn body,
                  const void *ctx) {
  LLVMBuilderRef b = cg->b;
  LLVMTypeRef ty = LLVMTypeOf(lo);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "loop");
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "body");
  LLVMBasicBlockRef latch = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "latch");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "exit");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef i = LLVMBuildPhi(b, ty, var->name ? var->name : "i");
  int uns = var->dtype.code == TSL_DT_UINT;
  LLVMValueRef c = LLVMBuildICmp(b, uns ? LLVMIntULT : LLVMIntSLT, i, hi, "");
  LLVMBuildCondBr(b, c, bb, exit);
  LLVMPositionBuilderAtEnd(b, bb);
  uint32_t mark = cg->binds.len;
  tll_bind_push(cg, var, i, 0)->is_wide = ty == cg->t_i64 && var->dtype.bits == 32;
  int st = cg->status ? cg->status : body(cg, ctx);
  cg->binds.len = mark;
  if (st)
    return st;
  LLVMBuildBr(b, latch);
  LLVMPositionBuilderAtEnd(b, latch);
  LLVMValueRef one = LLVMConstInt(ty, 1, 0);
  LLVMValueRef next = uns ? LLVMBuildNUWAdd(b, i, one, "")
                          : LLVMBuildNSWAdd(b, i, one, "");
  LLVMValueRef br = LLVMBuildBr(b, head);
  if (md)
    LLVMSetMetadata(br, cg->md_loop, LLVMMetadataAsValue(cg->ctx, md));
  LLVMValueRef vals[2] = {lo, next};
  LLVMBasicBlockRef bbs[2] = {pre, latch};
  LLVMAddIncoming(i, vals, bbs, 2);
  LLVMPositionBuilderAtEnd(b, exit);
  return TSL_OK;
}

static int body_stmt(tll_cg *cg, const void *ctx) {
  return tll_stmt(cg, (const tsl_stmt *)ctx);
}

static int for_loop(tll_cg *cg, const tsl_stmt *s) {
  const tsl_var *v = s->u.loop.loop_var;
  uint32_t kind = s->u.loop.for_kind;
  if (!tsl_dtype_is_int(v->dtype) || v->dtype.lanes != 1)
    return tll_fail(cg, TSL_EINVALID, "loop variable '%s' is not a scalar "
                                      "integer",
                    v->name);
  if (kind == TSL_FOR_PARALLEL && cg->opts->threads > 1 && !cg->in_parallel)
    return tll_parallel_for(cg, s);
  /* A signed int32 variable counts in an i64: indices are computed in
   * int64 anyway, and LLVM then need not widen the induction variable. */
  tsl_dtype ct = v->dtype;
  if (ct.code == TSL_DT_INT && ct.bits == 32)
    ct.bits = 64;
  LLVMValueRef lo = tll_expr_as(cg, s->u.loop.min, ct);
  LLVMValueRef ext = lo ? tll_expr_as(cg, s->u.loop.extent, ct) : NULL;
  if (!ext)
    return cg->status;
  LLVMValueRef hi = LLVMBuildAdd(cg->b, lo, ext, "");
  LLVMMetadataRef md = NULL;
  if (kind == TSL_FOR_UNROLLED)
    md = loop_md(cg, "llvm.loop.unroll.full", 0);
  else if (kind == TSL_FOR_VECTORIZED)
    md = loop_md(cg, "llvm.loop.vectorize.enable", 1);
  else if (keep_from_vectorizer(s)) {
    const char *names[2] = {"llvm.loop.vectorize.enable", "llvm.loop.unroll.disable"};
    int values[2] = {0, -1};
    md = loop_id(cg, cg->opts->llvm_unroll ? 1 : 2, names, values);
  } else if (!cg->opts->llvm_unroll)
    /* the schedule left it rolled */
    md = loop_md(cg, "llvm.loop.unroll.disable", 0);
  return tll_emit_loop(cg, v, lo, hi, md, body_stmt, s->u.loop.body);
}

static int if_stmt(tll_cg *cg, const tsl_stmt *s) {
  LLVMValueRef c = tll_cond(cg, s->u.branch.cond, 1);
  if (!c)
    return cg->status;
  LLVMBasicBlockRef tb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "then");
  LLVMBasicBlockRef eb = s->u.branch.else_case
                             ? LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "else")
                             : NULL;
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "endif");
  LLVMBuildCondBr(cg->b, c, tb, eb ? eb : done);
  LLVMPositionBuilderAtEnd(cg->b, tb);
  if (tll_stmt(cg, s->u.branch.then_case))
    return cg->status;
  LLVMBuildBr(cg->b, done);
  if (eb) {
    LLVMPositionBuilderAtEnd(cg->b, eb);
    if (tll_stmt(cg, s->u.branch.else_case))
      return cg->status;
    LLVMBuildBr(cg->b, done);
  }
  LLVMPositionBuilderAtEnd(cg->b, done);
  return TSL_OK;
}

static int allocate(tll_cg *cg, const tsl_stmt *s) {
  const tsl_buffer *buf = s->u.alloc.buffer;
  tsl_dtype st = tsl_dtype_scalar(buf->dtype);
  LLVMTypeRef elem = tll_storage_type(cg, st);
  if (!elem) {
    char dn[32];
    return tll_fail(cg, TSL_EUNSUPPORTED, "allocation '%s' has dtype %s",
                    buf->name, tsl_dtype_str(buf->dtype, dn));
  }
  uint64_t esize = tsl_dtype_bytes(st);
  int64_t n = tsl_buffer_const_size(buf);
  LLVMValueRef p, heap = NULL;
  if (n >= 0 && (uint64_t)n * esize <= TLL_STACK_MAX) {
    p = tll_entry_alloca(cg, LLVMArrayType2(elem, (uint64_t)(n ? n : 1)), 64,
                         buf->name);
  } else {
    LLVMValueRef cnt = LLVMConstInt(cg->t_i64, 1, 0);
    for (uint32_t d = 0; d < buf->ndim; d++) {
      LLVMValueRef x = tll_expr_as(cg, buf->shape[d], TSL_INT64);
      if (!x)
        return cg->status;
      cnt = LLVMBuildMul(cg->b, cnt, x, "");
    }
    LLVMValueRef bytes = LLVMBuildMul(cg->b, cnt, LLVMConstInt(cg->t_i64, esize, 0), "");
    bytes = LLVMBuildAnd(cg->b,
                         LLVMBuildAdd(cg->b, bytes, LLVMConstInt(cg->t_i64, 127, 0), ""),
                         LLVMConstInt(cg->t_i64, ~(uint64_t)63, 0), "");
    LLVMValueRef args[2] = {LLVMConstInt(cg->t_i64, 64, 0), bytes};
    heap = tll_call_extern(cg, "aligned_alloc", cg->t_ptr, args, 2);
    if (!heap)
      return cg->status;
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "alloc.ok");
    LLVMBuildCondBr(cg->b, LLVMBuildIsNull(cg->b, heap, ""), tll_fail_block(cg), ok);
    LLVMPositionBuilderAtEnd(cg->b, ok);
    p = heap;
  }
  uint32_t mark = cg->binds.len;
  tll_bind_push(cg, buf, p, 1);
  int rc = tll_stmt(cg, s->u.alloc.body);
  cg->binds.len = mark;
  if (rc)
    return rc;
  if (heap)
    tll_call_extern(cg, "free", cg->t_void, &heap, 1);
  return cg->status;
}

int tll_stmt(tll_cg *cg, const tsl_stmt *s) {
  if (cg->status)
    return cg->status;
  if (!s)
    return tll_fail(cg, TSL_EINVALID, "missing statement");
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return for_loop(cg, s);
  case TSL_STMT_STORE:
    return tll_store(cg, s);
  case TSL_STMT_IF:
    return if_stmt(cg, s);
  case TSL_STMT_LET: {
    const tsl_var *v = s->u.let.var;
    LLVMValueRef x = tll_expr_as(cg, s->u.let.value, v->dtype);
    if (!x)
      return cg->status;
    uint32_t mark = cg->binds.len;
    tll_bind_push(cg, v, x, 0);
    int rc = tll_stmt(cg, s->u.let.body);
    cg->binds.len = mark;
    return rc;
  }
  case TSL_STMT_EVALUATE:
    tll_expr(cg, s->u.evaluate.value);
    return cg->status;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if (tll_stmt(cg, s->u.seq.stmts[i]))
        return cg->status;
    return TSL_OK;
  case TSL_STMT_ALLOCATE:
    return allocate(cg, s);
  case TSL_STMT_BLOCK_REALIZE:
    return tll_fail(cg, TSL_EINVALID,
                    "block '%s' is still in the program: the LLVM target "
                    "compiles lowered programs only (tsl_lower_func)",
                    s->u.realize.block ? s->u.realize.block->name : "?");
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return tll_fail(cg, TSL_EINVALID, "unknown statement kind %u",
                  (unsigned)s->kind);
}
