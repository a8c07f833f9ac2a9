/*
 * Schedule scripts, argument binding, traces, JSON, replay and sampling,
 * tested through the public API (tessel/schedule.h) with query and
 * sampling instructions (no transformation needed).
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdlib.h>
#include <string.h>

static const char *prog =
    "@T.prim_func\n"
    "def main(A: T.Buffer((32, 48), \"float32\"), B: T.Buffer((32, 48), \"float32\"),\n"
    "         C: T.Buffer((32, 48), \"float32\")):\n"
    "    for i, j in T.grid(32, 48):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "    for i, j in T.grid(32, 48):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            C[vi, vj] = B[vi, vj] + T.float32(1)\n";

static tsl_ctx *ctx;
static const tsl_module *mod;

/* Run `script`; returns the status, and the diag text in *msg (static). */
static int run(const char *script, tsl_schedule **out, const char **msg) {
  static tsl_diag diag;
  memset(&diag, 0, sizeof diag);
  tsl_schedule_opts o = {sizeof o, NULL, 7, NULL};
  tsl_schedule *sch;
  int rc = tsl_schedule_new(ctx, mod, &o, &sch, &diag);
  if (!rc)
    rc = tsl_script_run(sch, "s.sch", script, strlen(script), &diag);
  if (msg)
    *msg = diag.text;
  if (out)
    *out = sch;
  else
    tsl_schedule_free(sch);
  return rc;
}

static void expect_error(const char *script, const char *needle, const char *what) {
  const char *msg;
  int rc = run(script, NULL, &msg);
  ok(rc != TSL_OK && strstr(msg, needle) != NULL, "error: %s", what);
  if (rc == TSL_OK || !strstr(msg, needle))
    tap_diag("wanted '%s' in:\n%s", needle, msg);
}

static char *trace_of(const char *script) {
  tsl_schedule *sch;
  const char *msg;
  if (run(script, &sch, &msg)) {
    tap_diag("%s", msg);
    return strdup("<error>");
  }
  char *t = tsl_trace_to_script(tsl_schedule_trace(sch), 1);
  tsl_schedule_free(sch);
  return t;
}

static void expect_trace(const char *script, const char *want, const char *what) {
  char *t = trace_of(script);
  ok(strcmp(t, want) == 0, "trace: %s", what);
  if (strcmp(t, want))
    tap_diag("got:\n%swant:\n%s", t, want);
  free(t);
}

static void test_syntax(void) {
  expect_error("b = sch.get_block(\"B\"\n", "s.sch:2:1: error: expected ')'", "unclosed call");
  expect_error("b = sch.get_block('B')\nx = y\n", "s.sch:2:5: error: name 'y' is not defined", "undefined name");
  expect_error("b = sch.get_block(\"B\") )\n", "expected the end of the statement", "stray paren");
  expect_error("sch.frobnicate(1)\n", "s.sch:1: error: the schedule has no method 'frobnicate' (TVM: AttributeError); its methods are: get_block", "unknown primitive");
  expect_error("b = sch.get_block(nam=\"B\")\n", "get_block: unexpected keyword argument 'nam'; valid: name, func_name", "unknown keyword");
  expect_error("b = sch.get_block(\"B\", name=\"C\")\n", "got multiple values for argument 'name'", "duplicate argument");
  expect_error("b = sch.get_block()\n", "missing required argument 'name'", "missing argument");
  expect_error("b = sch.get_block(3)\n", "argument 'name' must be a string, not an int", "wrong type");
  expect_error("b = sch.get_block(name=\"B\", \"main\")\n", "positional argument follows keyword argument", "positional after keyword");
  expect_error("b = sch.get_block(\"B\")\nl = sch.get_loops(b)\nx = l[5]\n", "s.sch:3:6: error: index 5 out of range for a list of 2", "index out of range");
  expect_error("b = sch.get_block(\"B\")\nx = b[0]\n", "only lists and tuples can be indexed", "indexing a handle");
  expect_error("b = sch.get_block(\"B\")\nl = sch.get_loops(b)\nsch.get_loops(l[0])\n", "get_loops: argument 'block' must be a block (handle or name), not loop 'i'", "loop where a block is expected");
  expect_error("x = sch.get_block(\"B\", 'unterminated)\n", "unterminated string", "unterminated string");
  expect_error("a, b = sch.get_block(\"B\")\n", "cannot unpack a single value into 2 names", "unpacking a single handle");
  expect_error("x = 1 $ 2\n", "unexpected '$'", "bad character");
  expect_error("b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\nv = sch.sample_perfect_tile(i, n=2, decision=[3, 11])\n",
               "s.sch:3: error: sample_perfect_tile: decision [3, 11] does not multiply to the extent 32 of loop 'i'", "bad decision");
  expect_error("v = sch.sample_categorical([1, 2], [0.5, 0.5], decision=2)\n", "decision 2 is out of range; valid: 0..1", "categorical decision range");
  expect_error("v = sch.sample_categorical([1, 2], [0, 0])\n", "the probabilities sum to 0", "zero probabilities");
}

