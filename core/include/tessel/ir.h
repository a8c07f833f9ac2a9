/*
 * tessel/ir.h — TensorIR: expressions, statements, blocks, buffers,
 * functions and modules.
 *
 * Semantics follow TVM's TensorIR (release v0.19). All nodes live in a
 * tsl_arena and are immutable once built: a transformation builds new nodes
 * and shares unchanged subtrees. Pointers to nodes are `const`.
 *
 * Identity
 *   tsl_var and tsl_buffer objects are identified by address: two uses of
 *   the same variable point to the same tsl_var. Names are for printing
 *   only; structural equality (tessel/analysis.h) ignores them, except block
 *   names, which are significant.
 *
 * Kind tables
 *   Every node kind appears in exactly one X-macro table below. The parser,
 *   printer, equality, hashing and the interpreter expand these tables, so a
 *   kind added here is picked up (or, through -Wswitch, flagged) everywhere.
 *
 * Builders
 *   The tsl_expr_* / tsl_stmt_* functions allocate in the given arena and
 *   never fail (allocation failure aborts). They copy the arrays passed to
 *   them. They assert internal invariants (operand counts) but do not type
 *   check user programs: the parser does that and reports errors.
 *
 * ABI
 *   Plugins read nodes through their fields, so the layout of the structs
 *   below (and of tsl_lowered_func / tsl_lowered_module in lower.h) and
 *   the values of every kind table are part of ABI major TSL_ABI_MAJOR
 *   (plugin.h). Only the library builds nodes: a field may be appended to
 *   the end of a struct, and a kind to the end of its table, in a minor
 *   version (a plugin never sees a new kind it does not know unless the
 *   program uses it, and must refuse such a node with a message); a field
 *   or kind moved, resized, reordered or removed needs a new major.
 *   tests/headers/test_layout.c pins every offset, size and kind value
 *   (layout_abi1.txt).
 */
#ifndef TESSEL_IR_H
#define TESSEL_IR_H

#include "tessel/base.h"
#include "tessel/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsl_expr tsl_expr;
typedef struct tsl_stmt tsl_stmt;
typedef struct tsl_var tsl_var;
typedef struct tsl_buffer tsl_buffer;
typedef struct tsl_block tsl_block;
typedef struct tsl_func tsl_func;
typedef struct tsl_module tsl_module;

/* ==== expression kinds ================================================
 * X(KIND, name, token, prec, n_args)
 *   name   TVMScript spelling of the node as a call (T.<name>), "" if none
 *   token  Python operator spelling for infix/prefix operators, "" if none
 *   prec   Python precedence of the operator (higher binds tighter), 0 if
 *          the node prints as an atom or a call
 *   n_args fixed operand count, or -1 when variable (LOAD, CALL, ...)
 */
#define TSL_EXPR_KINDS(X)                                                      \
  X(INT_IMM, "", "", 0, 0)          /* u.int_value; also bool constants */     \
  X(FLOAT_IMM, "", "", 0, 0)        /* u.float_value */                        \
  X(STR_IMM, "", "", 0, 0)          /* u.str_value */                          \
  X(VAR, "", "", 0, 0)              /* u.var */                                \
  X(LOAD, "", "", 0, -1)            /* u.buffer, args = indices */             \
  X(ADD, "Add", "+", 11, 2)                                                    \
  X(SUB, "Sub", "-", 11, 2)                                                    \
  X(MUL, "Mul", "*", 12, 2)                                                    \
  X(DIV, "Div", "/", 12, 2)         /* true div for floats, trunc for ints */  \
  X(MOD, "truncmod", "", 0, 2)      /* truncated remainder */                  \
  X(FLOORDIV, "floordiv", "//", 12, 2)                                         \
  X(FLOORMOD, "floormod", "%", 12, 2)                                          \
  X(MIN, "min", "", 0, 2)                                                      \
  X(MAX, "max", "", 0, 2)                                                      \
  X(EQ, "EQ", "==", 6, 2)                                                      \
  X(NE, "NE", "!=", 6, 2)                                                      \
  X(LT, "LT", "<", 6, 2)                                                       \
  X(LE, "LE", "<=", 6, 2)                                                      \
  X(GT, "GT", ">", 6, 2)                                                       \
  X(GE, "GE", ">=", 6, 2)                                                      \
  X(AND, "And", "and", 4, 2)                                                   \
  X(OR, "Or", "or", 3, 2)                                                      \
  X(NOT, "Not", "not", 5, 1)                                                   \
  X(NEG, "", "-", 13, 1)            /* unary minus (non-constant operand) */   \
  X(SELECT, "Select", "", 0, 3)     /* cond, true, false; evaluates both */    \
  X(IF_THEN_ELSE, "if_then_else", "", 0, 3) /* evaluates one branch */         \
  X(CAST, "Cast", "", 0, 1)         /* to this node's dtype */                 \
  X(CALL, "", "", 0, -1)            /* math intrinsic u.intrin, args */        \
  X(CALL_EXTERN, "call_extern", "", 0, -1) /* u.str_value = function name */   \
  X(RAMP, "Ramp", "", 0, 2)         /* base, stride; lanes = dtype.lanes */    \
  X(BROADCAST, "Broadcast", "", 0, 1) /* value; lanes = dtype.lanes */   \
  X(BUILTIN, "", "", 0, -1)         /* TVM builtin: intrin = tsl_builtin */    \
  X(BUFFER_DATA, "", "", 0, 0)      /* u.buffer's data pointer (A.data) */

