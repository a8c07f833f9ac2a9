/*
 * The interpreter's evaluator: walks the compiled tree of interp_compile.c.
 * Ints are computed in 64 bits (unsigned arithmetic, so overflow is never
 * undefined) and wrapped to their kind after every operation; floats are
 * computed in double and rounded to their kind after every operation.
 * Run-time errors (out-of-bounds accesses, integer division by zero, iter
 * values outside their domain) are recorded in the state; evaluation then
 * returns harmless zeros and every statement stops at the next check.
 * Loops of every kind, thread_binding included, run serially: in order,
 * or for the race oracle (tsl_interp_opts) parallel, vectorized and
 * thread-bound ones reversed or shuffled.
 */
#include "interp_internal.h"

#include <stdio.h>
#include <stdlib.h>

int tsli_fail(tsli_state *st, int status, const char *fmt, ...) {
  if (st->status)
    return 0;
  st->status = status;
  if (st->diag) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->diag->text, sizeof st->diag->text, fmt, ap);
    va_end(ap);
    st->diag->struct_size = sizeof *st->diag;
    if (st->block)
      tsl_diag_append(st->diag, " (in block '%s')", st->block);
    st->diag->len = (uint32_t)strlen(st->diag->text);
  }
  return 0;
}

static const char *src_text(const tsl_expr *e, char *buf, size_t n) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsli_fmt_expr(&sb, e);
  snprintf(buf, n, "%s", sb.data ? sb.data : "?");
  tsl_strbuf_free(&sb);
  return buf;
}

/* Leaves are evaluated inline; everything else through its evaluator. */
static inline int64_t ev_i(tsli_state *st, const tsli_x *e) {
  if (e->op == TSLI_X_IVAR)
    return st->vars[e->slot].i;
  if (e->op == TSLI_X_ICONST)
    return e->imm.i;
  return e->fi(st, e);
}

static inline double ev_f(tsli_state *st, const tsli_x *e) {
  if (e->op == TSLI_X_FVAR)
    return st->vars[e->slot].f;
  if (e->op == TSLI_X_FCONST)
    return e->imm.f;
  return e->ff(st, e);
}

/* ---- buffer accesses ------------------------------------------------------
 */

static void oob(tsli_state *st, const tsli_rbuf *b, const tsl_buffer *buf,
                int is_store, uint32_t n, const int64_t *idx, int64_t addr,
                int dim) {
  if (st->status)
    return;
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_printf(&sb, "%s[", buf->name);
  for (uint32_t d = 0; d < n; d++)
    tsl_strbuf_printf(&sb, "%s%lld", d ? ", " : "", (long long)idx[d]);
  tsl_strbuf_append(&sb, "]");
  tsl_strbuf shp;
  tsl_strbuf_init(&shp);
  tsli_fmt_shape_vals(&shp, b->ndim, b->shape);
  if (dim >= 0)
    tsli_fail(st, TSL_ERUNTIME,
              "out-of-bounds %s %s: index %lld of dimension %d is outside "
              "[0, %lld) for buffer '%s' of shape %s",
              is_store ? "store to" : "load from", sb.data, (long long)idx[dim],
              dim, (long long)b->shape[dim], buf->name, shp.data);
  else
    tsli_fail(st, TSL_ERUNTIME,
              "out-of-bounds %s %s: element offset %lld is outside the %lld "
              "elements of the memory behind buffer '%s' of shape %s",
              is_store ? "store to" : "load from", sb.data, (long long)addr,
              (long long)b->cap, buf->name, shp.data);
  tsl_strbuf_free(&sb);
  tsl_strbuf_free(&shp);
}

/* Report a failed access: re-evaluates the (pure) indices for the message
 * unless an error was already recorded while computing them. */
static int64_t __attribute__((noinline))
access_error(tsli_state *st, int32_t slot, uint32_t n, tsli_x *const *ix,
             int is_store) {
  if (st->status)
    return -1;
  const tsli_rbuf *b = &st->bufs[slot];
  int64_t idx[TSL_MAX_NDIM];
  uint64_t addr = (uint64_t)b->off;
  int bad = -1;
  for (uint32_t d = 0; d < n; d++) {
    idx[d] = tsli_eval_i(st, ix[d]);
    if ((uint64_t)idx[d] >= (uint64_t)b->shape[d] && bad < 0)
      bad = (int)d;
    addr += (uint64_t)idx[d] * (uint64_t)b->stride[d];
  }
  if (!st->status)
    oob(st, b, st->prog->bufs[slot].buffer, is_store, n, idx, (int64_t)addr,
        bad);
  return -1;
}

