/*
 * The interpreter's compiler: turns a prim_func into the slot-indexed node
 * tree of interp_internal.h. It resolves every variable and buffer to a slot
 * through a scoped map (a fresh slot per binding, so shadowing needs no
 * save/restore at run time), decides the numeric kind of every operation,
 * inserts explicit conversions where operand and result kinds differ, and
 * reports everything the evaluator cannot run (vectors, unknown externs,
 * undefined variables or buffers, arity errors) as a clear error.
 */
#include "interp_internal.h"

#include "tessel/visit.h"

#include <stdio.h>
#include <stdlib.h>

/* Combined statement + expression nesting the interpreter accepts; the
 * evaluator recurses as deep as the compiled tree, so this bounds its stack. */
#define MAX_DEPTH 2000

/* ---- pool ---------------------------------------------------------------- */

struct tsli_chunk {
  struct tsli_chunk *next;
  max_align_t align_;
};

void *tsli_pool_alloc(tsli_pool *p, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size > p->left) {
    size_t cap = size > 65536 ? size : 65536;
    struct tsli_chunk *c = calloc(1, sizeof *c + cap + 16);
    if (!c) {
      fprintf(stderr, "tessel: out of memory in the interpreter\n");
      abort();
    }
    c->next = p->head;
    p->head = c;
    uintptr_t at = (uintptr_t)(c + 1);
    at = (at + 15) & ~(uintptr_t)15;
    p->cur = (char *)at;
    p->left = cap;
  }
  void *r = p->cur;
  p->cur += size;
  p->left -= size;
  return r;
}

void tsli_pool_free(tsli_pool *p) {
  struct tsli_chunk *c = p->head;
  while (c) {
    struct tsli_chunk *n = c->next;
    free(c);
    c = n;
  }
  memset(p, 0, sizeof *p);
}

/* ---- compiler state -------------------------------------------------------
 */

typedef struct comp {
  tsli_prog *prog;
  tsl_diag *diag;
  int status;
  tsl_map vars, bufs; /* variable / buffer -> slot (TSL_MAP_INT), in scope */
  tsl_vec scopes;     /* tsl_map_logged: the bindings of the open scopes */
  tsl_vec bufinfo;    /* tsli_bufinfo by slot: prog->bufs (heap) */
  int depth;
  tsl_str block; /* innermost block being compiled, for messages */
} comp;

static void *cfail(comp *c, int status, const char *fmt, ...) TSL_PRINTF(3, 4);
static void *cfail(comp *c, int status, const char *fmt, ...) {
  if (c->status)
    return NULL;
  c->status = status;
  if (c->diag) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->diag->text, sizeof c->diag->text, fmt, ap);
    va_end(ap);
    c->diag->struct_size = sizeof *c->diag;
    if (c->block)
      tsl_diag_append(c->diag, " (in block '%s')", c->block);
    c->diag->len = (uint32_t)strlen(c->diag->text);
  }
  return NULL;
}

/* Message text of an expression, valid until the next call (kept in a
 * small rotating set of buffers owned by the pool). */
static const char *etext(comp *c, const tsl_expr *e) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsli_fmt_expr(&sb, e);
  size_t n = sb.len < 200 ? sb.len : 200;
  char *out = tsli_pool_alloc(&c->prog->pool, n + 4);
  memcpy(out, sb.data ? sb.data : "", n);
  if (n < sb.len)
    memcpy(out + n, "...", 4);
  tsl_strbuf_free(&sb);
  return out;
}

/* The slot of a variable or buffer in scope, or -1. */
static int32_t slot_of(const tsl_map *m, const void *key) {
  return (int32_t)tsl_map_get_int(m, key, -1);
}

/* Bindings are undone with tsl_map_unbind_to(&c->scopes, mark). */
static int32_t new_var_slot(comp *c, const tsl_var *v) {
  int32_t s = c->prog->n_vars++;
  tsl_map_bind_logged(&c->scopes, &c->vars, v, TSL_MAP_INT(s));
  return s;
}

static int32_t new_buf_slot(comp *c, const tsl_buffer *b, int kind) {
  tsli_bufinfo *bi = tsl_vec_push(&c->bufinfo);
  bi->buffer = b;
  bi->kind = kind;
  c->prog->bufs = c->bufinfo.data;
  int32_t s = c->prog->n_bufs++;
  tsl_map_bind_logged(&c->scopes, &c->bufs, b, TSL_MAP_INT(s));
  return s;
}

static const char *dname(tsl_dtype t, char *buf) {
  return tsl_dtype_str(t, buf);
}

/* ---- expressions --------------------------------------------------------- */

static tsli_x *new_x(comp *c, int op, int k, uint32_t n, const tsl_expr *src) {
  tsli_x *x = tsli_pool_alloc(&c->prog->pool, sizeof *x + sizeof x->a[0] * n);
  x->op = (uint8_t)op;
  x->k = (uint8_t)k;
  x->n = n;
  x->src = src;
  x->slot = -1;
  tsli_specialize(x);
  return x;
}

static tsli_x *iconst(comp *c, int64_t v, int k, const tsl_expr *src) {
  tsli_x *x = new_x(c, TSLI_X_ICONST, k, 0, src);
  x->imm.i = tsli_wrap(v, k);
  tsli_specialize(x);
  return x;
}

static tsli_x *fconst(comp *c, double v, int k, const tsl_expr *src) {
  tsli_x *x = new_x(c, TSLI_X_FCONST, k, 0, src);
  x->imm.f = tsli_round(v, k);
  tsli_specialize(x);
  return x;
}

static int kind_bits(int k) {
  static const int bits[] = {8, 16, 32, 64, 8, 16, 32, 64, 1};
  return bits[k];
}

/* Every value of int kind `s` is representable in int kind `d`. */
static int int_fits(int s, int d) {
  if (s == d || s == TSLI_BOOL)
    return 1;
  if (d == TSLI_BOOL)
    return 0;
  int su = tsli_is_unsigned(s), du = tsli_is_unsigned(d);
  if (su == du)
    return kind_bits(d) >= kind_bits(s);
  return su && kind_bits(d) > kind_bits(s); /* unsigned into wider signed */
}

