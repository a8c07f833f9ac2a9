/* Placeholder until core/plugin lands. */
#include "tessel/plugin.h"
#include <stdlib.h>

int tsl_registry_new(tsl_ctx *ctx, tsl_registry **out, tsl_diag *diag) {
  (void)ctx; *out = NULL;
  return tsl_diag_set(diag, TSL_EUNSUPPORTED, "plugins: not implemented yet");
}
void tsl_registry_free(tsl_registry *reg) { (void)reg; }