typedef enum tsl_expr_kind {
#define TSL_X_(k, name, tok, prec, n) TSL_EXPR_##k,
  TSL_EXPR_KINDS(TSL_X_)
#undef TSL_X_
  TSL_EXPR_KIND_COUNT
} tsl_expr_kind;

/* Static facts of a kind, from the table above. */
typedef struct tsl_expr_kind_info {
  const char *kind_name; /* "ADD" */
  const char *name;      /* "Add" */
  const char *token;     /* "+" */
  int32_t prec;
  int32_t n_args;
} tsl_expr_kind_info;
TSL_API const tsl_expr_kind_info *tsl_expr_kind_info_of(tsl_expr_kind kind);

/* ==== math intrinsics (TSL_EXPR_CALL) ==================================
 * X(ID, name, n_args): printed and parsed as T.<name>(...). Float-typed
 * results have the dtype of their first argument. */
#define TSL_INTRINSICS(X)                                                      \
  X(EXP, "exp", 1)                                                             \
  X(EXP2, "exp2", 1)                                                           \
  X(EXP10, "exp10", 1)                                                         \
  X(LOG, "log", 1)                                                             \
  X(LOG2, "log2", 1)                                                           \
  X(LOG10, "log10", 1)                                                         \
  X(LOG1P, "log1p", 1)                                                         \
  X(SQRT, "sqrt", 1)                                                           \
  X(RSQRT, "rsqrt", 1)                                                         \
  X(TANH, "tanh", 1)                                                           \
  X(SIGMOID, "sigmoid", 1)                                                     \
  X(FABS, "fabs", 1)                                                           \
  X(ABS, "abs", 1) /* ints and floats */                                       \
  X(POW, "pow", 2)                                                             \
  X(FLOOR, "floor", 1)                                                         \
  X(CEIL, "ceil", 1)                                                           \
  X(ROUND, "round", 1)                                                         \
  X(TRUNC, "trunc", 1)                                                         \
  X(NEARBYINT, "nearbyint", 1)                                                 \
  X(SIN, "sin", 1)                                                             \
  X(COS, "cos", 1)                                                             \
  X(TAN, "tan", 1)                                                             \
  X(ERF, "erf", 1)                                                             \
  X(ATAN, "atan", 1)                                                           \
  X(FMOD, "fmod", 2)                                                           \
  X(ISNAN, "isnan", 1) /* returns bool */

typedef enum tsl_intrin {
#define TSL_X_(id, name, n) TSL_INTRIN_##id,
  TSL_INTRINSICS(TSL_X_)
#undef TSL_X_
  TSL_INTRIN_COUNT
} tsl_intrin;

TSL_API const char *tsl_intrin_name(tsl_intrin id);
TSL_API int32_t tsl_intrin_arity(tsl_intrin id);
/* Intrinsic id for a name ("exp"), or -1. */
TSL_API int tsl_intrin_lookup(const char *name, size_t n);

