/*
 * tessel/config.h — tuning-run configurations: YAML files (libyaml),
 * validated key by key, with command-line overrides.
 *
 * A run config (documented in configs/README.md):
 *
 *   workload:   {file: ../workloads/matmul_128.py, func: main}  # func optional
 *               # a model: {file: mlp.py, weights: w.safetensors,
 *               #           passes: "bind_params,legalize,fuse,dce"}
 *   tasks:      {scheduler: gradient, max_trials_global: 512}  # models, optional
 *   target:     {kind: llvm, threads: 1}           # plugin name + its options
 *   space:      {schedule: ../workloads/matmul_stochastic.sch}
 *               # or {rules: default}: the target's schedule rules (also
 *               # when space is omitted), TVM's tune_tir space
 *   strategy:   {kind: random, trials: 64, batch: 16}   # + strategy options
 *   cost_model: {kind: random}                          # optional, + options
 *               # load: a file the model saved; save: where to save it
 *   runner:     {number: 3, repeat: 1, min_repeat_ms: 50, timeout_s: 10}
 *   builder:    {workers: 2}                            # optional
 *   database:   tune_tmp/tuning.db
 *   work_dir:   tune_tmp                                # optional
 *   export:     tune_tmp/libmm.so                       # optional
 *   plugin_paths: [../build/plugins]                    # optional
 *   seed: 1
 *
 * Paths are relative to the config file's folder. Every key is validated:
 * an unknown key, a value of the wrong type or out of range, a missing file
 * is an error "FILE:LINE:COL: error: KEY: what; valid: ..." quoting the
 * offending value. Plugin kinds are checked against a registry with
 * tsl_run_config_check_plugins (unknown kind: the valid names listed).
 * Options inside target / strategy / cost_model other than the core's own
 * keys go to the plugin unchecked; the plugin validates them when the run
 * creates it (tsl_run_config_where gives the location to prefix).
 *
 * Overrides: each "--set KEY.SUB=VALUE" string replaces (or adds) one
 * scalar before validation, e.g. "strategy.trials=8", "target.threads=2",
 * "seed=3". Its errors are located as `--set strategy.trials=abc`.
 */
#ifndef TESSEL_CONFIG_H
#define TESSEL_CONFIG_H

#include <stdint.h>

#include "tessel/base.h"
#include "tessel/plugin.h"
#include "tessel/runner.h"
#include "tessel/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One plugin section: its kind and the options passed to the plugin
 * (values as written, scalars only). */
typedef struct tsl_config_plugin {
  const char *kind; /* NULL for an absent optional section */
  uint32_t n_opts;
  const tsl_kv *opts;
} tsl_config_plugin;

