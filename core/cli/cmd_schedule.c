/*
 * `tessel schedule PROGRAM SCRIPT`: apply a schedule script to a program and
 * print the scheduled module, its trace or the trace as JSON; --check runs
 * both versions in the interpreter on the same random inputs, the
 * scheduled one three times (parallel, vectorized and thread-bound loops in
 * natural, shuffled and reversed order: the race oracle).
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_schedule_usage[] =
    "usage: tessel schedule PROGRAM SCRIPT [--func F] [--seed S] [--check]\n"
    "                       [--print module|trace|json] [--set NAME=VALUE]...\n"
    "\n"
    "Apply the schedule script SCRIPT (straight-line calls on `sch`, as TVM\n"
    "prints a trace: `b0 = sch.get_block(\"C\")`, `i, j = sch.get_loops(b0)`,\n"
    "...) to the prim_func F of PROGRAM and print the result.\n"
    "\n"
    "sch.tensorize uses the tensor intrinsics of the plugin registry (the\n"
    "built-ins and the plugins' ones, e.g. cuda-wmma's and cuda-mma's;\n"
    "`tessel plugins` lists them) and the files intrin__NAME__desc.py /\n"
    "intrin__NAME__impl.py of SCRIPT's folder (one prim_func each),\n"
    "registered as intrinsic NAME.\n"
    "\n"
    "  --func F        function get_block uses by default (default: \"main\", or\n"
    "                  the only one; with several and none \"main\", the script\n"
    "                  says which: sch.work_on(\"F\") or get_block(..., func_name=)\n"
    "                  and --check checks them all)\n"
    "  --seed S        seed for sample_* instructions without a decision (default 0)\n"
    "  --check         also run the original and the scheduled function in the\n"
    "                  interpreter on the same seeded random inputs and compare\n"
    "                  every buffer; the scheduled one runs three times, with\n"
    "                  the iterations of parallel, vectorized and thread-bound\n"
    "                  loops in natural, shuffled (seed S) and reversed order, so\n"
    "                  a loop that is not safe to run in parallel shows as a\n"
    "                  mismatch; the verdict goes to stderr\n"
    "  --print WHAT    module (default): the scheduled program in TVMScript;\n"
    "                  trace: the trace as a schedule script with decisions;\n"
    "                  json: the trace as JSON\n"
    "  --set NAME=V    value of a symbolic shape variable for --check\n"
    "\n"
    "exit status: 0 ok, 1 --check found a mismatch (different values, or the\n"
    "scheduled program fails in the interpreter), 2 on error (a script error\n"
    "reads SCRIPT:LINE: error: <primitive>: <reason>)\n";

enum { MAX_BINDS = 64 };


int cli_schedule(int argc, char **argv) {
  const char *prog = NULL, *script = NULL, *func_name = NULL, *what = "module";
  uint64_t seed = 0;
  int check = 0;
  tsl_binding binds[MAX_BINDS];
  uint32_t n_binds = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--check") == 0) {
      check = 1;
    } else if (!strcmp(a, "--func") || !strcmp(a, "--seed") ||
               !strcmp(a, "--print") || !strcmp(a, "--set")) {
      if (i + 1 >= argc)
        return cli_error("schedule", "option %s needs a value\nnote: see tessel schedule --help", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--func")) {
        func_name = v;
      } else if (!strcmp(a, "--seed")) {
        if (!cli_parse_u64(v, &seed))
          return cli_error("schedule", "--seed expects a non-negative integer, got '%s'", v);
      } else if (!strcmp(a, "--print")) {
        if (strcmp(v, "module") && strcmp(v, "trace") && strcmp(v, "json"))
          return cli_error("schedule", "--print expects module, trace or json, got '%s'", v);
        what = v;
      } else {
        const char *eq = strchr(v, '=');
        char *end;
        long long value = eq ? strtoll(eq + 1, &end, 0) : 0;
        if (!eq || eq == v || !eq[1] || *end)
          return cli_error("schedule", "--set expects NAME=INTEGER, got '%s'", v);
        if (n_binds == MAX_BINDS)
          return cli_error("schedule", "at most %d --set options", MAX_BINDS);
        binds[n_binds].name = v;
        binds[n_binds].value = value;
        /* the name ends at '=': keep a copy */
        binds[n_binds].name = strndup(v, (size_t)(eq - v));
        n_binds++;
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      return cli_error("schedule", "unknown option '%s'\nnote: valid options: --func, --seed, --check, --print, --set, --help", a);
    } else if (!prog) {
      prog = a;
    } else if (!script) {
      script = a;
    } else {
      return cli_error("schedule", "unexpected argument '%s' (PROGRAM and SCRIPT are already given)", a);
    }
  }
  if (!prog || !script)
    return cli_error("schedule", "missing %s\nnote: usage: tessel schedule PROGRAM SCRIPT [--check] [--print module|trace|json]",
                     prog ? "SCRIPT" : "PROGRAM and SCRIPT");

  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  tsl_schedule *sch = NULL;
  tsl_diag diag = {0};
  char *src = NULL;
  size_t len = 0;
  int rc = cli_load(arena, prog, &m);
  const tsl_func *f = NULL;
  /* several functions and none is 'main': as TVM, the script says which
   * (work_on, or get_block's func_name) */
  int ambiguous = rc == CLI_OK && !func_name && m->n_funcs > 1 && !tsl_module_find(m, "main");
  if (rc == CLI_OK && !ambiguous && !(f = cli_pick_func("schedule", m, func_name, prog)))
    rc = CLI_USAGE;
  if (rc == CLI_OK && tsl_read_file(script, &src, &len, &diag) != TSL_OK) {
    fprintf(stderr, "%s\n", diag.text);
    rc = CLI_USAGE;
  }
  tsl_registry *reg = NULL;
  tsl_intrin_registry *intrins = NULL;
  if (rc == CLI_OK &&
      cli_script_intrins("schedule", ctx, arena, script, &reg, &intrins, &diag) != TSL_OK) {
    fprintf(stderr, "%s\n", diag.text);
    rc = CLI_USAGE;
  }
  if (rc == CLI_OK) {
    tsl_schedule_opts so = {sizeof so, f ? f->name : NULL, seed, intrins};
    if (tsl_schedule_new(ctx, m, &so, &sch, &diag) != TSL_OK ||
        tsl_script_run(sch, script, src, len, &diag) != TSL_OK) {
      fprintf(stderr, "%s\n", diag.text);
      rc = CLI_USAGE;
    }
  }
  if (rc == CLI_OK) {
    char *out = !strcmp(what, "module") ? tsl_print_module(tsl_schedule_module(sch))
                : !strcmp(what, "trace") ? tsl_trace_to_script(tsl_schedule_trace(sch), 1)
                                         : tsl_trace_to_json(tsl_schedule_trace(sch));
    fputs(out, stdout);
    if (!out[0] || out[strlen(out) - 1] != '\n')
      fputc('\n', stdout);
    fflush(stdout);
    free(out);
  }
  for (uint32_t fi = 0; rc == CLI_OK && check && fi < m->n_funcs; fi++) {
    if (f ? m->funcs[fi] != f : 0)
      continue;
    const tsl_func *f0 = m->funcs[fi];
    tsl_equiv_report rep;
    const tsl_func *g = tsl_schedule_func_in_original_layout(sch, f0->name);
    tsl_interp_opts io = {sizeof io, TSL_INTERP_ORDER_ALL, seed};
    int st = tsl_interp_check_equivalent_opts(f0, g, binds, n_binds, seed, &io, &rep, &diag);
    if (st == TSL_OK) {
      fprintf(stderr,
              "check: ok (%lld values compared, max abs error %.3g; parallel loops "
              "also run shuffled and reversed)\n",
              (long long)rep.n_checked, rep.max_abs_err);
    } else if (rep.got_failed) {
      fprintf(stderr, "check: mismatch: %s\n", diag.text);
      rc = CLI_NO;
    } else if (rep.n_mismatched) {
      fprintf(stderr, "check: mismatch: %s (%lld of %lld values differ, max abs error %.3g)\n",
              diag.text, (long long)rep.n_mismatched, (long long)rep.n_checked,
              rep.max_abs_err);
      rc = CLI_NO;
    } else {
      fprintf(stderr, "tessel schedule: error: check: %s\n", diag.text);
      rc = CLI_USAGE;
    }
  }
  for (uint32_t i = 0; i < n_binds; i++)
    free((char *)binds[i].name);
  free(src);
  tsl_schedule_free(sch);
  tsl_intrin_registry_free(intrins);
  tsl_registry_free(reg);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return rc;
}
