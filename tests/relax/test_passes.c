/*
 * Graph passes (tessel/pass.h) through the pipeline: each case of
 * tests/relax/passes runs the passes of the table below, prints as
 * passes/<case>.<tag>.expected (TESSEL_UPDATE_GOLDEN=1 rewrites them;
 * review by eye), and computes what the model computed before, in the
 * reference interpreter, on seeded random inputs (parameters named in
 * `bind` go to bind_params). Then the errors a user meets, and passes of
 * a plugin (argv[1], tests/relax/plugins/tp_passes.c): one that rewrites,
 * one whose faulty result the pipeline refuses.
 */
#include "tap.h"
#include "test_files.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *root(void) {
  const char *r = getenv("TESSEL_SOURCE_ROOT");
  return r ? r : ".";
}

/* Seeded random tensors for every parameter of main (symbolic sizes 3). */
static tsl_weights *random_inputs(const tsl_rx_func *f, uint64_t seed) {
  tsl_weights *w = tsl_weights_new();
  for (uint32_t p = 0; p < f->n_params; p++) {
    const tsl_rx_sinfo *s = f->params[p]->sinfo;
    int64_t shape[8];
    for (int32_t d = 0; d < s->ndim; d++)
      if (!tsl_expr_is_const_int(s->shape[d], &shape[d]))
        shape[d] = 3;
    tsl_tensor t;
    if (tsl_tensor_alloc(&t, s->dtype, s->ndim, shape, NULL))
      continue;
    tsl_tensor_fill_random(&t, seed, p);
    tsl_weights_add(w, f->params[p]->name, t.dtype, (uint32_t)t.ndim, t.shape, t.data, NULL,
                    NULL);
    tsl_tensor_free(&t);
  }
  return w;
}

/* The tensors of `all` named in the comma-separated `names`. */
static tsl_weights *subset(const tsl_weights *all, const char *names, int named) {
  tsl_weights *w = tsl_weights_new();
  for (uint32_t i = 0; i < tsl_weights_count(all); i++) {
    const tsl_weight *t = tsl_weights_at(all, i);
    char key[128];
    snprintf(key, sizeof key, ",%s,", t->name);
    char list[512];
    snprintf(list, sizeof list, ",%s,", names ? names : "");
    if ((strstr(list, key) != NULL) == named)
      tsl_weights_add(w, t->name, t->dtype, t->ndim, t->shape, t->data, NULL, NULL);
  }
  return w;
}

/* Every output within float32 rounding of the reference's. */
static int same_outputs(const tsl_weights *ref, const tsl_weights *got, double *worst) {
  *worst = 0;
  if (tsl_weights_count(ref) != tsl_weights_count(got))
    return 0;
  for (uint32_t i = 0; i < tsl_weights_count(ref); i++) {
    const tsl_weight *a = tsl_weights_at(ref, i), *b = tsl_weights_find(got, a->name);
    if (!b || a->numel != b->numel || !tsl_dtype_eq(a->dtype, b->dtype))
      return 0;
    tsl_tensor ta = {.data = a->data, .dtype = a->dtype, .ndim = 1, .shape = {(int64_t)a->numel}};
    tsl_tensor tb = {.data = b->data, .dtype = b->dtype, .ndim = 1, .shape = {(int64_t)b->numel}};
    for (uint64_t k = 0; k < a->numel; k++) {
      double x = tsl_tensor_get(&ta, (int64_t)k), y = tsl_tensor_get(&tb, (int64_t)k);
      double diff = x > y ? x - y : y - x, tol = 1e-5 * (x < 0 ? -x : x) + 1e-5;
      if (!(diff <= tol))
        return 0;
      if (diff > *worst)
        *worst = diff;
    }
  }
  return 1;
}

typedef struct pcase {
  const char *name, *tag, *passes, *bind;
} pcase;

