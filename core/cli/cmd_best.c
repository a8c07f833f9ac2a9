/*
 * `tessel best DB`: the fastest successful record of each workload in a
 * tuning database (or of the workload of one program's function): its
 * latency and GFLOPS, its trace as a schedule script with decisions, and
 * the program that trace makes of the workload (replayed here).
 */
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_best_usage[] =
    "usage: tessel best DB [--file PROGRAM] [--func NAME] [--target DESC] [--json]\n"
    "\n"
    "Print the fastest successful record of a tuning database (the lowest median\n"
    "re-measured at the end of a run, tessel tune's runner.remeasure, when there\n"
    "is one; else the fastest in-run time): its latency,\n"
    "GFLOPS (from the workload's floating-point operation count), the trace as\n"
    "a schedule script with its decisions (runnable with tessel schedule), and\n"
    "the scheduled program. Without --file every workload with a successful\n"
    "record is printed (ties: the older record).\n"
    "\n"
    "  --file PROGRAM  only the workload of this program's function\n"
    "  --func NAME     the function of PROGRAM (default: \"main\" or the only\n"
    "                  one); without --file, only workloads named NAME\n"
    "  --target DESC   only records measured on this target description (as\n"
    "                  tessel db stats and tessel run --json print it)\n"
    "  --json          print one JSON object: record_id, workload_id, workload,\n"
    "                  target, latency_s (in the run), remeasured (median_s,\n"
    "                  min_s, max_s, rounds; null when none), gflops (from the\n"
    "                  re-measured median when there is one), trace, program (the first\n"
    "                  workload's best), and results: one such object per\n"
    "                  workload\n"
    "\n"
    "exit status: 0 ok, 2 on a usage error, a database error, or when there is\n"
    "no successful record\n";

typedef struct wl {
  int64_t id;
  char *name, *script;
  double flops;
} wl;

typedef struct wl_list {
  tsl_vec w; /* wl */
  const char *only_name;
} wl_list;

typedef struct best_rec {
  int found;
  int64_t id;
  char *target, *trace_json;
  double latency_s;
} best_rec;

static int add_wl(void *u, const tsl_db_workload_info *w) {
  wl_list *l = u;
  if (l->only_name && strcmp(l->only_name, w->name) != 0)
    return 0;
  *(wl *)tsl_vec_push(&l->w) = (wl){w->id, strdup(w->name), strdup(w->script), w->flops};
  return 0;
}

static int keep_best(void *u, const tsl_db_record *r) {
  best_rec *b = u;
  b->found = 1;
  b->id = r->id;
  b->target = strdup(r->target);
  b->trace_json = strdup(r->trace_json);
  b->latency_s = r->latency_s;
  return 0;
}

/* Trace script and scheduled program of `b` on workload `w` (heap strings). */
static int replay(const char *db_path, const wl *w, const best_rec *b,
                  char **script, char **program) {
  tsl_diag d = {0};
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  tsl_trace *t = NULL;
  tsl_schedule *sch = NULL;
  tsl_registry *reg = NULL;
  tsl_intrin_registry *intrins = NULL;
  int rc = tsl_parse(arena, "workload", w->script, strlen(w->script), &m, &d);
  const char *stage = "parse the workload";
  if (rc == TSL_OK) {
    stage = "load the tensor intrinsics";
    rc = cli_registry_intrins("best", ctx, arena, &reg, &intrins, &d);
  }
  if (rc == TSL_OK) {
    stage = "read the trace";
    rc = tsl_trace_from_json(ctx, b->trace_json, &t, &d);
  }
  if (rc == TSL_OK) {
    stage = "replay the trace";
    tsl_replay_opts o = {sizeof o, 0, 0, w->name, intrins};
    rc = tsl_trace_replay(ctx, t, m, &o, &sch, &d);
  }
  if (rc == TSL_OK) {
    *script = tsl_trace_to_script(t, 1);
    *program = tsl_print_module(tsl_schedule_module(sch));
  } else {
    cli_error("best", "%s: record %lld: cannot %s: %s", db_path, (long long)b->id,
              stage, d.text);
  }
  tsl_schedule_free(sch);
  tsl_trace_free(t);
  tsl_intrin_registry_free(intrins);
  tsl_registry_free(reg);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return rc;
}

