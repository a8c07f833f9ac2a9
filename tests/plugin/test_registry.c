/*
 * The registry without plugin files: kind names, the ABI version rule (with
 * made-up host versions), the built-in intrinsics as components, in-process
 * registration and its validation, lookups with their messages, and the
 * tensor-intrinsic registry built from components.
 */
#include "plugin_internal.h" /* tsl_abi_check */
#include "tap.h"
#include "tessel/tessel.h"

#include <stddef.h>

/* A vtable large enough for any kind, its functions NULL (never called). */
static const union {
  uint32_t struct_size;
  tsl_target_vtable target;
  tsl_strategy_vtable strategy;
  tsl_cost_model_vtable cost_model;
  tsl_schedule_rule_vtable rule;
  tsl_postproc_vtable postproc;
  tsl_trace_mutator_vtable mutator;
  tsl_intrin_vtable intrin;
} any_vt = {.struct_size = sizeof any_vt};
static const void *const vt = &any_vt;
static const uint32_t vt_zero[2] = {0, 0};

static int has(const tsl_diag *d, const char *s) {
  int r = strstr(d->text, s) != NULL;
  if (!r)
    tap_diag("  message lacks \"%s\":\n%s", s, d->text);
  return r;
}

/* "kind:name,..." of every component, to check a registry is unchanged. */
static char *snapshot(const tsl_registry *reg) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const tsl_component *c = tsl_registry_get(reg, k);
    tsl_strbuf_printf(&sb, "%u:%s@%s,", c->kind, c->name,
                      tsl_registry_path(reg, k));
  }
  tsl_strbuf_append(&sb, "");
  return tsl_strbuf_take(&sb);
}

static void test_kinds(void) {
  is_str(tsl_component_kind_name(TSL_COMPONENT_TARGET), "target", "kind 1 is target");
  is_str(tsl_component_kind_name(TSL_COMPONENT_COST_MODEL), "cost_model", "kind 3 is cost_model");
  is_str(tsl_component_kind_name(TSL_COMPONENT_INTRIN), "intrin", "kind 7 is intrin");
  is_str(tsl_component_kind_name(TSL_COMPONENT_PASS), "pass", "kind 8 is pass");
  is_str(tsl_component_kind_name(TSL_COMPONENT_LIBRARY), "library", "kind 9 is library");
  ok(tsl_component_kind_name(0) == NULL && tsl_component_kind_name(10) == NULL,
     "kinds 0 and 10 have no name");
  int round = 1;
  for (uint32_t k = 1; k <= TSL_COMPONENT_KIND_MAX; k++)
    round &= tsl_component_kind_lookup(tsl_component_kind_name(k)) == k;
  ok(round, "every kind name looks up to its kind");
  is_int(tsl_component_kind_lookup("strategy"), TSL_COMPONENT_STRATEGY, "lookup strategy");
  is_int(tsl_component_kind_lookup("Target"), 0, "lookup is case-sensitive");
  is_int(tsl_component_kind_lookup(NULL), 0, "lookup of NULL is 0");
}

static void test_abi_rule(void) {
  char why[512];
  is_int(tsl_abi_check(TSL_ABI_MAKE(1, 0), TSL_ABI_MAKE(1, 0), why, sizeof why), 0,
         "abi: same version is served");
  is_int(tsl_abi_check(TSL_ABI_MAKE(1, 3), TSL_ABI_MAKE(1, 1), why, sizeof why), 0,
         "abi: host 1.3 serves an older plugin 1.1");
  is_int(tsl_abi_check(TSL_ABI_MAKE(1, 1), TSL_ABI_MAKE(1, 3), why, sizeof why), 0,
         "abi: host 1.1 serves a newer-minor plugin 1.3");
  why[0] = '\0';
  is_int(tsl_abi_check(TSL_ABI_MAKE(1, 0), TSL_ABI_MAKE(2, 0), why, sizeof why),
         TSL_EUNSUPPORTED, "abi: host 1.0 refuses plugin 2.0");
  ok(strstr(why, "plugin ABI 2.0") && strstr(why, "host's ABI 1.0"),
     "abi: the refusal names both versions (%s)", why);
  is_int(tsl_abi_check(TSL_ABI_MAKE(2, 4), TSL_ABI_MAKE(1, 5), why, sizeof why),
         TSL_EUNSUPPORTED, "abi: host 2.4 refuses plugin 1.5");
  ok(strstr(why, "1.5") && strstr(why, "2.4"), "abi: ... naming 1.5 and 2.4");
  is_int(tsl_abi_check(TSL_ABI_VERSION, 0, why, sizeof why), TSL_EUNSUPPORTED,
         "abi: an undeclared version (0.0) is refused");
  is_int(tsl_abi_check(TSL_ABI_MAKE(1, 0), TSL_ABI_MAKE(1, 0xffff), NULL, 0), 0,
         "abi: minor 65535 is still major 1");
}

