/*
 * tessel/tune.h — one tuning run as a config describes it (`tessel tune`).
 *
 * tsl_tune loads the workload and the design space (a stochastic schedule
 * script run once gives the space's trace), opens the target, the strategy,
 * the cost model (if any) and the database, then loops: the strategy
 * proposes a batch; every candidate is replayed and lowered; the batch is
 * built in parallel worker processes (shared libraries in the work folder);
 * each library is measured alone in an isolated worker with a timeout
 * against reference outputs made once for the run; each result is committed
 * to the database as it finishes, then given to the cost model and the
 * strategy. A failed replay, lowering, build or run, a crash, a hang or a
 * wrong output is an error record, and the run goes on.
 *
 * Budget: `trials` counts this workload's records for this target in the
 * database, so a second run of one config measures only what is missing,
 * and a decision set measured before is never measured again.
 *
 * A model as the workload (appended in 1.5; TVM's tune_relax): the file's
 * Relax functions after workload.passes; each distinct prim_func they call
 * is a task (equal ones by structure counted together: the weight), with
 * its own design space, strategy, candidates and reference outputs, and
 * one target, cost model and database for all. strategy.trials is each
 * task's budget, tasks.max_trials_global all of theirs; the task
 * scheduler (TVM's gradient-based one, or round-robin) picks the task of
 * each batch. Resuming counts every task's records, as for a program.
 */
#ifndef TESSEL_TUNE_H
#define TESSEL_TUNE_H

#include <stdint.h>

#include "tessel/base.h"
#include "tessel/candidates.h"
#include "tessel/config.h"
#include "tessel/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Progress after each measured candidate. Valid during the call only. */
typedef struct tsl_tune_progress {
  uint32_t struct_size;
  const char *func_name;
  double flops;          /* of the workload, from the IR */
  int64_t done;          /* records of this workload and target so far */
  int64_t budget;        /* trials */
  int64_t measured;      /* candidates measured by this run */
  int64_t errors;        /* failed candidates of this run */
  double best_s;         /* best latency so far (database included); < 0 none */
  double elapsed_s;      /* since the run started */
  int32_t batch_end;     /* 1 on the last candidate of a batch */
  /* appended in 1.5: the task (0 .. n_tasks-1) of a model's run (a
   * program's run: 0 of 1) and its weight, the calls of it in the model */
  uint32_t task;
  uint32_t n_tasks;
  double weight;
} tsl_tune_progress;

typedef void (*tsl_tune_progress_fn)(void *user_data,
                                     const tsl_tune_progress *p);

