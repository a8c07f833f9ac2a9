/*
 * Golden before/after cases of the built-in postprocessors and mutators:
 * tests/rules/cases/<Component>/NAME.{py,sch,expected[,split]}; a script
 * with a `# workload: W` line runs on workloads/W.py instead of NAME.py.
 *   postprocessor  the script (may be empty) runs on the program, then the
 *                  postprocessor alone (created with the options of a
 *                  `# options: KEY=VALUE KEY=VALUE` line of the script,
 *                  if any); the printed result (or its error) must equal
 *                  NAME.expected. A success is also checked:
 *       interp     the interpreter agrees before and after (parallel loops
 *                  in natural, shuffled and reversed order)
 *       replay     the trace replays, runs as a script and goes through
 *                  JSON to the same program
 *       split      (RewriteLayout) tsl_func_split_prepack prints as
 *                  NAME.split (main, then <name>_prepack), and prepack run
 *                  on the weights, then main on the packed buffers, gives
 *                  the original's outputs
 *   mutator        the script is a sketch with its decisions (the program
 *                  NAME.py, or workloads/W.py named by a `# workload: W`
 *                  line); the llvm
 *                  default postprocessors make it a candidate (as the tuner
 *                  does), the mutator proposes from the seed of a
 *                  `# seed: N` line (default 1); the proposal printed as a
 *                  trace (or "no proposal") must equal NAME.expected, and
 *                  it replays, postprocesses and computes what the program
 *                  computes. A `# postprocs: A,B,...` line names the
 *                  postprocessors to use instead (a GPU sketch's).
 * Components are created for the llvm target; a `# target: cuda` line
 * creates the case's postprocessor (or its `# postprocs:`) for the cuda
 * target (RewriteCooperativeFetch reads the warp size from it).
 * Unit cases of tsl_suggest_index_map follow.
 * TESSEL_UPDATE_GOLDEN=1 rewrites the .expected / .split files (review
 * them by eye); TESSEL_CASES=NAME,... restricts the cases.
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_files.h"
#include "case_options.h"

static tsl_ctx *ctx;
static tsl_registry *reg;
static int update;
static const tsl_rule_target target = {sizeof target, "llvm", 2, 32, NULL};
static const tsl_rule_target cuda_target = {sizeof cuda_target, "cuda", 2, 16, NULL};
static tsl_space_postproc *defaults; /* the llvm list, for mutator cases */
static uint32_t n_defaults;

static char *slurp(const char *path) {
  char *s = NULL;
  size_t n;
  tsl_diag d = {0};
  return tsl_read_file(path, &s, &n, &d) == TSL_OK ? s : NULL;
}

static void compare_golden(const char *path, const char *got, const char *id,
                           const char *what) {
  if (update) {
    FILE *f = fopen(path, "wb");
    if (f) {
      fputs(got, f);
      fclose(f);
    }
    ok(f != NULL, "%s: wrote %s", id, path);
    return;
  }
  char *want = slurp(path);
  int same = want && strcmp(got, want) == 0;
  ok(same, "%s: %s", id, what);
  if (!same)
    tap_diag("got:\n%s", got);
  free(want);
}

static int module_equal(const tsl_module *want, const tsl_schedule *s, const char *id,
                        const char *what) {
  char why[1024] = "";
  int eq = s && tsl_module_equal(want, tsl_schedule_module(s), why, sizeof why);
  ok(eq, "%s: %s", id, what);
  if (!eq && s)
    tap_diag("difference: %s", why);
  return eq;
}

