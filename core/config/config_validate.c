/*
 * core/config/config_validate.c — the parsed YAML tree to a tsl_run_config:
 * known keys only, types and ranges, required keys, files that must exist,
 * path resolution and defaults. Stops at the first error, located at the
 * offending key or value ("FILE:LINE:COL" or "--set KEY=VALUE").
 */
#include "config_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct vstate {
  cfg_config *c;
  tsl_arena *a;
  tsl_diag *diag;
} vstate;

static int verr(vstate *v, int status, const cfg_node *at, const char *fmt, ...)
    TSL_PRINTF(4, 5);
static int verr(vstate *v, int status, const cfg_node *at, const char *fmt,
                ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tsl_diag_set(v->diag, status, "%s: error: %s",
                      cfg_loc(v->a, v->c->pub.path, at), msg);
}

static const char *join(vstate *v, const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *s = tsl_arena_alloc(v->a, n);
  snprintf(s, n, "%s%s%s", a, *a ? "." : "", b);
  return s;
}

/* Unknown-key check: every key of `map` must be in `valid` (NULL-ended). */
static int check_keys(vstate *v, const cfg_node *map, const char *section,
                      const char *const *valid) {
  for (uint32_t i = 0; i < map->n; i++) {
    int known = 0;
    for (const char *const *k = valid; *k && !known; k++)
      known = strcmp(*k, map->entries[i].key) == 0;
    if (known)
      continue;
    char list[1024] = "";
    for (const char *const *k = valid; *k; k++) {
      if (k != valid)
        strncat(list, ", ", sizeof list - strlen(list) - 1);
      strncat(list, *k, sizeof list - strlen(list) - 1);
    }
    if (!*section)
      return verr(v, TSL_EINVALID, map->entries[i].key_node,
                  "%s: unknown top-level key; valid: %s",
                  map->entries[i].key, list);
    return verr(v, TSL_EINVALID, map->entries[i].key_node,
                "%s.%s: unknown key in %s; valid: %s", section,
                map->entries[i].key, section, list);
  }
  return TSL_OK;
}

/* "KEY: expected WHAT, got V; valid: VALID" at n. */
static int expected(vstate *v, const cfg_node *n, const char *key, const char *what,
                    const char *valid) {
  return verr(v, TSL_EINVALID, n, "%s: expected %s, got %s; valid: %s", key, what,
              cfg_got(v->a, n), valid);
}

static int is_scalar(const cfg_node *n) { return n->kind == CFG_SCALAR && !n->is_null; }

static int want_map(vstate *v, const cfg_node *n, const char *key,
                    const char *valid) {
  return n->kind == CFG_MAP ? TSL_OK : expected(v, n, key, "a mapping", valid);
}

/* A section: a mapping whose keys are all in `keys`. */
static int want_section(vstate *v, const cfg_node *n, const char *key,
                        const char *valid, const char *const *keys) {
  int rc = want_map(v, n, key, valid);
  return rc ? rc : check_keys(v, n, key, keys);
}

static int missing(vstate *v, const cfg_node *map, const char *key,
                   const char *valid) {
  return verr(v, TSL_EINVALID, map, "%s: missing required key; valid: %s", key,
              valid);
}

static int want_string(vstate *v, const cfg_node *n, const char *key,
                       const char *valid, const char **out) {
  if (!is_scalar(n))
    return expected(v, n, key, "a string", valid);
  if (!*n->text)
    return verr(v, TSL_EINVALID, n, "%s: empty string, got ''; valid: %s", key,
                valid);
  *out = n->text;
  return TSL_OK;
}

