/*
 * interp_internal.h — shared between the interpreter's files (tensor.c,
 * interp.c, interp_compile.c, interp_eval.c, interp_fmt.c); not installed.
 *
 * The interpreter first compiles a prim_func into a small tree of nodes in
 * which every variable and buffer is a slot index (no lookups at run time)
 * and every operation knows the numeric kind it computes in; the evaluator
 * then walks that tree with arrays of slot values.
 */
#ifndef TESSEL_INTERP_INTERNAL_H
#define TESSEL_INTERP_INTERNAL_H

#include "tessel/interp.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ==== numeric kinds: the scalar dtypes the interpreter computes in ====== */

enum {
  TSLI_I8,
  TSLI_I16,
  TSLI_I32,
  TSLI_I64,
  TSLI_U8,
  TSLI_U16,
  TSLI_U32,
  TSLI_U64,
  TSLI_BOOL,
  TSLI_F16,
  TSLI_BF16,
  TSLI_F32,
  TSLI_F64,
  TSLI_NONE /* not a scalar the interpreter supports */
};

/* The kind of a scalar dtype, or TSLI_NONE (vectors, handles, odd widths). */
int tsli_kind_of(tsl_dtype t);
static inline int tsli_is_float(int k) {
  return k >= TSLI_F16 && k <= TSLI_F64;
}
static inline int tsli_is_unsigned(int k) {
  return k >= TSLI_U8 && k <= TSLI_BOOL;
}

/* Wrap an int64 to the width/signedness of an int kind (bool: != 0).
 * uint64 values are kept as their bit pattern. Conversions to narrower
 * signed types are modular (GCC/Clang define them so). */
static inline int64_t tsli_wrap(int64_t v, int k) {
  switch (k) {
  case TSLI_I8:
    return (int8_t)(uint8_t)(uint64_t)v;
  case TSLI_I16:
    return (int16_t)(uint16_t)(uint64_t)v;
  case TSLI_I32:
    return (int32_t)(uint32_t)(uint64_t)v;
  case TSLI_U8:
    return (int64_t)((uint64_t)v & 0xffu);
  case TSLI_U16:
    return (int64_t)((uint64_t)v & 0xffffu);
  case TSLI_U32:
    return (int64_t)((uint64_t)v & 0xffffffffu);
  case TSLI_BOOL:
    return v != 0;
  default:
    return v;
  }
}

/* Round a double to a float kind (float64: unchanged). */
static inline double tsli_round(double v, int k) {
  switch (k) {
  case TSLI_F32:
    return (double)(float)v;
  case TSLI_F16:
    return (double)tsl_f16_to_f32(tsl_f32_to_f16((float)v));
  case TSLI_BF16:
    return (double)tsl_bf16_to_f32(tsl_f32_to_bf16((float)v));
  default:
    return v;
  }
}

/* float -> int kind: truncation toward zero, saturating at the kind's
 * range, NaN -> 0; bool: v != 0. Never undefined behaviour. */
int64_t tsli_f2i(double v, int k);
/* int (of kind `src`) -> double, uint64 read as unsigned. */
static inline double tsli_i2f(int64_t v, int src) {
  return src == TSLI_U64 ? (double)(uint64_t)v : (double)v;
}

/* Bytes of one element of a kind. */
static inline size_t tsli_kind_bytes(int k) {
  static const unsigned char b[] = {1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 2, 4, 8, 0};
  return b[k];
}

/* Element i of storage `p` of kind k, as an int (int kinds) or a double
 * (float kinds). */
