/*
 * host_api.c: the host API table every plugin entry receives — allocation,
 * component registration (staged in the load's session), plugin options
 * and logging. The table itself is a static const: the session pointer
 * carries all per-load state.
 */
#include "plugin_internal.h"
#include "tessel/tessel.h"

#include <stdlib.h>
#include <string.h>

static void *host_alloc(size_t size) { return malloc(size ? size : 1); }

static void host_free(void *ptr) { free(ptr); }

static int host_register(tsl_plugin_session *s, const tsl_component *c,
                         tsl_diag *diag) {
  tsl_diag local = {.struct_size = sizeof local};
  if (!s)
    return tsl_diag_set(diag, TSL_EINVALID, "register_component: NULL session");
  if (!s->open) {
    tsl_diag_set(&local, TSL_EINVALID,
                 "register_component: %s registered a component after its "
                 "tessel_plugin_init returned; components are registered "
                 "only from inside the entry",
                 s->path);
    if (diag)
      *diag = local;
    return TSL_EINVALID;
  }
  int rc = plg_stage(s, c, TSL_ABI_VERSION, &local);
  if (rc && !s->failed) {
    /* The load fails even if the plugin ignores the status. */
    s->failed = 1;
    s->error = local;
  }
  if (rc && diag)
    memcpy(diag, &local, sizeof local);
  return rc;
}

static const char *host_get_option(tsl_plugin_session *s, const char *key) {
  return s ? plg_option_get(s->reg, key) : NULL;
}

static void host_log(tsl_plugin_session *s, int32_t level, const char *text) {
  fprintf(stderr, "tessel: %s: %s: %s\n", s ? s->path : "plugin",
          level >= 1 ? "warning" : "info", text ? text : "");
}

static const tsl_host_api host_api = {
    .struct_size = sizeof(tsl_host_api),
    .abi_version = TSL_ABI_VERSION,
    .host_version = TSL_VERSION_STRING,
    .alloc = host_alloc,
    .free = host_free,
    .register_component = host_register,
    .get_option = host_get_option,
    .log = host_log,
};

const tsl_host_api *plg_host_api(void) { return &host_api; }
