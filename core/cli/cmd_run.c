/*
 * `tessel run PROGRAM`: schedule (optional), lower, build for a target,
 * then measure in a forked worker (runner.h) with the outputs checked
 * against a reference: the interpreter for small programs, else the
 * unscheduled program compiled by the same target. Prints latency, GFLOPS
 * and the check, or one JSON object.
 */
#include "cli_target.h"

#include "tessel/rules.h"
#include "tessel/tune.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cli_run_usage[] =
    "usage: tessel run PROGRAM [--schedule SCRIPT] [--func NAME] [--target TARGET]\n"
    "                  [--threads N] [--number N] [--repeat N] [--min-repeat-ms MS]\n"
    "                  [--warmup N] [--flush-cache] [--timeout S] [--seed N]\n"
    "                  [--bind NAME=VALUE]... [--check auto|interp|compiled|none]\n"
    "                  [--json]\n"
    "\n"
    "Compile a prim_func of PROGRAM (after the schedule script SCRIPT, if given)\n"
    "for a target, time it on seeded random inputs in a separate worker process\n"
    "and compare its outputs with a reference. Prints the median latency, GFLOPS\n"
    "(arithmetic operations counted from the program) and the check result.\n"
    "\n"
    "  --schedule SCRIPT   apply this schedule script first (see tessel schedule)\n"
    "  --func NAME         function to run (default: \"main\", or the only one)\n"
    "  --target TARGET     target plugin and its options, \"NAME -key=value ...\"\n"
    "                      as tessel db stats prints targets, e.g. \"llvm\n"
    "                      -vector-math=0\" (default: llvm; see tessel plugins)\n"
    "  --threads N         threads for parallel loops (target default: all cores)\n"
    "  --number N          calls per repeat (default 3; grows to reach\n"
    "                      --min-repeat-ms)\n"
    "  --repeat N          repeats, 1 to 64 (default 3); the median is reported\n"
    "  --min-repeat-ms MS  minimum duration of one repeat (default 0)\n"
    "  --warmup N          untimed calls first (default 1)\n"
    "  --flush-cache       write a buffer larger than the last-level cache before\n"
    "                      every timed call (each call then timed alone)\n"
    "  --timeout S         seconds allowed for the whole measurement (default 10;\n"
    "                      0: none)\n"
    "  --seed N            seed of the random inputs (default 1)\n"
    "  --bind NAME=VALUE   value of a symbolic size or scalar parameter (also --set)\n"
    "  --check MODE        reference for the outputs: interp (the interpreter on\n"
    "                      the unscheduled program), compiled (the unscheduled\n"
    "                      program built by the same target as tessel tune\n"
    "                      builds it: on a GPU bound to threads, elsewhere\n"
    "                      its loops ordered for speed), none, or auto\n"
    "                      (default): interp up to 2^23 operations, else compiled\n"
    "  --json              print one JSON object: latency_s, gflops, check,\n"
    "                      max_abs_err, status, flops, times_s, number, repeat,\n"
    "                      target, compile_s, ...\n"
    "\n"
    "exit status: 0 ok, 1 the measurement failed (mismatch, crash, timeout, the\n"
    "function returned an error), 2 on a usage error or a failed stage (parse,\n"
    "schedule, lower, plugins, target, build: the message names the stage)\n"
    "\n"
    "A MODEL (an @I.ir_module with @R.function functions) runs in the reference\n"
    "interpreter instead:\n";

enum { MAX_BINDS = 64 };
/* auto: the interpreter (~10-40 Mop/s) above this many operations would take
 * more than about a second; the compiled reference takes over. */
#define INTERP_MAX_OPS 8388608.0

typedef struct run_args {
  const char *path, *script, *func, *target, *check;
  int threads, json;
  tsl_run_opts opts;
  tsl_binding binds[MAX_BINDS];
  uint32_t n_binds;
} run_args;

