/*
 * targets/cuda/codegen_expr.c — expressions as C (host) and CUDA C
 * (device), the formatted writer the statement writers use, and the
 * helper functions both sides call.
 *
 * Vector expressions (RAMP, BROADCAST, vector loads) are written for one
 * lane `l_` of the vector store around them. float16 math runs in float.
 */
#include "cuda_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

const char *tcu_ctype(tsl_dtype t, int host) {
  static const char *names[3][65] = {
      [TSL_DT_INT] = {[8] = "signed char", [16] = "short", [32] = "int", [64] = "long long"},
      [TSL_DT_UINT] = {[1] = "bool", [8] = "unsigned char", [16] = "unsigned short",
                       [32] = "unsigned int", [64] = "unsigned long long"},
      [TSL_DT_FLOAT] = {[16] = "half", [32] = "float", [64] = "double"}};
  if (t.code == TSL_DT_BFLOAT && t.bits == 16)
    return host ? "unsigned short" : "__nv_bfloat16";
  if (t.code > TSL_DT_FLOAT || t.bits > 64)
    return NULL;
  if (host && t.code == TSL_DT_FLOAT && t.bits == 16)
    return "unsigned short";
  return names[t.code][t.bits];
}

void tcu_fail(tcu_emitter *em, const char *what, const char *name) {
  if (!em->rc)
    em->rc = tsl_diag_set(em->diag, TSL_EUNSUPPORTED, "cuda target: %s '%s' in function '%s' "
                          "is not supported in %s code", what, name, em->f ? em->f->name : "?",
                          em->host ? "host" : "kernel");
}

static const char *ctype(tcu_emitter *em, tsl_dtype t) {
  const char *c = tcu_ctype(t, em->host);
  char b[32];
  t.lanes = 1;
  if (!c)
    tcu_fail(em, "dtype", tsl_dtype_str(t, b));
  return c ? c : "void";
}

static void name(tcu_emitter *em, const char *s, uint32_t id) {
  for (; *s; s++) {
    const char c = isalnum((unsigned char)*s) ? *s : '_';
    tsl_strbuf_append_n(em->sb, &c, 1);
  }
  tsl_strbuf_printf(em->sb, "_%u", id);
}

void tcu_out(tcu_emitter *em, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') {
      tsl_strbuf_append_n(em->sb, p, 1);
      continue;
    }
    switch (*++p) {
    case 's': tsl_strbuf_append(em->sb, va_arg(ap, const char *)); break;
    case 'd': tsl_strbuf_printf(em->sb, "%d", va_arg(ap, int)); break;
    case 'e': tcu_expr(em, va_arg(ap, const tsl_expr *)); break;
    case 'S': em->stmt(em, va_arg(ap, const tsl_stmt *)); break;
    case 't': tsl_strbuf_append(em->sb, ctype(em, va_arg(ap, tsl_dtype))); break;
    case 'v': {
      const tsl_var *v = va_arg(ap, const tsl_var *);
      name(em, v->name, v->id);
      break;
    }
    default: {
      const tsl_buffer *b = va_arg(ap, const tsl_buffer *);
      name(em, b->name, b->id);
    }
    }
  }
  va_end(ap);
}

static void imm(tcu_emitter *em, const tsl_expr *e, const char *t) {
  const double x = e->u.float_value;
  if (e->kind == TSL_EXPR_INT_IMM && e->dtype.code == TSL_DT_UINT)
    tsl_strbuf_printf(em->sb, "((%s)%lluULL)", t, (unsigned long long)e->u.int_value);
  else if (e->kind == TSL_EXPR_INT_IMM && e->u.int_value == INT64_MIN)
    tcu_out(em, "((%s)(-9223372036854775807LL - 1))", t);
  else if (e->kind == TSL_EXPR_INT_IMM && e->dtype.bits == 32 && e->dtype.code == TSL_DT_INT)
    tsl_strbuf_printf(em->sb, e->u.int_value < 0 ? "(%lld)" : "%lld", (long long)e->u.int_value);
  else if (e->kind == TSL_EXPR_INT_IMM)
    tsl_strbuf_printf(em->sb, "((%s)%lldLL)", t, (long long)e->u.int_value);
  else if (!isfinite(x))
    tcu_out(em, "((%s)(%s))", t, isnan(x) ? "0.0f / 0.0f" : x > 0 ? "1.0f / 0.0f" : "-1.0f / 0.0f");
  else
    tsl_strbuf_printf(em->sb, "((%s)%.17g)", t, x);
}

