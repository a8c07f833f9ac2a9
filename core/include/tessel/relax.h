/*
 * tessel/relax.h — models: Relax functions beside the prim_funcs of one
 * @I.ir_module (appended in ABI 1.4).
 *
 * A model is what TVM calls an IRModule with Relax functions: TensorIR
 * functions (tsl_module, ir.h) and graph-level functions whose bodies bind
 * variables to calls of those (R.call_tir, R.call_dps_packed), of library
 * functions by name ("env.relu") and of high-level operators (R.add,
 * R.matmul, ...). Nodes are immutable and live in the arena the model was
 * parsed into, as TensorIR's do.
 *
 * Struct info (TVM's StructInfo) is on every variable and expression:
 * a tensor's dtype and shape, a shape, a tuple of struct infos, or an
 * object of no known structure. Shape dimensions are int64 TensorIR
 * expressions: constants, or the function's symbolic size variables
 * ("n" in R.Tensor(("n", 784), "float32")), which are tsl_vars.
 *
 * What a parsed model guarantees (the parser checks it and reports the
 * place, file:line:col, of the first violation):
 *  - every variable is defined before use, in scope; a dataflow variable
 *    (bound inside `with R.dataflow():` and not named by R.output) is not
 *    used after its block;
 *  - calls name a prim_func or Relax function of the module, an operator
 *    of the table below, or a packed function by name (R.call_dps_packed,
 *    R.call_tir with a string: library functions such as "env.linear",
 *    resolved when the model runs);
 *  - R.call_tir / R.call_dps_packed of a prim_func pass as many tensors as
 *    it has buffer parameters minus its outputs (out_sinfo), and their
 *    shapes and dtypes agree with its buffers' (its size variables bound
 *    consistently);
 *  - operators get the arity and shapes they accept (broadcasting as
 *    NumPy); binding annotations and the return annotation agree with
 *    what the values are.
 * Weights written as metadata["relax.expr.Constant"][i] (how TVM prints
 * bound parameters, without the metadata) are CONSTANT nodes of unknown
 * struct info until weights are bound.
 */
#ifndef TESSEL_RELAX_H
#define TESSEL_RELAX_H

#include "tessel/ir.h"

typedef struct tsl_weights tsl_weights; /* weights.h */

