/*
 * targets/llvm/codegen_func.c — one lowered module to one LLVM module.
 *
 * Per lowered function two external symbols:
 *   i32 <prefix>_<name>(ptr noalias A, ..., <scalar> s, ..., i64 n, ...)
 *       the natural signature: one pointer per buffer parameter, scalar
 *       parameters by value with the C types of tsl_export_header (bool as
 *       uint8_t, float16 / bfloat16 as their uint16_t bits, small ints
 *       sign/zero-extended as C passes them), then the size variables as
 *       i64; returns 0, or 1 when an allocation failed;
 *   i32 <prefix>_<name>_packed(ptr args)
 *       target.h's packed convention: args[k] points to the k-th argument
 *       (buffer data pointer, int64_t for int/bool scalars and sizes,
 *       double for float scalars).
 * Every function carries target-cpu, target-features, prefer-vector-width
 * (when the option is set), nounwind and no-builtins.
 */
#include "llvm_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void enum_attr(tll_cg *cg, LLVMValueRef fn, unsigned idx,
                      const char *name) {
  unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(cg->ctx, k, 0));
}

static void str_attr(tll_cg *cg, LLVMValueRef fn, const char *k,
                     const char *v) {
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cg->ctx, k, strlen(k), v,
                                                    strlen(v)));
}

void tll_fn_attrs(tll_cg *cg, LLVMValueRef fn) {
  str_attr(cg, fn, "target-cpu", cg->opts->cpu);
  if (cg->opts->features[0])
    str_attr(cg, fn, "target-features", cg->opts->features);
  if (cg->opts->vector_width) {
    char w[16];
    snprintf(w, sizeof w, "%d", (int)cg->opts->vector_width);
    str_attr(cg, fn, "prefer-vector-width", w);
  }
  enum_attr(cg, fn, LLVMAttributeFunctionIndex, "nounwind");
  /* no memset/memcpy idioms: zero-init loops of tiles stay vector stores
   * (instead of many small memsets that the backend expands into one huge
   * block whose scheduling takes seconds) */
  str_attr(cg, fn, "no-builtins", "");
}

static void types(tll_cg *cg) {
  LLVMContextRef c = cg->ctx;
  cg->t_void = LLVMVoidTypeInContext(c);
  cg->t_i1 = LLVMInt1TypeInContext(c);
  cg->t_i8 = LLVMInt8TypeInContext(c);
  cg->t_i16 = LLVMInt16TypeInContext(c);
  cg->t_i32 = LLVMInt32TypeInContext(c);
  cg->t_i64 = LLVMInt64TypeInContext(c);
  cg->t_f16 = LLVMHalfTypeInContext(c);
  cg->t_f32 = LLVMFloatTypeInContext(c);
  cg->t_f64 = LLVMDoubleTypeInContext(c);
  cg->t_ptr = LLVMPointerTypeInContext(c, 0);
  cg->md_loop = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
}

