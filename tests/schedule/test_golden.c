/*
 * Golden schedule cases: tests/schedule/cases/<primitive>/NAME.{py,sch,
 * expected}. The script runs on the program; its printed result (or its
 * error message) must equal NAME.expected. A successful case is also
 * checked for meaning and round trips:
 *   interp   the interpreter gives the same buffers before and after
 *   reparse  the printed result parses back to an equal module
 *   replay   the recorded trace replays to an equal module
 *   script   the trace printed as a script, run on the original, is equal
 *   json     the trace through JSON, replayed, is equal
 * A `# bind: n=37` line in the script gives symbolic sizes their values
 * for the interpreter. Tensor intrinsics in a primitive's folder
 * (intrin__NAME__desc.py / __impl.py, as `tessel schedule` reads them
 * beside a script) are registered for its cases.
 * TESSEL_UPDATE_GOLDEN=1 rewrites the .expected files (review them by eye);
 * TESSEL_CASES=split,fuse restricts the run to some primitives.
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_files.h"

static char *slurp(const char *path) {
  char *s = NULL;
  size_t n;
  tsl_diag d = {0};
  return tsl_read_file(path, &s, &n, &d) == TSL_OK ? s : NULL;
}

static int equal_to(const tsl_module *want, const tsl_schedule *sch,
                    const char *what, const char *id) {
  char why[1024] = "";
  int eq = sch && tsl_module_equal(want, tsl_schedule_module(sch), why, sizeof why);
  ok(eq, "%s: %s", id, what);
  if (!eq && sch)
    tap_diag("difference: %s", why);
  return eq;
}

static void run_case(tsl_ctx *ctx, const tsl_intrin_registry *intrins, const char *dir,
                     const char *prim, const char *name, int update, int *n_ok_cases) {
  char path[8800], id[512];
  snprintf(id, sizeof id, "%s/%s", prim, name);
  snprintf(path, sizeof path, "%s/%s.py", dir, name);
  char *prog = slurp(path);
  snprintf(path, sizeof path, "%s/%s.sch", dir, name);
  char *script = slurp(path);
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  char *expected = slurp(path);
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag diag = {0};
  const tsl_module *m = NULL;
  tsl_schedule *sch = NULL;
  char sch_name[600];
  snprintf(sch_name, sizeof sch_name, "%s.sch", name);
  if (!prog || !script) {
    ok(0, "%s: has .py and .sch", id);
    goto out;
  }
  if (tsl_parse(arena, name, prog, strlen(prog), &m, &diag)) {
    ok(0, "%s: program parses", id);
    tap_diag("%s", diag.text);
    goto out;
  }
  tsl_schedule_opts so = {sizeof so, NULL, 0, intrins};
  int rc = tsl_schedule_new(ctx, m, &so, &sch, &diag);
  if (!rc)
    rc = tsl_script_run(sch, sch_name, script, strlen(script), &diag);
  char *got = rc ? strdup(diag.text) : tsl_print_module(tsl_schedule_module(sch));
  if (rc && got[0] && got[strlen(got) - 1] != '\n') {
    got = realloc(got, strlen(got) + 2);
    strcat(got, "\n");
  }
  if (update) {
    FILE *f = fopen(path, "wb");
    if (f) {
      fputs(got, f);
      fclose(f);
    }
    ok(f != NULL, "%s: wrote %s", id, path);
    free(got);
    goto out;
  }
  int same = expected && strcmp(got, expected) == 0;
  ok(same, "%s: %s", id, rc ? "fails with the expected message" : "result is the golden program");
  if (!same)
    tap_diag("got:\n%s", got);
  free(got);
  if (rc)
    goto out;
  ++*n_ok_cases;
  /* symbolic sizes take the values of a `# bind: n=37 m=5` line in the script */
  tsl_binding binds[8];
  char bnames[8][32];
  uint32_t n_binds = 0;
  const char *bl = strstr(script, "# bind:");
  for (const char *q = bl ? bl + 7 : NULL; q && *q && *q != '\n' && n_binds < 8;) {
    int used = 0;
    long long v;
    if (sscanf(q, " %31[A-Za-z0-9_]=%lld%n", bnames[n_binds], &v, &used) != 2)
      break;
    binds[n_binds] = (tsl_binding){bnames[n_binds], v};
    n_binds++;
    q += used;
  }
  /* the scheduled function, or every function when there is no default
   * (several, none 'main': the script picked with work_on or func_name) */
  for (uint32_t fi = 0; fi < m->n_funcs; fi++) {
    const tsl_func *before = m->funcs[fi];
    if (tsl_schedule_func(sch) && before->name != tsl_schedule_func(sch)->name)
      continue;
    tsl_equiv_report rep;
    tsl_interp_opts io = {sizeof io, TSL_INTERP_ORDER_ALL, 1};
    int st = tsl_interp_check_equivalent_opts(
        before, tsl_schedule_func_in_original_layout(sch, before->name), binds, n_binds, 1,
        &io, &rep, &diag);
    ok(st == TSL_OK,
       "%s: interpreter agrees before and after on %s, parallel loops in natural, "
       "shuffled and reversed order (%lld values, max err %.2g)",
       id, before->name, (long long)rep.n_checked, rep.max_abs_err);
    if (st)
      tap_diag("%s", diag.text);
  }

  /* reparse */
  char *text = tsl_print_module(tsl_schedule_module(sch));
  const tsl_module *re = NULL;
  char why[1024] = "";
  int eq = !tsl_parse(arena, "printed", text, strlen(text), &re, &diag) &&
           tsl_module_equal(tsl_schedule_module(sch), re, why, sizeof why);
  ok(eq, "%s: printed result reparses equal", id);
  if (!eq)
    tap_diag("%s %s", diag.text, why);
  free(text);

  const tsl_module *want = tsl_schedule_module(sch);
  const tsl_trace *tr = tsl_schedule_trace(sch);
  tsl_schedule *r = NULL;
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, intrins};
  if (tsl_trace_replay(ctx, tr, m, &ro, &r, &diag))
    tap_diag("replay: %s", diag.text);
  equal_to(want, r, "trace replays equal", id);
  tsl_schedule_free(r);
  r = NULL;

  char *ts = tsl_trace_to_script(tr, 1);
  if (tsl_schedule_new(ctx, m, &so, &r, &diag) ||
      tsl_script_run(r, "trace", ts, strlen(ts), &diag)) {
    tap_diag("trace script:\n%s\n%s", ts, diag.text);
    tsl_schedule_free(r);
    r = NULL;
  }
  equal_to(want, r, "trace -> script -> run equal", id);
  tsl_schedule_free(r);
  r = NULL;
  free(ts);

  char *js = tsl_trace_to_json(tr);
  tsl_trace *jt = NULL;
  if (tsl_trace_from_json(ctx, js, &jt, &diag) ||
      tsl_trace_replay(ctx, jt, m, &ro, &r, &diag))
    tap_diag("json: %s\n%s", js, diag.text);
  equal_to(want, r, "trace -> JSON -> replay equal", id);
  tsl_schedule_free(r);
  tsl_trace_free(jt);
  free(js);
