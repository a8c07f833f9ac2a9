/*
 * Instruction values beyond numbers and handles: tuples, dicts, T.
 * expressions and lambdas — read from schedule-script text, printed back in
 * TVM's trace form, compared, deep-copied, carried through trace JSON, and
 * refused with located messages when malformed. Links the schedule library
 * statically to reach the value readers (values.c).
 */
#include "sch_internal.h"
#include "tap.h"
#include "tessel/tessel.h"

#include <stdlib.h>
#include <string.h>

static tsl_ctx *ctx;

static char *print_value(const tsl_sch_value *v) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  sch_value_print(&sb, v, NULL, 0);
  return tsl_strbuf_take(&sb);
}

static int lookup_j(void *ud, const char *name, size_t len, int64_t *value,
                    const tsl_var **var) {
  (void)ud;
  if (len == 2 && !memcmp(name, "j1", 2)) {
    *value = 8;
    *var = NULL;
    return 1;
  }
  return 0;
}

/* Read a lambda and check how it prints back. */
static void lambda_case(const char *text, const char *want, const char *what) {
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  tsl_sch_value v;
  sch_name_lookup lk = {lookup_j, NULL};
  int rc = sch_parse_lambda_text(a, "s.sch", 3, 10, text, strlen(text), &lk, &v, &d);
  if (!ok(rc == TSL_OK && v.kind == TSL_SV_LAMBDA, "lambda: %s", what)) {
    tap_diag("%s", d.text);
  } else {
    char *p = print_value(&v);
    is_str(p, want, "lambda prints back: %s", what);
    free(p);
  }
  tsl_arena_free(a);
}

static void lambda_error(const char *text, const char *needle, const char *what) {
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  tsl_sch_value v;
  int rc = sch_parse_lambda_text(a, "s.sch", 3, 10, text, strlen(text), NULL, &v, &d);
  ok(rc != TSL_OK && strstr(d.text, needle), "lambda refused: %s", what);
  if (rc == TSL_OK || !strstr(d.text, needle))
    tap_diag("wanted '%s' in:\n%s", needle, d.text);
  tsl_arena_free(a);
}

static void lambdas(void) {
  lambda_case("lambda i, j: (j, i)", "lambda i, j: (j, i)", "a transpose");
  lambda_case("lambda i: [i // 4, i % 4]", "lambda i: [i // 4, i % 4]", "a list body");
  lambda_case("lambda i, j: (i * 128 + j,)", "lambda i, j: (i * 128 + j,)",
              "a one-tuple keeps its comma");
  lambda_case("lambda i, j: j * 2", "lambda i, j: j * 2", "a bare expression body");
  lambda_case("lambda vi, vj: ((vi - 1, vi + 1), vj)",
              "lambda vi, vj: ((vi - 1, vi + 1), vj)", "nested range tuples");
  lambda_case("lambda i, j: (i, j // (j1 * 2))", "lambda i, j: (i, j // (8 * 2))",
              "a script name holding an int becomes its value");
  lambda_case("lambda  i ,j :  T.if_then_else(i < 4, j, 0)",
              "lambda i, j: T.if_then_else(i < 4, j, 0)", "T. calls and odd spacing");
  lambda_error("lambda i, i: i", "duplicate lambda parameter 'i'", "duplicate parameter");
  lambda_error("lambda i: k + 1", "s.sch:3:20", "an unknown name is located");
  lambda_error("lambda i j: i", "expected ',' or ':' after lambda parameter 'i'", "missing comma");
  lambda_error("lambda i:", "has no body", "empty body");
  lambda_error("lambda 3: i", "expected a parameter name", "a number as a parameter");
}

static void equality_and_copy(void) {
  tsl_arena *a = tsl_arena_new(ctx), *b = tsl_arena_new(ctx);
  tsl_diag d;
  tsl_sch_value x, y, z;
  const char *t1 = "lambda i, j: (j, i // 2)", *t2 = "lambda m, n: (n, m // 2)",
             *t3 = "lambda i, j: (i, j // 2)";
  sch_parse_lambda_text(a, "x", 1, 1, t1, strlen(t1), NULL, &x, &d);
  sch_parse_lambda_text(a, "y", 1, 1, t2, strlen(t2), NULL, &y, &d);
  sch_parse_lambda_text(a, "z", 1, 1, t3, strlen(t3), NULL, &z, &d);
  ok(tsl_sv_equal(&x, &y), "lambdas equal up to parameter names");
  ok(!tsl_sv_equal(&x, &z), "lambdas with swapped results differ");
  tsl_sch_value c = sch_value_copy(b, &x);
  ok(tsl_sv_equal(&x, &c) && c.u.lambda->params[0] != x.u.lambda->params[0],
     "a deep copy is equal and has its own parameters");
  tsl_arena_free(a);
  char *p = print_value(&c);
  is_str(p, "lambda i, j: (j, i // 2)", "the copy outlives the original's arena");
  free(p);
  tsl_arena_free(b);
}

