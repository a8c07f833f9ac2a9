/*
 * Test plugin: misbehaves as the option tp_bad.case says — kind, name,
 * empty, null_vtable, vtable_size0, small_struct, twice (one name twice),
 * ignored (a refused registration whose status the entry ignores), late
 * (loads fine, then tp_bad_register_late() registers after init returned).
 */
#include "tessel/plugin.h"
#include "tessel/rules.h"

#include <string.h>

static const tsl_postproc_vtable real_vt = {.struct_size = sizeof real_vt};
static const void *const vt = &real_vt;
static const uint32_t vt_zero[2] = {0, 0};
static const uint32_t vt_small[2] = {sizeof vt_small, 0};

/* Kept by the "late" case (test plugin only: real plugins hold no state). */
static const tsl_host_api *saved_host;
static tsl_plugin_session *saved_session;

__attribute__((visibility("default"))) int tp_bad_register_late(
    tsl_diag *diag) {
  tsl_component c = {.struct_size = sizeof c,
                     .kind = TSL_COMPONENT_POSTPROC,
                     .name = "tp_bad_late1",
                     .version = "0.1",
                     .vtable = vt};
  return saved_host->register_component(saved_session, &c, diag);
}

__attribute__((visibility("default"))) const char *tp_bad_option_late(
    const char *key) {
  return saved_host->get_option(saved_session, key);
}

TSL_PLUGIN_ENTRY(host, session, diag) {
  const char *what = host->get_option(session, "tp_bad.case");
  if (!what)
    return tsl_diag_set(diag, TSL_EINVALID, "tp_bad: set tp_bad.case");
  tsl_component c = {.struct_size = sizeof c,
                     .kind = TSL_COMPONENT_POSTPROC,
                     .name = "tp_bad_postproc",
                     .version = "0.1",
                     .vtable = vt};
  if (!strcmp(what, "kind"))
    c.kind = 99;
  else if (!strcmp(what, "name"))
    c.name = "bad name!";
  else if (!strcmp(what, "empty"))
    c.name = "";
  else if (!strcmp(what, "null_vtable"))
    c.vtable = NULL;
  else if (!strcmp(what, "vtable_size0"))
    c.vtable = vt_zero;
  else if (!strcmp(what, "vtable_small"))
    c.vtable = vt_small;
  else if (!strcmp(what, "small_struct"))
    c.struct_size = 8;
  else if (!strcmp(what, "ignored")) {
    c.kind = 0;
    host->register_component(session, &c, diag);
    return 0;
  } else if (!strcmp(what, "late")) {
    saved_host = host;
    saved_session = session;
    c.name = "tp_bad_late0";
  }
  int rc = host->register_component(session, &c, diag);
  if (rc || strcmp(what, "twice"))
    return rc;
  return host->register_component(session, &c, diag);
}
