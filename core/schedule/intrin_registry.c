/*
 * intrin_registry.c: the tensor-intrinsic registry (tessel/schedule.h):
 * the built-ins of intrin_builtin.c, intrinsics registered one by one or
 * from the files of a folder, and the signature check every registration
 * passes (description and implementation take the same parameters, each
 * named in both root blocks' T.reads/T.writes).
 */
#include "tz_internal.h"

#include "tessel/container.h"
#include "tessel/script.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct intrin_entry {
  const char *name;
  const tsl_func *desc, *impl;
  const char *requires; /* NULL: none */
} intrin_entry;

struct tsl_intrin_registry {
  tsl_arena *arena; /* the built-ins' IR, names, entries */
  tsl_vec items;    /* intrin_entry, in registration order */
};

static int root_block(const tsl_func *f, const tsl_block **out) {
  if (!f->body || f->body->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  *out = f->body->u.realize.block;
  return 1;
}

const tsl_buffer_region *tz_find_region(const tsl_block *b, const tsl_buffer *buf) {
  for (uint32_t i = 0; i < b->n_reads; i++)
    if (b->reads[i].buffer == buf)
      return &b->reads[i];
  for (uint32_t i = 0; i < b->n_writes; i++)
    if (b->writes[i].buffer == buf)
      return &b->writes[i];
  return NULL;
}

/* Description and implementation must take the same parameters. */
static int check_signature(const char *name, const tsl_func *desc,
                           const tsl_func *impl, tsl_diag *diag) {
  if (desc->n_params != impl->n_params)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "intrinsic '%s': the description takes %u parameters "
                        "but the implementation %u",
                        name, desc->n_params, impl->n_params);
  const tsl_block *droot, *iroot;
  if (!root_block(desc, &droot) || !root_block(impl, &iroot))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "intrinsic '%s': a function body is not a root block",
                        name);
  for (uint32_t k = 0; k < desc->n_params; k++) {
    const tsl_buffer *d = desc->params[k].buffer, *i = impl->params[k].buffer;
    if (!d || !i)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "intrinsic '%s': parameter %u is not a buffer in "
                          "the %s; intrinsic parameters must be buffers",
                          name, k + 1, !d ? "description" : "implementation");
    char d1[32], d2[32];
    if (!tsl_dtype_eq(d->dtype, i->dtype))
      return tsl_diag_set(diag, TSL_EINVALID,
                          "intrinsic '%s': parameter %u ('%s') has dtype %s "
                          "in the description but %s in the implementation",
                          name, k + 1, d->name, tsl_dtype_str(d->dtype, d1),
                          tsl_dtype_str(i->dtype, d2));
    if (d->ndim != i->ndim || d->scope != i->scope)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "intrinsic '%s': parameter %u ('%s') has %u "
                          "dimensions in scope %s in the description but %u "
                          "in scope %s in the implementation",
                          name, k + 1, d->name, d->ndim, d->scope, i->ndim,
                          i->scope);
    for (uint32_t dim = 0; dim < d->ndim; dim++) {
      int64_t a, b;
      if (tsl_expr_is_const_int(d->shape[dim], &a) &&
          tsl_expr_is_const_int(i->shape[dim], &b) && a != b)
        return tsl_diag_set(diag, TSL_EINVALID,
                            "intrinsic '%s': parameter %u ('%s') has extent "
                            "%lld in dimension %u in the description but %lld "
                            "in the implementation",
                            name, k + 1, d->name, (long long)a, dim,
                            (long long)b);
    }
    if (!tz_find_region(droot, d) || !tz_find_region(iroot, i))
      return tsl_diag_set(diag, TSL_EINVALID,
                          "intrinsic '%s': parameter %u ('%s') is missing "
                          "from the T.reads/T.writes of the %s's root block",
                          name, k + 1, d->name,
                          !tz_find_region(droot, d) ? "description"
                                                 : "implementation");
  }
  return TSL_OK;
}

int tsl_intrin_registry_add(tsl_intrin_registry *reg, const char *name,
                            const tsl_func *desc, const tsl_func *impl,
                            tsl_diag *diag) {
  if (!name || !*name || !desc || !impl)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "intrinsic: a name, a description and an "
                        "implementation are required");
  const tsl_func *d0, *i0;
  if (tsl_intrin_registry_get(reg, name, &d0, &i0))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "intrinsic '%s' is already registered", name);
  int rc = check_signature(name, desc, impl, diag);
  if (rc)
    return rc;
  TSL_VEC_PUSH(&reg->items, intrin_entry,
               ((intrin_entry){tsl_arena_strdup(reg->arena, name), desc, impl, NULL}));
  return TSL_OK;
}

static int parse_one(tsl_arena *a, const char *name, const char *what,
                     const char *src, const tsl_func **out, tsl_diag *diag) {
  const tsl_module *m;
  int rc = tsl_parse(a, name, src, strlen(src), &m, diag);
  if (rc)
    return rc;
  if (m->n_funcs != 1)
    return tsl_diag_set(diag, TSL_EINVALID, "built-in intrinsic '%s': %s is "
                        "not one function", name, what);
  *out = m->funcs[0];
  return TSL_OK;
}

