/*
 * core/config/config_plugins.c — tsl_run_config_check_plugins: the target,
 * strategy and cost_model kinds of a loaded config looked up in a plugin
 * registry; an unknown kind is an error at its location listing the names
 * registered for that component kind.
 */
#include "config_internal.h"

#include <stdio.h>
#include <string.h>

static int check_one(const tsl_run_config *c, const tsl_registry *reg,
                     uint32_t kind, const char *section,
                     const tsl_config_plugin *p, tsl_diag *diag) {
  if (!p->kind || tsl_registry_find(reg, kind, p->kind))
    return TSL_OK;
  char key[64];
  snprintf(key, sizeof key, "%s.kind", section);
  const char *where = tsl_run_config_where(c, key);
  tsl_strbuf names;
  tsl_strbuf_init(&names);
  uint32_t n = 0;
  for (uint32_t i = 0; reg && i < tsl_registry_count(reg); i++) {
    const tsl_component *comp = tsl_registry_get(reg, i);
    if (comp->kind == kind)
      tsl_strbuf_printf(&names, "%s%s", n++ ? ", " : "", comp->name);
  }
  const char *kname = tsl_component_kind_name(kind);
  if (n)
    tsl_diag_set(diag, TSL_ENOTFOUND,
                 "%s: error: %s: unknown %s, got '%s'; valid: %s",
                 where ? where : c->path, key, kname, p->kind, names.data);
  else
    tsl_diag_set(diag, TSL_ENOTFOUND,
                 "%s: error: %s: unknown %s, got '%s'; valid: none, no %s "
                 "plugin is registered (plugins are searched in the build "
                 "tree, <libdir>/tessel/plugins, TESSEL_PLUGIN_PATH and "
                 "plugin_paths; see `tessel plugins`)",
                 where ? where : c->path, key, kname, p->kind, kname);
  tsl_strbuf_free(&names);
  return TSL_ENOTFOUND;
}

int tsl_run_config_check_plugins(const tsl_run_config *c,
                                 const tsl_registry *reg, tsl_diag *diag) {
  if (!c)
    return tsl_diag_set(diag, TSL_EINVALID, "config: no config given");
  int rc = check_one(c, reg, TSL_COMPONENT_TARGET, "target", &c->target, diag);
  if (!rc)
    rc = check_one(c, reg, TSL_COMPONENT_STRATEGY, "strategy", &c->strategy, diag);
  if (!rc)
    rc = check_one(c, reg, TSL_COMPONENT_COST_MODEL, "cost_model",
                   &c->cost_model, diag);
  return rc;
}