static int want_int(vstate *v, const cfg_node *n, const char *key, int64_t lo,
                    int64_t hi, const char *valid, int64_t *out) {
  if (!is_scalar(n))
    return expected(v, n, key, "an integer", valid);
  const char *s = n->text;
  char *end = NULL;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (!*s || *end || isspace((unsigned char)s[0]))
    return expected(v, n, key, "an integer", valid);
  if (errno == ERANGE || x < lo || x > hi)
    return verr(v, TSL_EINVALID, n, "%s: out of range, got %s; valid: %s", key,
                cfg_got(v->a, n), valid);
  *out = (int64_t)x;
  return TSL_OK;
}

static int want_u64(vstate *v, const cfg_node *n, const char *key,
                    uint64_t *out) {
  const char *valid = "an integer in 0..18446744073709551615";
  if (!is_scalar(n))
    return expected(v, n, key, "an integer", valid);
  const char *s = n->text;
  char *end = NULL;
  errno = 0;
  if (s[0] == '-' && s[1] >= '0' && s[1] <= '9')
    return verr(v, TSL_EINVALID, n, "%s: out of range, got %s; valid: %s", key,
                cfg_got(v->a, n), valid);
  unsigned long long x = strtoull(s, &end, 10);
  if (!*s || *end || !(s[0] >= '0' && s[0] <= '9'))
    return expected(v, n, key, "an integer", valid);
  if (errno == ERANGE)
    return verr(v, TSL_EINVALID, n, "%s: out of range, got %s; valid: %s", key,
                cfg_got(v->a, n), valid);
  *out = (uint64_t)x;
  return TSL_OK;
}

/* A finite number; `lo_open`: must be > lo, else >= lo. */
static int want_double(vstate *v, const cfg_node *n, const char *key,
                       double lo, int lo_open, const char *valid,
                       double *out) {
  if (!is_scalar(n))
    return expected(v, n, key, "a number", valid);
  const char *s = n->text;
  char *end = NULL;
  double x = strtod(s, &end);
  if (!*s || *end || isspace((unsigned char)s[0]) || !isfinite(x))
    return expected(v, n, key, "a number", valid);
  if (lo_open ? !(x > lo) : !(x >= lo))
    return verr(v, TSL_EINVALID, n, "%s: out of range, got %s; valid: %s", key,
                cfg_got(v->a, n), valid);
  *out = x;
  return TSL_OK;
}

static int want_bool(vstate *v, const cfg_node *n, const char *key,
                     int32_t *out) {
  if (is_scalar(n)) {
    const char *t = n->text;
    if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "TRUE")) {
      *out = 1;
      return TSL_OK;
    }
    if (!strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "FALSE")) {
      *out = 0;
      return TSL_OK;
    }
  }
  return expected(v, n, key, "a boolean", "true, false");
}

/* Paths from the file are relative to the config's folder; paths given by
 * --set are relative to the current directory. */
static const char *resolve(vstate *v, const cfg_node *n, const char *p) {
  if (n->set || p[0] == '/' || strcmp(v->c->pub.dir, ".") == 0)
    return tsl_arena_strdup(v->a, p);
  size_t len = strlen(v->c->pub.dir) + strlen(p) + 2;
  char *s = tsl_arena_alloc(v->a, len);
  snprintf(s, len, "%s/%s", v->c->pub.dir, p);
  return s;
}

static int want_path(vstate *v, const cfg_node *n, const char *key,
                     const char *valid, const char **out) {
  const char *p = NULL;
  int rc = want_string(v, n, key, valid, &p);
  if (rc)
    return rc;
  *out = resolve(v, n, p);
  return TSL_OK;
}

static int want_file(vstate *v, const cfg_node *n, const char *key,
                     const char *valid, const char **out) {
  const char *r = NULL;
  int rc = want_path(v, n, key, valid, &r);
  if (rc)
    return rc;
  struct stat st;
  if (stat(r, &st) != 0)
    return verr(v, TSL_ENOTFOUND, n,
                "%s: file '%s' not found (%s), got %s; valid: %s", key, r,
                strerror(errno), cfg_got(v->a, n), valid);
  if (!S_ISREG(st.st_mode))
    return verr(v, TSL_EINVALID, n, "%s: '%s' is not a regular file, got %s; valid: %s",
                key, r, cfg_got(v->a, n), valid);
  *out = r;
  return TSL_OK;
}