int tsl_intrin_registry_new(tsl_ctx *ctx, tsl_intrin_registry **out,
                            tsl_diag *diag) {
  *out = NULL;
  tsl_intrin_registry *reg = calloc(1, sizeof *reg);
  if (!reg)
    return tsl_diag_set(diag, TSL_ENOMEM, "intrinsic: out of memory");
  reg->arena = tsl_arena_new(ctx);
  tsl_vec_init(&reg->items, sizeof(intrin_entry), reg->arena);
  uint32_t n;
  const tz_builtin *b = tz_builtins(&n);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_func *desc, *impl;
    int rc = parse_one(reg->arena, b[i].name, "the description", b[i].desc_src,
                       &desc, diag);
    if (!rc)
      rc = parse_one(reg->arena, b[i].name, "the implementation",
                     b[i].impl_src, &impl, diag);
    if (!rc)
      rc = tsl_intrin_registry_add(reg, b[i].name, desc, impl, diag);
    if (rc) {
      tsl_intrin_registry_free(reg);
      return rc;
    }
  }
  *out = reg;
  return TSL_OK;
}

void tsl_intrin_registry_free(tsl_intrin_registry *reg) {
  if (!reg)
    return;
  tsl_arena_free(reg->arena);
  free(reg);
}

int tsl_intrin_registry_get(const tsl_intrin_registry *reg, const char *name,
                            const tsl_func **desc, const tsl_func **impl) {
  for (uint32_t i = 0; reg && name && i < reg->items.len; i++) {
    const intrin_entry *e = &TSL_VEC_AT(&reg->items, intrin_entry, i);
    if (strcmp(e->name, name) == 0) {
      if (desc)
        *desc = e->desc;
      if (impl)
        *impl = e->impl;
      return 1;
    }
  }
  return 0;
}

static intrin_entry *entry_of(const tsl_intrin_registry *reg, const char *name) {
  for (uint32_t i = 0; reg && name && i < reg->items.len; i++) {
    intrin_entry *e = &TSL_VEC_AT(&reg->items, intrin_entry, i);
    if (strcmp(e->name, name) == 0)
      return e;
  }
  return NULL;
}

const char *tsl_intrin_registry_requires(const tsl_intrin_registry *reg, const char *name) {
  const intrin_entry *e = entry_of(reg, name);
  return e ? e->requires : NULL;
}

int tsl_intrin_registry_set_requires(tsl_intrin_registry *reg, const char *name,
                                     const char *requires, tsl_diag *diag) {
  intrin_entry *e = entry_of(reg, name);
  if (!e)
    return tsl_diag_set(diag, TSL_EINVALID, "intrinsic '%s' is not registered",
                        name ? name : "(null)");
  e->requires = requires && *requires ? tsl_arena_strdup(reg->arena, requires) : NULL;
  return TSL_OK;
}

uint32_t tsl_intrin_registry_count(const tsl_intrin_registry *reg) {
  return reg ? reg->items.len : 0;
}

const char *tsl_intrin_registry_name(const tsl_intrin_registry *reg,
                                     uint32_t k) {
  return reg && k < reg->items.len ? TSL_VEC_AT(&reg->items, intrin_entry, k).name : NULL;
}

/* ---- intrinsics from a folder ------------------------------------------ */

#define PREFIX "intrin__"
#define DESC_SUFFIX "__desc.py"
#define IMPL_SUFFIX "__impl.py"

static int parse_file(tsl_arena *arena, const char *path, const tsl_func **out,
                      tsl_diag *d) {
  const tsl_module *m;
  int rc = tsl_parse_file(arena, path, &m, d);
  if (rc)
    return rc;
  if (m->n_funcs != 1)
    return tsl_diag_set(d, TSL_EINVALID,
                        "%s: error: a tensor intrinsic file holds one prim_func, not %u",
                        path, m->n_funcs);
  *out = m->funcs[0];
  return TSL_OK;
}

static int by_name(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

int tsl_intrin_registry_add_dir(tsl_intrin_registry *reg, tsl_arena *arena, const char *dir,
                                uint32_t *n_added, tsl_diag *diag) {
  if (n_added)
    *n_added = 0;
  DIR *dp = opendir(dir);
  if (!dp)
    return TSL_OK;
  /* sorted, so that registration order (and messages) do not depend on
   * the order of the folder */
  tsl_vec names;
  tsl_vec_init(&names, sizeof(char *), arena);
  const size_t pl = strlen(PREFIX), sl = strlen(DESC_SUFFIX);
  for (struct dirent *e; (e = readdir(dp));) {
    size_t len = strlen(e->d_name);
    if (len > pl + sl && !strncmp(e->d_name, PREFIX, pl) &&
        !strcmp(e->d_name + len - sl, DESC_SUFFIX)) {
      char *n = tsl_arena_strdup(arena, e->d_name + pl);
      n[len - pl - sl] = 0;
      TSL_VEC_PUSH(&names, char *, n);
    }
  }
  closedir(dp);
  char **ns = TSL_VEC_DATA(&names, char *);
  if (names.len)
    qsort(ns, names.len, sizeof *ns, by_name);
  for (uint32_t i = 0; i < names.len; i++) {
    size_t cap = strlen(dir) + strlen(ns[i]) + pl + sl + 2;
    char *desc_path = tsl_arena_alloc(arena, cap), *impl_path = tsl_arena_alloc(arena, cap);
    snprintf(desc_path, cap, "%s/" PREFIX "%s" DESC_SUFFIX, dir, ns[i]);
    snprintf(impl_path, cap, "%s/" PREFIX "%s" IMPL_SUFFIX, dir, ns[i]);
    const tsl_func *desc = NULL, *impl = NULL;
    int rc = parse_file(arena, desc_path, &desc, diag);
    if (rc == TSL_OK)
      rc = parse_file(arena, impl_path, &impl, diag);
    if (rc == TSL_OK && (rc = tsl_intrin_registry_add(reg, ns[i], desc, impl, diag)))
      tsl_diag_append(diag, " (intrinsic files %s and %s)", desc_path, impl_path);
    if (rc)
      return rc;
    if (n_added)
      (*n_added)++;
  }
  return TSL_OK;
}