static void exprs(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  tsl_sch_value v;
  const char *t = "T.float32(0)";
  int rc = sch_parse_expr_text(a, "s.sch", 1, 1, t, strlen(t), NULL, &v, &d);
  ok(rc == TSL_OK && v.kind == TSL_SV_FLOAT, "T.float32(0) reads as a float");
  t = "T.max(128, 4) * 2 + T.int64(1)";
  rc = sch_parse_expr_text(a, "s.sch", 1, 1, t, strlen(t), NULL, &v, &d);
  ok(rc == TSL_OK && v.kind == TSL_SV_EXPR && v.u.expr->kind == TSL_EXPR_INT_IMM &&
         v.u.expr->u.int_value == 257 && v.u.expr->dtype.bits == 64,
     "arithmetic over T. calls folds to a constant of the widest type");
  t = "T.int32(4) * 2";
  rc = sch_parse_expr_text(a, "s.sch", 1, 1, t, strlen(t), NULL, &v, &d);
  ok(rc == TSL_OK && v.kind == TSL_SV_INT && v.u.i == 8,
     "an int32 constant is the plain number Python would pass");
  t = "T.float32(0)";
  rc = sch_parse_expr_text(a, "s.sch", 1, 1, t, strlen(t), NULL, &v, &d);
  ok(rc == TSL_OK && v.kind == TSL_SV_FLOAT && v.u.f == 0.0, "so is a float32 constant");
  t = "T.float16(0.5)";
  rc = sch_parse_expr_text(a, "s.sch", 1, 1, t, strlen(t), NULL, &v, &d);
  ok(rc == TSL_OK && v.kind == TSL_SV_EXPR, "a float16 constant stays an expression");
  if (rc)
    tap_diag("%s", d.text);
  t = "(1, 2)";
  rc = sch_parse_expr_text(a, "s.sch", 1, 1, t, strlen(t), NULL, &v, &d);
  ok(rc != TSL_OK && strstr(d.text, "expected one expression"),
     "a tuple is not one expression");
  tsl_arena_free(a);
}

static void spans(void) {
  const char *t = "lambda i: (i, f(i, 2)), pad_value=0)";
  is_int(sch_value_span(t, t + strlen(t)), 22, "a span ends at the top-level comma");
  t = "T.float32(0))\n";
  is_int(sch_value_span(t, t + strlen(t)), 12, "a span ends at the closing bracket");
  t = "lambda vi, vj: ((vi - 1, vi + 1), vj), x";
  is_int(sch_value_span(t, t + strlen(t)), 37, "a lambda's parameters belong to its span");
  t = "'a,b' + x  # comment";
  is_int(sch_value_span(t, t + strlen(t)), 9, "strings and comments");
}

/* Through the public API: scripts with dicts, tuples and T. values;
 * trace text and JSON round trips. */
static const char *prog =
    "@T.prim_func\n"
    "def main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "    for i in range(8):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(8, i)\n"
    "            B[vi] = A[vi] + T.float32(1)\n";

