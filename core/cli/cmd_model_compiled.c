/*
 * Models compiled ahead of time (tessel/model.h, 1.6): `tessel run MODEL
 * --target NAME` (the entry built in-process, timed, checked against the
 * reference interpreter) and `tessel build MODEL -o libNAME.so` (the
 * kernels, the entry and the weights in one library, with its header).
 */
#include "cli_target.h"

#include "tessel/model.h"
#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_model_default_passes = "legalize,fuse,dce";

int cli_model_compile(const char *verb, const tsl_registry *reg, tsl_arena *arena,
                      const tsl_model *m, const char *func, const char *passes,
                      const tsl_weights *weights, cli_compiled *out) {
  memset(out, 0, sizeof *out);
  tsl_diag d = {0};
  int rc = cli_model_passes(verb, reg, arena, m, passes ? passes : cli_model_default_passes,
                            weights, &out->model, &out->constants);
  if (!rc && tsl_model_aot_build(arena, out->model, func, weights, &out->aot, &d))
    rc = cli_stage_error(verb, "compile", d.text);
  tsl_lower_opts lo = {sizeof lo, 1, 0};
  const tsl_lowered_module *lm = NULL;
  if (!rc && tsl_lower_module(arena, out->aot->module, &lo, &lm, &d))
    rc = cli_stage_error(verb, "lower", d.text);
  if (!rc) {
    tsl_lowered_module *wm = TSL_NEW(arena, tsl_lowered_module);
    *wm = *lm;
    wm->struct_size = sizeof *wm;
    if (out->aot->weights_bytes) {
      tsl_lowered_data *data = TSL_NEW(arena, tsl_lowered_data);
      *data = (tsl_lowered_data){sizeof *data, "weights", out->aot->weights_data,
                                 out->aot->weights_bytes};
      wm->n_data = 1;
      wm->data = data;
    }
    out->lowered = wm;
  }
  return rc;
}

void cli_compiled_free(cli_compiled *c) {
  tsl_weights_free(c->constants);
  memset(c, 0, sizeof *c);
}

/* The size vars of `aot` from the input tensors (a dimension that is the
 * var itself), then each input checked against its shape. */
