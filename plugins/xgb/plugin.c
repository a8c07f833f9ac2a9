/*
 * plugins/xgb/plugin.c — the plugin entry: registers the cost model "xgb".
 */
#include "xgb_model.h"

#include "tessel/plugin.h"

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {
      .struct_size = sizeof(tsl_component),
      .kind = TSL_COMPONENT_COST_MODEL,
      .name = "xgb",
      .version = "0.1.0",
      .summary = "XGBoost over TVM's per-store features, trained with the pack-sum "
                 "objective on normalized throughput (TVM's XGBModel)",
      .vtable = &xgb_vtable,
      .user_data = NULL,
  };
  return host->register_component(session, &c, diag);
}
