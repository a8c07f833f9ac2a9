/*
 * strategies/evolutionary/plugin.c — the plugin entry: registers the
 * strategy "evolutionary".
 */
#include "evolutionary.h"

#include "tessel/plugin.h"

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {
      .struct_size = sizeof(tsl_component),
      .kind = TSL_COMPONENT_STRATEGY,
      .name = "evolutionary",
      .version = "0.1.0",
      .summary = "TVM's evolutionary search: a population from the database's best and "
                 "fresh samples, evolved by mutators and ranked by the cost model",
      .vtable = &evo_vtable,
      .user_data = (void *)"evolutionary",
  };
  return host->register_component(session, &c, diag);
}