static inline int64_t tsli_read_i(const void *p, int64_t i, int k) {
  switch (k) {
  case TSLI_I8:
    return ((const int8_t *)p)[i];
  case TSLI_I16:
    return ((const int16_t *)p)[i];
  case TSLI_I32:
    return ((const int32_t *)p)[i];
  case TSLI_I64:
    return ((const int64_t *)p)[i];
  case TSLI_U8:
    return ((const uint8_t *)p)[i];
  case TSLI_U16:
    return ((const uint16_t *)p)[i];
  case TSLI_U32:
    return ((const uint32_t *)p)[i];
  case TSLI_U64:
    return (int64_t)((const uint64_t *)p)[i];
  case TSLI_BOOL:
    return ((const uint8_t *)p)[i] != 0;
  default:
    return 0;
  }
}
static inline double tsli_read_f(const void *p, int64_t i, int k) {
  switch (k) {
  case TSLI_F32:
    return ((const float *)p)[i];
  case TSLI_F64:
    return ((const double *)p)[i];
  case TSLI_F16:
    return tsl_f16_to_f32(((const uint16_t *)p)[i]);
  case TSLI_BF16:
    return tsl_bf16_to_f32(((const uint16_t *)p)[i]);
  default:
    return 0;
  }
}
/* Store an already wrapped int / already rounded double. */
static inline void tsli_write_i(void *p, int64_t i, int k, int64_t v) {
  switch (k) {
  case TSLI_I8:
  case TSLI_U8:
  case TSLI_BOOL:
    ((uint8_t *)p)[i] = (uint8_t)v;
    break;
  case TSLI_I16:
  case TSLI_U16:
    ((uint16_t *)p)[i] = (uint16_t)v;
    break;
  case TSLI_I32:
  case TSLI_U32:
    ((uint32_t *)p)[i] = (uint32_t)v;
    break;
  case TSLI_I64:
  case TSLI_U64:
    ((uint64_t *)p)[i] = (uint64_t)v;
    break;
  default:
    break;
  }
}
static inline void tsli_write_f(void *p, int64_t i, int k, double v) {
  switch (k) {
  case TSLI_F32:
    ((float *)p)[i] = (float)v;
    break;
  case TSLI_F64:
    ((double *)p)[i] = v;
    break;
  case TSLI_F16:
    ((uint16_t *)p)[i] = tsl_f32_to_f16((float)v);
    break;
  case TSLI_BF16:
    ((uint16_t *)p)[i] = tsl_f32_to_bf16((float)v);
    break;
  default:
    break;
  }
}

/* ==== a bump allocator for compiled nodes =============================== */

typedef struct tsli_pool {
  struct tsli_chunk *head;
  char *cur;
  size_t left;
} tsli_pool;

/* Zeroed, 16-byte aligned; aborts when out of memory (as tsl_arena does). */
void *tsli_pool_alloc(tsli_pool *p, size_t size);
void tsli_pool_free(tsli_pool *p);

/* ==== compiled expressions =============================================== */

/* Integer-class ops (evaluated by tsli_eval_i) and float-class ops
 * (tsli_eval_f). */
enum {
  /* int class */
  TSLI_X_ICONST,
  TSLI_X_IVAR,
  TSLI_X_ILOAD,
  TSLI_X_IADD,
  TSLI_X_ISUB,
  TSLI_X_IMUL,
  TSLI_X_IDIV, /* truncating */
  TSLI_X_IMOD, /* truncating */
  TSLI_X_IFLOORDIV,
  TSLI_X_IFLOORMOD,
  TSLI_X_IMIN,
  TSLI_X_IMAX,
  TSLI_X_UDIV, /* uint64 */
  TSLI_X_UMOD,
  TSLI_X_UMIN,
  TSLI_X_UMAX,
  TSLI_X_INEG,
  TSLI_X_IABS,
  TSLI_X_ICMP, /* sub = comparison kind (TSL_EXPR_EQ..GE) */
  TSLI_X_UCMP,
  TSLI_X_FCMP,
  TSLI_X_AND,
  TSLI_X_OR,
  TSLI_X_NOT,
  TSLI_X_ISELECT,
  TSLI_X_IIFTE,
  TSLI_X_IWRAP, /* int -> int kind */
  TSLI_X_F2I,   /* float -> int kind (bool: != 0) */
  TSLI_X_ISNAN,
  /* float class */
  TSLI_X_FCONST,
  TSLI_X_FVAR,
  TSLI_X_FLOAD,
  TSLI_X_FADD,
  TSLI_X_FSUB,
  TSLI_X_FMUL,
  TSLI_X_FDIV,
  TSLI_X_FMOD, /* truncated remainder: fmod */
  TSLI_X_FFLOORDIV,
  TSLI_X_FFLOORMOD,
  TSLI_X_FMIN,
  TSLI_X_FMAX,
  TSLI_X_FNEG,
  TSLI_X_FSELECT,
  TSLI_X_FIFTE,
  TSLI_X_FROUND, /* float -> float kind */
  TSLI_X_I2F,    /* int (kind in sub) -> float kind */
  TSLI_X_FCALL   /* sub = tsl_intrin */
};

