/*
 * registry.c: the component registry — kinds, validation and staging of
 * registrations, lookups, listing, plugin options, creation and teardown
 * (plugins are dlclose'd last, after everything that may point into them).
 */
#include "plugin_internal.h"
#include "tessel/library.h"
#include "tessel/pass.h"
#include "tessel/rules.h"
#include "tessel/search.h"
#include "tessel/target.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  uint32_t kind;
  const char *name;
} kinds[] = {
#define TSL_X_(id, v, name) {v, name},
    TSL_COMPONENT_KINDS(TSL_X_)
#undef TSL_X_
};
enum { N_KINDS = sizeof kinds / sizeof kinds[0] };

/* The size of each kind's vtable at ABI 1.0, the least a component may
 * hand over; whoever reads a field appended later checks struct_size. */
static size_t vtable_min_size(uint32_t kind, const char **type) {
  switch (kind) {
  case TSL_COMPONENT_TARGET:
    *type = "tsl_target_vtable";
    return offsetof(tsl_target_vtable, space_defaults);
  case TSL_COMPONENT_STRATEGY:
    *type = "tsl_strategy_vtable";
    return offsetof(tsl_strategy_vtable, generate_cands);
  case TSL_COMPONENT_COST_MODEL:
    *type = "tsl_cost_model_vtable";
    return sizeof(tsl_cost_model_vtable);
  case TSL_COMPONENT_SCHEDULE_RULE:
    *type = "tsl_schedule_rule_vtable";
    return sizeof(tsl_schedule_rule_vtable);
  case TSL_COMPONENT_POSTPROC:
    *type = "tsl_postproc_vtable";
    return sizeof(tsl_postproc_vtable);
  case TSL_COMPONENT_MUTATOR:
    *type = "tsl_trace_mutator_vtable";
    return sizeof(tsl_trace_mutator_vtable);
  case TSL_COMPONENT_PASS:
    *type = "tsl_pass_vtable";
    return sizeof(tsl_pass_vtable);
  case TSL_COMPONENT_LIBRARY:
    *type = "tsl_library_vtable";
    return sizeof(tsl_library_vtable);
  default:
    *type = "tsl_intrin_vtable";
    return sizeof(tsl_intrin_vtable);
  }
}

const char *tsl_component_kind_name(uint32_t kind) {
  for (uint32_t i = 0; i < N_KINDS; i++)
    if (kinds[i].kind == kind)
      return kinds[i].name;
  return NULL;
}

uint32_t tsl_component_kind_lookup(const char *name) {
  for (uint32_t i = 0; name && i < N_KINDS; i++)
    if (strcmp(kinds[i].name, name) == 0)
      return kinds[i].kind;
  return 0;
}

/* The functions a vtable of each kind must have, by offset. */
typedef struct required_fn {
  uint32_t kind;
  const char *name;
  size_t offset;
  size_t alt; /* another field that may stand in for it (0: none) */
} required_fn;

#define REQ(kind, type, field) {TSL_COMPONENT_##kind, #field, offsetof(type, field), 0}
static const required_fn required_fns[] = {
    REQ(TARGET, tsl_target_vtable, create),
    REQ(TARGET, tsl_target_vtable, destroy),
    REQ(TARGET, tsl_target_vtable, describe),
    REQ(TARGET, tsl_target_vtable, build),
    REQ(TARGET, tsl_target_vtable, lookup),
    REQ(TARGET, tsl_target_vtable, kernel_free),
    REQ(TARGET, tsl_target_vtable, export_library),
    REQ(STRATEGY, tsl_strategy_vtable, create),
    REQ(STRATEGY, tsl_strategy_vtable, destroy),
    REQ(STRATEGY, tsl_strategy_vtable, pre_tuning),
    {TSL_COMPONENT_STRATEGY, "generate or generate_cands", offsetof(tsl_strategy_vtable, generate),
     offsetof(tsl_strategy_vtable, generate_cands)},
    REQ(STRATEGY, tsl_strategy_vtable, notify),
    REQ(STRATEGY, tsl_strategy_vtable, post_tuning),
    REQ(COST_MODEL, tsl_cost_model_vtable, create),
    REQ(COST_MODEL, tsl_cost_model_vtable, destroy),
    REQ(COST_MODEL, tsl_cost_model_vtable, update),
    REQ(COST_MODEL, tsl_cost_model_vtable, predict),
    REQ(SCHEDULE_RULE, tsl_schedule_rule_vtable, create),
    REQ(SCHEDULE_RULE, tsl_schedule_rule_vtable, apply),
    REQ(POSTPROC, tsl_postproc_vtable, create),
    REQ(POSTPROC, tsl_postproc_vtable, apply),
    REQ(MUTATOR, tsl_trace_mutator_vtable, create),
    REQ(MUTATOR, tsl_trace_mutator_vtable, apply),
    REQ(PASS, tsl_pass_vtable, run),
};
#undef REQ