static const cfg_node *get(const cfg_node *map, const char *key) {
  cfg_entry *e = cfg_map_find(map, key);
  return e ? e->value : NULL;
}

static int is_core_key(const char *key, const char *const *core) {
  for (; *core; core++)
    if (strcmp(*core, key) == 0)
      return 1;
  return 0;
}

/* target / strategy / cost_model: kind plus plugin options. */
static int plugin_section(vstate *v, const cfg_node *n, const char *section,
                          const char *const *core, const char *kind_valid,
                          tsl_config_plugin *out) {
  char valid[256];
  snprintf(valid, sizeof valid, "{kind: %s, <plugin option>: <value>, ...}",
           kind_valid);
  int rc = want_map(v, n, section, valid);
  if (rc)
    return rc;
  const cfg_node *kind = get(n, "kind");
  const char *kpath = join(v, section, "kind");
  if (!kind)
    return missing(v, n, kpath, kind_valid);
  rc = want_string(v, kind, kpath, kind_valid, &out->kind);
  if (rc)
    return rc;
  uint32_t n_opts = 0;
  tsl_kv *opts = TSL_NEW_ARRAY(v->a, tsl_kv, n->n ? n->n : 1);
  for (uint32_t i = 0; i < n->n; i++) {
    const cfg_entry *e = &n->entries[i];
    if (strcmp(e->key, "kind") == 0 || is_core_key(e->key, core))
      continue;
    if (e->value->kind != CFG_SCALAR || e->value->is_null)
      return verr(v, TSL_EINVALID, e->value,
                  "%s.%s: expected a scalar plugin option, got %s; valid: a "
                  "string, number or boolean",
                  section, e->key, cfg_got(v->a, e->value));
    opts[n_opts].key = e->key;
    opts[n_opts].value = e->value->text;
    n_opts++;
  }
  out->n_opts = n_opts;
  out->opts = opts;
  return TSL_OK;
}

static const char *const k_top[] = {
    "workload", "target",   "space",  "strategy",     "cost_model", "runner",
    "builder",  "database", "work_dir", "export", "plugin_paths", "seed", "tasks", NULL};
static const char *const k_workload[] = {"file", "func", "binds", "weights", "passes", NULL};
static const char *const k_tasks[] = {"scheduler", "max_trials_global", "alpha", "window_size",
                                      NULL};
static const char *const k_space[] = {"schedule", "rules", NULL};
static const char *const k_runner[] = {"number",    "repeat",      "min_repeat_ms",
                                       "timeout_s", "warmup",      "flush_cache",
                                       "check",     "skip_slower", "screen_slower",
                                       "remeasure", "remeasure_rounds", NULL};
static const char *const k_builder[] = {"workers", "timeout_s", NULL};
static const char *const k_strategy_core[] = {"trials", "batch", "dedup", NULL};
static const char *const k_cost_model_core[] = {"load", "save", NULL};
static const char *const k_none[] = {NULL};

