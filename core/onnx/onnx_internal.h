/*
 * core/onnx/onnx_internal.h — what the ONNX importer's files share: the
 * reader (onnx_read.c: the file unpacked and checked, tensors decoded),
 * the converter state (onnx_import.c) and the operator table
 * (onnx_ops.c).
 */
#ifndef TESSEL_ONNX_INTERNAL_H
#define TESSEL_ONNX_INTERNAL_H

#include "onnx.pb-c.h"
#include "tessel/container.h"
#include "tessel/onnx.h"
#include "tessel/relax_build.h"

/* ---- onnx_read.c ---- */
/* The tessel dtype of ONNX element type `t` (TensorProto.DataType) into
 * out; 0 when not supported. */
int ox_dtype(int32_t t, tsl_dtype *out);
/* ONNX's name of element type t ("STRING", "COMPLEX64"; "unknown"). */
const char *ox_dtype_name(int32_t t);
/* "float32, float16, ..." : the element types that are. */
extern const char ox_dtypes_supported[];
/* Tensor `t` decoded into `w` named `name` (raw_data, the typed fields or
 * external data under `dir`); a message in diag naming `what` on error. */
int ox_tensor_read(const Onnx__TensorProto *t, const char *name, const char *dir,
                   const char *what, tsl_weights *w, const tsl_weight **out, tsl_diag *diag);

/* ---- onnx_import.c: the conversion state ---- */
typedef struct ox_value {
  const tsl_rx_expr *expr; /* NULL until used as a tensor (a weight's parameter) */
  const tsl_weight *data;  /* the value, when known at import time */
  /* sizes, some symbolic: an int64 scalar (rank 0) or vector (rank 1) of
   * n_dims expressions, from Shape of a tensor with symbolic dimensions
   * and the shape arithmetic on it; read by Reshape and Expand */
  const tsl_expr *const *dims;
  uint32_t n_dims;
  int dims_rank;
  const char *onnx_name;
} ox_value;

typedef struct ox_ctx {
  tsl_arena *a;
  const char *file;
  const char *dir;
  int64_t opset;
  tsl_weights *weights;   /* what becomes the parameters' tensors */
  tsl_weights *consts;    /* values known at import time that stay out of main */
  tsl_map values;         /* tsl_str onnx name -> ox_value * */
  tsl_map names;          /* tsl_str -> 1: Relax names in use */
  tsl_map outputs;        /* tsl_str onnx name -> 1: the graph's outputs */
  tsl_vec params;         /* const tsl_rx_var * */
  tsl_vec bindings;       /* tsl_rx_binding */
  tsl_map sizes;          /* tsl_str dim_param -> const tsl_var * */
  tsl_vec size_vars;      /* const tsl_var * */
  uint32_t next_lv;
  /* the node being converted, for messages */
  const Onnx__NodeProto *node;
  uint32_t node_index;
  int status; /* the first failure's */
  int bind;             /* TSL_ONNX_BIND_WEIGHTS */
  uint32_t n_constants; /* bound so far */
  tsl_diag *diag;
} ox_ctx;

/* Fail at the current node: "FILE: node I 'NAME' (OP): message". */
int ox_fail(ox_ctx *c, int status, const char *fmt, ...) TSL_PRINTF(3, 4);
/* Input i of the current node as a Relax tensor expression (a weight
 * becomes a parameter, a known scalar an R.const); NULL (failed) when
 * absent or not a tensor. */
const tsl_rx_expr *ox_input(ox_ctx *c, uint32_t i);
/* Input i's value when known at import time (an initializer or a
 * Constant), else NULL. */
const tsl_weight *ox_input_data(ox_ctx *c, uint32_t i);
/* Input i as sizes into out (at most cap): an int64 or int32 scalar or
 * vector known at import time, or a value of symbolic sizes; the count,
 * or -1 when it is neither. rank (may be NULL) receives 0 or 1. */
int32_t ox_input_dims(ox_ctx *c, uint32_t i, const tsl_expr **out, uint32_t cap, int *rank);
/* Output i is sizes: known int64 values when every one is constant, else
 * a value of symbolic sizes. */
int ox_set_output_dims(ox_ctx *c, uint32_t i, int rank, uint32_t n, const tsl_expr *const *dims);
/* R.const(f or i, dt): a scalar of float dtype dt from f, else from i. */
const tsl_rx_expr *ox_const(ox_ctx *c, tsl_dtype dt, double f, int64_t i);
/* Does the current node have input i (present and not "")? */
int ox_has_input(ox_ctx *c, uint32_t i);
/* Bind `value` to a new variable (a graph output keeps dataflow 0) and
 * return a reference; `onnx_name` non-NULL: it names node output. */
const tsl_rx_expr *ox_bind(ox_ctx *c, const tsl_rx_expr *value);
/* Output i of the current node is `e` (bound first when a call). */
int ox_set_output(ox_ctx *c, uint32_t i, const tsl_rx_expr *e);
/* Output i of the current node is a value known at import time. */
int ox_set_output_data(ox_ctx *c, uint32_t i, tsl_dtype dtype, uint32_t ndim,
                       const int64_t *shape, const void *bytes);
/* R.<op>(args) with attributes; NULL (failed, message set) when the
 * operands do not fit. */
const tsl_rx_expr *ox_call(ox_ctx *c, tsl_rx_op op, uint32_t n, const tsl_rx_expr *const *args,
                           tsl_attrs attrs);

/* ---- attributes of the current node ---- */
const Onnx__AttributeProto *ox_attr(ox_ctx *c, const char *name);
int64_t ox_attr_int(ox_ctx *c, const char *name, int64_t dflt);
float ox_attr_float(ox_ctx *c, const char *name, float dflt);
/* Into out: the count (at most cap: the values stored), -1 when absent. */
int32_t ox_attr_ints(ox_ctx *c, const char *name, int64_t *out, uint32_t cap);
/* The STRING attribute, NUL-terminated in the arena, or dflt. */
const char *ox_attr_str(ox_ctx *c, const char *name, const char *dflt);

/* ---- building Relax attributes ---- */
typedef struct ox_attrs {
  tsl_attr items[16];
  uint32_t n;
} ox_attrs;
void ox_at_ints(ox_ctx *c, ox_attrs *at, const char *key, uint32_t n, const int64_t *v);
void ox_at_int(ox_ctx *c, ox_attrs *at, const char *key, int64_t v);
void ox_at_bool(ox_ctx *c, ox_attrs *at, const char *key, int v);
void ox_at_float(ox_ctx *c, ox_attrs *at, const char *key, double v);
void ox_at_str(ox_ctx *c, ox_attrs *at, const char *key, const char *v);
/* R.shape-style dimensions (reshape's shape). */
void ox_at_shape(ox_ctx *c, ox_attrs *at, const char *key, uint32_t n, const tsl_expr *const *dims);
tsl_attrs ox_attrs_done(ox_ctx *c, ox_attrs *at);

/* ---- onnx_ops.c ---- */
/* Convert the current node; TSL_OK or a failure with its message. */
int ox_convert_node(ox_ctx *c);
/* "Add, AveragePool, ..." : the operators converted, into buf. */
const char *ox_ops_supported(char *buf, size_t cap);

#endif /* TESSEL_ONNX_INTERNAL_H */
