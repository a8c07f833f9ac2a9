/*
 * A host program built out of tree against the installed libtessel: loads
 * the plugin given as argv[1] and checks its components, including its
 * intrinsic parsed into a tensorize registry. Prints one line per failure;
 * exit status 0 when everything holds.
 */
#include <tessel/tessel.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  int bad = 0;
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  if (tsl_registry_new(ctx, &reg, &d) || tsl_registry_load(reg, argv[1], &d)) {
    printf("load failed: %s\n", d.text);
    return 1;
  }
  const tsl_component *c = tsl_registry_find(reg, TSL_COMPONENT_SCHEDULE_RULE, "oot.rule");
  if (!c || strcmp(c->version, "0.3.0") != 0)
    bad++, printf("oot.rule missing or wrong version\n");
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_intrin_registry *ir = NULL;
  const tsl_func *desc = NULL, *impl = NULL;
  if (tsl_registry_intrins(reg, a, &ir, &d))
    bad++, printf("intrins failed: %s\n", d.text);
  else if (!tsl_intrin_registry_get(ir, "oot_scale4", &desc, &impl) || !desc || !impl)
    bad++, printf("oot_scale4 is not in the intrinsic registry\n");
  tsl_intrin_registry_free(ir);
  tsl_arena_free(a);
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return bad ? 1 : 0;
}