static void scripts(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *mod;
  tsl_parse(a, "p.py", prog, strlen(prog), &mod, &d);
  tsl_schedule *sch;
  tsl_schedule_new(ctx, mod, NULL, &sch, &d);
  const char *script =
      "b = sch.get_block('B')\n"
      "t = ('x', 1)\n"
      "sch.annotate(b, 'k1', {'arr': [0, t[1]], 'key': 3})\n"
      "sch.annotate(b, 'k2', T.int32(4) * 2)\n"
      "sch.annotate(b, 'k5', T.float16(1) + T.float16(2))\n"
      "n = t[1]\n"
      "sch.annotate(b, 'k6', n * 3 - 1)\n"
      "sch.annotate(b, 'k3', (1, 2))\n"
      "(l,) = sch.get_loops(b)\n"
      "sch.annotate(l, 'k4', {})\n";
  int rc = tsl_script_run(sch, "s.sch", script, strlen(script), &d);
  if (!ok(rc == TSL_OK, "a script with dicts, tuples and T. values runs"))
    tap_diag("%s", d.text);
  char *txt = tsl_trace_to_script(tsl_schedule_trace(sch), 1);
  int printed = txt && strstr(txt, "ann_val={\"arr\": [0, 1], \"key\": 3})") &&
         strstr(txt, "ann_val=8)") && strstr(txt, "ann_val=[1, 2])") &&
         strstr(txt, "ann_val=T.float16(1) + T.float16(2))") && strstr(txt, "ann_val=2)") &&
         strstr(txt, "ann_val={})");
  if (!ok(printed, "the trace prints dicts, T. expressions and tuples (as lists, like TVM)"))
    tap_diag("%s", txt ? txt : "(null)");
  char *js = tsl_trace_to_json(tsl_schedule_trace(sch));
  tsl_trace *back = NULL;
  rc = tsl_trace_from_json(ctx, js, &back, &d);
  ok(rc == TSL_OK, "the trace JSON reads back");
  if (rc)
    tap_diag("%s\n%s", d.text, js);
  char *txt2 = back ? tsl_trace_to_script(back, 1) : NULL;
  is_str(txt2, txt, "JSON round trip keeps the trace text");
  const tsl_module *m1 = tsl_schedule_module(sch);
  tsl_schedule *rep = NULL;
  if (back && tsl_trace_replay(ctx, back, mod, NULL, &rep, &d) == TSL_OK) {
    ok(tsl_module_equal(tsl_schedule_module(rep), m1, NULL, 0),
       "replaying the JSON trace gives the same module");
    tsl_schedule_free(rep);
  } else {
    ok(0, "replaying the JSON trace gives the same module");
    tap_diag("%s", d.text);
  }
  const char *bad[][2] = {
      {"{\"insts\":[{\"kind\":\"get_block\",\"inputs\":[],\"attrs\":[{\"str\":\"B\"},null],"
       "\"outputs\":[\"b0\"]},{\"kind\":\"annotate\",\"inputs\":[\"b0\",{\"expr\":\"T.float32(\"}],"
       "\"attrs\":[{\"str\":\"k\"}],\"outputs\":[]}],\"decisions\":[]}",
       "instruction 1, ann_val"},
      {"{\"insts\":[{\"kind\":\"get_block\",\"inputs\":[],\"attrs\":[{\"str\":\"B\"},null],"
       "\"outputs\":[\"b0\"]},{\"kind\":\"annotate\",\"inputs\":[\"b0\",{\"dict\":[[1,2]]}],"
       "\"attrs\":[{\"str\":\"k\"}],\"outputs\":[]}],\"decisions\":[]}",
       "dict entries must be"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tsl_trace *t = NULL;
    rc = tsl_trace_from_json(ctx, bad[i][0], &t, &d);
    ok(rc != TSL_OK && strstr(d.text, bad[i][1]), "bad JSON value %zu refused", i);
    if (rc == TSL_OK || !strstr(d.text, bad[i][1]))
      tap_diag("%s", d.text);
    tsl_trace_free(t);
  }
  free(txt);
  free(txt2);
  free(js);
  tsl_trace_free(back);
  tsl_schedule_free(sch);
  tsl_arena_free(a);
}

/* A lambda built through the C API with two parameters of one name would
 * print as a trace that cannot be read back: refused at the call. */
static void duplicate_param_names(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *mod;
  tsl_parse(a, "p.py", prog, strlen(prog), &mod, &d);
  tsl_schedule *sch;
  tsl_schedule_new(ctx, mod, NULL, &sch, &d);
  tsl_sch_lambda *l = TSL_NEW(a, tsl_sch_lambda);
  const tsl_var **ps = TSL_NEW_ARRAY(a, const tsl_var *, 2);
  ps[0] = tsl_var_new(a, "p", TSL_INT32);
  ps[1] = tsl_var_new(a, "p", TSL_INT32);
  const tsl_expr *items[2] = {ps[1]->ref, ps[0]->ref};
  tsl_sch_value body[2] = {tsl_sv_expr(items[0]), tsl_sv_expr(items[1])};
  l->n_params = 2;
  l->params = ps;
  l->body = tsl_sv_tuple(2, body);
  tsl_sch_arg args[3] = {{NULL, tsl_sv_str("B")}, {NULL, tsl_sv_str("B")},
                         {NULL, tsl_sv_lambda(l)}};
  const tsl_module *before = tsl_schedule_module(sch);
  int rc = tsl_sch_call(sch, "transform_layout", 3, args, NULL, NULL, &d);
  ok(rc == TSL_EINVALID && strstr(d.text, "names two parameters 'p'") &&
         tsl_schedule_module(sch) == before &&
         tsl_trace_len(tsl_schedule_trace(sch)) == 0,
     "a lambda with two parameters named 'p' is refused, the schedule unchanged");
  if (rc != TSL_EINVALID)
    tap_diag("rc %d: %s", rc, d.text);
  tsl_schedule_free(sch);
  tsl_arena_free(a);
}

int main(void) {
  ctx = tsl_ctx_new();
  lambdas();
  equality_and_copy();
  exprs();
  spans();
  scripts();
  duplicate_param_names();
  tsl_ctx_free(ctx);
  return tap_done();
}