static void test_builtins(tsl_ctx *ctx) {
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  is_int(tsl_registry_new(ctx, &reg, &d), 0, "registry_new succeeds");
  is_int(tsl_registry_count(reg), 36,
         "a new registry holds the two built-in intrinsics, the five built-in mutators, the "
         "ten built-in rules, the eight built-in postprocessors, the seven built-in "
         "passes and the four built-in library functions");
  ok(tsl_registry_find(reg, TSL_COMPONENT_MUTATOR, "MutateTileSize") &&
         tsl_registry_find(reg, TSL_COMPONENT_MUTATOR, "MutateUnroll") &&
         tsl_registry_find(reg, TSL_COMPONENT_MUTATOR, "MutateComputeLocation") &&
         tsl_registry_find(reg, TSL_COMPONENT_MUTATOR, "MutateParallel") &&
         tsl_registry_find(reg, TSL_COMPONENT_MUTATOR, "MutateThreadBinding"),
     "built-in mutators MutateTileSize, MutateComputeLocation, MutateUnroll, "
     "MutateParallel and MutateThreadBinding");
  static const char *const pps[] = {"DisallowDynamicLoop", "RewriteParallelVectorizeUnroll",
                                    "RewriteReductionBlock", "RewriteLayout",
                                    "RewriteUnboundBlock", "VerifyGPUCode",
                                    "RewriteCooperativeFetch", "RewriteTensorize"};
  for (int i = 0; i < 8; i++)
    ok(tsl_registry_find(reg, TSL_COMPONENT_POSTPROC, pps[i]) != NULL,
       "built-in postprocessor %s", pps[i]);
  static const char *const rules[] = {"InlineConstantScalars", "AutoInline", "AddRFactor",
                                      "MultiLevelTiling", "ParallelizeVectorizeUnroll",
                                      "RandomComputeLocation", "AutoBind"};
  for (int i = 0; i < 7; i++)
    ok(tsl_registry_find(reg, TSL_COMPONENT_SCHEDULE_RULE, rules[i]) &&
           !strcmp(tsl_registry_path(reg, (uint32_t)(5 + i)), "built-in"),
       "built-in schedule rule %s", rules[i]);
  const tsl_component *ctr = tsl_registry_find(reg, TSL_COMPONENT_SCHEDULE_RULE,
                                               "CrossThreadReduction");
  uint32_t ctr_at = 0;
  while (ctr && ctr_at < tsl_registry_count(reg) && tsl_registry_get(reg, ctr_at) != ctr)
    ctr_at++;
  ok(ctr && !strcmp(tsl_registry_path(reg, ctr_at), "built-in"),
     "built-in schedule rule CrossThreadReduction");
  ok(tsl_registry_find(reg, TSL_COMPONENT_SCHEDULE_RULE, "MultiLevelTilingTensorCore") != NULL,
     "built-in schedule rule MultiLevelTilingTensorCore");
  const char *names[2] = {"mma_4x4x4_f32", "vec_fma_4_f32"};
  tsl_intrin_registry *core = NULL;
  tsl_intrin_registry_new(ctx, &core, &d);
  tsl_arena *a = tsl_arena_new(ctx);
  for (int i = 0; i < 2; i++) {
    const tsl_component *c = tsl_registry_find(reg, TSL_COMPONENT_INTRIN, names[i]);
    ok(c != NULL, "built-in %s is an intrin component", names[i]);
    if (!c)
      continue;
    is_str(tsl_registry_path(reg, (uint32_t)i), "built-in", "  ... its path is built-in");
    is_int(tsl_registry_abi(reg, (uint32_t)i), TSL_ABI_VERSION, "  ... its ABI is the host's");
    const tsl_intrin_vtable *v = c->vtable;
    const tsl_module *m = NULL;
    int rc = tsl_parse(a, names[i], v->script, strlen(v->script), &m, &d);
    ok(rc == 0 && m->n_funcs == 2, "  ... its script parses to a module of two functions");
    if (rc) {
      tap_diag("%s", d.text);
      continue;
    }
    const tsl_func *desc = NULL, *impl = NULL;
    tsl_intrin_registry_get(core, names[i], &desc, &impl);
    char why[512];
    ok(desc && tsl_module_find(m, v->desc_func) &&
           tsl_func_equal(tsl_module_find(m, v->desc_func), desc, why, sizeof why),
       "  ... its desc_func equals tensorize's built-in description");
    ok(impl && tsl_module_find(m, v->impl_func) &&
           tsl_func_equal(tsl_module_find(m, v->impl_func), impl, why, sizeof why),
       "  ... its impl_func equals tensorize's built-in implementation");
  }
  tsl_arena_free(a);
  tsl_intrin_registry_free(core);
  tsl_registry_free(reg);
}