static int parse_args(int argc, char **argv, run_args *a) {
  memset(a, 0, sizeof *a);
  a->target = "llvm";
  a->check = "auto";
  tsl_run_opts_default(&a->opts);
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    long long iv;
    double dv;
    if (!strcmp(o, "--json")) {
      a->json = 1;
      continue;
    }
    if (!strcmp(o, "--flush-cache")) {
      a->opts.flush_cache = 1;
      continue;
    }
    if (o[0] != '-' || !o[1]) {
      if (a->path)
        return cli_error("run", "more than one PROGRAM given ('%s' and '%s')", a->path, o);
      a->path = o;
      continue;
    }
    static const char *const valued[] = {"--schedule", "--func", "--target", "--threads",
                                         "--number", "--repeat", "--min-repeat-ms",
                                         "--warmup", "--timeout", "--seed", "--bind",
                                         "--set", "--check", NULL};
    int known = 0;
    for (int k = 0; valued[k]; k++)
      known |= !strcmp(o, valued[k]);
    if (!known)
      return cli_error("run", "unknown option '%s'\nnote: valid options: --schedule, --func, "
                              "--target, --threads, --number, --repeat, --min-repeat-ms, "
                              "--warmup, --flush-cache, --timeout, --seed, --bind, --check, "
                              "--json, --help", o);
    if (i + 1 >= argc)
      return cli_error("run", "option %s needs a value\nnote: see tessel run --help", o);
    const char *v = argv[++i];
    if (!strcmp(o, "--schedule")) {
      a->script = v;
    } else if (!strcmp(o, "--func")) {
      a->func = v;
    } else if (!strcmp(o, "--target")) {
      a->target = v;
    } else if (!strcmp(o, "--threads")) {
      if (!cli_parse_int(v, 1, 1024, &iv))
        return cli_error("run", "--threads expects an integer from 1 to 1024, got '%s'", v);
      a->threads = (int)iv;
    } else if (!strcmp(o, "--number")) {
      if (!cli_parse_int(v, 1, 1000000000, &iv))
        return cli_error("run", "--number expects a positive integer, got '%s'", v);
      a->opts.number = (int32_t)iv;
    } else if (!strcmp(o, "--repeat")) {
      if (!cli_parse_int(v, 1, TSL_RUN_MAX_REPEAT, &iv))
        return cli_error("run", "--repeat expects an integer from 1 to %d, got '%s'",
                         TSL_RUN_MAX_REPEAT, v);
      a->opts.repeat = (int32_t)iv;
    } else if (!strcmp(o, "--warmup")) {
      if (!cli_parse_int(v, 0, 1000000000, &iv))
        return cli_error("run", "--warmup expects a non-negative integer, got '%s'", v);
      a->opts.warmup = (int32_t)iv;
    } else if (!strcmp(o, "--min-repeat-ms")) {
      if (!cli_parse_num(v, 0, 1e7, &dv))
        return cli_error("run", "--min-repeat-ms expects a non-negative number, got '%s'", v);
      a->opts.min_repeat_ms = dv;
    } else if (!strcmp(o, "--timeout")) {
      if (!cli_parse_num(v, 0, 1e7, &dv))
        return cli_error("run", "--timeout expects a non-negative number of seconds "
                                "(0: none), got '%s'", v);
      a->opts.timeout_s = dv;
    } else if (!strcmp(o, "--seed")) {
      if (!cli_parse_int(v, 0, INT64_MAX, &iv))
        return cli_error("run", "--seed expects a non-negative integer, got '%s'", v);
      a->opts.seed = (uint64_t)iv;
    } else if (!strcmp(o, "--check")) {
      if (strcmp(v, "auto") && strcmp(v, "interp") && strcmp(v, "compiled") && strcmp(v, "none"))
        return cli_error("run", "--check expects auto, interp, compiled or none, got '%s'", v);
      a->check = v;
    } else { /* --bind / --set */
      const char *eq = strchr(v, '=');
      if (!eq || eq == v || !cli_parse_int(eq + 1, INT64_MIN, INT64_MAX, &iv))
        return cli_error("run", "%s expects NAME=INTEGER, got '%s'\nnote: e.g. --bind m=64", o, v);
      if (a->n_binds == MAX_BINDS)
        return cli_error("run", "at most %d --bind options", MAX_BINDS);
      a->binds[a->n_binds].name = strndup(v, (size_t)(eq - v));
      a->binds[a->n_binds].value = iv;
      a->n_binds++;
    }
  }
  if (!a->path)
    return cli_error("run", "missing PROGRAM\nnote: usage: tessel run PROGRAM [--schedule "
                            "SCRIPT] [--json]; see tessel run --help");
  a->opts.binds = a->binds;
  a->opts.n_binds = a->n_binds;
  return CLI_OK;
}

