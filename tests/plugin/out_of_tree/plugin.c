/*
 * A plugin as a vendor builds it out of tree: only the installed headers and
 *   cc -shared -fPIC -fvisibility=hidden plugin.c $(pkg-config --cflags --libs tessel)
 * It registers a tensor intrinsic (C[0:4] = A[0:4] * 2) and a schedule rule
 * that branches: every block but the root gets annotated "oot.branch" = 0
 * in the schedule it was given and = 1 in a fork of it.
 */
#include <tessel/plugin.h>
#include <tessel/rules.h>

#include <stdlib.h>
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
                                         "scale4_desc", "scale4_impl", NULL};
struct tsl_sch_rule {
  const tsl_host_api *host;
};

static int rule_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                       tsl_sch_rule **out, tsl_diag *diag) {
  (void)t;
  (void)opts;
  if (n)
    return tsl_diag_set(diag, TSL_EINVALID, "oot.rule: takes no options");
  *out = malloc(sizeof **out);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "oot.rule: out of memory");
  (*out)->host = ud;
  return TSL_OK;
}

static void rule_destroy(tsl_sch_rule *r) { free(r); }

static int mark(tsl_schedule *sch, tsl_sch_rv block, int64_t branch, tsl_diag *diag) {
  tsl_sch_arg a[3] = {{NULL, tsl_sv_rv(block)},
                      {NULL, tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), "oot.branch"))},
                      {NULL, tsl_sv_int(branch)}};
  return tsl_sch_call(sch, "annotate", 3, a, NULL, NULL, diag);
}

static int rule_apply(tsl_sch_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                      tsl_schedule_list *out, tsl_diag *diag) {
  (void)r;
  tsl_schedule *fork = NULL;
  int rc = TSL_OK;
  if (!tsl_sch_is_root_block(sch, block)) {
    rc = tsl_schedule_fork(sch, &fork, diag);
    if (!rc)
      rc = mark(sch, block, 0, diag);
    if (!rc)
      rc = mark(fork, block, 1, diag);
  }
  if (rc) {
    tsl_schedule_free(sch);
    tsl_schedule_free(fork);
    return rc;
  }
  tsl_schedule_list_push(out, sch);
  return fork ? tsl_schedule_list_push(out, fork) : TSL_OK;
}

static const tsl_schedule_rule_vtable rule_vt = {sizeof rule_vt, rule_create, rule_destroy,
                                                 rule_apply};

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
  c.vtable = &rule_vt;
  c.user_data = (void *)host;
  return host->register_component(session, &c, diag);
}
