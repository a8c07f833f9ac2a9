/*
 * Tensor intrinsics a schedule script may tensorize with: every INTRIN
 * component of the plugin registry (libtessel's built-ins and the plugins
 * on the search path, e.g. cuda-wmma's and cuda-mma's), then the files
 * `intrin__<name>__desc.py` / `intrin__<name>__impl.py` of the script's
 * folder (tsl_intrin_registry_add_dir), as a TVM user registers them with
 * TensorIntrin.register before scheduling.
 *
 * A plugin that fails to load (or whose intrinsics do not parse) does not
 * stop a schedule that needs none of it: its error is printed as a warning
 * and the intrinsics that did load (at least the built-ins) are used.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void warn(const char *verb, const char *what, const char *text, const char *fallback) {
  fprintf(stderr,
          "tessel %s: warning: %s: %s\nnote: tensorize goes on with %s\n", verb, what, text,
          fallback);
}

int cli_registry_intrins(const char *verb, tsl_ctx *ctx, tsl_arena *arena, tsl_registry **reg,
                         tsl_intrin_registry **out, tsl_diag *d) {
  *out = NULL;
  int rc = tsl_registry_new(ctx, reg, d);
  if (rc)
    return rc;
  if (tsl_registry_load_default(*reg, 0, NULL, d) != TSL_OK)
    warn(verb, "plugins", d->text,
         "the built-in intrinsics and those of the plugins loaded before it");
  if (tsl_registry_intrins(*reg, arena, out, d) == TSL_OK)
    return TSL_OK;
  warn(verb, "plugins", d->text, "the built-in intrinsics only");
  rc = tsl_intrin_registry_new(ctx, out, d);
  if (rc) {
    tsl_registry_free(*reg);
    *reg = NULL;
  }
  return rc;
}

int cli_script_intrins(const char *verb, tsl_ctx *ctx, tsl_arena *arena, const char *script,
                       tsl_registry **reg, tsl_intrin_registry **out, tsl_diag *d) {
  *reg = NULL;
  *out = NULL;
  char dir[4096];
  const char *slash = strrchr(script, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - script) : 1,
           slash ? script : ".");
  int rc = cli_registry_intrins(verb, ctx, arena, reg, out, d);
  if (rc == TSL_OK)
    rc = tsl_intrin_registry_add_dir(*out, arena, dir, NULL, d);
  if (rc) {
    tsl_intrin_registry_free(*out);
    tsl_registry_free(*reg);
    *out = NULL;
    *reg = NULL;
  }
  return rc;
}
