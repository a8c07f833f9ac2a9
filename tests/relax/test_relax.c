/*
 * Models (tessel/relax.h): tests/relax/cases/NAME.py parse, print as
 * NAME.expected (TESSEL_UPDATE_GOLDEN=1 rewrites them; review by eye) and
 * print the same again after a parse of the printed text; their struct info
 * is what the operators and calls make it. tests/relax/errors/NAME.py fail
 * with exactly NAME.expected (file:line:col, message, source line, caret,
 * note).
 */
#include "tap.h"
#include "test_files.h"
#include "tessel/relax.h"
#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "R.Tensor((n, 10), dtype=\"float32\")" of binding `var` of `f`. */
static char *sinfo_of(const tsl_rx_func *f, const char *var) {
  for (uint32_t b = 0; b < f->n_blocks; b++)
    for (uint32_t i = 0; i < f->blocks[b].n_bindings; i++)
      if (!strcmp(f->blocks[b].bindings[i].var->name, var))
        return tsl_rx_sinfo_print(f->blocks[b].bindings[i].var->sinfo);
  return NULL;
}

static void expect_sinfo(const tsl_rx_func *f, const char *var, const char *want) {
  char *got = sinfo_of(f, var);
  ok(got && !strcmp(got, want), "%s: %s is %s (got %s)", f->name, var, want, got ? got : "none");
  free(got);
}

