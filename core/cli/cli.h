/*
 * Shared declarations of the `tessel` command-line verbs.
 * Every verb returns the process exit status: 0 success, 1 a negative
 * answer (e.g. `eq` on different programs), 2 a user error (message on
 * stderr).
 */
#ifndef TESSEL_CLI_H
#define TESSEL_CLI_H

#include "tessel/tessel.h"
#include "tessel/relax.h"

enum { CLI_OK = 0, CLI_NO = 1, CLI_USAGE = 2 };

typedef struct cli_verb {
  const char *name;
  const char *summary;
  const char *usage; /* full --help text */
  int (*run)(int argc, char **argv);
} cli_verb;

int cli_fmt(int argc, char **argv);
int cli_eq(int argc, char **argv);
int cli_eval(int argc, char **argv);
int cli_schedule(int argc, char **argv);
int cli_space(int argc, char **argv);   /* cmd_space.c */
int cli_run(int argc, char **argv);     /* cmd_run.c */
int cli_build(int argc, char **argv);   /* cmd_build.c */
int cli_plugins(int argc, char **argv); /* cmd_plugins.c */
int cli_tune(int argc, char **argv);    /* cmd_tune.c */
int cli_db(int argc, char **argv);      /* cmd_db.c */
int cli_best(int argc, char **argv);    /* cmd_best.c */
int cli_report(int argc, char **argv);  /* cmd_report.c */
int cli_weights(int argc, char **argv); /* cmd_weights.c */
int cli_pass(int argc, char **argv);    /* cmd_pass.c */
int cli_import(int argc, char **argv);  /* cmd_import.c */

/* A registry with the built-in components and the plugins of the search
 * path (a plugin that fails to load is a warning). Prints the error and
 * returns CLI_USAGE when the registry cannot be made. */
int cli_registry_open(const char *verb, tsl_ctx *ctx, tsl_registry **out);
/* Graph passes on `m` (cmd_pass.c): `passes` (comma-separated) from `reg`
 * (NULL: one cli_registry_open makes); `weights` (may be NULL):
 * tensors named relax.expr.Constant.<i> are the model's constants, the
 * others parameters for bind_params. *out lives in `arena`, its constants
 * in *constants (free it after the model's last use). Prints the error
 * and returns CLI_USAGE on failure. */
int cli_model_passes(const char *verb, const tsl_registry *reg, tsl_arena *arena,
                     const tsl_model *m, const char *passes, const tsl_weights *weights,
                     const tsl_model **out, tsl_weights **constants);

/* Prints `usage` and returns CLI_OK when argv holds -h/--help. Returns -1
 * otherwise. */
int cli_help_requested(int argc, char **argv, const char *usage);
/* Reports a user error on stderr ("tessel VERB: error: ...") and returns
 * CLI_USAGE. */
int cli_error(const char *verb, const char *fmt, ...) TSL_PRINTF(2, 3);
/* Parses a program file ("-" = stdin) into `arena`; prints the diagnostic
 * and returns CLI_USAGE on error. */
int cli_load(tsl_arena *arena, const char *path, const tsl_module **out);
/* The same for a model: prim_funcs and @R.function functions (relax.h),
 * or an .onnx file imported (tessel/onnx.h) with its initializers bound as
 * the model's constants, which *owned holds (NULL otherwise): free it
 * with tsl_weights_free after the model's last use. */
int cli_load_model(tsl_arena *arena, const char *path, const tsl_model **out,
                   tsl_weights **owned);
/* Write `text` (NULL: nothing to write, an error) to `path`; 0 ok, else
 * errno's value (EINVAL for NULL text). */
int cli_write_text(const char *path, const char *text);
/* Monotonic seconds (for durations). */
double cli_now_s(void);
/* `tessel run MODEL ...` (cmd_run_model.c): the model's Relax function in
 * the reference interpreter. */
int cli_run_model(int argc, char **argv, const tsl_model *m);
extern const char cli_run_model_usage[];

/* The function NAME of `m`, or (NAME NULL) its only function or "main";
 * prints an error naming the functions and returns NULL otherwise. */
const tsl_func *cli_pick_func(const char *verb, const tsl_module *m,
                              const char *name, const char *path);

/* Tensor intrinsics of the plugin registry (cli_intrins.c): every INTRIN
 * component (built-ins and plugins on the search path) into *out, the
 * registry into *reg (free *out, then *reg). A plugin that fails to load
 * is a warning on stderr ("tessel VERB: warning: plugins: ...") and what
 * loaded is used (at least the built-ins). */
int cli_registry_intrins(const char *verb, tsl_ctx *ctx, tsl_arena *arena, tsl_registry **reg,
                         tsl_intrin_registry **out, tsl_diag *d);

/* Tensor intrinsics for a schedule script (cli_intrins.c): every INTRIN
 * component of the plugin registry (built-ins and plugins on the search
 * path), then the files intrin__<name>__desc.py / intrin__<name>__impl.py
 * of the folder of `script`, into *out (free with
 * tsl_intrin_registry_free, then *reg with tsl_registry_free: the plugins
 * stay loaded while their intrinsics are used). The functions live in
 * `arena`. A plugin that fails to load is a warning on stderr ("tessel
 * VERB: warning: plugins: ...") and scheduling goes on with what loaded;
 * an intrinsic file of the folder that fails is an error (*out and *reg
 * NULL). */
int cli_script_intrins(const char *verb, tsl_ctx *ctx, tsl_arena *arena, const char *script,
                       tsl_registry **reg, tsl_intrin_registry **out, tsl_diag *d);

/* A non-negative integer (decimal, 0x..) filling the whole string. */
int cli_parse_u64(const char *s, uint64_t *out);

extern const cli_verb cli_verbs[];

#endif