static void test_forms(void) {
  const char *msg;
  tsl_schedule *sch;
  int rc = run("# comment line\n"
               "b = sch.get_block(\"C\")   # trailing comment\n"
               "(i, j) = sch.get_loops(b)\n"
               "[x, y] = sch.get_loops(block=b)\n"
               "last = sch.get_loops(b)[-1]\n"
               "first, = sch.get_loops(b)[:1]\n"
               "both = sch.get_loops(b)[0:2]\n"
               "p, = sch.get_producers(\"C\")\n"
               "c, = sch.get_consumers(block=p)\n"
               "kids = sch.get_child_blocks(i)\n"
               "v = sch.sample_categorical(\n"
               "    candidates=[4, 8, 16],\n"
               "    probs=[1, 0, 0],\n"
               ")\n"
               "t = sch.sample_perfect_tile(loop=j, n=3, max_innermost_factor=4)\n"
               "sch.enter_postproc()\n",
               &sch, &msg);
  ok(rc == TSL_OK, "every statement form runs");
  if (rc) {
    tap_diag("%s", msg);
    tsl_schedule_free(sch);
    return;
  }
  const tsl_trace *t = tsl_schedule_trace(sch);
  /* get_block C, 5x get_loops, get_block C (by name), producers, consumers,
   * child blocks, categorical, perfect tile, enter_postproc */
  ok(tsl_trace_len(t) == 13, "13 instructions recorded (got %u)", tsl_trace_len(t));
  const tsl_trace_inst *cat = tsl_trace_get(t, 10);
  ok(cat && !strcmp(cat->kind->name, "sample_categorical") &&
         cat->decision.kind == TSL_SV_INT && cat->decision.u.i == 0,
     "probability 1 on the first candidate gives decision 0");
  ok(cat && tsl_schedule_rv_value(sch, cat->outs[0]) == 4, "sampled value is the candidate 4");
  const tsl_trace_inst *pt = tsl_trace_get(t, 11);
  int64_t prod = 1;
  for (uint32_t k = 0; pt && k < pt->n_outs; k++)
    prod *= tsl_schedule_rv_value(sch, pt->outs[k]);
  ok(pt && pt->n_outs == 3 && prod == 48 && tsl_schedule_rv_value(sch, pt->outs[2]) <= 4,
     "perfect tile of 48 into 3 factors, innermost <= 4");
  const tsl_trace_inst *prodi = tsl_trace_get(t, 7);
  ok(prodi && prodi->n_outs == 1 && !strcmp(tsl_schedule_rv_name(sch, prodi->outs[0]), "B"),
     "producer of C is B");
  const tsl_trace_inst *kids = tsl_trace_get(t, 9);
  ok(kids && !strcmp(kids->kind->name, "get_child_blocks") && kids->n_outs == 1 &&
         !strcmp(tsl_schedule_rv_name(sch, kids->outs[0]), "C"),
     "child blocks of C's loop i: C");
  tsl_trace *simple = tsl_trace_simplified(t);
  /* live: enter_postproc only (queries and samples are dead) */
  ok(simple && tsl_trace_len(simple) == 1, "simplified trace keeps only live instructions (%u)",
     simple ? tsl_trace_len(simple) : 0);
  tsl_trace_free(simple);
  tsl_schedule_free(sch);
}

/* TVM's printed trace (str(sch.trace)) pasted as it is: the def line,
 * the body indented by two spaces. */