static int v_workload(vstate *v, const cfg_node *root) {
  const char *valid = "{file: PROGRAM.py, func: NAME, binds: {NAME: VALUE}}";
  const cfg_node *n = get(root, "workload");
  if (!n)
    return missing(v, root, "workload", valid);
  int rc = want_section(v, n, "workload", valid, k_workload);
  if (rc)
    return rc;
  const cfg_node *f = get(n, "file");
  const char *fvalid = "an existing TVMScript file, relative to the config's folder";
  if (!f)
    return missing(v, n, "workload.file", fvalid);
  rc = want_file(v, f, "workload.file", fvalid, &v->c->pub.workload_file);
  if (rc)
    return rc;
  const cfg_node *fn = get(n, "func");
  if (fn)
    rc = want_string(v, fn, "workload.func", "the name of a prim_func in the file",
                     &v->c->pub.workload_func);
  const cfg_node *w = get(n, "weights");
  if (!rc && w)
    rc = want_file(v, w, "workload.weights",
                   "an existing .safetensors, .npz or .npy file, relative to the config's folder",
                   &v->c->pub.workload_weights);
  const cfg_node *p = get(n, "passes");
  if (!rc && p)
    rc = want_string(v, p, "workload.passes",
                     "graph passes, comma-separated, e.g. \"bind_params,legalize,fuse,dce\"",
                     &v->c->pub.workload_passes);
  const cfg_node *b = get(n, "binds");
  if (rc || !b)
    return rc;
  /* names and values are checked against the function by the tuner */
  const char *bvalid = "{NAME: VALUE, ...}: a symbolic size or scalar parameter of the "
                       "function and its value, e.g. {m: 64}";
  rc = want_map(v, b, "workload.binds", bvalid);
  if (rc)
    return rc;
  tsl_kv *binds = TSL_NEW_ARRAY(v->a, tsl_kv, b->n ? b->n : 1);
  for (uint32_t i = 0; i < b->n; i++) {
    const cfg_entry *e = &b->entries[i];
    if (e->value->kind != CFG_SCALAR || e->value->is_null || !*e->value->text)
      return verr(v, TSL_EINVALID, e->value, "workload.binds.%s: expected a value, got %s; "
                  "valid: an integer (a size, or an integer parameter) or a number",
                  e->key, cfg_got(v->a, e->value));
    binds[i].key = e->key;
    binds[i].value = e->value->text;
  }
  v->c->pub.n_workload_binds = b->n;
  v->c->pub.workload_binds = binds;
  return TSL_OK;
}

static int v_tasks(vstate *v, const cfg_node *root) {
  const char *valid = "{scheduler: gradient | round-robin, max_trials_global: N, alpha: A, "
                      "window_size: W}";
  const cfg_node *n = get(root, "tasks");
  if (!n)
    return TSL_OK;
  int rc = want_section(v, n, "tasks", valid, k_tasks);
  const cfg_node *s = rc ? NULL : get(n, "scheduler");
  if (s) {
    rc = want_string(v, s, "tasks.scheduler", "gradient or round-robin",
                     &v->c->pub.task_scheduler);
    if (!rc && strcmp(v->c->pub.task_scheduler, "gradient") &&
        strcmp(v->c->pub.task_scheduler, "round-robin"))
      return verr(v, TSL_EINVALID, s, "tasks.scheduler: unknown scheduler '%s'; valid: "
                  "gradient, round-robin", v->c->pub.task_scheduler);
  }
  const cfg_node *g = rc ? NULL : get(n, "max_trials_global");
  if (g)
    rc = want_int(v, g, "tasks.max_trials_global", 1, INT32_MAX, "a positive trial count",
                  &v->c->pub.max_trials_global);
  const cfg_node *a = rc ? NULL : get(n, "alpha");
  if (a)
    rc = want_double(v, a, "tasks.alpha", 0, 0, "a weight from 0 to 1", &v->c->pub.sched_alpha);
  if (a && !rc && v->c->pub.sched_alpha > 1)
    return verr(v, TSL_EINVALID, a, "tasks.alpha: out of range, got %s; valid: a weight from 0 "
                "to 1", cfg_got(v->a, a));
  const cfg_node *w = rc ? NULL : get(n, "window_size");
  if (w) {
    int64_t x = 0;
    rc = want_int(v, w, "tasks.window_size", 1, 1000, "a batch count from 1", &x);
    v->c->pub.sched_window = (int32_t)x;
  }
  return rc;
}