static const pcase cases[] = {
    {"../../../workloads/models/mlp", "legalize", "legalize", NULL},
    {"../../../workloads/models/mlp", "bound", "bind_params,legalize,dce", "w0,b0,w1,b1"},
    {"fold", "folded", "bind_params,fold_constant,dce", "w,scale,b,shift"},
    {"fold", "legalized_folded", "bind_params,legalize,fold_constant,dce", "w,scale,b,shift"},
    {"dead", "dce", "dce", NULL},
    {"dead", "legalize_dce", "legalize,dce", NULL},
    {"shapes", "legalize", "legalize", NULL},
    {"../../../workloads/models/mlp", "fused", "bind_params,legalize,fuse,dce", "w0,b0,w1,b1"},
    {"shapes", "fused", "legalize,fuse,dce", NULL},
    {"fuse", "fused", "legalize,fuse,dce", NULL},
    {"linear", "folded_fused", "bind_params,legalize,fold_constant,fuse,dce", "w,b"},
    {"../cases/shape_ops", "legalize", "legalize", NULL},
    {"concat", "legalized", "legalize,fuse,dce", NULL},
    {"nested", "normalized", "normalize", NULL},
    {"nested", "legalized", "legalize", NULL},
    {"nested", "fused", "legalize,fuse,dce", NULL},
    {"fma", "fused", "fuse_multiply_add,dce", NULL},
    {"cnn", "legalized", "legalize", NULL},
    {"const", "fused", "legalize,fuse,dce", NULL},
    {"cnn", "fused", "legalize,fuse,dce", NULL},
    {"../cases/nn_ops", "legalized", "legalize", NULL},
    {"../cases/nn_layouts", "legalized", "legalize", NULL},
    {"../cases/slices", "legalized", "legalize", NULL},
    {"../cases/erf_power", "legalized", "legalize", NULL},
    {"cnn", "converted", "convert_layout", NULL},
    {"residual", "converted", "convert_layout", NULL},
    {"two_blocks", "converted", "convert_layout", NULL},
    {"symbolic_chain", "fused", "legalize,fuse,dce", NULL},
    {"residual", "converted_fused", "bind_params,convert_layout,fold_constant,legalize,fuse,dce",
     "w1,b1,w2,b2,wd"},
    {"../cases/nn_ops", "converted", "convert_layout", NULL},
    {"../compiled/library", "fused", "legalize,fuse,dce", NULL},
};

static void run_case(tsl_ctx *ctx, const tsl_registry *reg, const pcase *c, int update) {
  char path[4400], exp[4400];
  const char *base = strrchr(c->name, '/') ? strrchr(c->name, '/') + 1 : c->name;
  snprintf(path, sizeof path, "%s/tests/relax/passes/%s.py", root(), c->name);
  snprintf(exp, sizeof exp, "%s/tests/relax/passes/%s.%s.expected", root(), base, c->tag);
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_model *m = NULL, *out = NULL;
  if (!ok(!tsl_parse_model_file(a, path, &m, &d), "%s parses", c->name)) {
    tap_diag("%s", d.text);
    tsl_arena_free(a);
    return;
  }
  const tsl_rx_func *f = tsl_model_find(m, "main");
  tsl_weights *in = random_inputs(f, 7), *ref = NULL, *got = NULL;
  tsl_weights *params = subset(in, c->bind, 1), *rest = subset(in, c->bind, 0);
  tsl_weights *constants = tsl_weights_new();
  tsl_pass_ctx pc = {sizeof pc, a, params, constants, reg};
  int rc = tsl_model_run_passes(reg, c->passes, &pc, m, &out, &d);
  if (ok(rc == TSL_OK, "%s: %s run", c->name, c->passes)) {
    char *text = tsl_model_print(out);
    ok(tf_golden(exp, text, update), "%s: %s prints as %s.%s.expected", c->name, c->passes,
       c->name, c->tag);
    free(text);
    int r1 = tsl_model_interp_with(reg, m, "main", in, &ref, &d);
    int r2 = r1 ? -1 : tsl_model_interp_with(reg, out, "main", rest, &got, &d);
    double worst = 0;
    if (!ok(!r1 && !r2 && same_outputs(ref, got, &worst),
            "%s: after %s the model computes what it did (max |diff| %.2g)", c->name,
            c->passes, worst))
      tap_diag("%s", d.text);
  } else {
    tap_diag("%s", d.text);
  }
  tsl_weights_free(ref);
  tsl_weights_free(got);
  tsl_weights_free(in);
  tsl_weights_free(params);
  tsl_weights_free(rest);
  tsl_weights_free(constants);
  tsl_arena_free(a);
}

