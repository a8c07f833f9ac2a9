/* Test plugin: registers a component, then its init fails with a message;
 * the host must keep nothing of it. */
#include "tessel/plugin.h"
#include "tessel/rules.h"

static const tsl_schedule_rule_vtable vt = {.struct_size = sizeof vt};

TSL_PLUGIN_ENTRY(host, session, diag) {
  tsl_component c = {.struct_size = sizeof c,
                     .kind = TSL_COMPONENT_SCHEDULE_RULE,
                     .name = "tp_initfail_rule",
                     .version = "0.1",
                     .vtable = &vt};
  int rc = host->register_component(session, &c, diag);
  if (rc)
    return rc;
  return tsl_diag_set(diag, TSL_ERUNTIME,
                      "tp_initfail: no device /dev/tp0 (set the "
                      "tp_initfail.device option)");
}