/* Elements of every buffer parameter when all shapes are constant, else -1. */
static double buffer_elems(const tsl_func *f) {
  double total = 0;
  for (uint32_t p = 0; p < f->n_params; p++) {
    const tsl_buffer *b = f->params[p].buffer;
    if (!b)
      continue;
    double n = 1;
    for (uint32_t d = 0; d < b->ndim; d++) {
      if (b->shape[d]->kind != TSL_EXPR_INT_IMM)
        return -1;
      n *= (double)b->shape[d]->u.int_value;
    }
    total += n;
  }
  return total;
}

static void print_time(FILE *out, double s) {
  if (s < 1e-3)
    fprintf(out, "%.2f us", s * 1e6);
  else if (s < 1)
    fprintf(out, "%.3f ms", s * 1e3);
  else
    fprintf(out, "%.3f s", s);
}

static void print_text(const run_args *a, const cli_program *p, const char *target,
                       const char *ref_kind, double flops, double compile_s,
                       const tsl_run_result *r) {
  printf("%s: %s on %s\n", a->path, p->func->name, target);
  int timed = r->status == TSL_RUN_OK || r->status == TSL_RUN_MISMATCH;
  if (timed) {
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < r->n_times; i++) {
      lo = fmin(lo, r->times_s[i]);
      hi = fmax(hi, r->times_s[i]);
    }
    printf("  latency: ");
    print_time(stdout, r->median_s);
    printf(" (median of %d repeats x %d calls; min ", r->n_times, r->number);
    print_time(stdout, lo);
    printf(", max ");
    print_time(stdout, hi);
    printf(")\n");
    if (flops == 0)
      printf("  GFLOPS: n/a (no arithmetic operations)\n");
    else if (flops > 0 && r->median_s > 0)
      printf("  GFLOPS: %.2f (%.0f arithmetic operations per call)\n",
             flops / r->median_s * 1e-9, flops);
    else
      printf("  GFLOPS: unknown (symbolic extents)\n");
  }
  printf("  compile: %.1f ms\n", compile_s * 1e3);
  if (r->check == TSL_CHECK_OK)
    printf("  check: ok (%s reference, max abs error %.3g)\n", ref_kind, r->max_abs_err);
  else if (r->check == TSL_CHECK_MISMATCH)
    printf("  check: mismatch (%s reference): %s\n", ref_kind, r->error);
  else
    printf("  check: skipped%s\n", timed ? "" : " (the function did not complete)");
  if (!timed)
    printf("  status: %s: %s\n", tsl_run_status_name(r->status), r->error);
}