/* Convert `x` to kind `k` with C cast semantics. */
static tsli_x *coerce(comp *c, tsli_x *x, int k) {
  if (!x || x->k == k)
    return x;
  int xf = tsli_is_float(x->k), kf = tsli_is_float(k);
  if (x->op == TSLI_X_ICONST) {
    if (kf)
      return fconst(c, tsli_i2f(x->imm.i, x->k), k, x->src);
    return iconst(c, x->imm.i, k, x->src);
  }
  if (x->op == TSLI_X_FCONST) {
    if (kf)
      return fconst(c, x->imm.f, k, x->src);
    return iconst(c, tsli_f2i(x->imm.f, k), k, x->src);
  }
  tsli_x *r;
  if (xf && kf) {
    /* widening float conversions are exact */
    if (k == TSLI_F64 || (k == TSLI_F32 && x->k != TSLI_F64))
      return x;
    r = new_x(c, TSLI_X_FROUND, k, 1, x->src);
  } else if (xf) {
    r = new_x(c, TSLI_X_F2I, k, 1, x->src);
  } else if (kf) {
    r = new_x(c, TSLI_X_I2F, k, 1, x->src);
    r->sub = x->k;
  } else {
    if (int_fits(x->k, k))
      return x;
    r = new_x(c, TSLI_X_IWRAP, k, 1, x->src);
  }
  r->a[0] = x;
  return r;
}

static tsli_x *cexpr(comp *c, const tsl_expr *e);

/* Slots of the indices when all are plain int variables, else NULL. */
static const int32_t *var_slots(comp *c, uint32_t n, tsli_x *const *ix) {
  for (uint32_t d = 0; d < n; d++)
    if (ix[d]->op != TSLI_X_IVAR)
      return NULL;
  int32_t *s = tsli_pool_alloc(&c->prog->pool, sizeof *s * (n + 1));
  for (uint32_t d = 0; d < n; d++)
    s[d] = ix[d]->slot;
  return s;
}

static tsli_x *cexpr_as(comp *c, const tsl_expr *e, int k) {
  return coerce(c, cexpr(c, e), k);
}

/* Internal function ids beyond TSL_INTRIN_COUNT, for extern libm names
 * whose semantics no intrinsic has. */
enum {
  IN_CROUND = TSL_INTRIN_COUNT, /* C round(): half away from zero */
  IN_FMAX,
  IN_FMIN
};

static const struct {
  const char *name;
  int id;
  int arity;
} extern_table[] = {
    {"exp", TSL_INTRIN_EXP, 1},
    {"expf", TSL_INTRIN_EXP, 1},
    {"exp2", TSL_INTRIN_EXP2, 1},
    {"exp2f", TSL_INTRIN_EXP2, 1},
    {"exp10", TSL_INTRIN_EXP10, 1},
    {"exp10f", TSL_INTRIN_EXP10, 1},
    {"log", TSL_INTRIN_LOG, 1},
    {"logf", TSL_INTRIN_LOG, 1},
    {"log2", TSL_INTRIN_LOG2, 1},
    {"log2f", TSL_INTRIN_LOG2, 1},
    {"log10", TSL_INTRIN_LOG10, 1},
    {"log10f", TSL_INTRIN_LOG10, 1},
    {"log1p", TSL_INTRIN_LOG1P, 1},
    {"log1pf", TSL_INTRIN_LOG1P, 1},
    {"sqrt", TSL_INTRIN_SQRT, 1},
    {"sqrtf", TSL_INTRIN_SQRT, 1},
    {"tanh", TSL_INTRIN_TANH, 1},
    {"tanhf", TSL_INTRIN_TANH, 1},
    {"fabs", TSL_INTRIN_FABS, 1},
    {"fabsf", TSL_INTRIN_FABS, 1},
    {"pow", TSL_INTRIN_POW, 2},
    {"powf", TSL_INTRIN_POW, 2},
    {"floor", TSL_INTRIN_FLOOR, 1},
    {"floorf", TSL_INTRIN_FLOOR, 1},
    {"ceil", TSL_INTRIN_CEIL, 1},
    {"ceilf", TSL_INTRIN_CEIL, 1},
    {"trunc", TSL_INTRIN_TRUNC, 1},
    {"truncf", TSL_INTRIN_TRUNC, 1},
    {"round", IN_CROUND, 1},
    {"roundf", IN_CROUND, 1},
    {"nearbyint", TSL_INTRIN_NEARBYINT, 1},
    {"nearbyintf", TSL_INTRIN_NEARBYINT, 1},
    {"rint", TSL_INTRIN_NEARBYINT, 1},
    {"rintf", TSL_INTRIN_NEARBYINT, 1},
    {"sin", TSL_INTRIN_SIN, 1},
    {"sinf", TSL_INTRIN_SIN, 1},
    {"cos", TSL_INTRIN_COS, 1},
    {"cosf", TSL_INTRIN_COS, 1},
    {"tan", TSL_INTRIN_TAN, 1},
    {"tanf", TSL_INTRIN_TAN, 1},
    {"erf", TSL_INTRIN_ERF, 1},
    {"erff", TSL_INTRIN_ERF, 1},
    {"atan", TSL_INTRIN_ATAN, 1},
    {"atanf", TSL_INTRIN_ATAN, 1},
    {"fmod", TSL_INTRIN_FMOD, 2},
    {"fmodf", TSL_INTRIN_FMOD, 2},
    {"fmax", IN_FMAX, 2},
    {"fmaxf", IN_FMAX, 2},
    {"fmin", IN_FMIN, 2},
    {"fminf", IN_FMIN, 2},
};

/* A call of function `id` (intrinsic or IN_*) with the args of `e`. */
static tsli_x *ccall(comp *c, const tsl_expr *e, int id, int k) {
  if (id == TSL_INTRIN_ISNAN) {
    tsli_x *a = cexpr(c, e->args[0]);
    if (!a)
      return NULL;
    if (!tsli_is_float(a->k))
      return coerce(c, iconst(c, 0, TSLI_BOOL, e), k);
    tsli_x *x = new_x(c, TSLI_X_ISNAN, TSLI_BOOL, 1, e);
    x->a[0] = a;
    return coerce(c, x, k);
  }
  if (!tsli_is_float(k)) {
    /* integer results: abs and the rounding functions stay integral */
    switch (id) {
    case TSL_INTRIN_ABS:
    case TSL_INTRIN_FABS: {
      tsli_x *a = cexpr(c, e->args[0]);
      if (a && !tsli_is_float(a->k)) {
        tsli_x *x = new_x(c, TSLI_X_IABS, k, 1, e);
        x->a[0] = coerce(c, a, k);
        return x;
      }
      break;
    }
    case TSL_INTRIN_FLOOR:
    case TSL_INTRIN_CEIL:
    case TSL_INTRIN_ROUND:
    case TSL_INTRIN_TRUNC:
    case TSL_INTRIN_NEARBYINT:
    case IN_CROUND: {
      tsli_x *a = cexpr(c, e->args[0]);
      if (a && !tsli_is_float(a->k))
        return coerce(c, a, k);
      break;
    }
    default:
      break;
    }
    if (c->status)
      return NULL;
  }
  int ck = tsli_is_float(k) ? k : TSLI_F64;
  tsli_x *x = new_x(c, TSLI_X_FCALL, ck, e->n_args, e);
  x->sub = (uint16_t)id;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (!(x->a[i] = cexpr_as(c, e->args[i], ck)))
      return NULL;
  return coerce(c, x, k);
}

