/*
 * Golden lowered programs: tests/lower/cases/NAME.py (and NAME.sch, a
 * schedule script run on it first, when present). Every function of the
 * (scheduled) module is lowered with vectorize 1; the text of
 * tsl_lowered_print for each, concatenated, must equal NAME.expected. Each
 * case is also run in the interpreter against the original program, lowered
 * with vectorize 0 and with vectorize 1 (vector statements unrolled lane by
 * lane). TESSEL_UPDATE_GOLDEN=1 rewrites the .expected files
 * (review them by eye).
 */
#include "lower_util.h"

static void run_case(tsl_ctx *ctx, const char *dir, const char *name, int update) {
  char path[9000];
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL, *sm;
  tsl_schedule *sch = NULL;
  snprintf(path, sizeof path, "%s/%s.py", dir, name);
  if (tsl_parse_file(arena, path, &m, &d)) {
    ok(0, "%s: parses", name);
    tap_diag("%s", d.text);
    goto out;
  }
  sm = m;
  snprintf(path, sizeof path, "%s/%s.sch", dir, name);
  char *script = lu_slurp(path);
  if (script) {
    int rc = tsl_schedule_new(ctx, m, NULL, &sch, &d);
    if (!rc)
      rc = tsl_script_run(sch, path, script, strlen(script), &d);
    free(script);
    if (!ok(rc == TSL_OK, "%s: schedule runs", name)) {
      tap_diag("%s", d.text);
      goto out;
    }
    sm = tsl_schedule_module(sch);
  }
  tsl_strbuf got;
  tsl_strbuf_init(&got);
  tsl_lower_opts o1 = {sizeof o1, 1, 0}, o0 = {sizeof o0, 0, 0};
  for (uint32_t i = 0; i < sm->n_funcs; i++) {
    const tsl_lowered_func *lf = NULL, *l0 = NULL;
    if (!ok(tsl_lower_func(arena, sm->funcs[i], &o1, &lf, &d) == TSL_OK, "%s: %s lowers", name,
            sm->funcs[i]->name)) {
      tap_diag("%s", d.text);
      continue;
    }
    char *t = tsl_lowered_print(lf);
    tsl_strbuf_append(&got, t ? t : "(null)\n");
    free(t);
    char why[600];
    if (!ok(!lu_check_rules(lf, why, sizeof why), "%s: %s obeys the rules", name, lf->name))
      tap_diag("%s", why);
    const tsl_lowered_func *dv = lu_devectorize(arena, lf);
    if (ok(dv != NULL, "%s: %s devectorizes", name, lf->name)) {
      tsl_binding binds[8];
      uint32_t nb = 0;
      for (uint32_t k = 0; k < dv->n_size_vars && nb < 8; k++)
        binds[nb++] = (tsl_binding){dv->size_vars[k]->name, 20};
      double err;
      int bad = lu_run_compare(tsl_module_find(m, lf->name), dv, binds, nb, 5, why, sizeof why,
                               &err);
      if (!ok(!bad, "%s: %s vector code, lane by lane, computes the original's values", name,
              lf->name))
        tap_diag("%s", why);
    }
    if (tsl_lower_func(arena, sm->funcs[i], &o0, &l0, &d) == TSL_OK) {
      tsl_binding binds[8];
      uint32_t nb = 0;
      for (uint32_t k = 0; k < l0->n_size_vars && nb < 8; k++)
        binds[nb++] = (tsl_binding){l0->size_vars[k]->name, 20};
      double err;
      const tsl_func *orig = tsl_module_find(m, lf->name);
      int bad = lu_run_compare(orig, l0, binds, nb, 3, why, sizeof why, &err);
      if (!ok(!bad, "%s: %s computes the original's values (vectorize 0, max err %.2g)", name,
              lf->name, err))
        tap_diag("%s", why);
    } else {
      ok(0, "%s: %s lowers with vectorize 0", name, lf->name);
      tap_diag("%s", d.text);
    }
  }
  char *text = tsl_strbuf_take(&got);
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  if (update) {
    FILE *f = fopen(path, "wb");
    if (f) {
      fputs(text, f);
      fclose(f);
    }
    ok(f != NULL, "%s: wrote %s", name, path);
  } else {
    char *want = lu_slurp(path);
    is_str(text, want, "%s: lowered text is the golden text", name);
    free(want);
  }
  free(text);
out:
  tsl_schedule_free(sch);
  tsl_arena_free(arena);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/tests/lower/cases", root ? root : ".");
  int update = getenv("TESSEL_UPDATE_GOLDEN") && !strcmp(getenv("TESSEL_UPDATE_GOLDEN"), "1");
  char *names[256];
  int n = tf_list(dir, ".py", 0, names, 256);
  tsl_ctx *ctx = tsl_ctx_new();
  for (int i = 0; i < n; i++) {
    run_case(ctx, dir, names[i], update);
    free(names[i]);
  }
  ok(n >= 10, "found %d golden lowering cases", n);
  tsl_ctx_free(ctx);
  return tap_done();
}
