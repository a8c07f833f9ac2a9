/*
 * plugins/random/plugin.c — the plugin entry: registers the cost model
 * "random".
 */
#include "random_cost_model.h"

#include "tessel/plugin.h"

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {
      .struct_size = sizeof(tsl_component),
      .kind = TSL_COMPONENT_COST_MODEL,
      .name = "random",
      .version = "0.1.0",
      .summary = "uniform scores in [0, 1) from the run's seed (the "
                 "baseline)",
      .vtable = &rcm_vtable,
      .user_data = NULL,
  };
  return host->register_component(session, &c, diag);
}
