/*
 * tessel/library.h — library functions, components of kind
 * TSL_COMPONENT_LIBRARY ("library") (appended in ABI 1.6).
 *
 * A library function is what a Relax model calls by name with
 * R.call_dps_packed("env.linear", (x, w, b), out_sinfo): the course
 * registers such functions with tvm.register_func; tessel finds them in
 * the registry by the name the model writes. Destination-passing: the
 * caller allocates the outputs from out_sinfo and the function fills them.
 *
 * A function brings
 *  - `call`: its computation on host tensors, which the reference
 *    interpreter (model.h) runs, and FoldConstant with it;
 *  - `prim_func` (may be NULL): the same computation as TensorIR, one
 *    @T.prim_func in TVMScript whose buffers are the inputs then the
 *    outputs, with symbolic sizes (T.int64(), T.match_buffer) where the
 *    shapes vary. The legalize pass replaces a call whose shapes fit it by
 *    R.call_tir of that prim_func (TVM's LegalizeOps turning a packed call
 *    into TensorIR), so the compiled path (model.h) and tuning apply; a
 *    function without one runs in the interpreter only, and a compiled
 *    model that calls it is refused by name.
 *
 * libtessel registers env.relu (y = max(x, 0)), env.linear (y = x w^T + b,
 * torch.nn.Linear's), env.matmul (y = a b) and env.add (NumPy
 * broadcasting; interpreter only), float32 and float64; the prim_funcs of
 * the first three take rank-2 tensors (the course's [batch, features]). A
 * user library is a plugin registering more names; a name registered twice
 * is refused as for every component.
 */
#ifndef TESSEL_LIBRARY_H
#define TESSEL_LIBRARY_H

#include "tessel/interp.h"
#include "tessel/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsl_library_vtable {
  uint32_t struct_size;
  /* Compute the outputs (allocated by the caller with the call's shapes
   * and dtypes) from the inputs. Inputs that do not fit (count, rank,
   * sizes, dtype) are an error status with a message naming what is
   * wrong, never a crash. `user_data` is the component's. */
  int (*call)(void *user_data, const tsl_tensor *in, uint32_t n_in, tsl_tensor *out,
              uint32_t n_out, tsl_diag *diag);
  /* The function as one TVMScript @T.prim_func (static text, owned by the
   * component), or NULL. */
  const char *prim_func;
} tsl_library_vtable;

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_LIBRARY_H */