static int add(tsl_registry *reg, uint32_t size, uint32_t kind, const char *name,
               const void *vtable, tsl_diag *d) {
  tsl_component c = {.struct_size = size, .kind = kind, .name = name,
                     .version = "1", .vtable = vtable};
  return tsl_registry_add(reg, &c, d);
}

static int pp_create(void *user_data, const tsl_rule_target *target, uint32_t n_opts,
                     const tsl_kv *opts, tsl_postproc **out, tsl_diag *diag) {
  (void)user_data, (void)target, (void)n_opts, (void)opts, (void)diag;
  *out = NULL;
  return TSL_OK;
}

static int pp_apply(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag) {
  (void)pp, (void)sch, (void)diag;
  return TSL_OK;
}

static void test_add(tsl_ctx *ctx) {
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  tsl_registry_new(ctx, &reg, &d);
  const uint32_t S = sizeof(tsl_component);
  is_int(add(reg, S, TSL_COMPONENT_POSTPROC, "t.add-1_x", vt, &d), 0, "add a postproc");
  const tsl_component *c = tsl_registry_find(reg, TSL_COMPONENT_POSTPROC, "t.add-1_x");
  ok(c && c->vtable == vt && strcmp(c->version, "1") == 0, "  ... and find it");
  ok(tsl_registry_find(reg, TSL_COMPONENT_MUTATOR, "t.add-1_x") == NULL,
     "  ... not under another kind");
  is_str(tsl_registry_path(reg, 2), "built-in", "  ... its path is built-in");
  char *before = snapshot(reg);
  is_int(add(reg, S, TSL_COMPONENT_POSTPROC, "t.add-1_x", vt, &d), TSL_EINVALID,
         "a duplicate (kind, name) is refused");
  ok(has(&d, "duplicate postproc 't.add-1_x'") && has(&d, "built-in"),
     "  ... naming the kind, the name and who registered it first");
  is_int(add(reg, S, TSL_COMPONENT_MUTATOR, "t.add-1_x", vt, &d), 0,
         "the same name under another kind is fine");
  free(before);
  before = snapshot(reg);
  is_int(add(reg, S, 99, "t.kind", vt, &d), TSL_EINVALID, "unknown kind 99 is refused");
  ok(has(&d, "unknown kind 99") && has(&d, "7 (intrin)"), "  ... listing the valid kinds");
  is_int(add(reg, S, 0, "t.kind0", vt, &d), TSL_EINVALID, "kind 0 is refused");
  is_int(add(reg, S, TSL_COMPONENT_TARGET, "a b", vt, &d), TSL_EINVALID,
         "a name with a space is refused");
  ok(has(&d, "'a b'") && has(&d, "A-Z a-z 0-9 _ . -"), "  ... saying which characters are valid");
  is_int(add(reg, S, TSL_COMPONENT_TARGET, "", vt, &d), TSL_EINVALID, "an empty name is refused");
  is_int(add(reg, S, TSL_COMPONENT_TARGET, NULL, vt, &d), TSL_EINVALID, "a NULL name is refused");
  char long_name[300];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  is_int(add(reg, S, TSL_COMPONENT_TARGET, long_name, vt, &d), TSL_EINVALID,
         "a 299-character name is refused");
  is_int(add(reg, S, TSL_COMPONENT_TARGET, "t.null", NULL, &d), TSL_EINVALID,
         "a NULL vtable is refused");
  ok(has(&d, "NULL vtable"), "  ... saying so");
  is_int(add(reg, S, TSL_COMPONENT_TARGET, "t.zero", vt_zero, &d), TSL_EINVALID,
         "a vtable whose struct_size is 0 is refused");
  ok(has(&d, "struct_size is 0"), "  ... saying so");
  is_int(add(reg, 8, TSL_COMPONENT_TARGET, "t.small", vt, &d), TSL_EINVALID,
         "a tsl_component of struct_size 8 is refused");
  ok(has(&d, "struct_size is 8"), "  ... naming the size");
  static const uint32_t small_vt[2] = {sizeof small_vt, 0};
  is_int(add(reg, S, TSL_COMPONENT_STRATEGY, "t.small_vt", small_vt, &d), TSL_EINVALID,
         "a strategy vtable smaller than ABI 1.0's is refused");
  ok(has(&d, "struct_size is 8, smaller than a tsl_strategy_vtable of ABI 1.0"),
     "  ... naming its size and the vtable type");
  is_int(tsl_registry_add(reg, NULL, &d), TSL_EINVALID, "a NULL component is refused");
  char *after = snapshot(reg);
  is_str(after, before, "refused registrations leave the registry unchanged");
  free(after);
  free(before);
  static const tsl_target_vtable old_target = {
      .struct_size = offsetof(tsl_target_vtable, space_defaults)};
  is_int(add(reg, S, TSL_COMPONENT_TARGET, "t.target_1_0", &old_target, &d), 0,
         "a target vtable of ABI 1.0 (without 1.1's space_defaults) is accepted");

  tsl_component small = {.struct_size = offsetof(tsl_component, user_data),
                         .kind = TSL_COMPONENT_TARGET, .name = "t.old",
                         .version = NULL, .vtable = vt, .user_data = (void *)vt};
  is_int(tsl_registry_add(reg, &small, &d), 0,
         "a tsl_component without user_data (older struct_size) is accepted");
  c = tsl_registry_find(reg, TSL_COMPONENT_TARGET, "t.old");
  ok(c && c->user_data == NULL && c->struct_size == sizeof(tsl_component),
     "  ... fields past its struct_size read as zero, struct_size is the host's");
  ok(c && c->version && c->version[0] == '\0', "  ... a NULL version reads as \"\"");

  const tsl_component *got = NULL;
  static const tsl_postproc_vtable full = {.struct_size = sizeof full,
                                            .create = pp_create, .apply = pp_apply};
  add(reg, S, TSL_COMPONENT_POSTPROC, "t.full", &full, &d);
  is_int(tsl_registry_require(reg, TSL_COMPONENT_POSTPROC, "t.full", &got, &d), 0,
         "require finds a registered component");
  ok(got && got->vtable == &full, "  ... and returns it");
  is_int(tsl_registry_require(reg, TSL_COMPONENT_POSTPROC, "t.add-1_x", &got, &d),
         TSL_EINVALID, "require refuses a component whose vtable lacks a function it must have");
  ok(has(&d, "postproc 't.add-1_x': its vtable lacks create, apply"),
     "  ... naming the functions");
  ok(!got, "  ... and returns none");
  is_int(tsl_registry_require(reg, TSL_COMPONENT_INTRIN, "wmma", &got, &d), TSL_ENOTFOUND,
         "require of a missing intrin fails");
  ok(got == NULL && has(&d, "no intrin named 'wmma'") && has(&d, "mma_4x4x4_f32") &&
         has(&d, "vec_fma_4_f32"),
     "  ... listing the valid intrin names");
  is_int(tsl_registry_require(reg, TSL_COMPONENT_COST_MODEL, "xgb", &got, &d), TSL_ENOTFOUND,
         "require of a kind with no component fails");
  ok(has(&d, "no cost_model is registered") && has(&d, "TESSEL_PLUGIN_PATH"),
     "  ... saying none is registered and where plugins are searched");
  is_int(tsl_registry_require(reg, 42, "x", &got, &d), TSL_EINVALID,
         "require of an unknown kind fails");
  ok(tsl_registry_get(reg, tsl_registry_count(reg)) == NULL &&
         tsl_registry_path(reg, 999) == NULL && tsl_registry_abi(reg, 999) == 0,
     "listing past the end gives NULL / 0");

  is_int(tsl_registry_set_option(reg, "k", "v1", &d), 0, "set_option");
  is_int(tsl_registry_set_option(reg, "k", "v2", &d), 0, "set_option replaces");
  is_int(tsl_registry_set_option(reg, "", "v", &d), TSL_EINVALID, "an empty option key is refused");
  tsl_registry_free(reg);
  tsl_registry_free(NULL);
  ok(1, "freeing NULL is a no-op");
}