/* ==== TVM builtins (TSL_EXPR_BUILTIN) ==================================
 * Calls of TVM's `tir.*` builtin operators that tessel carries without
 * computing them: they parse, print, compare and hash like any call, and
 * the interpreter and code generators refuse those they cannot run.
 * X(ID, name, n_args, result, eval, params, what)
 *   name    TVMScript spelling T.<name>(...)
 *   n_args  operand count
 *   params  the parameter names, for usage notes
 *   result  the call's dtype: HANDLE, INT32, BOOL, ARG0 (argument 0's
 *           dtype), DTYPE (the dtype written as the call's only argument,
 *           T.type_annotation("float32"); no operands), DTYPE_FIRST (1.3:
 *           the dtype written before the operands, T.mma_fill("float32", 8,
 *           C.data, 0), or as the keyword dtype=; n_args counts operands)
 *   eval    what the interpreter does: REFUSE, ARG0 (the value of argument
 *           0: a hint), TRUE (no effect; the value true)
 *   what    what it is, for refusals ("T.x cannot be interpreted: <what>") */
#define TSL_BUILTINS(X)                                                        \
  X(TVM_ACCESS_PTR, "tvm_access_ptr", 5, HANDLE, REFUSE,                       \
    "ptype, data, offset, extent, rw_mask",                                    \
    "it is a raw pointer into a buffer's data")                                \
  X(TYPE_ANNOTATION, "type_annotation", 0, DTYPE, REFUSE, "dtype",             \
    "it only names a dtype for another builtin")                               \
  X(ADDRESS_OF, "address_of", 1, HANDLE, REFUSE, "buffer_load",                \
    "it is the raw address of a buffer element")                               \
  X(TVM_FILL_FRAGMENT, "tvm_fill_fragment", 6, HANDLE, REFUSE,                 \
    "fragment, m, n, k, index, value",                                         \
    "it is a CUDA tensor-core (WMMA) fragment operation")                      \
  X(TVM_LOAD_MATRIX_SYNC, "tvm_load_matrix_sync", 8, HANDLE, REFUSE,           \
    "fragment, m, n, k, index, buffer_ptr, stride, layout",                    \
    "it is a CUDA tensor-core (WMMA) fragment operation")                      \
  X(TVM_STORE_MATRIX_SYNC, "tvm_store_matrix_sync", 8, HANDLE, REFUSE,         \
    "fragment, m, n, k, index, buffer_ptr, stride, layout",                    \
    "it is a CUDA tensor-core (WMMA) fragment operation")                      \
  X(TVM_MMA_SYNC, "tvm_mma_sync", 8, HANDLE, REFUSE,                           \
    "fragment_d, index_d, fragment_a, index_a, fragment_b, index_b, "          \
    "fragment_c, index_c",                                                     \
    "it is a CUDA tensor-core (WMMA) fragment operation")                      \
  X(TVM_BMMA_SYNC, "tvm_bmma_sync", 8, HANDLE, REFUSE,                         \
    "fragment_d, index_d, fragment_a, index_a, fragment_b, index_b, "          \
    "fragment_c, index_c",                                                     \
    "it is a CUDA tensor-core (WMMA) fragment operation")                      \
  X(Q_MULTIPLY_SHIFT, "q_multiply_shift", 4, INT32, REFUSE, "x, y, q, s",      \
    "fixed-point requantization is not implemented")                           \
  X(Q_MULTIPLY_SHIFT_PER_AXIS, "q_multiply_shift_per_axis", 7, INT32, REFUSE,  \
    "x, y, ls, rs, q, is_lshift_required, is_rshift_required",                 \
    "fixed-point requantization is not implemented")                           \
  X(LIKELY, "likely", 1, ARG0, ARG0, "cond", "a branch-probability hint")      \
  X(ASSUME, "assume", 1, BOOL, TRUE, "cond", "an assumption for the simplifier") \
  /* 1.2: GPU barriers */                                                      \
  X(TVM_STORAGE_SYNC, "tvm_storage_sync", 1, INT32, TRUE, "scope",             \
    "a barrier of the threads of a GPU block")                                 \
  /* 1.3: warp-level tensor-core operations (PTX mma.sync, ldmatrix) on the */ \
  /* per-lane registers of "warp" buffers; the call's dtype comes first    */ \
  X(PTX_LDMATRIX, "ptx_ldmatrix", 7, DTYPE_FIRST, REFUSE,                      \
    "dtype, trans, num, type, local_ptr, local_offset, smem_ptr, smem_offset", \
    "it is a warp-wide PTX load (ldmatrix) into the lanes' registers")        \
  X(PTX_MMA, "ptx_mma", 13, DTYPE_FIRST, REFUSE,                               \
    "dtype, shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, "            \
    "multiplicand_a, a_index, multiplicand_b, b_index, accumulator, "          \
    "c_index, saturate",                                                       \
    "it is a warp-wide PTX tensor-core operation (mma.sync)")                  \
  X(MMA_FILL, "mma_fill", 3, DTYPE_FIRST, REFUSE,                              \
    "dtype, local_size, local_ptr, offset",                                    \
    "it fills a warp's tensor-core accumulator registers")                    \
  X(MMA_STORE, "mma_store", 6, DTYPE_FIRST, REFUSE,                            \
    "dtype, m, n, dst_ptr, src_ptr, src_offset, dst_stride",                   \
    "it stores a warp's tensor-core accumulator registers")                   \
  /* 1.9: what CPU tensor intrinsics are written with (TVM's x86 ones); an */ \
  /* n_args of -1 takes any count. T.call_llvm_pure_intrin("int32x16",     */ \
  /* "llvm.x86.avx512.vpdpbusd.512", T.uint32(3), a, b, c): the LLVM       */ \
  /* intrinsic by name (a StrImm; T.llvm_lookup_intrinsic_id("...") parses */ \
  /* to it), the count of arguments whose types pick an overloaded one,    */ \
  /* then the arguments; the llvm target checks them against its type.     */ \
  X(REINTERPRET, "reinterpret", 1, DTYPE_FIRST, REFUSE, "dtype, value",       \
    "it reinterprets the bits of a value as another dtype")                  \
  X(CALL_LLVM_PURE_INTRIN, "call_llvm_pure_intrin", -1, DTYPE_FIRST, REFUSE,  \
    "dtype, name, num_signature, *args", "it calls an LLVM intrinsic")       \
  X(CALL_LLVM_INTRIN, "call_llvm_intrin", -1, DTYPE_FIRST, REFUSE,            \
    "dtype, name, num_signature, *args", "it calls an LLVM intrinsic")

