/*
 * intrin_bridge.c: from the registry to tensorize. tsl_registry_intrins
 * parses the INTRIN components into a tsl_intrin_registry, which starts
 * with libtessel's built-in intrinsics already parsed.
 */
#include "plugin_internal.h"
#include "tessel/tessel.h"
#include "tz_internal.h"

#include <stdlib.h>
#include <string.h>

/* Parse one INTRIN component and add it to `ir`. */
static int add_intrin(tsl_intrin_registry *ir, tsl_arena *arena,
                      const tsl_component *c, const char *path,
                      tsl_diag *diag) {
  const tsl_intrin_vtable *vt = c->vtable;
  const size_t need = offsetof(tsl_intrin_vtable, impl_func) + sizeof(char *);
  if (vt->struct_size < need)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "tsl_intrin_vtable.struct_size is %u; at least %zu is "
                        "needed (script, desc_func, impl_func)",
                        vt->struct_size, need);
  if (!vt->script || !vt->desc_func || !vt->impl_func)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "the intrinsic's script, desc_func and impl_func must "
                        "all be set");
  tsl_strbuf fn;
  tsl_strbuf_init(&fn);
  tsl_strbuf_printf(&fn, "%s[intrin %s]", path, c->name);
  const tsl_module *m;
  int rc = tsl_parse(arena, fn.data, vt->script, strlen(vt->script), &m, diag);
  tsl_strbuf_free(&fn);
  if (rc)
    return rc;
  const char *names[2] = {vt->desc_func, vt->impl_func};
  const tsl_func *f[2];
  for (int k = 0; k < 2; k++) {
    f[k] = tsl_module_find(m, names[k]);
    if (f[k])
      continue;
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    for (uint32_t i = 0; i < m->n_funcs; i++)
      tsl_strbuf_printf(&sb, "%s%s", i ? ", " : "", m->funcs[i]->name);
    tsl_diag_set(diag, TSL_EINVALID,
                 "the script has no %s function '%s'\nnote: its functions: %s",
                 k ? "implementation" : "description", names[k],
                 sb.len ? sb.data : "(none)");
    tsl_strbuf_free(&sb);
    return TSL_EINVALID;
  }
  rc = tsl_intrin_registry_add(ir, c->name, f[0], f[1], diag);
  const size_t with_requires = offsetof(tsl_intrin_vtable, requires) + sizeof(char *);
  if (!rc && vt->struct_size >= with_requires && vt->requires)
    rc = tsl_intrin_registry_set_requires(ir, c->name, vt->requires, diag);
  return rc;
}

int tsl_registry_intrins(const tsl_registry *reg, tsl_arena *arena,
                         tsl_intrin_registry **out, tsl_diag *diag) {
  *out = NULL;
  if (!reg || !arena)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "tsl_registry_intrins: a registry and an arena are "
                        "required");
  tsl_intrin_registry *ir;
  int rc = tsl_intrin_registry_new(tsl_arena_ctx(arena), &ir, diag);
  if (rc)
    return rc;
  for (uint32_t k = 0; k < reg->entries.len; k++) {
    const plg_entry *e = &TSL_VEC_AT(&reg->entries, plg_entry, k);
    if (e->c.kind != TSL_COMPONENT_INTRIN)
      continue;
    /* The built-ins are in `ir` already; names are unique in the registry,
     * so a name `ir` has is a built-in's. */
    if (tsl_intrin_registry_get(ir, e->c.name, NULL, NULL))
      continue;
    rc = add_intrin(ir, arena, &e->c, e->path, diag);
    if (rc) {
      tsl_strbuf sb;
      tsl_strbuf_init(&sb);
      tsl_strbuf_printf(&sb, "intrin '%s' (%s)", e->c.name, e->path);
      plg_diag_prefix(diag, sb.data);
      tsl_strbuf_free(&sb);
      tsl_intrin_registry_free(ir);
      return rc;
    }
  }
  *out = ir;
  return TSL_OK;
}
