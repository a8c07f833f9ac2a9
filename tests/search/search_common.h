/*
 * tests/search/search_common.h — shared by the search tests: the registry
 * with the build tree's plugins, and message checks.
 */
#ifndef TESSEL_TESTS_SEARCH_COMMON_H
#define TESSEL_TESTS_SEARCH_COMMON_H

#include "tap.h"
#include "tessel/tessel.h"

static int has(const tsl_diag *d, const char *s) {
  int r = strstr(d->text, s) != NULL;
  if (!r)
    tap_diag("  message lacks \"%s\":\n%s", s, d->text);
  return r;
}

/* A registry holding the default search path's plugins (the build tree's
 * strategies/ and plugins/ folders); exits when it cannot be built. */
static tsl_registry *load_registry(tsl_ctx *ctx) {
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  unsetenv("TESSEL_PLUGIN_PATH");
  if (tsl_registry_new(ctx, &reg, &d) ||
      tsl_registry_load_default(reg, 0, NULL, &d)) {
    printf("Bail out! plugins: %s\n", d.text);
    exit(1);
  }
  return reg;
}

/* A strategy's generate_cands as copies of the candidates' traces, which
 * the tests inspect. */
static inline int gen_traces(const tsl_strategy_vtable *vt, tsl_strategy *s, uint32_t max,
                             tsl_trace **out, uint32_t *n, tsl_diag *d) {
  return tsl_generate_traces(vt->generate_cands, s, max, out, n, d);
}

/* The component (kind, "random") and its index in the registry. */
static inline const tsl_component *find_random(const tsl_registry *reg, uint32_t kind,
                                        uint32_t *index) {
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const tsl_component *c = tsl_registry_get(reg, k);
    if (c->kind == kind && strcmp(c->name, "random") == 0) {
      *index = k;
      return c;
    }
  }
  return NULL;
}

#endif
