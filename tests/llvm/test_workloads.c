/*
 * Every program in workloads/ and tests/programs/ (each prim_func of a
 * module), lowered with vectorize 1, JIT-built with the LLVM target (2
 * threads) and run on seeded random inputs, must agree with the reference
 * interpreter. Symbolic sizes and scalar parameters are bound by name
 * (m = 37, n = 29, alpha = 3, beta = -2). tests/programs/call_extern.py
 * calls a function that exists nowhere, tests/programs/tvm_builtins.py
 * tensor-core builtins: their builds must fail naming them.
 */
#include "llvm_util.h"

#include "test_files.h"

/* The .py files of `dir`, sorted, with their suffix. */
static int list_py(const char *dir, char **names, int cap) {
  int n = tf_list(dir, ".py", 0, names, cap);
  for (int k = 0; k < n; k++) {
    size_t l = strlen(names[k]);
    names[k] = realloc(names[k], l + 4);
    memcpy(names[k] + l, ".py", 4);
  }
  return n;
}

static const tsl_binding binds[] = {
    {"m", 37}, {"n", 29}, {"alpha", 3}, {"beta", -2}};

static void run_dir(tsl_target *t, tsl_ctx *ctx, const char *sub, int min,
                    int *passed, int *total) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/%s", lt_root(), sub);
  char *names[256];
  int n = list_py(dir, names, 256);
  ok(n >= min, "found %d programs in %s", n, sub);
  tsl_diag d = {0};
  for (int i = 0; i < n; i++) {
    char path[8300];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    tsl_arena *a = tsl_arena_new(ctx);
    const tsl_module *m = NULL;
    if (tsl_parse_file(a, path, &m, &d)) {
      ok(0, "%s parses", names[i]);
      tap_diag("%s", d.text);
    } else {
      for (uint32_t f = 0; f < m->n_funcs; f++) {
        char id[600];
        snprintf(id, sizeof id, "%s/%s:%s", sub, names[i], m->funcs[f]->name);
        ++*total;
        /* calls an external function that does not exist, or a GPU
         * builtin: a clear error naming it */
        const char *expect =
            !strcmp(names[i], "call_extern.py")    ? "my_activation"
            : !strcmp(names[i], "tvm_builtins.py") ? "T.tvm_fill_fragment cannot be compiled"
                                                   : NULL;
        *passed += lt_check_ex(t, ctx, m->funcs[f], m->funcs[f], binds,
                               sizeof binds / sizeof binds[0], 1, id, expect);
      }
    }
    tsl_arena_free(a);
    free(names[i]);
  }
}

int main(void) {
  lt_announce_cpu();
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=2", &d);
  ok(t != NULL, "target created: %s", t ? tll_vtable.describe(t) : d.text);
  if (!t)
    return tap_done();
  tsl_ctx *ctx = tsl_ctx_new();
  int passed = 0, total = 0;
  run_dir(t, ctx, "workloads", 30, &passed, &total);
  run_dir(t, ctx, "tests/programs", 30, &passed, &total);
  tap_diag("%d of %d functions agree", passed, total);
  tsl_ctx_free(ctx);
  tll_vtable.destroy(t);
  return tap_done();
}
