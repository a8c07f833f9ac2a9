/*
 * Lambdas over sampled values (TVM's index maps that use ExprRVs):
 * transform_layout's index map divides by tile factors that
 * sample_perfect_tile drew. Built through the C API
 * (tsl_schedule_rv_var) and through a script, the primitive sees the
 * values, the trace names the RVs (printed, JSON, copies, equality), and
 * a replay with other decisions lays the buffer out by the new values;
 * the transformed program computes what the original does.
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdlib.h>
#include <string.h>

static const char *prog =
    "@T.prim_func\n"
    "def main(A: T.Buffer((64, 48), \"float32\"), C: T.Buffer((64, 48), \"float32\")):\n"
    "    B = T.alloc_buffer((64, 48))\n"
    "    for i, j in T.grid(64, 48):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "    for i, j in T.grid(64, 48):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            C[vi, vj] = B[vi, vj] + T.float32(1)\n";

/* Tiles i (64) in three and j (48) in two; B's layout divides by the
 * product of i's inner factors and by j's inner one. */
static const char *script =
    "b = sch.get_block(\"B\")\n"
    "i, j = sch.get_loops(b)\n"
    "a0, a1, a2 = sch.sample_perfect_tile(i, n=3, max_innermost_factor=64, decision=[2, 4, 8])\n"
    "w0, w1 = sch.sample_perfect_tile(j, n=2, max_innermost_factor=64, decision=[3, 16])\n"
    "sch.transform_layout(b, (\"write\", 0), lambda x, y: (x // (a1 * a2), y // w1, "
    "x % (a1 * a2), y % w1))\n";

/* The trace both ways of building it print (decisions included). */
static const char *want_trace =
    "b0 = sch.get_block(name=\"B\", func_name=\"main\")\n"
    "l1, l2 = sch.get_loops(block=b0)\n"
    "v3, v4, v5 = sch.sample_perfect_tile(loop=l1, n=3, max_innermost_factor=64, "
    "decision=[2, 4, 8])\n"
    "v6, v7 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, "
    "decision=[3, 16])\n"
    "sch.transform_layout(block=b0, buffer=(\"write\", 0), index_map=lambda x, y: "
    "(x // (v4 * v5), y // v7, x % (v4 * v5), y % v7), assume_injective_transform=False)\n";

static tsl_ctx *ctx;
static const tsl_module *mod;

static tsl_schedule *new_schedule(void) {
  tsl_schedule *sch = NULL;
  tsl_diag d = {0};
  if (tsl_schedule_new(ctx, mod, NULL, &sch, &d))
    tap_diag("%s", d.text);
  return sch;
}

static tsl_schedule *run_script(const char *text, tsl_diag *d) {
  tsl_schedule *sch = new_schedule();
  if (sch && tsl_script_run(sch, "s.sch", text, strlen(text), d)) {
    tsl_schedule_free(sch);
    return NULL;
  }
  return sch;
}

/* The shape of B (the root block's allocation), 0 when it has another
 * rank or a symbolic extent. */
static int b_shape(const tsl_schedule *sch, int64_t out[4]) {
  const tsl_func *f = tsl_schedule_func(sch);
  const tsl_block *root = f->body->u.realize.block;
  if (root->n_alloc_buffers != 1 || root->alloc_buffers[0]->ndim != 4)
    return 0;
  for (uint32_t k = 0; k < 4; k++)
    if (!tsl_expr_is_const_int(root->alloc_buffers[0]->shape[k], &out[k]))
      return 0;
  return 1;
}

/* B's shape is (64 / (a1 a2), 48 / w1, a1 a2, w1) for the schedule's own
 * sampled values, and the program computes the original's values. */
static void check_layout(tsl_schedule *sch, const char *what) {
  const tsl_trace *t = tsl_schedule_trace(sch);
  const tsl_trace_inst *si = tsl_trace_get(t, 2), *sj = tsl_trace_get(t, 3);
  int64_t a = tsl_schedule_rv_value(sch, si->outs[1]) * tsl_schedule_rv_value(sch, si->outs[2]);
  int64_t w = tsl_schedule_rv_value(sch, sj->outs[1]);
  int64_t s[4];
  int ok_shape = b_shape(sch, s) && s[0] == 64 / a && s[1] == 48 / w && s[2] == a && s[3] == w;
  ok(ok_shape, "%s: B is laid out by the sampled values (%lld, %lld, %lld, %lld)", what,
     (long long)(64 / a), (long long)(48 / w), (long long)a, (long long)w);
  if (!ok_shape) {
    char *p = tsl_print_module(tsl_schedule_module(sch));
    tap_diag("%s", p);
    free(p);
  }
  tsl_equiv_report rep;
  tsl_diag d = {0};
  int rc = tsl_interp_check_equivalent(mod->funcs[0], tsl_schedule_func(sch), NULL, 0, 5, &rep,
                                       &d);
  ok(rc == TSL_OK && rep.n_mismatched == 0, "%s: the program computes the original's values",
     what);
  if (rc)
    tap_diag("%s", d.text);
}

