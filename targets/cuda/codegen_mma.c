/*
 * targets/cuda/codegen_mma.c — warp-level tensor cores in kernel code: the
 * builtins of TVM's mma intrinsics (plugins/cuda-mma) on the lanes'
 * registers that warp.c made of "warp" buffers.
 *
 *   T.ptx_ldmatrix(t, trans, num, ".b16", local, off, smem_ptr, smem_off)
 *       tsl_ldmatrix<num, trans>(local + off, smem_ptr + smem_off)
 *   T.ptx_mma(t, "m16n8k16", "row", "col", A_t, B_t, C_t, A, a, B, b, C, c, False)
 *       tsl_mma_m16n8k16(C + c, A + a, B + b)       D = A B + C in place
 *   T.mma_fill(t, n, local, off)      the n elements from off set to zero
 *   T.mma_store(t, 16, 16, dst_ptr, local, off, stride)
 *       tsl_mma_store_16x16(dst_ptr, local + off, stride)
 *
 * The helpers are PTX inline assembly (ldmatrix.sync.aligned.m8n8,
 * mma.sync.aligned.m16n8k16 with f16 or bf16 inputs, f32 or f16
 * accumulators); the store follows the accumulator's register layout.
 */
#include "cuda_internal.h"

#include <string.h>

static int str_is(const tsl_expr *e, const char *s) {
  return e->kind == TSL_EXPR_STR_IMM && !strcmp(e->u.str_value, s);
}

static int const_in(const tsl_expr *e, int64_t lo, int64_t hi, int64_t *v) {
  return tsl_expr_is_const_int(e, v) && *v >= lo && *v <= hi;
}

/* The buffer of a local-register operand (warp.c made it "local"). */
static const tsl_buffer *regs(const tsl_expr *e) {
  return e->kind == TSL_EXPR_BUFFER_DATA && e->u.buffer->scope &&
                 !strcmp(e->u.buffer->scope, "local")
             ? e->u.buffer
             : NULL;
}

/* PTX's name of an element type, as T.ptx_mma spells it. */
static int ptx_type_is(const tsl_buffer *b, const tsl_expr *name) {
  const tsl_dtype t = b->dtype;
  if (t.code == TSL_DT_FLOAT && t.bits == 16)
    return str_is(name, "fp16");
  if (t.code == TSL_DT_BFLOAT && t.bits == 16)
    return str_is(name, "bf16");
  return t.code == TSL_DT_FLOAT && t.bits == 32 && str_is(name, "fp32");
}

static int ldmatrix(tcu_emitter *em, const tsl_expr *e) {
  int64_t num;
  const tsl_buffer *r = regs(e->args[3]);
  const int trans = e->args[0]->kind == TSL_EXPR_INT_IMM ? e->args[0]->u.int_value != 0 : -1;
  if (trans < 0 || !(const_in(e->args[1], 1, 4, &num) && num != 3) || !str_is(e->args[2], ".b16") ||
      !r || r->dtype.bits != 16) {
    tcu_fail(em, "T.ptx_ldmatrix form (trans a constant, num 1, 2 or 4, type \".b16\", "
             "16-bit elements into a warp buffer),", "ptx_ldmatrix");
    return 1;
  }
  tcu_out(em, "tsl_ldmatrix<%d, %s>(%e + %e, %e + %e);\n", (int)num, trans ? "true" : "false",
          e->args[3], e->args[4], e->args[5], e->args[6]);
  return 1;
}

static int mma(tcu_emitter *em, const tsl_expr *e) {
  const tsl_buffer *a = regs(e->args[6]), *b = regs(e->args[8]), *c = regs(e->args[10]);
  int f16_in = a && b && a->dtype.code == b->dtype.code && a->dtype.bits == 16 &&
               b->dtype.bits == 16;
  if (!str_is(e->args[0], "m16n8k16") || !str_is(e->args[1], "row") ||
      !str_is(e->args[2], "col") || !f16_in || !c || !ptx_type_is(a, e->args[3]) ||
      !ptx_type_is(b, e->args[4]) || !ptx_type_is(c, e->args[5]) ||
      (a->dtype.code == TSL_DT_BFLOAT && c->dtype.bits != 32) ||
      e->args[12]->kind != TSL_EXPR_INT_IMM || e->args[12]->u.int_value != 0) {
    tcu_fail(em, "T.ptx_mma form (shape \"m16n8k16\", \"row\" x \"col\", fp16 x fp16 into fp32 "
             "or fp16, bf16 x bf16 into fp32, no saturation, operands in warp buffers of "
             "those types),", "ptx_mma");
    return 1;
  }
  tcu_out(em, "tsl_mma_m16n8k16(%e + %e, %e + %e, %e + %e);\n", e->args[10], e->args[11],
          e->args[6], e->args[7], e->args[8], e->args[9]);
  return 1;
}

static int fill(tcu_emitter *em, const tsl_expr *e) {
  int64_t n;
  const tsl_buffer *r = regs(e->args[1]);
  if (!const_in(e->args[0], 1, 1024, &n) || !r) {
    tcu_fail(em, "T.mma_fill form (a constant size, a warp buffer),", "mma_fill");
    return 1;
  }
  tcu_out(em, "#pragma unroll\nfor (int i_ = 0; i_ < %d; ++i_) %e[%e + i_] = (%t)0.0f;\n", (int)n,
          e->args[1], e->args[2], r->dtype);
  return 1;
}

