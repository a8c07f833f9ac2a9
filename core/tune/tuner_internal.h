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

/* What a run holds for every task it tunes: the config, the plugins'
 * registry, the target, the database, the cost model (one for all tasks,
 * as TVM's task scheduler keeps one), the builds' folder. */
typedef struct tune_run {
  const tsl_run_config *cfg;
  tsl_registry *reg;
  tsl_ctx *ctx;
  tsl_arena *arena;
  const tsl_target_vtable *tvt;
  tsl_target *target;
  const char *desc;
  const tsl_cost_model_vtable *cvt;
  tsl_cost_model *cost;
  tune_timed_model timed_cost; /* `cost` as the strategy and updates see it */
  double mutate_s, lower_s;    /* the search overhead's parts counted here */
  tsl_db *db;
  tsl_intrin_registry *intrins; /* the registry's, for tensorize in a space script */
  char builds_dir[960];
  int db_rc; /* a record that could not be written stops the run */
  tsl_diag *diag;
} tune_run;

/* One task: a prim_func of the workload, its design space, strategy and
 * candidates, its database workload and its reference outputs. */
typedef struct tune_task {
  const tsl_module *mod;
  const tsl_func *func;
  const char *func_name;
  double flops;
  int64_t wid;
  tsl_trace **spaces; /* the design space: sketches (or one script's trace) */
  uint32_t n_spaces;
  tsl_space_postproc *pps; /* with a rule-derived space: the target's */
  uint32_t n_pps;
  tsl_space_mutator *mutators; /* the target's, for strategies that mutate */
  uint32_t n_mutators;
  tsl_space_mutator *timed_mutators; /* the same, timed, as the strategy sees them */
  tune_timed_mutator *timers;
  const tsl_strategy_vtable *svt;
  tsl_strategy *strategy;
  tsl_cand_service *cands; /* the task's candidates and known keys */
  const tsl_lowered_func *ref_lf;
  tsl_kernel *ref_kernel;
  tsl_schedule *ref_sch; /* the compiled reference's loop order (reference.c) */
  tsl_measure_session *session;
  tsl_reference ref; /* the session's reference outputs (remeasure.c makes a fresh one) */
  /* the task's standing: records of it (database included), its best
   * latency (< 0: none), its weight (calls in the model), the best after
   * each of its batches (the gradient scheduler's history) */
  int64_t done;
  double best_s;
  double weight;
  const tsl_func *orig; /* a model's task: the module's prim_func it comes from
                           (func is its specialization to a call's shapes) */
  int exhausted; /* the strategy has nothing left, or the task's budget is spent */
  double *history;
  uint32_t n_history;
  tsl_search_space sp;
  tsl_rule_target rule_target; /* sp.rule_target */
  int pre_tuned;
} tune_task;

/* The tuner of one run: a program's one task, or a model's tasks (its
 * distinct prim_funcs), `task` the one being worked on. */
typedef struct tuner {
  tune_run run;
  tune_task *tasks;
  uint32_t n_tasks;
  tune_task *task;
  const tsl_model *model; /* a model's workload after its passes, else NULL */
  tsl_weights *constants; /* the constants its passes bound (owned) */
  tsl_weights *onnx_weights; /* an imported .onnx workload's constants (owned) */
  tsl_map call_tasks;     /* a model's calls of prim_funcs -> their task + 1 */
} tuner;

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
/* The best record of a tsl_db_best query (its trace strdup'ed; free it). */
typedef struct tune_best_rec {
  char *trace_json;
  double latency_s;
  int64_t id;
} tune_best_rec;
int tune_take_best(void *user_data, const tsl_db_record *rec);
/* A program's run's end (remeasure.c, runner.remeasure): its fastest
 * records measured again in a fresh worker, runner.remeasure_rounds
 * interleaved rounds, their figures stored in the database; sets
 * out->remeasured_n. */
int tune_remeasure(tuner *tu, tsl_tune_result *out);

/* The tasks of the run's workload into tu->tasks (tune_tasks.c): a
 * program's one function (tune_load_program, tuner.c), or a model's
 * distinct prim_funcs after its passes, weighted by their calls. */
int tune_load_tasks(tuner *tu);
int tune_load_program(tuner *tu);
/* A model run's end (tune_tasks.c): each task's best record replayed, the
 * model with every tuned prim_func in place of its original (by
 * structural equality) into out->best_program, the per-task figures into
 * out->tasks. */
int tune_model_best(tuner *tu, tsl_tune_result *out);

/* The task scheduler (tune_sched.c): TVM's gradient-based scheduler
 * (every task once, then the task whose weighted latency the next batch
 * is expected to cut most: alpha times the drop over the last `window`
 * batches plus (1 - alpha) times best / batches; ties drawn at random), or
 * round-robin. Tasks whose `exhausted` is set are skipped; -1 when none is
 * left. tune_sched_note records the task's best after its batch. */
typedef struct tune_sched {
  tuner *tu;
  int gradient;
  double alpha;
  int window;
  uint32_t rounds; /* batches given out so far */
  uint64_t rng;
} tune_sched;
void tune_sched_init(tune_sched *s, tuner *tu, uint64_t seed);
int tune_sched_next(tune_sched *s);
void tune_sched_note(tune_sched *s, int task);
void tune_sched_free(tune_sched *s);

/* A located config error (tuner.c). */
int tune_located(tuner *tu, const char *key, int rc, const char *what);

#endif