/* Two traces with equal instructions (tsl_sv_equal on every argument). */
static int traces_equal(const tsl_trace *x, const tsl_trace *y) {
  if (tsl_trace_len(x) != tsl_trace_len(y))
    return 0;
  for (uint32_t i = 0; i < tsl_trace_len(x); i++) {
    const tsl_trace_inst *a = tsl_trace_get(x, i), *b = tsl_trace_get(y, i);
    if (a->kind != b->kind || a->n_args != b->n_args || !tsl_sv_equal(&a->decision, &b->decision))
      return 0;
    for (uint32_t k = 0; k < a->n_args; k++)
      if (!tsl_sv_equal(&a->args[k], &b->args[k]))
        return 0;
  }
  return 1;
}

static void expect_trace(const tsl_schedule *sch, const char *want, const char *what) {
  char *t = sch ? tsl_trace_to_script(tsl_schedule_trace(sch), 1) : strdup("<no schedule>");
  ok(!strcmp(t, want), "%s", what);
  if (strcmp(t, want))
    tap_diag("got:\n%swant:\n%s", t, want);
  free(t);
}

/* ---- the same schedule through the C API ---------------------------------- */

static const tsl_expr *mul(tsl_arena *a, const tsl_var *x, const tsl_var *y) {
  return tsl_expr_binary(a, TSL_EXPR_MUL, tsl_expr_var(x), tsl_expr_var(y));
}

static tsl_schedule *build_with_api(tsl_arena *ar) {
  tsl_schedule *sch = new_schedule();
  tsl_diag d = {0};
  tsl_sch_rv b;
  const tsl_sch_rv *loops, *ti, *tj;
  uint32_t n, ni, nj;
  tsl_sch_value di[3] = {tsl_sv_int(2), tsl_sv_int(4), tsl_sv_int(8)};
  tsl_sch_value dj[2] = {tsl_sv_int(3), tsl_sv_int(16)};
  if (tsl_sch_get_block(sch, "B", &b, &d) || tsl_sch_get_loops(sch, b, &loops, &n, &d))
    goto fail;
  tsl_sch_rv l0 = loops[0], l1 = loops[1];
  tsl_sch_arg ai[4] = {{NULL, tsl_sv_rv(l0)}, {"n", tsl_sv_int(3)},
                       {"max_innermost_factor", tsl_sv_int(64)}, {"decision", tsl_sv_list(3, di)}};
  if (tsl_sch_call(sch, "sample_perfect_tile", 4, ai, &ti, &ni, &d))
    goto fail;
  tsl_sch_arg aj[4] = {{NULL, tsl_sv_rv(l1)}, {"n", tsl_sv_int(2)},
                       {"max_innermost_factor", tsl_sv_int(64)}, {"decision", tsl_sv_list(2, dj)}};
  if (tsl_sch_call(sch, "sample_perfect_tile", 4, aj, &tj, &nj, &d))
    goto fail;
  const tsl_var *a1 = tsl_schedule_rv_var(sch, ti[1]), *a2 = tsl_schedule_rv_var(sch, ti[2]);
  const tsl_var *w1 = tsl_schedule_rv_var(sch, tj[1]);
  const tsl_var *x = tsl_var_new(ar, "x", TSL_INT32), *y = tsl_var_new(ar, "y", TSL_INT32);
  const tsl_expr *inner = mul(ar, a1, a2);
  tsl_sch_value *items = TSL_NEW_ARRAY(ar, tsl_sch_value, 4);
  items[0] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORDIV, tsl_expr_var(x), inner));
  items[1] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORDIV, tsl_expr_var(y), tsl_expr_var(w1)));
  items[2] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORMOD, tsl_expr_var(x), inner));
  items[3] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORMOD, tsl_expr_var(y), tsl_expr_var(w1)));
  const tsl_var **ps = TSL_NEW_ARRAY(ar, const tsl_var *, 2);
  ps[0] = x;
  ps[1] = y;
  tsl_sch_lambda *l = TSL_NEW(ar, tsl_sch_lambda);
  l->n_params = 2;
  l->params = ps;
  l->body = tsl_sv_tuple(4, items);
  tsl_sch_value buf[2] = {tsl_sv_str(tsl_intern(ctx, "write")), tsl_sv_int(0)};
  tsl_sch_arg at[3] = {{NULL, tsl_sv_rv(b)}, {NULL, tsl_sv_tuple(2, buf)},
                       {"index_map", tsl_sv_lambda(l)}};
  if (tsl_sch_call(sch, "transform_layout", 3, at, NULL, NULL, &d))
    goto fail;
  return sch;
