/*
 * Golden config errors: tests/config/cases/NAME.yaml (a config with one
 * fault), optional NAME.sets (one --set override per line) and NAME.plugins
 * (also run tsl_run_config_check_plugins against the default registry).
 * Loading must fail and the message must equal NAME.expected (one line).
 * The test runs from the source root, so paths read
 * tests/config/cases/NAME.yaml. In plugin cases "@VALID@" in the expected
 * text stands for the names registered for that kind (they change as
 * plugins land) and "@STRATEGY@" in a .sets line for a registered strategy.
 * TESSEL_UPDATE_GOLDEN=1 rewrites the .expected files (review them by eye).
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_files.h"

#define CASES "tests/config/cases"

static char *slurp(const char *path) {
  char *s = NULL;
  size_t n;
  tsl_diag d = {0};
  return tsl_read_file(path, &s, &n, &d) == TSL_OK ? s : NULL;
}

/* Names registered for `kind`, ", "-separated; "" when none. */
static void names_of(const tsl_registry *reg, uint32_t kind, char *out,
                     size_t cap) {
  out[0] = '\0';
  for (uint32_t i = 0; i < tsl_registry_count(reg); i++) {
    const tsl_component *c = tsl_registry_get(reg, i);
    if (c->kind != kind)
      continue;
    if (out[0])
      strncat(out, ", ", cap - strlen(out) - 1);
    strncat(out, c->name, cap - strlen(out) - 1);
  }
}

static char *replace(const char *s, const char *what, const char *with) {
  const char *at = strstr(s, what);
  if (!at)
    return strdup(s);
  size_t n = strlen(s) - strlen(what) + strlen(with) + 1;
  char *r = malloc(n);
  snprintf(r, n, "%.*s%s%s", (int)(at - s), s, with, at + strlen(what));
  return r;
}

static void run_case(const tsl_registry *reg, const char *name, int update) {
  char path[512], sets_path[512], exp_path[512], plug_path[512];
  snprintf(path, sizeof path, CASES "/%s.yaml", name);
  snprintf(sets_path, sizeof sets_path, CASES "/%s.sets", name);
  snprintf(exp_path, sizeof exp_path, CASES "/%s.expected", name);
  snprintf(plug_path, sizeof plug_path, CASES "/%s.plugins", name);
  int plugins = access(plug_path, F_OK) == 0;

  char strategies[1024];
  names_of(reg, TSL_COMPONENT_STRATEGY, strategies, sizeof strategies);
  char first_strategy[256] = "";
  sscanf(strategies, "%255[^,]", first_strategy);

  /* overrides */
  char *sets_text = slurp(sets_path);
  const char *sets[16];
  char *owned[16];
  uint32_t n_sets = 0;
  int needs_strategy = 0;
  for (char *line = sets_text; line && *line && n_sets < 16;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (strstr(line, "@STRATEGY@"))
      needs_strategy = 1;
    owned[n_sets] = replace(line, "@STRATEGY@", first_strategy);
    sets[n_sets] = owned[n_sets];
    n_sets++;
    line = nl ? nl + 1 : NULL;
  }
  if (needs_strategy && !first_strategy[0]) {
    tap_skip("no strategy plugin registered yet", name);
    goto out;
  }

  tsl_run_config *c = NULL;
  tsl_diag diag = {0};
  int rc = tsl_run_config_load(path, n_sets, sets, &c, &diag);
  if (plugins && rc == TSL_OK) {
    rc = tsl_run_config_check_plugins(c, reg, &diag);
    tsl_run_config_free(c);
    c = NULL;
  }
  if (!ok(rc != TSL_OK && c == NULL, "%s: fails", name)) {
    tsl_run_config_free(c);
    goto out;
  }
  if (update) {
    FILE *f = fopen(exp_path, "w");
    const char *v = plugins ? strstr(diag.text, "; valid: ") : NULL;
    if (v)
      fprintf(f, "%.*s; valid: @VALID@\n", (int)(v - diag.text), diag.text);
    else
      fprintf(f, "%s\n", diag.text);
    fclose(f);
  }
  char *expected = slurp(exp_path);
  if (!expected) {
    ok(0, "%s: has %s", name, exp_path);
    goto out;
  }
  size_t n = strlen(expected);
  while (n && expected[n - 1] == '\n')
    expected[--n] = '\0';
  if (plugins) {
    uint32_t kind = strstr(name, "target")     ? TSL_COMPONENT_TARGET
                    : strstr(name, "strategy") ? TSL_COMPONENT_STRATEGY
                                               : TSL_COMPONENT_COST_MODEL;
    char names[1024], valid[1400];
    names_of(reg, kind, names, sizeof names);
    if (names[0])
      snprintf(valid, sizeof valid, "%s", names);
    else
      snprintf(valid, sizeof valid,
               "none, no %s plugin is registered (plugins are searched in "
               "the build tree, <libdir>/tessel/plugins, TESSEL_PLUGIN_PATH "
               "and plugin_paths; see `tessel plugins`)",
               tsl_component_kind_name(kind));
    char *e2 = replace(expected, "@VALID@", valid);
    free(expected);
    expected = e2;
  }
  is_str(diag.text, expected, "%s: message", name);
  ok(strchr(diag.text, '\n') == NULL, "%s: one line", name);
  free(expected);
out:
  for (uint32_t i = 0; i < n_sets; i++)
    free(owned[i]);
  free(sets_text);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (!root || chdir(root) != 0) {
    ok(0, "TESSEL_SOURCE_ROOT is set and exists");
    return tap_done();
  }
  int update = getenv("TESSEL_UPDATE_GOLDEN") != NULL;
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  tsl_diag diag = {0};
  int rc = tsl_registry_new(ctx, &reg, &diag);
  if (!rc)
    rc = tsl_registry_load_default(reg, 0, NULL, &diag);
  if (!ok(rc == TSL_OK, "default registry loads")) {
    tap_diag("%s", diag.text);
    return tap_done();
  }
  ok(tsl_registry_find(reg, TSL_COMPONENT_TARGET, "llvm") != NULL,
     "the llvm target is registered");

  char *names[256];
  int n = tf_list(CASES, ".yaml", 0, names, 256);
  ok(n >= 40, "found the cases (%d)", n);
  for (int i = 0; i < n; i++) {
    if (tf_selected(names[i]))
      run_case(reg, names[i], update);
    free(names[i]);
  }
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return tap_done();
}
