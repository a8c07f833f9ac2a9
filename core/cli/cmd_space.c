/*
 * `tessel space PROGRAM`: the design space the target's default schedule
 * rules derive for a prim_func, each sketch printed as a trace (a schedule
 * script in TVM's trace form) with its sample_* decisions drawn from the
 * seed; --json prints {"sketches": [{"trace": "..."}, ...]}.
 */
#include "cli.h"
#include "tessel/analysis.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cli_space_usage[] =
    "usage: tessel space PROGRAM [--func F] [--bind NAME=VALUE]... [--target T]\n"
    "                    [--rule 'NAME;KEY=VALUE;...']... [--num-cores N] [--seed S]\n"
    "                    [--cpu-features LIST] [--postproc] [--json]\n"
    "\n"
    "Derive the design space of the prim_func F of PROGRAM from the target's\n"
    "default schedule rules (TVM MetaSchedule's PostOrderApply over the\n"
    "blocks) and print each sketch as a trace: a schedule script whose\n"
    "sample_* calls carry decisions drawn from the seed.\n"
    "\n"
    "  --func F         the function (default: \"main\", or the only one)\n"
    "  --bind NAME=VALUE  a symbolic size or scalar parameter of F made the\n"
    "                   constant VALUE first (TVM's specialize); the rules\n"
    "                   need every shape constant\n"
    "  --target T       the target whose default space applies (default llvm;\n"
    "                   cuda: TVM's CUDA lists)\n"
    "  --rule SPEC      apply these rules, in order, instead of the target's\n"
    "                   default list: a registered rule's name and its options,\n"
    "                   ';'-separated, e.g. 'AutoInline' or\n"
    "                   'MultiLevelTiling;structure=SSRSRS;max_innermost_factor=16'\n"
    "                   (the postprocessors stay the target's)\n"
    "  --num-cores N    cores the rules plan for (default: this machine's)\n"
    "  --seed S         seed of the decisions (default 0)\n"
    "  --cpu-features LIST  the CPU features the rules may use, LLVM's names\n"
    "                   comma-separated (default: this machine's, e.g.\n"
    "                   avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni; \"all\"\n"
    "                   for every one): tensor intrinsics needing others are\n"
    "                   not used\n"
    "  --postproc       also run the target's default postprocessors on each\n"
    "                   sketch (with its decisions) and print the traces with\n"
    "                   their instructions after sch.enter_postproc(); a sketch\n"
    "                   they reject prints the reason instead\n"
    "  --json           print {\"sketches\": [{\"trace\": \"<script>\"}, ...]} in\n"
    "                   generation order\n"
    "\n"
    "exit status: 0 ok, 2 on error\n";


/* Replace each trace by its postprocessed one (recorded decisions), or by
 * NULL with the rejection in why[i]. */
static int postprocess(tsl_ctx *ctx, const tsl_module *m, const tsl_registry *reg,
                       const tsl_intrin_registry *intrins, const tsl_rule_target *rt,
                       tsl_trace **traces, uint32_t n, char (*why)[512], tsl_diag *diag) {
  tsl_space_postproc *pps;
  uint32_t npp;
  int rc = tsl_space_default_postprocs(reg, rt, &pps, &npp, diag);
  for (uint32_t i = 0; i < n && !rc; i++) {
    tsl_schedule *s = NULL;
    tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, intrins};
    if ((rc = tsl_trace_replay(ctx, traces[i], m, &ro, &s, diag)))
      break;
    tsl_diag d = {0};
    int prc = tsl_space_apply_postprocs(s, npp, pps, &d);
    tsl_trace_free(traces[i]);
    traces[i] = NULL;
    if (prc == TSL_OK)
      traces[i] = tsl_trace_copy(tsl_schedule_trace(s));
    else if (prc == TSL_EINVALID)
      snprintf(why[i], 512, "%.500s", d.text);
    else
      rc = tsl_diag_set(diag, prc, "%s", d.text);
    tsl_schedule_free(s);
  }
  tsl_space_postprocs_free(pps, npp);
  return rc;
}