typedef struct tsl_tune_result {
  uint32_t struct_size;
  int64_t trials;       /* candidates measured by this run */
  int64_t total;        /* records of workload and target in the database */
  int64_t errors;       /* failed candidates of this run */
  double best_seconds;  /* best latency in the database; < 0 when none */
  double best_gflops;   /* 0 when none */
  int64_t best_record;  /* its record id; -1 when none */
  double flops;
  char *target;         /* the target's description (heap) */
  char *best_trace;     /* schedule script with decisions (heap, or NULL) */
  char *best_program;   /* the scheduled TVMScript (heap, or NULL) */
  char *export_path;    /* the library written (heap, or NULL) */
  /* Where the time went (seconds, wall clock): proposing, replaying,
   * lowering and recording (the search overhead), building, measuring. */
  double search_s, build_s, measure_s, total_s;
  int32_t stop_reason;  /* 0 budget reached, 1 strategy exhausted */
  /* The one-time part of search_s: setup (workload, design space, plugins,
   * database, reference outputs) and the best program at the end. The
   * search overhead per candidate is (search_s - fixed_s) / trials. */
  double fixed_s;
  /* The run's candidate service (candidates.h): candidates prepared, cache
   * hits, replays (a strategy's and the tuner's), feature extractions, and
   * the seconds of each: the search overhead's breakdown. */
  tsl_cand_service_stats cands;
  /* The rest of the search overhead (seconds): the cost model's predictions
   * (a strategy's ranking) and training (its updates, the warm start
   * included), the mutators, and lowering the measured candidates. */
  double predict_s, train_s, mutate_s, lower_s;
  /* Candidates slower than runner.skip_slower times the best so far:
   * timed by their checked call alone (it ended just past the bound), or
   * stopped at the bound (status TSL_RUN_STOPPED, a lower bound as
   * latency; not counted in `errors`). */
  int64_t timed_once, stopped;
  /* Candidates slower than runner.screen_slower times the best so far by
   * their screening repeat, which gave their time. */
  int64_t screened;
  /* Candidates probed by their checked call before the timings (a batch
   * that started without a best). */
  int64_t probed;
  /* appended in 1.5: a model's run. One entry per task (a distinct
   * prim_func of the model after its passes); best_program is then the
   * whole model with every tuned prim_func in place of its original, and
   * flops the model's (each task's times its weight). A program's run:
   * n_tasks 0. */
  uint32_t n_tasks;
  struct tsl_tune_task_result *tasks;
  /* a model's run: the tuned model written as WORK_DIR/tuned_model.py, its
   * bound constants (if any) beside it as tuned_model.constants.safetensors
   * (heap paths; NULL when not written) */
  char *tuned_model_path;
  char *tuned_constants_path;
  /* appended in 1.8: a program's best as re-measured at the end of a run
   * (runner.remeasure, tsl_db_best_remeasured: this run's or an earlier
   * one's): the median of its rounds, the fastest and slowest round, the
   * rounds; remeasured_s < 0 when none. best_seconds, best_record and the
   * program are then that record's (best_seconds its in-run time).
   * remeasured_n: the records this run measured again. */
  double remeasured_s;
  double remeasured_min_s;
  double remeasured_max_s;
  uint32_t remeasured_rounds;
  uint32_t remeasured_n;
  /* appended in 1.10: with strategy.dedup: program, the traces a strategy
   * prepared whose postprocessed program equalled an earlier candidate's
   * (answered by that candidate; never measured twice). 0 otherwise. */
  int64_t same_program;
} tsl_tune_result;

/* One task of a model's run (appended in 1.5). */
typedef struct tsl_tune_task_result {
  uint32_t struct_size;
  char *name;          /* the prim_func (heap) */
  double weight;       /* its calls in the model (equal prim_funcs counted together) */
  double flops;
  int64_t total;       /* its records in the database */
  double best_seconds; /* < 0 when none */
  int64_t best_record; /* -1 when none */
} tsl_tune_task_result;

/* Run `cfg` with the components of `reg` (plugins already loaded).
 * `progress` may be NULL. Errors before the first candidate (config, files,
 * plugins, database) return their status with a located message; once the
 * loop runs, candidates' failures are records, not errors. */
TSL_API int tsl_tune(const tsl_run_config *cfg, tsl_registry *reg,
                     tsl_tune_progress_fn progress, void *user_data,
                     tsl_tune_result *out, tsl_diag *diag);
TSL_API void tsl_tune_result_free(tsl_tune_result *r);

/* The schedule the compiled reference is built from, in `tessel tune` and
 * `tessel run` (appended in 1.14): a fresh schedule of the unscheduled
 * `func` (function `func_name` of `mod`), its outputs the program's own.
 * On a target whose default postprocessors (tsl_space_default_postprocs of
 * `reg` for `target`) hold RewriteUnboundBlock, a GPU, that postprocessor
 * alone: every outermost block bound to blockIdx.x / threadIdx.x, each
 * reduction serial in its thread. Otherwise, in each loop nest whose
 * innermost loop is a reduction, the last spatial loop moved innermost
 * when it walks the last dimension of everything the block touches (a
 * matmul's i, j, k becomes i, k, j; each output adds its terms in the same
 * order); a nest the reorder primitive refuses stays as written. `reg` or
 * `target` NULL: the second rule. A failed binding is an error. The
 * caller frees *out with tsl_schedule_free, after what it built from it. */
struct tsl_rule_target; /* rules.h */
TSL_API int tsl_tune_reference_schedule(tsl_ctx *ctx, const tsl_module *mod,
                                        const char *func_name, const tsl_func *func,
                                        const tsl_registry *reg,
                                        const struct tsl_rule_target *target,
                                        tsl_schedule **out, tsl_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_TUNE_H */
