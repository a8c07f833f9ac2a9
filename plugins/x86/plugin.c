/*
 * plugins/x86/plugin.c — the plugin entry: one TSL_COMPONENT_INTRIN per
 * row of x86_intrins.c, with the CPU features it needs.
 */
#include "x86_intrins.h"

#include "tessel/plugin.h"

#include <stdio.h>

enum { MAX_ROWS = 16, NAME_CAP = 96 };

/* The vtables and function names, static: they live as long as the plugin. */
static tsl_intrin_vtable vts[MAX_ROWS];
static char desc_names[MAX_ROWS][NAME_CAP], impl_names[MAX_ROWS][NAME_CAP];

TSL_PLUGIN_ENTRY(host, session, diag) {
  uint32_t n;
  const x86_intrin *rows = x86_intrins(&n);
  if (n > MAX_ROWS)
    return tsl_diag_set(diag, TSL_EINVALID, "x86: %u intrinsics, room for %d", n, MAX_ROWS);
  for (uint32_t i = 0; i < n; i++) {
    snprintf(desc_names[i], NAME_CAP, "%s_desc", rows[i].name);
    snprintf(impl_names[i], NAME_CAP, "%s_impl", rows[i].name);
    vts[i] = (tsl_intrin_vtable){.struct_size = sizeof vts[i],
                                 .script = rows[i].script,
                                 .desc_func = desc_names[i],
                                 .impl_func = impl_names[i],
                                 .requires = rows[i].requires};
    tsl_component c = {.struct_size = sizeof c,
                       .kind = TSL_COMPONENT_INTRIN,
                       .name = rows[i].name,
                       .version = "0.1.0",
                       .summary = rows[i].summary,
                       .vtable = &vts[i],
                       .user_data = NULL};
    int rc = host->register_component(session, &c, diag);
    if (rc)
      return rc;
  }
  return TSL_OK;
}