static int valid_symbol(const char *s) {
  if (!s || !*s || (*s >= '0' && *s <= '9'))
    return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

/* C ABI of scalar parameters (as tsl_export_header declares them): bool as
 * uint8_t, float16 / bfloat16 as their uint16_t bits, others as themselves. */
static LLVMTypeRef param_type(tll_cg *cg, const tsl_param *p) {
  if (p->buffer)
    return cg->t_ptr;
  tsl_dtype t = p->var->dtype;
  if (t.lanes != 1)
    return NULL;
  if (tsl_dtype_is_bool(t))
    return cg->t_i8;
  if (tsl_dtype_is_float(t) && t.bits == 16)
    return cg->t_i16;
  return tll_scalar_type(cg, t);
}

/* ABI parameter <-> value of dtype t: the memory representation, except
 * float16, which crosses as its uint16_t bits. */
static LLVMValueRef from_abi(tll_cg *cg, LLVMValueRef v, tsl_dtype t) {
  if (t.code == TSL_DT_FLOAT && t.bits == 16)
    return LLVMBuildBitCast(cg->b, v, cg->t_f16, "");
  return tll_from_storage(cg, v, t);
}

static LLVMValueRef to_abi(tll_cg *cg, LLVMValueRef v, tsl_dtype t) {
  if (t.code == TSL_DT_FLOAT && t.bits == 16)
    return LLVMBuildBitCast(cg->b, v, cg->t_i16, "");
  return tll_to_storage(cg, v, t);
}

/* Read-only bytes (lower.h, 1.6) as the constant "<prefix>_<name>". */
static void data(tll_cg *cg, const tsl_lowered_data *d, const char *prefix) {
  if (!valid_symbol(d->name) || (d->nbytes && !d->bytes)) {
    tll_fail(cg, TSL_EINVALID, "data '%s' is not a C identifier with bytes", d->name);
    return;
  }
  char sym[512];
  snprintf(sym, sizeof sym, "%s_%s", prefix, d->name);
  if (LLVMGetNamedGlobal(cg->mod, sym) || LLVMGetNamedFunction(cg->mod, sym)) {
    tll_fail(cg, TSL_EINVALID, "two symbols are named '%s'", sym);
    return;
  }
  LLVMValueRef init = LLVMConstStringInContext2(cg->ctx, (const char *)d->bytes,
                                                (size_t)d->nbytes, 1);
  LLVMValueRef g = LLVMAddGlobal(cg->mod, LLVMTypeOf(init), sym);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetAlignment(g, 64);
}

static int natural(tll_cg *cg, const tsl_lowered_func *lf, const char *sym,
                   LLVMValueRef *out) {
  uint32_t np = lf->n_params, n = np + lf->n_size_vars;
  LLVMTypeRef *pt = malloc((n ? n : 1) * sizeof *pt);
  if (!pt)
    return tll_fail(cg, TSL_ENOMEM, "out of memory");
  for (uint32_t k = 0; k < np; k++) {
    pt[k] = param_type(cg, &lf->params[k]);
    if (!pt[k]) {
      char dn[32];
      free(pt);
      return tll_fail(cg, TSL_EUNSUPPORTED,
                      "function '%s': parameter '%s' has dtype %s, which "
                      "cannot be passed",
                      lf->name, lf->params[k].var->name,
                      tsl_dtype_str(lf->params[k].var->dtype, dn));
    }
  }
  for (uint32_t k = np; k < n; k++)
    pt[k] = cg->t_i64;
  LLVMTypeRef ft = LLVMFunctionType(cg->t_i32, pt, n, 0);
  free(pt);
  /* a function called (call_extern) before its definition was declared */
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, sym);
  if (fn && (LLVMCountBasicBlocks(fn) || LLVMGlobalGetValueType(fn) != ft))
    return tll_fail(cg, TSL_EINVALID,
                    LLVMCountBasicBlocks(fn) ? "two functions are named '%s'"
                                             : "'%s' is called with another signature than "
                                               "its definition's",
                    sym);
  if (!fn)
    fn = LLVMAddFunction(cg->mod, sym, ft);
  tll_fn_attrs(cg, fn);
  /* the packed wrapper calls it: inlining would compile the body twice */
  enum_attr(cg, fn, LLVMAttributeFunctionIndex, "noinline");
  cg->fn = fn;
  cg->sym = sym;
  cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  cg->fail_bb = NULL;
  cg->err_flag = NULL;
  cg->in_parallel = 0;
  cg->binds.len = 0;
  LLVMPositionBuilderAtEnd(cg->b, cg->entry);
  for (uint32_t k = 0; k < np; k++) {
    const tsl_param *p = &lf->params[k];
    LLVMValueRef v = LLVMGetParam(fn, k);
    LLVMSetValueName2(v, p->var->name, strlen(p->var->name));
    if (p->buffer) {
      enum_attr(cg, fn, k + 1, "noalias");
      tll_bind_push(cg, p->buffer, v, 1);
      tll_bind_push(cg, p->var, v, 0);
      continue;
    }
    tsl_dtype t = p->var->dtype;
    if (tsl_dtype_is_bool(t) || (t.code == TSL_DT_UINT && t.bits < 32) ||
        (tsl_dtype_is_float(t) && t.bits == 16))
      enum_attr(cg, fn, k + 1, "zeroext");
    else if (t.code == TSL_DT_INT && t.bits < 32)
      enum_attr(cg, fn, k + 1, "signext");
    tll_bind_push(cg, p->var, from_abi(cg, v, t), 0);
  }
  for (uint32_t k = 0; k < lf->n_size_vars; k++) {
    const tsl_var *sv = lf->size_vars[k];
    LLVMValueRef v = LLVMGetParam(fn, np + k);
    LLVMSetValueName2(v, sv->name, strlen(sv->name));
    v = tll_convert(cg, v, TSL_INT64, sv->dtype);
    if (!v)
      return cg->status;
    tll_bind_push(cg, sv, v, 0);
  }
  if (tll_stmt(cg, lf->body))
    return cg->status;
  LLVMBuildRet(cg->b, LLVMConstInt(cg->t_i32, 0, 0));
  *out = fn;
  return TSL_OK;
}