/* Element offset of an access, or -1 after recording an error. */
static inline __attribute__((always_inline)) int64_t
address(tsli_state *st, int32_t slot, uint32_t n, tsli_x *const *ix,
        const int32_t *vs, int is_store) {
  const tsli_rbuf *b = &st->bufs[slot];
  uint64_t addr = (uint64_t)b->off;
  if (vs) {
    for (uint32_t d = 0; d < n; d++) {
      int64_t i = st->vars[vs[d]].i;
      if ((uint64_t)i >= (uint64_t)b->shape[d])
        return access_error(st, slot, n, ix, is_store);
      addr += (uint64_t)i * (uint64_t)b->stride[d];
    }
    if (addr >= (uint64_t)b->cap)
      return access_error(st, slot, n, ix, is_store);
    return (int64_t)addr;
  }
  for (uint32_t d = 0; d < n; d++) {
    int64_t i = ev_i(st, ix[d]);
    if ((uint64_t)i >= (uint64_t)b->shape[d])
      return access_error(st, slot, n, ix, is_store);
    addr += (uint64_t)i * (uint64_t)b->stride[d];
  }
  if (addr >= (uint64_t)b->cap || st->status)
    return access_error(st, slot, n, ix, is_store);
  return (int64_t)addr;
}

/* ---- integer arithmetic -----------------------------------------------------
 */

static int64_t div_zero(tsli_state *st, const tsli_x *e, int64_t a) {
  char buf[256];
  tsli_fail(st, TSL_ERUNTIME,
            "integer division by zero: '%s' divides %lld by 0",
            src_text(e->src, buf, sizeof buf), (long long)a);
  return 0;
}

/* Comparisons in the operand's own domain (signed, unsigned, float). */
#define DEFINE_CMP(name, type)                                                 \
  static int name(int op, type a, type b) {                                    \
    switch (op) {                                                              \
    case TSL_EXPR_EQ:                                                          \
      return a == b;                                                           \
    case TSL_EXPR_NE:                                                          \
      return a != b;                                                           \
    case TSL_EXPR_LT:                                                          \
      return a < b;                                                            \
    case TSL_EXPR_LE:                                                          \
      return a <= b;                                                           \
    case TSL_EXPR_GT:                                                          \
      return a > b;                                                            \
    default:                                                                   \
      return a >= b;                                                           \
    }                                                                          \
  }
DEFINE_CMP(cmp_i, int64_t)
DEFINE_CMP(cmp_u, uint64_t)
DEFINE_CMP(cmp_f, double)
#undef DEFINE_CMP

static int64_t sw_i(tsli_state *st, const tsli_x *e) {
  int64_t a, b;
  switch (e->op) {
  case TSLI_X_ICONST:
    return e->imm.i;
  case TSLI_X_IVAR:
    return st->vars[e->slot].i;
  case TSLI_X_ILOAD: {
    int64_t at = address(st, e->slot, e->n, e->a, e->vslots, 0);
    return at < 0 ? 0 : tsli_read_i(st->bufs[e->slot].data, at, e->k);
  }
  case TSLI_X_IADD:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return tsli_wrap((int64_t)((uint64_t)a + (uint64_t)b), e->k);
  case TSLI_X_ISUB:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return tsli_wrap((int64_t)((uint64_t)a - (uint64_t)b), e->k);
  case TSLI_X_IMUL:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return tsli_wrap((int64_t)((uint64_t)a * (uint64_t)b), e->k);
  case TSLI_X_IDIV:
  case TSLI_X_IMOD:
  case TSLI_X_IFLOORDIV:
  case TSLI_X_IFLOORMOD: {
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    if (b == 0)
      return st->status ? 0 : div_zero(st, e, a);
    int64_t q, r;
    if (b == -1) { /* INT64_MIN / -1 must not trap */
      q = (int64_t)(0 - (uint64_t)a);
      r = 0;
    } else {
      q = a / b;
      r = a % b;
    }
    switch (e->op) {
    case TSLI_X_IDIV:
      return tsli_wrap(q, e->k);
    case TSLI_X_IMOD:
      return tsli_wrap(r, e->k);
    case TSLI_X_IFLOORDIV:
      return tsli_wrap(r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q, e->k);
    default:
      return tsli_wrap(r != 0 && ((r < 0) != (b < 0)) ? r + b : r, e->k);
    }
  }
  case TSLI_X_UDIV:
  case TSLI_X_UMOD:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    if (b == 0)
      return st->status ? 0 : div_zero(st, e, a);
    return e->op == TSLI_X_UDIV ? (int64_t)((uint64_t)a / (uint64_t)b)
                                : (int64_t)((uint64_t)a % (uint64_t)b);
  case TSLI_X_IMIN:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return a < b ? a : b;
  case TSLI_X_IMAX:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return a > b ? a : b;
  case TSLI_X_UMIN:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return (uint64_t)a < (uint64_t)b ? a : b;
  case TSLI_X_UMAX:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return (uint64_t)a > (uint64_t)b ? a : b;
  case TSLI_X_INEG:
    return tsli_wrap((int64_t)(0 - (uint64_t)ev_i(st, e->a[0])), e->k);
  case TSLI_X_IABS:
    a = ev_i(st, e->a[0]);
    if (tsli_is_unsigned(e->k))
      return a;
    return tsli_wrap(a < 0 ? (int64_t)(0 - (uint64_t)a) : a, e->k);
  case TSLI_X_ICMP:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return cmp_i(e->sub, a, b);
  case TSLI_X_UCMP:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    return cmp_u(e->sub, (uint64_t)a, (uint64_t)b);
  case TSLI_X_FCMP: {
    double x = ev_f(st, e->a[0]);
    double y = ev_f(st, e->a[1]);
    return cmp_f(e->sub, x, y);
  }
  case TSLI_X_AND:
    return ev_i(st, e->a[0]) && ev_i(st, e->a[1]);
  case TSLI_X_OR:
    return ev_i(st, e->a[0]) || ev_i(st, e->a[1]);
  case TSLI_X_NOT:
    return !ev_i(st, e->a[0]);
  case TSLI_X_ISELECT:
    a = ev_i(st, e->a[0]);
    b = ev_i(st, e->a[1]);
    {
      int64_t c = ev_i(st, e->a[2]);
      return a ? b : c;
    }
  case TSLI_X_IIFTE:
    return ev_i(st, e->a[0]) ? ev_i(st, e->a[1]) : ev_i(st, e->a[2]);
  case TSLI_X_IWRAP:
    return tsli_wrap(ev_i(st, e->a[0]), e->k);
  case TSLI_X_F2I:
    return tsli_f2i(ev_f(st, e->a[0]), e->k);
  case TSLI_X_ISNAN: {
    double x = ev_f(st, e->a[0]);
    return x != x;
  }
  default:
    break;
  }
  tsli_fail(st, TSL_ERUNTIME, "internal error: int evaluation of op %d", e->op);
  return 0;
}

