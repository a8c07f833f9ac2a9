/*
 * tessel/onnx.h — ONNX models imported as Relax modules (appended in 1.7).
 *
 * An .onnx file (what torch.onnx.export and every other framework write)
 * becomes a model whose Relax function `main` computes the graph with the
 * high-level operators of relax.h (R.nn.conv2d, R.matmul, R.add, ...), so
 * that legalize, fusion and tuning apply to it unchanged, and a collection
 * of weights: the graph's initializers (and Constant nodes that are not
 * scalars), each a parameter of `main` named after it, to bind with
 * bind_params or to pass at run time. Operator set versions 11 to 18 of
 * the default domain are read (from 1.8: 11 to 20, so Gelu of set 20);
 * the converted operators, their attributes and what is refused are
 * listed in core/onnx/README.md.
 *
 * Naming: a parameter takes the ONNX name made a Python identifier
 * (characters other than letters, digits and '_' become '_'; a leading
 * digit, or a name TVMScript reserves, gets a 'v_' prefix; clashes get
 * _1, _2); bindings are lv, lv1, ... as TVM names them. Symbolic
 * dimensions (dim_param) become symbolic sizes of `main` of that name;
 * from 1.8, Shape of them and the arithmetic exporters write on it
 * (Gather, Concat, Mul, ...) become sizes of R.reshape and R.broadcast_to
 * ("batch", "batch * 4").
 *
 * Errors (TSL_EINVALID, TSL_EUNSUPPORTED, TSL_ENOMEM, TSL_EIO) leave *model
 * and *weights NULL and say in `diag` what is wrong and where: "FILE: node
 * 12 'conv1' (Conv): ..." with the supported list for an unsupported
 * operator, opset or data type; a truncated or corrupted file is a clean
 * error. Nothing is written by these functions.
 *
 * Threading: no shared state; one arena per call.
 */
#ifndef TESSEL_ONNX_H
#define TESSEL_ONNX_H

#include "tessel/relax.h"
#include "tessel/weights.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of the import. */
enum {
  /* The initializers become the model's metadata constants
   * (metadata["relax.expr.Constant"][i], tensors "relax.expr.Constant.<i>"
   * in *weights, which the model's `constants` then refers to: keep
   * *weights alive as long as the model), as a model whose parameters
   * bind_params bound; without it they are parameters of main. */
  TSL_ONNX_BIND_WEIGHTS = 1u << 0
};

/* Import the ONNX model at `path`: *model lives in `arena`, *weights is
 * the caller's (tsl_weights_free). Tensors stored as external data are
 * read from files beside `path` (location, offset, length), never outside
 * its folder. `flags`: TSL_ONNX_* (0: initializers as parameters). */
TSL_API int tsl_onnx_import(tsl_arena *arena, const char *path, uint32_t flags,
                            const tsl_model **model, tsl_weights **weights, tsl_diag *diag);

/* The same from `len` bytes in memory; `name` appears in messages and
 * `dir` (may be NULL: external data refused) is where external data is. */
TSL_API int tsl_onnx_import_bytes(tsl_arena *arena, const char *name, const void *data,
                                  size_t len, const char *dir, uint32_t flags,
                                  const tsl_model **model, tsl_weights **weights,
                                  tsl_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_ONNX_H */
