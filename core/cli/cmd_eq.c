/*
 * `tessel eq A B`: structural equality of two programs.
 */
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_eq_usage[] =
    "usage: tessel eq A B [--json]\n"
    "\n"
    "Compare the TVMScript programs in files A and B structurally:\n"
    "variable and buffer names do not matter, block names do, and integer\n"
    "index expressions are compared after canonical simplification\n"
    "(i*4 + j equals j + i*4). When they differ, the first difference is\n"
    "printed with its path.\n"
    "\n"
    "  --json   print {\"equal\": true|false, \"difference\": ...}\n"
    "\n"
    "exit status: 0 equal, 1 not equal, 2 on error (message on stderr)\n";

int cli_eq(int argc, char **argv) {
  const char *paths[2] = {NULL, NULL};
  int n = 0, json = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_error("eq", "unknown option '%s'\nnote: valid options: --json, --help", argv[i]);
    else if (n == 2)
      return cli_error("eq", "too many files ('%s')\nnote: usage: tessel eq A B", argv[i]);
    else
      paths[n++] = argv[i];
  }
  if (n != 2)
    return cli_error("eq", "expected two files, got %d\nnote: usage: tessel eq A B [--json]", n);
  if (strcmp(paths[0], "-") == 0 && strcmp(paths[1], "-") == 0)
    return cli_error("eq", "only one of A and B may be \"-\" (stdin)");
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_module *a = NULL, *b = NULL;
  int rc = cli_load(arena, paths[0], &a);
  if (rc == CLI_OK)
    rc = cli_load(arena, paths[1], &b);
  if (rc == CLI_OK) {
    char why[4096] = "";
    int equal = tsl_module_equal(a, b, why, sizeof why);
    if (json) {
      json_t *o = json_pack("{s:b}", "equal", equal);
      if (!equal)
        json_object_set_new(o, "difference", json_string(why));
      char *s = json_dumps(o, JSON_COMPACT);
      puts(s);
      free(s);
      json_decref(o);
    } else if (equal) {
      printf("equal\n");
    } else {
      printf("not equal: %s\n", why);
    }
    rc = equal ? CLI_OK : CLI_NO;
  }
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return rc;
}