fail:
  tap_diag("%s", d.text);
  tsl_schedule_free(sch);
  return NULL;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_rv_var(void) {
  tsl_diag d = {0};
  tsl_schedule *sch = run_script(script, &d);
  if (!ok(sch != NULL, "the script runs")) {
    tap_diag("%s", d.text);
    return;
  }
  const tsl_trace_inst *si = tsl_trace_get(tsl_schedule_trace(sch), 2);
  const tsl_var *v = tsl_schedule_rv_var(sch, si->outs[1]);
  ok(v && !strcmp(v->name, "v4") && tsl_dtype_eq(v->dtype, TSL_INT32),
     "an expression RV's variable is the int32 v4");
  ok(v && tsl_schedule_rv_var(sch, si->outs[1]) == v, "the same variable when asked again");
  ok(tsl_schedule_rv_var(sch, 0) == NULL, "a block handle has no variable");
  ok(tsl_schedule_rv_var(sch, 1) == NULL, "a loop handle has no variable");
  ok(tsl_schedule_rv_var(sch, 999) == NULL, "an unknown handle has no variable");
  tsl_schedule *f = NULL;
  tsl_schedule_fork(sch, &f, &d);
  ok(f && tsl_schedule_rv_var(f, si->outs[1]) == v, "a fork shares the variable");
  tsl_schedule_free(f);
  tsl_schedule *u = run_script("s = sch.fork_seed()\n", &d);
  ok(u && tsl_schedule_rv_kind(u, 0) == TSL_RV_EXPR && tsl_schedule_rv_var(u, 0) == NULL,
     "an untraced value (fork_seed) has no variable");
  tsl_schedule_free(u);
  tsl_schedule_free(sch);
}

static void test_script_and_api(void) {
  tsl_arena *ar = tsl_arena_new(ctx);
  tsl_diag d = {0};
  tsl_schedule *s1 = run_script(script, &d);
  if (!s1)
    tap_diag("%s", d.text);
  expect_trace(s1, want_trace, "script: the trace names the sampled values in the lambda");
  tsl_schedule *s2 = build_with_api(ar);
  expect_trace(s2, want_trace, "C API: the same trace through tsl_schedule_rv_var");
  if (s1)
    check_layout(s1, "script");
  if (s2)
    check_layout(s2, "C API");
  ok(s1 && s2 && traces_equal(tsl_schedule_trace(s1), tsl_schedule_trace(s2)),
     "the two traces are equal (tsl_sv_equal)");
  ok(s1 && s2 && tsl_module_equal(tsl_schedule_module(s1), tsl_schedule_module(s2), NULL, 0),
     "the two programs are equal");
  if (s1) {
    tsl_trace *c = tsl_trace_copy(tsl_schedule_trace(s1));
    ok(traces_equal(c, tsl_schedule_trace(s1)), "a deep copy of the trace is equal to it");
    tsl_trace *simple = tsl_trace_simplified(c);
    ok(simple && tsl_trace_len(simple) == 5,
       "simplifying keeps the samples the lambda uses (%u instructions)",
       simple ? tsl_trace_len(simple) : 0);
    tsl_trace_free(simple);
    tsl_sch_value nothing = tsl_sv_lambda(tsl_trace_get(c, 4)->args[2].u.lambda);
    ok(tsl_trace_set_arg(c, 4, 2, &nothing, &d) == TSL_EINVALID &&
           strstr(d.text, "refers to random variables"),
       "tsl_trace_set_arg refuses a lambda over sampled values");
    tsl_trace_free(c);
  }
  tsl_schedule_free(s1);
  tsl_schedule_free(s2);
  tsl_arena_free(ar);
}