/* TVM builtins: the hints the table marks computable (T.likely is its
 * argument, T.assume is true); every other builtin and a bare `A.data` are
 * refused by name. */
static tsli_x *cbuiltin(comp *c, const tsl_expr *e) {
  if (e->kind == TSL_EXPR_BUFFER_DATA)
    return cfail(c, TSL_EUNSUPPORTED,
                 "%s.data cannot be interpreted: it is the raw pointer of "
                 "buffer '%s'; the interpreter runs only buffer loads, "
                 "stores and arithmetic",
                 e->u.buffer->name, e->u.buffer->name);
  if (e->intrin >= TSL_BUILTIN_COUNT)
    return cfail(c, TSL_EINVALID, "call of unknown builtin id %u",
                 (unsigned)e->intrin);
  const tsl_builtin_info *bi = tsl_builtin_info_of((tsl_builtin)e->intrin);
  if (bi->n_args >= 0 && (int32_t)e->n_args != bi->n_args)
    return cfail(c, TSL_EINVALID, "T.%s takes %d argument%s, got %u",
                 bi->name, (int)bi->n_args, bi->n_args == 1 ? "" : "s",
                 e->n_args);
  switch (bi->eval) {
  case TSL_BUILTIN_EVAL_ARG0:
    return cexpr(c, e->args[0]);
  case TSL_BUILTIN_EVAL_TRUE:
    return iconst(c, 1, TSLI_BOOL, e);
  default:
    return cfail(c, TSL_EUNSUPPORTED,
                 "T.%s cannot be interpreted: %s; the interpreter runs only "
                 "buffer loads, stores and arithmetic",
                 bi->name, bi->what);
  }
}

/* Vector lanes and dtypes the evaluator cannot compute are refused before
 * any value expression is compiled; 0 after the failure. */
static int check_scalar(comp *c, const tsl_expr *e, int k) {
  char dn[32];
  if (e->dtype.lanes != 1) {
    cfail(c, TSL_EUNSUPPORTED,
          "the interpreter does not support vector dtype %s (in '%s'); "
          "only scalar (lanes = 1) programs can be interpreted",
          dname(e->dtype, dn), etext(c, e));
    return 0;
  }
  if (k == TSLI_NONE) {
    cfail(c, TSL_EUNSUPPORTED,
          "the interpreter cannot compute values of dtype %s (in '%s')",
          dname(e->dtype, dn), etext(c, e));
    return 0;
  }
  return 1;
}

/* An int or float literal as a constant of kind `k`. */
static tsli_x *cconst(comp *c, const tsl_expr *e, int k) {
  if (e->kind == TSL_EXPR_INT_IMM) {
    if (tsli_is_float(k))
      return fconst(c, (double)e->u.int_value, k, e);
    return iconst(c, e->u.int_value, k, e);
  }
  if (!tsli_is_float(k))
    return iconst(c, tsli_f2i(e->u.float_value, k), k, e);
  return fconst(c, e->u.float_value, k, e);
}

static tsli_x *cvar(comp *c, const tsl_expr *e, int k) {
  char dn[32];
  const tsl_var *v = e->u.var;
  int32_t s = slot_of(&c->vars, v);
  if (s < 0)
    return cfail(c, TSL_EINVALID,
                 "variable '%s' is used where it has no value: it is not a "
                 "loop variable, block iteration variable, let binding, "
                 "scalar parameter or shape variable in scope",
                 v->name);
  int vk = tsli_kind_of(v->dtype);
  if (vk == TSLI_NONE)
    return cfail(c, TSL_EUNSUPPORTED,
                 "variable '%s' has dtype %s, which the interpreter cannot "
                 "compute with",
                 v->name, dname(v->dtype, dn));
  tsli_x *x = new_x(c, tsli_is_float(vk) ? TSLI_X_FVAR : TSLI_X_IVAR, vk, 0, e);
  x->slot = s;
  return coerce(c, x, k);
}

static tsli_x *cload(comp *c, const tsl_expr *e, int k) {
  const tsl_buffer *b = e->u.buffer;
  int32_t s = slot_of(&c->bufs, b);
  if (s < 0)
    return cfail(c, TSL_EINVALID,
                 "buffer '%s' is read where it is not defined: it is not a "
                 "parameter, nor an alloc_buffer or match_buffer of an "
                 "enclosing block",
                 b->name);
  if (e->n_args != b->ndim)
    return cfail(c, TSL_EINVALID,
                 "'%s' indexes buffer '%s' with %u indices, but it has %u "
                 "dimensions",
                 etext(c, e), b->name, e->n_args, b->ndim);
  int bk = c->prog->bufs[s].kind;
  tsli_x *x = new_x(c, tsli_is_float(bk) ? TSLI_X_FLOAD : TSLI_X_ILOAD, bk,
                    e->n_args, e);
  x->slot = s;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (!(x->a[i] = cexpr_as(c, e->args[i], TSLI_I64)))
      return NULL;
  x->vslots = var_slots(c, x->n, x->a);
  tsli_specialize(x);
  return coerce(c, x, k);
}

/* The evaluator op of binary arithmetic `kind` on values of kind `k`. */
static int arith_op(tsl_expr_kind kind, int k) {
  int fl = tsli_is_float(k), u64 = k == TSLI_U64;
  switch (kind) {
  case TSL_EXPR_ADD:
    return fl ? TSLI_X_FADD : TSLI_X_IADD;
  case TSL_EXPR_SUB:
    return fl ? TSLI_X_FSUB : TSLI_X_ISUB;
  case TSL_EXPR_MUL:
    return fl ? TSLI_X_FMUL : TSLI_X_IMUL;
  case TSL_EXPR_DIV:
    return fl ? TSLI_X_FDIV : u64 ? TSLI_X_UDIV : TSLI_X_IDIV;
  case TSL_EXPR_MOD:
    return fl ? TSLI_X_FMOD : u64 ? TSLI_X_UMOD : TSLI_X_IMOD;
  case TSL_EXPR_FLOORDIV:
    return fl ? TSLI_X_FFLOORDIV : u64 ? TSLI_X_UDIV : TSLI_X_IFLOORDIV;
  case TSL_EXPR_FLOORMOD:
    return fl ? TSLI_X_FFLOORMOD : u64 ? TSLI_X_UMOD : TSLI_X_IFLOORMOD;
  case TSL_EXPR_MIN:
    return fl ? TSLI_X_FMIN : u64 ? TSLI_X_UMIN : TSLI_X_IMIN;
  default:
    return fl ? TSLI_X_FMAX : u64 ? TSLI_X_UMAX : TSLI_X_IMAX;
  }
}