/* ---- float arithmetic -------------------------------------------------------
 */

static double fcall(int id, double x, double y) {
  switch (id) {
  case TSL_INTRIN_EXP:
    return exp(x);
  case TSL_INTRIN_EXP2:
    return exp2(x);
  case TSL_INTRIN_EXP10:
    return pow(10.0, x);
  case TSL_INTRIN_LOG:
    return log(x);
  case TSL_INTRIN_LOG2:
    return log2(x);
  case TSL_INTRIN_LOG10:
    return log10(x);
  case TSL_INTRIN_LOG1P:
    return log1p(x);
  case TSL_INTRIN_SQRT:
    return sqrt(x);
  case TSL_INTRIN_RSQRT:
    return 1.0 / sqrt(x);
  case TSL_INTRIN_TANH:
    return tanh(x);
  case TSL_INTRIN_SIGMOID:
    return 1.0 / (1.0 + exp(-x));
  case TSL_INTRIN_FABS:
  case TSL_INTRIN_ABS:
    return fabs(x);
  case TSL_INTRIN_POW:
    return pow(x, y);
  case TSL_INTRIN_FLOOR:
    return floor(x);
  case TSL_INTRIN_CEIL:
    return ceil(x);
  /* T.round lowers to llvm.round / roundf (ties away from zero) in TVM's
   * code generators; T.nearbyint rounds ties to even */
  case TSL_INTRIN_ROUND:
    return round(x);
  case TSL_INTRIN_NEARBYINT:
    return nearbyint(x);
  case TSL_INTRIN_TRUNC:
    return trunc(x);
  case TSL_INTRIN_SIN:
    return sin(x);
  case TSL_INTRIN_COS:
    return cos(x);
  case TSL_INTRIN_TAN:
    return tan(x);
  case TSL_INTRIN_ERF:
    return erf(x);
  case TSL_INTRIN_ATAN:
    return atan(x);
  case TSL_INTRIN_FMOD:
    return fmod(x, y);
  case TSL_INTRIN_ISNAN:
    return x != x;
  case TSL_INTRIN_COUNT:
    return round(x); /* C round(), call_extern only */
  case TSL_INTRIN_COUNT + 1:
    return fmax(x, y);
  case TSL_INTRIN_COUNT + 2:
    return fmin(x, y);
  default:
    return NAN;
  }
}

