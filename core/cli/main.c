/*
 * The `tessel` executable: verb dispatch, --help and --version, and the
 * helpers shared by verbs (error reporting, loading programs).
 */
#include "cli.h"

#include "tessel/onnx.h"

#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const char cli_fmt_usage[], cli_eq_usage[], cli_eval_usage[],
    cli_schedule_usage[], cli_space_usage[], cli_run_usage[], cli_build_usage[],
    cli_plugins_usage[], cli_tune_usage[], cli_db_usage[], cli_best_usage[],
    cli_report_usage[], cli_weights_usage[], cli_pass_usage[], cli_import_usage[];

const cli_verb cli_verbs[] = {
    {"fmt", "print a TVMScript program in canonical form", cli_fmt_usage, cli_fmt},
    {"eq", "compare two programs structurally", cli_eq_usage, cli_eq},
    {"eval", "run a program on seeded random inputs in the interpreter",
     cli_eval_usage, cli_eval},
    {"schedule", "apply a schedule script to a program", cli_schedule_usage,
     cli_schedule},
    {"space", "the design space schedule rules derive for a program", cli_space_usage,
     cli_space},
    {"run", "compile a program for a target, time it and check its outputs",
     cli_run_usage, cli_run},
    {"build", "export a program as a library (.so or .o) with a C header",
     cli_build_usage, cli_build},
    {"plugins", "list the registered targets, strategies, cost models, ...",
     cli_plugins_usage, cli_plugins},
    {"tune", "search a schedule space as a YAML config says, into a database",
     cli_tune_usage, cli_tune},
    {"db", "tuning database: stats, export and import of records", cli_db_usage,
     cli_db},
    {"best", "the best trace in a tuning database and its program",
     cli_best_usage, cli_best},
    {"report", "an HTML page with the tuning curve and every measurement",
     cli_report_usage, cli_report},
    {"weights", "list the tensors of a .npy/.npz/.safetensors file, or convert it",
     cli_weights_usage, cli_weights},
    {"pass", "run graph passes on a model (bind_params, legalize, ...) and print it",
     cli_pass_usage, cli_pass},
    {"import", "an ONNX model as a Relax module in TVMScript and its weights",
     cli_import_usage, cli_import},
    {NULL, NULL, NULL, NULL},
};

static void print_main_usage(FILE *out) {
  fprintf(out, "usage: tessel VERB [ARGS...]\n\nverbs:\n");
  for (const cli_verb *v = cli_verbs; v->name; v++)
    fprintf(out, "  %-9s %s\n", v->name, v->summary);
  fprintf(out, "\n`tessel VERB --help` describes a verb. `./tessel test` (the "
               "repository bootstrap) runs the test suite.\n");
}

int cli_help_requested(int argc, char **argv, const char *usage) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0)
      break;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(usage, stdout);
      return CLI_OK;
    }
  }
  return -1;
}

int cli_parse_u64(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (*s == '-')
    return 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end)
    return 0;
  *out = v;
  return 1;
}

int cli_error(const char *verb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tessel %s: error: ", verb);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return CLI_USAGE;
}

/* The text of FILE ("-": stdin); CLI_USAGE with the message printed. */
static int read_source(const char **path, char **src, size_t *len) {
  tsl_diag diag = {0};
  if (strcmp(*path, "-") == 0) {
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
      tsl_strbuf_append_n(&sb, buf, n);
    *len = sb.len;
    *src = tsl_strbuf_take(&sb);
    *path = "<stdin>";
    return CLI_OK;
  }
  if (tsl_read_file(*path, src, len, &diag) != TSL_OK) {
    fprintf(stderr, "%s\n", diag.text);
    return CLI_USAGE;
  }
  return CLI_OK;
}