/* A math intrinsic: float32 calls the f-suffixed function, float64 the
 * plain one, float16 computes in float. */
static void call(tcu_emitter *em, const tsl_expr *e, const char *t) {
  const char *fn = tsl_intrin_name((tsl_intrin)e->intrin);
  int isf = e->dtype.code == TSL_DT_FLOAT || e->dtype.code == TSL_DT_BFLOAT;
  int narrow = isf && e->dtype.bits < 32;
  if (e->intrin == TSL_INTRIN_ISNAN)
    return tcu_out(em, "isnan((double)(%e))", e->args[0]);
  if (e->intrin == TSL_INTRIN_ABS || e->intrin == TSL_INTRIN_SIGMOID)
    fn = e->intrin == TSL_INTRIN_ABS ? "tsl_abs" : "tsl_sigmoid";
  else if (!isf)
    return tcu_fail(em, "integer intrinsic", fn);
  int suffix = e->intrin != TSL_INTRIN_ABS && e->intrin != TSL_INTRIN_SIGMOID &&
               e->dtype.bits != 64;
  tcu_out(em, "((%s)%s%s(", t, fn, suffix ? "f" : "");
  for (uint32_t i = 0; i < e->n_args; i++)
    tcu_out(em, narrow ? "%s(float)(%e)" : "%s%e", i ? ", " : "", e->args[i]);
  tcu_out(em, "))");
}

void tcu_expr(tcu_emitter *em, const tsl_expr *e) {
  const char *t = e->dtype.code == TSL_DT_HANDLE ? "void *" : ctype(em, e->dtype),
             *op = tsl_expr_kind_info_of(e->kind)->token;
  const int isf = e->dtype.code == TSL_DT_FLOAT, lane = em->lane;
  switch (e->kind) {
  case TSL_EXPR_INT_IMM: case TSL_EXPR_FLOAT_IMM:
    return imm(em, e, t);
  case TSL_EXPR_VAR:
    return tcu_out(em, "%v", e->u.var);
  case TSL_EXPR_LOAD:
    if (tcu_is_fragment(e->u.buffer))
      return tcu_fail(em, "element access to a tensor-core fragment (tensorize it), buffer",
                      e->u.buffer->name);
    return tcu_out(em, "%b[%e]", e->u.buffer, e->args[0]);
  case TSL_EXPR_BUFFER_DATA:
    if (em->host || tcu_is_fragment(e->u.buffer))
      return tcu_fail(em, "pointer to buffer", e->u.buffer->name);
    return tcu_out(em, "%b", e->u.buffer);
  case TSL_EXPR_RAMP:
    em->lane = 0;
    tcu_out(em, "(%e + %s * %e)", e->args[0], lane ? "l_" : "0", e->args[1]);
    em->lane = lane;
    return;
  case TSL_EXPR_MOD: case TSL_EXPR_AND: case TSL_EXPR_OR:
    op = e->kind == TSL_EXPR_MOD ? (isf ? NULL : "%") : e->kind == TSL_EXPR_AND ? "&&" : "||";
    if (!op)
      return tcu_out(em, "((%s)fmod((double)(%e), (double)(%e)))", t, e->args[0], e->args[1]);
    /* fall through */
  case TSL_EXPR_ADD: case TSL_EXPR_SUB: case TSL_EXPR_MUL: case TSL_EXPR_DIV: case TSL_EXPR_EQ:
  case TSL_EXPR_NE: case TSL_EXPR_LT: case TSL_EXPR_LE: case TSL_EXPR_GT: case TSL_EXPR_GE:
    return tcu_out(em, "((%s)(%e %s %e))", t, e->args[0], op, e->args[1]);
  case TSL_EXPR_BROADCAST: case TSL_EXPR_CAST: case TSL_EXPR_NOT: case TSL_EXPR_NEG:
    if (e->dtype.bits == 1 && e->kind == TSL_EXPR_CAST)
      return tcu_out(em, "((%e) != 0)", e->args[0]);
    if (e->kind == TSL_EXPR_CAST && e->args[0]->dtype.code == TSL_DT_FLOAT &&
        e->args[0]->dtype.bits == 16 && !isf) /* half to an integer: through float */
      return tcu_out(em, "((%s)(float)(%e))", t, e->args[0]);
    return tcu_out(em, "((%s)%s(%e))", t, e->kind == TSL_EXPR_NOT ? "!"
                   : e->kind == TSL_EXPR_NEG ? "-" : "", e->args[0]);
  case TSL_EXPR_SELECT: case TSL_EXPR_IF_THEN_ELSE:
    return tcu_out(em, "(%e ? %e : %e)", e->args[0], e->args[1], e->args[2]);
  case TSL_EXPR_FLOORDIV: case TSL_EXPR_FLOORMOD: case TSL_EXPR_MIN: case TSL_EXPR_MAX:
    return tcu_out(em, "((%s)tsl_%s(%e, %e))", t, tsl_expr_kind_info_of(e->kind)->name,
                   e->args[0], e->args[1]);
  case TSL_EXPR_CALL:
    return call(em, e, t);
  case TSL_EXPR_CALL_EXTERN: /* a device function: the prelude's allreduce */
    if (em->host)
      return tcu_fail(em, "external call", e->u.str_value);
    if (em->guard) /* its barriers and shuffles need every thread of the block */
      return tcu_fail(em, "cross-thread reduction under a thread loop shorter than its launch "
                      "extent,", e->u.str_value);
    tcu_out(em, "((%s)%s(", t, e->u.str_value);
    for (uint32_t i = 0; i < e->n_args; i++)
      tcu_out(em, "%s%e", i ? ", " : "", e->args[i]);
    return tcu_out(em, "))");
  case TSL_EXPR_BUILTIN:
    if (e->intrin == TSL_BUILTIN_LIKELY)
      return tcu_expr(em, e->args[0]);
    if (e->intrin == TSL_BUILTIN_TVM_ACCESS_PTR && !em->host)
      return tcu_access_ptr(em, e);
    return tcu_fail(em, "builtin", tsl_builtin_info_of((tsl_builtin)e->intrin)->name);
  }
  tcu_fail(em, "expression", tsl_expr_kind_info_of(e->kind)->kind_name);
}

