/*
 * targets/llvm/codegen_parallel.c — PARALLEL loops on tessel's thread pool
 * (thread_pool.h).
 *
 * A parallel loop becomes three pieces:
 *   parent:  stores every name in scope (values and buffer pointers) and
 *            the loop range into a closure on its stack, then calls
 *            tessel_parallel_launch(<sym>_parN, &closure, threads) and
 *            returns 1 if a worker reported a failure;
 *   <sym>_parN(ptr closure, i32 index, i32 count): runs on each thread of
 *            the team; takes its static chunk of the range and calls
 *   <sym>_parN_body(lo, hi, err, captures...): the loop over [lo, hi),
 *            buffer pointers passed as `noalias` parameters so that the
 *            alias facts of the parent survive outlining; `alwaysinline`,
 *            so it is optimized once, inside <sym>_parN.
 * Parallel loops nested inside run serially; threads = 1 never gets here.
 */
#include "llvm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct par_saved {
  LLVMValueRef fn, err_flag;
  LLVMBasicBlockRef entry, fail_bb, at;
  int32_t in_parallel;
  uint32_t n_binds;
  const char *sym;
} par_saved;

static void save(tll_cg *cg, par_saved *s) {
  s->fn = cg->fn;
  s->err_flag = cg->err_flag;
  s->entry = cg->entry;
  s->fail_bb = cg->fail_bb;
  s->at = LLVMGetInsertBlock(cg->b);
  s->in_parallel = cg->in_parallel;
  s->n_binds = cg->binds.len;
  s->sym = cg->sym;
}

static void restore(tll_cg *cg, const par_saved *s) {
  cg->fn = s->fn;
  cg->err_flag = s->err_flag;
  cg->entry = s->entry;
  cg->fail_bb = s->fail_bb;
  cg->in_parallel = s->in_parallel;
  cg->binds.len = s->n_binds;
  cg->sym = s->sym;
  LLVMPositionBuilderAtEnd(cg->b, s->at);
}

static void add_attr(tll_cg *cg, LLVMValueRef fn, unsigned idx,
                     const char *name) {
  unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(cg->ctx, k, 0));
}

static int body_stmt(tll_cg *cg, const void *ctx) {
  return tll_stmt(cg, (const tsl_stmt *)ctx);
}

/* <sym>_parN_body(lo, hi, err, captures...); `pt` holds those 3 + n_cap
 * parameter types (the closure's field types). */
static LLVMValueRef emit_body(tll_cg *cg, const tsl_stmt *s, const char *name,
                              LLVMTypeRef *pt, uint32_t n_cap,
                              const tll_bind *cap) {
  LLVMTypeRef ft = LLVMFunctionType(cg->t_void, pt, 3 + n_cap, 0);
  LLVMValueRef fn = LLVMAddFunction(cg->mod, name, ft);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  /* Inlined into the worker before the simplification passes run, so the
   * body is optimized once (the noalias parameters become scoped alias
   * metadata); a plain inline candidate was optimized twice. */
  add_attr(cg, fn, (unsigned)LLVMAttributeFunctionIndex, "alwaysinline");
  tll_fn_attrs(cg, fn);
  for (uint32_t i = 0; i < n_cap; i++)
    if (cap[i].is_buffer)
      add_attr(cg, fn, 4 + i, "noalias");
  cg->fn = fn;
  cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  cg->fail_bb = NULL;
  cg->err_flag = LLVMGetParam(fn, 2);
  cg->in_parallel = 1;
  LLVMPositionBuilderAtEnd(cg->b, cg->entry);
  for (uint32_t i = 0; i < n_cap && !cg->status; i++) {
    tll_bind_push(cg, cap[i].key, LLVMGetParam(fn, 3 + i), cap[i].is_buffer)->is_wide =
        cap[i].is_wide;
  }
  if (tll_emit_loop(cg, s->u.loop.loop_var, LLVMGetParam(fn, 0),
                    LLVMGetParam(fn, 1), NULL, body_stmt, s->u.loop.body))
    return NULL;
  LLVMBuildRetVoid(cg->b);
  return fn;
}

