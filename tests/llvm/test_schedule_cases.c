/*
 * The successful golden schedule cases (tests/schedule/cases/<primitive>/
 * NAME.{py,sch}): each script applied to its program with the schedule
 * API, the result lowered with vectorize 1, JIT-built with the LLVM target
 * (2 threads) and run on seeded random inputs, must agree with the
 * interpreter running the unscheduled program. Cases whose script fails
 * (expected-failure goldens) are not compiled. TESSEL_CASES=split,fuse
 * restricts the run to some primitives.
 */
#include "llvm_util.h"

#include "test_files.h"

int main(void) {
  lt_announce_cpu();
  char cases[4096];
  snprintf(cases, sizeof cases, "%s/tests/schedule/cases", lt_root());
  char *prims[128];
  int np = tf_list(cases, "", 1, prims, 128);
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=2", &d);
  ok(t != NULL, "target created: %s", t ? tll_vtable.describe(t) : d.text);
  if (!t)
    return tap_done();
  tsl_ctx *ctx = tsl_ctx_new();
  static const tsl_binding binds[] = {{"m", 37}, {"n", 29}};
  int total = 0, compiled = 0, passed = 0;
  for (int p = 0; p < np; p++) {
    char dir[4300];
    snprintf(dir, sizeof dir, "%s/%s", cases, prims[p]);
    char *names[512];
    int n = tf_selected(prims[p]) ? tf_list(dir, ".sch", 0, names, 512) : 0;
    for (int i = 0; i < n; i++) {
      char path[8800], id[600];
      snprintf(id, sizeof id, "%s/%s", prims[p], names[i]);
      snprintf(path, sizeof path, "%s/%s.py", dir, names[i]);
      char *prog = lt_slurp(path);
      snprintf(path, sizeof path, "%s/%s.sch", dir, names[i]);
      char *script = lt_slurp(path);
      tsl_arena *a = tsl_arena_new(ctx);
      const tsl_module *m = NULL;
      tsl_schedule *sch = NULL;
      total++;
      if (prog && script && !tsl_parse(a, names[i], prog, strlen(prog), &m, &d) &&
          !tsl_schedule_new(ctx, m, NULL, &sch, &d) &&
          !tsl_script_run(sch, path, script, strlen(script), &d)) {
        /* parameters in a new layout are copied through their index maps */
        const tsl_func *after = tsl_schedule_func_in_original_layout(sch, NULL);
        const tsl_func *before = tsl_module_find(m, after->name);
        compiled++;
        passed += lt_check(t, ctx, before, after, binds, 2, 1, id);
      }
      tsl_schedule_free(sch);
      tsl_arena_free(a);
      free(prog);
      free(script);
      free(names[i]);
    }
    free(prims[p]);
  }
  ok(compiled > 50, "%d of %d golden cases schedule successfully and were "
                    "compiled",
     compiled, total);
  tap_diag("%d of %d scheduled programs agree with the interpreter", passed,
           compiled);
  tsl_ctx_free(ctx);
  tll_vtable.destroy(t);
  return tap_done();
}