typedef enum tsl_builtin {
#define TSL_X_(id, name, n, res, ev, params, what) TSL_BUILTIN_##id,
  TSL_BUILTINS(TSL_X_)
#undef TSL_X_
  TSL_BUILTIN_COUNT
} tsl_builtin;

/* Result-dtype rules and interpreter behaviours of the table above. */
enum {
  TSL_BUILTIN_RES_HANDLE = 0,
  TSL_BUILTIN_RES_INT32 = 1,
  TSL_BUILTIN_RES_BOOL = 2,
  TSL_BUILTIN_RES_ARG0 = 3,
  TSL_BUILTIN_RES_DTYPE = 4,
  TSL_BUILTIN_RES_DTYPE_FIRST = 5 /* appended in 1.3 */
};
enum {
  TSL_BUILTIN_EVAL_REFUSE = 0,
  TSL_BUILTIN_EVAL_ARG0 = 1,
  TSL_BUILTIN_EVAL_TRUE = 2
};

typedef struct tsl_builtin_info {
  const char *name;  /* "tvm_mma_sync" */
  int32_t n_args;    /* -1: any count (1.9) */
  int32_t result;    /* TSL_BUILTIN_RES_* */
  int32_t eval;      /* TSL_BUILTIN_EVAL_* */
  const char *params; /* "fragment, m, n, k, index, value" */
  const char *what;  /* why it cannot be computed */
} tsl_builtin_info;