/* Binary arithmetic and negation: operands and result of kind `k`. */
static tsli_x *carith(comp *c, const tsl_expr *e, int k) {
  if (e->kind == TSL_EXPR_NEG) {
    tsli_x *x = new_x(c, tsli_is_float(k) ? TSLI_X_FNEG : TSLI_X_INEG, k, 1, e);
    if (!(x->a[0] = cexpr_as(c, e->args[0], k)))
      return NULL;
    return x;
  }
  tsli_x *x = new_x(c, arith_op((tsl_expr_kind)e->kind, k), k, 2, e);
  if (!(x->a[0] = cexpr_as(c, e->args[0], k)) ||
      !(x->a[1] = cexpr_as(c, e->args[1], k)))
    return NULL;
  return x;
}

/* Comparisons: both operands widened to f64 when either is a float, to u64
 * when either is u64; a bool result. */
static tsli_x *ccompare(comp *c, const tsl_expr *e, int k) {
  tsli_x *a = cexpr(c, e->args[0]), *b = a ? cexpr(c, e->args[1]) : NULL;
  if (!b)
    return NULL;
  int op = TSLI_X_ICMP;
  if (tsli_is_float(a->k) || tsli_is_float(b->k)) {
    op = TSLI_X_FCMP;
    a = coerce(c, a, TSLI_F64);
    b = coerce(c, b, TSLI_F64);
  } else if (a->k == TSLI_U64 || b->k == TSLI_U64) {
    op = TSLI_X_UCMP;
    a = coerce(c, a, TSLI_U64);
    b = coerce(c, b, TSLI_U64);
  }
  tsli_x *x = new_x(c, op, TSLI_BOOL, 2, e);
  x->sub = (uint16_t)e->kind;
  x->a[0] = a;
  x->a[1] = b;
  return coerce(c, x, k);
}

/* and, or, not: on bools. */
static tsli_x *clogic(comp *c, const tsl_expr *e, int k) {
  tsli_x *x;
  if (e->kind == TSL_EXPR_NOT) {
    x = new_x(c, TSLI_X_NOT, TSLI_BOOL, 1, e);
    if (!(x->a[0] = cexpr_as(c, e->args[0], TSLI_BOOL)))
      return NULL;
    return coerce(c, x, k);
  }
  x = new_x(c, e->kind == TSL_EXPR_AND ? TSLI_X_AND : TSLI_X_OR, TSLI_BOOL, 2,
            e);
  if (!(x->a[0] = cexpr_as(c, e->args[0], TSLI_BOOL)) ||
      !(x->a[1] = cexpr_as(c, e->args[1], TSLI_BOOL)))
    return NULL;
  return coerce(c, x, k);
}

/* T.Select and T.if_then_else: a bool condition, both arms of kind `k`. */
static tsli_x *cselect(comp *c, const tsl_expr *e, int k) {
  int fl = tsli_is_float(k);
  int op = e->kind == TSL_EXPR_SELECT ? (fl ? TSLI_X_FSELECT : TSLI_X_ISELECT)
                                      : (fl ? TSLI_X_FIFTE : TSLI_X_IIFTE);
  tsli_x *x = new_x(c, op, k, 3, e);
  if (!(x->a[0] = cexpr_as(c, e->args[0], TSLI_BOOL)) ||
      !(x->a[1] = cexpr_as(c, e->args[1], k)) ||
      !(x->a[2] = cexpr_as(c, e->args[2], k)))
    return NULL;
  return x;
}

/* A call of a TVM intrinsic, its id and arity checked. */
static tsli_x *cintrin_call(comp *c, const tsl_expr *e, int k) {
  if (e->intrin >= TSL_INTRIN_COUNT)
    return cfail(c, TSL_EINVALID, "call of unknown intrinsic id %u",
                 (unsigned)e->intrin);
  tsl_intrin id = (tsl_intrin)e->intrin;
  if ((int32_t)e->n_args != tsl_intrin_arity(id))
    return cfail(c, TSL_EINVALID, "T.%s takes %d argument%s, got %u",
                 tsl_intrin_name(id), (int)tsl_intrin_arity(id),
                 tsl_intrin_arity(id) == 1 ? "" : "s", e->n_args);
  return ccall(c, e, (int)id, k);
}

/* call_extern of a libm name of extern_table. */
static tsli_x *cextern_call(comp *c, const tsl_expr *e, int k) {
  const char *name = e->u.str_value ? e->u.str_value : "";
  for (size_t i = 0; i < sizeof extern_table / sizeof extern_table[0]; i++)
    if (strcmp(extern_table[i].name, name) == 0) {
      if ((int)e->n_args != extern_table[i].arity)
        return cfail(c, TSL_EINVALID,
                     "call_extern(\"%s\") takes %d argument%s, got %u", name,
                     extern_table[i].arity,
                     extern_table[i].arity == 1 ? "" : "s", e->n_args);
      return ccall(c, e, extern_table[i].id, k);
    }
  return cfail(c, TSL_EUNSUPPORTED,
               "the interpreter cannot call external function '%s'; "
               "call_extern supports only these libm names: exp, exp2, "
               "exp10, log, log2, log10, log1p, sqrt, tanh, fabs, pow, "
               "floor, ceil, trunc, round, nearbyint, rint, sin, cos, tan, "
               "erf, atan, fmod, fmax, fmin (and their 'f' variants)",
               name);
}