/* FILE as a program (model NULL) or a model (out NULL). */
static int load(tsl_arena *arena, const char *path, const tsl_module **out,
                const tsl_model **model) {
  tsl_diag diag = {0};
  char *src = NULL;
  size_t len = 0;
  if (read_source(&path, &src, &len))
    return CLI_USAGE;
  int rc = model ? tsl_parse_model(arena, path, src, len, model, &diag)
                 : tsl_parse(arena, path, src, len, out, &diag);
  free(src);
  if (rc != TSL_OK) {
    fprintf(stderr, "%s\n", diag.text);
    return CLI_USAGE;
  }
  return CLI_OK;
}

int cli_load(tsl_arena *arena, const char *path, const tsl_module **out) {
  return load(arena, path, out, NULL);
}

int cli_load_model(tsl_arena *arena, const char *path, const tsl_model **out,
                   tsl_weights **owned) {
  *owned = NULL;
  size_t n = strlen(path);
  if (n < 5 || strcmp(path + n - 5, ".onnx"))
    return load(arena, path, NULL, out);
  /* an ONNX model: imported, its initializers bound as the model's constants */
  tsl_diag d = {0};
  if (tsl_onnx_import(arena, path, TSL_ONNX_BIND_WEIGHTS, out, owned, &d)) {
    fprintf(stderr, "%s\n", d.text);
    return CLI_USAGE;
  }
  return CLI_OK;
}

int cli_write_text(const char *path, const char *text) {
  if (!text)
    return EINVAL;
  FILE *f = fopen(path, "w");
  if (!f)
    return errno ? errno : EIO;
  int bad = fputs(text, f) < 0;
  int err = bad ? errno : 0;
  if (fclose(f) != 0 && !bad) {
    bad = 1;
    err = errno;
  }
  return bad ? (err ? err : EIO) : 0;
}

double cli_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

const tsl_func *cli_pick_func(const char *verb, const tsl_module *m,
                              const char *name, const char *path) {
  if (name) {
    const tsl_func *f = tsl_module_find(m, name);
    if (!f) {
      fprintf(stderr, "tessel %s: error: %s has no function '%s'\nnote: functions:", verb, path, name);
      for (uint32_t i = 0; i < m->n_funcs; i++)
        fprintf(stderr, " %s", m->funcs[i]->name);
      fputc('\n', stderr);
    }
    return f;
  }
  if (m->n_funcs == 1)
    return m->funcs[0];
  const tsl_func *f = tsl_module_find(m, "main");
  if (!f) {
    fprintf(stderr, "tessel %s: error: %s has %u functions and none is 'main'\nnote: choose one with --func; functions:", verb, path, m->n_funcs);
    for (uint32_t i = 0; i < m->n_funcs; i++)
      fprintf(stderr, " %s", m->funcs[i]->name);
    fputc('\n', stderr);
  }
  return f;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_main_usage(stderr);
    return CLI_USAGE;
  }
  const char *verb = argv[1];
  if (strcmp(verb, "-h") == 0 || strcmp(verb, "--help") == 0 ||
      strcmp(verb, "help") == 0) {
    print_main_usage(stdout);
    return CLI_OK;
  }
  if (strcmp(verb, "--version") == 0 || strcmp(verb, "version") == 0) {
    printf("tessel %s\n", TSL_VERSION_STRING);
    return CLI_OK;
  }
  for (const cli_verb *v = cli_verbs; v->name; v++) {
    if (strcmp(v->name, verb) == 0) {
      int h = cli_help_requested(argc - 1, argv + 1, v->usage);
      if (h >= 0) {
        if (v->run == cli_run) /* and the model form */
          fputs(cli_run_model_usage, stdout);
        return h;
      }
      return v->run(argc - 1, argv + 1);
    }
  }
  fprintf(stderr, "tessel: error: unknown verb '%s'\nnote: valid verbs are:",
          verb);
  for (const cli_verb *v = cli_verbs; v->name; v++)
    fprintf(stderr, " %s", v->name);
  fprintf(stderr, " (and `./tessel test` in the repository)\n");
  return CLI_USAGE;
}
