/*
 * targets/cuda/codegen_stmt.c — the kernels as CUDA C, and the program
 * they come from (barriers inserted, kernels found).
 *
 * A thread-bound loop is its hardware index (`blockIdx.x` ...) plus the
 * loop's minimum, guarded when the loop is shorter than its launch extent;
 * a vthread loop is an unrolled serial loop of each thread. `shared*`
 * buffers are static `__shared__` arrays, `local` ones arrays of each
 * thread (registers where the compiler can), both of a constant size;
 * `shared.dyn` ones pointers into the kernel's dynamic shared memory;
 * `wmma.*` ones arrays of tensor-core fragments (codegen_wmma.c).
 */
#include "cuda_internal.h"

#include <stdlib.h>
#include <string.h>

#include "tessel/analysis.h"

static const char *const hw_index[TCU_N_DIMS] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                                 "threadIdx.x", "threadIdx.y", "threadIdx.z"};

static void thread_loop(tcu_emitter *em, const tsl_stmt *s, int d) {
  const tsl_var *v = s->u.loop.loop_var;
  const tsl_expr *launch = em->kernel->extent[d];
  int guard = !tsl_expr_equal(s->u.loop.extent, launch);
  tcu_out(em, "{\nconst %t %v = (%t)%s + %e;\n", v->dtype, v, v->dtype, hw_index[d],
          s->u.loop.min);
  if (!guard)
    return tcu_out(em, "%S}\n", s->u.loop.body);
  em->guard++;
  tcu_out(em, "if (%v - %e < %e) {\n%S}\n}\n", v, s->u.loop.min, s->u.loop.extent,
          s->u.loop.body);
  em->guard--;
}

/* e is a multiple of n: sums and differences of multiples, a product
 * with a multiple. Sound, not complete (lowered indices are such sums). */
static int multiple_of(const tsl_expr *e, int64_t n) {
  int64_t v;
  if (tsl_expr_is_const_int(e, &v))
    return v % n == 0;
  switch (e->kind) {
  case TSL_EXPR_ADD: case TSL_EXPR_SUB:
    return multiple_of(e->args[0], n) && multiple_of(e->args[1], n);
  case TSL_EXPR_MUL:
    return multiple_of(e->args[0], n) || multiple_of(e->args[1], n);
  }
  return 0;
}

/* The unsigned type of `bytes` bytes (4, 8, 16), or NULL. */
static const char *raw_type(int64_t bytes) {
  return bytes == 4 ? "unsigned int" : bytes == 8 ? "uint2" : bytes == 16 ? "uint4" : NULL;
}

/* A shared or local array declared 16-byte aligned: those whose size is a
 * multiple of 16 bytes (aligning others would pad between arrays). */
static int aligned_array(const tsl_buffer *b) {
  int64_t n;
  return tsl_expr_is_const_int(b->shape[0], &n) && n * b->dtype.bits % 128 == 0;
}

/* Device memory (cuMemAlloc aligns to 256 bytes) or an aligned array. */
static int aligned_16(const tsl_buffer *b) {
  return !b->scope || !strcmp(b->scope, "global") || !strcmp(b->scope, "shared.dyn") ||
         aligned_array(b);
}

/* A shared.dyn buffer: a pointer into the kernel's dynamic shared memory. */
static void dyn_buffer(tcu_emitter *em, const tsl_stmt *s) {
  const tsl_buffer *b = s->u.alloc.buffer;
  const tcu_dyn_slot *slots = em->kernel->dyn_slots.data;
  for (uint32_t i = 0; i < em->kernel->dyn_slots.len; i++)
    if (slots[i].buffer == b)
      return tcu_out(em, "{\n%t *%b = (%t *)(tsl_dyn_smem + %d);\n%S}\n", b->dtype, b,
                     b->dtype, (int)slots[i].offset, s->u.alloc.body);
  tcu_fail(em, "shared.dyn buffer outside its kernel's layout,", b->name);
}

/* A vector copy B[ramp(b, 1, L)] = A[ramp(a, 1, L)] whose both ends are
 * aligned to its size (4, 8 or 16 bytes: float4, half2, ...) as one
 * access of each: b and a multiples of L, both buffers 16-byte aligned. */
