/*
 * Tensor intrinsics a schedule script brings along: files named
 * `intrin__<name>__desc.py` and `intrin__<name>__impl.py` in the script's
 * folder (each one prim_func) are registered as intrinsic <name> next to
 * the built-in ones (tsl_intrin_registry_add_dir), as a TVM user registers
 * them with TensorIntrin.register before scheduling.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_script_intrins(tsl_ctx *ctx, tsl_arena *arena, const char *script,
                       tsl_intrin_registry **out, tsl_diag *d) {
  *out = NULL;
  char dir[4096];
  const char *slash = strrchr(script, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - script) : 1,
           slash ? script : ".");
  int rc = tsl_intrin_registry_new(ctx, out, d);
  uint32_t n = 0;
  if (rc == TSL_OK)
    rc = tsl_intrin_registry_add_dir(*out, arena, dir, &n, d);
  if (rc || n == 0) {
    tsl_intrin_registry_free(*out);
    *out = NULL;
  }
  return rc;
}
