/*
 * libFuzzer target for the graph passes (core/passes, instrumented): an
 * input that parses as a model goes through convert_layout, legalize,
 * fuse, fold_constant and dce, each called directly; every pass either refuses with a message
 * or returns a model that prints and parses back (tsl_model_check). Any
 * crash, sanitizer report or silent failure aborts.
 * Built and run by tests/fuzz/run_target.sh passes.
 */
#include "passes_internal.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tsl_registry *reg; /* the built-in library functions, for legalize */
static tsl_ctx *reg_ctx;

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_model *m = NULL;
  if (tsl_parse_model(arena, "fuzz.py", (const char *)data, size, &m, &d) == TSL_OK &&
      m->n_rx_funcs) {
    static const struct {
      const char *name;
      const tsl_pass_vtable *vt;
    } passes[] = {{"convert_layout", &pass_convert_layout_vt},
                  {"legalize", &pass_legalize_vt},
                  {"fuse", &pass_fuse_vt},
                  {"fold_constant", &pass_fold_constant_vt},
                  {"dce", &pass_dce_vt}};
    if (!reg) {
      reg_ctx = tsl_ctx_new();
      tsl_diag rd = {0};
      if (tsl_registry_new(reg_ctx, &reg, &rd))
        abort();
    }
    tsl_weights *constants = tsl_weights_new();
    tsl_pass_ctx pc = {sizeof pc, arena, NULL, constants, reg};
    const tsl_model *cur = m;
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++) {
      const tsl_model *next = NULL;
      tsl_diag pd = {0};
      int rc = passes[i].vt->run(NULL, &pc, cur, &next, &pd);
      if (rc) {
        if (!pd.len) {
          fprintf(stderr, "pass %s failed without a message\n", passes[i].name);
          abort();
        }
        break;
      }
      if (tsl_model_check(next, &pd) != TSL_OK) {
        char *text = tsl_model_print(next);
        fprintf(stderr, "pass %s made a model that does not parse back: %s\n---\n%s\n",
                passes[i].name, pd.text, text ? text : "");
        abort();
      }
      cur = next;
    }
    /* the compiled path (model.h) on what the passes made: a located
     * refusal or an entry beside the kernels, never a crash */
    const tsl_model_aot *aot = NULL;
    tsl_diag ad = {0};
    if (tsl_model_aot_build(arena, cur, NULL, constants, &aot, &ad) == TSL_OK) {
      if (!tsl_module_find(aot->module, aot->entry)) {
        fprintf(stderr, "the compiled module has no entry\n");
        abort();
      }
    } else if (!ad.len) {
      fprintf(stderr, "tsl_model_aot_build failed without a message\n");
      abort();
    }
    tsl_weights_free(constants);
  }
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return 0;
}

/* The replay test's hook (test_fuzz_replay.c): this target writes no
 * files; the registry goes. */
void fuzz_target_cleanup(void);
void fuzz_target_cleanup(void) {
  tsl_registry_free(reg);
  tsl_ctx_free(reg_ctx);
  reg = NULL;
  reg_ctx = NULL;
}