/* Facts of a builtin id (asserts id < TSL_BUILTIN_COUNT). */
TSL_API const tsl_builtin_info *tsl_builtin_info_of(tsl_builtin id);
/* Builtin id for a name ("tvm_mma_sync"), or -1. */
TSL_API int tsl_builtin_lookup(const char *name, size_t n);

/* ==== variables, ranges, buffers ======================================== */

struct tsl_var {
  tsl_str name;
  tsl_dtype dtype;
  uint32_t id;        /* unique within the context; debugging and maps */
  const tsl_expr *ref; /* the shared TSL_EXPR_VAR node that reads this var */
};

/* [min, min + extent) */
typedef struct tsl_range {
  const tsl_expr *min;
  const tsl_expr *extent;
} tsl_range;

struct tsl_buffer {
  tsl_str name;
  tsl_dtype dtype;
  uint32_t ndim;
  const tsl_expr *const *shape;   /* ndim entries */
  const tsl_expr *const *strides; /* NULL: compact row-major; else ndim */
  const tsl_expr *elem_offset;    /* NULL: 0 */
  tsl_str scope;                  /* "global", "shared", "local", ... */
  int32_t align;                  /* 0: default */
  int32_t offset_factor;          /* 0: default */
  uint32_t id;                    /* unique within the context */
  /* Axis separators (TVM's `axis_separators=[...]`, set_axis_separator):
   * ascending positions in [0, ndim] where the physical buffer starts a new
   * dimension; 0 / NULL: none, the buffer is one flat array (see
   * core/lower/README.md for what a flat target does with them). */
  uint32_t n_axis_separators;
  const int32_t *axis_separators;
};

/* A rectangular region of a buffer: one range per dimension. */
typedef struct tsl_buffer_region {
  const tsl_buffer *buffer;
  uint32_t ndim;
  const tsl_range *ranges;
} tsl_buffer_region;

/* ==== annotations =======================================================
 * Values of T.func_attr / T.block_attr / loop annotations dictionaries.
 * Builders sort dictionary entries by key (strcmp), so order in the source
 * does not matter and printing is canonical. */
enum {
  TSL_ATTR_INT = 0,
  TSL_ATTR_FLOAT = 1,
  TSL_ATTR_BOOL = 2,
  TSL_ATTR_STR = 3,
  TSL_ATTR_LIST = 4, /* u.items, n entries */
  TSL_ATTR_DICT = 5, /* u.dict */
  TSL_ATTR_EXPR = 6  /* any other expression, u.expr */
};

typedef struct tsl_attrs tsl_attrs;
typedef struct tsl_attr tsl_attr;
typedef struct tsl_attr_value tsl_attr_value;

struct tsl_attrs {
  uint32_t n;
  const tsl_attr *items; /* sorted by key */
};

struct tsl_attr_value {
  uint32_t kind; /* TSL_ATTR_* */
  uint32_t n;    /* LIST: item count */
  tsl_dtype dtype; /* INT/FLOAT: the literal's dtype (int32/float32 when bare) */
  union {
    int64_t i; /* INT, BOOL (0/1) */
    double f;
    tsl_str s;
    const tsl_attr_value *items;
    tsl_attrs dict;
    const tsl_expr *expr;
  } u;
};

struct tsl_attr {
  tsl_str key;
  tsl_attr_value value;
};

/* Sort `items` in place by key and return the dictionary. */
TSL_API tsl_attrs tsl_attrs_make(tsl_arena *arena, uint32_t n, tsl_attr *items);
/* The entry for `key`, or NULL. */
TSL_API const tsl_attr_value *tsl_attrs_get(tsl_attrs attrs, const char *key);

/* ==== expressions ======================================================= */

struct tsl_expr {
  uint8_t kind;     /* tsl_expr_kind */
  uint8_t reserved;
  uint16_t intrin;  /* CALL: tsl_intrin; BUILTIN: tsl_builtin */
  tsl_dtype dtype;
  uint32_t n_args;
  union {
    int64_t int_value;  /* INT_IMM (uint64 stored bit-for-bit) */
    double float_value; /* FLOAT_IMM */
    tsl_str str_value;  /* STR_IMM, CALL_EXTERN's function name */
    const tsl_var *var; /* VAR */
    const tsl_buffer *buffer; /* LOAD, BUFFER_DATA */
  } u;
  const tsl_expr *args[]; /* n_args operands */
};