typedef struct tsli_x tsli_x;
typedef struct tsli_state tsli_state;
struct tsli_x {
  /* The evaluator of this node (int class: fi, float class: ff), chosen by
   * tsli_specialize from op, kind and operands. */
  int64_t (*fi)(tsli_state *st, const tsli_x *e);
  double (*ff)(tsli_state *st, const tsli_x *e);
  uint8_t op;
  uint8_t k;    /* result kind */
  uint16_t sub; /* comparison kind, intrinsic id or source kind */
  uint32_t n;   /* operands */
  int32_t slot; /* VAR: var slot; LOAD: buffer slot */
  union {
    int64_t i;
    double f;
  } imm;
  const tsl_expr *src;   /* for error messages */
  const int32_t *vslots; /* LOAD: when every index is a plain int variable,
                          * their slots (a fast path), else NULL */
  tsli_x *a[];
};

/* ==== compiled statements and blocks ===================================== */

enum {
  TSLI_S_FOR,
  TSLI_S_BLOCK,
  TSLI_S_STORE,
  TSLI_S_IF,
  TSLI_S_LET,
  TSLI_S_EVAL,
  TSLI_S_SEQ,
  TSLI_S_ALLOC /* lowered programs' ALLOCATE: alloc + body s0 */
};

/* How one declared shape/stride/offset entry of a buffer is matched with
 * the actual value: nothing to do, bind a fresh symbolic var, or check an
 * expression (constant or over bound vars) for equality. */
enum { TSLI_B_NONE, TSLI_B_BIND, TSLI_B_CHECK };
typedef struct tsli_bind {
  uint8_t mode;
  int32_t slot; /* BIND */
  tsli_x *expr; /* CHECK */
} tsli_bind;

typedef struct tsli_alloc {
  int32_t slot; /* buffer slot */
  const tsl_buffer *buffer;
  tsli_x **shape;     /* ndim */
  tsli_bind *strides; /* ndim, or NULL: compact */
  tsli_bind offset;   /* NONE: 0 */
  uint8_t poison;     /* 1: fill with NaN / 0xA5 bytes instead of zeros
                         (ALLOCATE: reading before writing shows up) */
} tsli_alloc;

typedef struct tsli_match {
  int32_t slot;     /* the view's buffer slot */
  int32_t src_slot; /* the source buffer's slot */
  const tsl_buffer *buffer;
  uint32_t src_ndim;     /* region dims (>= buffer ndim) */
  tsli_x **rmin, **rext; /* region ranges, src_ndim */
  tsli_bind *shape;      /* buffer ndim */
  tsli_bind *strides;    /* buffer ndim or NULL */
  tsli_bind offset;
} tsli_match;

typedef struct tsli_block {
  tsl_str name;
  const tsl_block *block;
  uint32_t n_iter;
  int32_t *iter_slot;
  tsli_x **iter_value;
  uint8_t *iter_reduce;
  tsli_x **dom_min, **dom_ext;
  int32_t *iter_src; /* slot of a value that is a plain variable, or -1 */
  uint8_t dom_const; /* every domain is constant: cmin/cext */
  uint8_t simple;    /* no predicate, constant domains, plain-var values */
  int64_t *cmin, *cext;
  tsli_x *pred; /* NULL: always true */
  uint32_t n_alloc;
  tsli_alloc *allocs;
  uint32_t n_match;
  tsli_match *matches;
  struct tsli_s *init; /* NULL: no init */
  struct tsli_s *body;
} tsli_block;