static int v_space(vstate *v, const cfg_node *root) {
  const char *valid = "{schedule: SCRIPT.sch} or {rules: default}";
  const cfg_node *n = get(root, "space");
  if (!n) { /* as TVM's tune_tir: the target's default rules */
    v->c->pub.space_rules = "default";
    return TSL_OK;
  }
  int rc = want_section(v, n, "space", valid, k_space);
  if (rc)
    return rc;
  const cfg_node *s = get(n, "schedule"), *r = get(n, "rules");
  if (s && r)
    return verr(v, TSL_EINVALID, r, "space.rules: give either schedule or rules, not both; "
                "valid: %s", valid);
  if (r) {
    const char *rvalid = "default (the target's schedule rules, as TVM's)";
    rc = want_string(v, r, "space.rules", rvalid, &v->c->pub.space_rules);
    if (!rc && strcmp(v->c->pub.space_rules, "default"))
      return verr(v, TSL_EINVALID, r, "space.rules: unknown rule set, got '%s'; valid: %s",
                  v->c->pub.space_rules, rvalid);
    return rc;
  }
  const char *svalid = "an existing schedule script, relative to the config's folder";
  if (!s)
    return verr(v, TSL_EINVALID, n, "space: needs schedule or rules; valid: %s", valid);
  return want_file(v, s, "space.schedule", svalid, &v->c->pub.space_schedule);
}

static int v_strategy(vstate *v, const cfg_node *root) {
  tsl_run_config *c = &v->c->pub;
  const cfg_node *n = get(root, "strategy");
  if (!n)
    return missing(v, root, "strategy", "{kind: random, trials: N, batch: N}");
  int rc = plugin_section(v, n, "strategy", k_strategy_core,
                          "a strategy plugin name, e.g. random", &c->strategy);
  if (rc)
    return rc;
  int64_t x = 0;
  const cfg_node *t = get(n, "trials");
  const char *tvalid = "an integer >= 1";
  if (!t)
    return missing(v, n, "strategy.trials", tvalid);
  rc = want_int(v, t, "strategy.trials", 1, INT64_MAX, tvalid, &x);
  if (rc)
    return rc;
  c->trials = x;
  const cfg_node *b = get(n, "batch");
  if (b) {
    rc = want_int(v, b, "strategy.batch", 1, 4096, "an integer in 1..4096", &x);
    if (rc)
      return rc;
    c->batch = (int32_t)x;
  }
  const cfg_node *d = get(n, "dedup");
  if (d) {
    const char *dvalid = "program (the postprocessed program, as TVM; the default) or "
                         "trace (the decisions alone)";
    const char *how = NULL;
    if ((rc = want_string(v, d, "strategy.dedup", dvalid, &how)))
      return rc;
    if (strcmp(how, "trace") && strcmp(how, "program"))
      return verr(v, TSL_EINVALID, d, "strategy.dedup: unknown rule '%s'; valid: %s", how,
                  dvalid);
    c->dedup_program = !strcmp(how, "program");
  }
  return TSL_OK;
}

