/*
 * core/config/yaml_tree.c — YAML text to a small tree of mappings,
 * sequences and scalars with 1-based positions, through libyaml's event
 * parser. Rejected here: syntax errors (libyaml's problem text, located),
 * anchors and aliases, duplicate keys, non-scalar keys, more than one
 * document, nesting deeper than CFG_MAX_DEPTH.
 */
#include "config_internal.h"

#include <stdio.h>
#include <string.h>
#include <yaml.h>

#define CFG_MAX_DEPTH 64
/* A real config has tens of entries; the cap keeps the duplicate-key
 * checks (linear per key, on interned keys: a pointer compare) cheap on
 * hostile input. */
#define CFG_MAX_NODES 10000

typedef struct parse_state {
  uint32_t n_nodes;
  yaml_parser_t parser;
  tsl_arena *arena;
  const char *path;
  tsl_diag *diag;
} parse_state;

static int syntax_error(parse_state *p) {
  yaml_parser_t *y = &p->parser;
  const char *problem = y->problem ? y->problem : "malformed YAML";
  if (y->context)
    return tsl_diag_set(p->diag, TSL_EPARSE,
                        "%s:%zu:%zu: error: YAML syntax: %s (%s at %zu:%zu)",
                        p->path, y->problem_mark.line + 1,
                        y->problem_mark.column + 1, problem, y->context,
                        y->context_mark.line + 1, y->context_mark.column + 1);
  return tsl_diag_set(p->diag, TSL_EPARSE, "%s:%zu:%zu: error: YAML syntax: %s",
                      p->path, y->problem_mark.line + 1,
                      y->problem_mark.column + 1, problem);
}

static int next_event(parse_state *p, yaml_event_t *ev) {
  if (!yaml_parser_parse(&p->parser, ev))
    return syntax_error(p);
  return TSL_OK;
}

static cfg_node *new_node(parse_state *p, int kind, yaml_mark_t m) {
  cfg_node *n = TSL_NEW(p->arena, cfg_node);
  n->kind = kind;
  n->line = (uint32_t)m.line + 1;
  n->col = (uint32_t)m.column + 1;
  return n;
}

static int located(parse_state *p, int status, yaml_mark_t m, const char *what) {
  return tsl_diag_set(p->diag, status, "%s:%zu:%zu: error: %s", p->path,
                      m.line + 1, m.column + 1, what);
}

static int is_null_scalar(const yaml_event_t *ev) {
  if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
    return 0;
  const char *s = (const char *)ev->data.scalar.value;
  return ev->data.scalar.length == 0 || strcmp(s, "~") == 0 ||
         strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
         strcmp(s, "NULL") == 0;
}

/* Build the node whose first event is `ev` (consumed, deleted here). */
static int parse_node(parse_state *p, yaml_event_t *ev, int depth,
                      const char *prefix, cfg_node **out);

static int anchor_error(parse_state *p, yaml_mark_t m) {
  return located(p, TSL_EUNSUPPORTED, m,
                 "YAML anchors and aliases (&name, *name) are not supported "
                 "in configs; valid: write the value out");
}

/* `prefix`: the dotted key path of this node ("" at the top). */
static const char *child_path(parse_state *p, const char *prefix,
                              const char *key) {
  size_t n = strlen(prefix) + strlen(key) + 2;
  char *s = tsl_arena_alloc(p->arena, n);
  snprintf(s, n, "%s%s%s", prefix, *prefix ? "." : "", key);
  return s;
}

static int parse_mapping(parse_state *p, cfg_node *map, int depth,
                         const char *prefix) {
  for (;;) {
    yaml_event_t kev;
    int rc = next_event(p, &kev);
    if (rc)
      return rc;
    if (kev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&kev);
      return TSL_OK;
    }
    if (kev.type != YAML_SCALAR_EVENT) {
      yaml_mark_t m = kev.start_mark;
      int alias = kev.type == YAML_ALIAS_EVENT;
      yaml_event_delete(&kev);
      if (alias)
        return anchor_error(p, m);
      return located(p, TSL_EINVALID, m,
                     "a key must be a plain word, got a mapping or sequence; "
                     "valid: key: value");
    }
    if (kev.data.scalar.anchor) {
      yaml_mark_t m = kev.start_mark;
      yaml_event_delete(&kev);
      return anchor_error(p, m);
    }
    cfg_node *key = new_node(p, CFG_SCALAR, kev.start_mark);
    /* interned up to the first NUL: equal keys (as strcmp sees them) are
     * one pointer */
    key->text = tsl_intern(tsl_arena_ctx(p->arena),
                           (const char *)kev.data.scalar.value);
    yaml_event_delete(&kev);
    const char *kpath = child_path(p, prefix, key->text);
    cfg_entry *dup = NULL;
    for (uint32_t i = 0; !dup && i < map->n; i++)
      if (map->entries[i].key == key->text)
        dup = &map->entries[i];
    if (dup)
      return tsl_diag_set(p->diag, TSL_EINVALID,
                          "%s:%u:%u: error: %s: duplicate key (first written at "
                          "%u:%u); valid: each key once per mapping",
                          p->path, key->line, key->col, kpath,
                          dup->key_node->line, dup->key_node->col);
    yaml_event_t vev;
    rc = next_event(p, &vev);
    if (rc)
      return rc;
    cfg_node *value = NULL;
    rc = parse_node(p, &vev, depth + 1, kpath, &value);
    if (rc)
      return rc;
    cfg_map_append(p->arena, map, key->text, key, value);
  }
}

