/*
 * targets/cuda/plugin.c — the plugin entry: registers the target "cuda".
 * Built only into the shared module (tests link the code without it).
 */
#include "cuda_internal.h"

#include "tessel/plugin.h"

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {
      .struct_size = sizeof(tsl_component),
      .kind = TSL_COMPONENT_TARGET,
      .name = "cuda",
      .version = "0.1.0",
      .summary = "NVIDIA GPUs: CUDA C through NVRTC, the driver API (both opened at run time)",
      .vtable = &tcu_vtable,
      .user_data = NULL,
  };
  return host->register_component(session, &c, diag);
}
