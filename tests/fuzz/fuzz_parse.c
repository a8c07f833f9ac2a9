/*
 * libFuzzer target for the TVMScript front end. Every input must either be
 * rejected with a diagnostic or parse; a parsed module must print, parse
 * back, compare structurally equal to the original and print identically
 * again. The same input read as a model (tsl_parse_model) is rejected with
 * a located message, or prints, parses back and prints identically. Any
 * crash, sanitizer report or broken round trip aborts.
 * Built and run by tests/fuzz/run.sh (clang + -fsanitize=fuzzer).
 */
#include "tessel/relax.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_diag(const tsl_diag *d) {
  /* A rejected input must come with a located message. */
  if (d->len == 0 || strstr(d->text, "error") == NULL) {
    fprintf(stderr, "parse failed without a proper message: '%s'\n", d->text);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag diag = {0};
  const tsl_module *m = NULL;
  int rc = tsl_parse(arena, "fuzz.py", (const char *)data, size, &m, &diag);
  if (rc != TSL_OK) {
    check_diag(&diag);
  } else {
    char *text = tsl_print_module(m);
    const tsl_module *m2 = NULL;
    tsl_diag diag2 = {0};
    if (tsl_parse(arena, "printed.py", text, strlen(text), &m2, &diag2) != TSL_OK) {
      fprintf(stderr, "printed program does not parse:\n%s\n---\n%s\n", diag2.text, text);
      abort();
    }
    char why[1024];
    if (!tsl_module_equal(m, m2, why, sizeof why)) {
      fprintf(stderr, "round trip changed the program: %s\n---\n%s\n", why, text);
      abort();
    }
    char *text2 = tsl_print_module(m2);
    if (strcmp(text, text2) != 0) {
      fprintf(stderr, "printing is not idempotent:\n%s\n---\n%s\n", text, text2);
      abort();
    }
    free(text2);
    free(text);
  }
  /* the same text as a model (relax.h): rejected with a located message,
   * or printed, parsed back and printed identically */
  const tsl_model *model = NULL;
  tsl_diag diag3 = {0};
  if (tsl_parse_model(arena, "fuzz.py", (const char *)data, size, &model, &diag3) != TSL_OK) {
    check_diag(&diag3);
  } else if (model->n_rx_funcs) {
    char *text = tsl_model_print(model);
    const tsl_model *back = NULL;
    tsl_diag diag4 = {0};
    if (tsl_parse_model(arena, "printed.py", text, strlen(text), &back, &diag4) != TSL_OK) {
      fprintf(stderr, "printed model does not parse:\n%s\n---\n%s\n", diag4.text, text);
      abort();
    }
    char *text2 = tsl_model_print(back);
    if (strcmp(text, text2) != 0) {
      fprintf(stderr, "printing a model is not idempotent:\n%s\n---\n%s\n", text, text2);
      abort();
    }
    free(text2);
    free(text);
  }
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return 0;
}