typedef struct tsl_run_config {
  uint32_t struct_size;
  const char *path;          /* the config file as given */
  const char *dir;           /* its folder */
  const char *workload_file; /* resolved path (exists) */
  const char *workload_func; /* NULL: the file's only function, or main */
  tsl_config_plugin target;  /* kind required */
  const char *space_schedule; /* resolved path of the schedule script, or
                                 NULL with space_rules */
  tsl_config_plugin strategy; /* kind required; opts exclude trials, batch */
  int64_t trials;             /* strategy.trials, >= 1 (required) */
  int32_t batch;              /* strategy.batch, >= 1 (default 16) */
  tsl_config_plugin cost_model; /* optional */
  tsl_run_opts runner;          /* defaults of tsl_run_opts_default, then
                                   runner: number, repeat, min_repeat_ms,
                                   timeout_s, warmup, flush_cache */
  int32_t check;                /* runner.check: 1 compare outputs (default) */
  int32_t build_workers;        /* builder.workers; default online cores */
  const char *database;         /* resolved path (required) */
  const char *work_dir;         /* resolved; default: database's folder */
  const char *export_path;      /* resolved, NULL when absent; ends in .so
                                   (shared library) or .o (object file) */
  uint32_t n_plugin_paths;
  const char *const *plugin_paths; /* resolved */
  uint64_t seed;                /* default 1 */
  double build_timeout_s;       /* builder.timeout_s: limit for building one
                                   candidate, > 0 (default 60) */
  /* From export_path "DIR/libNAME.so" (or NAME.o): symbol prefix "NAME"
   * (the file name without "lib" and from its first dot on, other
   * characters than [A-Za-z0-9_] as '_'), header "DIR/libNAME.h". NULL
   * when export is absent. */
  const char *export_prefix;
  const char *export_header;
  /* space.rules ("default"), or NULL when space.schedule is given; an
   * omitted space means "default" (added in 0.1, after export_header) */
  const char *space_rules;
  /* runner.skip_slower: a candidate whose checked call
   * runs longer than this many times the best latency so far is stopped
   * there, or not timed further when it ended before it could be stopped
   * (tsl_measure_session_set_slow_bound); 0: off. Default 3. */
  double skip_slower;
  /* runner.screen_slower: a candidate whose checked call
   * and then one short screening repeat read longer than this many times
   * the best latency so far keeps the screening's time instead of the full
   * timing (tsl_measure_session_set_screen_bound); with it on, a batch
   * that starts without a best is probed first (checked calls alone, then
   * the timings, fastest probe first: tsl_measure_session_set_check_only);
   * 0: off. Default 1.5. */
  double screen_slower;
  /* workload.binds: symbolic sizes and scalar
   * parameters of the workload function with their values as written;
   * the tuner specializes the function with them (tsl_func_specialize)
   * before anything else sees it. n 0: none. */
  uint32_t n_workload_binds;
  const tsl_kv *workload_binds;
  /* appended in 1.5: a model as the workload (a file with @R.function
   * functions: its distinct prim_funcs are the tasks, weighted by their
   * calls) and the task scheduler of a run of several tasks.
   * workload.weights: a weights file (resolved; NULL: none), its tensors
   * bound by name when workload.passes has bind_params; workload.passes:
   * graph passes run first (pass.h), comma-separated (NULL: none);
   * tasks.scheduler "gradient" (default, TVM's) or "round-robin";
   * tasks.max_trials_global: records of all tasks together (0: trials
   * times the tasks; strategy.trials is each task's budget, TVM's
   * max_trials_per_task); tasks.alpha (0.2) and tasks.window_size (3): the
   * gradient scheduler's. */
  const char *workload_weights;
  const char *workload_passes;
  const char *task_scheduler;
  int64_t max_trials_global;
  double sched_alpha;
  int32_t sched_window;
  /* appended in 1.8: runner.remeasure, the fastest records of a program's
   * run measured again at its end in a fresh worker (0: off; default 5),
   * runner.remeasure_rounds times each, interleaved (default 3); the best
   * is then the lowest median (tsl_db_best_remeasured). */
  int32_t remeasure;
  int32_t remeasure_rounds;
  /* appended in 1.10: strategy.dedup, how a run judges that a candidate
   * was seen before: 1 "program" (default), by its postprocessed program
   * as well, as TVM's evolutionary search; 0 "trace", by its decisions
   * alone (tsl_cand_service_opts.dedup_program). */
  int32_t dedup_program;
  /* appended in 1.13: cost_model.load, a file the cost model saved (its
   * vtable's save: the xgb model's samples of every workload it learned
   * and its booster), loaded when the run creates the model and before it
   * learns the database's records, so that the first batch is ranked by
   * what earlier runs of other programs taught it (Ansor's transfer
   * learning, TVM's XGBModel.load); resolved, must exist; NULL: none.
   * cost_model.save: where the model is saved when a run's tuning
   * succeeded, after its best and export (written through a temporary
   * file of its own, then renamed; the folder must exist and be writable;
   * NULL: not saved). Both need cost_model.kind. */
  const char *cost_model_load;
  const char *cost_model_save;
} tsl_run_config;

/* Load, override and validate. `sets` holds n_sets "KEY=VALUE" strings.
 * On error *out is NULL and `diag` holds the located message. */
TSL_API int tsl_run_config_load(const char *path, uint32_t n_sets,
                                const char *const *sets,
                                tsl_run_config **out, tsl_diag *diag);
TSL_API void tsl_run_config_free(tsl_run_config *c);

/* Where KEY ("target", "strategy.trials", ...) was written:
 * "FILE:LINE:COL", or "--set KEY=VALUE" for an override; NULL when the key
 * is absent. Owned by `c`. */
TSL_API const char *tsl_run_config_where(const tsl_run_config *c,
                                         const char *key);

/* Check target, strategy and cost_model kinds against `reg`: an unknown
 * kind is an error at its location listing the registered names of that
 * kind. */
TSL_API int tsl_run_config_check_plugins(const tsl_run_config *c,
                                         const tsl_registry *reg,
                                         tsl_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_CONFIG_H */