static tsli_x *cexpr_inner(comp *c, const tsl_expr *e) {
  tsl_expr_kind kind = (tsl_expr_kind)e->kind;
  if (kind == TSL_EXPR_BUILTIN || kind == TSL_EXPR_BUFFER_DATA)
    return cbuiltin(c, e);
  int k = tsli_kind_of(e->dtype);
  if (kind != TSL_EXPR_STR_IMM && !check_scalar(c, e, k))
    return NULL;
  switch (kind) {
  case TSL_EXPR_INT_IMM:
  case TSL_EXPR_FLOAT_IMM:
    return cconst(c, e, k);
  case TSL_EXPR_STR_IMM:
    return cfail(c, TSL_EUNSUPPORTED,
                 "a string constant (\"%s\") has no numeric value; strings "
                 "may only name call_extern functions",
                 e->u.str_value ? e->u.str_value : "");
  case TSL_EXPR_VAR:
    return cvar(c, e, k);
  case TSL_EXPR_LOAD:
    return cload(c, e, k);
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
  case TSL_EXPR_MUL:
  case TSL_EXPR_DIV:
  case TSL_EXPR_MOD:
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD:
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX:
  case TSL_EXPR_NEG:
    return carith(c, e, k);
  case TSL_EXPR_EQ:
  case TSL_EXPR_NE:
  case TSL_EXPR_LT:
  case TSL_EXPR_LE:
  case TSL_EXPR_GT:
  case TSL_EXPR_GE:
    return ccompare(c, e, k);
  case TSL_EXPR_AND:
  case TSL_EXPR_OR:
  case TSL_EXPR_NOT:
    return clogic(c, e, k);
  case TSL_EXPR_SELECT:
  case TSL_EXPR_IF_THEN_ELSE:
    return cselect(c, e, k);
  case TSL_EXPR_CAST:
    return cexpr_as(c, e->args[0], k);
  case TSL_EXPR_CALL:
    return cintrin_call(c, e, k);
  case TSL_EXPR_CALL_EXTERN:
    return cextern_call(c, e, k);
  case TSL_EXPR_RAMP:
  case TSL_EXPR_BROADCAST:
    return cfail(c, TSL_EUNSUPPORTED,
                 "the interpreter does not support vector expressions "
                 "(T.%s in '%s'); only scalar programs can be interpreted",
                 kind == TSL_EXPR_RAMP ? "Ramp" : "Broadcast", etext(c, e));
  case TSL_EXPR_BUILTIN:
  case TSL_EXPR_BUFFER_DATA: /* handled above */
  case TSL_EXPR_KIND_COUNT:
    break;
  }
  return cfail(c, TSL_EINVALID, "unknown expression kind %u", (unsigned)kind);
}

static tsli_x *cexpr(comp *c, const tsl_expr *e) {
  if (c->status)
    return NULL;
  if (!e)
    return cfail(c, TSL_EINVALID, "missing expression in the program");
  if (++c->depth > MAX_DEPTH) {
    c->depth--;
    return cfail(c, TSL_EUNSUPPORTED,
                 "program nesting is deeper than %d levels; the interpreter "
                 "refuses it",
                 MAX_DEPTH);
  }
  tsli_x *x = cexpr_inner(c, e);
  c->depth--;
  return x;
}

/* ---- buffers declared by params, alloc_buffer and match_buffer ----------- */

/* An entry of a declared shape/strides/offset: a bare variable that has no
 * value yet becomes BIND (a fresh slot, in scope from now on) when `bindable`;
 * anything else is compiled as CHECK (or as the value to use, for allocs). */
static int cbind(comp *c, const tsl_expr *e, int bindable, tsli_bind *out) {
  if (e && bindable && e->kind == TSL_EXPR_VAR &&
      slot_of(&c->vars, e->u.var) < 0 &&
      tsli_kind_of(e->u.var->dtype) != TSLI_NONE &&
      !tsli_is_float(tsli_kind_of(e->u.var->dtype))) {
    out->mode = TSLI_B_BIND;
    out->slot = new_var_slot(c, e->u.var);
    return 1;
  }
  out->mode = TSLI_B_CHECK;
  out->expr = cexpr_as(c, e, TSLI_I64);
  return out->expr != NULL;
}

static int buffer_kind(comp *c, const tsl_buffer *b, const char *what) {
  char dn[32];
  int k = tsli_kind_of(b->dtype);
  if (k == TSLI_NONE) {
    cfail(c, TSL_EUNSUPPORTED,
          "%s '%s' has dtype %s; the interpreter supports scalar int, uint, "
          "float, bfloat16 and bool buffers",
          what, b->name, dname(b->dtype, dn));
    return -1;
  }
  if (b->ndim > TSL_MAX_NDIM) {
    cfail(c, TSL_EUNSUPPORTED,
          "%s '%s' has %u dimensions; at most %d are "
          "supported",
          what, b->name, b->ndim, TSL_MAX_NDIM);
    return -1;
  }
  return k;
}

static int calloc_buffer(comp *c, const tsl_buffer *b, tsli_alloc *a) {
  int k = buffer_kind(c, b, "allocated buffer");
  if (k < 0)
    return 0;
  a->buffer = b;
  a->shape = tsli_pool_alloc(&c->prog->pool, sizeof *a->shape * (b->ndim + 1));
  for (uint32_t d = 0; d < b->ndim; d++) {
    const tsl_expr *e = b->shape[d];
    if (e && e->kind == TSL_EXPR_VAR && slot_of(&c->vars, e->u.var) < 0) {
      cfail(c, TSL_EINVALID,
            "dimension %u of allocated buffer '%s' is the variable '%s', "
            "which has no value where the buffer is allocated",
            d, b->name, e->u.var->name);
      return 0;
    }
    if (!(a->shape[d] = cexpr_as(c, e, TSLI_I64)))
      return 0;
  }
  if (b->strides) {
    a->strides =
        tsli_pool_alloc(&c->prog->pool, sizeof *a->strides * (b->ndim + 1));
    for (uint32_t d = 0; d < b->ndim; d++)
      if (!cbind(c, b->strides[d], 1, &a->strides[d]))
        return 0;
  }
  if (b->elem_offset && !cbind(c, b->elem_offset, 1, &a->offset))
    return 0;
  a->slot = new_buf_slot(c, b, k);
  return 1;
}

static int cmatch(comp *c, const tsl_match_buffer *mb, tsli_match *m) {
  char d1[32], d2[32];
  const tsl_buffer *b = mb->buffer, *src = mb->source.buffer;
  int k = buffer_kind(c, b, "match_buffer");
  if (k < 0)
    return 0;
  if (!src) {
    cfail(c, TSL_EINVALID, "match_buffer '%s' has no source region", b->name);
    return 0;
  }
  int32_t ss = slot_of(&c->bufs, src);
  if (ss < 0) {
    cfail(c, TSL_EINVALID,
          "match_buffer '%s' views buffer '%s', which is not defined here",
          b->name, src->name);
    return 0;
  }
  if (c->prog->bufs[ss].kind != k) {
    cfail(c, TSL_EINVALID,
          "match_buffer '%s' has dtype %s but the buffer it views, '%s', has "
          "dtype %s",
          b->name, dname(b->dtype, d1), src->name, dname(src->dtype, d2));
    return 0;
  }
  if (mb->source.ndim != src->ndim) {
    cfail(c, TSL_EINVALID,
          "match_buffer '%s': the region of '%s' has %u ranges but the buffer "
          "has %u dimensions",
          b->name, src->name, mb->source.ndim, src->ndim);
    return 0;
  }
  if (b->ndim > mb->source.ndim) {
    cfail(c, TSL_EINVALID,
          "match_buffer '%s' has %u dimensions, more than the %u of the "
          "region of '%s' it views",
          b->name, b->ndim, mb->source.ndim, src->name);
    return 0;
  }
  tsli_pool *pool = &c->prog->pool;
  m->buffer = b;
  m->src_slot = ss;
  m->src_ndim = mb->source.ndim;
  m->rmin = tsli_pool_alloc(pool, sizeof *m->rmin * (m->src_ndim + 1));
  m->rext = tsli_pool_alloc(pool, sizeof *m->rext * (m->src_ndim + 1));
  for (uint32_t d = 0; d < m->src_ndim; d++)
    if (!(m->rmin[d] = cexpr_as(c, mb->source.ranges[d].min, TSLI_I64)) ||
        !(m->rext[d] = cexpr_as(c, mb->source.ranges[d].extent, TSLI_I64)))
      return 0;
  m->shape = tsli_pool_alloc(pool, sizeof *m->shape * (b->ndim + 1));
  for (uint32_t d = 0; d < b->ndim; d++)
    if (!cbind(c, b->shape[d], 1, &m->shape[d]))
      return 0;
  if (b->strides) {
    m->strides = tsli_pool_alloc(pool, sizeof *m->strides * (b->ndim + 1));
    for (uint32_t d = 0; d < b->ndim; d++)
      if (!cbind(c, b->strides[d], 1, &m->strides[d]))
        return 0;
  }
  if (b->elem_offset && !cbind(c, b->elem_offset, 1, &m->offset))
    return 0;
  m->slot = new_buf_slot(c, b, k);
  return 1;
}

