/*
 * `tessel import MODEL.onnx -o MODEL.py [--weights W]`: an ONNX model as a
 * Relax module in TVMScript and its weights (tessel/onnx.h).
 */
#include "cli.h"

#include "tessel/onnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_import_usage[] =
    "usage: tessel import MODEL.onnx -o MODEL.py [--weights W.safetensors]\n"
    "\n"
    "Import an ONNX model (operator sets 11 to 18): its graph becomes the Relax\n"
    "function main of a TVMScript module, with the high-level operators\n"
    "(R.nn.conv2d, R.matmul, ...) that legalize, fuse and tune read; its\n"
    "initializers become parameters of main, written to the weights file under\n"
    "the parameters' names. `tessel run MODEL.py --weights W` runs it.\n"
    "Nothing is written when the model cannot be imported; the message names\n"
    "the node, its operator and what is supported.\n"
    "\n"
    "  -o, --output MODEL.py   where the module goes\n"
    "  --weights FILE          where the weights go (.safetensors, .npz);\n"
    "                          required when the model has initializers\n"
    "\n"
    "exit status: 0 ok, 2 on a usage error or a model that cannot be imported\n";

int cli_import(int argc, char **argv) {
  int h = cli_help_requested(argc, argv, cli_import_usage);
  if (h >= 0)
    return h;
  const char *path = NULL, *output = NULL, *weights = NULL;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    const char **slot = !strcmp(o, "-o") || !strcmp(o, "--output") ? &output
                        : !strcmp(o, "--weights")                   ? &weights
                                                                    : NULL;
    if (slot && i + 1 < argc)
      *slot = argv[++i];
    else if (o[0] == '-' && o[1])
      return cli_error("import", "'%s' is not an option, or lacks its value\nnote: valid "
                       "options: -o/--output, --weights", o);
    else if (path)
      return cli_error("import", "more than one MODEL given ('%s' and '%s')", path, o);
    else
      path = o;
  }
  if (!path || !output)
    return cli_error("import", "give MODEL.onnx and -o MODEL.py (see tessel import --help)");
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_model *m = NULL;
  tsl_weights *w = NULL;
  tsl_diag d = {0};
  int rc = CLI_OK;
  if (tsl_onnx_import(arena, path, 0, &m, &w, &d))
    rc = cli_error("import", "%s", d.text);
  uint32_t n_w = rc ? 0 : tsl_weights_count(w);
  if (!rc && n_w && !weights)
    rc = cli_error("import", "%s has %u weights; give --weights FILE (.safetensors or .npz) "
                   "to write them", path, n_w);
  char *text = rc ? NULL : tsl_model_print(m);
  if (!rc && !text)
    rc = cli_error("import", "out of memory");
  if (!rc) {
    size_t len = strlen(text) + strlen(path) + 128;
    char *full = malloc(len);
    if (!full) {
      rc = cli_error("import", "out of memory");
    } else {
      snprintf(full, len, "# Imported from %s by tessel import.\n%s", path, text);
      int err = cli_write_text(output, full);
      if (err)
        rc = cli_error("import", "cannot write %s: %s", output, strerror(err));
      free(full);
    }
  }
  if (!rc && n_w && tsl_weights_save(w, weights, &d))
    rc = cli_error("import", "--weights %s: %s", weights, d.text);
  if (!rc) {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < n_w; i++)
      bytes += tsl_weights_at(w, i)->nbytes;
    const tsl_rx_func *f = tsl_model_find(m, "main");
    printf("imported %s: main with %u parameters (%u weights, %llu bytes) and %u bindings -> "
           "%s%s%s\n", path, f->n_params, n_w, (unsigned long long)bytes,
           f->n_blocks ? f->blocks[0].n_bindings : 0, output, n_w ? ", " : "",
           n_w ? weights : "");
  }
  free(text);
  tsl_weights_free(w);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return rc;
}