static double sw_f(tsli_state *st, const tsli_x *e) {
  double a, b;
  switch (e->op) {
  case TSLI_X_FCONST:
    return e->imm.f;
  case TSLI_X_FVAR:
    return st->vars[e->slot].f;
  case TSLI_X_FLOAD: {
    int64_t at = address(st, e->slot, e->n, e->a, e->vslots, 0);
    return at < 0 ? 0.0 : tsli_read_f(st->bufs[e->slot].data, at, e->k);
  }
  case TSLI_X_FADD:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return tsli_round(a + b, e->k);
  case TSLI_X_FSUB:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return tsli_round(a - b, e->k);
  case TSLI_X_FMUL:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return tsli_round(a * b, e->k);
  case TSLI_X_FDIV:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return tsli_round(a / b, e->k);
  case TSLI_X_FMOD:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return tsli_round(fmod(a, b), e->k);
  case TSLI_X_FFLOORDIV:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return tsli_round(floor(a / b), e->k);
  case TSLI_X_FFLOORMOD:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return tsli_round(a - floor(a / b) * b, e->k);
  case TSLI_X_FMIN:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return a < b ? a : b;
  case TSLI_X_FMAX:
    a = ev_f(st, e->a[0]);
    b = ev_f(st, e->a[1]);
    return a > b ? a : b;
  case TSLI_X_FNEG:
    return -ev_f(st, e->a[0]);
  case TSLI_X_FSELECT: {
    int64_t c = ev_i(st, e->a[0]);
    a = ev_f(st, e->a[1]);
    b = ev_f(st, e->a[2]);
    return c ? a : b;
  }
  case TSLI_X_FIFTE:
    return ev_i(st, e->a[0]) ? ev_f(st, e->a[1]) : ev_f(st, e->a[2]);
  case TSLI_X_FROUND:
    return tsli_round(ev_f(st, e->a[0]), e->k);
  case TSLI_X_I2F:
    return tsli_round(tsli_i2f(ev_i(st, e->a[0]), e->sub), e->k);
  case TSLI_X_FCALL:
    a = ev_f(st, e->a[0]);
    b = e->n > 1 ? ev_f(st, e->a[1]) : 0.0;
    return tsli_round(fcall(e->sub, a, b), e->k);
  default:
    break;
  }
  tsli_fail(st, TSL_ERUNTIME, "internal error: float evaluation of op %d",
            e->op);
  return 0;
}

/* ---- specialised evaluators for the hot nodes -------------------------------
 */

static int64_t x_ivar(tsli_state *st, const tsli_x *e) {
  return st->vars[e->slot].i;
}
static int64_t x_iconst(tsli_state *st, const tsli_x *e) {
  (void)st;
  return e->imm.i;
}
static double x_fvar(tsli_state *st, const tsli_x *e) {
  return st->vars[e->slot].f;
}
static double x_fconst(tsli_state *st, const tsli_x *e) {
  (void)st;
  return e->imm.f;
}

/* Accesses whose indices are all plain variables. */
static inline __attribute__((always_inline)) int64_t
address_v(tsli_state *st, const tsli_x *e) {
  const tsli_rbuf *b = &st->bufs[e->slot];
  const int32_t *vs = e->vslots;
  uint64_t addr = (uint64_t)b->off;
  for (uint32_t d = 0; d < e->n; d++) {
    uint64_t i = (uint64_t)st->vars[vs[d]].i;
    if (i >= (uint64_t)b->shape[d])
      return access_error(st, e->slot, e->n, e->a, 0);
    addr += i * (uint64_t)b->stride[d];
  }
  if (addr >= (uint64_t)b->cap)
    return access_error(st, e->slot, e->n, e->a, 0);
  return (int64_t)addr;
}

static double x_fload_f32_v(tsli_state *st, const tsli_x *e) {
  int64_t at = address_v(st, e);
  return at < 0 ? 0.0 : ((const float *)st->bufs[e->slot].data)[at];
}

static double x_fload_f32(tsli_state *st, const tsli_x *e) {
  int64_t at = address(st, e->slot, e->n, e->a, e->vslots, 0);
  return at < 0 ? 0.0 : ((const float *)st->bufs[e->slot].data)[at];
}
static double x_fload(tsli_state *st, const tsli_x *e) {
  int64_t at = address(st, e->slot, e->n, e->a, e->vslots, 0);
  return at < 0 ? 0.0 : tsli_read_f(st->bufs[e->slot].data, at, e->k);
}
static int64_t x_iload(tsli_state *st, const tsli_x *e) {
  int64_t at = address(st, e->slot, e->n, e->a, e->vslots, 0);
  return at < 0 ? 0 : tsli_read_i(st->bufs[e->slot].data, at, e->k);
}