/* The required functions `c`'s vtable leaves NULL, comma-separated in sb. */
static uint32_t missing_functions(const tsl_component *c, tsl_strbuf *sb) {
  typedef void (*any_fn)(void);
  uint32_t n = 0;
  for (size_t i = 0; i < sizeof required_fns / sizeof required_fns[0]; i++) {
    const required_fn *r = &required_fns[i];
    if (r->kind != c->kind)
      continue;
    any_fn fn, alt = NULL;
    memcpy(&fn, (const char *)c->vtable + r->offset, sizeof fn);
    if (r->alt && *(const uint32_t *)c->vtable >= r->alt + sizeof alt)
      memcpy(&alt, (const char *)c->vtable + r->alt, sizeof alt);
    if (!fn && !alt)
      tsl_strbuf_printf(sb, "%s%s", n++ ? ", " : "", r->name);
  }
  return n;
}

void plg_diag_prefix(tsl_diag *diag, const char *prefix) {
  if (!diag)
    return;
  char *old = malloc(diag->len + 1);
  if (!old)
    return;
  memcpy(old, diag->text, diag->len + 1);
  tsl_diag_set(diag, TSL_OK, "%s: %s", prefix, old);
  free(old);
}

/* ---- validation and staging ----------------------------------------------- */

static int name_ok(const char *s) {
  size_t n = 0;
  for (; s[n]; n++) {
    char ch = s[n];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
          (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-'))
      return 0;
    if (n >= PLG_NAME_MAX)
      return 0;
  }
  return n > 0;
}

static const plg_entry *entries_find(const tsl_vec *e, uint32_t kind,
                                     const char *name) {
  const plg_entry *items = TSL_VEC_DATA(e, const plg_entry);
  for (uint32_t i = 0; i < e->len; i++)
    if (items[i].c.kind == kind && strcmp(items[i].c.name, name) == 0)
      return &items[i];
  return NULL;
}

static int validate(const tsl_component *c, tsl_diag *diag) {
  if (!c)
    return tsl_diag_set(diag, TSL_EINVALID, "register_component: NULL component");
  if (c->struct_size < PLG_COMPONENT_MIN_SIZE)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "register_component: tsl_component.struct_size is %u; "
                        "it must be at least %zu (every field up to vtable) "
                        "and is normally sizeof(tsl_component) = %zu",
                        c->struct_size, (size_t)PLG_COMPONENT_MIN_SIZE,
                        sizeof(tsl_component));
  const char *kind = tsl_component_kind_name(c->kind);
  if (!kind) {
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    for (uint32_t i = 0; i < N_KINDS; i++)
      tsl_strbuf_printf(&sb, "%s%u (%s)", i ? ", " : "", kinds[i].kind,
                        kinds[i].name);
    tsl_diag_set(diag, TSL_EINVALID,
                 "register_component: component '%s' has unknown kind %u; "
                 "valid kinds: %s",
                 c->name ? c->name : "(null)", c->kind, sb.data);
    tsl_strbuf_free(&sb);
    return TSL_EINVALID;
  }
  if (!c->name || !name_ok(c->name))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "register_component: %s name '%.*s' is not valid; a "
                        "name is 1 to %d characters of A-Z a-z 0-9 _ . -",
                        kind, PLG_NAME_MAX + 8, c->name ? c->name : "(null)",
                        PLG_NAME_MAX);
  if (!c->vtable)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "register_component: %s '%s' has a NULL vtable",
                        kind, c->name);
  uint32_t size = *(const uint32_t *)c->vtable;
  if (size == 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "register_component: %s '%s': the vtable's "
                        "struct_size is 0; set it to sizeof of the vtable "
                        "struct",
                        kind, c->name);
  const char *type;
  size_t need = vtable_min_size(c->kind, &type);
  if (size < need)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "register_component: %s '%s': the vtable's struct_size "
                        "is %u, smaller than a %s of ABI 1.0 (%zu bytes); set "
                        "it to sizeof(%s)",
                        kind, c->name, size, type, need, type);
  return TSL_OK;
}