/* cost_model: kind, the plugin's options, and the core's load / save. */
static int v_cost_model(vstate *v, const cfg_node *root) {
  tsl_run_config *c = &v->c->pub;
  const cfg_node *n = get(root, "cost_model");
  if (!n)
    return TSL_OK;
  int rc = plugin_section(v, n, "cost_model", k_cost_model_core,
                          "a cost-model plugin name, e.g. random", &c->cost_model);
  const cfg_node *l = get(n, "load");
  if (!rc && l)
    rc = want_file(v, l, "cost_model.load",
                   "a file this cost model saved (cost_model.save), relative to the config's "
                   "folder",
                   &c->cost_model_load);
  const cfg_node *s = get(n, "save");
  const char *svalid = "a file path in an existing folder, relative to the config's folder";
  if (!rc && s)
    rc = want_path(v, s, "cost_model.save", svalid, &c->cost_model_save);
  if (!rc && s) { /* found out now rather than after the run */
    const char *dir = cfg_dirname(v->a, c->cost_model_save);
    struct stat st;
    if (stat(dir, &st) != 0)
      rc = verr(v, TSL_ENOTFOUND, s, "cost_model.save: folder '%s' not found (%s), got %s; "
                "valid: %s", dir, strerror(errno), cfg_got(v->a, s), svalid);
    else if (!S_ISDIR(st.st_mode))
      rc = verr(v, TSL_EINVALID, s, "cost_model.save: '%s' is not a folder, got %s; valid: %s",
                dir, cfg_got(v->a, s), svalid);
    else if (access(dir, W_OK) != 0)
      rc = verr(v, TSL_EINVALID, s, "cost_model.save: folder '%s' is not writable (%s), got "
                "%s; valid: %s", dir, strerror(errno), cfg_got(v->a, s), svalid);
    else if (stat(c->cost_model_save, &st) == 0 && S_ISDIR(st.st_mode))
      rc = verr(v, TSL_EINVALID, s, "cost_model.save: '%s' is a folder, got %s; valid: %s",
                c->cost_model_save, cfg_got(v->a, s), svalid);
  }
  return rc;
}

/* runner.KEY: 0 (off) or a ratio >= 1, into *out when present. */
static int want_ratio(vstate *v, const cfg_node *runner, const char *key, const char *valid,
                      double *out) {
  const cfg_node *x = get(runner, key);
  if (!x)
    return TSL_OK;
  char name[64];
  snprintf(name, sizeof name, "runner.%s", key);
  int rc = want_double(v, x, name, 0, 0, valid, out);
  if (!rc && *out > 0 && *out < 1)
    rc = verr(v, TSL_EINVALID, x, "%s: out of range, got %s; valid: %s", name,
              cfg_got(v->a, x), valid);
  return rc;
}

static int v_runner(vstate *v, const cfg_node *root) {
  tsl_run_config *c = &v->c->pub;
  const cfg_node *n = get(root, "runner");
  if (!n)
    return TSL_OK;
  int rc = want_section(v, n, "runner",
                    "{number: N, repeat: N, min_repeat_ms: MS, timeout_s: S, "
                    "warmup: N, flush_cache: BOOL, check: BOOL, skip_slower: R, "
                    "screen_slower: R, remeasure: N, remeasure_rounds: N}",
                    k_runner);
  if (rc)
    return rc;
  const cfg_node *x;
  int64_t i = 0;
  if ((x = get(n, "number"))) {
    if ((rc = want_int(v, x, "runner.number", 1, INT32_MAX,
                       "an integer in 1..2147483647", &i)))
      return rc;
    c->runner.number = (int32_t)i;
  }
  if ((x = get(n, "repeat"))) {
    if ((rc = want_int(v, x, "runner.repeat", 1, TSL_RUN_MAX_REPEAT,
                       "an integer in 1..64", &i)))
      return rc;
    c->runner.repeat = (int32_t)i;
  }
  if ((x = get(n, "warmup"))) {
    if ((rc = want_int(v, x, "runner.warmup", 0, INT32_MAX,
                       "an integer in 0..2147483647", &i)))
      return rc;
    c->runner.warmup = (int32_t)i;
  }
  if ((x = get(n, "min_repeat_ms")) &&
      (rc = want_double(v, x, "runner.min_repeat_ms", 0, 0,
                        "a number of milliseconds >= 0",
                        &c->runner.min_repeat_ms)))
    return rc;
  if ((x = get(n, "timeout_s")) &&
      (rc = want_double(v, x, "runner.timeout_s", 0, 1,
                        "a number of seconds > 0", &c->runner.timeout_s)))
    return rc;
  if ((x = get(n, "flush_cache")) &&
      (rc = want_bool(v, x, "runner.flush_cache", &c->runner.flush_cache)))
    return rc;
  if ((x = get(n, "check")) && (rc = want_bool(v, x, "runner.check", &c->check)))
    return rc;
  if ((x = get(n, "remeasure"))) {
    if ((rc = want_int(v, x, "runner.remeasure", 0, 64,
                       "an integer in 0..64 (0: no re-measurement)", &i)))
      return rc;
    c->remeasure = (int32_t)i;
  }
  if ((x = get(n, "remeasure_rounds"))) {
    if ((rc = want_int(v, x, "runner.remeasure_rounds", 1, 64, "an integer in 1..64", &i)))
      return rc;
    c->remeasure_rounds = (int32_t)i;
  }
  if ((rc = want_ratio(v, n, "skip_slower",
                       "0 (time every candidate fully) or a ratio >= 1 to the best latency so far",
                       &c->skip_slower)))
    return rc;
  return want_ratio(v, n, "screen_slower",
                    "0 (no screening) or a ratio >= 1 to the best latency so far",
                    &c->screen_slower);
}