static void test_apply_trace(void) {
  const char *tvm =
      "# from tvm import tir\n"
      "def apply_trace(sch: tir.Schedule) -> None:\n"
      "  b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
      "  l1, l2 = sch.get_loops(block=b0)\n"
      "  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, decision=[6, 8])\n"
      "  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)\n"
      "  sch.vectorize(loop=l6)\n";
  const char *plain =
      "b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
      "l1, l2 = sch.get_loops(block=b0)\n"
      "v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, decision=[6, 8])\n"
      "l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)\n"
      "sch.vectorize(loop=l6)\n";
  char *a = trace_of(tvm), *b = trace_of(plain);
  ok(strcmp(a, b) == 0 && strstr(a, "sch.vectorize"),
     "TVM's printed trace (def apply_trace(sch: tir.Schedule) -> None: and its body) runs as "
     "its body alone does");
  if (strcmp(a, b))
    tap_diag("got:\n%swant:\n%s", a, b);
  free(a);
  free(b);
  char *c = trace_of("def apply_trace(sch):\n    b0 = sch.get_block(\"C\")\n");
  ok(strstr(c, "get_block") != NULL, "  ... so does def apply_trace(sch): without annotations");
  free(c);
  tsl_schedule *sch;
  const char *msg;
  int rc = run("# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n  pass", &sch,
               &msg);
  ok(rc == TSL_OK && tsl_trace_len(tsl_schedule_trace(sch)) == 0,
     "  ... and an empty trace as TVM prints it (its body: pass, no final newline)");
  if (rc)
    tap_diag("%s", msg);
  tsl_schedule_free(sch);
  expect_error("def apply_trace(s: tir.Schedule) -> None:\n  b0 = s.get_block(\"C\")\n",
               "s.sch:1:17: error: the function's parameter must be 'sch'", "another parameter name");
  expect_error("def apply_trace(sch) -> None:\n  b0 = sch.get_block(\"C\")\nb1 = sch.get_block(\"B\")\n",
               "s.sch:3:1: error: expected an indented statement (the body of the function above)",
               "a statement after the body");
  expect_error("b = sch.get_block(\"C\")\ndef apply_trace(sch):\n  pass\n",
               "s.sch:2:1: error: one function per script, before any statement", "def after a statement");
  expect_error("def apply_trace(sch) -> int:\n  b0 = sch.get_block(\"C\")\n",
               "a schedule function returns None", "another return annotation");
}

static void test_printing(void) {
  expect_trace("b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\n"
               "v = sch.sample_perfect_tile(j, 2, 16, decision=[3, 16])\n"
               "w = sch.sample_categorical([1, 2], [0.25, 0.75], decision=1)\n",
               "b0 = sch.get_block(name=\"B\", func_name=\"main\")\n"
               "l1, l2 = sch.get_loops(block=b0)\n"
               "v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, decision=[3, 16])\n"
               "v5 = sch.sample_categorical(candidates=[1, 2], probs=[0.25, 0.75], decision=1)\n",
               "TVM's trace form");
  expect_trace("x, = sch.get_producers(\"C\")\n",
               "b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
               "b1, = sch.get_producers(block=b0)\n",
               "a block name becomes get_block; one-element list unpacking");
  /* printing a trace without decisions, then running it, samples afresh */
  tsl_schedule *sch;
  run("b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\nv = sch.sample_perfect_tile(j, n=2, decision=[3, 16])\n",
      &sch, NULL);
  char *nodec = tsl_trace_to_script(tsl_schedule_trace(sch), 0);
  ok(strstr(nodec, "decision") == NULL && strstr(nodec, "sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16)"),
     "without decisions the sample line has no decision=");
  free(nodec);
  tsl_schedule_free(sch);
}

