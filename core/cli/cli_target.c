/*
 * Shared by `tessel run` and `tessel build`: program loading with an
 * optional schedule script, target instances from the plugin registry, and
 * option parsing helpers.
 */
#include "cli_target.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_stage_error(const char *verb, const char *stage, const char *text) {
  fprintf(stderr, "tessel %s: error: %s: %s\n", verb, stage, text);
  return CLI_USAGE;
}

int cli_parse_int(const char *s, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi)
    return 0;
  *out = v;
  return 1;
}

int cli_parse_num(const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
    return 0;
  *out = v;
  return 1;
}

int cli_program_load(const char *verb, const char *path, const char *script,
                     const char *func_name, cli_program *p) {
  memset(p, 0, sizeof *p);
  p->ctx = tsl_ctx_new();
  p->arena = tsl_arena_new(p->ctx);
  if (cli_load(p->arena, path, &p->orig) != CLI_OK)
    return CLI_USAGE;
  p->orig_func = cli_pick_func(verb, p->orig, func_name, path);
  if (!p->orig_func)
    return CLI_USAGE;
  p->module = p->orig;
  p->func = p->orig_func;
  if (!script)
    return CLI_OK;
  char *src = NULL;
  size_t len = 0;
  tsl_diag d = {0};
  if (tsl_read_file(script, &src, &len, &d) != TSL_OK)
    return cli_stage_error(verb, "schedule", d.text);
  int rc = cli_script_intrins(verb, p->ctx, p->arena, script, &p->reg, &p->intrins, &d);
  if (rc != TSL_OK) {
    free(src);
    return cli_stage_error(verb, "schedule", d.text);
  }
  tsl_schedule_opts so = {sizeof so, p->orig_func->name, 0, p->intrins};
  rc = tsl_schedule_new(p->ctx, p->orig, &so, &p->sch, &d);
  if (rc == TSL_OK)
    rc = tsl_script_run(p->sch, script, src, len, &d);
  free(src);
  if (rc != TSL_OK)
    return cli_stage_error(verb, "schedule", d.text);
  p->module = tsl_schedule_module(p->sch);
  p->func = tsl_module_find(p->module, p->orig_func->name);
  if (!p->func)
    return cli_stage_error(verb, "schedule", "the script removed the function");
  return CLI_OK;
}

void cli_program_free(cli_program *p) {
  tsl_schedule_free(p->sch);
  tsl_intrin_registry_free(p->intrins);
  tsl_registry_free(p->reg);
  tsl_arena_free(p->arena);
  tsl_ctx_free(p->ctx);
  memset(p, 0, sizeof *p);
}

/* "NAME -key=value ..." split into the name and its options (pointing into
 * `buf`); 0, or CLI_USAGE after printing what is wrong. */
enum { TARGET_MAX_OPTS = 32 };
static int split_target(const char *verb, const char *spec, char *buf, size_t cap,
                        const char **name, tsl_kv *kv, uint32_t *n) {
  if ((size_t)snprintf(buf, cap, "%s", spec) >= cap)
    return cli_error(verb, "--target: '%.40s...' is too long", spec);
  *n = 0;
  *name = NULL;
  char *save = NULL;
  for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
    if (!*name) {
      *name = tok;
      continue;
    }
    char *eq = strchr(tok, '=');
    if (tok[0] != '-' || !eq || eq == tok + 1 || !eq[1])
      return cli_error(verb,
                       "--target '%s': '%s' is not an option; write the target's options as "
                       "-key=value after its name, e.g. \"llvm -mcpu=znver4 -vector-math=0\"",
                       spec, tok);
    if (*n == TARGET_MAX_OPTS)
      return cli_error(verb, "--target '%s': more than %d options", spec, TARGET_MAX_OPTS);
    *eq = '\0';
    if (!strcmp(tok, "-mattr") && strchr(eq + 1, '#'))
      return cli_error(verb,
                       "--target '%s': -mattr=%s is a hash of a machine's features as targets "
                       "are printed, not features; leave -mattr out for this machine's, or "
                       "list them as +name,-name",
                       spec, eq + 1);
    kv[*n].key = tok + 1;
    kv[(*n)++].value = eq + 1;
  }
  if (!*name)
    return cli_error(verb, "--target is empty; name a target plugin, e.g. llvm");
  return CLI_OK;
}

int cli_target_open(const char *verb, tsl_ctx *ctx, const char *spec, int threads,
                    cli_target *out) {
  memset(out, 0, sizeof *out);
  char buf[1024], tv[32];
  const char *name = NULL;
  tsl_kv kv[TARGET_MAX_OPTS + 1];
  uint32_t n = 0;
  int rc = split_target(verb, spec, buf, sizeof buf, &name, kv, &n);
  if (rc)
    return rc;
  if (threads > 0) {
    for (uint32_t i = 0; i < n; i++)
      if (!strcmp(kv[i].key, "threads"))
        return cli_error(verb, "--threads %d and --target '%s' both set threads; give one", threads,
                         spec);
    snprintf(tv, sizeof tv, "%d", threads);
    kv[n].key = "threads";
    kv[n].value = tv;
    n++;
  }
  tsl_diag d = {0};
  if (tsl_registry_new(ctx, &out->reg, &d) != TSL_OK ||
      tsl_registry_load_default(out->reg, 0, NULL, &d) != TSL_OK)
    return cli_stage_error(verb, "plugins", d.text);
  const tsl_component *c = NULL;
  if (tsl_registry_require(out->reg, TSL_COMPONENT_TARGET, name, &c, &d) != TSL_OK)
    return cli_stage_error(verb, "target", d.text);
  out->vt = c->vtable;
  if (out->vt->create(c->user_data, n, kv, &out->t, &d) != TSL_OK) {
    out->t = NULL;
    char what[128];
    snprintf(what, sizeof what, "target %s", name);
    return cli_stage_error(verb, what, d.text);
  }
  return CLI_OK;
}

void cli_target_close(cli_target *t) {
  if (t->t && t->vt && t->vt->destroy)
    t->vt->destroy(t->t);
  tsl_registry_free(t->reg);
  memset(t, 0, sizeof *t);
}