static void print_json(const run_args *a, const cli_program *p, const char *target,
                       const char *ref_kind, double flops, double compile_s,
                       const tsl_run_result *r) {
  int timed = r->status == TSL_RUN_OK || r->status == TSL_RUN_MISMATCH;
  json_t *times = json_array();
  for (int i = 0; i < r->n_times; i++)
    json_array_append_new(times, json_real(r->times_s[i]));
  json_t *o = json_object();
  json_object_set_new(o, "file", json_string(a->path));
  json_object_set_new(o, "func", json_string(p->func->name));
  json_object_set_new(o, "target", json_string(target));
  json_object_set_new(o, "status", json_string(tsl_run_status_name(r->status)));
  json_object_set_new(o, "check", json_string(tsl_check_name(r->check)));
  json_object_set_new(o, "reference", json_string(ref_kind));
  json_object_set_new(o, "latency_s", timed ? json_real(r->median_s) : json_null());
  json_object_set_new(o, "gflops", timed && flops >= 0 && r->median_s > 0
                                       ? json_real(flops / r->median_s * 1e-9)
                                       : json_null());
  json_object_set_new(o, "flops", flops >= 0 ? json_real(flops) : json_null());
  json_object_set_new(o, "max_abs_err",
                      isfinite(r->max_abs_err) ? json_real(r->max_abs_err) : json_null());
  json_object_set_new(o, "n_mismatched", json_integer(r->n_mismatched));
  json_object_set_new(o, "times_s", times);
  json_object_set_new(o, "number", json_integer(r->number));
  json_object_set_new(o, "repeat", json_integer(r->n_times));
  json_object_set_new(o, "warmup", json_integer(a->opts.warmup));
  json_object_set_new(o, "flush_cache", json_boolean(a->opts.flush_cache));
  json_object_set_new(o, "seed", json_integer((json_int_t)a->opts.seed));
  json_object_set_new(o, "compile_s", json_real(compile_s));
  json_object_set_new(o, "error", json_string(r->error));
  char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(9));
  puts(s);
  free(s);
  json_decref(o);
}

/* Lower and build `f`; *fn gets its packed entry. */
static int build_one(const cli_target *t, tsl_arena *arena, const tsl_func *f,
                     const char *what, const tsl_lowered_func **lf, tsl_kernel **k,
                     tsl_packed_fn *fn) {
  tsl_diag d = {0};
  tsl_lower_opts lo = {sizeof lo, 1, 0};
  char stage[64];
  snprintf(stage, sizeof stage, "lower%s", what);
  if (tsl_lower_func(arena, f, &lo, lf, &d) != TSL_OK)
    return cli_stage_error("run", stage, d.text);
  const tsl_lowered_func *const funcs[1] = {*lf};
  tsl_lowered_module m = {sizeof m, 1, funcs, 0, NULL};
  snprintf(stage, sizeof stage, "build%s", what);
  if (t->vt->build(t->t, &m, k, NULL, &d) != TSL_OK) {
    *k = NULL;
    return cli_stage_error("run", stage, d.text);
  }
  *fn = t->vt->lookup(*k, (*lf)->name);
  if (!*fn)
    return cli_stage_error("run", stage, "the target built no function of that name");
  return CLI_OK;
}

/* The PROGRAM argument: the first one that is neither an option nor an
 * option's value. */
static const char *program_arg(int argc, char **argv) {
  static const char *const valued[] = {"--schedule", "--func", "--target", "--threads",
                                       "--number", "--repeat", "--min-repeat-ms", "--warmup",
                                       "--timeout", "--seed", "--bind", "--set", "--check",
                                       "--weights", "--input", "--output", NULL};
  for (int i = 1; i < argc; i++) {
    int takes = 0;
    for (int k = 0; valued[k]; k++)
      takes |= !strcmp(argv[i], valued[k]);
    if (takes)
      i++;
    else if (argv[i][0] != '-' || !argv[i][1])
      return argv[i];
  }
  return NULL;
}

/* A model (a file with @R.function functions) runs in the reference
 * interpreter (cmd_run_model.c). The file is read as a model first (a
 * program is a model without Relax functions; its errors are the same);
 * 1 when this handled the run (a model, or a file that does not parse:
 * the message is printed), 0 for a program. */
static int run_as_model(int argc, char **argv, const char *path, int *rc) {
  if (!path || !strcmp(path, "-"))
    return 0;
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_model *m = NULL;
  tsl_weights *own = NULL;
  *rc = cli_load_model(arena, path, &m, &own);
  int handled = *rc != CLI_OK || m->n_rx_funcs;
  if (*rc == CLI_OK && m->n_rx_funcs)
    *rc = cli_run_model(argc, argv, m);
  tsl_weights_free(own);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return handled;
}

