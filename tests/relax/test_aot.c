/*
 * Compiled models (tessel/model.h, 1.6) through the library API: the entry
 * tsl_model_aot_build writes (golden compiled/<case>.entry.expected, printed
 * with tsl_print_func; TESSEL_UPDATE_GOLDEN=1 rewrites them), the memory
 * plan's figures, the weights blob, tsl_model_aot_shape, the header, and
 * the errors a user meets. Running the entry is test_compiled.sh's job.
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

typedef struct built {
  tsl_arena *a;
  const tsl_model_aot *aot;
  tsl_weights *constants;
  tsl_diag d;
  int rc;
} built;

/* tests/relax/<rel>.py after `passes`, compiled with `weights`. */
static built build(tsl_ctx *ctx, const tsl_registry *reg, const char *rel, const char *passes,
                   const tsl_weights *weights) {
  built b = {tsl_arena_new(ctx), NULL, tsl_weights_new(), {0}, 0};
  char path[4400];
  snprintf(path, sizeof path, "%s/tests/relax/%s.py", root(), rel);
  const tsl_model *m = NULL, *pm = NULL;
  tsl_weights *params = tsl_weights_new();
  tsl_pass_ctx pc = {sizeof pc, b.a, params, b.constants, reg};
  b.rc = tsl_parse_model_file(b.a, path, &m, &b.d);
  if (!b.rc)
    b.rc = *passes ? tsl_model_run_passes(reg, passes, &pc, m, &pm, &b.d) : (pm = m, 0);
  if (!b.rc)
    b.rc = tsl_model_aot_build(b.a, pm, NULL, weights, &b.aot, &b.d);
  tsl_weights_free(params);
  return b;
}

static void done(built *b) {
  tsl_weights_free(b->constants);
  tsl_arena_free(b->a);
}

static void golden_entry(const built *b, const char *tag, int update) {
  char exp[4400];
  snprintf(exp, sizeof exp, "%s/tests/relax/compiled/%s.entry.expected", root(), tag);
  const tsl_func *e = b->aot ? tsl_module_find(b->aot->module, b->aot->entry) : NULL;
  char *text = e ? tsl_print_func(e) : NULL;
  ok(text && tf_golden(exp, text, update), "%s: the entry prints as %s.entry.expected", tag,
     tag);
  free(text);
}

static void expect_error(tsl_ctx *ctx, const tsl_registry *reg, const char *rel,
                         const char *passes, const tsl_weights *w, const char *want) {
  built b = build(ctx, reg, rel, passes, w);
  if (!ok(b.rc != TSL_OK && strstr(b.d.text, want), "%s after '%s' is refused: %s", rel, passes,
          want))
    tap_diag("got (%d): %s", b.rc, b.d.text);
  done(&b);
}