static void print_sketches(tsl_trace **traces, char (*why)[512], uint32_t n, int json) {
  if (json) {
    json_t *arr = json_array();
    for (uint32_t i = 0; i < n; i++) {
      if (!traces[i]) {
        json_array_append_new(arr, json_pack("{s:s}", "rejected", why[i]));
        continue;
      }
      char *t = tsl_trace_to_script(traces[i], 1);
      json_array_append_new(arr, json_pack("{s:s}", "trace", t ? t : ""));
      free(t);
    }
    json_t *root = json_pack("{s:o}", "sketches", arr);
    char *s = json_dumps(root, JSON_INDENT(2));
    printf("%s\n", s ? s : "{}");
    free(s);
    json_decref(root);
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!traces[i]) {
      printf("%s# sketch %u of %u\n# rejected: %s\n", i ? "\n" : "", i + 1, n, why[i]);
      continue;
    }
    char *t = tsl_trace_to_script(traces[i], 1);
    printf("%s# sketch %u of %u\n%s", i ? "\n" : "", i + 1, n, t ? t : "");
    if (t && t[0] && t[strlen(t) - 1] != '\n')
      putchar('\n');
    free(t);
  }
}

enum { MAX_SPACE_BINDS = 64, MAX_SPACE_RULES = 32, MAX_RULE_OPTS = 32 };

/* The rules of --rule 'NAME;KEY=VALUE;...' options, in order (instead of
 * the target's default list). */
static int make_rules(const tsl_registry *reg, const tsl_rule_target *rt, uint32_t n,
                      char *const *specs, tsl_space_rule **out, uint32_t *n_out,
                      tsl_diag *diag) {
  *out = calloc(n ? n : 1, sizeof **out);
  *n_out = 0;
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    tsl_kv kv[MAX_RULE_OPTS];
    uint32_t nk = 0;
    char *name = specs[i], *p = strchr(name, ';');
    while (p && nk < MAX_RULE_OPTS) {
      *p++ = '\0';
      char *next = strchr(p, ';'), *eq = strchr(p, '=');
      if (next)
        *next = '\0';
      if (!eq || (next && eq > next))
        return tsl_diag_set(diag, TSL_EINVALID, "--rule %s: option '%s' is not KEY=VALUE",
                            name, p);
      *eq = '\0';
      kv[nk++] = (tsl_kv){p, eq + 1};
      p = next;
    }
    int rc = tsl_space_rule_create(reg, name, rt, nk, kv, &(*out)[i], diag);
    if (rc)
      return rc;
    *n_out = i + 1;
  }
  return TSL_OK;
}