static int packed(tll_cg *cg, const tsl_lowered_func *lf, LLVMValueRef nat,
                  const char *sym) {
  LLVMTypeRef ft = LLVMFunctionType(cg->t_i32, &cg->t_ptr, 1, 0);
  LLVMValueRef fn = LLVMAddFunction(cg->mod, sym, ft);
  tll_fn_attrs(cg, fn);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  LLVMPositionBuilderAtEnd(cg->b, bb);
  uint32_t np = lf->n_params, n = np + lf->n_size_vars;
  LLVMValueRef *args = malloc((n ? n : 1) * sizeof *args);
  if (!args)
    return tll_fail(cg, TSL_ENOMEM, "out of memory");
  LLVMValueRef argv = LLVMGetParam(fn, 0);
  for (uint32_t k = 0; k < n; k++) {
    LLVMValueRef idx = LLVMConstInt(cg->t_i64, k, 0);
    LLVMValueRef slot = LLVMBuildInBoundsGEP2(cg->b, cg->t_ptr, argv, &idx, 1, "");
    LLVMValueRef p = LLVMBuildLoad2(cg->b, cg->t_ptr, slot, "");
    if (k < np && lf->params[k].buffer) {
      args[k] = p;
      continue;
    }
    tsl_dtype t = k < np ? lf->params[k].var->dtype : TSL_INT64;
    int fl = tsl_dtype_is_float(t);
    LLVMValueRef v = LLVMBuildLoad2(cg->b, fl ? cg->t_f64 : cg->t_i64, p, "");
    args[k] = tll_convert(cg, v, fl ? TSL_FLOAT64 : TSL_INT64, t);
    if (!args[k]) {
      free(args);
      return cg->status;
    }
    if (k < np)
      args[k] = to_abi(cg, args[k], t);
  }
  LLVMValueRef r = LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(nat), nat,
                                  args, n, "");
  LLVMBuildRet(cg->b, r);
  free(args);
  return TSL_OK;
}

int tll_codegen_module(LLVMContextRef ctx, const tll_opts *o,
                       const tsl_lowered_module *m, const char *prefix,
                       LLVMModuleRef *out, tsl_diag *diag) {
  *out = NULL;
  if (!valid_symbol(prefix))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "llvm target: symbol prefix '%s' is not a C "
                        "identifier ([A-Za-z_][A-Za-z0-9_]*)",
                        prefix ? prefix : "(null)");
  tll_cg cg;
  memset(&cg, 0, sizeof cg);
  tsl_vec_init(&cg.binds, sizeof(tll_bind), NULL);
  cg.opts = o;
  cg.lm = m;
  cg.prefix = prefix;
  cg.ctx = ctx;
  cg.diag = diag;
  types(&cg);
  cg.mod = LLVMModuleCreateWithNameInContext(prefix, ctx);
  cg.b = LLVMCreateBuilderInContext(ctx);
  for (uint32_t i = 0; i < m->n_funcs && !cg.status; i++) {
    const tsl_lowered_func *lf = m->funcs[i];
    if (!valid_symbol(lf->name)) {
      tll_fail(&cg, TSL_EINVALID, "function name '%s' is not a C identifier",
               lf->name);
      break;
    }
    size_t len = strlen(prefix) + strlen(lf->name) + 16;
    char *sym = malloc(len), *psym = malloc(len);
    if (!sym || !psym) {
      free(sym);
      free(psym);
      tll_fail(&cg, TSL_ENOMEM, "out of memory");
      break;
    }
    snprintf(sym, len, "%s_%s", prefix, lf->name);
    snprintf(psym, len, "%s_%s_packed", prefix, lf->name);
    LLVMValueRef nat = NULL;
    cg.n_workers = 0;
    if (!natural(&cg, lf, sym, &nat))
      packed(&cg, lf, nat, psym);
    cg.sym = NULL;
    free(sym);
    free(psym);
  }
  uint32_t n_data = m->struct_size > offsetof(tsl_lowered_module, data) ? m->n_data : 0;
  for (uint32_t i = 0; i < n_data && !cg.status; i++)
    data(&cg, &m->data[i], prefix);
  LLVMDisposeBuilder(cg.b);
  tsl_vec_free(&cg.binds);
  if (cg.status) {
    LLVMDisposeModule(cg.mod);
    return cg.status;
  }
  *out = cg.mod;
  return TSL_OK;
}