static void facts(const char *name, const tsl_model *m) {
  const tsl_rx_func *f = tsl_model_find(m, "main");
  if (!ok(f != NULL, "%s: main found", name))
    return;
  char *ret = tsl_rx_sinfo_print(f->ret_sinfo);
  if (!strcmp(name, "mlp")) {
    ok(f->n_params == 5 && f->n_size_vars == 1 && !strcmp(f->size_vars[0]->name, "n") &&
           f->n_blocks == 1 && f->blocks[0].is_dataflow && f->blocks[0].n_bindings == 3,
       "mlp: 5 parameters, the size n, one dataflow block of 3 bindings");
    ok(f->blocks[0].bindings[0].var->is_dataflow && !f->blocks[0].bindings[2].var->is_dataflow,
       "mlp: h is a dataflow variable, the output y is not");
    expect_sinfo(f, "a", "R.Tensor((n, 32), dtype=\"float32\")");
    ok(!strcmp(ret, "R.Tensor((n, 10), dtype=\"float32\")"), "mlp: returns (n, 10): %s", ret);
    const tsl_rx_expr *call = f->blocks[0].bindings[0].value;
    ok(call->kind == TSL_RX_EXPR_CALL && call->op == TSL_RX_OP_CALL_TIR &&
           call->args[0]->kind == TSL_RX_EXPR_GLOBAL && !strcmp(call->args[0]->name, "dense") &&
           call->args[1]->n_args == 3 && call->n_sinfo_args == 1,
       "mlp: h = R.call_tir(cls.dense, (x, w0, b0), out_sinfo=...)");
    ok(m->tir->n_funcs == 2 && m->n_constants == 0, "mlp: two prim_funcs, no weights bound");
  } else if (!strcmp(name, "bound_weights")) {
    const tsl_rx_expr *c = f->blocks[0].bindings[2].value;
    ok(m->n_constants == 3 && c->args[0]->kind == TSL_RX_EXPR_EXTERN &&
           !strcmp(c->args[0]->name, "env.linear") &&
           c->args[1]->args[2]->kind == TSL_RX_EXPR_CONSTANT && c->args[1]->args[2]->index == 2,
       "bound_weights: three weights, env.linear called by name with weight 2");
    ok(f->blocks[0].bindings[0].value->args[0]->kind == TSL_RX_EXPR_EXTERN,
       "bound_weights: a prim_func named by a string stays a packed call by name");
  } else if (!strcmp(name, "operators")) {
    expect_sinfo(f, "m", "R.Tensor((2, 4, 3), dtype=\"float32\")");
    expect_sinfo(f, "e", "R.Tensor((4, 8), dtype=\"float32\")");
    expect_sinfo(f, "u", "R.Tensor((2, 4, 3), dtype=\"float32\")");
    ok(f->n_blocks == 2 && f->blocks[0].is_dataflow && !f->blocks[1].is_dataflow &&
           f->blocks[1].n_bindings == 5,
       "operators: a dataflow block, then 5 bindings outside one");
    ok(!strcmp(ret, "R.Tuple(R.Tensor((2, 4, 3), dtype=\"float32\"), R.Tensor((4, 8), "
                    "dtype=\"float32\"))"),
       "operators: returns the inferred tuple: %s", ret);
  }
  free(ret);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  int update = getenv("TESSEL_UPDATE_GOLDEN") && !strcmp(getenv("TESSEL_UPDATE_GOLDEN"), "1");
  char dir[4200], path[4400], exp[4400];
  char *names[128];
  tsl_ctx *ctx = tsl_ctx_new();

  snprintf(dir, sizeof dir, "%s/tests/relax/cases", root ? root : ".");
  int n = tf_list(dir, ".py", 0, names, 128);
  ok(n >= 3, "%d model cases", n);
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s.py", dir, names[i]);
    snprintf(exp, sizeof exp, "%s/%s.expected", dir, names[i]);
    tsl_arena *a = tsl_arena_new(ctx);
    tsl_diag d = {0};
    const tsl_model *m = NULL, *back = NULL;
    if (ok(!tsl_parse_model_file(a, path, &m, &d) && m->n_rx_funcs == 1, "%s parses",
           names[i])) {
      char *text = tsl_model_print(m);
      ok(tf_golden(exp, text, update), "%s prints as %s.expected", names[i], names[i]);
      int rc = tsl_parse_model(a, "printed.py", text, strlen(text), &back, &d);
      char *again = rc ? NULL : tsl_model_print(back);
      if (!ok(again && !strcmp(text, again), "%s: the printed model parses and prints the same",
              names[i]))
        tap_diag("%s", rc ? d.text : again);
      free(again);
      free(text);
      facts(names[i], m);
    } else {
      tap_diag("%s", d.text);
    }
    tsl_arena_free(a);
    free(names[i]);
  }

  snprintf(dir, sizeof dir, "%s/tests/relax/errors", root ? root : ".");
  n = tf_list(dir, ".py", 0, names, 128);
  ok(n >= 12, "%d models with errors", n);
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s.py", dir, names[i]);
    snprintf(exp, sizeof exp, "%s/%s.expected", dir, names[i]);
    size_t len;
    char *src = tf_slurp(path, &len), file[200];
    snprintf(file, sizeof file, "%s.py", names[i]);
    tsl_arena *a = tsl_arena_new(ctx);
    tsl_diag d = {0};
    const tsl_model *m = NULL;
    int rc = src ? tsl_parse_model(a, file, src, len, &m, &d) : TSL_EIO;
    char text[sizeof d.text + 2];
    snprintf(text, sizeof text, "%s\n", d.text);
    ok(rc == TSL_EINVALID && tf_golden(exp, text, update), "%s is refused as %s.expected",
       names[i], names[i]);
    free(src);
    tsl_arena_free(a);
    free(names[i]);
  }

  /* a model is not a program: tsl_parse refuses it and says where models go */
  snprintf(path, sizeof path, "%s/tests/relax/cases/mlp.py", root ? root : ".");
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *prog = NULL;
  ok(tsl_parse_file(a, path, &prog, &d) == TSL_EINVALID &&
         strstr(d.text, "unsupported decorator '@R.function'") &&
         strstr(d.text, "commands that take models"),
     "tsl_parse refuses a model, naming what reads one: %s", d.text);
  /* a program is a model without Relax functions */
  snprintf(path, sizeof path, "%s/workloads/matmul_128.py", root ? root : ".");
  const tsl_model *m = NULL;
  ok(!tsl_parse_model_file(a, path, &m, &d) && m->n_rx_funcs == 0 && m->tir->n_funcs == 1 &&
         m->tir->is_bare_func,
     "a lone prim_func is a model of one prim_func");
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return tap_done();
}
