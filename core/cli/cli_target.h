/*
 * Helpers shared by `tessel run` and `tessel build`: loading a program and
 * applying a schedule script, opening a target from the plugin registry,
 * and small option parsers. Each reports its errors on stderr as
 * "tessel VERB: error: STAGE: message" and returns CLI_USAGE.
 */
#ifndef TESSEL_CLI_TARGET_H
#define TESSEL_CLI_TARGET_H

#include "cli.h"

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

/* Load the plugins, find target NAME (the message lists the valid ones),
 * create it with "threads" = THREADS when threads > 0. `ctx` must outlive
 * the target (close it before freeing the program). */
int cli_target_open(const char *verb, tsl_ctx *ctx, const char *name, int threads,
                    cli_target *out);
void cli_target_close(cli_target *t);

/* Integer / number option values; 0 when `s` is not one. */
int cli_parse_int(const char *s, long long lo, long long hi, long long *out);
int cli_parse_num(const char *s, double lo, double hi, double *out);

/* Prints "tessel VERB: error: STAGE: TEXT" (TEXT may span lines) and
 * returns CLI_USAGE. */
int cli_stage_error(const char *verb, const char *stage, const char *text);

#endif