#ifdef __cplusplus
extern "C" {
#endif

/* ==== struct info ======================================================== */

typedef enum tsl_rx_sinfo_kind {
  TSL_RX_SINFO_OBJECT = 0, /* nothing known (R.Object, an unbound weight) */
  TSL_RX_SINFO_TENSOR = 1, /* R.Tensor(shape, dtype) */
  TSL_RX_SINFO_SHAPE = 2,  /* R.Shape([...]) */
  TSL_RX_SINFO_TUPLE = 3   /* R.Tuple(...) */
} tsl_rx_sinfo_kind;

typedef struct tsl_rx_sinfo tsl_rx_sinfo;
struct tsl_rx_sinfo {
  uint32_t kind;    /* tsl_rx_sinfo_kind */
  int32_t ndim;     /* TENSOR, SHAPE: rank, -1 when unknown */
  tsl_dtype dtype;  /* TENSOR: element dtype; TSL_VOID when unknown */
  /* TENSOR, SHAPE: ndim int64 dimensions, NULL when only the rank is known */
  const tsl_expr *const *shape;
  uint32_t n_fields; /* TUPLE */
  const tsl_rx_sinfo *const *fields;
};

/* ==== operators ===========================================================
 * X(ID, name, n_args): TVMScript spelling R.<name>(...), operand count
 * (-1: variable). CALL_TIR and CALL_DPS_PACKED take the callee (a GLOBAL
 * or EXTERN expression) and a TUPLE of tensors, and carry their outputs'
 * struct info in sinfo_args (out_sinfo=). */
#define TSL_RX_OPS(X)                                                          \
  X(CALL_TIR, "call_tir", 2)                                                   \
  X(CALL_DPS_PACKED, "call_dps_packed", 2)                                     \
  X(ADD, "add", 2)                                                             \
  X(SUBTRACT, "subtract", 2)                                                   \
  X(MULTIPLY, "multiply", 2)                                                   \
  X(DIVIDE, "divide", 2)                                                       \
  X(EXP, "exp", 1)                                                             \
  X(SQRT, "sqrt", 1)                                                           \
  X(TANH, "tanh", 1)                                                           \
  X(SIGMOID, "sigmoid", 1)                                                     \
  X(RELU, "nn.relu", 1)                                                        \
  X(MATMUL, "matmul", 2)                                                       \
  /* appended in 1.5; attributes (tsl_rx_expr.attrs) in parentheses */        \
  X(ASTYPE, "astype", 1)             /* (dtype: STR) */                        \
  X(GELU, "nn.gelu", 1)              /* x * (1 + erf(x / sqrt 2)) / 2 */       \
  X(SILU, "nn.silu", 1)              /* x * sigmoid(x) */                      \
  X(PERMUTE_DIMS, "permute_dims", 1) /* (axes: LIST of INT; none: reversed) */ \
  X(RESHAPE, "reshape", 1)           /* (shape: LIST of EXPR; one may be  */   \
                                     /*  -1, inferred past the symbolic   */   \
                                     /*  sizes data and shape share)      */   \
  X(FLATTEN, "flatten", 1)           /* to one dimension */                    \
  X(SUM, "sum", 1)                   /* (axis: LIST of INT, none: all;      */ \
  X(MEAN, "mean", 1)                 /*  keepdims: BOOL)                    */ \
  X(MAX, "max", 1)                                                             \
  X(SOFTMAX, "nn.softmax", 1)        /* (axis: INT, default -1) */             \
  X(CONCAT, "concat", 1)             /* a TUPLE of tensors (axis: INT, 0) */ \
  /* appended in 1.6 (1.7: any order of NCHW / OIHW, tsl_rx_layout_axes) */                             \
  X(CONV2D, "nn.conv2d", 2)          /* data, weight (strides, padding,     */ \
                                     /*  dilation: INTS; groups: INT;       */ \
                                     /*  data_layout, kernel_layout,        */ \
                                     /*  out_layout, out_dtype: STR)        */ \
  X(MAX_POOL2D, "nn.max_pool2d", 1)  /* (pool_size, strides, padding,       */ \
  X(AVG_POOL2D, "nn.avg_pool2d", 1)  /*  dilation: INTS; ceil_mode,         */ \
                                     /*  count_include_pad: BOOL; layout,   */ \
                                     /*  out_layout: STR)                   */ \
  X(ADAPTIVE_AVG_POOL2D, "nn.adaptive_avg_pool2d", 1) /* (output_size: INTS; */\
                                     /*  layout, out_layout: STR)           */ \
  X(BATCH_NORM, "nn.batch_norm", 5)  /* data, gamma, beta, moving_mean,     */ \
                                     /*  moving_var (axis: INT; epsilon:    */ \
                                     /*  FLOAT; center, scale: BOOL;        */ \
                                     /*  momentum: FLOAT): a TUPLE (out,    */ \
                                     /*  mean, var), inference statistics   */ \
  X(LAYER_NORM, "nn.layer_norm", 3)  /* data, gamma, beta (axes: INTS;      */ \
                                     /*  epsilon: FLOAT; center, scale)     */ \
  X(SPLIT, "split", 1)               /* (indices_or_sections: INTS, an INT  */ \
                                     /*  n: n equal parts; axis: INT): a    */ \
                                     /*  TUPLE */                            \
  /* appended in 1.7 */                                                       \
  X(STRIDED_SLICE, "strided_slice", 1) /* (axes, begin, end, strides: INTS; */\
                                     /*  NumPy's clamping, strides > 0;     */ \
                                     /*  assume_inbound: BOOL, ignored)     */ \
  X(ERF, "erf", 1)                   /* element-wise, as ADD..RELU */          \
  X(POWER, "power", 2)               /* element-wise, broadcasting */        \
  /* appended in 1.8 */                                                       \
  X(MAXIMUM, "maximum", 2)           /* element-wise, broadcasting */        \
  X(MINIMUM, "minimum", 2)           /* element-wise, broadcasting */        \
  X(WHERE, "where", 3)               /* condition (bool), x1, x2: x1 where  */ \
                                     /*  true, else x2; all broadcast       */ \
  X(TAKE, "take", 2)                 /* data, indices (int): data gathered  */ \
                                     /*  along axis (INT, 0) at each index; */ \
                                     /*  negative indices count from the    */ \
                                     /*  end, others clamp into range       */ \
  X(BROADCAST_TO, "broadcast_to", 1) /* (shape: LIST of EXPR): NumPy's      */ \
                                     /*  broadcast of the data to shape     */

typedef enum tsl_rx_op {
#define TSL_X_(id, name, n) TSL_RX_OP_##id,
  TSL_RX_OPS(TSL_X_)
#undef TSL_X_
  TSL_RX_OP_COUNT
} tsl_rx_op;

/* "call_tir", "nn.relu", ... (asserts op < TSL_RX_OP_COUNT). */
TSL_API const char *tsl_rx_op_name(tsl_rx_op op);
/* Appended in 1.7: is `op` element-wise (add, subtract, multiply, divide,
 * exp, sqrt, tanh, sigmoid, relu, erf, power, and from 1.8 maximum and
 * minimum: the same computation at every element, binary ones
 * broadcasting as NumPy)? where, take and broadcast_to (1.8) are not:
 * they go the way of the network operators. */
TSL_API int tsl_rx_op_elementwise(tsl_rx_op op);
/* An operator call's attribute (tsl_rx_expr.attrs, appended in 1.5): an
 * INT or BOOL one, or dflt when absent; an INT or LIST of INT one into out
 * (at most cap values), returning how many it has, -1 when absent. */
TSL_API int64_t tsl_rx_attr_int(tsl_attrs attrs, const char *key, int64_t dflt);
TSL_API int32_t tsl_rx_attr_ints(tsl_attrs attrs, const char *key, int64_t *out, uint32_t cap);
/* Appended in 1.6: a FLOAT attribute (an INT converts), a STR attribute,
 * each `dflt` when absent; an INTS attribute spread to `want` values as
 * TVM's network operators read them (absent: `dflt` everywhere; one value:
 * everywhere; `want` values as given; padding's two values for four:
 * top = bottom, left = right). Returns 0 when the count does not fit. */
TSL_API double tsl_rx_attr_float(tsl_attrs attrs, const char *key, double dflt);
TSL_API const char *tsl_rx_attr_str(tsl_attrs attrs, const char *key, const char *dflt);
TSL_API int tsl_rx_attr_ints_n(tsl_attrs attrs, const char *key, int64_t dflt, int32_t want,
                               int64_t *out);
/* Appended in 1.7: where each letter of `canonical` ("NCHW" for data,
 * "OIHW" for convolution weights) sits in `layout`, a permutation of its
 * letters ("NHWC", "HWIO", "OHWI", ...): axes[i] is the index in `layout`
 * of canonical[i]. Returns 0 (axes untouched) when `layout` is not such a
 * permutation; blocked layouts such as "NCHW16c" are not. */
TSL_API int tsl_rx_layout_axes(const char *layout, const char *canonical, int32_t *axes);
/* Appended in 1.7: R.strided_slice's range along each of the `ndim` axes
 * of a tensor of sizes `dims` (at most 64), from the call's attributes
 * (NumPy's rules: a negative index counts from the end, begin and end are
 * clamped to [0, size]): begin[d], stride[d] and len[d] (an axis not
 * sliced: 0, 1, dims[d]). Returns 0 when the attributes do not fit (axes,
 * begin, end and strides of different lengths, an axis out of range or
 * given twice, a stride below 1). */
TSL_API int tsl_rx_slice_ranges(tsl_attrs attrs, int32_t ndim, const int64_t *dims,
                                int64_t *begin, int64_t *stride, int64_t *len);

/* ==== expressions ========================================================= */

#define TSL_RX_EXPR_KINDS(X)                                                   \
  X(VAR)       /* var */                                                       \
  X(CONSTANT)  /* index: metadata["relax.expr.Constant"][index] */             \
  X(TUPLE)     /* args: the fields */                                          \
  X(TUPLE_GET) /* args[0][index] */                                            \
  X(CALL)      /* op, args, sinfo_args */                                      \
  X(GLOBAL)    /* name: a function of the module (cls.f) */                    \
  X(EXTERN)    /* name: a packed function by name ("env.relu") */              \
  X(SHAPE)     /* R.shape([d0, ...]): n_dims dims */                          \
  X(CONST)     /* appended in 1.6: R.const(value, dtype), a scalar tensor    */ \
               /* (shape ()): dims[0] its value, an INT_IMM or FLOAT_IMM of  */ \
               /* the dtype; n_dims 1                                        */

typedef enum tsl_rx_expr_kind {
#define TSL_X_(k) TSL_RX_EXPR_##k,
  TSL_RX_EXPR_KINDS(TSL_X_)
#undef TSL_X_
  TSL_RX_EXPR_KIND_COUNT
} tsl_rx_expr_kind;

typedef struct tsl_rx_var tsl_rx_var;
typedef struct tsl_rx_expr tsl_rx_expr;

struct tsl_rx_var {
  tsl_str name;
  uint32_t id;        /* unique within the model */
  uint32_t is_dataflow; /* bound in a dataflow block and not output */
  const tsl_rx_sinfo *sinfo;
};

struct tsl_rx_expr {
  uint32_t kind; /* tsl_rx_expr_kind */
  uint32_t op;   /* CALL: tsl_rx_op */
  const tsl_rx_sinfo *sinfo; /* what the expression is */
  uint32_t n_args;
  const tsl_rx_expr *const *args;
  uint32_t n_sinfo_args; /* CALL_TIR, CALL_DPS_PACKED: the outputs */
  const tsl_rx_sinfo *const *sinfo_args;
  uint32_t index;        /* CONSTANT, TUPLE_GET */
  tsl_str name;          /* GLOBAL, EXTERN */
  const tsl_rx_var *var; /* VAR */
  uint32_t n_dims;       /* SHAPE */
  const tsl_expr *const *dims;
  /* appended in 1.5: CALL of an operator: its attributes by name (the
   * table above; an absent one has its default) */
  tsl_attrs attrs;
};

/* ==== functions and models ================================================ */

typedef struct tsl_rx_binding {
  const tsl_rx_var *var;
  const tsl_rx_expr *value;
} tsl_rx_binding;

typedef struct tsl_rx_block {
  uint32_t is_dataflow; /* `with R.dataflow():` */
  uint32_t n_bindings;
  const tsl_rx_binding *bindings;
} tsl_rx_block;

typedef struct tsl_rx_func {
  tsl_str name;
  uint32_t n_params;
  const tsl_rx_var *const *params;
  /* the symbolic sizes of the parameters' shapes, in first-appearance
   * order (int64 tsl_vars), and any the body declares (n = T.int64()) */
  uint32_t n_size_vars;
  const tsl_var *const *size_vars;
  uint32_t n_blocks;
  const tsl_rx_block *blocks;
  const tsl_rx_expr *ret;        /* the returned value */
  const tsl_rx_sinfo *ret_sinfo; /* the -> annotation, else ret's */
} tsl_rx_func;

typedef struct tsl_model {
  uint32_t struct_size;
  tsl_arena *arena;
  const tsl_module *tir; /* the prim_funcs (n_funcs may be 0); its name is the class's */
  uint32_t n_rx_funcs;
  const tsl_rx_func *const *rx_funcs;
  uint32_t n_constants; /* 1 + the largest metadata constant index, 0 when none */
  /* appended in 1.5: the tensors of the constants, named
   * "relax.expr.Constant.<i>", when a pass bound them (BindParams,
   * FoldConstant; pass.h), else NULL (a parsed model: they come with the
   * inputs). Not owned: whoever bound them keeps them alive as long as the
   * model. */
  const tsl_weights *constants;
} tsl_model;

/* Parse a TVMScript file holding one @I.ir_module class of @T.prim_func and
 * @R.function functions (or a lone @T.prim_func) into `arena`, checked as
 * the header comment says. Errors are TSL_EINVALID with a located message
 * in `diag`, as tsl_parse's. */
TSL_API int tsl_parse_model(tsl_arena *arena, const char *filename, const char *src,
                            size_t len, const tsl_model **out, tsl_diag *diag);
TSL_API int tsl_parse_model_file(tsl_arena *arena, const char *path, const tsl_model **out,
                                 tsl_diag *diag);
/* Appended in 1.7: tsl_parse_model with the metadata constants' struct
 * info known, as the printer leaves it out: constants[i] (i < n_constants;
 * NULL entries stay unknown, R.Object) is that of
 * metadata["relax.expr.Constant"][i], so that operators on bound weights
 * infer their shapes as they did before printing. Not copied: they must
 * live as long as the model. */
TSL_API int tsl_parse_model_constants(tsl_arena *arena, const char *filename, const char *src,
                                      size_t len, uint32_t n_constants,
                                      const tsl_rx_sinfo *const *constants,
                                      const tsl_model **out, tsl_diag *diag);

/* The Relax function called `name`, or NULL. */
TSL_API const tsl_rx_func *tsl_model_find(const tsl_model *m, const char *name);

/* The model as TVMScript, as TVM prints it (malloc'd; free it). Parsing the
 * text gives the same model. */
TSL_API char *tsl_model_print(const tsl_model *m);
/* One struct info as TVMScript (R.Tensor((1, n), dtype="float32")),
 * malloc'd. */
TSL_API char *tsl_rx_sinfo_print(const tsl_rx_sinfo *s);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_RELAX_H */
