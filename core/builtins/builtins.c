/*
 * tsl_registry_new: a registry holding libtessel's built-in components —
 * the tensor intrinsics, then the schedule rules, postprocessors and
 * mutators of core/rules, then the graph passes of core/passes, then the
 * library functions of core/model. The
 * registry itself (core/plugin) knows none of them.
 */
#include "builtins_internal.h"
#include "model_internal.h"
#include "passes_internal.h"
#include "plugin_internal.h"
#include "rules_internal.h"

int tsl_registry_new(tsl_ctx *ctx, tsl_registry **out, tsl_diag *diag) {
  int rc = plg_registry_alloc(ctx, out, diag);
  if (rc)
    return rc;
  rc = builtins_register_intrins(*out, diag);
  if (!rc)
    rc = rules_register_builtins(*out, diag);
  if (!rc)
    rc = passes_register_builtins(*out, diag);
  if (!rc)
    rc = model_register_builtins(*out, diag);
  if (rc) {
    tsl_registry_free(*out);
    *out = NULL;
  }
  return rc;
}