static int vector_copy(tcu_emitter *em, const tsl_stmt *s) {
  const tsl_expr *dst = s->u.store.indices[0], *v = s->u.store.value;
  const int lanes = v->dtype.lanes;
  const char *raw = raw_type((int64_t)lanes * v->dtype.bits / 8);
  if (lanes < 2 || !raw || v->kind != TSL_EXPR_LOAD || tcu_is_fragment(v->u.buffer) ||
      v->u.buffer->dtype.bits != s->u.store.buffer->dtype.bits || !aligned_16(v->u.buffer) ||
      !aligned_16(s->u.store.buffer))
    return 0;
  const tsl_expr *src = v->args[0];
  for (int i = 0; i < 2; i++) {
    const tsl_expr *r = i ? src : dst;
    int64_t stride;
    if (r->kind != TSL_EXPR_RAMP || !tsl_expr_is_const_int(r->args[1], &stride) || stride != 1 ||
        !multiple_of(r->args[0], lanes))
      return 0;
  }
  tcu_out(em, "*(%s *)(%b + %e) = *(const %s *)(%b + %e);\n", raw, s->u.store.buffer,
          dst->args[0], raw, v->u.buffer, src->args[0]);
  return 1;
}

static void device_stmt(tcu_emitter *em, const tsl_stmt *s) {
  int64_t n;
  const tsl_buffer *b = s->u.alloc.buffer;
  switch (s->kind) {
  case TSL_STMT_FOR: {
    int d = s->u.loop.for_kind == TSL_FOR_THREAD_BINDING ? tcu_thread_dim(s->u.loop.thread_tag)
                                                          : -1;
    if (d >= 0)
      return thread_loop(em, s, d);
    return (void)tcu_stmt_common(em, s);
  }
  case TSL_STMT_STORE:
    if (tcu_is_fragment(s->u.store.buffer))
      return tcu_fail(em, "element access to a tensor-core fragment (tensorize it), buffer",
                      s->u.store.buffer->name);
    if (vector_copy(em, s))
      return;
    em->lane = s->u.store.value->dtype.lanes > 1;
    if (em->lane)
      tcu_out(em, "#pragma unroll\nfor (int l_ = 0; l_ < %d; l_++) ",
              (int)s->u.store.value->dtype.lanes);
    tcu_out(em, "%b[%e] = %e;\n", s->u.store.buffer, s->u.store.indices[0], s->u.store.value);
    em->lane = 0;
    return;
  case TSL_STMT_IF: case TSL_STMT_LET: case TSL_STMT_SEQ:
    return (void)tcu_stmt_common(em, s);
  case TSL_STMT_EVALUATE:
    if (tcu_wmma_stmt(em, s->u.evaluate.value)) {
      em->wmma = 1;
      return;
    }
    if (tcu_mma_stmt(em, s->u.evaluate.value)) {
      em->mma = 1;
      return;
    }
    if (s->u.evaluate.value->kind != TSL_EXPR_BUILTIN ||
        s->u.evaluate.value->intrin != TSL_BUILTIN_TVM_STORAGE_SYNC)
      return tcu_fail(em, "evaluated expression", tsl_expr_kind_info_of(
                          s->u.evaluate.value->kind)->kind_name);
    if (em->guard)
      return tcu_fail(em, "barrier under a thread loop shorter than its launch extent, loop",
                      "(give the loops bound to one index one extent)");
    return tcu_out(em, "__syncthreads();\n");
  case TSL_STMT_ALLOCATE:
    if (!tsl_expr_is_const_int(b->shape[0], &n))
      return tcu_fail(em, "allocation of a symbolic size, buffer", b->name);
    if (tcu_is_fragment(b))
      return tcu_wmma_alloc(em, s);
    if (!strcmp(b->scope, "shared.dyn"))
      return dyn_buffer(em, s);
    if (strncmp(b->scope, "shared", 6) && strcmp(b->scope, "local"))
      return tcu_fail(em, "storage scope of buffer", b->name);
    return tcu_out(em, "{\n%s%s%t %b[%d];\n%S}\n", b->scope[0] == 's' ? "__shared__ " : "",
                   aligned_array(b) ? "__align__(16) " : "", b->dtype, b, (int)(n > 0 ? n : 1),
                   s->u.alloc.body);
  }
}