/* The passes fail with a message holding `want`. */
static void expect_error(tsl_ctx *ctx, const tsl_registry *reg, const char *model,
                         const char *passes, const char *bind_name, int64_t bind_rows,
                         const char *want) {
  char path[4400];
  snprintf(path, sizeof path, "%s/tests/relax/passes/%s.py", root(), model);
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_model *m = NULL, *out = NULL;
  tsl_weights *params = tsl_weights_new(), *constants = tsl_weights_new();
  if (bind_name) {
    int64_t shape[2] = {bind_rows, 128};
    tsl_weights_add(params, bind_name, TSL_FLOAT32, 2, shape, NULL, NULL, NULL);
  }
  int rc = tsl_parse_model_file(a, path, &m, &d);
  tsl_pass_ctx pc = {sizeof pc, a, params, constants, reg};
  if (!rc)
    rc = tsl_model_run_passes(reg, passes, &pc, m, &out, &d);
  if (!ok(rc != TSL_OK && strstr(d.text, want), "%s on %s fails: %s", passes, model, want))
    tap_diag("got (%d): %s", rc, d.text);
  tsl_weights_free(params);
  tsl_weights_free(constants);
  tsl_arena_free(a);
}

int main(int argc, char **argv) {
  int update = getenv("TESSEL_UPDATE_GOLDEN") && !strcmp(getenv("TESSEL_UPDATE_GOLDEN"), "1");
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  if (!ok(!tsl_registry_new(ctx, &reg, &d), "registry"))
    return tap_done();
  for (const char *const *p = (const char *const[]){"bind_params", "legalize", "normalize",
                                                    "fuse", "fold_constant", "dce", NULL};
       *p; p++)
    ok(tsl_registry_find(reg, TSL_COMPONENT_PASS, *p) != NULL, "built-in pass %s registered", *p);
  for (const char *const *p = (const char *const[]){"env.relu", "env.linear", "env.matmul",
                                                    "env.add", NULL};
       *p; p++)
    ok(tsl_registry_find(reg, TSL_COMPONENT_LIBRARY, *p) != NULL,
       "built-in library function %s registered", *p);
  int loaded = argc > 1 && !tsl_registry_load(reg, argv[1], &d);
  if (!ok(loaded, "the test pass plugin loads"))
    tap_diag("%s", d.text);

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (loaded || (strcmp(cases[i].name, "fma") && !strstr(cases[i].name, "library")))
      run_case(ctx, reg, &cases[i], update);

  expect_error(ctx, reg, "../../../workloads/models/mlp", "legalize,fuse_everything", NULL, 0,
               "no pass named 'fuse_everything'");
  expect_error(ctx, reg, "../../../workloads/models/mlp", "bind_params", "w9", 784,
               "weight 'w9' names no parameter of 'main' (its parameters: x, w0, b0, w1, b1)");
  expect_error(ctx, reg, "../../../workloads/models/mlp", "bind_params", "w0", 783,
               "weight 'w0': the parameter is R.Tensor((784, 128), dtype=\"float32\"), the "
               "tensor float32 of shape (783, 128) (shape)");
  expect_error(ctx, reg, "fold", "", NULL, 0, "no pass named");
  if (loaded)
    expect_error(ctx, reg, "fma", "tp_broken", NULL, 0,
                 "pass 'tp_broken': the model does not parse back as printed");
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return tap_done();
}