TSL_API const tsl_expr *tsl_expr_int(tsl_arena *a, tsl_dtype t, int64_t v);
TSL_API const tsl_expr *tsl_expr_i32(tsl_arena *a, int64_t v); /* int32 */
TSL_API const tsl_expr *tsl_expr_bool(tsl_arena *a, int v);
TSL_API const tsl_expr *tsl_expr_float(tsl_arena *a, tsl_dtype t, double v);
TSL_API const tsl_expr *tsl_expr_str(tsl_arena *a, tsl_str s);
/* Same as v->ref. */
TSL_API const tsl_expr *tsl_expr_var(const tsl_var *v);
TSL_API const tsl_expr *tsl_expr_load(tsl_arena *a, const tsl_buffer *buf,
                                      uint32_t n, const tsl_expr *const *idx);
/* Binary operators ADD..OR: the result dtype is bool for comparisons and
 * logic, else a's dtype. */
TSL_API const tsl_expr *tsl_expr_binary(tsl_arena *a, tsl_expr_kind kind,
                                        const tsl_expr *x, const tsl_expr *y);
/* NOT, NEG: bool for NOT, else x's dtype. */
TSL_API const tsl_expr *tsl_expr_unary(tsl_arena *a, tsl_expr_kind kind,
                                       const tsl_expr *x);
TSL_API const tsl_expr *tsl_expr_select(tsl_arena *a, const tsl_expr *c,
                                        const tsl_expr *t, const tsl_expr *f);
TSL_API const tsl_expr *tsl_expr_if_then_else(tsl_arena *a, const tsl_expr *c,
                                              const tsl_expr *t,
                                              const tsl_expr *f);
TSL_API const tsl_expr *tsl_expr_cast(tsl_arena *a, tsl_dtype t,
                                      const tsl_expr *x);
TSL_API const tsl_expr *tsl_expr_call(tsl_arena *a, tsl_intrin op, tsl_dtype t,
                                      uint32_t n, const tsl_expr *const *args);
TSL_API const tsl_expr *tsl_expr_call_extern(tsl_arena *a, tsl_dtype t,
                                             tsl_str fname, uint32_t n,
                                             const tsl_expr *const *args);
/* A builtin call; `t` is its dtype (see TSL_BUILTINS for the rule). */
TSL_API const tsl_expr *tsl_expr_builtin(tsl_arena *a, tsl_builtin op,
                                         tsl_dtype t, uint32_t n,
                                         const tsl_expr *const *args);
/* `buf.data`: the handle of a buffer's storage (TVM's Buffer::data). */
TSL_API const tsl_expr *tsl_expr_buffer_data(tsl_arena *a,
                                             const tsl_buffer *buf);
TSL_API const tsl_expr *tsl_expr_ramp(tsl_arena *a, const tsl_expr *base,
                                      const tsl_expr *stride, uint16_t lanes);
TSL_API const tsl_expr *tsl_expr_broadcast(tsl_arena *a, const tsl_expr *v,
                                           uint16_t lanes);
/* Generic: a node of `kind` and `dtype` with the given operands and payload
 * copied from `proto` (u and intrin fields). Used by rewriters that rebuild
 * a node with new children. */
TSL_API const tsl_expr *tsl_expr_with_args(tsl_arena *a, const tsl_expr *proto,
                                           uint32_t n,
                                           const tsl_expr *const *args);

/* Is `e` an integer constant (INT_IMM, not bool)? Stores its value. */
TSL_API int tsl_expr_is_const_int(const tsl_expr *e, int64_t *value);

/* ---- variables and buffers ---- */

TSL_API const tsl_var *tsl_var_new(tsl_arena *a, const char *name,
                                   tsl_dtype dtype);
/* A buffer; `shape`/`strides` are copied; strides and elem_offset may be
 * NULL; scope NULL means "global". align/offset_factor 0 = default. */
TSL_API const tsl_buffer *
tsl_buffer_new(tsl_arena *a, const char *name, tsl_dtype dtype, uint32_t ndim,
               const tsl_expr *const *shape, const tsl_expr *const *strides,
               const tsl_expr *elem_offset, const char *scope, int32_t align,
               int32_t offset_factor);