static void round_trips(const tsl_module *m, tsl_schedule *sch, const char *id) {
  const tsl_module *want = tsl_schedule_module(sch);
  const tsl_trace *tr = tsl_schedule_trace(sch);
  tsl_diag d = {0};
  tsl_schedule *r = NULL;
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  if (tsl_trace_replay(ctx, tr, m, &ro, &r, &d))
    tap_diag("replay: %s", d.text);
  module_equal(want, r, id, "trace replays equal");
  tsl_schedule_free(r);
  r = NULL;
  char *ts = tsl_trace_to_script(tr, 1);
  if (tsl_schedule_new(ctx, m, NULL, &r, &d) || tsl_script_run(r, "trace", ts, strlen(ts), &d)) {
    tap_diag("trace script:\n%s\n%s", ts, d.text);
    tsl_schedule_free(r);
    r = NULL;
  }
  module_equal(want, r, id, "trace -> script -> run equal");
  tsl_schedule_free(r);
  r = NULL;
  free(ts);
  char *js = tsl_trace_to_json(tr);
  tsl_trace *jt = NULL;
  if (tsl_trace_from_json(ctx, js, &jt, &d) || tsl_trace_replay(ctx, jt, m, &ro, &r, &d))
    tap_diag("json: %s\n%s", js, d.text);
  module_equal(want, r, id, "trace -> JSON -> replay equal");
  tsl_schedule_free(r);
  tsl_trace_free(jt);
  free(js);
}

/* The original on seeded arguments; prepack on the same weights, main on
 * the packed buffers; every output of main equals the original's. */
static void split_runs(const tsl_func *orig, const tsl_prepack_split *sp, const char *id) {
  tsl_diag d = {0};
  uint32_t n = orig->n_params;
  tsl_arg *ref = calloc(n, sizeof *ref), *got = calloc(n, sizeof *got);
  tsl_arg *pre = calloc(2 * sp->n_packed + 1, sizeof *pre);
  int rc = tsl_func_make_args(orig, NULL, 0, 7, ref, &d) ||
           tsl_func_make_args(orig, NULL, 0, 7, got, &d);
  tsl_arg *packed = calloc(sp->n_packed + 1, sizeof *packed);
  if (!rc)
    rc = tsl_func_make_args(sp->prepack, NULL, 0, 9, pre, &d);
  if (!rc) {
    for (uint32_t k = 0; k < sp->n_packed; k++) {
      packed[k] = pre[sp->n_packed + k]; /* garbage until prepack writes it */
      tsl_args_free(&pre[k], 1);
      pre[k] = got[sp->positions[k]]; /* the same weights */
    }
    rc = tsl_interp_run(orig, ref, n, &d) ||
         tsl_interp_run(sp->prepack, pre, 2 * sp->n_packed, &d);
  }
  if (!rc) {
    tsl_arg *margs = calloc(n, sizeof *margs);
    memcpy(margs, got, sizeof *margs * n);
    for (uint32_t k = 0; k < sp->n_packed; k++)
      margs[sp->positions[k]] = packed[k];
    rc = tsl_interp_run(sp->main, margs, n, &d);
    free(margs);
  }
  int64_t bad = 0, checked = 0;
  for (uint32_t p = 0; !rc && p < n; p++) {
    if (ref[p].is_scalar || !tsl_func_param_is_output(orig, p))
      continue;
    for (int64_t k = 0; k < tsl_tensor_numel(&ref[p].tensor); k++, checked++) {
      double a = tsl_tensor_get(&ref[p].tensor, k), b = tsl_tensor_get(&got[p].tensor, k);
      bad += !(a - b <= 1e-4 * (1 + (a < 0 ? -a : a)) && b - a <= 1e-4 * (1 + (a < 0 ? -a : a)));
    }
  }
  ok(!rc && checked > 0 && bad == 0,
     "%s: prepack then main gives the original's outputs (%lld values)", id,
     (long long)checked);
  if (rc)
    tap_diag("%s", d.text);
  /* `pre` holds views of `got`'s weights in its first half */
  for (uint32_t k = 0; k < sp->n_packed; k++)
    pre[k] = (tsl_arg){0};
  tsl_args_free(pre, 2 * sp->n_packed);
  tsl_args_free(ref, n);
  tsl_args_free(got, n);
  free(ref);
  free(got);
  free(pre);
  free(packed);
}

