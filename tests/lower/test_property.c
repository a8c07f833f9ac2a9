/*
 * Lowering property test. For every function of every program in
 * workloads/ and for the scheduled result of every successful case in
 * tests/schedule/cases/<primitive>/:
 *   rules      the lowered function (vectorize 0 and 1) obeys lower.h:
 *              no blocks, flat buffers, one index per access, every
 *              buffer inside its allocation, one allocation per used
 *              alloc_buffer, consistent vector lanes
 *   interp     the lowered function (vectorize 0), run in the interpreter,
 *              computes what the original (unscheduled) function computes
 *              on the same random inputs; so does the vectorize 1 result
 *              with its vector statements unrolled lane by lane
 * Symbolic sizes are bound to 24. TESSEL_CASES=split,fuse restricts the
 * schedule cases as in tests/schedule.
 */
#include "lower_util.h"

typedef struct counts {
  int funcs, rules_ok, interp_ok, skipped, vector;
} counts;

/* Check one scheduled function against its original. */
static void check_func(tsl_arena *arena, const char *id, const tsl_func *orig,
                       const tsl_func *sched, counts *cnt) {
  tsl_diag d = {0};
  char why[600];
  cnt->funcs++;
  const tsl_lowered_func *l0 = NULL, *l1 = NULL;
  tsl_lower_opts o0 = {sizeof o0, 0, 0}, o1 = {sizeof o1, 1, 0};
  int rc = tsl_lower_func(arena, sched, &o0, &l0, &d);
  if (!ok(rc == TSL_OK, "%s: lowers (vectorize 0)", id)) {
    tap_diag("%s", d.text);
    return;
  }
  rc = tsl_lower_func(arena, sched, &o1, &l1, &d);
  if (!ok(rc == TSL_OK, "%s: lowers (vectorize 1)", id)) {
    tap_diag("%s", d.text);
    return;
  }
  int r0 = lu_check_rules(l0, why, sizeof why);
  if (!ok(!r0, "%s: lowered (vectorize 0) obeys the rules", id))
    tap_diag("%s", why);
  int r1 = lu_check_rules(l1, why, sizeof why);
  if (!ok(!r1, "%s: lowered (vectorize 1) obeys the rules", id))
    tap_diag("%s", why);
  if (!r0 && !r1)
    cnt->rules_ok++;
  tsl_binding binds[16];
  uint32_t nb = 0;
  for (uint32_t i = 0; i < l0->n_size_vars && nb < 16; i++)
    binds[nb++] = (tsl_binding){l0->size_vars[i]->name, 24};
  for (uint32_t i = 0; i < orig->n_params && nb < 16; i++)
    if (!orig->params[i].buffer && orig->params[i].var &&
        tsl_dtype_is_int(orig->params[i].var->dtype))
      binds[nb++] = (tsl_binding){orig->params[i].var->name, 24};
  double err = 0;
  int bad = lu_run_compare(orig, l0, binds, nb, 11, why, sizeof why, &err);
  if (bad && !strncmp(why, "args:", 5)) {
    tap_skip(why, id);
    cnt->skipped++;
    return;
  }
  if (!ok(!bad, "%s: lowered program computes the original's values (max err %.2g)", id, err))
    tap_diag("%s", why);
  /* vector code, unrolled lane by lane, computes the same */
  const tsl_lowered_func *dv = lu_devectorize(arena, l1);
  if (lu_has_vector(l1))
    cnt->vector++;
  int vbad = 1;
  if (ok(dv != NULL, "%s: vector code devectorizes", id)) {
    vbad = lu_run_compare(orig, dv, binds, nb, 11, why, sizeof why, &err);
    if (!ok(!vbad, "%s: lowered vector program (lane by lane) computes the original's values "
                   "(max err %.2g)",
            id, err))
      tap_diag("%s", why);
  }
  if (!bad && !vbad)
    cnt->interp_ok++;
}

/* `sch` (may be NULL) made `sched`: its functions run on the original's
 * arguments through tsl_schedule_func_in_original_layout. */
