/*
 * core/model/model_internal.h — the reference interpreter of models
 * (tessel/model.h), internal: runtime values and the library functions.
 */
#ifndef TESSEL_MODEL_INTERNAL_H
#define TESSEL_MODEL_INTERNAL_H

#include "tessel/container.h"
#include "tessel/interp.h"
#include "tessel/model.h"
#include "tessel/plugin.h"

/* A runtime value: a tensor, a tuple of values, or a shape. */
enum { MV_TENSOR, MV_TUPLE, MV_SHAPE };
typedef struct mval mval;
struct mval {
  int kind;
  tsl_tensor t;        /* MV_TENSOR: data owned by the run */
  uint32_t n;          /* MV_TUPLE: fields; MV_SHAPE: dims */
  const mval **fields;
  const int64_t *dims;
};

/* NumPy broadcasting of two shapes into out (rank max(na, nb)); 0 when
 * they do not broadcast. */
int mdl_broadcast(const tsl_tensor *a, const tsl_tensor *b, int32_t *ndim, int64_t *shape);
/* Elementwise a op b into out (shaped by mdl_broadcast), op one of
 * TSL_RX_OP_ADD .. DIVIDE; unary ops (EXP .. RELU) read a only. */
void mdl_elementwise(tsl_rx_op op, const tsl_tensor *a, const tsl_tensor *b, tsl_tensor *out);
/* Batched matmul [.., m, k] x [.., k, n] into out (shaped [batch.., m, n]);
 * 0 when the shapes do not fit. */
/* R.where, R.take, R.broadcast_to (1.8) into out, shaped by the call's
 * struct info: take's negative indices count from the end, the others
 * clamp into range. */
/* Do R.where's and R.broadcast_to's operands broadcast to out (at run
 * time, symbolic sizes bound)? 1 for the other operators. */
int mdl_gather_fits(tsl_rx_op op, const tsl_tensor *const *in, uint32_t n, const tsl_tensor *out);
void mdl_gather_op(tsl_rx_op op, tsl_attrs attrs, const tsl_tensor *const *in, tsl_tensor *out);
int mdl_matmul_shape(const tsl_tensor *a, const tsl_tensor *b, int32_t *ndim, int64_t *shape);
void mdl_matmul(const tsl_tensor *a, const tsl_tensor *b, tsl_tensor *out);

/* An operator with attributes (astype .. concat: relax.h, 1.5) on its
 * inputs (concat: the tuple's tensors) into out, allocated with the
 * call's shape and dtype (model_ops.c). */
void mdl_attr_op(tsl_rx_op op, tsl_attrs attrs, const tsl_tensor *const *in, uint32_t n,
                 tsl_tensor *out);

/* A network operator (conv2d .. split: relax.h, 1.6) on its operands into
 * its outputs (one, or the fields of its tuple), allocated with the
 * call's shapes (model_nn.c). */
void mdl_nn_op(tsl_rx_op op, tsl_attrs attrs, const tsl_tensor *const *in, tsl_tensor *const *out,
               uint32_t n_out);

/* The built-in library functions as components (model_library.c). */
int model_register_builtins(tsl_registry *reg, tsl_diag *diag);

/* Library function `name` on its inputs and (allocated) outputs:
 * TSL_ENOTFOUND when there is no such function, else TSL_OK or an error
 * naming what does not fit. */
int mdl_library_call(const char *name, const tsl_tensor *in, uint32_t n_in, tsl_tensor *out,
                     uint32_t n_out, tsl_diag *diag);

/* The value of an R.const expression (its dims[0]) as a double. */
static inline double mdl_const_value(const tsl_rx_expr *e) {
  const tsl_expr *x = e->dims[0];
  return x->kind == TSL_EXPR_FLOAT_IMM ? x->u.float_value : (double)x->u.int_value;
}

/* The value of a dimension with vars[i] bound to values[i]; 0 when it
 * uses another variable or an operation other than + - * // and casts. */
int mdl_eval_dim(const tsl_expr *e, uint32_t n, const tsl_var *const *vars,
                 const int64_t *values, int64_t *out);

/* ---- the compiled path (model_aot.c, model_plan.c) ------------------------ */

/* What a value of a compiled function is. */
enum { MDL_INPUT, MDL_WEIGHT, MDL_INTER, MDL_OUTPUT, MDL_TUPLE };
typedef struct mdl_value mdl_value;
struct mdl_value {
  int kind;
  const tsl_rx_sinfo *si;  /* tensors: dtype and shape */
  const char *name;        /* INPUT, OUTPUT: the entry's buffer; WEIGHT: its name */
  int32_t def, last;       /* INTER, OUTPUT: the binding that makes it, the last that reads it */
  int32_t index;           /* OUTPUT: k */
  uint64_t offset;         /* WEIGHT: in the blob */
  const tsl_weight *weight;
  uint32_t n_fields;       /* TUPLE */
  mdl_value **fields;
  int32_t slot;            /* INTER: the workspace slot (model_plan.c) */
  const char *slot_offset; /* INTER: its byte offset, a TVMScript int64 expression */
};

/* One kernel call: inputs then outputs. */
typedef struct mdl_call {
  int32_t at;
  const char *where;
  const tsl_func *kernel;
  uint32_t n_args, n_in;
  mdl_value **args;
} mdl_call;

typedef struct mdl_plan {
  uint32_t n_intermediates, n_slots;
  const char *workspace_expr; /* the workspace's bytes, a TVMScript int64 expression */
  const char *planned_bytes, *unplanned_bytes; /* the same, constants as plain numbers */
} mdl_plan;

/* Plan the INTER values of `values` (in order of creation) into slots of
 * one workspace: sets each one's slot and slot_offset. */
void mdl_plan_run(tsl_arena *a, mdl_value *const *values, uint32_t n, mdl_plan *out);

#endif
