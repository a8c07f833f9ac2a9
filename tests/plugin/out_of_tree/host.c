/*
 * A host program built out of tree against the installed libtessel: loads
 * the plugin given as argv[1] and checks its components, including its
 * intrinsic parsed into a tensorize registry, and its schedule rule deriving
 * a design space (two sketches, the fork's first as TVM's stack orders
 * them). Prints one line per failure; exit status 0 when everything holds.
 */
#include <tessel/tessel.h>

#include <stdio.h>
#include <stdlib.h>
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
  static const char prog[] =
      "@T.prim_func\n"
      "def main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
      "    for i in range(8):\n"
      "        with T.block(\"B\"):\n"
      "            vi = T.axis.spatial(8, i)\n"
      "            B[vi] = A[vi] + T.float32(1)\n";
  tsl_arena *pa = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  tsl_space_rule rule;
  tsl_rule_target t = {sizeof t, "llvm", 2, 32, NULL};
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  if (tsl_parse(pa, "prog.py", prog, strlen(prog), &m, &d) ||
      tsl_space_rule_create(reg, "oot.rule", &t, 0, NULL, &rule, &d) ||
      tsl_space_generate(ctx, m, NULL, 1, &rule, 0, NULL, &sk, &n, &d)) {
    bad++, printf("space failed: %s\n", d.text);
  } else {
    char *t0 = n == 2 ? tsl_trace_to_script(sk[0], 1) : NULL;
    char *t1 = n == 2 ? tsl_trace_to_script(sk[1], 1) : NULL;
    if (!t0 || !t1 || !strstr(t0, "ann_key=\"oot.branch\", ann_val=1)") ||
        !strstr(t1, "ann_key=\"oot.branch\", ann_val=0)"))
      bad++, printf("expected two sketches, branch 1 first; got %u:\n%s\n%s\n", n,
                    t0 ? t0 : "", t1 ? t1 : "");
    free(t0);
    free(t1);
    rule.vtable->destroy(rule.rule);
  }
  for (uint32_t i = 0; i < n; i++)
    tsl_trace_free(sk[i]);
  free(sk);
  tsl_arena_free(pa);
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
