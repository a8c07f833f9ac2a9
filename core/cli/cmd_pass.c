/*
 * `tessel pass MODEL --passes LIST`: graph passes (tessel/pass.h) run on a
 * model, the result printed as TVMScript (and its constants written);
 * cli_model_passes is shared with `tessel run MODEL --passes`.
 */
#include "cli.h"

#include "tessel/pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_pass_usage[] =
    "usage: tessel pass MODEL --passes LIST [--weights FILE] [--output OUT.py]\n"
    "                   [--constants FILE]\n"
    "\n"
    "Run graph passes on MODEL (a TVMScript @I.ir_module with @R.function\n"
    "functions) in order and print the model they make. LIST names passes,\n"
    "comma-separated: the built-in bind_params, legalize, normalize, fuse,\n"
    "fold_constant, dce, convert_layout, and those of plugins (tessel plugins\n"
    "lists them).\n"
    "Each pass's result is checked to print and parse back.\n"
    "\n"
    "  --passes LIST      e.g. bind_params,legalize,fuse,fold_constant,dce\n"
    "  --weights FILE     tensors by parameter name for bind_params (.safetensors,\n"
    "                     .npz, .npy); tensors named relax.expr.Constant.<i> are the\n"
    "                     model's metadata constants\n"
    "  --output OUT.py    write the model there instead of printing it\n"
    "  --constants FILE   write the constants (relax.expr.Constant.<i>) there\n"
    "                     (.safetensors or .npz): `tessel run OUT.py --weights FILE`\n"
    "                     runs the result\n"
    "\n"
    "exit status: 0 ok, 2 on a usage error, a model that does not parse or a\n"
    "pass that fails (its message names it)\n";

static int is_constant_name(const char *name) {
  return !strncmp(name, "relax.expr.Constant.", 20);
}

int cli_registry_open(const char *verb, tsl_ctx *ctx, tsl_registry **out) {
  tsl_diag d = {0};
  *out = NULL;
  if (tsl_registry_new(ctx, out, &d))
    return cli_error(verb, "%s", d.text);
  if (tsl_registry_load_default(*out, 0, NULL, &d))
    fprintf(stderr, "tessel %s: warning: plugins: %s\nnote: the components of the plugins "
            "loaded before it are available\n", verb, d.text);
  return CLI_OK;
}

int cli_model_passes(const char *verb, const tsl_registry *given, tsl_arena *arena,
                     const tsl_model *m, const char *passes, const tsl_weights *weights,
                     const tsl_model **out, tsl_weights **constants) {
  *out = NULL;
  *constants = tsl_weights_new();
  tsl_weights *params = tsl_weights_new();
  tsl_registry *own = NULL;
  const tsl_registry *reg = given;
  tsl_diag d = {0};
  int rc = *constants && params ? CLI_OK : cli_error(verb, "out of memory");
  /* the weights file's metadata constants are the model's, the rest
   * parameters to bind */
  for (uint32_t i = 0; !rc && weights && i < tsl_weights_count(weights); i++) {
    const tsl_weight *w = tsl_weights_at(weights, i);
    if (tsl_weights_add(is_constant_name(w->name) ? *constants : params, w->name, w->dtype,
                        w->ndim, w->shape, w->data, NULL, &d))
      rc = cli_error(verb, "%s", d.text);
  }
  if (!rc && !reg && !(rc = cli_registry_open(verb, tsl_arena_ctx(arena), &own)))
    reg = own;
  if (!rc) {
    /* constants the model has bound already (an imported .onnx) are
     * gathered by the pipeline; the weights file's win on a name */
    tsl_model *start = tsl_model_new(arena, m->tir, m->n_rx_funcs, m->rx_funcs, m->n_constants,
                                     m->constants ? m->constants : *constants);
    tsl_pass_ctx ctx = {sizeof ctx, arena, params, *constants, reg};
    if (tsl_model_run_passes(reg, passes, &ctx, start, out, &d))
      rc = cli_error(verb, "%s", d.text);
  }
  tsl_registry_free(own); /* passes made no object that outlives them */
  tsl_weights_free(params);
  if (rc) {
    tsl_weights_free(*constants);
    *constants = NULL;
  }
  return rc;
}

int cli_pass(int argc, char **argv) {
  int h = cli_help_requested(argc, argv, cli_pass_usage);
  if (h >= 0)
    return h;
  const char *path = NULL, *passes = NULL, *weights = NULL, *output = NULL, *consts = NULL;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    const char **slot = !strcmp(o, "--passes")      ? &passes
                        : !strcmp(o, "--weights")   ? &weights
                        : !strcmp(o, "--output")    ? &output
                        : !strcmp(o, "--constants") ? &consts
                                                    : NULL;
    if (slot && i + 1 < argc)
      *slot = argv[++i];
    else if (o[0] == '-' && o[1])
      return cli_error("pass", "'%s' is not an option, or lacks its value\nnote: valid options: "
                       "--passes, --weights, --output, --constants", o);
    else if (path)
      return cli_error("pass", "more than one MODEL given ('%s' and '%s')", path, o);
    else
      path = o;
  }
  if (!path || !passes)
    return cli_error("pass", "give a MODEL and --passes LIST (see tessel pass --help)");
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_model *m = NULL, *out = NULL;
  tsl_weights *w = NULL, *constants = NULL;
  tsl_diag d = {0};
  tsl_weights *own = NULL;
  int rc = cli_load_model(arena, path, &m, &own);
  if (!rc && weights && tsl_weights_load(weights, &w, &d))
    rc = cli_error("pass", "%s", d.text);
  if (!rc)
    rc = cli_model_passes("pass", NULL, arena, m, passes, w, &out, &constants);
  char *text = rc ? NULL : tsl_model_print(out);
  if (!rc && output) {
    int err = cli_write_text(output, text);
    if (err)
      rc = cli_error("pass", "cannot write %s: %s", output, strerror(err));
  } else if (!rc) {
    fputs(text, stdout);
  }
  tsl_weights *used = NULL;
  if (!rc && tsl_model_constants_used(out, constants, &used, &d))
    rc = cli_error("pass", "%s", d.text);
  if (!rc && consts && tsl_weights_save(used, consts, &d))
    rc = cli_error("pass", "--constants %s: %s", consts, d.text);
  if (!rc && !consts && tsl_weights_count(used))
    fprintf(stderr, "tessel pass: note: the model refers to %u constants; --constants FILE "
            "writes them\n", tsl_weights_count(used));
  tsl_weights_free(used);
  free(text);
  tsl_weights_free(constants);
  tsl_weights_free(w);
  tsl_weights_free(own);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return rc;
}
