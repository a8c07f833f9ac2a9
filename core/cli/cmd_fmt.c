/*
 * `tessel fmt FILE`: parse a TVMScript program and print it in canonical
 * form on stdout.
 */
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_fmt_usage[] =
    "usage: tessel fmt FILE [--json]\n"
    "\n"
    "Parse the TVMScript program in FILE (\"-\" reads stdin) and print it in\n"
    "canonical TVMScript (TVM's newer syntax). The output parses back to a\n"
    "structurally equal program, and formatting it again changes nothing.\n"
    "A model (an @I.ir_module with @R.function functions beside its\n"
    "prim_funcs) is checked (names, dataflow scopes, calls against the\n"
    "prim_funcs' buffers, operator shapes) and printed as TVM prints it.\n"
    "\n"
    "  --json   print {\"file\": ..., \"text\": ...} instead of the text\n"
    "\n"
    "exit status: 0 ok, 2 on a parse error (message on stderr)\n";

int cli_fmt(int argc, char **argv) {
  const char *path = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_error("fmt", "unknown option '%s'\nnote: valid options: --json, --help", argv[i]);
    else if (path)
      return cli_error("fmt", "more than one FILE given ('%s' and '%s')\nnote: usage: tessel fmt FILE", path, argv[i]);
    else
      path = argv[i];
  }
  if (!path)
    return cli_error("fmt", "missing FILE\nnote: usage: tessel fmt FILE [--json]");
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_model *m = NULL;
  tsl_weights *own = NULL;
  int rc = cli_load_model(arena, path, &m, &own);
  if (rc == CLI_OK) {
    char *text = m->n_rx_funcs ? tsl_model_print(m) : tsl_print_module(m->tir);
    if (json) {
      json_t *o = json_pack("{s:s, s:s}", "file", path, "text", text);
      char *s = json_dumps(o, JSON_COMPACT);
      puts(s);
      free(s);
      json_decref(o);
    } else {
      fputs(text, stdout);
    }
    free(text);
  }
  tsl_weights_free(own);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return rc;
}
