/* Test plugin: built for a newer minor version of ABI 1 (1.99, beyond any host) whose
 * tsl_component has a field appended; the host serves it and ignores what it
 * does not know. */
#include "tessel/plugin.h"
#include "tessel/search.h"

typedef struct tp_future_component {
  tsl_component base;     /* the 1.0 fields */
  uint32_t future_flags;  /* appended "in 1.99" */
} tp_future_component;

static const tsl_cost_model_vtable vt = {.struct_size = sizeof vt};

__attribute__((visibility("default"))) int tessel_plugin_init(
    const tsl_host_api *host, tsl_plugin_session *session,
    uint32_t *plugin_abi, tsl_diag *diag) {
  *plugin_abi = TSL_ABI_MAKE(1, 99);
  if (host->struct_size < offsetof(tsl_host_api, log) + sizeof host->log)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "host table too small");
  tp_future_component c = {
      .base = {.struct_size = sizeof c,
               .kind = TSL_COMPONENT_COST_MODEL,
               .name = "tp_minor_cost",
               .version = "1.99.0",
               .summary = "cost model from a newer minor ABI",
               .vtable = &vt,
               .user_data = NULL},
      .future_flags = 0xffffffffu};
  return host->register_component(session, &c.base, diag);
}