int plg_stage(tsl_plugin_session *s, const tsl_component *c, uint32_t abi,
              tsl_diag *diag) {
  int rc = validate(c, diag);
  if (rc)
    return rc;
  const char *kind = tsl_component_kind_name(c->kind);
  const plg_entry *old = entries_find(&s->reg->entries, c->kind, c->name);
  if (old)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "register_component: duplicate %s '%s': already "
                        "registered by %s",
                        kind, c->name, old->path);
  if (entries_find(&s->staged, c->kind, c->name))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "register_component: duplicate %s '%s': registered "
                        "twice by %s",
                        kind, c->name, s->path);
  plg_entry e = {.path = s->path, .abi = abi};
  size_t n = c->struct_size < sizeof e.c ? c->struct_size : sizeof e.c;
  memcpy(&e.c, c, n);
  e.c.struct_size = (uint32_t)sizeof e.c;
  if (!e.c.version)
    e.c.version = "";
  TSL_VEC_PUSH(&s->staged, plg_entry, e);
  return TSL_OK;
}

void plg_commit(tsl_plugin_session *s) {
  tsl_vec_append(&s->reg->entries, s->staged.data, s->staged.len);
  tsl_vec_free(&s->staged);
}

/* ---- the public API ---------------------------------------------------------- */

int plg_registry_alloc(tsl_ctx *ctx, tsl_registry **out, tsl_diag *diag) {
  *out = calloc(1, sizeof **out);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "registry: out of memory");
  (*out)->ctx = ctx;
  tsl_vec_init(&(*out)->entries, sizeof(plg_entry), NULL);
  tsl_vec_init(&(*out)->plugins, sizeof(plg_plugin), NULL);
  tsl_vec_init(&(*out)->options, sizeof(plg_option), NULL);
  return TSL_OK;
}

void tsl_registry_free(tsl_registry *reg) {
  if (!reg)
    return;
  tsl_vec_free(&reg->entries);
  for (uint32_t i = 0; i < reg->options.len; i++) {
    plg_option *o = &TSL_VEC_AT(&reg->options, plg_option, i);
    free(o->key);
    free(o->value);
  }
  tsl_vec_free(&reg->options);
  /* Last: unload in reverse load order. */
  for (uint32_t i = reg->plugins.len; i-- > 0;) {
    plg_plugin *p = &TSL_VEC_AT(&reg->plugins, plg_plugin, i);
    if (p->handle)
      dlclose(p->handle);
    free(p->path);
    free(p->real);
    if (p->session)
      tsl_vec_free(&p->session->staged);
    free(p->session);
  }
  tsl_vec_free(&reg->plugins);
  free(reg);
}

int tsl_registry_add(tsl_registry *reg, const tsl_component *c,
                     tsl_diag *diag) {
  if (!reg)
    return tsl_diag_set(diag, TSL_EINVALID, "registry_add: NULL registry");
  tsl_plugin_session s = {.reg = reg, .path = "built-in", .open = 1};
  tsl_vec_init(&s.staged, sizeof(plg_entry), NULL);
  int rc = plg_stage(&s, c, TSL_ABI_VERSION, diag);
  if (!rc)
    plg_commit(&s);
  tsl_vec_free(&s.staged);
  return rc;
}