int cli_space(int argc, char **argv) {
  const char *prog = NULL, *func_name = NULL, *target = "llvm";
  const char *features = tsl_host_cpu_features();
  const char *bind_names[MAX_SPACE_BINDS], *bind_values[MAX_SPACE_BINDS];
  char bind_buf[MAX_SPACE_BINDS][128];
  uint32_t n_binds = 0;
  uint64_t seed = 0, cores = 0;
  int json = 0, post = 0;
  char *rule_specs[MAX_SPACE_RULES];
  uint32_t n_specs = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--postproc")) {
      post = 1;
    } else if (!strcmp(a, "--bind")) {
      const char *v = i + 1 < argc ? argv[++i] : NULL;
      const char *eq = v ? strchr(v, '=') : NULL;
      if (!eq || eq == v || !eq[1] || (size_t)(eq - v) >= sizeof bind_buf[0])
        return cli_error("space", "--bind expects NAME=VALUE, got '%s'\nnote: e.g. --bind m=64",
                         v ? v : "nothing");
      if (n_binds == MAX_SPACE_BINDS)
        return cli_error("space", "at most %d --bind options", MAX_SPACE_BINDS);
      memcpy(bind_buf[n_binds], v, (size_t)(eq - v));
      bind_buf[n_binds][eq - v] = '\0';
      bind_names[n_binds] = bind_buf[n_binds];
      bind_values[n_binds++] = eq + 1;
    } else if (!strcmp(a, "--rule")) {
      if (i + 1 >= argc || n_specs == MAX_SPACE_RULES)
        return cli_error("space", "--rule expects 'NAME;KEY=VALUE;...' (at most %d of them)",
                         MAX_SPACE_RULES);
      rule_specs[n_specs++] = argv[++i];
    } else if (!strcmp(a, "--func") || !strcmp(a, "--target") || !strcmp(a, "--seed") ||
               !strcmp(a, "--num-cores") || !strcmp(a, "--cpu-features")) {
      if (i + 1 >= argc)
        return cli_error("space", "option %s needs a value\nnote: see tessel space --help", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--func"))
        func_name = v;
      else if (!strcmp(a, "--target"))
        target = v;
      else if (!strcmp(a, "--cpu-features"))
        features = strcmp(v, "all") ? v : NULL;
      else if (!strcmp(a, "--seed") && !cli_parse_u64(v, &seed))
        return cli_error("space", "--seed expects a non-negative integer, got '%s'", v);
      else if (!strcmp(a, "--num-cores") && (!cli_parse_u64(v, &cores) || !cores || cores > 4096))
        return cli_error("space", "--num-cores expects an integer from 1 to 4096, got '%s'", v);
    } else if (a[0] == '-' && a[1] != '\0') {
      return cli_error("space", "unknown option '%s'\nnote: valid options: --func, --bind, "
                                "--target, --rule, --num-cores, --seed, --cpu-features, --postproc, "
                                "--json, "
                                "--help", a);
    } else if (!prog) {
      prog = a;
    } else {
      return cli_error("space", "unexpected argument '%s' (PROGRAM is already given)", a);
    }
  }
  if (!prog)
    return cli_error("space", "missing PROGRAM\nnote: usage: tessel space PROGRAM [--json]");
  if (!cores) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cores = n > 0 ? (uint64_t)n : 1;
  }

  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_registry *reg = NULL;
  tsl_intrin_registry *intrins = NULL;
  tsl_diag diag = {0};
  const tsl_module *m = NULL;
  const tsl_func *f = NULL;
  tsl_space_rule *rules = NULL;
  uint32_t n_rules = 0, n = 0;
  tsl_trace **traces = NULL;
  int rc = cli_load(arena, prog, &m);
  if (rc == CLI_OK && !(f = cli_pick_func("space", m, func_name, prog)))
    rc = CLI_USAGE;
  if (rc == CLI_OK && n_binds) {
    if (tsl_func_specialize(arena, f, n_binds, bind_names, bind_values, &f, &diag)) {
      fprintf(stderr, "tessel space: error: --bind: %s\n", diag.text);
      rc = CLI_USAGE;
    } else {
      m = tsl_module_with_func(arena, m, f);
    }
  }
  char unbound[400];
  if (rc == CLI_OK && tsl_func_free_names(f, unbound, sizeof unbound)) {
    fprintf(stderr, "tessel space: error: %s: function '%s' has symbolic sizes or scalar "
            "parameters without a value (%s); the rules need them constant\n"
            "note: give each a value, e.g. --bind %.*s=64\n",
            prog, f->name, unbound, (int)strcspn(unbound, ","), unbound);
    rc = CLI_USAGE;
  }
  const tsl_component *tc = NULL;
  /* the vector width of the CPU the rules target: --cpu-features names it */
  tsl_rule_target rt = {sizeof rt, target, (int32_t)cores,
                        tsl_cpu_features_have(features, "avx512f") ? 64 : 32, features};
  if (rc == CLI_OK &&
      (tsl_registry_new(ctx, &reg, &diag) || tsl_registry_load_default(reg, 0, NULL, &diag) ||
       tsl_registry_require(reg, TSL_COMPONENT_TARGET, target, &tc, &diag) ||
       tsl_registry_intrins(reg, arena, &intrins, &diag) ||
       (n_specs ? make_rules(reg, &rt, n_specs, rule_specs, &rules, &n_rules, &diag)
                : tsl_space_default_rules(reg, &rt, &rules, &n_rules, &diag)) ||
       tsl_space_generate(ctx, m, f->name, n_rules, rules, seed, intrins, &traces, &n,
                          &diag))) {
    fprintf(stderr, "tessel space: error: %s\n", diag.text);
    rc = CLI_USAGE;
  }
  char (*why)[512] = rc == CLI_OK ? calloc(n ? n : 1, sizeof *why) : NULL;
  if (rc == CLI_OK && post && postprocess(ctx, m, reg, intrins, &rt, traces, n, why, &diag)) {
    fprintf(stderr, "tessel space: error: %s\n", diag.text);
    rc = CLI_USAGE;
  }
  if (rc == CLI_OK)
    print_sketches(traces, why, n, json);
  free(why);
  for (uint32_t i = 0; i < n; i++)
    tsl_trace_free(traces[i]);
  free(traces);
  tsl_space_rules_free(rules, n_rules);
  tsl_intrin_registry_free(intrins);
  tsl_registry_free(reg);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return rc;
}