static int parse_sequence(parse_state *p, cfg_node *seq, int depth,
                          const char *prefix) {
  for (;;) {
    yaml_event_t ev;
    int rc = next_event(p, &ev);
    if (rc)
      return rc;
    if (ev.type == YAML_SEQUENCE_END_EVENT) {
      yaml_event_delete(&ev);
      return TSL_OK;
    }
    cfg_node *item = NULL;
    size_t n = strlen(prefix) + 16;
    char *ipath = tsl_arena_alloc(p->arena, n);
    snprintf(ipath, n, "%s[%u]", prefix, seq->n);
    rc = parse_node(p, &ev, depth + 1, ipath, &item);
    if (rc)
      return rc;
    cfg_seq_append(p->arena, seq, item);
  }
}

static int parse_node(parse_state *p, yaml_event_t *ev, int depth,
                      const char *prefix, cfg_node **out) {
  yaml_mark_t m = ev->start_mark;
  if (depth > CFG_MAX_DEPTH) {
    yaml_event_delete(ev);
    return located(p, TSL_EINVALID, m,
                   "YAML nested too deeply; valid: at most 64 levels");
  }
  if (++p->n_nodes > CFG_MAX_NODES) {
    yaml_event_delete(ev);
    return located(p, TSL_EINVALID, m,
                   "too many YAML nodes for a run config; valid: at most 10000");
  }
  switch (ev->type) {
  case YAML_SCALAR_EVENT: {
    if (ev->data.scalar.anchor) {
      yaml_event_delete(ev);
      return anchor_error(p, m);
    }
    cfg_node *n = new_node(p, CFG_SCALAR, m);
    n->text = tsl_arena_dup(p->arena, ev->data.scalar.value,
                            ev->data.scalar.length + 1);
    n->is_null = is_null_scalar(ev);
    yaml_event_delete(ev);
    *out = n;
    return TSL_OK;
  }
  case YAML_MAPPING_START_EVENT:
  case YAML_SEQUENCE_START_EVENT: {
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    int anchored = is_map ? ev->data.mapping_start.anchor != NULL
                          : ev->data.sequence_start.anchor != NULL;
    yaml_event_delete(ev);
    if (anchored)
      return anchor_error(p, m);
    cfg_node *n = new_node(p, is_map ? CFG_MAP : CFG_SEQ, m);
    *out = n;
    return is_map ? parse_mapping(p, n, depth, prefix)
                  : parse_sequence(p, n, depth, prefix);
  }
  case YAML_ALIAS_EVENT:
    yaml_event_delete(ev);
    return anchor_error(p, m);
  default:
    yaml_event_delete(ev);
    return located(p, TSL_EPARSE, m, "unexpected YAML event");
  }
}

static int parse_stream(parse_state *p, cfg_node **out) {
  yaml_event_t ev;
  int rc = next_event(p, &ev); /* STREAM_START */
  if (rc)
    return rc;
  yaml_event_delete(&ev);
  int docs = 0;
  for (;;) {
    rc = next_event(p, &ev);
    if (rc)
      return rc;
    if (ev.type == YAML_STREAM_END_EVENT) {
      yaml_event_delete(&ev);
      return TSL_OK;
    }
    if (ev.type != YAML_DOCUMENT_START_EVENT) {
      yaml_mark_t m = ev.start_mark;
      yaml_event_delete(&ev);
      return located(p, TSL_EPARSE, m, "unexpected YAML event");
    }
    if (docs++) {
      yaml_mark_t m = ev.start_mark;
      yaml_event_delete(&ev);
      return located(p, TSL_EINVALID, m,
                     "a second YAML document; valid: one document per config");
    }
    yaml_event_delete(&ev);
    rc = next_event(p, &ev);
    if (rc)
      return rc;
    rc = parse_node(p, &ev, 0, "", out);
    if (rc)
      return rc;
    rc = next_event(p, &ev); /* DOCUMENT_END */
    if (rc)
      return rc;
    yaml_event_delete(&ev);
  }
}

int cfg_yaml_parse(tsl_arena *arena, const char *path, const char *text,
                   size_t len, cfg_node **out, tsl_diag *diag) {
  parse_state p;
  memset(&p, 0, sizeof p);
  *out = NULL;
  if (!yaml_parser_initialize(&p.parser))
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", path);
  p.arena = arena;
  p.path = path;
  p.diag = diag;
  yaml_parser_set_input_string(&p.parser, (const unsigned char *)text, len);
  int rc = parse_stream(&p, out);
  yaml_parser_delete(&p.parser);
  if (rc)
    *out = NULL;
  return rc;
}

cfg_entry *cfg_map_find(const cfg_node *map, const char *key) {
  for (uint32_t i = 0; map && i < map->n; i++)
    if (strcmp(map->entries[i].key, key) == 0)
      return &map->entries[i];
  return NULL;
}

static void *grow(tsl_arena *arena, void *old, uint32_t n, uint32_t *cap,
                  size_t elem) {
  if (n < *cap)
    return old;
  uint32_t ncap = *cap ? *cap * 2 : 8;
  void *fresh = tsl_arena_alloc(arena, elem * ncap);
  if (old)
    memcpy(fresh, old, elem * n);
  *cap = ncap;
  return fresh;
}

void cfg_map_append(tsl_arena *arena, cfg_node *map, const char *key,
                    cfg_node *key_node, cfg_node *value) {
  map->entries = grow(arena, map->entries, map->n, &map->cap, sizeof(cfg_entry));
  map->entries[map->n].key = key;
  map->entries[map->n].key_node = key_node;
  map->entries[map->n].value = value;
  map->n++;
}

void cfg_seq_append(tsl_arena *arena, cfg_node *seq, cfg_node *item) {
  seq->items = grow(arena, seq->items, seq->n, &seq->cap, sizeof(cfg_node *));
  seq->items[seq->n++] = item;
}
