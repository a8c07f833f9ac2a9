/*
 * libFuzzer target for the ONNX importer (core/onnx, instrumented): every
 * input is an .onnx file's bytes. tsl_onnx_import_bytes must either refuse
 * it with a message naming the input, or return a model whose main exists
 * and a weights collection (the importer has checked that the model prints
 * and parses back). Any crash, sanitizer report or silent failure aborts.
 * Built and run by tests/fuzz/run_target.sh onnx.
 */
#include "tessel/onnx.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_model *m = NULL;
  tsl_weights *w = NULL;
  /* odd sizes bind the weights as constants: both forms are checked */
  int rc = tsl_onnx_import_bytes(arena, "fuzz.onnx", data, size, NULL,
                                 size % 2 ? TSL_ONNX_BIND_WEIGHTS : 0, &m, &w, &d);
  if (rc) {
    if (!d.len || strncmp(d.text, "fuzz.onnx: ", 11) || m || w) {
      fprintf(stderr, "a refusal without a located message, or with results: '%s'\n", d.text);
      abort();
    }
  } else if (!m || !w || !tsl_model_find(m, "main")) {
    fprintf(stderr, "an import without a model, main or weights\n");
    abort();
  }
  tsl_weights_free(w);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return 0;
}

/* test_fuzz_replay.c's hook: the importer keeps no scratch files. */
void fuzz_target_cleanup(void);
void fuzz_target_cleanup(void) {}
