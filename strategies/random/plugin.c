/*
 * strategies/random/plugin.c — the plugin entry: registers the strategy
 * "random".
 */
#include "random_strategy.h"

#include "tessel/plugin.h"

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {
      .struct_size = sizeof(tsl_component),
      .kind = TSL_COMPONENT_STRATEGY,
      .name = "random",
      .version = "0.1.0",
      .summary = "replays the design space with fresh seeded decisions, "
                 "skipping measured ones (max_fail bounds failed samples)",
      .vtable = &rs_vtable,
      .user_data = NULL,
  };
  return host->register_component(session, &c, diag);
}
