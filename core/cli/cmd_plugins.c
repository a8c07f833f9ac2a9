/*
 * `tessel plugins [--json] [--path P]...`: load the plugin search path (plus
 * the given folders or files) and list every registered component with its
 * kind, name, version, ABI version and the file it came from.
 */
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_plugins_usage[] =
    "usage: tessel plugins [--json] [--path DIR_OR_FILE]...\n"
    "\n"
    "Load the plugins on the search path and list every registered component\n"
    "(targets, strategies, cost models, schedule rules, postprocessors,\n"
    "mutators, tensor intrinsics), built-ins included. The search path is, in\n"
    "order: the build tree's plugin folders (when tessel runs from its build\n"
    "tree) or else the installed <libdir>/tessel/plugins, the folders of\n"
    "TESSEL_PLUGIN_PATH (':'-separated), then each --path. A folder\n"
    "contributes its *.so files.\n"
    "\n"
    "  --json          print a JSON array of {\"kind\", \"name\", \"version\",\n"
    "                  \"abi\", \"path\", \"summary\"} objects instead of a table\n"
    "  --path P        also load the plugin file P, or every *.so in folder P\n"
    "                  (repeatable)\n"
    "\n"
    "exit status: 0 ok, 2 on error (a plugin that fails to load: missing file,\n"
    "no entry symbol, ABI mismatch, duplicate name, failing init)\n";

enum { MAX_PATHS = 256 };

static void abi_str(uint32_t abi, char out[32]) {
  snprintf(out, 32, "%u.%u", TSL_ABI_MAJOR_OF(abi), TSL_ABI_MINOR_OF(abi));
}

static void print_table(const tsl_registry *reg) {
  uint32_t n = tsl_registry_count(reg);
  int wk = 4, wn = 4, wv = 7;
  for (uint32_t k = 0; k < n; k++) {
    const tsl_component *c = tsl_registry_get(reg, k);
    int l = (int)strlen(tsl_component_kind_name(c->kind));
    wk = l > wk ? l : wk;
    l = (int)strlen(c->name);
    wn = l > wn ? l : wn;
    l = (int)strlen(c->version);
    wv = l > wv ? l : wv;
  }
  printf("%-*s  %-*s  %-*s  %-4s  %s\n", wk, "KIND", wn, "NAME", wv, "VERSION",
         "ABI", "PATH");
  for (uint32_t k = 0; k < n; k++) {
    const tsl_component *c = tsl_registry_get(reg, k);
    char abi[32];
    abi_str(tsl_registry_abi(reg, k), abi);
    printf("%-*s  %-*s  %-*s  %-4s  %s\n", wk,
           tsl_component_kind_name(c->kind), wn, c->name, wv,
           c->version[0] ? c->version : "-", abi, tsl_registry_path(reg, k));
  }
}

static void print_json(const tsl_registry *reg) {
  json_t *arr = json_array();
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const tsl_component *c = tsl_registry_get(reg, k);
    char abi[32];
    abi_str(tsl_registry_abi(reg, k), abi);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind",
                          tsl_component_kind_name(c->kind), "name", c->name,
                          "version", c->version, "abi", abi, "path",
                          tsl_registry_path(reg, k));
    json_object_set_new(o, "summary",
                        c->summary ? json_string(c->summary) : json_null());
    json_array_append_new(arr, o);
  }
  char *s = json_dumps(arr, JSON_INDENT(2));
  printf("%s\n", s);
  free(s);
  json_decref(arr);
}

int cli_plugins(int argc, char **argv) {
  int json = 0;
  const char *paths[MAX_PATHS];
  uint32_t n_paths = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "--path") == 0) {
      if (i + 1 >= argc)
        return cli_error("plugins", "option --path needs a value\nnote: see tessel plugins --help");
      if (n_paths == MAX_PATHS)
        return cli_error("plugins", "at most %d --path options", MAX_PATHS);
      paths[n_paths++] = argv[++i];
    } else if (a[0] == '-') {
      return cli_error("plugins", "unknown option '%s'\nnote: valid options: --json, --path, --help", a);
    } else {
      return cli_error("plugins", "unexpected argument '%s'\nnote: usage: tessel plugins [--json] [--path DIR_OR_FILE]...", a);
    }
  }
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  tsl_diag diag = {0};
  int rc = tsl_registry_new(ctx, &reg, &diag);
  if (!rc)
    rc = tsl_registry_load_default(reg, n_paths, paths, &diag);
  int status = CLI_OK;
  if (rc) {
    status = cli_error("plugins", "%s", diag.text);
  } else if (json) {
    print_json(reg);
  } else {
    print_table(reg);
  }
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return status;
}