static int v_builder(vstate *v, const cfg_node *root) {
  const cfg_node *n = get(root, "builder");
  if (!n)
    return TSL_OK;
  int rc = want_section(v, n, "builder", "{workers: N, timeout_s: S}", k_builder);
  if (rc)
    return rc;
  const cfg_node *x;
  int64_t i = 0;
  if ((x = get(n, "workers"))) {
    if ((rc = want_int(v, x, "builder.workers", 1, 256, "an integer in 1..256", &i)))
      return rc;
    v->c->pub.build_workers = (int32_t)i;
  }
  if ((x = get(n, "timeout_s")) &&
      (rc = want_double(v, x, "builder.timeout_s", 0, 1, "a number of seconds > 0",
                        &v->c->pub.build_timeout_s)))
    return rc;
  return TSL_OK;
}

/* export: a .so or .o path whose file name gives a C symbol prefix. */
static int v_export(vstate *v, const cfg_node *n) {
  static const char valid[] =
      "a path ending in .so (shared library) or .o (object file) whose name "
      "gives the C prefix: libNAME.so or NAME.o -> functions NAME_<func>, "
      "NAME starting with a letter or _";
  tsl_run_config *c = &v->c->pub;
  int rc = want_path(v, n, "export", valid, &c->export_path);
  if (rc)
    return rc;
  const char *path = c->export_path;
  size_t len = strlen(path);
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  int so = len > 3 && !strcmp(path + len - 3, ".so");
  int obj = len > 2 && !strcmp(path + len - 2, ".o");
  if (!so && !obj)
    return verr(v, TSL_EINVALID, n, "export: unsupported file type, got %s; valid: %s",
                cfg_got(v->a, n), valid);
  const char *name = base;
  if (!strncmp(name, "lib", 3) && name[3] && name[3] != '.')
    name += 3;
  size_t nlen = strcspn(name, ".");
  char *prefix = tsl_arena_dup(v->a, name, nlen + 1);
  prefix[nlen] = '\0';
  for (char *p = prefix; *p; p++)
    if (!(*p == '_' || isalnum((unsigned char)*p)))
      *p = '_';
  if (!prefix[0] || isdigit((unsigned char)prefix[0]))
    return verr(v, TSL_EINVALID, n,
                "export: the file name gives no C prefix ('%s'), got %s; valid: %s",
                prefix, cfg_got(v->a, n), valid);
  c->export_prefix = prefix;
  size_t stem = len - (so ? 3 : 2);
  char *header = tsl_arena_dup(v->a, path, stem + 3);
  memcpy(header + stem, ".h", 3);
  c->export_header = header;
  return TSL_OK;
}

/* A plugin path must exist (a folder or a file). */
static int want_plugin_path(vstate *v, const cfg_node *n, const char *key,
                            const char *valid, const char **out) {
  int rc = want_path(v, n, key, valid, out);
  struct stat st;
  if (!rc && stat(*out, &st) != 0)
    return verr(v, TSL_ENOTFOUND, n, "%s: '%s' not found (%s), got %s; valid: %s", key,
                *out, strerror(errno), cfg_got(v->a, n), valid);
  return rc;
}