static void test_json_and_replay(void) {
  tsl_schedule *sch;
  const char *msg;
  int rc = run("b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\n"
               "v = sch.sample_perfect_tile(j, n=3, max_innermost_factor=8)\n"
               "w = sch.sample_categorical([7, 9], [0.5, 0.5])\n",
               &sch, &msg);
  ok(rc == TSL_OK, "sampling script runs");
  const tsl_trace *t = tsl_schedule_trace(sch);
  char *js = tsl_trace_to_json(t);
  ok(strstr(js, "\"kind\":\"sample_perfect_tile\"") && strstr(js, "\"decisions\":[[2,["),
     "JSON lists instructions and decisions");
  tsl_diag d = {0};
  tsl_trace *back = NULL;
  rc = tsl_trace_from_json(ctx, js, &back, &d);
  ok(rc == TSL_OK, "JSON parses back");
  char *a = tsl_trace_to_script(t, 1), *b = back ? tsl_trace_to_script(back, 1) : strdup("");
  ok(!strcmp(a, b), "JSON round trip prints the same script");
  free(b);

  /* replay with recorded decisions: same sampled values */
  tsl_schedule *r = NULL;
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  rc = tsl_trace_replay(ctx, back, mod, &ro, &r, &d);
  char *c = r ? tsl_trace_to_script(tsl_schedule_trace(r), 1) : strdup("");
  ok(rc == TSL_OK && !strcmp(a, c), "replay with recorded decisions reproduces the trace");
  free(c);
  tsl_schedule_free(r);

  /* replaced decision */
  tsl_sch_value items[3] = {tsl_sv_int(2), tsl_sv_int(3), tsl_sv_int(8)};
  tsl_sch_value dec = tsl_sv_list(3, items);
  rc = tsl_trace_set_decision(back, 2, &dec, &d);
  ok(rc == TSL_OK, "decision of instruction 2 replaced");
  rc = tsl_trace_replay(ctx, back, mod, &ro, &r, &d);
  const tsl_trace_inst *in = r ? tsl_trace_get(tsl_schedule_trace(r), 2) : NULL;
  ok(rc == TSL_OK && in && tsl_schedule_rv_value(r, in->outs[0]) == 2 &&
         tsl_schedule_rv_value(r, in->outs[2]) == 8,
     "replay uses the replaced decision");
  tsl_schedule_free(r);
  tsl_sch_value bad = tsl_sv_int(3);
  ok(tsl_trace_set_decision(back, 2, &bad, &d) == TSL_EINVALID &&
         strstr(d.text, "must be a list of ints"),
     "a decision of the wrong shape is refused");
  ok(tsl_trace_set_decision(back, 0, &bad, &d) == TSL_EINVALID && strstr(d.text, "has no decision"),
     "a non-sampling instruction has no decision");
  items[0] = tsl_sv_int(5);
  tsl_trace_set_decision(back, 2, &dec, &d);
  rc = tsl_trace_replay(ctx, back, mod, &ro, &r, &d);
  ok(rc == TSL_EINVALID && strstr(d.text, "instruction 2 (sample_perfect_tile): sample_perfect_tile: decision [5, 3, 8] does not multiply"),
     "replay of an impossible decision fails naming the instruction");

  /* fresh decisions: deterministic per seed, and seeds differ */
  char *s1 = NULL, *s2 = NULL, *s3 = NULL;
  int differ = 0;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    tsl_replay_opts fo = {sizeof fo, 1, seed, NULL, NULL};
    tsl_schedule *x = NULL, *y = NULL;
    tsl_trace_replay(ctx, t, mod, &fo, &x, &d);
    tsl_trace_replay(ctx, t, mod, &fo, &y, &d);
    free(s1);
    free(s2);
    s1 = tsl_trace_to_script(tsl_schedule_trace(x), 1);
    s2 = tsl_trace_to_script(tsl_schedule_trace(y), 1);
    if (strcmp(s1, s2))
      break;
    if (s3 && strcmp(s3, s1))
      differ = 1;
    free(s3);
    s3 = strdup(s1);
    tsl_schedule_free(x);
    tsl_schedule_free(y);
  }
  ok(s1 && s2 && !strcmp(s1, s2), "same seed, same fresh decisions");
  ok(differ, "different seeds give different decisions");
  free(s1);
  free(s2);
  free(s3);
  free(a);
  free(js);
  tsl_trace_free(back);
  tsl_schedule_free(sch);

  const char *bad_json[][2] = {
      {"{", "trace JSON:1:"},
      {"{\"insts\": 3}", "expected {\"insts\""},
      {"{\"insts\": [{\"kind\": \"nope\", \"inputs\": [], \"attrs\": [], \"outputs\": []}]}", "unknown instruction 'nope'"},
      {"{\"insts\": [{\"kind\": \"get_loops\", \"inputs\": [\"b0\"], \"attrs\": [], \"outputs\": []}]}", "handle 'b0' is not an output of an earlier instruction"},
      {"{\"insts\": [{\"kind\": \"get_block\", \"inputs\": [], \"attrs\": [\"B\", null], \"outputs\": [\"b0\"]}]}", "'B' is not a handle"},
      {"{\"insts\": [{\"kind\": \"get_block\", \"inputs\": [], \"attrs\": [{\"str\": \"B\"}], \"outputs\": [\"b0\"]}]}", "missing (attrs too short)"},
      {"{\"insts\": [{\"kind\": \"get_block\", \"inputs\": [], \"attrs\": [{\"str\": \"B\"}, null], \"outputs\": [\"l0\"]}]}", "wrong kind"},
      {"{\"insts\": [], \"decisions\": [[4, 1]]}", "names instruction 4; the trace has 0"},
  };
  for (size_t i = 0; i < sizeof bad_json / sizeof bad_json[0]; i++) {
    tsl_trace *x = NULL;
    memset(&d, 0, sizeof d);
    rc = tsl_trace_from_json(ctx, bad_json[i][0], &x, &d);
    ok(rc != TSL_OK && !x && strstr(d.text, bad_json[i][1]), "bad JSON %zu: %s", i, bad_json[i][1]);
    if (rc == TSL_OK || !strstr(d.text, bad_json[i][1]))
      tap_diag("got: %s", d.text);
    tsl_trace_free(x);
  }
}