static const char *source_root;

/* A case's program: NAME.py, or workloads/W.py when the script has a
 * `# workload: W` line. Heap text, or NULL. */
static char *case_program(const char *dir, const char *name, const char *script) {
  char path[8800], wl[128] = "";
  const char *wline = script ? strstr(script, "# workload:") : NULL;
  if (wline && sscanf(wline + 11, " %127[A-Za-z0-9_]", wl) == 1)
    snprintf(path, sizeof path, "%s/workloads/%s.py", source_root, wl);
  else
    snprintf(path, sizeof path, "%s/%s.py", dir, name);
  return slurp(path);
}

/* The target a case's components are for: cuda with a `# target: cuda`
 * line, else llvm. */
static const tsl_rule_target *case_target(const char *script) {
  const char *tl = script ? strstr(script, "# target:") : NULL;
  char kind[32] = "";
  if (tl && sscanf(tl + 9, " %31[A-Za-z0-9_]", kind) == 1 && !strcmp(kind, "cuda"))
    return &cuda_target;
  return &target;
}

/* The postprocessors a `# postprocs: A,B,...` line names, created for `t`:
 * 1 with *out set (free with tsl_space_postprocs_free), 0 without such a
 * line, -1 on an error (in diag). */
static int case_postprocs(const char *script, const tsl_rule_target *t,
                          tsl_space_postproc **out, uint32_t *n, tsl_diag *d) {
  const char *pl = script ? strstr(script, "# postprocs:") : NULL;
  *out = NULL;
  *n = 0;
  if (!pl)
    return 0;
  char names[512] = "";
  sscanf(pl + 12, "%511[A-Za-z0-9_, ]", names);
  *out = calloc(16, sizeof **out);
  for (char *tok = strtok(names, ", "); *out && tok && *n < 16; tok = strtok(NULL, ", "))
    if (tsl_space_postproc_create(reg, tok, t, 0, NULL, &(*out)[(*n)++], d)) {
      tsl_space_postprocs_free(*out, *n);
      *out = NULL;
      return -1;
    }
  if (*out && *n)
    return 1;
  free(*out);
  *out = NULL;
  return tsl_diag_set(d, TSL_EINVALID, "'# postprocs:' names no postprocessor"), -1;
}

