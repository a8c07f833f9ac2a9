/*
 * core/config/config_set.c — "--set KEY.SUB=VALUE" overrides applied to the
 * parsed tree before validation, and the location / quoting helpers used by
 * every config message.
 */
#include "config_internal.h"

#include <stdio.h>
#include <string.h>

const char *cfg_loc(tsl_arena *arena, const char *path, const cfg_node *n) {
  char buf[1200];
  if (n->set)
    snprintf(buf, sizeof buf, "--set %s", n->set);
  else
    snprintf(buf, sizeof buf, "%s:%u:%u", path, n->line, n->col);
  return tsl_arena_strdup(arena, buf);
}

const char *cfg_got(tsl_arena *arena, const cfg_node *n) {
  if (!n)
    return "nothing";
  if (n->kind == CFG_MAP)
    return "a mapping";
  if (n->kind == CFG_SEQ)
    return "a sequence";
  if (n->is_null)
    return "null";
  /* 'text', newlines and quotes escaped, at most 60 characters shown */
  char buf[256];
  size_t o = 0;
  buf[o++] = '\'';
  const char *s = n->text;
  size_t i = 0;
  for (; s[i] && i < 60; i++) {
    if (s[i] == '\n') {
      buf[o++] = '\\';
      buf[o++] = 'n';
    } else if (s[i] == '\'') {
      buf[o++] = '\\';
      buf[o++] = '\'';
    } else {
      buf[o++] = s[i];
    }
  }
  if (s[i]) {
    memcpy(buf + o, "...", 3);
    o += 3;
  }
  buf[o++] = '\'';
  buf[o] = '\0';
  return tsl_arena_strdup(arena, buf);
}

static int set_error(tsl_diag *diag, const char *set, const char *what) {
  return tsl_diag_set(diag, TSL_EINVALID,
                      "--set %s: error: %s; valid: KEY=VALUE or "
                      "SECTION.KEY=VALUE, e.g. strategy.trials=8",
                      set, what);
}

int cfg_apply_set(tsl_arena *arena, cfg_node *root, const char *set,
                  tsl_diag *diag) {
  const char *eq = strchr(set, '=');
  if (!eq)
    return set_error(diag, set, "malformed override, no '='");
  if (eq == set)
    return set_error(diag, set, "malformed override, empty key");
  char *key = tsl_arena_dup(arena, set, (size_t)(eq - set) + 1);
  key[eq - set] = '\0';
  const char *owned_set = tsl_arena_strdup(arena, set);

  cfg_node *map = root;
  char *seg = key;
  for (;;) {
    char *dot = strchr(seg, '.');
    if (dot)
      *dot = '\0';
    if (!*seg)
      return set_error(diag, set, "malformed override, empty part in the key");
    cfg_entry *e = cfg_map_find(map, seg);
    if (!dot) {
      cfg_node *v = TSL_NEW(arena, cfg_node);
      v->kind = CFG_SCALAR;
      v->set = owned_set;
      v->text = tsl_arena_strdup(arena, eq + 1);
      if (e) {
        e->value = v;
      } else {
        cfg_node *k = TSL_NEW(arena, cfg_node);
        k->kind = CFG_SCALAR;
        k->set = owned_set;
        k->text = tsl_arena_strdup(arena, seg);
        cfg_map_append(arena, map, k->text, k, v);
      }
      return TSL_OK;
    }
    if (e && e->value->kind != CFG_MAP) {
      return tsl_diag_set(
          diag, TSL_EINVALID,
          "--set %s: error: %.*s: not a mapping (it is %s), so it has no "
          "key '%s'; valid: set %.*s itself",
          set, (int)(dot - key), key, cfg_got(arena, e->value), dot + 1,
          (int)(dot - key), key);
    }
    if (!e) {
      cfg_node *k = TSL_NEW(arena, cfg_node);
      k->kind = CFG_SCALAR;
      k->set = owned_set;
      k->text = tsl_arena_strdup(arena, seg);
      cfg_node *m = TSL_NEW(arena, cfg_node);
      m->kind = CFG_MAP;
      m->set = owned_set;
      cfg_map_append(arena, map, k->text, k, m);
      e = &map->entries[map->n - 1];
    }
    map = e->value;
    *dot = '.';
    seg = dot + 1;
  }
}