int tcu_stmt_common(tcu_emitter *em, const tsl_stmt *s) {
  const tsl_var *v = s->u.loop.loop_var;
  switch (s->kind) {
  case TSL_STMT_FOR:
    if (!em->host && (s->u.loop.for_kind == TSL_FOR_THREAD_BINDING ||
                      s->u.loop.for_kind == TSL_FOR_UNROLLED))
      tcu_out(em, "#pragma unroll\n");
    tcu_out(em, "for (%t %v = %e; %v < %e + %e; ++%v) {\n%S}\n", v->dtype, v, s->u.loop.min, v,
            s->u.loop.min, s->u.loop.extent, v, s->u.loop.body);
    return 1;
  case TSL_STMT_IF:
    tcu_out(em, "if (%e) {\n%S", s->u.branch.cond, s->u.branch.then_case);
    if (s->u.branch.else_case)
      tcu_out(em, "} else {\n%S", s->u.branch.else_case);
    tcu_out(em, "}\n");
    return 1;
  case TSL_STMT_LET:
    if (s->u.let.var->dtype.lanes > 1)
      tcu_fail(em, "vector let", s->u.let.var->name);
    else
      tcu_out(em, "{\nconst %t %v = %e;\n%S}\n", s->u.let.var->dtype, s->u.let.var,
              s->u.let.value, s->u.let.body);
    return 1;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      em->stmt(em, s->u.seq.stmts[i]);
    return 1;
  }
  return 0;
}

/* Integer floor division and modulo round toward minus infinity; min and
 * max of mixed operands take the first one's type (the IR's operands agree). */