/* ---- statements ------------------------------------------------------------
 */

static tsli_s *cstmt(comp *c, const tsl_stmt *s);

static tsli_s *new_s(comp *c, int op, const tsl_stmt *src) {
  tsli_s *r = tsli_pool_alloc(&c->prog->pool, sizeof *r);
  r->op = (uint8_t)op;
  r->src = src;
  r->slot = -1;
  return r;
}

static int int_var_kind(comp *c, const tsl_var *v, const char *what) {
  char dn[32];
  int k = tsli_kind_of(v->dtype);
  if (k == TSLI_NONE || tsli_is_float(k)) {
    cfail(c, TSL_EINVALID, "%s '%s' has dtype %s; it must be an integer", what,
          v->name, dname(v->dtype, dn));
    return -1;
  }
  return k;
}

static tsli_s *crealize(comp *c, const tsl_stmt *s) {
  const tsl_block *b = s->u.realize.block;
  if (!b)
    return cfail(c, TSL_EINVALID, "block realize without a block");
  tsl_str outer = c->block;
  c->block = b->name;
  if (s->u.realize.n_iter_values != b->n_iter_vars)
    return cfail(c, TSL_EINVALID,
                 "block '%s' has %u iteration variables but is realized with "
                 "%u values",
                 b->name, b->n_iter_vars, s->u.realize.n_iter_values);
  tsli_pool *pool = &c->prog->pool;
  tsli_block *cb = tsli_pool_alloc(pool, sizeof *cb);
  cb->name = b->name;
  cb->block = b;
  cb->n_iter = b->n_iter_vars;
  uint32_t n = b->n_iter_vars + 1;
  cb->iter_slot = tsli_pool_alloc(pool, sizeof *cb->iter_slot * n);
  cb->iter_value = tsli_pool_alloc(pool, sizeof *cb->iter_value * n);
  cb->iter_reduce = tsli_pool_alloc(pool, n);
  cb->dom_min = tsli_pool_alloc(pool, sizeof *cb->dom_min * n);
  cb->dom_ext = tsli_pool_alloc(pool, sizeof *cb->dom_ext * n);
  cb->iter_src = tsli_pool_alloc(pool, sizeof *cb->iter_src * n);
  cb->cmin = tsli_pool_alloc(pool, sizeof *cb->cmin * n);
  cb->cext = tsli_pool_alloc(pool, sizeof *cb->cext * n);
  cb->dom_const = 1;
  /* iteration values and domains live in the enclosing scope */
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    int k = int_var_kind(c, iv->var, "block iteration variable");
    if (k < 0)
      return NULL;
    if (!(cb->iter_value[i] = cexpr_as(c, s->u.realize.iter_values[i], k)) ||
        !(cb->dom_min[i] = cexpr_as(c, iv->dom.min, TSLI_I64)) ||
        !(cb->dom_ext[i] = cexpr_as(c, iv->dom.extent, TSLI_I64)))
      return NULL;
    cb->iter_reduce[i] = iv->iter_type == TSL_ITER_REDUCE;
    cb->iter_src[i] =
        cb->iter_value[i]->op == TSLI_X_IVAR ? cb->iter_value[i]->slot : -1;
    if (cb->dom_min[i]->op == TSLI_X_ICONST &&
        cb->dom_ext[i]->op == TSLI_X_ICONST) {
      cb->cmin[i] = cb->dom_min[i]->imm.i;
      cb->cext[i] = cb->dom_ext[i]->imm.i;
    } else {
      cb->dom_const = 0;
    }
  }
  uint32_t mark = c->scopes.len;
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    cb->iter_slot[i] = new_var_slot(c, b->iter_vars[i].var);
  const tsl_expr *pred = s->u.realize.predicate;
  if (pred && !(pred->kind == TSL_EXPR_INT_IMM && pred->u.int_value != 0))
    if (!(cb->pred = cexpr_as(c, pred, TSLI_BOOL)))
      return NULL;
  cb->simple = !cb->pred && cb->dom_const;
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    cb->simple &= cb->iter_src[i] >= 0;
  cb->n_alloc = b->n_alloc_buffers;
  cb->allocs = tsli_pool_alloc(pool, sizeof *cb->allocs * (cb->n_alloc + 1));
  for (uint32_t i = 0; i < cb->n_alloc; i++)
    if (!calloc_buffer(c, b->alloc_buffers[i], &cb->allocs[i]))
      return NULL;
  cb->n_match = b->n_match_buffers;
  cb->matches = tsli_pool_alloc(pool, sizeof *cb->matches * (cb->n_match + 1));
  for (uint32_t i = 0; i < cb->n_match; i++)
    if (!cmatch(c, &b->match_buffers[i], &cb->matches[i]))
      return NULL;
  if (b->init && !(cb->init = cstmt(c, b->init)))
    return NULL;
  if (!(cb->body = cstmt(c, b->body)))
    return NULL;
  tsl_map_unbind_to(&c->scopes, mark);
  c->block = outer;
  tsli_s *r = new_s(c, TSLI_S_BLOCK, s);
  r->block = cb;
  return r;
}

/* Parallel, vectorized and thread-bound loops promise that their
 * iterations are independent, so the race oracle may run them in any
 * order. Not a thread-bound loop that feeds a reduce iterator of a block
 * under it: a cross-thread reduction, which TVM lowers to an all-reduce and
 * the interpreter runs as the serial reduction it stands for (its init
 * belongs to the reduce iterators' first values). */