static void kernel(tcu_emitter *em, const tcu_kernel *k) {
  int64_t threads = 1, e;
  for (int d = TCU_THREAD_X; d < TCU_N_DIMS; d++)
    threads = !k->extent[d] ? threads
              : tsl_expr_is_const_int(k->extent[d], &e) && threads > 0 ? threads * e : -1;
  em->kernel = k;
  tcu_out(em, "extern \"C\" __global__ void ");
  if (threads > 0 && threads <= 1024)
    tcu_out(em, "__launch_bounds__(%d) ", (int)threads);
  tcu_out(em, "%s(", k->name);
  const tsl_buffer *const *bufs = k->buffers.data;
  const tsl_var *const *vars = k->vars.data;
  for (uint32_t i = 0; i < k->buffers.len; i++)
    tcu_out(em, "%s%t *__restrict__ %b", i ? ", " : "", bufs[i]->dtype, bufs[i]);
  for (uint32_t i = 0; i < k->vars.len; i++)
    tcu_out(em, "%s%t %v", i || k->buffers.len ? ", " : "", vars[i]->dtype, vars[i]);
  tcu_out(em, ") {\n");
  if (k->dyn_smem) /* the launch gives its size */
    tcu_out(em, "TSL_DYN_SMEM(tsl_dyn_smem, %d);\n", (int)k->dyn_smem);
  tcu_out(em, "%S}\n\n", k->root);
  em->kernel = NULL;
}

int tcu_emit_device(const tcu_program *p, tsl_strbuf *out, tsl_diag *diag) {
  tsl_strbuf kernels;
  tsl_strbuf_init(&kernels);
  tcu_emitter em = {.sb = &kernels, .diag = diag, .stmt = device_stmt};
  for (uint32_t i = 0; i < p->n_funcs && !em.rc; i++) {
    em.f = p->funcs[i];
    for (uint32_t k = 0; k < p->kernels[i].len && !em.rc; k++)
      kernel(&em, &TSL_VEC_DATA(&p->kernels[i], tcu_kernel)[k]);
  }
  tsl_strbuf_append(out, em.wmma ? "#include <mma.h>\n" : "");
  tsl_strbuf_append(out, tcu_prelude_device);
  tsl_strbuf_append(out, em.mma ? tcu_prelude_mma : "");
  tsl_strbuf_append(out, "\n");
  tsl_strbuf_append(out, kernels.data ? kernels.data : "");
  tsl_strbuf_free(&kernels);
  return em.rc;
}

int tcu_emit_emu_wrappers(const tcu_program *p, tsl_strbuf *out, tsl_diag *diag) {
  tcu_emitter em = {.sb = out, .diag = diag, .stmt = device_stmt};
  for (uint32_t i = 0; i < p->n_funcs && !em.rc; i++)
    for (uint32_t j = 0; j < p->kernels[i].len; j++) {
      const tcu_kernel *k = &TSL_VEC_DATA(&p->kernels[i], tcu_kernel)[j];
      const tsl_buffer *const *bufs = k->buffers.data;
      const tsl_var *const *vars = k->vars.data;
      tcu_out(&em, "extern \"C\" void %s_emu(void **a) {\n%s(", k->name, k->name);
      for (uint32_t b = 0; b < k->buffers.len; b++)
        tcu_out(&em, "%s*(%t **)a[%d]", b ? ", " : "", bufs[b]->dtype, (int)b);
      for (uint32_t v = 0; v < k->vars.len; v++)
        tcu_out(&em, "%s*(%t *)a[%d]", v || k->buffers.len ? ", " : "", vars[v]->dtype,
                (int)(k->buffers.len + v));
      tcu_out(&em, ");\n}\n");
    }
  return em.rc;
}

int tcu_program_make(tsl_arena *arena, const tsl_lowered_module *m, const char *prefix,
                     tcu_program *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  out->prefix = prefix;
  out->funcs = TSL_NEW_ARRAY(arena, const tsl_lowered_func *, m->n_funcs + 1);
  out->kernels = calloc(m->n_funcs + 1, sizeof(tsl_vec));
  if (!out->funcs || !out->kernels)
    return tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    const char *off = getenv("TESSEL_CUDA_NO_BARRIERS"); /* tests: what barriers are for */
    const tsl_lowered_func *f = NULL;
    int rc = tcu_lower_allreduce(arena, m->funcs[i], &f, diag);
    rc = rc ? rc : tcu_lower_warp(arena, f, &f, diag);
    if (!rc)
      rc = off && !strcmp(off, "1") ? (out->funcs[i] = f, TSL_OK)
                                    : tcu_insert_syncs(arena, f, &out->funcs[i], diag);
    rc = rc ? rc : tcu_find_kernels(arena, out->funcs[i], prefix, &out->kernels[i], diag);
    if (rc) {
      tcu_program_free(out);
      return rc;
    }
    out->n_funcs = i + 1;
  }
  return TSL_OK;
}

void tcu_program_free(tcu_program *p) {
  for (uint32_t i = 0; p->kernels && i < p->n_funcs; i++)
    tcu_kernels_free(&p->kernels[i]);
  free(p->kernels);
  p->kernels = NULL;
  p->n_funcs = 0;
}