static void postproc_case(const tsl_space_postproc *folder_pp, const char *dir,
                          const char *name) {
  char path[8800], id[256];
  snprintf(id, sizeof id, "%s/%s", folder_pp->name, name);
  int split = !strcmp(folder_pp->name, "RewriteLayout");
  snprintf(path, sizeof path, "%s/%s.sch", dir, name);
  char *script = slurp(path);
  char *prog = case_program(dir, name, script);
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  tsl_schedule *sch = NULL;
  char obuf[512];
  tsl_kv kv[8];
  uint32_t n_kv = case_options(script, obuf, sizeof obuf, kv, 8);
  tsl_space_postproc own = {0};
  const tsl_space_postproc *pp = folder_pp;
  const tsl_rule_target *tgt = case_target(script);
  if ((n_kv || tgt != &target) &&
      tsl_space_postproc_create(reg, folder_pp->name, tgt, n_kv, kv, &own, &d)) {
    ok(0, "%s: the postprocessor with the case's options and target: %s", id, d.text);
    goto out;
  }
  if (n_kv || tgt != &target)
    pp = &own;
  if (!prog || !script) {
    ok(0, "%s: has .py and .sch", id);
    goto out;
  }
  if (tsl_parse(arena, name, prog, strlen(prog), &m, &d)) {
    ok(0, "%s: program parses", id);
    tap_diag("%s", d.text);
    goto out;
  }
  int rc = tsl_schedule_new(ctx, m, NULL, &sch, &d);
  if (!rc)
    rc = tsl_script_run(sch, name, script, strlen(script), &d);
  if (!rc)
    rc = tsl_space_apply_postprocs(sch, 1, pp, &d);
  char *got;
  if (rc) {
    got = malloc(strlen(d.text) + 2);
    sprintf(got, "%s\n", d.text);
  } else {
    got = tsl_print_module(tsl_schedule_module(sch));
  }
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  compare_golden(path, got, id,
                 rc ? "fails with the expected message" : "result is the golden program");
  free(got);
  if (rc)
    goto out;
  const tsl_func *before = m->funcs[0];
  const tsl_func *after = tsl_schedule_func(sch);
  tsl_equiv_report rep;
  tsl_interp_opts io = {sizeof io, TSL_INTERP_ORDER_ALL, 1};
  int st = tsl_interp_check_equivalent_opts(before, after, NULL, 0, 1, &io, &rep, &d);
  ok(st == TSL_OK, "%s: interpreter agrees before and after (%lld values)", id,
     (long long)rep.n_checked);
  if (st)
    tap_diag("%s", d.text);
  round_trips(m, sch, id);
  if (!split)
    goto out;

  tsl_prepack_split sp;
  rc = tsl_func_split_prepack(arena, after, &sp, &d);
  snprintf(path, sizeof path, "%s/%s.split", dir, name);
  if (rc) {
    got = malloc(strlen(d.text) + 2);
    sprintf(got, "%s\n", d.text);
  } else {
    const tsl_func *fs[2] = {sp.main, sp.prepack};
    tsl_module two = {arena, tsl_intern(ctx, "Module"), 0, sp.prepack ? 2 : 1, fs};
    got = tsl_print_module(&two);
  }
  compare_golden(path, got, id, rc ? "the split fails as expected" : "the split is golden");
  free(got);
  if (!rc && sp.prepack)
    split_runs(before, &sp, id);
out:
  if (own.pp)
    own.vtable->destroy(own.pp);
  tsl_schedule_free(sch);
  tsl_arena_free(arena);
  free(prog);
  free(script);
}

/* ---- mutators ------------------------------------------------------------------ */

static void mutator_case(const tsl_space_mutator *mu, const char *dir, const char *name) {
  char path[8800], id[256];
  snprintf(id, sizeof id, "%s/%s", mu->name, name);
  snprintf(path, sizeof path, "%s/%s.sch", dir, name);
  char *script = slurp(path);
  char *prog = case_program(dir, name, script);
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  tsl_schedule *sch = NULL, *r = NULL;
  tsl_trace *mt = NULL;
  tsl_space_postproc *own = NULL, *pps = defaults;
  uint32_t n_own = 0, n_pps = n_defaults;
  int listed = case_postprocs(script, case_target(script), &own, &n_own, &d);
  if (listed == 1) {
    pps = own;
    n_pps = n_own;
  }
  if (!prog || !script || listed < 0 || tsl_parse(arena, name, prog, strlen(prog), &m, &d) ||
      tsl_schedule_new(ctx, m, NULL, &sch, &d) ||
      tsl_script_run(sch, name, script, strlen(script), &d) ||
      tsl_space_apply_postprocs(sch, n_pps, pps, &d)) {
    ok(0, "%s: the program, and the sketch postprocessed into a candidate", id);
    tap_diag("%s", d.text);
    goto out;
  }
  const char *sl = strstr(script, "# seed:");
  uint64_t state = sl ? strtoull(sl + 7, NULL, 10) : 1;
  int rc = mu->vtable->apply(mu->m, m, tsl_schedule_trace(sch), &state, &mt, &d);
  char *got;
  if (rc) {
    got = malloc(strlen(d.text) + 2);
    sprintf(got, "%s\n", d.text);
  } else {
    got = mt ? tsl_trace_to_script(mt, 1) : strdup("no proposal\n");
  }
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  compare_golden(path, got, id, "the proposal is the golden trace");
  free(got);
  if (!mt)
    goto out;
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  tsl_equiv_report rep = {0};
  rc = tsl_trace_replay(ctx, mt, m, &ro, &r, &d);
  if (!rc)
    rc = tsl_space_apply_postprocs(r, n_pps, pps, &d);
  if (!rc)
    rc = tsl_interp_check_equivalent(m->funcs[0], tsl_schedule_func(r), NULL, 0, 1, &rep, &d);
  ok(rc == TSL_OK, "%s: the proposal replays, postprocesses and computes what the program "
                   "computes (%lld values)",
     id, (long long)rep.n_checked);
  if (rc)
    tap_diag("%s", d.text);
out:
  tsl_space_postprocs_free(own, n_own);
  tsl_trace_free(mt);
  tsl_schedule_free(r);
  tsl_schedule_free(sch);
  tsl_arena_free(arena);
  free(prog);
  free(script);
}