#define FBIN(name, expr, round)                                                \
  static double name(tsli_state *st, const tsli_x *e) {                        \
    double a = ev_f(st, e->a[0]), b = ev_f(st, e->a[1]);                       \
    return round(expr);                                                        \
  }
#define R32(v) ((double)(float)(v))
#define R64(v) (v)
FBIN(x_fadd32, a + b, R32)
FBIN(x_fsub32, a - b, R32)
FBIN(x_fmul32, a *b, R32)
FBIN(x_fdiv32, a / b, R32)
FBIN(x_fadd64, a + b, R64)
FBIN(x_fsub64, a - b, R64)
FBIN(x_fmul64, a *b, R64)
FBIN(x_fdiv64, a / b, R64)
FBIN(x_fmin, a < b ? a : b, R64)
FBIN(x_fmax, a > b ? a : b, R64)
#undef FBIN

#define IBIN(name, expr)                                                       \
  static int64_t name(tsli_state *st, const tsli_x *e) {                       \
    uint64_t a = (uint64_t)ev_i(st, e->a[0]), b = (uint64_t)ev_i(st, e->a[1]); \
    return expr;                                                               \
  }
IBIN(x_iadd32, (int32_t)(uint32_t)(a + b))
IBIN(x_isub32, (int32_t)(uint32_t)(a - b))
IBIN(x_imul32, (int32_t)(uint32_t)(a *b))
IBIN(x_iadd64, (int64_t)(a + b))
IBIN(x_isub64, (int64_t)(a - b))
IBIN(x_imul64, (int64_t)(a *b))
#undef IBIN

static int64_t x_icmp(tsli_state *st, const tsli_x *e) {
  return cmp_i(e->sub, ev_i(st, e->a[0]), ev_i(st, e->a[1]));
}

void tsli_specialize(tsli_x *x) {
  int f32 = x->k == TSLI_F32, f64 = x->k == TSLI_F64;
  int i32 = x->k == TSLI_I32, i64 = x->k == TSLI_I64;
  x->fi = sw_i;
  x->ff = sw_f;
  switch (x->op) {
  case TSLI_X_IVAR:
    x->fi = x_ivar;
    break;
  case TSLI_X_ICONST:
    x->fi = x_iconst;
    break;
  case TSLI_X_FVAR:
    x->ff = x_fvar;
    break;
  case TSLI_X_FCONST:
    x->ff = x_fconst;
    break;
  case TSLI_X_FLOAD:
    x->ff = f32 ? (x->vslots ? x_fload_f32_v : x_fload_f32) : x_fload;
    break;
  case TSLI_X_ILOAD:
    x->fi = x_iload;
    break;
  case TSLI_X_FADD:
    x->ff = f32 ? x_fadd32 : f64 ? x_fadd64 : sw_f;
    break;
  case TSLI_X_FSUB:
    x->ff = f32 ? x_fsub32 : f64 ? x_fsub64 : sw_f;
    break;
  case TSLI_X_FMUL:
    x->ff = f32 ? x_fmul32 : f64 ? x_fmul64 : sw_f;
    break;
  case TSLI_X_FDIV:
    x->ff = f32 ? x_fdiv32 : f64 ? x_fdiv64 : sw_f;
    break;
  case TSLI_X_FMIN:
    x->ff = x_fmin;
    break;
  case TSLI_X_FMAX:
    x->ff = x_fmax;
    break;
  case TSLI_X_IADD:
    x->fi = i32 ? x_iadd32 : i64 ? x_iadd64 : sw_i;
    break;
  case TSLI_X_ISUB:
    x->fi = i32 ? x_isub32 : i64 ? x_isub64 : sw_i;
    break;
  case TSLI_X_IMUL:
    x->fi = i32 ? x_imul32 : i64 ? x_imul64 : sw_i;
    break;
  case TSLI_X_ICMP:
    x->fi = x_icmp;
    break;
  default:
    break;
  }
}

/* ---- blocks
 * ------------------------------------------------------------------ */

static int64_t eval_ok(tsli_state *st, const tsli_x *e, int *ok) {
  int64_t v = tsli_eval_i(st, e);
  if (st->status)
    *ok = 0;
  return v;
}

