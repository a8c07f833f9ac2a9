/*
 * Test passes as a researcher writes them, against the installed headers
 * only:
 *   fuse_multiply_add  the course's rewrite: v = R.add(m, c) where
 *                      m = R.multiply(a, b) (same shapes) becomes
 *                      R.call_tir(cls.ewise_fma, (a, b, c)); dce then
 *                      removes the multiply nobody reads
 *   tp_broken          returns a model whose main returns a variable it
 *                      never defines: the pipeline must refuse it
 * and a library function (tessel/library.h) as a user library registers it:
 *   env.scale2         y = 2 x, with a prim_func for rank-2 float32 tensors
 */
#include "tessel/tessel.h"

#include <stdio.h>
#include <string.h>

typedef struct fma_state {
  tsl_map bound; /* const tsl_rx_var * -> const tsl_rx_expr *: the original values */
  int made;
} fma_state;

static int same_shape(const tsl_rx_sinfo *a, const tsl_rx_sinfo *b) {
  return a->kind == TSL_RX_SINFO_TENSOR && a->shape && tsl_rx_sinfo_equal(a, b);
}

/* The prim_func ewise_fma for tensors of struct info s (constant shape). */
static const tsl_func *fma_func(tsl_rx_mutator *m, const tsl_rx_sinfo *s) {
  char shape[512] = "", idx[256] = "", grid[512] = "", vars[256] = "", kinds[65] = "";
  for (int32_t d = 0; d < s->ndim; d++) {
    int64_t v;
    if (!tsl_expr_is_const_int(s->shape[d], &v))
      return NULL;
    snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", d ? ", " : "",
             (long long)v);
    snprintf(grid + strlen(grid), sizeof grid - strlen(grid), "%si%d", d ? ", " : "", (int)d);
    snprintf(idx + strlen(idx), sizeof idx - strlen(idx), "%sv%d", d ? ", " : "", (int)d);
    snprintf(vars + strlen(vars), sizeof vars - strlen(vars), "%sv%d", d ? ", " : "", (int)d);
    kinds[d] = 'S';
  }
  char dt[32], text[4096];
  tsl_dtype_str(s->dtype, dt);
  snprintf(text, sizeof text,
           "@T.prim_func\n"
           "def ewise_fma(A: T.Buffer((%s,), \"%s\"), B: T.Buffer((%s,), \"%s\"),\n"
           "              C: T.Buffer((%s,), \"%s\"), D: T.Buffer((%s,), \"%s\")):\n"
           "    for %s in T.grid(%s):\n"
           "        with T.block(\"fma\"):\n"
           "            %s = T.axis.remap(\"%s\", [%s])\n"
           "            D[%s] = A[%s] * B[%s] + C[%s]\n",
           shape, dt, shape, dt, shape, dt, shape, dt, grid, shape, vars, kinds, grid, idx, idx,
           idx, idx);
  const tsl_module *mod = NULL;
  tsl_diag d = {0};
  if (tsl_parse(m->arena, "<ewise_fma>", text, strlen(text), &mod, &d)) {
    tsl_rx_mutator_fail(m, TSL_EINVALID, "ewise_fma: %s", d.text);
    return NULL;
  }
  return mod->funcs[0];
}

static const tsl_rx_expr *fma_binding(tsl_rx_mutator *m, const tsl_rx_binding *b,
                                      const tsl_rx_expr *value) {
  fma_state *st = m->user_data;
  tsl_map_put(&st->bound, b->var, (void *)value);
  if (value->kind != TSL_RX_EXPR_CALL || value->op != TSL_RX_OP_ADD ||
      value->args[0]->kind != TSL_RX_EXPR_VAR || st->made)
    return value;
  const tsl_rx_expr *mul = tsl_map_get(&st->bound, value->args[0]->var);
  if (!mul || mul->kind != TSL_RX_EXPR_CALL || mul->op != TSL_RX_OP_MULTIPLY ||
      !same_shape(mul->args[0]->sinfo, mul->args[1]->sinfo) ||
      !same_shape(mul->args[0]->sinfo, value->args[1]->sinfo))
    return value;
  const tsl_func *f = fma_func(m, value->sinfo);
  if (!f)
    return value;
  m->tir = tsl_module_with(m->arena, m->tir, f);
  st->made = 1; /* one prim_func per model: the test's models have one shape */
  const tsl_rx_expr *args[3] = {mul->args[0], mul->args[1], value->args[1]};
  tsl_diag d = {0};
  const tsl_rx_expr *call = tsl_rx_dps_call(
      m->arena, m->tir, TSL_RX_OP_CALL_TIR, tsl_rx_global(m->arena, "ewise_fma"),
      tsl_rx_tuple(m->arena, 3, args), 1, &value->sinfo, &d);
  if (!call)
    tsl_rx_mutator_fail(m, TSL_EINVALID, "%s", d.text);
  return call ? call : value;
}