static void check_module(tsl_arena *arena, const char *id, const tsl_module *orig,
                         const tsl_module *sched, tsl_schedule *sch, counts *cnt) {
  for (uint32_t i = 0; i < sched->n_funcs; i++) {
    const tsl_func *o = tsl_module_find(orig, sched->funcs[i]->name);
    char fid[700];
    snprintf(fid, sizeof fid, "%s:%s", id, sched->funcs[i]->name);
    if (!o) {
      ok(0, "%s: has an original function", fid);
      continue;
    }
    const tsl_func *f = sch ? tsl_schedule_func_in_original_layout(sch, sched->funcs[i]->name)
                            : sched->funcs[i];
    check_func(arena, fid, o, f, cnt);
  }
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  tsl_ctx *ctx = tsl_ctx_new();
  counts wl = {0}, sc = {0};
  char dir[4400], path[9000];

  /* workloads */
  snprintf(dir, sizeof dir, "%s/workloads", root);
  char *names[512];
  int n = tf_list(dir, ".py", 0, names, 512);
  for (int i = 0; i < n; i++) {
    tsl_arena *arena = tsl_arena_new(ctx);
    tsl_diag d = {0};
    const tsl_module *m = NULL;
    snprintf(path, sizeof path, "%s/%s.py", dir, names[i]);
    if (tsl_parse_file(arena, path, &m, &d) == TSL_OK) {
      char id[600];
      snprintf(id, sizeof id, "workloads/%s", names[i]);
      check_module(arena, id, m, m, NULL, &wl);
    } else {
      ok(0, "workloads/%s parses", names[i]);
      tap_diag("%s", d.text);
    }
    tsl_arena_free(arena);
    free(names[i]);
  }

  /* scheduled golden cases */
  char cases[4200];
  snprintf(cases, sizeof cases, "%s/tests/schedule/cases", root);
  char *prims[128];
  int np = tf_list(cases, "", 1, prims, 128);
  int n_cases = 0;
  for (int p = 0; p < np; p++) {
    if (!tf_selected(prims[p])) {
      free(prims[p]);
      continue;
    }
    snprintf(dir, sizeof dir, "%s/%s", cases, prims[p]);
    int nc = tf_list(dir, ".sch", 0, names, 512);
    for (int i = 0; i < nc; i++) {
      tsl_arena *arena = tsl_arena_new(ctx);
      tsl_diag d = {0};
      const tsl_module *m = NULL;
      tsl_schedule *sch = NULL;
      snprintf(path, sizeof path, "%s/%s.py", dir, names[i]);
      char *script = NULL;
      char sp[9000];
      snprintf(sp, sizeof sp, "%s/%s.sch", dir, names[i]);
      script = lu_slurp(sp);
      if (script && tsl_parse_file(arena, path, &m, &d) == TSL_OK &&
          tsl_schedule_new(ctx, m, NULL, &sch, &d) == TSL_OK &&
          tsl_script_run(sch, sp, script, strlen(script), &d) == TSL_OK) {
        char id[700];
        snprintf(id, sizeof id, "%s/%s", prims[p], names[i]);
        n_cases++;
        check_module(arena, id, m, tsl_schedule_module(sch), sch, &sc);
      }
      tsl_schedule_free(sch);
      free(script);
      tsl_arena_free(arena);
      free(names[i]);
    }
    free(prims[p]);
  }
  ok(wl.funcs > 20, "workloads: %d functions lowered, %d obey the rules, %d agree in the "
                    "interpreter, %d skipped",
     wl.funcs, wl.rules_ok, wl.interp_ok, wl.skipped);
  ok(sc.vector > 5, "schedule cases: %d functions have vector code (checked lane by lane)",
     sc.vector);
  ok(n_cases > 50 || getenv("TESSEL_CASES"),
     "schedule cases: %d successful cases, %d functions, %d obey the rules, %d agree in "
     "the interpreter, %d skipped",
     n_cases, sc.funcs, sc.rules_ok, sc.interp_ok, sc.skipped);
  tsl_ctx_free(ctx);
  return tap_done();
}
