/*
 * tessel/model.h — running models (relax.h) (appended in ABI 1.4).
 *
 * The reference interpreter runs a Relax function of a model on host
 * tensors: every binding in order, R.call_tir / R.call_dps_packed of a
 * prim_func through the TensorIR interpreter (interp.h), library functions
 * by name ("env.relu", ...) through the table below, operators (R.add, ...,
 * R.matmul) computed directly. It is the oracle later passes and the
 * compiled path are checked against; it is not fast.
 *
 * Tensors come in and go out as named collections (weights.h):
 *  - in: one tensor per parameter of the function, by the parameter's
 *    name, and one per weight the function refers to as
 *    metadata["relax.expr.Constant"][i], by the name
 *    "relax.expr.Constant.<i>", unless the model's passes bound it
 *    (tsl_model.constants, pass.h); each must match its struct info (dtype,
 *    rank, constant sizes; the function's symbolic sizes are bound once,
 *    from the first tensor that names them). A missing, extra or
 *    mis-shaped tensor is an error that names it;
 *  - out: the returned value, "output" for one tensor, "output.<k>" for the
 *    k-th tensor of a returned tuple (nested tuples flattened in order).
 *
 * Library functions (destination-passing: inputs, then the outputs the
 * call's out_sinfo gives), float32 and float64:
 *   env.relu(x, y)          y = max(x, 0)
 *   env.linear(x, w, b, y)  y = x w^T + b, x [.., k], w [n, k], b [n]
 *                           (the course's torch.nn.Linear convention)
 *   env.matmul(a, b, y)     y = a b, [m, k] x [k, n]
 *   env.add(a, b, y)        y = a + b, NumPy broadcasting
 * Errors (TSL_EINVALID / TSL_EUNSUPPORTED / TSL_ERUNTIME with a message):
 * an unknown library function (the message lists the known ones), an
 * output whose out_sinfo does not fit its computation, a prim_func that
 * fails in the interpreter (its message, with the binding's variable).
 */
#ifndef TESSEL_MODEL_H
#define TESSEL_MODEL_H

#include "tessel/relax.h"
#include "tessel/weights.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run Relax function `func` ("main" when NULL) of `m` on `inputs`; the
 * returned tensors go into a new collection *outputs (free it with
 * tsl_weights_free; NULL on error). */
TSL_API int tsl_model_interp(const tsl_model *m, const char *func, const tsl_weights *inputs,
                             tsl_weights **outputs, tsl_diag *diag);

/* Appended in 1.6: the same with the library functions of `reg`
 * (tessel/library.h: the built-in env.* ones and those plugins register);
 * reg NULL: the built-in ones only, as tsl_model_interp. */
typedef struct tsl_registry tsl_registry;
TSL_API int tsl_model_interp_with(const tsl_registry *reg, const tsl_model *m, const char *func,
                                  const tsl_weights *inputs, tsl_weights **outputs,
                                  tsl_diag *diag);

/* The name of built-in library function k (0, 1, ...), NULL past the last. */
TSL_API const char *tsl_model_library_name(uint32_t k);

/* ==== compiled models (appended in 1.6) ====================================
 *
 * A Relax function whose bindings are R.call_tir calls (what the passes
 * legalize and fuse leave), tuple items and aliases, compiled ahead of
 * time as TVM's AOT executor does: one TensorIR module of the called
 * prim_funcs ("kernels") plus an entry prim_func that is the function
 * itself as generated code. The entry calls each kernel in order
 * (T.call_extern of the kernel's name, which a target resolves to that
 * function of the module it builds: target.h, 1.6), passing pointers:
 *  - an input: the caller's tensor (the entry's buffer parameter);
 *  - a weight (a parameter found in the given weights, or a constant the
 *    passes bound, metadata["relax.expr.Constant"][i]): its offset in one
 *    read-only blob, the entry's `weights` parameter, each tensor 64-byte
 *    aligned;
 *  - an intermediate tensor: its offset in one workspace the entry
 *    allocates per call, planned statically (TVM's StaticPlanBlockMemory):
 *    tensors whose lifetimes do not overlap share storage; a constant-size
 *    tensor reuses the smallest free slot that holds it (or grows the
 *    largest), a symbolic-size one only a free slot of the same size
 *    expression; a call's outputs never share with its inputs;
 *  - a returned tensor: the caller's output buffer, written by the call
 *    that makes it (no copy).
 * The entry's parameters: the inputs (the function's parameters that are
 * not weights, in order), then the outputs ("output" or "output_<k>"),
 * then `weights` when there are any, then (lower.h's rule) the symbolic
 * sizes as int64. Its buffers' shapes are the function's struct info, so
 * a batch dimension "n" is bound at call time. The kernels' own symbolic
 * sizes are passed from the shapes at each call.
 *
 * Not compiled (an error naming the binding): operators (legalize first),
 * R.call_dps_packed of library functions, shapes, a returned value that
 * is an input, a weight or a tensor returned twice. */