static int feeds_reduce(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  const tsl_var *v = ud;
  for (uint32_t i = 0; i < b->n_iter_vars && i < realize->u.realize.n_iter_values; i++)
    if (b->iter_vars[i].iter_type == TSL_ITER_REDUCE &&
        tsl_expr_uses_var(realize->u.realize.iter_values[i], v))
      return 1;
  return 0;
}

static uint8_t reorderable(const tsl_stmt *s) {
  switch ((tsl_for_kind)s->u.loop.for_kind) {
  case TSL_FOR_PARALLEL:
  case TSL_FOR_VECTORIZED: return 1;
  case TSL_FOR_THREAD_BINDING: {
    tsl_stmt_visitor v = {.block = feeds_reduce,
                          .user_data = (void *)s->u.loop.loop_var};
    return !tsl_stmt_visit(s->u.loop.body, &v);
  }
  default: return 0;
  }
}

static tsli_s *cstmt_inner(comp *c, const tsl_stmt *s) {
  tsli_s *r;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    r = new_s(c, TSLI_S_FOR, s);
    if (int_var_kind(c, s->u.loop.loop_var, "loop variable") < 0)
      return NULL;
    if (!(r->e0 = cexpr_as(c, s->u.loop.min, TSLI_I64)) ||
        !(r->e1 = cexpr_as(c, s->u.loop.extent, TSLI_I64)))
      return NULL;
    uint32_t mark = c->scopes.len;
    r->slot = new_var_slot(c, s->u.loop.loop_var);
    r->reorder = reorderable(s);
    r->s0 = cstmt(c, s->u.loop.body);
    tsl_map_unbind_to(&c->scopes, mark);
    return r->s0 ? r : NULL;
  }
  case TSL_STMT_BLOCK_REALIZE:
    return crealize(c, s);
  case TSL_STMT_STORE: {
    const tsl_buffer *b = s->u.store.buffer;
    int32_t slot = b ? slot_of(&c->bufs, b) : -1;
    if (slot < 0)
      return cfail(c, TSL_EINVALID,
                   "buffer '%s' is written where it is not defined: it is not "
                   "a parameter, nor an alloc_buffer or match_buffer of an "
                   "enclosing block",
                   b ? b->name : "?");
    if (s->u.store.n_indices != b->ndim)
      return cfail(c, TSL_EINVALID,
                   "a store indexes buffer '%s' with %u indices, but it has "
                   "%u dimensions",
                   b->name, s->u.store.n_indices, b->ndim);
    r = new_s(c, TSLI_S_STORE, s);
    r->slot = slot;
    r->k = (uint8_t)c->prog->bufs[slot].kind;
    r->n = b->ndim;
    r->idx = tsli_pool_alloc(&c->prog->pool, sizeof *r->idx * (b->ndim + 1));
    for (uint32_t d = 0; d < b->ndim; d++)
      if (!(r->idx[d] = cexpr_as(c, s->u.store.indices[d], TSLI_I64)))
        return NULL;
    r->vslots = var_slots(c, r->n, r->idx);
    if (!(r->e0 = cexpr_as(c, s->u.store.value, r->k)))
      return NULL;
    return r;
  }
  case TSL_STMT_IF:
    r = new_s(c, TSLI_S_IF, s);
    if (!(r->e0 = cexpr_as(c, s->u.branch.cond, TSLI_BOOL)) ||
        !(r->s0 = cstmt(c, s->u.branch.then_case)))
      return NULL;
    if (s->u.branch.else_case && !(r->s1 = cstmt(c, s->u.branch.else_case)))
      return NULL;
    return r;
  case TSL_STMT_LET: {
    char dn[32];
    const tsl_var *v = s->u.let.var;
    int k = tsli_kind_of(v->dtype);
    if (k == TSLI_NONE)
      return cfail(c, TSL_EUNSUPPORTED,
                   "let variable '%s' has dtype %s, which the interpreter "
                   "cannot compute with",
                   v->name, dname(v->dtype, dn));
    r = new_s(c, TSLI_S_LET, s);
    r->k = (uint8_t)k;
    if (!(r->e0 = cexpr_as(c, s->u.let.value, k)))
      return NULL;
    uint32_t mark = c->scopes.len;
    r->slot = new_var_slot(c, v);
    r->s0 = cstmt(c, s->u.let.body);
    tsl_map_unbind_to(&c->scopes, mark);
    return r->s0 ? r : NULL;
  }
  case TSL_STMT_EVALUATE:
    r = new_s(c, TSLI_S_EVAL, s);
    return (r->e0 = cexpr(c, s->u.evaluate.value)) ? r : NULL;
  case TSL_STMT_SEQ:
    r = new_s(c, TSLI_S_SEQ, s);
    r->n = s->u.seq.n;
    r->list = tsli_pool_alloc(&c->prog->pool, sizeof *r->list * (r->n + 1));
    for (uint32_t i = 0; i < r->n; i++)
      if (!(r->list[i] = cstmt(c, s->u.seq.stmts[i])))
        return NULL;
    return r;
  case TSL_STMT_ALLOCATE: {
    if (!s->u.alloc.buffer)
      return cfail(c, TSL_EINVALID, "allocate statement without a buffer");
    r = new_s(c, TSLI_S_ALLOC, s);
    r->alloc = tsli_pool_alloc(&c->prog->pool, sizeof *r->alloc);
    uint32_t mark = c->scopes.len;
    if (!calloc_buffer(c, s->u.alloc.buffer, r->alloc))
      return NULL;
    r->alloc->poison = 1;
    r->s0 = cstmt(c, s->u.alloc.body);
    tsl_map_unbind_to(&c->scopes, mark);
    return r->s0 ? r : NULL;
  }
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return cfail(c, TSL_EINVALID, "unknown statement kind %u", (unsigned)s->kind);
}

static tsli_s *cstmt(comp *c, const tsl_stmt *s) {
  if (c->status)
    return NULL;
  if (!s)
    return cfail(c, TSL_EINVALID, "missing statement in the program");
  if (++c->depth > MAX_DEPTH) {
    c->depth--;
    return cfail(c, TSL_EUNSUPPORTED,
                 "program nesting is deeper than %d levels; the interpreter "
                 "refuses it",
                 MAX_DEPTH);
  }
  tsli_s *r = cstmt_inner(c, s);
  c->depth--;
  return r;
}

/* ---- the function ---------------------------------------------------------
 */

typedef struct unbound_scan {
  const tsl_map *vars;
  const tsl_var *found;
} unbound_scan;

