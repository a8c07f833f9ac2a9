/*
 * strategies/sketch/plugin.c — the plugin entry: registers the strategy
 * "sketch".
 */
#include "sketch_strategy.h"

#include "tessel/plugin.h"

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {
      .struct_size = sizeof(tsl_component),
      .kind = TSL_COMPONENT_STRATEGY,
      .name = "sketch",
      .version = "0.1.0",
      .summary = "Ansor's search: sketches from its CPU rules, randomly annotated, evolved "
                 "with its parameters and ranked by the cost model",
      .vtable = &sketch_vtable,
      .user_data = NULL,
  };
  return host->register_component(session, &c, diag);
}