/* Allocate (or reuse) the zero-filled storage of an alloc_buffer. */
static int enter_alloc(tsli_state *st, const tsli_alloc *a) {
  tsli_rbuf *rb = &st->bufs[a->slot];
  const tsl_buffer *b = a->buffer;
  int ok = 1;
  rb->ndim = b->ndim;
  rb->kind = st->prog->bufs[a->slot].kind;
  for (uint32_t d = 0; d < b->ndim; d++) {
    rb->shape[d] = eval_ok(st, a->shape[d], &ok);
    if (ok && rb->shape[d] < 0)
      return tsli_fail(st, TSL_ERUNTIME,
                       "allocated buffer '%s' has negative dimension %lld "
                       "(dimension %u)",
                       b->name, (long long)rb->shape[d], d);
  }
  int64_t compact = 1;
  for (uint32_t d = b->ndim; d-- > 0;) {
    int64_t s = compact;
    if (a->strides) {
      const tsli_bind *bd = &a->strides[d];
      if (bd->mode == TSLI_B_BIND)
        st->vars[bd->slot].i = compact;
      else
        s = eval_ok(st, bd->expr, &ok);
      if (ok && s < 0)
        return tsli_fail(st, TSL_ERUNTIME,
                         "allocated buffer '%s' has negative stride %lld "
                         "(dimension %u)",
                         b->name, (long long)s, d);
    }
    rb->stride[d] = s;
    if (__builtin_mul_overflow(compact, rb->shape[d] ? rb->shape[d] : 1,
                               &compact))
      ok = 0;
  }
  int64_t off = 0;
  if (a->offset.mode == TSLI_B_BIND)
    st->vars[a->offset.slot].i = 0;
  else if (a->offset.mode == TSLI_B_CHECK)
    off = eval_ok(st, a->offset.expr, &ok);
  if (!ok)
    return st->status
               ? 0
               : tsli_fail(st, TSL_ERUNTIME,
                           "allocated buffer '%s' is too large", b->name);
  if (off < 0)
    return tsli_fail(st, TSL_ERUNTIME,
                     "allocated buffer '%s' has negative elem_offset %lld",
                     b->name, (long long)off);
  /* storage must cover elem_offset + the largest address */
  int64_t cap = off, last = 0, empty = 0;
  for (uint32_t d = 0; d < b->ndim; d++) {
    int64_t t;
    if (rb->shape[d] == 0)
      empty = 1;
    else if (__builtin_mul_overflow(rb->shape[d] - 1, rb->stride[d], &t) ||
             __builtin_add_overflow(last, t, &last))
      ok = 0;
  }
  if (!empty && (__builtin_add_overflow(cap, last + 1, &cap)))
    ok = 0;
  size_t es = tsli_kind_bytes(rb->kind);
  if (!ok || (uint64_t)cap > ((uint64_t)1 << 62) / es)
    return tsli_fail(st, TSL_ERUNTIME, "allocated buffer '%s' is too large",
                     b->name);
  size_t bytes = (size_t)cap * es;
  if (bytes > rb->owned_bytes || !rb->owned) {
    free(rb->owned);
    rb->owned_bytes = 0;
    rb->owned = malloc(bytes ? bytes : 1);
    if (!rb->owned)
      return tsli_fail(st, TSL_ENOMEM,
                       "out of memory allocating buffer '%s' (%zu bytes)",
                       b->name, bytes);
    rb->owned_bytes = bytes;
  }
  if (!a->poison)
    memset(rb->owned, 0, bytes);
  else if (tsli_is_float(rb->kind))
    for (int64_t i = 0; i < cap; i++)
      tsli_write_f(rb->owned, i, rb->kind, NAN);
  else
    memset(rb->owned, 0xA5, bytes);
  rb->data = rb->owned;
  rb->cap = cap;
  rb->off = off;
  return 1;
}

static int bind_or_check(tsli_state *st, const tsli_bind *bd, int64_t actual,
                         const tsl_buffer *b, const char *what, int dim) {
  if (bd->mode == TSLI_B_BIND) {
    st->vars[bd->slot].i = actual;
    return 1;
  }
  if (bd->mode != TSLI_B_CHECK)
    return 1;
  int64_t want = tsli_eval_i(st, bd->expr);
  if (st->status)
    return 0;
  if (want == actual)
    return 1;
  char buf[256];
  if (dim >= 0)
    return tsli_fail(st, TSL_ERUNTIME,
                     "match_buffer '%s' declares %s %lld ('%s') for dimension "
                     "%d, but the region it views has %lld",
                     b->name, what, (long long)want,
                     src_text(bd->expr->src, buf, sizeof buf), dim,
                     (long long)actual);
  return tsli_fail(st, TSL_ERUNTIME,
                   "match_buffer '%s' declares %s %lld ('%s'), but the region "
                   "it views has %lld",
                   b->name, what, (long long)want,
                   src_text(bd->expr->src, buf, sizeof buf), (long long)actual);
}

