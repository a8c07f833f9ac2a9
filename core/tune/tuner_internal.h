/*
 * core/tune: declarations shared by the tuner's files (tuner.c,
 * tuner_best.c, tuner_files.c). Only files of core/tune include this header.
 */
#ifndef TESSEL_TUNER_INTERNAL_H
#define TESSEL_TUNER_INTERNAL_H

#include "tessel/tessel.h"
#include "tessel/tune.h"

#define TUNE_PREFIX "cand"
#include "measure.h"

/* timed.c: a cost model and mutators with their time counted, given to
 * the strategy in place of the plugins' (the instances stay the tuner's).
 * Pass a tune_timed_model / tune_timed_mutator as the instance pointer. */
typedef struct tune_timed_model {
  const tsl_cost_model_vtable *vt;
  tsl_cost_model *m;
  double predict_s, update_s;
} tune_timed_model;
extern const tsl_cost_model_vtable tune_timed_model_vt;
typedef struct tune_timed_mutator {
  const tsl_trace_mutator_vtable *vt;
  tsl_trace_mutator *m;
  double *apply_s; /* shared by a run's mutators */
} tune_timed_mutator;
extern const tsl_trace_mutator_vtable tune_timed_mutator_vt;

/* reference.c: a schedule of `func` (in `mod`) for the compiled reference:
 * in each loop nest whose innermost loop is a reduction, the last spatial
 * loop moved innermost (the outputs are the same; the reorder primitive
 * refusing leaves a nest as written). The caller frees *out. */
int tune_reference_schedule(tsl_ctx *ctx, const tsl_module *mod, const char *func_name,
                            const tsl_func *func, tsl_schedule **out, tsl_diag *diag);

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
  const tsl_intrin_registry *intrins; /* for a trace that tensorizes */
  tsl_tune_result *out;
  tsl_diag *diag;
} tuner_best_ctx;
int tune_best(tuner_best_ctx *b);

#endif