/* ---- tsl_suggest_index_map ---------------------------------------------------- */

static void suggest_cases(void) {
  static const char *src =
      "@T.prim_func\n"
      "def f(B: T.Buffer((16, 16), \"float32\"), D: T.Buffer((8, 3, 4), \"float32\")):\n"
      "    for i0, j, k0, i1, k1 in T.grid(4, 16, 4, 4, 4):\n"
      "        with T.block(\"b\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i0, j])\n"
      "            T.evaluate(B[k0 * 4 + k1, j] + B[i1, j * i0])\n";
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (tsl_parse(a, "suggest", src, strlen(src), &m, &d)) {
    ok(0, "suggest: parses: %s", d.text);
    tsl_arena_free(a);
    return;
  }
  const tsl_func *f = m->funcs[0];
  const tsl_stmt *loops[5];
  const tsl_stmt *s = f->body->u.realize.block->body;
  for (int k = 0; k < 5; k++, s = s->u.loop.body)
    loops[k] = s;
  const tsl_var *v[5];
  for (int k = 0; k < 5; k++)
    v[k] = loops[k]->u.loop.loop_var;
  const tsl_buffer *B = f->params[0].buffer;
  tsl_analyzer *an = tsl_analyzer_new(ctx);
  /* B[k0 * 4 + k1, j]: j, then k0, then k1 */
  const tsl_expr *c4 = tsl_expr_i32(a, 4);
  const tsl_expr *idx[2] = {
      tsl_expr_binary(a, TSL_EXPR_ADD,
                      tsl_expr_binary(a, TSL_EXPR_MUL, tsl_expr_var(v[2]), c4),
                      tsl_expr_var(v[4])),
      tsl_expr_var(v[1])};
  tsl_suggested_map sm;
  int rc = tsl_suggest_index_map(an, a, B, idx, 5, loops, NULL, &sm, &d);
  char text[512] = "";
  for (uint32_t k = 0; !rc && k < sm.n_results; k++) {
    char *e = tsl_print_expr(sm.results[k]);
    snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", k ? ", " : "", e);
    free(e);
  }
  ok(!rc && sm.n_params == 2 && !strcmp(text, "i1, i0 // 4, i0 % 4"),
     "suggest: B[k0 * 4 + k1, j] in loops (i0, j, k0, i1, k1) -> (%s)", text);
  /* the loops in the other order: k first */
  const tsl_stmt *rev[5] = {loops[2], loops[4], loops[1], loops[0], loops[3]};
  text[0] = 0;
  rc = tsl_suggest_index_map(an, a, B, idx, 5, rev, NULL, &sm, &d);
  for (uint32_t k = 0; !rc && k < sm.n_results; k++) {
    char *e = tsl_print_expr(sm.results[k]);
    snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", k ? ", " : "", e);
    free(e);
  }
  ok(!rc && !strcmp(text, "i0 // 4, i0 % 4, i1"),
     "suggest: the same read with k0, k1 outermost -> (%s)", text);
  /* B[i1, j * i0] is not affine: no suggestion, with the reason */
  const tsl_expr *bad[2] = {tsl_expr_var(v[3]),
                            tsl_expr_binary(a, TSL_EXPR_MUL, tsl_expr_var(v[1]),
                                            tsl_expr_var(v[0]))};
  d.text[0] = 0;
  rc = tsl_suggest_index_map(an, a, B, bad, 5, loops, NULL, &sm, &d);
  ok(rc == TSL_EUNSUPPORTED && strstr(d.text, "'B'"),
     "suggest: a non-affine index gives no suggestion: %s", d.text);
  /* a read that uses no loop: nothing to suggest */
  const tsl_expr *fixed[2] = {tsl_expr_i32(a, 3), tsl_expr_i32(a, 5)};
  rc = tsl_suggest_index_map(an, a, B, fixed, 5, loops, NULL, &sm, &d);
  ok(rc == TSL_EUNSUPPORTED, "suggest: a constant index gives no suggestion");
  tsl_analyzer_free(an);
  tsl_arena_free(a);
}

