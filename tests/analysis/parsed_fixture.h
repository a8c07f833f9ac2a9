/*
 * A program parsed from TVMScript text into a fresh context and arena, for
 * the tests that transform parsed functions (test_mutate, test_specialize):
 * fixture_parse aborts the test on a parse error (the program is the
 * test's own), fixture_free releases everything.
 */
#ifndef TESSEL_TESTS_ANALYSIS_PARSED_FIXTURE_H
#define TESSEL_TESTS_ANALYSIS_PARSED_FIXTURE_H

#include "tap.h"
#include "tessel/script.h"

#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  tsl_ctx *ctx;
  tsl_arena *arena;
  const tsl_module *mod;
  const tsl_func *f; /* the module's first function */
} fixture;

static inline void fixture_parse(fixture *fx, const char *file, const char *src) {
  tsl_diag d = {0};
  fx->ctx = tsl_ctx_new();
  fx->arena = tsl_arena_new(fx->ctx);
  if (tsl_parse(fx->arena, file, src, strlen(src), &fx->mod, &d)) {
    tap_diag("%s", d.text);
    abort();
  }
  fx->f = fx->mod->funcs[0];
}

static inline void fixture_free(fixture *fx) {
  tsl_arena_free(fx->arena);
  tsl_ctx_free(fx->ctx);
}

#endif
