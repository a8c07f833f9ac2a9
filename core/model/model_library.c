/*
 * core/model/model_library.c — the built-in library functions as
 * components of kind "library" (tessel/library.h): env.relu, env.linear,
 * env.matmul, env.add, computed by model_kernels.c, with the prim_funcs
 * legalize turns their calls into (rank 2, symbolic sizes; float32).
 */
#include "model_internal.h"

#include "tessel/library.h"

static const char relu_tir[] =
    "@T.prim_func\n"
    "def env_relu(x: T.handle, y: T.handle):\n"
    "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "    n, m = T.int64(), T.int64()\n"
    "    X = T.match_buffer(x, (n, m), \"float32\")\n"
    "    Y = T.match_buffer(y, (n, m), \"float32\")\n"
    "    for i, j in T.grid(n, m):\n"
    "        with T.block(\"compute\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            Y[vi, vj] = T.max(X[vi, vj], T.float32(0))\n";

static const char linear_tir[] =
    "@T.prim_func\n"
    "def env_linear(x: T.handle, w: T.handle, b: T.handle, y: T.handle):\n"
    "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "    n, k, m = T.int64(), T.int64(), T.int64()\n"
    "    X = T.match_buffer(x, (n, k), \"float32\")\n"
    "    W = T.match_buffer(w, (m, k), \"float32\")\n"
    "    B = T.match_buffer(b, (m,), \"float32\")\n"
    "    Y = T.match_buffer(y, (n, m), \"float32\")\n"
    "    for i, j, r in T.grid(n, m, k):\n"
    "        with T.block(\"T_linear\"):\n"
    "            vi, vj, vr = T.axis.remap(\"SSR\", [i, j, r])\n"
    "            with T.init():\n"
    "                Y[vi, vj] = B[vj]\n"
    "            Y[vi, vj] = Y[vi, vj] + X[vi, vr] * W[vj, vr]\n";

static const char matmul_tir[] =
    "@T.prim_func\n"
    "def env_matmul(a: T.handle, b: T.handle, c: T.handle):\n"
    "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "    n, k, m = T.int64(), T.int64(), T.int64()\n"
    "    A = T.match_buffer(a, (n, k), \"float32\")\n"
    "    B = T.match_buffer(b, (k, m), \"float32\")\n"
    "    C = T.match_buffer(c, (n, m), \"float32\")\n"
    "    for i, j, r in T.grid(n, m, k):\n"
    "        with T.block(\"matmul\"):\n"
    "            vi, vj, vr = T.axis.remap(\"SSR\", [i, j, r])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vr, vj]\n";

static int call(void *user_data, const tsl_tensor *in, uint32_t n_in, tsl_tensor *out,
                uint32_t n_out, tsl_diag *diag) {
  return mdl_library_call(user_data, in, n_in, out, n_out, diag);
}

static const char *const summaries[] = {
    "y = max(x, 0) (float32 / float64; prim_func: rank 2)",
    "y = x w^T + b, torch.nn.Linear's (prim_func: rank-2 x)",
    "y = a b (prim_func: rank 2)",
    "y = a + b, NumPy broadcasting (interpreter only)",
};

static const tsl_library_vtable vts[] = {
    {sizeof(tsl_library_vtable), call, relu_tir},
    {sizeof(tsl_library_vtable), call, linear_tir},
    {sizeof(tsl_library_vtable), call, matmul_tir},
    {sizeof(tsl_library_vtable), call, NULL},
};

int model_register_builtins(tsl_registry *reg, tsl_diag *diag) {
  for (uint32_t k = 0; tsl_model_library_name(k); k++) {
    const char *name = tsl_model_library_name(k);
    tsl_component c = {sizeof c, TSL_COMPONENT_LIBRARY, name, "0.1.0", summaries[k], &vts[k],
                       (void *)name};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  return TSL_OK;
}
