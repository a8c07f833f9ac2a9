/* Test plugin: built for a future ABI major version 2. It registers a
 * component and succeeds; the host must refuse it and keep nothing. */
#include "tessel/plugin.h"
#include "tessel/target.h"

__attribute__((visibility("default"))) int tessel_plugin_init(
    const tsl_host_api *host, tsl_plugin_session *session,
    uint32_t *plugin_abi, tsl_diag *diag) {
  static const tsl_target_vtable vt = {.struct_size = sizeof vt};
  *plugin_abi = TSL_ABI_MAKE(2, 0);
  tsl_component c = {.struct_size = sizeof c,
                     .kind = TSL_COMPONENT_TARGET,
                     .name = "tp_abi2_target",
                     .version = "2.0.0",
                     .vtable = &vt};
  host->register_component(session, &c, diag);
  return 0;
}