static int bind_sizes(const tsl_model_aot *aot, const tsl_weight *const *in, int64_t *sizes) {
  for (uint32_t s = 0; s < aot->n_size_vars; s++) {
    sizes[s] = -1;
    for (uint32_t i = 0; i < aot->n_inputs && sizes[s] < 0; i++)
      for (int32_t d = 0; d < aot->inputs[i].ndim && (uint32_t)d < in[i]->ndim; d++)
        if (aot->inputs[i].shape[d]->kind == TSL_EXPR_VAR &&
            aot->inputs[i].shape[d]->u.var == aot->size_vars[s])
          sizes[s] = in[i]->shape[d];
    if (sizes[s] < 0)
      return cli_error("run", "the size '%s' is no dimension of an input; the compiled model "
                       "cannot bind it", aot->size_vars[s]->name);
  }
  for (uint32_t i = 0; i < aot->n_inputs; i++) {
    int64_t shape[TSL_MAX_NDIM];
    int ok = aot->inputs[i].ndim <= TSL_MAX_NDIM && (uint32_t)aot->inputs[i].ndim == in[i]->ndim &&
             !tsl_model_aot_shape(aot, &aot->inputs[i], sizes, shape) &&
             tsl_dtype_eq(aot->inputs[i].dtype, in[i]->dtype);
    for (int32_t d = 0; ok && d < aot->inputs[i].ndim; d++)
      ok = shape[d] == in[i]->shape[d];
    if (!ok)
      return cli_error("run", "input '%s' does not fit the compiled model's shape or dtype",
                       aot->inputs[i].name);
  }
  return CLI_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median seconds per call of fn over 5 repeats of >= 20 ms each. */
static double time_calls(tsl_packed_fn fn, void *const *args) {
  double t0 = cli_now_s();
  fn(args);
  double one = cli_now_s() - t0;
  int number = one > 0 ? (int)(0.02 / one) + 1 : 1000;
  if (number > 100000)
    number = 100000;
  double reps[5];
  for (int r = 0; r < 5; r++) {
    t0 = cli_now_s();
    for (int k = 0; k < number; k++)
      fn(args);
    reps[r] = (cli_now_s() - t0) / number;
  }
  qsort(reps, 5, sizeof reps[0], cmp_double);
  return reps[2];
}

int cli_model_run_compiled(const cli_model_run *r) {
  tsl_ctx *ctx = tsl_arena_ctx(r->arena);
  cli_compiled c;
  cli_target t = {0};
  tsl_kernel *k = NULL;
  tsl_weights *out = NULL;
  tsl_diag d = {0};
  int rc = cli_model_compile("run", r->reg, r->arena, r->model, r->func, r->passes, r->weights,
                             &c);
  if (!rc)
    rc = cli_target_open("run", ctx, r->target, r->threads, &t);
  if (!rc && t.vt->build(t.t, c.lowered, &k, NULL, &d))
    rc = cli_stage_error("run", "build", d.text);
  const tsl_model_aot *aot = c.aot;
  tsl_packed_fn fn = rc ? NULL : t.vt->lookup(k, aot->entry);
  if (!rc && !fn)
    rc = cli_stage_error("run", "build", "the target built no entry function");
  uint32_t n_args = rc ? 0 : aot->n_inputs + aot->n_outputs + 1 + aot->n_size_vars;
  void **args = calloc(n_args + 1, sizeof *args);
  const tsl_weight **in = calloc(aot && aot->n_inputs ? aot->n_inputs : 1, sizeof *in);
  int64_t sizes[64] = {0};
  void **outs = calloc(aot && aot->n_outputs ? aot->n_outputs : 1, sizeof *outs);
  for (uint32_t i = 0; !rc && i < aot->n_inputs; i++)
    if (!(in[i] = tsl_weights_find(r->inputs, aot->inputs[i].name)))
      rc = cli_error("run", "no tensor for the compiled model's input '%s'", aot->inputs[i].name);
  if (!rc && aot->n_size_vars > 64)
    rc = cli_error("run", "more than 64 symbolic sizes");
  if (!rc)
    rc = bind_sizes(aot, in, sizes);
  uint32_t a = 0;
  for (uint32_t i = 0; !rc && i < aot->n_inputs; i++)
    args[a++] = in[i]->data;
  if (!rc && !(out = tsl_weights_new()))
    rc = cli_error("run", "out of memory");
  for (uint32_t i = 0; !rc && i < aot->n_outputs; i++) {
    int64_t shape[TSL_MAX_NDIM];
    const tsl_model_tensor *o = &aot->outputs[i];
    char name[64];
    snprintf(name, sizeof name, aot->n_outputs == 1 ? "output" : "output.%u", i);
    if (o->ndim > TSL_MAX_NDIM || tsl_model_aot_shape(aot, o, sizes, shape) ||
        tsl_weights_add(out, name, o->dtype, (uint32_t)o->ndim, shape, NULL, NULL, &d)) {
      rc = cli_error("run", "output %s: %s", name, d.text[0] ? d.text : "no shape");
      break;
    }
    outs[i] = (void *)tsl_weights_find(out, name)->data;
    args[a++] = outs[i];
  }
  if (!rc && aot->weights_bytes)
    args[a++] = (void *)aot->weights_data;
  for (uint32_t s = 0; !rc && s < aot->n_size_vars; s++)
    args[a++] = &sizes[s];
  int32_t status = rc ? 0 : fn(args);
  if (!rc && status)
    rc = cli_error("run", "the compiled model returned %d (its workspace could not be "
                   "allocated)", status);
  double secs = rc ? 0 : time_calls(fn, args);
  if (!rc) {
    char desc[512];
    snprintf(desc, sizeof desc, "compiled (%s)", t.vt->describe ? t.vt->describe(t.t) : r->target);
    cli_model_print_outputs(out, secs, r->json, desc);
    FILE *f = r->json ? stderr : stdout;
    fprintf(f, "plan: %u kernel calls; %u intermediate tensors in %u workspace slots, %s bytes "
            "(%s unplanned); weights %llu bytes\n", aot->n_calls, aot->n_intermediates,
            aot->n_slots, aot->planned_bytes, aot->unplanned_bytes,
            (unsigned long long)aot->weights_bytes);
    if (!r->reference)
      fprintf(f, "check against the reference interpreter: skipped (--check none)\n");
    else if (!cli_model_check(r->reference, out, "the reference interpreter", r->json))
      rc = CLI_NO;
    if (!rc && r->output && tsl_weights_save(out, r->output, &d))
      rc = cli_error("run", "--output %s: %s", r->output, d.text);
  }
  free(args);
  free(in);
  free(outs);
  tsl_weights_free(out);
  if (k)
    t.vt->kernel_free(k);
  cli_target_close(&t);
  cli_compiled_free(&c);
  return rc;
}

int cli_model_build(const cli_model_build_args *b) {
  cli_compiled c;
  cli_target t = {0};
  tsl_diag d = {0};
  int rc = cli_model_compile("build", NULL, b->arena, b->model, b->func, b->passes, b->weights,
                             &c);
  if (!rc)
    rc = cli_target_open("build", tsl_arena_ctx(b->arena), b->target, b->threads, &t);
  if (!rc && !t.vt->export_library)
    rc = cli_stage_error("build", "export", "this target cannot export libraries");
  if (!rc) {
    remove(b->header);
    if (t.vt->export_library(t.t, c.lowered, b->prefix, b->out, NULL, &d))
      rc = cli_stage_error("build", "export", d.text);
  }
  if (!rc) {
    char about[1024];
    snprintf(about, sizeof about, "the Relax function %s of %s after the passes %s",
             b->func ? b->func : "main", b->path, b->passes ? b->passes : cli_model_default_passes);
    char *text = tsl_model_aot_header(c.aot, b->prefix, about);
    int err = cli_write_text(b->header, text);
    free(text);
    if (err) {
      char why[4200];
      snprintf(why, sizeof why, "cannot write %s: %s", b->header, strerror(err));
      rc = cli_stage_error("build", "export", why);
    }
  }
  if (!rc && b->tir) {
    char *text = tsl_print_module(c.aot->module);
    int err = cli_write_text(b->tir, text);
    free(text);
    if (err)
      rc = cli_error("build", "--tir %s: cannot write it: %s", b->tir, strerror(err));
  }
  if (!rc)
    printf("wrote %s and %s: %s_model_run (%u kernels, %u calls; weights %llu bytes embedded; "
           "workspace %s bytes, %s unplanned)\n", b->out, b->header, b->prefix,
           c.aot->module->n_funcs - 1, c.aot->n_calls, (unsigned long long)c.aot->weights_bytes,
           c.aot->planned_bytes, c.aot->unplanned_bytes);
  cli_target_close(&t);
  cli_compiled_free(&c);
  return rc;
}