static void test_api(void) {
  tsl_schedule *sch;
  tsl_diag d = {0};
  tsl_schedule_new(ctx, mod, NULL, &sch, &d);
  tsl_sch_rv b;
  ok(tsl_sch_get_block(sch, "C", &b, &d) == TSL_OK && tsl_schedule_rv_kind(sch, b) == TSL_RV_BLOCK,
     "tsl_sch_get_block");
  const tsl_sch_rv *loops;
  uint32_t n;
  ok(tsl_sch_get_loops(sch, b, &loops, &n, &d) == TSL_OK && n == 2 &&
         !strcmp(tsl_schedule_rv_name(sch, loops[1]), "j"),
     "tsl_sch_get_loops");
  uint32_t before = tsl_trace_len(tsl_schedule_trace(sch));
  const tsl_module *m0 = tsl_schedule_module(sch);
  tsl_sch_arg args[1] = {{NULL, tsl_sv_str(tsl_intern(ctx, "nope"))}};
  ok(tsl_sch_call(sch, "get_block", 1, args, NULL, NULL, &d) == TSL_ENOTFOUND,
     "failing call returns TSL_ENOTFOUND");
  ok(tsl_trace_len(tsl_schedule_trace(sch)) == before && tsl_schedule_module(sch) == m0,
     "a failing call records nothing and keeps the module");
  uint32_t nk;
  const tsl_sch_inst_kind *const *kinds = tsl_sch_inst_kinds(&nk);
  ok(nk >= 30 && tsl_sch_inst_kind_find("rfactor") && kinds[0], "instruction table lists %u kinds", nk);
  tsl_schedule_opts bad = {sizeof bad, "nofunc", 0, NULL};
  tsl_schedule *x = NULL;
  ok(tsl_schedule_new(ctx, mod, &bad, &x, &d) == TSL_ENOTFOUND && !x && strstr(d.text, "main"),
     "unknown default function is refused, naming the functions");
  uint64_t s1 = tsl_schedule_fork_seed(sch), s2 = tsl_schedule_fork_seed(sch);
  ok(s1 != s2, "fork seeds differ");
  tsl_schedule_free(sch);
}

/* The oracle behind --check and the golden harness must see differences. */
static void test_equivalence_oracle(void) {
  const char *fmt =
      "@T.prim_func\n"
      "def main(A: T.Buffer((8, 8), \"%s\"), B: T.Buffer((8, 8), \"%s\")):\n"
      "    for i, j in T.grid(8, 8):\n"
      "        with T.block(\"B\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            B[vi, vj] = A[vi, vj] * %s\n";
  struct { const char *dt, *k1, *k2; int same; } cases[] = {
      {"float32", "T.float32(2)", "T.float32(2)", 1},
      {"float32", "T.float32(2)", "T.float32(2.00001)", 1},  /* within 1e-4 */
      {"float32", "T.float32(2)", "T.float32(2.01)", 0},
      {"int32", "2", "2", 1},
      {"int32", "2", "3", 0},
  };
  tsl_arena *ar = tsl_arena_new(ctx);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char s1[1024], s2[1024];
    snprintf(s1, sizeof s1, fmt, cases[c].dt, cases[c].dt, cases[c].k1);
    snprintf(s2, sizeof s2, fmt, cases[c].dt, cases[c].dt, cases[c].k2);
    const tsl_module *m1, *m2;
    tsl_diag d = {0};
    if (tsl_parse(ar, "a", s1, strlen(s1), &m1, &d) || tsl_parse(ar, "b", s2, strlen(s2), &m2, &d)) {
      ok(0, "oracle case %zu parses: %s", c, d.text);
      continue;
    }
    tsl_equiv_report rep;
    int rc = tsl_interp_check_equivalent(m1->funcs[0], m2->funcs[0], NULL, 0, 3, &rep, &d);
    ok(cases[c].same ? rc == TSL_OK && rep.n_mismatched == 0
                     : rc == TSL_EINVALID && rep.n_mismatched > 0 && strstr(d.text, "buffer B differs at ["),
       "oracle: %s %s vs %s is %s (%lld mismatched)", cases[c].dt, cases[c].k1, cases[c].k2,
       cases[c].same ? "equal" : "different", (long long)rep.n_mismatched);
  }
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
  test_syntax();
  test_forms();
  test_apply_trace();
  test_printing();
  test_json_and_replay();
  test_api();
  test_equivalence_oracle();
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
