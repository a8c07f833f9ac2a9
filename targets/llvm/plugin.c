/*
 * targets/llvm/plugin.c — the plugin entry: registers the target "llvm".
 * Built only into the shared module (tests link the code without it).
 */
#include "llvm_internal.h"

#include "tessel/plugin.h"

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {
      .struct_size = sizeof(tsl_component),
      .kind = TSL_COMPONENT_TARGET,
      .name = "llvm",
      .version = "0.1.0",
      .summary = "CPU code through LLVM 19: O3, LLJIT, threads, "
                 ".o/.so export",
      .vtable = &tll_vtable,
      .user_data = NULL,
  };
  return host->register_component(session, &c, diag);
}
