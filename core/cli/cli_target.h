/*
 * Helpers shared by `tessel run` and `tessel build`: loading a program and
 * applying a schedule script, opening a target from the plugin registry,
 * and small option parsers. Each reports its errors on stderr as
 * "tessel VERB: error: STAGE: message" and returns CLI_USAGE.
 */
#ifndef TESSEL_CLI_TARGET_H
#define TESSEL_CLI_TARGET_H

#include "cli.h"
#include "tessel/model.h"

/* A parsed program, optionally scheduled. */
typedef struct cli_program {
  tsl_ctx *ctx;
  tsl_arena *arena;
  const tsl_module *orig;   /* as parsed */
  const tsl_module *module; /* after the schedule script (or orig) */
  const tsl_func *orig_func; /* the chosen function, unscheduled */
  const tsl_func *func;      /* the chosen function, scheduled */
  tsl_schedule *sch;
  tsl_registry *reg;           /* the plugins the intrinsics came from */
  tsl_intrin_registry *intrins; /* what the script may tensorize with */
} cli_program;

/* Parse PATH, pick the function (--func or the default), run SCRIPT (may be
 * NULL) on it, with the intrinsics of cli_script_intrins. */
int cli_program_load(const char *verb, const char *path, const char *script,
                     const char *func_name, cli_program *p);
void cli_program_free(cli_program *p);

/* A target instance from the registry. */
typedef struct cli_target {
  tsl_registry *reg;
  const tsl_target_vtable *vt;
  tsl_target *t;
} cli_target;

/* Load the plugins, find the target SPEC names ("NAME" or "NAME -key=value
 * ...", the form tessel db stats prints a target in; the message lists the
 * valid names), create it with those options and "threads" = THREADS when
 * threads > 0 (SPEC may not set threads then). `ctx` must outlive
 * the target (close it before freeing the program). */
int cli_target_open(const char *verb, tsl_ctx *ctx, const char *spec, int threads,
                    cli_target *out);
void cli_target_close(cli_target *t);

/* Integer / number option values; 0 when `s` is not one. */
int cli_parse_int(const char *s, long long lo, long long hi, long long *out);
int cli_parse_num(const char *s, double lo, double hi, double *out);

/* Prints "tessel VERB: error: STAGE: TEXT" (TEXT may span lines) and
 * returns CLI_USAGE. */
int cli_stage_error(const char *verb, const char *stage, const char *text);

/* ---- compiled models (cmd_model_compiled.c) ---------------------------- */

/* The passes a compiled model gets when none are named. */
extern const char *const cli_model_default_passes;

typedef struct cli_compiled {
  const tsl_model *model;          /* after the passes */
  tsl_weights *constants;          /* the constants they bound */
  const tsl_model_aot *aot;
  const tsl_lowered_module *lowered; /* with the weights as data "weights" */
} cli_compiled;

/* Passes (NULL: the default) from `reg` (NULL: the search path's),
 * tsl_model_aot_build with `weights` (the weights file, may be NULL),
 * lowering. Prints the error on failure. */
int cli_model_compile(const char *verb, const tsl_registry *reg, tsl_arena *arena,
                      const tsl_model *m, const char *func, const char *passes,
                      const tsl_weights *weights, cli_compiled *out);
void cli_compiled_free(cli_compiled *c);

typedef struct cli_model_run {
  tsl_arena *arena;
  const tsl_registry *reg; /* passes and library functions */
  const tsl_model *model;
  const char *func, *passes, *target, *output;
  int threads, json;
  const tsl_weights *weights;   /* the weights file's tensors, or NULL */
  const tsl_weights *inputs;    /* every parameter's tensor */
  const tsl_weights *reference; /* the interpreter's outputs */
} cli_model_run;
/* `tessel run MODEL --target NAME`: build, run, time, print, check. */
int cli_model_run_compiled(const cli_model_run *r);

typedef struct cli_model_build_args {
  tsl_arena *arena;
  const tsl_model *model;
  const char *path, *func, *passes, *target, *out, *prefix, *header;
  const char *tir; /* the compiled module as TVMScript there, or NULL */
  int threads;
  const tsl_weights *weights;
} cli_model_build_args;
/* `tessel build MODEL -o libNAME.so`: the library and its header. */
int cli_model_build(const cli_model_build_args *b);

/* cmd_run_model.c: a run's outputs printed (or as JSON) with the time of
 * `engine`; the largest difference of two output sets (0 when they do
 * not pair up). */
void cli_model_print_outputs(const tsl_weights *out, double secs, int json, const char *engine);
int cli_model_compare(const tsl_weights *ref, const tsl_weights *got, double *max_diff,
                      double *max_ref);
/* Prints "check against AGAINST: ok|MISMATCH (max |diff| .., max |value| ..)"
 * (stderr with json) and returns 1 when `got` agrees with `ref` within
 * 1e-4 of the largest value. */
int cli_model_check(const tsl_weights *ref, const tsl_weights *got, const char *against,
                    int json);

#endif