static int fuse_multiply_add(void *ud, const tsl_pass_ctx *ctx, const tsl_model *in,
                             const tsl_model **out, tsl_diag *diag) {
  (void)ud;
  fma_state st = {.made = 0};
  tsl_map_init(&st.bound, NULL);
  tsl_rx_mutator m = tsl_rx_mutator_make(ctx->arena, in->tir);
  m.binding = fma_binding;
  m.user_data = &st;
  m.diag = diag;
  *out = tsl_rx_mutate_model(&m, in);
  tsl_map_free(&st.bound);
  return m.status;
}

static int broken(void *ud, const tsl_pass_ctx *ctx, const tsl_model *in, const tsl_model **out,
                  tsl_diag *diag) {
  (void)ud;
  (void)diag;
  const tsl_rx_func *f = tsl_model_find(in, "main");
  tsl_rx_var *ghost = tsl_rx_var_new(ctx->arena, "ghost", f->ret_sinfo, 0);
  const tsl_rx_func *g = tsl_rx_func_new(ctx->arena, "main", f->n_params, f->params,
                                         f->n_size_vars, f->size_vars, f->n_blocks, f->blocks,
                                         tsl_rx_var_ref(ctx->arena, ghost), f->ret_sinfo);
  *out = tsl_model_new(ctx->arena, in->tir, 1, &g, in->n_constants, in->constants);
  return TSL_OK;
}

static const tsl_pass_vtable fma_vt = {sizeof(tsl_pass_vtable), fuse_multiply_add};
static const tsl_pass_vtable broken_vt = {sizeof(tsl_pass_vtable), broken};

/* ---- env.scale2 ---------------------------------------------------------- */

static int scale2(void *user_data, const tsl_tensor *in, uint32_t n_in, tsl_tensor *out,
                  uint32_t n_out, tsl_diag *diag) {
  (void)user_data;
  if (n_in != 1 || n_out != 1 || tsl_tensor_numel(&in[0]) != tsl_tensor_numel(&out[0])) {
    snprintf(diag->text, sizeof diag->text, "env.scale2 takes one tensor and makes one of its "
             "size");
    return TSL_EINVALID;
  }
  for (int64_t k = 0; k < tsl_tensor_numel(&in[0]); k++)
    tsl_tensor_set(&out[0], k, 2 * tsl_tensor_get(&in[0], k));
  return 0;
}

static const tsl_library_vtable scale2_vt = {
    sizeof(tsl_library_vtable), scale2,
    "@T.prim_func\n"
    "def scale2(x: T.handle, y: T.handle):\n"
    "    n, m = T.int64(), T.int64()\n"
    "    X = T.match_buffer(x, (n, m), \"float32\")\n"
    "    Y = T.match_buffer(y, (n, m), \"float32\")\n"
    "    for i, j in T.grid(n, m):\n"
    "        with T.block(\"scale\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            Y[vi, vj] = X[vi, vj] * T.float32(2)\n"};

TSL_PLUGIN_ENTRY(host, session, diag) {
  const tsl_component comps[] = {
      {sizeof(tsl_component), TSL_COMPONENT_PASS, "fuse_multiply_add", "0.1.0",
       "the course's multiply + add into one ewise_fma prim_func", &fma_vt, NULL},
      {sizeof(tsl_component), TSL_COMPONENT_PASS, "tp_broken", "0.1.0",
       "a faulty pass: returns a variable it never defines", &broken_vt, NULL},
      {sizeof(tsl_component), TSL_COMPONENT_LIBRARY, "env.scale2", "0.1.0",
       "y = 2 x (a user library's function, with its prim_func)", &scale2_vt, NULL},
  };
  for (size_t i = 0; i < sizeof comps / sizeof comps[0]; i++) {
    int rc = host->register_component(session, &comps[i], diag);
    if (rc)
      return rc;
  }
  return 0;
}