static void test_round_trips(void) {
  tsl_diag d = {0};
  tsl_schedule *sch = run_script(script, &d);
  if (!ok(sch != NULL, "the script runs")) {
    tap_diag("%s", d.text);
    return;
  }
  const tsl_trace *t = tsl_schedule_trace(sch);
  /* printed script -> trace */
  char *text = tsl_trace_to_script(t, 1);
  tsl_schedule *back = run_script(text, &d);
  if (!back)
    tap_diag("%s", d.text);
  expect_trace(back, text, "the printed trace runs as a script and prints the same");
  ok(back && traces_equal(t, tsl_schedule_trace(back)), "the printed trace parses back equal");
  ok(back && tsl_module_equal(tsl_schedule_module(sch), tsl_schedule_module(back), NULL, 0),
     "and gives the same program");
  tsl_schedule_free(back);
  /* JSON */
  char *js = tsl_trace_to_json(t);
  ok(js && strstr(js, "\"lambda\":\"lambda x, y: (x // (v4 * v5), y // v7, x % (v4 * v5), "
                      "y % v7)\""),
     "JSON holds the lambda with the RV names");
  tsl_trace *jt = NULL;
  int rc = tsl_trace_from_json(ctx, js, &jt, &d);
  ok(rc == TSL_OK && traces_equal(t, jt), "JSON reads back to an equal trace");
  if (rc)
    tap_diag("%s", d.text);
  char *jtext = jt ? tsl_trace_to_script(jt, 1) : strdup("");
  ok(!strcmp(jtext, text), "and prints the same script");
  free(jtext);
  /* replays */
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  tsl_schedule *r = NULL;
  rc = jt ? tsl_trace_replay(ctx, jt, mod, &ro, &r, &d) : TSL_EINVALID;
  ok(rc == TSL_OK && r && tsl_module_equal(tsl_schedule_module(sch), tsl_schedule_module(r),
                                           NULL, 0),
     "the JSON trace replays to the same program");
  tsl_schedule_free(r);
  r = NULL;
  /* a mutated decision: the layout follows the new values */
  tsl_sch_value di[3] = {tsl_sv_int(4), tsl_sv_int(2), tsl_sv_int(8)};
  tsl_sch_value dj[2] = {tsl_sv_int(6), tsl_sv_int(8)};
  tsl_sch_value deci = tsl_sv_list(3, di), decj = tsl_sv_list(2, dj);
  rc = jt ? tsl_trace_set_decision(jt, 2, &deci, &d) : TSL_EINVALID;
  if (!rc)
    rc = tsl_trace_set_decision(jt, 3, &decj, &d);
  if (!rc)
    rc = tsl_trace_replay(ctx, jt, mod, &ro, &r, &d);
  if (!ok(rc == TSL_OK, "a trace with other decisions replays"))
    tap_diag("%s", d.text);
  int64_t s[4];
  ok(r && b_shape(r, s) && s[0] == 4 && s[1] == 6 && s[2] == 16 && s[3] == 8,
     "the replayed layout is (4, 6, 16, 8): the new values, not the recorded ones");
  if (r) {
    check_layout(r, "replay with other decisions");
    char *rt = tsl_trace_to_script(tsl_schedule_trace(r), 0);
    ok(strstr(rt, "index_map=lambda x, y: (x // (v4 * v5), y // v7, x % (v4 * v5), y % v7)") != NULL,
       "the replayed trace still names the RVs");
    free(rt);
  }
  tsl_schedule_free(r);
  /* fresh decisions: each replay laid out by its own values */
  int differ = 0;
  for (uint64_t seed = 1; seed <= 6; seed++) {
    tsl_replay_opts fo = {sizeof fo, 1, seed, NULL, NULL};
    tsl_schedule *x = NULL;
    if (tsl_trace_replay(ctx, t, mod, &fo, &x, &d)) {
      ok(0, "fresh replay with seed %llu: %s", (unsigned long long)seed, d.text);
      continue;
    }
    char what[64];
    snprintf(what, sizeof what, "fresh decisions, seed %llu", (unsigned long long)seed);
    check_layout(x, what);
    int64_t xs[4], os[4];
    if (b_shape(x, xs) && b_shape(sch, os) && memcmp(xs, os, sizeof xs))
      differ = 1;
    tsl_schedule_free(x);
  }
  ok(differ, "some fresh decisions give another layout than the recorded ones");
  tsl_trace_free(jt);
  free(js);
  free(text);
  tsl_schedule_free(sch);
}