const char tcu_prelude_device[] =
    "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
    "#ifndef TSL_DYN_SMEM /* the emulator has its own */\n"
    "#define TSL_DYN_SMEM(name, bytes) extern __shared__ __align__(16) unsigned char name[]\n"
    "#endif\n"
    "#define TSL_F template <class T> static __device__ __forceinline__ T\n"
    "TSL_F tsl_floordiv(T a, T b) { T q = a / b; return (a % b != 0 && ((a % b < 0) != (b < 0)))"
    " ? q - 1 : q; }\n"
    "TSL_F tsl_floormod(T a, T b) { T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b"
    " : r; }\n"
    "static __device__ __forceinline__ float tsl_floordiv(float a, float b) "
    "{ return floorf(a / b); }\n"
    "static __device__ __forceinline__ double tsl_floordiv(double a, double b) "
    "{ return floor(a / b); }\n"
    "static __device__ __forceinline__ float tsl_floormod(float a, float b) "
    "{ return a - floorf(a / b) * b; }\n"
    "static __device__ __forceinline__ double tsl_floormod(double a, double b) "
    "{ return a - floor(a / b) * b; }\n"
    "TSL_F tsl_min(T a, T b) { return a < b ? a : b; }\n"
    "TSL_F tsl_max(T a, T b) { return a > b ? a : b; }\n"
    "TSL_F tsl_abs(T a) { return a < T(0) ? -a : a; }\n"
    "static __device__ __forceinline__ float tsl_sigmoid(float x) "
    "{ return 1.0f / (1.0f + expf(-x)); }\n"
    "static __device__ __forceinline__ double tsl_sigmoid(double x) "
    "{ return 1.0 / (1.0 + exp(-x)); }\n"
    "/* Lane `lane`'s value of v in the calling warp (a warp buffer's element\n"
    " * another lane holds); every lane of the warp calls it. */\n"
    "template <class T> static __device__ __forceinline__ T tsl_warp_shfl(T v, int lane) "
    "{ return __shfl_sync(__activemask(), v, lane, 32); }\n"
    "struct tsl_sum { template <class T> static __device__ T f(T a, T b) { return a + b; } };\n"
    "struct tsl_prod { template <class T> static __device__ T f(T a, T b) { return a * b; } };\n"
    "struct tsl_min_op { template <class T> static __device__ T f(T a, T b) "
    "{ return a < b ? a : b; } };\n"
    "struct tsl_max_op { template <class T> static __device__ T f(T a, T b) "
    "{ return a > b ? a : b; } };\n"
    "/* The reduction of x over the E threads of index D (0: x, 1: y, 2: z) that\n"
    " * share the other indices; every thread of the block calls it. */\n"
    "template <class Op, int E, int D, class T> static __device__ T tsl_allreduce(T x) {\n"
    "  if constexpr (D == 0 && E <= 32 && (E & (E - 1)) == 0) {\n"
    "    unsigned mask = __activemask();\n"
    "    for (int o = E / 2; o > 0; o /= 2) x = Op::f(x, __shfl_xor_sync(mask, x, o, E));\n"
    "    return x;\n"
    "  } else {\n"
    "  __shared__ T buf[1024]; /* a tree in shared memory */\n"
    "  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
    "  const int k = D == 0 ? threadIdx.x : D == 1 ? threadIdx.y : threadIdx.z;\n"
    "  const int stride = D == 0 ? 1 : D == 1 ? blockDim.x : blockDim.x * blockDim.y;\n"
    "  int p = 1;\n"
    "  while (p < E) p *= 2;\n"
    "  __syncthreads();\n"
    "  buf[tid] = x;\n"
    "  __syncthreads();\n"
    "  for (int s = p / 2; s > 0; s /= 2) {\n"
    "    if (k < s && k + s < E) buf[tid] = Op::f(buf[tid], buf[tid + s * stride]);\n"
    "    __syncthreads();\n"
    "  }\n"
    "  x = buf[tid - k * stride];\n"
    "  __syncthreads();\n"
    "  return x;\n"
    "  }\n"
    "}\n";

const char tcu_prelude_host[] =
    "#define TSL_F static inline long long\n"
    "TSL_F tsl_floordiv(long long a, long long b) { long long q = a / b; "
    "return (a % b != 0 && ((a % b < 0) != (b < 0))) ? q - 1 : q; }\n"
    "TSL_F tsl_floormod(long long a, long long b) { long long r = a % b; "
    "return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n"
    "TSL_F tsl_min(long long a, long long b) { return a < b ? a : b; }\n"
    "TSL_F tsl_max(long long a, long long b) { return a > b ? a : b; }\n"
    "TSL_F tsl_abs(long long a) { return a < 0 ? -a : a; }\n";