/* A copy of `b` (a new buffer: new id) with `n` axis separators `seps`
 * (copied; n 0: none); every other field is shared. */
TSL_API const tsl_buffer *tsl_buffer_with_axis_separators(tsl_arena *a,
                                                          const tsl_buffer *b,
                                                          uint32_t n,
                                                          const int32_t *seps);
/* Product of the shape if every dimension is constant, else -1. */
TSL_API int64_t tsl_buffer_const_size(const tsl_buffer *b);

/* ==== statements ======================================================== */

#define TSL_STMT_KINDS(X)                                                      \
  X(FOR, "for")                                                                \
  X(BLOCK_REALIZE, "block_realize")                                            \
  X(STORE, "buffer_store")                                                     \
  X(IF, "if_then_else")                                                        \
  X(LET, "let")                                                                \
  X(EVALUATE, "evaluate")                                                      \
  X(SEQ, "seq")                                                                \
  X(ALLOCATE, "allocate") /* lowered programs only (lower.h) */

typedef enum tsl_stmt_kind {
#define TSL_X_(k, name) TSL_STMT_##k,
  TSL_STMT_KINDS(TSL_X_)
#undef TSL_X_
  TSL_STMT_KIND_COUNT
} tsl_stmt_kind;
TSL_API const char *tsl_stmt_kind_name(tsl_stmt_kind kind);

/* X(KIND, TVMScript spelling) */
#define TSL_FOR_KINDS(X)                                                       \
  X(SERIAL, "serial")                                                          \
  X(PARALLEL, "parallel")                                                      \
  X(VECTORIZED, "vectorized")                                                  \
  X(UNROLLED, "unroll")                                                        \
  X(THREAD_BINDING, "thread_binding")

typedef enum tsl_for_kind {
#define TSL_X_(k, name) TSL_FOR_##k,
  TSL_FOR_KINDS(TSL_X_)
#undef TSL_X_
  TSL_FOR_KIND_COUNT
} tsl_for_kind;
TSL_API const char *tsl_for_kind_name(tsl_for_kind kind);

/* Block iteration variable types, numbered as TVM's IterVarType. */
#define TSL_ITER_TYPES(X)                                                      \
  X(SPATIAL, 0, "S", "spatial")                                                \
  X(REDUCE, 2, "R", "reduce")                                                  \
  X(SCAN, 3, "", "scan")                                                       \
  X(OPAQUE, 4, "", "opaque")

typedef enum tsl_iter_type {
#define TSL_X_(k, v, letter, name) TSL_ITER_##k = v,
  TSL_ITER_TYPES(TSL_X_)
#undef TSL_X_
} tsl_iter_type;
TSL_API const char *tsl_iter_type_name(tsl_iter_type t);

typedef struct tsl_iter_var {
  const tsl_var *var;
  tsl_range dom;      /* min usually 0 */
  uint32_t iter_type; /* tsl_iter_type */
} tsl_iter_var;

typedef struct tsl_match_buffer {
  const tsl_buffer *buffer; /* the new view */
  tsl_buffer_region source; /* the region it aliases */
} tsl_match_buffer;

struct tsl_block {
  tsl_str name;
  uint32_t n_iter_vars;
  const tsl_iter_var *iter_vars;
  uint32_t n_reads;
  const tsl_buffer_region *reads;
  uint32_t n_writes;
  const tsl_buffer_region *writes;
  const tsl_stmt *init; /* NULL when the block has no T.init() */
  const tsl_stmt *body;
  uint32_t n_alloc_buffers;
  const tsl_buffer *const *alloc_buffers;
  uint32_t n_match_buffers;
  const tsl_match_buffer *match_buffers;
  tsl_attrs annotations;
};