int tll_parallel_for(tll_cg *cg, const tsl_stmt *s) {
  const tsl_var *v = s->u.loop.loop_var;
  LLVMValueRef lo = tll_expr_as(cg, s->u.loop.min, v->dtype);
  LLVMValueRef ext = lo ? tll_expr_as(cg, s->u.loop.extent, v->dtype) : NULL;
  if (!ext)
    return cg->status;
  LLVMTypeRef ivt = LLVMTypeOf(lo);
  int64_t cext;
  int32_t threads = cg->opts->threads;
  if (tsl_expr_is_const_int(s->u.loop.extent, &cext) && cext < threads)
    threads = cext < 1 ? 1 : (int32_t)cext;

  /* captures: every name in scope, in order */
  uint32_t n_cap = cg->binds.len;
  tll_bind *cap = malloc((n_cap ? n_cap : 1) * sizeof *cap);
  LLVMTypeRef *ft = malloc((3 + n_cap) * sizeof *ft);
  if (!cap || !ft) {
    free(cap);
    free(ft);
    return tll_fail(cg, TSL_ENOMEM, "out of memory");
  }
  for (uint32_t i = 0; i < n_cap; i++)
    cap[i] = TSL_VEC_AT(&cg->binds, tll_bind, i);
  ft[0] = ft[1] = ivt;
  ft[2] = cg->t_ptr;
  for (uint32_t i = 0; i < n_cap; i++)
    ft[3 + i] = LLVMTypeOf(cap[i].value);
  LLVMTypeRef st = LLVMStructTypeInContext(cg->ctx, ft, 3 + n_cap, 0);

  char name[512];
  unsigned id = cg->n_workers++;
  snprintf(name, sizeof name, "%s_par%u", cg->sym, id);

  /* parent side */
  LLVMValueRef clo = tll_entry_alloca(cg, st, 16, "closure");
  LLVMValueRef err = tll_entry_alloca(cg, cg->t_i32, 4, "par.err");
  LLVMBuildStore(cg->b, LLVMConstInt(cg->t_i32, 0, 0), err);
  LLVMValueRef fields[3] = {lo, ext, err};
  for (uint32_t i = 0; i < 3 + n_cap; i++) {
    LLVMValueRef p = LLVMBuildStructGEP2(cg->b, st, clo, i, "");
    LLVMBuildStore(cg->b, i < 3 ? fields[i] : cap[i - 3].value, p);
  }
  LLVMTypeRef wparams[3] = {cg->t_ptr, cg->t_i32, cg->t_i32};
  LLVMTypeRef wt = LLVMFunctionType(cg->t_void, wparams, 3, 0);
  LLVMValueRef worker = LLVMAddFunction(cg->mod, name, wt);
  LLVMSetLinkage(worker, LLVMInternalLinkage);
  tll_fn_attrs(cg, worker);
  LLVMValueRef largs[3] = {worker, clo, LLVMConstInt(cg->t_i32, (unsigned)threads, 0)};
  if (!tll_call_extern(cg, TLL_PARALLEL_LAUNCH, cg->t_void, largs, 3)) {
    free(cap);
    free(ft);
    return cg->status;
  }
  LLVMValueRef failed = LLVMBuildICmp(
      cg->b, LLVMIntNE, LLVMBuildLoad2(cg->b, cg->t_i32, err, ""),
      LLVMConstInt(cg->t_i32, 0, 0), "");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "par.done");
  LLVMBuildCondBr(cg->b, failed, tll_fail_block(cg), cont);
  LLVMPositionBuilderAtEnd(cg->b, cont);

  par_saved saved;
  save(cg, &saved);
  char bname[530];
  snprintf(bname, sizeof bname, "%s_body", name);
  LLVMValueRef body = emit_body(cg, s, bname, ft, n_cap, cap);
  free(ft);
  restore(cg, &saved);
  if (!body) {
    free(cap);
    return cg->status;
  }

  /* worker: load the closure, take this thread's chunk, call the body */
  save(cg, &saved);
  cg->fn = worker;
  cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, worker, "entry");
  LLVMPositionBuilderAtEnd(cg->b, cg->entry);
  LLVMValueRef data = LLVMGetParam(worker, 0);
  uint32_t n_args = 3 + n_cap;
  LLVMValueRef *args = malloc(n_args * sizeof *args);
  if (!args) {
    free(cap);
    restore(cg, &saved);
    return tll_fail(cg, TSL_ENOMEM, "out of memory");
  }
  for (uint32_t i = 0; i < n_args; i++) {
    LLVMValueRef p = LLVMBuildStructGEP2(cg->b, st, data, i, "");
    args[i] = LLVMBuildLoad2(cg->b, LLVMStructGetTypeAtIndex(st, i), p, "");
  }
  /* The chunk in 64 bits: in a narrow loop type, extent + threads - 1 or
   * a later thread's begin would wrap (a uint8 loop of 255 at 2 threads). */
  int uns = v->dtype.code == TSL_DT_UINT;
  LLVMTypeRef t64 = cg->t_i64;
  LLVMValueRef lo64 = LLVMBuildIntCast2(cg->b, args[0], t64, !uns, "");
  LLVMValueRef ext64 = LLVMBuildIntCast2(cg->b, args[1], t64, !uns, "");
  LLVMValueRef tid = LLVMBuildIntCast2(cg->b, LLVMGetParam(worker, 1), t64, 0, "");
  LLVMValueRef nt = LLVMBuildIntCast2(cg->b, LLVMGetParam(worker, 2), t64, 0, "");
  LLVMValueRef one = LLVMConstInt(t64, 1, 0);
  LLVMValueRef chunk = LLVMBuildAdd(cg->b, ext64, LLVMBuildSub(cg->b, nt, one, ""), "");
  chunk = uns ? LLVMBuildUDiv(cg->b, chunk, nt, "") : LLVMBuildSDiv(cg->b, chunk, nt, "");
  LLVMValueRef begin = LLVMBuildAdd(cg->b, lo64, LLVMBuildMul(cg->b, tid, chunk, ""), "");
  LLVMValueRef stop = LLVMBuildAdd(cg->b, lo64, ext64, "");
  LLVMIntPredicate lt = uns ? LLVMIntULT : LLVMIntSLT;
  begin = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, lt, begin, stop, ""), begin, stop, "");
  LLVMValueRef end = LLVMBuildAdd(cg->b, begin, chunk, "");
  end = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, lt, end, stop, ""), end, stop, "");
  args[0] = LLVMBuildTrunc(cg->b, begin, ivt, "");
  args[1] = LLVMBuildTrunc(cg->b, end, ivt, "");
  LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(body), body, args, n_args, "");
  LLVMBuildRetVoid(cg->b);
  free(args);
  free(cap);
  restore(cg, &saved);
  return cg->status;
}

void tll_add_pool_prepare(LLVMModuleRef mod, int32_t threads) {
  LLVMContextRef ctx = LLVMGetModuleContext(mod);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), vt = LLVMVoidTypeInContext(ctx);
  LLVMTypeRef prep_t = LLVMFunctionType(vt, &i32, 1, 0);
  LLVMValueRef prep = LLVMGetNamedFunction(mod, TLL_PARALLEL_PREPARE);
  if (!prep)
    prep = LLVMAddFunction(mod, TLL_PARALLEL_PREPARE, prep_t);
  LLVMValueRef fn = LLVMAddFunction(mod, "tessel_pool_start", LLVMFunctionType(vt, NULL, 0, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMValueRef arg = LLVMConstInt(i32, (unsigned)threads, 0);
  LLVMBuildCall2(b, prep_t, prep, &arg, 1, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  tll_add_constructor(mod, fn);
}
