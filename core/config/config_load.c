/*
 * core/config/config_load.c — tsl_run_config_load (read, parse, override,
 * validate), tsl_run_config_free and tsl_run_config_where. One context and
 * one arena per config own every string and array it hands out.
 */
#include "config_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cfg_dirname(tsl_arena *a, const char *p) {
  const char *slash = strrchr(p, '/');
  if (!slash)
    return ".";
  if (slash == p)
    return "/";
  char *d = tsl_arena_dup(a, p, (size_t)(slash - p) + 1);
  d[slash - p] = '\0';
  return d;
}

static const char *top_keys =
    "workload, target, space, strategy, cost_model, runner, builder, "
    "database, work_dir, export, plugin_paths, seed, tasks";

static int load_tree(cfg_config *c, const char *path, cfg_node **root,
                     tsl_diag *diag) {
  char *text = NULL;
  size_t len = 0;
  int rc = tsl_read_file(path, &text, &len, diag);
  if (rc)
    return rc;
  rc = cfg_yaml_parse(c->arena, path, text, len, root, diag);
  free(text);
  if (rc)
    return rc;
  if (!*root)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s:1:1: error: the config is empty; valid: a mapping "
                        "with the keys %s",
                        path, top_keys);
  if ((*root)->kind != CFG_MAP)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s:%u:%u: error: the top level must be a mapping, got "
                        "%s; valid: a mapping with the keys %s",
                        path, (*root)->line, (*root)->col,
                        cfg_got(c->arena, *root), top_keys);
  return TSL_OK;
}

int tsl_run_config_load(const char *path, uint32_t n_sets,
                        const char *const *sets, tsl_run_config **out,
                        tsl_diag *diag) {
  *out = NULL;
  if (!path)
    return tsl_diag_set(diag, TSL_EINVALID, "config: no path given");
  cfg_config *c = calloc(1, sizeof *c);
  if (!c)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", path);
  c->ctx = tsl_ctx_new();
  if (!c->ctx) {
    free(c);
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", path);
  }
  c->arena = tsl_arena_new(c->ctx);
  c->pub.struct_size = sizeof(tsl_run_config);
  c->pub.path = tsl_arena_strdup(c->arena, path);
  c->pub.dir = cfg_dirname(c->arena, path);

  cfg_node *root = NULL;
  int rc = load_tree(c, path, &root, diag);
  for (uint32_t i = 0; !rc && i < n_sets; i++)
    rc = cfg_apply_set(c->arena, root, sets[i] ? sets[i] : "", diag);
  if (!rc)
    rc = cfg_validate(c, root, diag);
  if (rc) {
    tsl_run_config_free(&c->pub);
    return rc;
  }
  cfg_record_where(c, root);
  *out = &c->pub;
  return TSL_OK;
}

void tsl_run_config_free(tsl_run_config *pub) {
  if (!pub)
    return;
  cfg_config *c = (cfg_config *)pub;
  tsl_arena_free(c->arena);
  tsl_ctx_free(c->ctx);
  free(c);
}

static void count_keys(const cfg_node *n, uint32_t *count) {
  if (n->kind == CFG_MAP)
    for (uint32_t i = 0; i < n->n; i++) {
      (*count)++;
      count_keys(n->entries[i].value, count);
    }
  else if (n->kind == CFG_SEQ)
    for (uint32_t i = 0; i < n->n; i++) {
      (*count)++;
      count_keys(n->items[i], count);
    }
}

static void record(cfg_config *c, const cfg_node *n, const char *prefix) {
  for (uint32_t i = 0; i < n->n; i++) {
    const cfg_node *child = n->kind == CFG_MAP ? n->entries[i].value : n->items[i];
    char key[1024];
    if (n->kind == CFG_MAP)
      snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "",
               n->entries[i].key);
    else
      snprintf(key, sizeof key, "%s[%u]", prefix, i);
    cfg_where *w = &c->where[c->n_where++];
    w->key = tsl_arena_strdup(c->arena, key);
    w->where = cfg_loc(c->arena, c->pub.path, child);
    if (child->kind != CFG_SCALAR)
      record(c, child, w->key);
  }
}

void cfg_record_where(cfg_config *c, const cfg_node *root) {
  uint32_t count = 0;
  count_keys(root, &count);
  c->where = TSL_NEW_ARRAY(c->arena, cfg_where, count ? count : 1);
  c->n_where = 0;
  record(c, root, "");
}

const char *tsl_run_config_where(const tsl_run_config *pub, const char *key) {
  if (!pub || !key)
    return NULL;
  const cfg_config *c = (const cfg_config *)pub;
  for (uint32_t i = 0; i < c->n_where; i++)
    if (strcmp(c->where[i].key, key) == 0)
      return c->where[i].where;
  return NULL;
}