static int store(tcu_emitter *em, const tsl_expr *e) {
  int64_t m, n;
  if (!const_in(e->args[0], 16, 16, &m) || !const_in(e->args[1], 16, 16, &n) ||
      !regs(e->args[3])) {
    tcu_fail(em, "T.mma_store form (a 16 x 16 tile from a warp buffer),", "mma_store");
    return 1;
  }
  tcu_out(em, "tsl_mma_store_16x16(%e, %e + %e, %e);\n", e->args[2], e->args[3], e->args[4],
          e->args[5]);
  return 1;
}

int tcu_mma_stmt(tcu_emitter *em, const tsl_expr *e) {
  if (e->kind != TSL_EXPR_BUILTIN)
    return 0;
  switch (e->intrin) {
  case TSL_BUILTIN_PTX_LDMATRIX: return ldmatrix(em, e);
  case TSL_BUILTIN_PTX_MMA: return mma(em, e);
  case TSL_BUILTIN_MMA_FILL: return fill(em, e);
  case TSL_BUILTIN_MMA_STORE: return store(em, e);
  }
  return 0;
}

/* Register layouts (PTX ISA, mma.m16n8k16 and ldmatrix): lane l = 4 g + t
 * holds A[g + 8 (i / 2 % 2)][2 t + i % 2 + 8 (i / 4)] (i < 8), B[2 t + i % 2
 * + 8 (i / 2)][g] (i < 4) and C[g + 8 (i / 2)][2 t + i % 2] (i < 4). */
const char tcu_prelude_mma[] =
    "#ifdef TSL_CUDA_EMULATED\n"
    "#include \"mma_ptx.h\"\n"
    "#else\n"
    "#define TSL_LDM(n, t, regs, ...) asm volatile(\"ldmatrix.sync.aligned.m8n8.x\" #n t "
    "\".shared.b16 \" regs \", [%\" #n \"];\\n\" : __VA_ARGS__ : \"r\"(a))\n"
    "template <int N, bool T> static __device__ __forceinline__ void tsl_ldmatrix(void *dst, "
    "const void *src) {\n"
    "  const unsigned a = (unsigned)__cvta_generic_to_shared(src);\n"
    "  unsigned *d = (unsigned *)dst;\n"
    "  if constexpr (N == 1 && !T) TSL_LDM(1, \"\", \"{%0}\", \"=r\"(d[0]));\n"
    "  if constexpr (N == 1 && T) TSL_LDM(1, \".trans\", \"{%0}\", \"=r\"(d[0]));\n"
    "  if constexpr (N == 2 && !T) TSL_LDM(2, \"\", \"{%0, %1}\", \"=r\"(d[0]), \"=r\"(d[1]));\n"
    "  if constexpr (N == 2 && T) TSL_LDM(2, \".trans\", \"{%0, %1}\", \"=r\"(d[0]), "
    "\"=r\"(d[1]));\n"
    "  if constexpr (N == 4 && !T) TSL_LDM(4, \"\", \"{%0, %1, %2, %3}\", \"=r\"(d[0]), "
    "\"=r\"(d[1]), \"=r\"(d[2]), \"=r\"(d[3]));\n"
    "  if constexpr (N == 4 && T) TSL_LDM(4, \".trans\", \"{%0, %1, %2, %3}\", \"=r\"(d[0]), "
    "\"=r\"(d[1]), \"=r\"(d[2]), \"=r\"(d[3]));\n"
    "}\n"
    "#define TSL_MMA_F32(ab) asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.\" ab \".\" "
    "ab \".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\\n\" : "
    "\"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3]) : \"r\"(A[0]), \"r\"(A[1]), "
    "\"r\"(A[2]), \"r\"(A[3]), \"r\"(B[0]), \"r\"(B[1]))\n"
    "static __device__ __forceinline__ void tsl_mma_m16n8k16(float *c, const half *a, "
    "const half *b) {\n"
    "  const unsigned *A = (const unsigned *)a, *B = (const unsigned *)b;\n"
    "  TSL_MMA_F32(\"f16\");\n"
    "}\n"
    "static __device__ __forceinline__ void tsl_mma_m16n8k16(float *c, const __nv_bfloat16 *a, "
    "const __nv_bfloat16 *b) {\n"
    "  const unsigned *A = (const unsigned *)a, *B = (const unsigned *)b;\n"
    "  TSL_MMA_F32(\"bf16\");\n"
    "}\n"
    "static __device__ __forceinline__ void tsl_mma_m16n8k16(half *c, const half *a, "
    "const half *b) {\n"
    "  const unsigned *A = (const unsigned *)a, *B = (const unsigned *)b;\n"
    "  unsigned *C = (unsigned *)c;\n"
    "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, "
    "{%2, %3, %4, %5}, {%6, %7}, {%0, %1};\\n\" : \"+r\"(C[0]), \"+r\"(C[1]) : \"r\"(A[0]), "
    "\"r\"(A[1]), \"r\"(A[2]), \"r\"(A[3]), \"r\"(B[0]), \"r\"(B[1]));\n"
    "}\n"
    "#endif\n"
    "/* The 16 x 16 accumulator tile of a warp (8 elements per lane) to memory. */\n"
    "template <class T> static __device__ __forceinline__ void tsl_mma_store_16x16(T *dst, "
    "const T *src, int stride) {\n"
    "  const int lane = threadIdx.x & 31;\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < 8; ++i)\n"
    "    dst[(8 * (i % 4 / 2) + lane / 4) * stride + 8 * (i / 4) + lane % 4 * 2 + i % 2] = "
    "src[i];\n"
    "}\n";
