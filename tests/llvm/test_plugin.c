/*
 * The plugin as users get it: tessel-llvm.so loaded through the real loader
 * (RTLD_NOW | RTLD_LOCAL) registers the target "llvm" (version 0.1.0); an
 * instance made through the registered vtable builds a parallel program
 * (the thread pool and libm resolved without the global namespace) that
 * agrees with the interpreter; the entry symbol is the only one exported.
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *prog =
    "@T.prim_func\n"
    "def f(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((64, 32), "
    "\"float32\")):\n"
    "    for i in T.parallel(64):\n"
    "        for j in range(32):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = T.tanh(A[vi, vj]) + T.exp(A[vi, vj])\n";

int main(void) {
  const char *build = getenv("TESSEL_BUILD_ROOT");
  char path[4200];
  snprintf(path, sizeof path, "%s/targets/llvm/tessel-llvm.so",
           build ? build : ".");
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  ok(!tsl_registry_new(ctx, &reg, &d), "registry");
  int rc = tsl_registry_load(reg, path, &d);
  ok(rc == 0, "loads %s", path);
  if (rc)
    tap_diag("%s", d.text);
  const tsl_component *c = tsl_registry_find(reg, TSL_COMPONENT_TARGET, "llvm");
  ok(c && !strcmp(c->version, "0.1.0"), "target 'llvm' 0.1.0 registered");
  if (!c) {
    tsl_registry_free(reg);
    tsl_ctx_free(ctx);
    return tap_done();
  }
  const tsl_target_vtable *vt = c->vtable;
  ok(vt->struct_size == sizeof *vt && vt->create && vt->build && vt->lookup &&
         vt->export_library && vt->kernel_free && vt->describe,
     "vtable filled");
  tsl_kv kv[1] = {{"threads", "2"}};
  tsl_target *t = NULL;
  rc = vt->create(c->user_data, 1, kv, &t, &d);
  ok(rc == 0, "instance created: %s", rc ? d.text : vt->describe(t));
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  const tsl_lowered_module *lm = NULL;
  tsl_kernel *k = NULL;
  if (!rc && !tsl_parse(a, "p.py", prog, strlen(prog), &m, &d) &&
      !tsl_lower_module(a, m, NULL, &lm, &d) &&
      !vt->build(t, lm, &k, NULL, &d)) {
    tsl_packed_fn fn = vt->lookup(k, "f");
    ok(fn != NULL, "built and found 'f'");
    ok(vt->lookup(k, "nope") == NULL, "lookup of an unknown name is NULL");
    tsl_arg ref[2], got[2];
    tsl_func_make_args(m->funcs[0], NULL, 0, 1, ref, &d);
    tsl_func_make_args(m->funcs[0], NULL, 0, 1, got, &d);
    tsl_interp_run(m->funcs[0], ref, 2, &d);
    void *args[2] = {got[0].tensor.data, got[1].tensor.data};
    int32_t r = fn ? fn(args) : -1;
    double maxerr = 0;
    for (int i = 0; i < 64 * 32; i++)
      maxerr = fmax(maxerr, fabs(tsl_tensor_get(&ref[1].tensor, i) -
                                 tsl_tensor_get(&got[1].tensor, i)));
    ok(r == 0 && maxerr < 1e-5, "parallel tanh + exp agrees (max err %.2g)",
       maxerr);
    tsl_args_free(ref, 2);
    tsl_args_free(got, 2);
  } else {
    ok(0, "program builds through the plugin");
    tap_diag("%s", d.text);
  }
  if (k)
    vt->kernel_free(k);
  if (t)
    vt->destroy(t);
  tsl_arena_free(a);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ok(h && dlsym(h, "tessel_plugin_init") && !dlsym(h, "tll_vtable") &&
         !dlsym(h, "tll_compile") && !dlsym(h, "tessel_parallel_launch"),
     "only the entry symbol is exported");
  if (h)
    dlclose(h);
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return tap_done();
}