int cli_run(int argc, char **argv) {
  run_args a;
  int rc;
  if (run_as_model(argc, argv, program_arg(argc, argv), &rc))
    return rc;
  rc = parse_args(argc, argv, &a);
  if (rc != CLI_OK)
    return rc;
  cli_program p;
  cli_target t = {0};
  tsl_kernel *k = NULL, *rk = NULL;
  tsl_schedule *ref_sch = NULL;
  rc = cli_program_load("run", a.path, a.script, a.func, &p);
  if (rc == CLI_OK)
    rc = cli_target_open("run", p.ctx, a.target, a.threads, &t);
  const tsl_lowered_func *lf = NULL, *rlf = NULL;
  tsl_packed_fn fn = NULL, rfn = NULL;
  double compile_s = 0;
  if (rc == CLI_OK) {
    double t0 = cli_now_s();
    rc = build_one(&t, p.arena, p.func, "", &lf, &k, &fn);
    compile_s = cli_now_s() - t0;
  }
  double flops = -1;
  const char *ref_kind = a.check;
  if (rc == CLI_OK) {
    /* a tensorized program's arithmetic is inside its intrinsics: the
     * unscheduled program's count */
    double orig = tsl_func_flops(p.orig_func);
    flops = orig > 0 ? orig : lf->flops;
    if (!strcmp(a.check, "auto")) {
      double elems = buffer_elems(p.orig_func);
      int small = flops >= 0 && elems >= 0 && fmax(flops, elems) <= INTERP_MAX_OPS;
      ref_kind = small ? "interp" : "compiled";
    }
    if (!strcmp(ref_kind, "compiled")) {
      /* the tuner's reference: on a GPU bound to its threads, elsewhere
       * its loops ordered for speed; as written when that fails */
      tsl_rule_target rt = {sizeof rt, a.target, a.threads > 0 ? a.threads : 1, 32,
                            tsl_host_cpu_features()};
      tsl_diag rd = {0};
      const tsl_func *rf = p.orig_func;
      if (!tsl_tune_reference_schedule(p.ctx, p.orig, p.orig_func->name, p.orig_func, t.reg, &rt,
                                       &ref_sch, &rd))
        rf = tsl_schedule_func(ref_sch);
      rc = build_one(&t, p.arena, rf, " (reference)", &rlf, &rk, &rfn);
    }
  }
  if (rc == CLI_OK) {
    tsl_reference ref = {sizeof ref, NULL, NULL};
    if (!strcmp(ref_kind, "interp"))
      ref.interp_func = p.orig_func;
    else if (!strcmp(ref_kind, "compiled"))
      ref.compiled_fn = rfn;
    tsl_run_result r;
    tsl_diag d = {0};
    int st = tsl_run_packed_on(lf, fn, strcmp(ref_kind, "none") ? &ref : NULL, &a.opts, t.vt,
                               t.t, &r, &d);
    if (st != TSL_OK) {
      rc = cli_stage_error("run", "measure", d.text);
    } else {
      const char *desc = t.vt->describe ? t.vt->describe(t.t) : a.target;
      if (a.json)
        print_json(&a, &p, desc, ref_kind, flops, compile_s, &r);
      else
        print_text(&a, &p, desc, ref_kind, flops, compile_s, &r);
      rc = r.status == TSL_RUN_OK ? CLI_OK : r.status == TSL_RUN_SETUP_ERROR ? CLI_USAGE : CLI_NO;
    }
  }
  if (k)
    t.vt->kernel_free(k);
  if (rk)
    t.vt->kernel_free(rk);
  tsl_schedule_free(ref_sch);
  cli_target_close(&t);
  cli_program_free(&p);
  for (uint32_t i = 0; i < a.n_binds; i++)
    free((char *)a.binds[i].name);
  return rc;
}