typedef struct tsli_s tsli_s;
struct tsli_s {
  uint8_t op;
  uint8_t k;       /* STORE: buffer kind */
  uint8_t reorder; /* FOR: parallel, vectorized or thread-bound, so its
                      iterations may run in any order (see tsl_interp_opts) */
  uint32_t n;      /* STORE: indices; SEQ: statements */
  int32_t slot;    /* FOR/LET: var slot; STORE: buffer slot */
  tsli_x *e0, *e1; /* FOR: min, extent; STORE: value; IF: cond; LET: value */
  tsli_x **idx;    /* STORE */
  const int32_t *vslots; /* STORE: as tsli_x.vslots */
  tsli_s *s0, *s1;       /* FOR/LET body; IF then/else */
  tsli_s **list;         /* SEQ */
  tsli_block *block;     /* BLOCK */
  tsli_alloc *alloc;     /* ALLOC */
  const tsl_stmt *src;
};

/* ==== the compiled program =============================================== */

typedef struct tsli_param {
  uint32_t is_buffer;
  int32_t slot;         /* buffer slot, or scalar var slot (BIND) */
  int kind;             /* element kind / scalar kind */
  tsli_x *scalar_check; /* scalar whose var is bound elsewhere first */
  tsli_bind *shape;     /* ndim */
  tsli_bind *strides;   /* ndim or NULL */
  tsli_bind offset;
} tsli_param;

/* Static facts of a buffer slot. */
typedef struct tsli_bufinfo {
  const tsl_buffer *buffer;
  int kind;
} tsli_bufinfo;

typedef struct tsli_prog {
  tsli_pool pool;
  const tsl_func *func;
  int32_t n_vars;
  int32_t n_bufs;
  tsli_bufinfo *bufs; /* n_bufs, heap */
  tsli_param *params; /* func->n_params */
  tsli_s *body;
} tsli_prog;

/* Compile `f`. On failure returns a status and fills `diag`; the program
 * must be released with tsli_prog_free either way. */
int tsli_compile(const tsl_func *f, tsli_prog *prog, tsl_diag *diag);
void tsli_prog_free(tsli_prog *prog);

/* ==== run-time state ====================================================== */

typedef union tsli_val {
  int64_t i;
  double f;
} tsli_val;

/* A buffer as seen at run time: storage + element offset + strides. */
typedef struct tsli_rbuf {
  char *data;  /* storage base */
  int64_t cap; /* elements in the storage */
  int64_t off; /* element offset of index (0, ..., 0) */
  uint32_t ndim;
  int kind;
  int64_t shape[TSL_MAX_NDIM];
  int64_t stride[TSL_MAX_NDIM];
  void *owned; /* alloc_buffer storage kept between executions */
  size_t owned_bytes;
} tsli_rbuf;

struct tsli_state {
  const tsli_prog *prog;
  tsli_val *vars;
  tsli_rbuf *bufs;
  int status;
  tsl_diag *diag;
  tsl_str block; /* innermost block being executed */
  uint32_t order; /* TSL_INTERP_ORDER_* for loops with `reorder` */
  uint64_t rng;   /* SHUFFLED: splitmix64 state */
};

/* Record the first run-time error (later ones are ignored). Returns 0. */
int tsli_fail(tsli_state *st, int status, const char *fmt, ...)
    TSL_PRINTF(3, 4);
/* Pick the evaluator of a node; call again after changing op, k or
 * vslots. */
void tsli_specialize(tsli_x *x);
static inline int64_t tsli_eval_i(tsli_state *st, const tsli_x *e) {
  return e->fi(st, e);
}
static inline double tsli_eval_f(tsli_state *st, const tsli_x *e) {
  return e->ff(st, e);
}
void tsli_exec(tsli_state *st, const tsli_s *s);

/* ==== message helpers ===================================================== */

/* Append a short source-like rendering of an index/shape expression
 * ("m * 2", "vi + 1"); falls back to the node's kind for exotic nodes. */
void tsli_fmt_expr(tsl_strbuf *sb, const tsl_expr *e);
/* "(m, 128)" from declared dims / "(4, 128)" from values. */
void tsli_fmt_shape_decl(tsl_strbuf *sb, const tsl_buffer *b);
void tsli_fmt_shape_vals(tsl_strbuf *sb, uint32_t ndim, const int64_t *v);

/* Write element k's multi-index as "[3, 4]" into buf (row-major); also
 * core/measure's comparison of compiled outputs. */
void tsl_tensor_index_text(const tsl_tensor *t, int64_t k, char *buf, size_t cap);

#endif /* TESSEL_INTERP_INTERNAL_H */
