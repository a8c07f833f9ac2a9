/* prim_tensorize.c: placeholder until the primitive lands. */
#include "sch_internal.h"

#include <stdlib.h>

int sch_apply_tensorize(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

struct tsl_intrin_registry {
  int unused;
};

int tsl_intrin_registry_new(tsl_ctx *ctx, tsl_intrin_registry **out,
                            tsl_diag *diag) {
  (void)ctx;
  (void)diag;
  *out = calloc(1, sizeof **out);
  return *out ? TSL_OK : TSL_ENOMEM;
}
void tsl_intrin_registry_free(tsl_intrin_registry *reg) { free(reg); }
int tsl_intrin_registry_add(tsl_intrin_registry *reg, const char *name,
                            const tsl_func *desc, const tsl_func *impl,
                            tsl_diag *diag) {
  (void)reg; (void)name; (void)desc; (void)impl;
  return tsl_diag_set(diag, TSL_EUNSUPPORTED, "not implemented yet");
}
int tsl_intrin_registry_get(const tsl_intrin_registry *reg, const char *name,
                            const tsl_func **desc, const tsl_func **impl) {
  (void)reg; (void)name; (void)desc; (void)impl;
  return 0;
}
uint32_t tsl_intrin_registry_count(const tsl_intrin_registry *reg) {
  (void)reg;
  return 0;
}
const char *tsl_intrin_registry_name(const tsl_intrin_registry *reg,
                                     uint32_t k) {
  (void)reg; (void)k;
  return NULL;
}
