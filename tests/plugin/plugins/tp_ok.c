/*
 * Test plugin: a well-behaved plugin registering two components of different
 * kinds — a strategy (with a function in its vtable and user_data) and a
 * tensor intrinsic handed over as an older, smaller tsl_component (no
 * user_data field). Option tp_ok.mode=refuse makes its entry fail.
 */
#include "tessel/plugin.h"
#include "tessel/search.h"

#include <stddef.h>
#include <string.h>

/* create() hands back its user_data as the instance. */
static int answer(void *user_data, uint32_t n_opts, const tsl_kv *opts, tsl_strategy **out,
                  tsl_diag *diag) {
  (void)n_opts;
  (void)opts;
  (void)diag;
  *out = user_data;
  return TSL_OK;
}

static const int32_t forty_two = 42;
static const tsl_strategy_vtable strategy_vt = {.struct_size = sizeof strategy_vt,
                                                .create = answer};

static const char add4_script[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def tp_add4_desc(a: T.handle, b: T.handle, c: T.handle):\n"
    "        A = T.match_buffer(a, (4,), \"float32\", offset_factor=1)\n"
    "        B = T.match_buffer(b, (4,), \"float32\", offset_factor=1)\n"
    "        C = T.match_buffer(c, (4,), \"float32\", offset_factor=1)\n"
    "        with T.block(\"root\"):\n"
    "            T.reads(A[0:4], B[0:4])\n"
    "            T.writes(C[0:4])\n"
    "            for i in range(4):\n"
    "                with T.block(\"add\"):\n"
    "                    vi = T.axis.spatial(4, i)\n"
    "                    T.reads(A[vi], B[vi])\n"
    "                    T.writes(C[vi])\n"
    "                    C[vi] = A[vi] + B[vi]\n"
    "\n"
    "    @T.prim_func\n"
    "    def tp_add4_impl(a: T.handle, b: T.handle, c: T.handle):\n"
    "        A = T.match_buffer(a, (4,), \"float32\", offset_factor=1)\n"
    "        B = T.match_buffer(b, (4,), \"float32\", offset_factor=1)\n"
    "        C = T.match_buffer(c, (4,), \"float32\", offset_factor=1)\n"
    "        with T.block(\"root\"):\n"
    "            T.reads(A[0:4], B[0:4])\n"
    "            T.writes(C[0:4])\n"
    "            for i in T.vectorized(4):\n"
    "                C[i] = A[i] + B[i]\n";

static const tsl_intrin_vtable add4_vt = {sizeof add4_vt, add4_script,
                                          "tp_add4_desc", "tp_add4_impl", NULL};

TSL_PLUGIN_ENTRY(host, session, diag) {
  const char *mode = host->get_option(session, "tp_ok.mode");
  if (mode && strcmp(mode, "refuse") == 0)
    return tsl_diag_set(diag, TSL_EINVALID, "tp_ok refuses: tp_ok.mode=%s",
                        mode);
  tsl_component s = {.struct_size = sizeof s,
                     .kind = TSL_COMPONENT_STRATEGY,
                     .name = "tp.ok-strategy",
                     .version = "1.2.3",
                     .summary = "test strategy answering 42",
                     .vtable = &strategy_vt,
                     .user_data = (void *)&forty_two};
  int rc = host->register_component(session, &s, diag);
  if (rc)
    return rc;
  /* As a plugin built before user_data existed would hand it over: the
   * host must not read the field (set here only to catch a reader). */
  tsl_component i = {.struct_size = offsetof(tsl_component, user_data),
                     .kind = TSL_COMPONENT_INTRIN,
                     .name = "tp_ok_add4",
                     .version = "0.0.1",
                     .summary = NULL,
                     .vtable = &add4_vt,
                     .user_data = (void *)&forty_two};
  return host->register_component(session, &i, diag);
}