typedef struct tsl_model_tensor {
  uint32_t struct_size;
  const char *name;   /* parameter name; "output", "output_<k>"; weight name */
  tsl_dtype dtype;
  int32_t ndim;
  const tsl_expr *const *shape; /* int64 dimensions over tsl_model_aot.size_vars */
  uint64_t offset;    /* weights: byte offset in the blob; others 0 */
  uint64_t nbytes;    /* weights: bytes; others 0 */
} tsl_model_tensor;

typedef struct tsl_model_aot {
  uint32_t struct_size;
  const tsl_module *module; /* the kernels and the entry */
  const char *entry;        /* the entry prim_func's name, "model_main" */
  uint32_t n_inputs;
  const tsl_model_tensor *inputs;
  uint32_t n_outputs;
  const tsl_model_tensor *outputs;
  uint32_t n_weights;
  const tsl_model_tensor *weights;
  const uint8_t *weights_data; /* 64-byte aligned; NULL when none */
  uint64_t weights_bytes;
  /* the entry's trailing int64 arguments, in order */
  uint32_t n_size_vars;
  const tsl_var *const *size_vars;
  /* the plan */
  uint32_t n_calls;         /* kernel calls of the entry */
  uint32_t n_intermediates; /* tensors made and consumed inside */
  uint32_t n_slots;         /* the workspace storage they share */
  /* workspace bytes as planned and as one buffer per intermediate would
   * take, readable: "512"; "1024*n + 512" (each symbolic term rounded up
   * to 64 bytes) */
  const char *planned_bytes;
  const char *unplanned_bytes;
} tsl_model_aot;

/* Compile function `func` (NULL: "main") of `m` into `a`. `weights` (may
 * be NULL) holds the tensors of parameters to embed (by name) and of the
 * model's metadata constants not bound by a pass ("relax.expr.Constant.<i>").
 * Errors: TSL_EINVALID / TSL_EUNSUPPORTED with a message that
 * names the binding. */
TSL_API int tsl_model_aot_build(tsl_arena *a, const tsl_model *m, const char *func,
                                const tsl_weights *weights, const tsl_model_aot **out,
                                tsl_diag *diag);

/* Evaluate tensor `t`'s shape (an input or output of `aot`) with the size
 * vars bound to `sizes` (n_size_vars values) into out[t->ndim]; 0 ok,
 * TSL_EINVALID when a dimension does not evaluate to a size >= 0. */
TSL_API int tsl_model_aot_shape(const tsl_model_aot *aot, const tsl_model_tensor *t,
                                const int64_t *sizes, int64_t *out);

/* The C header of a library holding `aot`'s module (symbols prefixed
 * "<prefix>_") and its weights as the data "weights" (lower.h): the
 * inputs, outputs and sizes described, the entry declared, and
 *   static inline int32_t <prefix>_model_run(const void *const *inputs,
 *                                            void *const *outputs, sizes...)
 * calling it with the embedded weights. `about` (may be NULL) says what the
 * model is, in the first line. malloc'd; NULL without aot or prefix. */
TSL_API char *tsl_model_aot_header(const tsl_model_aot *aot, const char *prefix,
                                   const char *about);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_MODEL_H */
