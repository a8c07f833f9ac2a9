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

/* The name of library function k (0, 1, ...), NULL past the last. */
TSL_API const char *tsl_model_library_name(uint32_t k);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_MODEL_H */
