/*
 * The unroll pragmas against TVM's UnrollLoop rule: for every case in
 * tests/lower/unroll/, the pragma form (NAME.py, then NAME.sch when present)
 * and the hand-unrolled form that rule implies (NAME.hand.py, or NAME.py,
 * then NAME.hand.sch when present: T.unroll on exactly the loops TVM
 * unrolls) must lower to the same program, printed by tsl_lowered_print.
 * Both are lowered with vectorize 1 and with vectorize 0 (where the
 * expected form may differ: NAME.hand0.py / NAME.hand0.sch when present),
 * checked against the lowering rules and run in the interpreter against
 * the unscheduled NAME.py on the same random inputs.
 */
#include "lower_util.h"

typedef struct form {
  const tsl_module *src; /* as parsed */
  const tsl_module *m;   /* after the schedule script, if any */
  tsl_schedule *sch;
} form;

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Loads dir/PY.py, then runs dir/SCH.sch on it when that file exists. */
static int load_form(tsl_ctx *ctx, tsl_arena *a, const char *dir, const char *py,
                     const char *sch, form *f) {
  char path[9000];
  tsl_diag d = {0};
  memset(f, 0, sizeof *f);
  snprintf(path, sizeof path, "%s/%s.py", dir, py);
  if (tsl_parse_file(a, path, &f->src, &d)) {
    tap_diag("%s: %s", path, d.text);
    return 0;
  }
  f->m = f->src;
  snprintf(path, sizeof path, "%s/%s.sch", dir, sch);
  char *script = lu_slurp(path);
  if (!script)
    return 1;
  int rc = tsl_schedule_new(ctx, f->src, NULL, &f->sch, &d);
  if (!rc)
    rc = tsl_script_run(f->sch, path, script, strlen(script), &d);
  free(script);
  if (rc) {
    tap_diag("%s: %s", path, d.text);
    return 0;
  }
  f->m = tsl_schedule_module(f->sch);
  return 1;
}

/* The expected form for a lowering with vectorize `vec`: the first of
 * SUFFIX.py / SUFFIX.sch that exists picks the files (hand0 for vec 0,
 * falling back to hand). */
static int load_hand(tsl_ctx *ctx, tsl_arena *a, const char *dir, const char *name, int vec,
                     form *f) {
  const char *suffixes[2] = {vec ? "hand" : "hand0", "hand"};
  char path[9000], py[600];
  for (int i = 0; i < 2; i++) {
    snprintf(py, sizeof py, "%s.%s", name, suffixes[i]);
    snprintf(path, sizeof path, "%s/%s.py", dir, py);
    int has_py = file_exists(path);
    snprintf(path, sizeof path, "%s/%s.sch", dir, py);
    if (has_py || file_exists(path))
      return load_form(ctx, a, dir, has_py ? py : name, py, f);
  }
  tap_diag("%s: no %s.hand.py or %s.hand.sch", name, name, name);
  return 0;
}

/* Lowers the main function of f with vectorize `vec`; NULL on failure. */
static const tsl_lowered_func *lower(tsl_arena *a, const form *f, int vec) {
  tsl_diag d = {0};
  tsl_lower_opts o = {sizeof o, vec, 0};
  const tsl_lowered_func *lf = NULL;
  const tsl_func *fn = tsl_module_find(f->m, "main");
  if (!fn || tsl_lower_func(a, fn, &o, &lf, &d)) {
    tap_diag("lowering: %s", fn ? d.text : "no function main");
    return NULL;
  }
  return lf;
}

/* Rules and interpreter run of lf against the unscheduled reference. */
static void check_run(tsl_arena *a, const char *what, const tsl_func *ref,
                      const tsl_lowered_func *lf, int vec) {
  char why[600];
  if (!ok(!lu_check_rules(lf, why, sizeof why), "%s obeys the lowering rules", what))
    tap_diag("%s", why);
  const tsl_lowered_func *run = vec ? lu_devectorize(a, lf) : lf;
  if (!ok(run != NULL, "%s devectorizes", what))
    return;
  tsl_binding binds[8];
  uint32_t nb = 0;
  for (uint32_t k = 0; k < run->n_size_vars && nb < 8; k++)
    binds[nb++] = (tsl_binding){run->size_vars[k]->name, 13};
  double err;
  int bad = lu_run_compare(ref, run, binds, nb, 7, why, sizeof why, &err);
  if (!ok(!bad, "%s computes the unscheduled program's values", what))
    tap_diag("%s", why);
}

static void run_case(tsl_ctx *ctx, const char *dir, const char *name) {
  for (int vec = 1; vec >= 0; vec--) {
    tsl_arena *a = tsl_arena_new(ctx);
    form p, h;
    memset(&h, 0, sizeof h);
    char what[700];
    snprintf(what, sizeof what, "%s (vectorize %d)", name, vec);
    int loaded = load_form(ctx, a, dir, name, name, &p);
    if (loaded)
      loaded = load_hand(ctx, a, dir, name, vec, &h);
    if (ok(loaded, "%s: both forms load", what)) {
      const tsl_lowered_func *lp = lower(a, &p, vec), *lh = lower(a, &h, vec);
      if (ok(lp && lh, "%s: both forms lower", what)) {
        char *tp = tsl_lowered_print(lp), *th = tsl_lowered_print(lh);
        is_str(tp, th, "%s: the pragma form lowers to the hand-unrolled form", what);
        free(tp);
        free(th);
        const tsl_func *ref = tsl_module_find(p.src, "main");
        char w[800];
        snprintf(w, sizeof w, "%s: the pragma form", what);
        check_run(a, w, ref, lp, vec);
        snprintf(w, sizeof w, "%s: the hand form", what);
        check_run(a, w, ref, lh, vec);
      }
    }
    tsl_schedule_free(p.sch);
    tsl_schedule_free(h.sch);
    tsl_arena_free(a);
  }
}

/* NAME.py files that are not hand forms. */
static int is_case(const char *name) {
  size_t n = strlen(name);
  return !(n > 5 && !strcmp(name + n - 5, ".hand")) &&
         !(n > 6 && !strcmp(name + n - 6, ".hand0"));
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/tests/lower/unroll", root ? root : ".");
  char *names[256];
  int n = tf_list(dir, ".py", 0, names, 256), cases = 0;
  tsl_ctx *ctx = tsl_ctx_new();
  for (int i = 0; i < n; i++) {
    if (is_case(names[i]) && tf_selected(names[i])) {
      run_case(ctx, dir, names[i]);
      cases++;
    }
    free(names[i]);
  }
  ok(cases >= 10 || getenv("TESSEL_CASES"), "found %d unroll cases", cases);
  tsl_ctx_free(ctx);
  return tap_done();
}