struct tsl_stmt {
  uint8_t kind; /* tsl_stmt_kind */
  union {
    struct {
      const tsl_var *loop_var;
      const tsl_expr *min;
      const tsl_expr *extent;
      uint32_t for_kind; /* tsl_for_kind */
      tsl_str thread_tag; /* THREAD_BINDING: "threadIdx.x" ...; else NULL */
      tsl_attrs annotations;
      const tsl_stmt *body;
    } loop;
    struct {
      uint32_t n_iter_values; /* == block->n_iter_vars */
      const tsl_expr *const *iter_values;
      const tsl_expr *predicate; /* bool; constant true when no T.where */
      const tsl_block *block;
    } realize;
    struct {
      const tsl_buffer *buffer;
      const tsl_expr *value;
      uint32_t n_indices;
      const tsl_expr *const *indices;
    } store;
    struct {
      const tsl_expr *cond;
      const tsl_stmt *then_case;
      const tsl_stmt *else_case; /* NULL when there is no else */
    } branch;
    struct {
      const tsl_var *var;
      const tsl_expr *value;
      const tsl_stmt *body;
    } let;
    struct {
      const tsl_expr *value;
    } evaluate;
    struct {
      uint32_t n;
      const tsl_stmt *const *stmts;
    } seq;
    struct {
      const tsl_buffer *buffer; /* flat (ndim 1), with its scope */
      const tsl_stmt *body;     /* the statements that may use it */
    } alloc;
  } u;
};

TSL_API const tsl_stmt *tsl_stmt_for(tsl_arena *a, const tsl_var *v,
                                     const tsl_expr *min,
                                     const tsl_expr *extent,
                                     tsl_for_kind kind, tsl_str thread_tag,
                                     tsl_attrs annotations,
                                     const tsl_stmt *body);
TSL_API const tsl_stmt *tsl_stmt_block_realize(tsl_arena *a, uint32_t n,
                                               const tsl_expr *const *values,
                                               const tsl_expr *predicate,
                                               const tsl_block *block);
TSL_API const tsl_stmt *tsl_stmt_store(tsl_arena *a, const tsl_buffer *buf,
                                       const tsl_expr *value, uint32_t n,
                                       const tsl_expr *const *indices);
TSL_API const tsl_stmt *tsl_stmt_if(tsl_arena *a, const tsl_expr *cond,
                                    const tsl_stmt *then_case,
                                    const tsl_stmt *else_case);
TSL_API const tsl_stmt *tsl_stmt_let(tsl_arena *a, const tsl_var *v,
                                     const tsl_expr *value,
                                     const tsl_stmt *body);
TSL_API const tsl_stmt *tsl_stmt_evaluate(tsl_arena *a, const tsl_expr *v);
/* A sequence; n == 1 returns stmts[0] itself. Nested SEQs are flattened. */
TSL_API const tsl_stmt *tsl_stmt_seq(tsl_arena *a, uint32_t n,
                                     const tsl_stmt *const *stmts);
/* Allocate `buffer` for the duration of `body` (lowered programs only; the
 * parser never produces it). */
TSL_API const tsl_stmt *tsl_stmt_allocate(tsl_arena *a, const tsl_buffer *buf,
                                          const tsl_stmt *body);
/* A copy of `block` allocated in `a` (shallow: arrays shared), for
 * rewriters that change a few fields. */
TSL_API tsl_block *tsl_block_clone(tsl_arena *a, const tsl_block *block);

/* ==== functions and modules ============================================= */

/* A parameter: a handle var with a buffer (buffer_map entry), or a scalar
 * var (buffer == NULL). */
typedef struct tsl_param {
  const tsl_var *var;
  const tsl_buffer *buffer;
} tsl_param;

struct tsl_func {
  tsl_str name; /* the Python def name = the module's key */
  uint32_t n_params;
  const tsl_param *params;
  tsl_attrs attrs;      /* T.func_attr; "global_symbol" ignored by equality */
  const tsl_stmt *body; /* always a BLOCK_REALIZE of the block "root" */
};

struct tsl_module {
  tsl_arena *arena; /* the arena the module was built in (not owned) */
  tsl_str name;     /* class name for @I.ir_module, NULL for a bare func */
  uint32_t is_bare_func; /* 1: source was a lone @T.prim_func */
  uint32_t n_funcs;
  const tsl_func *const *funcs;
};

/* The function called `name`, or NULL. */
TSL_API const tsl_func *tsl_module_find(const tsl_module *m, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_IR_H */