static int enter_match(tsli_state *st, const tsli_match *m) {
  const tsli_rbuf *src = &st->bufs[m->src_slot];
  tsli_rbuf *rb = &st->bufs[m->slot];
  const tsl_buffer *b = m->buffer;
  const tsl_buffer *sb = st->prog->bufs[m->src_slot].buffer;
  int64_t mn[TSL_MAX_NDIM], ex[TSL_MAX_NDIM];
  int ok = 1;
  int64_t off = src->off;
  for (uint32_t d = 0; d < m->src_ndim; d++) {
    mn[d] = eval_ok(st, m->rmin[d], &ok);
    ex[d] = eval_ok(st, m->rext[d], &ok);
  }
  if (!ok)
    return 0;
  for (uint32_t d = 0; d < m->src_ndim; d++) {
    if (mn[d] < 0 || ex[d] < 0 || mn[d] > src->shape[d] ||
        ex[d] > src->shape[d] - mn[d]) {
      tsl_strbuf r, s;
      tsl_strbuf_init(&r);
      tsl_strbuf_init(&s);
      for (uint32_t i = 0; i < m->src_ndim; i++)
        tsl_strbuf_printf(&r, "%s%lld:%lld", i ? ", " : "", (long long)mn[i],
                          (long long)((uint64_t)mn[i] + (uint64_t)ex[i]));
      tsli_fmt_shape_vals(&s, src->ndim, src->shape);
      tsli_fail(st, TSL_ERUNTIME,
                "match_buffer '%s' views %s[%s], which is outside buffer '%s' "
                "of shape %s (dimension %u)",
                b->name, sb->name, r.data, sb->name, s.data, d);
      tsl_strbuf_free(&r);
      tsl_strbuf_free(&s);
      return 0;
    }
    off += mn[d] * src->stride[d];
  }
  uint32_t lead = m->src_ndim - b->ndim;
  for (uint32_t d = 0; d < lead; d++)
    if (ex[d] != 1)
      return tsli_fail(st, TSL_ERUNTIME,
                       "match_buffer '%s' has %u dimensions, so the first %u "
                       "ranges of the region of '%s' must have extent 1, but "
                       "range %u has extent %lld",
                       b->name, b->ndim, lead, sb->name, d, (long long)ex[d]);
  rb->data = src->data;
  rb->cap = src->cap;
  rb->off = off;
  rb->ndim = b->ndim;
  rb->kind = src->kind;
  for (uint32_t d = 0; d < b->ndim; d++) {
    rb->shape[d] = ex[lead + d];
    rb->stride[d] = src->stride[lead + d];
    if (!bind_or_check(st, &m->shape[d], rb->shape[d], b, "extent", (int)d))
      return 0;
    if (m->strides &&
        !bind_or_check(st, &m->strides[d], rb->stride[d], b, "stride", (int)d))
      return 0;
  }
  return bind_or_check(st, &m->offset, off, b, "elem_offset", -1);
}

static void __attribute__((noinline))
exec_store(tsli_state *st, const tsli_s *s) {
  int64_t at = address(st, s->slot, s->n, s->idx, s->vslots, 1);
  if (at < 0)
    return;
  tsli_rbuf *b = &st->bufs[s->slot];
  if (tsli_is_float(s->k)) {
    double v = ev_f(st, s->e0);
    if (!st->status)
      tsli_write_f(b->data, at, s->k, v);
  } else {
    int64_t v = ev_i(st, s->e0);
    if (!st->status)
      tsli_write_i(b->data, at, s->k, v);
  }
}

static void __attribute__((noinline))
domain_error(tsli_state *st, const tsli_block *cb, uint32_t i, int64_t v,
             int64_t lo, int64_t ext) {
  tsli_fail(st, TSL_ERUNTIME,
            "iteration variable '%s' is bound to %lld, outside its domain "
            "[%lld, %lld)",
            cb->block->iter_vars[i].var->name, (long long)v, (long long)lo,
            (long long)((uint64_t)lo + (uint64_t)ext));
}

