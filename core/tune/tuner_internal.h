/*
 * core/tune: declarations shared by the tuner's files (tuner.c, builder.c,
 * tuner_best.c). Only files of core/tune include this header.
 */
#ifndef TESSEL_TUNER_INTERNAL_H
#define TESSEL_TUNER_INTERNAL_H

#include "tessel/tessel.h"
#include "tessel/tune.h"

#define TUNE_PREFIX "cand"
#define TUNE_MAX_WORKERS 256

/* One candidate of a batch to build into `so_path`. */
typedef struct tune_build_job {
  const tsl_lowered_module *lm;
  char so_path[1024];
  int32_t done, ok;
  double build_s;
  char error[512];
} tune_build_job;

/* Build every job with up to `workers` forked processes; every job ends
 * with ok or an error text. A build running longer than `timeout_s` is
 * killed; a crash or a timeout costs only the job being built. */
void tune_build_batch(const tsl_target_vtable *vt, tsl_target *t,
                      tune_build_job *jobs, uint32_t n, int32_t workers,
                      double timeout_s);

double tune_now(void);

/* tuner_files.c: remove a run's build folder (its files, then itself);
 * remove the run-PID folders under `builds` whose process is gone; check
 * that the export path's folder exists (made if missing) and is writable. */
void tune_remove_builds(const char *dir);
void tune_purge_builds(const char *builds);
int tune_check_export(const char *path, tsl_diag *diag);

/* The end of a run (tuner_best.c): the best record of workload and target,
 * its trace as a script, the scheduled program, and the library when the
 * config asks for one; fills the best_* and export_path fields. */
typedef struct tuner_best_ctx {
  const tsl_run_config *cfg;
  tsl_ctx *ctx;
  tsl_arena *arena;
  const tsl_module *mod;
  const char *func_name;
  tsl_db *db;
  int64_t wid;
  const char *target_desc;
  const tsl_target_vtable *tvt;
  tsl_target *target;
  tsl_tune_result *out;
  tsl_diag *diag;
} tuner_best_ctx;
int tune_best(tuner_best_ctx *b);

#endif