static const char add4_ok[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def d(a: T.handle, c: T.handle):\n"
    "        A = T.match_buffer(a, (4,), \"float32\", offset_factor=1)\n"
    "        C = T.match_buffer(c, (4,), \"float32\", offset_factor=1)\n"
    "        with T.block(\"root\"):\n"
    "            T.reads(A[0:4])\n"
    "            T.writes(C[0:4])\n"
    "            for i in range(4):\n"
    "                with T.block(\"neg\"):\n"
    "                    vi = T.axis.spatial(4, i)\n"
    "                    C[vi] = A[vi] * T.float32(-1)\n"
    "\n"
    "    @T.prim_func\n"
    "    def im(a: T.handle, c: T.handle):\n"
    "        A = T.match_buffer(a, (4,), \"float32\", offset_factor=1)\n"
    "        C = T.match_buffer(c, (4,), \"float32\", offset_factor=1)\n"
    "        with T.block(\"root\"):\n"
    "            T.reads(A[0:4])\n"
    "            T.writes(C[0:4])\n"
    "            for i in T.vectorized(4):\n"
    "                C[i] = A[i] * T.float32(-1)\n";

static void test_intrins(tsl_ctx *ctx) {
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  tsl_registry_new(ctx, &reg, &d);
  tsl_intrin_vtable good = {sizeof good, add4_ok, "d", "im", NULL};
  tsl_component c = {.struct_size = sizeof c, .kind = TSL_COMPONENT_INTRIN,
                     .name = "t_neg4", .version = "1", .vtable = &good};
  is_int(tsl_registry_add(reg, &c, &d), 0, "add an intrin component");
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_intrin_registry *ir = NULL;
  int rc = tsl_registry_intrins(reg, a, &ir, &d);
  is_int(rc, 0, "registry_intrins succeeds");
  if (rc)
    tap_diag("%s", d.text);
  is_int(tsl_intrin_registry_count(ir), 3, "  ... with the 2 built-ins and t_neg4");
  const tsl_func *desc = NULL, *impl = NULL;
  ok(tsl_intrin_registry_get(ir, "t_neg4", &desc, &impl) && desc && impl &&
         strcmp(desc->name, "d") == 0 && strcmp(impl->name, "im") == 0,
     "  ... t_neg4's description and implementation are the script's d and im");
  ok(tsl_intrin_registry_get(ir, "mma_4x4x4_f32", NULL, NULL), "  ... mma_4x4x4_f32 is there");
  tsl_intrin_registry_free(ir);

  tsl_intrin_vtable wrong = {sizeof wrong, add4_ok, "d", "nope", NULL};
  c.name = "t_wrong";
  c.vtable = &wrong;
  tsl_registry_add(reg, &c, &d);
  is_int(tsl_registry_intrins(reg, a, &ir, &d), TSL_EINVALID,
         "an intrin naming a missing function fails");
  ok(ir == NULL && has(&d, "intrin 't_wrong' (built-in)") && has(&d, "'nope'") &&
         has(&d, "d, im"),
     "  ... naming the component, the function and the script's functions");
  tsl_registry_free(reg);

  tsl_registry_new(ctx, &reg, &d);
  tsl_intrin_vtable broken = {sizeof broken, "@T.prim_func\ndef f(:\n", "f", "f", NULL};
  c.name = "t_broken";
  c.vtable = &broken;
  tsl_registry_add(reg, &c, &d);
  is_int(tsl_registry_intrins(reg, a, &ir, &d), TSL_EPARSE,
         "an intrin with a syntax error fails with a parse error");
  ok(has(&d, "built-in[intrin t_broken]:2:"), "  ... located at SOURCE[intrin NAME]:LINE:COL");
  tsl_registry_free(reg);

  tsl_registry_new(ctx, &reg, &d);
  tsl_intrin_vtable tiny = {8, add4_ok, NULL, NULL, NULL};
  c.name = "t_tiny";
  c.vtable = &tiny;
  is_int(tsl_registry_add(reg, &c, &d), TSL_EINVALID,
         "an intrin vtable smaller than ABI 1.0's is refused at registration");
  ok(has(&d, "struct_size is 8, smaller than a tsl_intrin_vtable of ABI 1.0"),
     "  ... naming the size and the vtable type");
  tsl_registry_free(reg);
  tsl_arena_free(a);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  test_kinds();
  test_abi_rule();
  test_builtins(ctx);
  test_add(ctx);
  test_intrins(ctx);
  tsl_ctx_free(ctx);
  return tap_done();
}