static int find_unbound(const tsl_expr *e, void *ud) {
  unbound_scan *u = ud;
  if (e->kind == TSL_EXPR_VAR && slot_of(u->vars, e->u.var) < 0) {
    u->found = e->u.var;
    return 1;
  }
  return 0;
}

/* A parameter's declared dim/stride/offset to check: report variables that
 * nothing binds before compiling it. */
static tsli_x *cparam_check(comp *c, const tsl_buffer *b, const tsl_expr *e,
                            const char *what, uint32_t d) {
  unbound_scan u = {&c->vars, NULL};
  if (e && tsl_expr_visit(e, find_unbound, &u))
    return cfail(c, TSL_EINVALID,
                 "%s %u of buffer parameter '%s' is '%s', but variable '%s' "
                 "cannot be bound from the arguments: it never appears alone "
                 "as a dimension or as a scalar parameter",
                 what, d, b->name, etext(c, e), u.found->name);
  return cexpr_as(c, e, TSLI_I64);
}

/* A bare variable, possibly under casts. */
static const tsl_var *bare_var(const tsl_expr *e) {
  while (e && e->kind == TSL_EXPR_CAST)
    e = e->args[0];
  return e && e->kind == TSL_EXPR_VAR ? e->u.var : NULL;
}

static int cparams(comp *c, const tsl_func *f) {
  char dn[32];
  tsli_prog *p = c->prog;
  p->params = tsli_pool_alloc(&p->pool, sizeof *p->params * (f->n_params + 1));
  /* scalars first: a shape dim equal to a scalar parameter is then checked */
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_param *pa = &f->params[i];
    tsli_param *cp = &p->params[i];
    if (pa->buffer)
      continue;
    if (!pa->var) {
      cfail(c, TSL_EINVALID,
            "parameter %u of '%s' has neither a var nor a "
            "buffer",
            i, f->name);
      return 0;
    }
    int k = tsli_kind_of(pa->var->dtype);
    if (k == TSLI_NONE) {
      cfail(c, TSL_EUNSUPPORTED,
            "parameter '%s' has dtype %s and no buffer; the interpreter takes "
            "buffers and int/float scalars only",
            pa->var->name, dname(pa->var->dtype, dn));
      return 0;
    }
    cp->kind = k;
    if (slot_of(&c->vars, pa->var) >= 0)
      cp->scalar_check = cexpr(c, pa->var->ref);
    else
      cp->slot = new_var_slot(c, pa->var);
  }
  /* buffers: bare unbound shape/stride/offset variables become bindings */
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_buffer *b = f->params[i].buffer;
    tsli_param *cp = &p->params[i];
    if (!b)
      continue;
    cp->is_buffer = 1;
    if ((cp->kind = buffer_kind(c, b, "buffer parameter")) < 0)
      return 0;
    if (slot_of(&c->bufs, b) >= 0) {
      cfail(c, TSL_EINVALID, "buffer '%s' is bound to two parameters", b->name);
      return 0;
    }
    cp->slot = new_buf_slot(c, b, cp->kind);
    cp->shape = tsli_pool_alloc(&p->pool, sizeof *cp->shape * (b->ndim + 1));
    if (b->strides)
      cp->strides =
          tsli_pool_alloc(&p->pool, sizeof *cp->strides * (b->ndim + 1));
    const tsl_var *v;
    for (uint32_t d = 0; d < b->ndim; d++) {
      v = bare_var(b->shape[d]);
      if (v && slot_of(&c->vars, v) < 0 &&
          int_var_kind(c, v, "shape variable") >= 0) {
        cp->shape[d].mode = TSLI_B_BIND;
        cp->shape[d].slot = new_var_slot(c, v);
      }
      v = b->strides ? bare_var(b->strides[d]) : NULL;
      if (v && slot_of(&c->vars, v) < 0 &&
          int_var_kind(c, v, "stride variable") >= 0) {
        cp->strides[d].mode = TSLI_B_BIND;
        cp->strides[d].slot = new_var_slot(c, v);
      }
    }
    v = bare_var(b->elem_offset);
    if (v && slot_of(&c->vars, v) < 0 &&
        int_var_kind(c, v, "elem_offset variable") >= 0) {
      cp->offset.mode = TSLI_B_BIND;
      cp->offset.slot = new_var_slot(c, v);
    }
    if (c->status)
      return 0;
  }
  /* everything else is checked once all bindings are known */
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_buffer *b = f->params[i].buffer;
    tsli_param *cp = &p->params[i];
    if (!b)
      continue;
    for (uint32_t d = 0; d < b->ndim; d++) {
      if (cp->shape[d].mode == TSLI_B_NONE) {
        cp->shape[d].mode = TSLI_B_CHECK;
        if (!(cp->shape[d].expr =
                  cparam_check(c, b, b->shape[d], "dimension", d)))
          return 0;
      }
      if (cp->strides && cp->strides[d].mode == TSLI_B_NONE) {
        cp->strides[d].mode = TSLI_B_CHECK;
        if (!(cp->strides[d].expr =
                  cparam_check(c, b, b->strides[d], "stride", d)))
          return 0;
      }
    }
    if (b->elem_offset && cp->offset.mode == TSLI_B_NONE) {
      cp->offset.mode = TSLI_B_CHECK;
      if (!(cp->offset.expr =
                cparam_check(c, b, b->elem_offset, "elem_offset", 0)))
        return 0;
    }
  }
  return 1;
}

int tsli_compile(const tsl_func *f, tsli_prog *prog, tsl_diag *diag) {
  memset(prog, 0, sizeof *prog);
  prog->func = f;
  comp c;
  memset(&c, 0, sizeof c);
  c.prog = prog;
  c.diag = diag;
  tsl_vec_init(&c.scopes, sizeof(tsl_map_logged), NULL);
  tsl_vec_init(&c.bufinfo, sizeof(tsli_bufinfo), NULL);
  if (!f->body)
    cfail(&c, TSL_EINVALID, "function '%s' has no body", f->name);
  else if (cparams(&c, f))
    prog->body = cstmt(&c, f->body);
  if (c.status && c.diag && strncmp(c.diag->text, "function", 8) != 0) {
    /* name the function in front of the message */
    char tmp[sizeof c.diag->text];
    memcpy(tmp, c.diag->text, sizeof tmp);
    tsl_diag_set(c.diag, c.status, "cannot interpret function '%s': %s",
                 f->name ? f->name : "?", tmp);
  }
  tsl_map_free(&c.vars);
  tsl_map_free(&c.bufs);
  tsl_vec_free(&c.scopes); /* c.bufinfo's storage is prog->bufs */
  return c.status;
}

void tsli_prog_free(tsli_prog *prog) {
  free(prog->bufs);
  tsli_pool_free(&prog->pool);
  memset(prog, 0, sizeof *prog);
}