const tsl_component *tsl_registry_find(const tsl_registry *reg, uint32_t kind,
                                       const char *name) {
  if (!reg || !name)
    return NULL;
  const plg_entry *e = entries_find(&reg->entries, kind, name);
  return e ? &e->c : NULL;
}

int tsl_registry_require(const tsl_registry *reg, uint32_t kind,
                         const char *name, const tsl_component **out,
                         tsl_diag *diag) {
  *out = NULL;
  const char *kname = tsl_component_kind_name(kind);
  if (!kname)
    return tsl_diag_set(diag, TSL_EINVALID, "unknown component kind %u", kind);
  *out = tsl_registry_find(reg, kind, name);
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  if (*out) {
    int rc = TSL_OK;
    if (missing_functions(*out, &sb)) {
      rc = tsl_diag_set(diag, TSL_EINVALID, "%s '%s': its vtable lacks %s, which a %s must "
                        "have", kname, name, sb.data, kname);
      *out = NULL;
    }
    tsl_strbuf_free(&sb);
    return rc;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; reg && i < reg->entries.len; i++)
    if (TSL_VEC_AT(&reg->entries, plg_entry, i).c.kind == kind)
      tsl_strbuf_printf(&sb, "%s%s", n++ ? ", " : "",
                        TSL_VEC_AT(&reg->entries, plg_entry, i).c.name);
  if (n)
    tsl_diag_set(diag, TSL_ENOTFOUND, "no %s named '%s'\nnote: valid %s names: %s",
                 kname, name ? name : "(null)", kname, sb.data);
  else
    tsl_diag_set(diag, TSL_ENOTFOUND,
                 "no %s named '%s'\nnote: no %s is registered; plugins are "
                 "searched in the build tree, <libdir>/tessel/plugins and "
                 "TESSEL_PLUGIN_PATH (see `tessel plugins`)",
                 kname, name ? name : "(null)", kname);
  tsl_strbuf_free(&sb);
  return TSL_ENOTFOUND;
}

uint32_t tsl_registry_count(const tsl_registry *reg) {
  return reg ? reg->entries.len : 0;
}

const tsl_component *tsl_registry_get(const tsl_registry *reg, uint32_t k) {
  return reg && k < reg->entries.len ? &TSL_VEC_AT(&reg->entries, plg_entry, k).c : NULL;
}

const char *tsl_registry_path(const tsl_registry *reg, uint32_t k) {
  return reg && k < reg->entries.len ? TSL_VEC_AT(&reg->entries, plg_entry, k).path : NULL;
}

uint32_t tsl_registry_abi(const tsl_registry *reg, uint32_t k) {
  return reg && k < reg->entries.len ? TSL_VEC_AT(&reg->entries, plg_entry, k).abi : 0;
}

/* ---- options ------------------------------------------------------------------ */

const char *plg_option_get(const tsl_registry *reg, const char *key) {
  for (uint32_t i = 0; reg && key && i < reg->options.len; i++)
    if (strcmp(TSL_VEC_AT(&reg->options, plg_option, i).key, key) == 0)
      return TSL_VEC_AT(&reg->options, plg_option, i).value;
  return NULL;
}

char *plg_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

int tsl_registry_set_option(tsl_registry *reg, const char *key,
                            const char *value, tsl_diag *diag) {
  if (!reg)
    return tsl_diag_set(diag, TSL_EINVALID, "plugin option: NULL registry");
  if (!key || !*key || !value)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "plugin option: a non-empty key and a value are "
                        "required");
  char *v = plg_strdup(value);
  if (!v)
    return tsl_diag_set(diag, TSL_ENOMEM, "plugin option: out of memory");
  for (uint32_t i = 0; i < reg->options.len; i++) {
    plg_option *o = &TSL_VEC_AT(&reg->options, plg_option, i);
    if (strcmp(o->key, key) == 0) {
      free(o->value);
      o->value = v;
      return TSL_OK;
    }
  }
  char *k = plg_strdup(key);
  if (!k) {
    free(v);
    return tsl_diag_set(diag, TSL_ENOMEM, "plugin option: out of memory");
  }
  plg_option *o = tsl_vec_push(&reg->options);
  o->key = k;
  o->value = v;
  return TSL_OK;
}