static void test_constants_and_errors(void) {
  tsl_diag d = {0};
  tsl_schedule *sch = run_script("b = sch.get_block(\"B\")\n"
                                 "f = 16\n"
                                 "sch.transform_layout(b, (\"write\", 0), "
                                 "lambda x, y: (x // f, y, x % f))\n",
                                 &d);
  if (!sch)
    tap_diag("%s", d.text);
  char *t = sch ? tsl_trace_to_script(tsl_schedule_trace(sch), 0) : strdup("");
  ok(strstr(t, "index_map=lambda x, y: (x // 16, y, x % 16)") != NULL,
     "a name bound to an int is a constant in the lambda");
  free(t);
  tsl_schedule_free(sch);

  /* pad_value lambdas go through the same path */
  sch = run_script("b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\n"
                   "p, q = sch.sample_perfect_tile(i, n=2, decision=[4, 16])\n"
                   "sch.transform_layout(b, (\"write\", 0), lambda x, y: (x, y), "
                   "pad_value=lambda x, y: T.Cast(\"float32\", q))\n",
                   &d);
  if (!sch)
    tap_diag("%s", d.text);
  t = sch ? tsl_trace_to_script(tsl_schedule_trace(sch), 0) : strdup("");
  ok(strstr(t, "pad_value=lambda x, y: T.Cast(\"float32\", v4)") != NULL,
     "a pad_value lambda names the sampled value too");
  free(t);
  tsl_schedule_free(sch);

  /* a parameter named as the sampled value the body uses */
  sch = run_script("b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\n"
                   "p, q = sch.sample_perfect_tile(i, n=2, decision=[4, 16])\n"
                   "sch.transform_layout(b, (\"write\", 0), lambda v4, y: (v4 // q, y))\n",
                   &d);
  ok(!sch && strstr(d.text, "a parameter of the lambda is named 'v4'"),
     "a parameter that would print as the sampled value is refused");
  if (sch || !strstr(d.text, "named 'v4'"))
    tap_diag("got: %s", d.text);
  tsl_schedule_free(sch);

  /* variables that are not this schedule's sampled values */
  tsl_arena *ar = tsl_arena_new(ctx);
  sch = run_script("b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\n"
                   "p, q = sch.sample_perfect_tile(i, n=2, decision=[4, 16])\n",
                   &d);
  tsl_schedule *other = run_script("b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\n"
                                   "p, q = sch.sample_perfect_tile(i, n=2, decision=[4, 16])\n",
                                   &d);
  const tsl_var *x = tsl_var_new(ar, "x", TSL_INT32);
  const tsl_var *strangers[3] = {tsl_var_new(ar, "k", TSL_INT32), tsl_schedule_rv_var(other, 4),
                                 tsl_var_new(ar, "v4", TSL_INT32)};
  const char *what[3] = {"a free variable", "another schedule's sampled value",
                         "a variable named like a sampled value"};
  for (int k = 0; k < 3; k++) {
    tsl_sch_value *items = TSL_NEW_ARRAY(ar, tsl_sch_value, 2);
    items[0] = tsl_sv_expr(tsl_expr_binary(ar, TSL_EXPR_FLOORDIV, tsl_expr_var(x),
                                           tsl_expr_var(strangers[k])));
    items[1] = tsl_sv_expr(tsl_expr_var(x));
    tsl_sch_lambda *l = TSL_NEW(ar, tsl_sch_lambda);
    l->n_params = 1;
    l->params = &x;
    l->body = tsl_sv_tuple(2, items);
    tsl_sch_value buf[2] = {tsl_sv_str(tsl_intern(ctx, "write")), tsl_sv_int(0)};
    tsl_sch_arg at[3] = {{NULL, tsl_sv_rv(0)}, {NULL, tsl_sv_tuple(2, buf)},
                         {"index_map", tsl_sv_lambda(l)}};
    uint32_t before = tsl_trace_len(tsl_schedule_trace(sch));
    int rc = tsl_sch_call(sch, "transform_layout", 3, at, NULL, NULL, &d);
    ok(rc == TSL_EINVALID && strstr(d.text, "neither one of its parameters nor a sampled value") &&
           tsl_trace_len(tsl_schedule_trace(sch)) == before,
       "refused: %s", what[k]);
    if (rc != TSL_EINVALID || !strstr(d.text, "neither"))
      tap_diag("got: %s", d.text);
  }
  /* a removed RV's variable */
  const tsl_var *q = tsl_schedule_rv_var(sch, 4);
  tsl_sch_arg rm = {NULL, tsl_sv_rv(4)};
  tsl_sch_call(sch, "remove_rv", 1, &rm, NULL, NULL, &d);
  ok(q && tsl_schedule_rv_var(sch, 4) == NULL, "a removed RV has no variable");
  tsl_schedule_free(other);
  tsl_schedule_free(sch);
  tsl_arena_free(ar);
}

int main(void) {
  ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  if (tsl_parse(arena, "prog.py", prog, strlen(prog), &mod, &d)) {
    ok(0, "program parses: %s", d.text);
    return tap_done();
  }
  test_rv_var();
  test_script_and_api();
  test_round_trips();
  test_constants_and_errors();
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