/* Every case of one component's folder. */
static void component(const char *cases, const char *comp) {
  char dir[4400];
  snprintf(dir, sizeof dir, "%s/%s", cases, comp);
  tsl_space_postproc pp = {0};
  tsl_space_mutator mu = {0};
  tsl_diag d = {0};
  int is_pp = tsl_registry_find(reg, TSL_COMPONENT_POSTPROC, comp) != NULL;
  int rc = is_pp ? tsl_space_postproc_create(reg, comp, &target, 0, NULL, &pp, &d)
                 : tsl_space_mutator_create(reg, comp, &target, 1, 0, NULL, &mu, &d);
  if (rc) {
    ok(0, "%s: a built-in postprocessor or mutator: %s", comp, d.text);
    return;
  }
  char *names[64];
  int n = tf_list(dir, ".sch", 0, names, 64);
  ok(n >= 3, "%s: %d cases", comp, n);
  for (int i = 0; i < n; i++) {
    if (tf_selected(names[i])) {
      if (is_pp)
        postproc_case(&pp, dir, names[i]);
      else
        mutator_case(&mu, dir, names[i]);
    }
    free(names[i]);
  }
  if (is_pp && pp.pp)
    pp.vtable->destroy(pp.pp);
  if (!is_pp && mu.m)
    mu.vtable->destroy(mu.m);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  update = getenv("TESSEL_UPDATE_GOLDEN") && !strcmp(getenv("TESSEL_UPDATE_GOLDEN"), "1");
  char cases[4096];
  source_root = root ? root : ".";
  snprintf(cases, sizeof cases, "%s/tests/rules/cases", source_root);
  ctx = tsl_ctx_new();
  tsl_diag d = {0};
  /* the llvm target's plugin names the default space */
  unsetenv("TESSEL_PLUGIN_PATH");
  if (tsl_registry_new(ctx, &reg, &d) || tsl_registry_load_default(reg, 0, NULL, &d) ||
      tsl_space_default_postprocs(reg, &target, &defaults, &n_defaults, &d)) {
    ok(0, "registry: %s", d.text);
    return tap_done();
  }
  char *comps[32];
  int nc = tf_list(cases, "", 1, comps, 32);
  int named = 0;
  for (int i = 0; i < nc; i++)
    named += tsl_registry_find(reg, TSL_COMPONENT_POSTPROC, comps[i]) ||
             tsl_registry_find(reg, TSL_COMPONENT_MUTATOR, comps[i]);
  ok(nc >= 9 && named == nc, "%d component folders, each a registered postprocessor or mutator",
     nc);
  for (int i = 0; i < nc; i++) {
    component(cases, comps[i]);
    free(comps[i]);
  }
  suggest_cases();
  tsl_space_postprocs_free(defaults, n_defaults);
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return tap_done();
}