int main(void) {
  int update = getenv("TESSEL_UPDATE_GOLDEN") && !strcmp(getenv("TESSEL_UPDATE_GOLDEN"), "1");
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  if (!ok(!tsl_registry_new(ctx, &reg, &d), "registry"))
    return tap_done();

  /* a chain: five intermediates, two slots (a call never writes where it reads) */
  built b = build(ctx, reg, "passes/nested", "legalize,fuse,dce", NULL);
  if (ok(b.rc == TSL_OK, "nested compiles")) {
    ok(b.aot->n_calls == 6 && b.aot->n_intermediates == 5 && b.aot->n_slots == 2,
       "nested: 6 calls, 5 intermediates in 2 slots (got %u, %u, %u)", b.aot->n_calls,
       b.aot->n_intermediates, b.aot->n_slots);
    ok(!strcmp(b.aot->planned_bytes, "256") && !strcmp(b.aot->unplanned_bytes, "640"),
       "nested: 256 bytes planned, 640 unplanned (got %s, %s)", b.aot->planned_bytes,
       b.aot->unplanned_bytes);
    ok(b.aot->n_inputs == 2 && b.aot->n_outputs == 1 && !strcmp(b.aot->outputs[0].name, "output"),
       "nested: inputs x and y, one output named output");
    golden_entry(&b, "nested", update);
  } else {
    tap_diag("%s", b.d.text);
  }
  done(&b);

  /* symbolic sizes: kernels called by name, sizes passed per call */
  b = build(ctx, reg, "compiled/by_name", "", NULL);
  if (ok(b.rc == TSL_OK, "by_name compiles without passes")) {
    ok(b.aot->n_size_vars == 3 && !strcmp(b.aot->size_vars[0]->name, "m") &&
       !strcmp(b.aot->size_vars[1]->name, "n") && !strcmp(b.aot->size_vars[2]->name, "k"),
       "by_name: the entry takes m, n, k after its buffers");
    ok(!strcmp(b.aot->planned_bytes, "4*n + 4*n"), "by_name: two slots of 4*n bytes (got %s)",
       b.aot->planned_bytes);
    int64_t sizes[3] = {40, 24, 6}, shape[2] = {0, 0};
    ok(b.aot->n_outputs == 1 && !tsl_model_aot_shape(b.aot, &b.aot->outputs[0], sizes, shape) &&
       shape[0] == 1 && shape[1] == 6, "tsl_model_aot_shape: the output is [1, k] = [1, 6]");
    golden_entry(&b, "by_name", update);
    char *h = tsl_model_aot_header(b.aot, "bn", "a test");
    ok(h && strstr(h, "int32_t bn_model_main(const void *x, const void *w0, const void *b0, "
                      "const void *w1, const void *b1, void *output, int64_t m, int64_t n, "
                      "int64_t k);") &&
       strstr(h, "bn_model_run(const void *const *inputs, void *const *outputs, int64_t m, "
                 "int64_t n, int64_t k)") &&
       strstr(h, "input 1: w0, float32[n, m]") && !strstr(h, "bn_weights"),
       "the header declares the entry and the run with the sizes, no weights");
    free(h);
  } else {
    tap_diag("%s", b.d.text);
  }
  done(&b);

  /* weights: parameters found in the weights are embedded, 64-byte aligned */
  tsl_weights *w = tsl_weights_new();
  int64_t s0[2] = {784, 128}, s1[1] = {128}, s2[2] = {128, 10}, s3[1] = {10};
  tsl_weights_add(w, "w0", TSL_FLOAT32, 2, s0, NULL, NULL, NULL);
  tsl_weights_add(w, "b0", TSL_FLOAT32, 1, s1, NULL, NULL, NULL);
  tsl_weights_add(w, "w1", TSL_FLOAT32, 2, s2, NULL, NULL, NULL);
  tsl_weights_add(w, "b1", TSL_FLOAT32, 1, s3, NULL, NULL, NULL);
  b = build(ctx, reg, "../../workloads/models/mlp", "legalize,fuse,dce", w);
  if (ok(b.rc == TSL_OK, "the MLP compiles with its weights")) {
    const tsl_model_aot *x = b.aot;
    ok(x->n_inputs == 1 && !strcmp(x->inputs[0].name, "x") && x->n_weights == 4,
       "mlp: x is the only input, four weights");
    ok(x->weights[0].offset == 0 && x->weights[1].offset == 401408 &&
       x->weights[2].offset == 401920 && x->weights[3].offset == 407040 &&
       x->weights_bytes == 407104 && ((uintptr_t)x->weights_data & 63) == 0,
       "mlp: the blob holds them at 64-byte aligned offsets (407104 bytes)");
    golden_entry(&b, "mlp", update);
  } else {
    tap_diag("%s", b.d.text);
  }
  done(&b);

  /* what is not compiled */
  expect_error(ctx, reg, "passes/nested", "", NULL,
               "main: a: R.add is not compiled: the compiled path runs R.call_tir only; "
               "legalize the model first");
  expect_error(ctx, reg, "compiled/env_add", "legalize", NULL,
               "R.call_dps_packed(\"env.add\") cannot be compiled: library functions run in "
               "the reference interpreter only");
  expect_error(ctx, reg, "cases/bound_weights", "legalize", NULL,
               "weight relax.expr.Constant.0 (metadata[\"relax.expr.Constant\"][0]) is not given");
  tsl_weights *bad = tsl_weights_new();
  int64_t wrong[2] = {784, 127};
  tsl_weights_add(bad, "w0", TSL_FLOAT32, 2, wrong, NULL, NULL, NULL);
  expect_error(ctx, reg, "../../workloads/models/mlp", "legalize", bad,
               "weight 'w0' does not fit the parameter's struct info (dtype float32, rank and "
               "constant sizes)");
  tsl_weights_free(bad);
  tsl_weights_free(w);
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return tap_done();
}