int cli_best(int argc, char **argv) {
  const char *path = NULL, *file = NULL, *func = NULL, *target = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "--json")) {
      json = 1;
    } else if (!strcmp(o, "--file") || !strcmp(o, "--func") || !strcmp(o, "--target")) {
      if (i + 1 >= argc)
        return cli_error("best", "option %s needs a value\nnote: see tessel best --help", o);
      const char **slot = o[3] == 'i' ? &file : o[3] == 'u' ? &func : &target;
      *slot = argv[++i];
    } else if (o[0] == '-' && o[1]) {
      return cli_error("best", "unknown option '%s'\nnote: valid options: --file, "
                               "--func, --target, --json, --help", o);
    } else if (path) {
      return cli_error("best", "more than one DB given ('%s' and '%s')", path, o);
    } else {
      path = o;
    }
  }
  if (!path)
    return cli_error("best", "missing DB\nnote: tessel best DB [--file PROGRAM] [--json]");
  tsl_diag d = {0};
  tsl_db *db;
  if (tsl_db_open(path, TSL_DB_READONLY, &db, &d) != TSL_OK)
    return cli_error("best", "%s", d.text);

  wl_list l = {.only_name = file ? NULL : func};
  tsl_vec_init(&l.w, sizeof(wl), NULL);
  int ret = CLI_OK;
  int64_t only = -1;
  if (file) {
    tsl_ctx *ctx = tsl_ctx_new();
    tsl_arena *arena = tsl_arena_new(ctx);
    const tsl_module *m = NULL;
    const tsl_func *f = NULL;
    ret = cli_load(arena, file, &m);
    if (ret == CLI_OK && !(f = cli_pick_func("best", m, func, file)))
      ret = CLI_USAGE;
    if (ret == CLI_OK && tsl_db_workload(db, f, 0, &only, &d) != TSL_OK)
      ret = cli_error("best", "%s\nnote: the function %s of %s was never tuned "
                              "into this database", d.text, f->name, file);
    tsl_arena_free(arena);
    tsl_ctx_free(ctx);
  }
  if (ret == CLI_OK && tsl_db_each_workload(db, add_wl, &l, &d) != TSL_OK)
    ret = cli_error("best", "%s", d.text);

  json_t *results = json_array();
  int printed = 0;
  for (uint32_t i = 0; ret == CLI_OK && i < l.w.len; i++) {
    const wl *w = &TSL_VEC_AT(&l.w, wl, i);
    if (only >= 0 && w->id != only)
      continue;
    best_rec b = {0};
    /* the lowest re-measured median (tessel tune's runner.remeasure), else
     * the fastest in-run time */
    tsl_db_remeasured rm = {0};
    int rc = tsl_db_best_remeasured(db, w->id, target, keep_best, &b, &rm, &d);
    if (rc == TSL_ENOTFOUND) {
      rm.rounds = 0;
      rc = tsl_db_best(db, w->id, target, keep_best, &b, &d);
    }
    if (rc == TSL_ENOTFOUND)
      continue;
    char *script = NULL, *program = NULL;
    if (rc != TSL_OK || !b.target || !b.trace_json)
      ret = cli_error("best", "%s", rc != TSL_OK ? d.text : "out of memory");
    else if (replay(path, w, &b, &script, &program) != TSL_OK)
      ret = CLI_USAGE;
    double lat = rm.rounds ? rm.median_s : b.latency_s;
    double gflops = w->flops > 0 && lat > 0 ? w->flops / lat * 1e-9 : 0;
    if (ret == CLI_OK && json) {
      json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:f, s:s?, s:s?}", "record_id",
                            (json_int_t)b.id, "workload_id", (json_int_t)w->id,
                            "workload", w->name, "target", b.target, "latency_s",
                            b.latency_s, "trace", script, "program", program);
      json_object_set_new(o, "gflops", gflops > 0 ? json_real(gflops) : json_null());
      json_t *m = rm.rounds ? json_pack("{s:f, s:f, s:f, s:I}", "median_s", rm.median_s, "min_s",
                                        rm.min_s, "max_s", rm.max_s, "rounds",
                                        (json_int_t)rm.rounds)
                            : json_null();
      json_object_set_new(o, "remeasured", m);
      json_object_set_new(o, "flops", json_real(w->flops));
      json_array_append_new(results, o);
    } else if (ret == CLI_OK) {
      printf("%sworkload %lld %s, record %lld on %s\n  latency: ", printed ? "\n" : "",
             (long long)w->id, w->name, (long long)b.id, b.target);
      double unit = lat < 1e-3 ? 1e6 : 1e3;
      const char *u = lat < 1e-3 ? "us" : "ms";
      if (rm.rounds)
        printf("%.3f %s re-measured (median of %u rounds in a fresh worker, %.3f to %.3f %s); "
               "%.3f %s in the run\n", lat * unit, u, rm.rounds, rm.min_s * unit,
               rm.max_s * unit, u, b.latency_s * unit, u);
      else
        printf("%.3f %s\n", lat * unit, u);
      if (gflops > 0)
        printf("  GFLOPS: %.2f (%.0f arithmetic operations)\n", gflops, w->flops);
      printf("trace (tessel schedule script):\n%s", script);
      printf("scheduled program:\n%s", program);
    }
    printed++;
    free(script);
    free(program);
    free(b.target);
    free(b.trace_json);
  }
  if (ret == CLI_OK && !printed)
    ret = cli_error("best", "%s: no successful record%s%s%s%s\nnote: a tuning run "
                            "adds records (tessel tune); tessel db stats %s shows "
                            "what the database holds",
                    path, file ? " for the workload of " : "", file ? file : "",
                    target ? " on target " : "", target ? target : "", path);
  if (ret == CLI_OK && json) {
    json_t *top = json_deep_copy(json_array_get(results, 0));
    json_object_set(top, "results", results);
    char *s = json_dumps(top, JSON_INDENT(2));
    printf("%s\n", s);
    free(s);
    json_decref(top);
  }
  json_decref(results);
  for (uint32_t i = 0; i < l.w.len; i++) {
    free(TSL_VEC_AT(&l.w, wl, i).name);
    free(TSL_VEC_AT(&l.w, wl, i).script);
  }
  tsl_vec_free(&l.w);
  tsl_db_close(db);
  return ret;
}
