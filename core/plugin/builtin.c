/*
 * builtin.c: the core's own components and the bridge from the registry to
 * tensorize. The built-in tensor intrinsics (core/schedule/intrin_builtin.c)
 * are registered as INTRIN components through tsl_registry_add, their
 * script an @I.ir_module holding the description and the implementation.
 * tsl_registry_intrins parses every other INTRIN component into a
 * tsl_intrin_registry (which starts with the built-ins already parsed).
 */
#include "plugin_internal.h"
#include "tessel/tessel.h"
#include "rules_internal.h"
#include "tz_internal.h"

#include <stdlib.h>
#include <string.h>

/* The name after "def " in a prim_func's source. */
static int func_name(const char *src, char *out, size_t cap) {
  const char *p = strstr(src, "def ");
  if (!p)
    return 0;
  p += 4;
  size_t n = 0;
  while (p[n] && p[n] != '(' && n + 1 < cap)
    n++;
  if (p[n] != '(' || n == 0)
    return 0;
  memcpy(out, p, n);
  out[n] = '\0';
  return 1;
}

static void append_indented(tsl_strbuf *sb, const char *src) {
  while (*src) {
    const char *nl = strchr(src, '\n');
    size_t n = nl ? (size_t)(nl - src) : strlen(src);
    if (n)
      tsl_strbuf_append(sb, "    ");
    tsl_strbuf_append_n(sb, src, n);
    tsl_strbuf_append(sb, "\n");
    src += n + (nl ? 1 : 0);
  }
}

int plg_register_builtins(tsl_registry *reg, tsl_diag *diag) {
  uint32_t n;
  const tz_builtin *b = tz_builtins(&n);
  reg->builtins = calloc(n ? n : 1, sizeof *reg->builtins);
  if (!reg->builtins)
    return tsl_diag_set(diag, TSL_ENOMEM, "registry: out of memory");
  for (uint32_t i = 0; i < n; i++) {
    plg_builtin_intrin *bi = &reg->builtins[reg->n_builtins++];
    if (!func_name(b[i].desc_src, bi->desc_name, sizeof bi->desc_name) ||
        !func_name(b[i].impl_src, bi->impl_name, sizeof bi->impl_name))
      return tsl_diag_set(diag, TSL_EINVALID,
                          "built-in intrinsic '%s': no function name in its "
                          "source", b[i].name);
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    tsl_strbuf_append(&sb, "@I.ir_module\nclass Module:\n");
    append_indented(&sb, b[i].desc_src);
    tsl_strbuf_append(&sb, "\n");
    append_indented(&sb, b[i].impl_src);
    bi->script = tsl_strbuf_take(&sb);
    bi->vt = (tsl_intrin_vtable){.struct_size = sizeof bi->vt,
                                 .script = bi->script,
                                 .desc_func = bi->desc_name,
                                 .impl_func = bi->impl_name};
    tsl_component c = {.struct_size = sizeof c,
                       .kind = TSL_COMPONENT_INTRIN,
                       .name = b[i].name,
                       .version = TSL_VERSION_STRING,
                       .summary = "built-in tensor intrinsic",
                       .vtable = &bi->vt};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  return rules_register_builtins(reg, diag);
}

void plg_free_builtins(tsl_registry *reg) {
  for (uint32_t i = 0; i < reg->n_builtins; i++)
    free(reg->builtins[i].script);
  free(reg->builtins);
  reg->builtins = NULL;
  reg->n_builtins = 0;
}

static int is_core_builtin(const tsl_registry *reg, const void *vtable) {
  for (uint32_t i = 0; i < reg->n_builtins; i++)
    if (vtable == &reg->builtins[i].vt)
      return 1;
  return 0;
}

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
  return tsl_intrin_registry_add(ir, c->name, f[0], f[1], diag);
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
  for (uint32_t k = 0; k < reg->entries.n; k++) {
    const plg_entry *e = &reg->entries.items[k];
    if (e->c.kind != TSL_COMPONENT_INTRIN)
      continue;
    /* The core's built-ins are already in `ir`. */
    if (is_core_builtin(reg, e->c.vtable) &&
        tsl_intrin_registry_get(ir, e->c.name, NULL, NULL))
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
