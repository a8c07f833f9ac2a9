/* Test plugin: registers a mutator, then a strategy named like tp_ok's; the
 * second registration is refused and the whole load with it. */
#include "tessel/plugin.h"
#include "tessel/rules.h"
#include "tessel/search.h"

static const tsl_trace_mutator_vtable vt = {.struct_size = sizeof vt};
static const tsl_strategy_vtable strategy_vt = {.struct_size = sizeof strategy_vt};

TSL_PLUGIN_ENTRY(host, session, diag) {
  tsl_component m = {.struct_size = sizeof m,
                     .kind = TSL_COMPONENT_MUTATOR,
                     .name = "tp_dup_mutator",
                     .version = "0.1",
                     .vtable = &vt};
  int rc = host->register_component(session, &m, diag);
  if (rc)
    return rc;
  tsl_component s = m;
  s.kind = TSL_COMPONENT_STRATEGY;
  s.name = "tp.ok-strategy";
  s.vtable = &strategy_vt;
  return host->register_component(session, &s, diag);
}