out:
  tsl_schedule_free(sch);
  tsl_arena_free(arena);
  free(prog);
  free(script);
  free(expected);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char cases[4096];
  snprintf(cases, sizeof cases, "%s/tests/schedule/cases", root ? root : ".");
  int update = getenv("TESSEL_UPDATE_GOLDEN") && !strcmp(getenv("TESSEL_UPDATE_GOLDEN"), "1");
  char *prims[128];
  int np = tf_list(cases, "", 1, prims, 128);
  tsl_ctx *ctx = tsl_ctx_new();
  int total = 0, n_ok_cases = 0;
  for (int p = 0; p < np; p++) {
    if (!tf_selected(prims[p])) {
      free(prims[p]);
      continue;
    }
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/%s", cases, prims[p]);
    tsl_intrin_registry *intrins = NULL;
    tsl_arena *iarena = tsl_arena_new(ctx);
    tsl_diag d = {0};
    int rc = tsl_intrin_registry_new(ctx, &intrins, &d);
    if (!rc)
      rc = tsl_intrin_registry_add_dir(intrins, iarena, dir, NULL, &d);
    if (rc) {
      ok(0, "%s: the intrinsics of the folder register", prims[p]);
      tap_diag("%s", d.text);
    }
    char *names[512];
    int n = tf_list(dir, ".sch", 0, names, 512);
    for (int i = 0; i < n; i++) {
      run_case(ctx, intrins, dir, prims[p], names[i], update, &n_ok_cases);
      free(names[i]);
      total++;
    }
    tsl_intrin_registry_free(intrins);
    tsl_arena_free(iarena);
    free(prims[p]);
  }
  ok(total > 0, "found %d golden cases (%d succeed, %d are expected failures)",
     total, n_ok_cases, total - n_ok_cases);
  tsl_ctx_free(ctx);
  return tap_done();
}