static void __attribute__((noinline))
exec_block(tsli_state *st, const tsli_block *cb) {
  tsl_str outer = st->block;
  st->block = cb->name;
  int do_init = cb->init != NULL;
  if (cb->simple) {
    /* the common case: bind, check and test for init in one pass */
    for (uint32_t i = 0; i < cb->n_iter; i++) {
      int64_t v = st->vars[cb->iter_src[i]].i;
      st->vars[cb->iter_slot[i]].i = v;
      if (v < cb->cmin[i] ||
          (uint64_t)v - (uint64_t)cb->cmin[i] >= (uint64_t)cb->cext[i]) {
        domain_error(st, cb, i, v, cb->cmin[i], cb->cext[i]);
        return;
      }
      if (cb->iter_reduce[i] && v != cb->cmin[i])
        do_init = 0;
    }
    goto bound;
  }
  for (uint32_t i = 0; i < cb->n_iter; i++)
    st->vars[cb->iter_slot[i]].i = cb->iter_src[i] >= 0
                                       ? st->vars[cb->iter_src[i]].i
                                       : ev_i(st, cb->iter_value[i]);
  if (st->status)
    return;
  if (cb->pred && (!tsli_eval_i(st, cb->pred) || st->status)) {
    st->block = outer;
    return;
  }
  for (uint32_t i = 0; i < cb->n_iter; i++) {
    int64_t v = st->vars[cb->iter_slot[i]].i;
    int64_t lo, ext;
    if (cb->dom_const) {
      lo = cb->cmin[i];
      ext = cb->cext[i];
    } else {
      lo = ev_i(st, cb->dom_min[i]);
      ext = ev_i(st, cb->dom_ext[i]);
      if (st->status)
        return;
    }
    if (v < lo || (uint64_t)v - (uint64_t)lo >= (uint64_t)ext) {
      domain_error(st, cb, i, v, lo, ext);
      return;
    }
    if (cb->iter_reduce[i] && v != lo)
      do_init = 0;
  }
bound:
  for (uint32_t i = 0; i < cb->n_alloc; i++)
    if (!enter_alloc(st, &cb->allocs[i]))
      return;
  for (uint32_t i = 0; i < cb->n_match; i++)
    if (!enter_match(st, &cb->matches[i]))
      return;
  if (do_init) {
    tsli_exec(st, cb->init);
    if (st->status)
      return;
  }
  tsli_exec(st, cb->body);
  if (!st->status)
    st->block = outer;
}

/* ---- statements
 * ----------------------------------------------------------------- */

/* The race oracle: a loop whose iterations may run in any order runs them
 * reversed, or in a Fisher-Yates shuffle drawn at every entry. */
static uint64_t next_rand(tsli_state *st) {
  uint64_t z = (st->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void exec_reordered(tsli_state *st, const tsli_s *s, int64_t lo,
                           int64_t n) {
  tsli_val *v = &st->vars[s->slot];
  int64_t *perm = NULL;
  if (st->order == TSL_INTERP_ORDER_SHUFFLED && n <= ((int64_t)1 << 26))
    perm = malloc(sizeof *perm * (size_t)n);
  if (perm) {
    for (int64_t i = 0; i < n; i++)
      perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
      int64_t j = (int64_t)(next_rand(st) % (uint64_t)(i + 1));
      int64_t t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
  }
  for (int64_t k = 0; k < n && !st->status; k++) {
    int64_t i = perm ? perm[k] : n - 1 - k;
    v->i = (int64_t)((uint64_t)lo + (uint64_t)i);
    tsli_exec(st, s->s0);
  }
  free(perm);
}

void tsli_exec(tsli_state *st, const tsli_s *s) {
  switch (s->op) {
  case TSLI_S_FOR: {
    int64_t lo = tsli_eval_i(st, s->e0), n = tsli_eval_i(st, s->e1);
    if (st->status)
      return;
    tsli_val *v = &st->vars[s->slot];
    if (s->reorder && st->order != TSL_INTERP_ORDER_NATURAL && n > 1) {
      exec_reordered(st, s, lo, n);
      return;
    }
    for (int64_t i = 0; i < n; i++) {
      v->i = (int64_t)((uint64_t)lo + (uint64_t)i);
      tsli_exec(st, s->s0);
      if (st->status)
        return;
    }
    return;
  }
  case TSLI_S_BLOCK:
    exec_block(st, s->block);
    return;
  case TSLI_S_STORE:
    exec_store(st, s);
    return;
  case TSLI_S_IF: {
    int64_t c = tsli_eval_i(st, s->e0);
    if (st->status)
      return;
    if (c)
      tsli_exec(st, s->s0);
    else if (s->s1)
      tsli_exec(st, s->s1);
    return;
  }
  case TSLI_S_LET:
    if (tsli_is_float(s->k))
      st->vars[s->slot].f = tsli_eval_f(st, s->e0);
    else
      st->vars[s->slot].i = tsli_eval_i(st, s->e0);
    if (!st->status)
      tsli_exec(st, s->s0);
    return;
  case TSLI_S_EVAL:
    if (tsli_is_float(s->e0->k))
      (void)tsli_eval_f(st, s->e0);
    else
      (void)tsli_eval_i(st, s->e0);
    return;
  case TSLI_S_SEQ:
    for (uint32_t i = 0; i < s->n && !st->status; i++)
      tsli_exec(st, s->list[i]);
    return;
  case TSLI_S_ALLOC:
    if (enter_alloc(st, s->alloc))
      tsli_exec(st, s->s0);
    return;
  default:
    tsli_fail(st, TSL_ERUNTIME, "internal error: statement op %d", s->op);
    return;
  }
}