static int v_plugin_paths(vstate *v, const cfg_node *root) {
  const cfg_node *n = get(root, "plugin_paths");
  if (!n)
    return TSL_OK;
  const char *valid = "a folder or plugin file, or a list of them";
  tsl_run_config *c = &v->c->pub;
  if (n->kind == CFG_SCALAR) {
    const char **paths = TSL_NEW_ARRAY(v->a, const char *, 1);
    int rc = want_plugin_path(v, n, "plugin_paths", valid, &paths[0]);
    if (rc)
      return rc;
    c->n_plugin_paths = 1;
    c->plugin_paths = paths;
    return TSL_OK;
  }
  if (n->kind != CFG_SEQ)
    return expected(v, n, "plugin_paths", "a list of paths", valid);
  const char **paths = TSL_NEW_ARRAY(v->a, const char *, n->n ? n->n : 1);
  for (uint32_t i = 0; i < n->n; i++) {
    char key[64];
    snprintf(key, sizeof key, "plugin_paths[%u]", i);
    int rc = want_plugin_path(v, n->items[i], key, valid, &paths[i]);
    if (rc)
      return rc;
  }
  c->n_plugin_paths = n->n;
  c->plugin_paths = paths;
  return TSL_OK;
}


int cfg_validate(cfg_config *cc, cfg_node *root, tsl_diag *diag) {
  vstate v = {cc, cc->arena, diag};
  tsl_run_config *c = &cc->pub;
  /* defaults */
  c->batch = 16;
  tsl_run_opts_default(&c->runner);
  c->check = 1;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  c->build_workers = (int32_t)(ncpu < 1 ? 1 : ncpu > 256 ? 256 : ncpu);
  c->build_timeout_s = 60;
  c->skip_slower = 3;
  c->screen_slower = 1.5;
  c->remeasure = 5;
  c->remeasure_rounds = 3;
  c->dedup_program = 1;
  c->seed = 1;
  c->sched_alpha = 0.2;
  c->sched_window = 3;

  int rc = check_keys(&v, root, "", k_top);
  if (!rc)
    rc = v_workload(&v, root);
  if (!rc) {
    const cfg_node *t = get(root, "target");
    rc = t ? plugin_section(&v, t, "target", k_none, "a target plugin name, e.g. llvm",
                            &c->target)
           : missing(&v, root, "target", "{kind: llvm, <target option>: <value>}");
  }
  if (!rc)
    rc = v_space(&v, root);
  if (!rc)
    rc = v_tasks(&v, root);
  if (!rc)
    rc = v_strategy(&v, root);
  if (!rc)
    rc = v_cost_model(&v, root);
  if (!rc)
    rc = v_runner(&v, root);
  if (!rc)
    rc = v_builder(&v, root);
  if (!rc) {
    const cfg_node *d = get(root, "database");
    const char *valid = "the path of the tuning database, e.g. tune_tmp/tuning.db";
    rc = d ? want_path(&v, d, "database", valid, &c->database)
           : missing(&v, root, "database", valid);
  }
  if (!rc) {
    const cfg_node *w = get(root, "work_dir");
    if (w)
      rc = want_path(&v, w, "work_dir", "a folder for logs and builds", &c->work_dir);
    else
      c->work_dir = cfg_dirname(v.a, c->database);
  }
  if (!rc) {
    const cfg_node *e = get(root, "export");
    if (e)
      rc = v_export(&v, e);
  }
  if (!rc)
    rc = v_plugin_paths(&v, root);
  if (!rc) {
    const cfg_node *s = get(root, "seed");
    if (s)
      rc = want_u64(&v, s, "seed", &c->seed);
  }
  return rc;
}
