/*
 * core/config/config_internal.h — the YAML tree with source positions that
 * the config loader validates, and the helpers shared by the files of this
 * folder. Not installed; only core/config includes it.
 */
#ifndef TESSEL_CONFIG_INTERNAL_H
#define TESSEL_CONFIG_INTERNAL_H

#include <stdint.h>

#include "tessel/base.h"
#include "tessel/config.h"

enum { CFG_SCALAR = 1, CFG_MAP = 2, CFG_SEQ = 3 };

typedef struct cfg_node cfg_node;

typedef struct cfg_entry {
  const char *key;
  cfg_node *key_node; /* the key as a scalar node (its position) */
  cfg_node *value;
} cfg_entry;

struct cfg_node {
  int kind;          /* CFG_* */
  int is_null;       /* scalar written as nothing, ~ or null */
  uint32_t line;     /* 1-based */
  uint32_t col;      /* 1-based */
  const char *set;   /* "KEY=VALUE" when made by an override, else NULL */
  const char *text;  /* scalar text */
  uint32_t n, cap;
  cfg_entry *entries; /* CFG_MAP */
  cfg_node **items;   /* CFG_SEQ */
};

/* Everything one loaded config owns: the public struct comes first so a
 * tsl_run_config * is a cfg_config *. */
typedef struct cfg_where {
  const char *key;
  const char *where;
} cfg_where;

typedef struct cfg_config {
  tsl_run_config pub;
  tsl_ctx *ctx;
  tsl_arena *arena;
  uint32_t n_where;
  cfg_where *where;
} cfg_config;

/* Parse YAML text (one document) into a tree in `arena`. `path` is used in
 * messages. *out is NULL for a stream without a document. */
int cfg_yaml_parse(tsl_arena *arena, const char *path, const char *text,
                   size_t len, cfg_node **out, tsl_diag *diag);

/* Map helpers. */
cfg_entry *cfg_map_find(const cfg_node *map, const char *key);
void cfg_map_append(tsl_arena *arena, cfg_node *map, const char *key,
                    cfg_node *key_node, cfg_node *value);
void cfg_seq_append(tsl_arena *arena, cfg_node *seq, cfg_node *item);

/* Apply one "KEY.SUB=VALUE" override to the top-level mapping. */
int cfg_apply_set(tsl_arena *arena, cfg_node *root, const char *set,
                  tsl_diag *diag);

/* The folder of path p (arena string): "." without a '/', "/" for a file
 * at the root. */
const char *cfg_dirname(tsl_arena *arena, const char *p);

/* "FILE:LINE:COL" or "--set KEY=VALUE" for a node (arena string). */
const char *cfg_loc(tsl_arena *arena, const char *path, const cfg_node *n);

/* How a node reads in "got ..." : 'text' (quoted, shortened), null,
 * a mapping, a sequence. Arena string. */
const char *cfg_got(tsl_arena *arena, const cfg_node *n);

/* Validate the tree into c->pub (paths resolved, defaults applied). */
int cfg_validate(cfg_config *c, cfg_node *root, tsl_diag *diag);

/* Record the position of every key of the tree for tsl_run_config_where. */
void cfg_record_where(cfg_config *c, const cfg_node *root);

#endif /* TESSEL_CONFIG_INTERNAL_H */
