/*
 * A plugin as a vendor builds it out of tree: only the installed headers and
 *   cc -shared -fPIC -fvisibility=hidden plugin.c $(pkg-config --cflags --libs tessel)
 * It registers a tensor intrinsic (C[0:4] = A[0:4] * 2) and a schedule rule.
 */
#include <tessel/plugin.h>

#include <string.h>

static const char scale4_script[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def scale4_desc(a: T.handle, c: T.handle):\n"
    "        A = T.match_buffer(a, (4,), \"float32\", offset_factor=1)\n"
    "        C = T.match_buffer(c, (4,), \"float32\", offset_factor=1)\n"
    "        with T.block(\"root\"):\n"
    "            T.reads(A[0:4])\n"
    "            T.writes(C[0:4])\n"
    "            for i in range(4):\n"
    "                with T.block(\"scale\"):\n"
    "                    vi = T.axis.spatial(4, i)\n"
    "                    C[vi] = A[vi] * T.float32(2)\n"
    "\n"
    "    @T.prim_func\n"
    "    def scale4_impl(a: T.handle, c: T.handle):\n"
    "        A = T.match_buffer(a, (4,), \"float32\", offset_factor=1)\n"
    "        C = T.match_buffer(c, (4,), \"float32\", offset_factor=1)\n"
    "        with T.block(\"root\"):\n"
    "            T.reads(A[0:4])\n"
    "            T.writes(C[0:4])\n"
    "            for i in T.vectorized(4):\n"
    "                C[i] = A[i] * T.float32(2)\n";

static const tsl_intrin_vtable scale4 = {sizeof scale4, scale4_script,
                                         "scale4_desc", "scale4_impl"};
static const uint32_t rule_vt[2] = {sizeof rule_vt, 0};

TSL_PLUGIN_ENTRY(host, session, diag) {
  if (host->struct_size < sizeof(tsl_host_api))
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "oot: host API table too old");
  tsl_component c = {.struct_size = sizeof c,
                     .kind = TSL_COMPONENT_INTRIN,
                     .name = "oot_scale4",
                     .version = "0.3.0",
                     .summary = "out-of-tree test intrinsic",
                     .vtable = &scale4};
  int rc = host->register_component(session, &c, diag);
  if (rc)
    return rc;
  c.kind = TSL_COMPONENT_SCHEDULE_RULE;
  c.name = "oot.rule";
  c.summary = "out-of-tree test rule";
  c.vtable = rule_vt;
  return host->register_component(session, &c, diag);
}
