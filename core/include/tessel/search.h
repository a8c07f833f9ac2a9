/*
 * tessel/search.h — the search-strategy vtable (component kind
 * TSL_COMPONENT_STRATEGY) and the cost-model vtable (TSL_COMPONENT_COST_MODEL).
 *
 * One tuning run of one task (a prim_func on a target) goes:
 *
 *   core: builds a tsl_search_space (design space, budget, seed, dedup
 *         callback, the cost model if the config names one)
 *   strategy->pre_tuning(space)
 *   loop:
 *     strategy->generate(max = batch) -> candidate traces (decisions filled)
 *     core: replay, lower, build in parallel, measure one at a time
 *     core: cost_model->update(candidates, results)   (when there is one)
 *     strategy->notify(results)
 *   until generate returns no candidate or the budget is spent
 *   strategy->post_tuning()
 *
 * A strategy proposes; the core measures, records and enforces the budget.
 * A strategy may call the cost model (space->cost_model) to rank candidates
 * before returning them (the evolutionary strategy does; random does not).
 *
 * Ownership: instances belong to the plugin and are freed through the
 * vtable. Candidate traces returned by generate are owned by the caller
 * (freed with tsl_trace_free). Everything in a tsl_search_space is owned by
 * the core and stays valid from pre_tuning until post_tuning returns.
 * Threading: one instance is used by one thread at a time.
 */
#ifndef TESSEL_SEARCH_H
#define TESSEL_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "tessel/base.h"
#include "tessel/feature.h"
#include "tessel/lower.h"
#include "tessel/rules.h"
#include "tessel/schedule.h"
#include "tessel/target.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsl_strategy tsl_strategy;     /* a plugin-defined instance */
typedef struct tsl_cost_model tsl_cost_model; /* a plugin-defined instance */
typedef struct tsl_cost_model_vtable tsl_cost_model_vtable;
typedef struct tsl_cand_service tsl_cand_service; /* candidates.h */
struct tsl_cand;                                   /* candidates.h: tsl_cand */

/* One measured candidate, as the core reports it to strategies and cost
 * models. */
typedef struct tsl_measured {
  uint32_t struct_size;
  const tsl_trace *trace; /* the candidate (decisions filled) */
  int32_t status;         /* TSL_RUN_* of runner.h; TSL_RUN_OK = usable */
  double latency_s;       /* median seconds per call (TSL_RUN_STOPPED: a lower
                             bound); < 0 when not measured */
  double gflops;          /* FLOPs / latency / 1e9; 0 when not measured */
} tsl_measured;

/* A candidate as a cost model sees it. `scheduled` and `lowered` may be NULL
 * when the core did not produce them (a model then uses the trace only). */
typedef struct tsl_candidate {
  uint32_t struct_size;
  const tsl_trace *trace;
  const tsl_module *scheduled;       /* the module after replay */
  const tsl_lowered_module *lowered; /* after lowering */
  const tsl_module *workload; /* the unscheduled module (TVM's task), may be NULL */
  /* The per-store features (feature.h, default options) of every function
   * of the scheduled module, rows concatenated (TVM's ExtractSingle),
   * extracted once per candidate by the core's candidate service and kept
   * with it: 0 and *out (valid while the candidate is), or an error status
   * when the program cannot be read. NULL when the core offers none (a
   * model then extracts them from `scheduled` itself). */
  int32_t (*features)(const struct tsl_candidate *self, tsl_features *out, tsl_diag *diag);
  void *core_data; /* for `features` */
} tsl_candidate;

/* The task being tuned and the run's settings. */
typedef struct tsl_search_space {
  uint32_t struct_size;
  tsl_ctx *ctx;
  const tsl_module *mod;  /* the workload module */
  const char *func_name;  /* the prim_func tuned in it */
  /* The design space: traces whose sample_* instructions are the points
   * to choose (for a schedule script, the trace of one run of it). A
   * strategy replays them with fresh decisions (tsl_trace_replay with
   * fresh_decisions = 1), or edits decisions (tsl_trace_set_decision). */
  uint32_t n_space;
  const tsl_trace *const *space;
  const tsl_intrin_registry *intrins; /* for replaying tensorize; may be NULL */
  int64_t trials;   /* candidates this run may still measure (> 0) */
  int32_t batch;    /* candidates asked for per generate call (> 0) */
  uint64_t seed;    /* the run's seed; equal seeds give equal candidates */
  const char *target; /* the target's description */
  /* 1 when a candidate with the same decisions as `trace` was measured
   * already (in this run, or in the database for this workload and
   * target) or is already proposed in this run, 0 if not. */
  int32_t (*is_measured)(void *core_data, const tsl_trace *trace);
  void *core_data;
  /* The run's cost model, or NULL when the config names none. */
  const tsl_cost_model_vtable *cost_vtable;
  tsl_cost_model *cost_model;
  /* The postprocessors the core applies to every candidate before it is
   * built (a rule-derived space: the target's; a schedule script: none).
   * A strategy that ranks candidates applies them too
   * (tsl_space_apply_postprocs), to rank what will be measured, and still
   * returns the trace before them (tsl_trace_before_postproc). */
  uint32_t n_postprocs;
  const tsl_space_postproc *postprocs;
  /* The target's mutators with their weights (tsl_space_default_mutators);
   * none when the target has no defaults. */
  uint32_t n_mutators;
  const tsl_space_mutator *mutators;
  /* Up to k measured candidates of this workload and target, fastest
   * first (the database's records with status OK, this run's included),
   * stored in out[0..*n_out) as traces the caller frees (postprocessed, as
   * recorded). 0, or an error status with the message in diag. */
  int32_t (*top_measured)(void *core_data, uint32_t k, tsl_trace **out, uint32_t *n_out,
                          tsl_diag *diag);
  /* The run's candidate service (candidates.h): replays, postprocesses and
   * featurizes each candidate once, knows every key measured or proposed.
   * A strategy prepares its candidates there and proposes (tsl_cand_propose)
   * the ones generate returns, so that the core builds them without
   * replaying them again. */
  tsl_cand_service *cands;
  /* Appended in 1.12: what the target's rules know of it (rules.h: kind,
   * cores, vector width, CPU features), for a strategy that derives a
   * space of its own from `mod` (strategies/sketch). Read it only when
   * struct_size covers it (tsl_search_space_rule_target). */
  const tsl_rule_target *rule_target;
} tsl_search_space;

/* The space's rule_target, or NULL when the core is older than 1.12. */
static inline const tsl_rule_target *tsl_search_space_rule_target(const tsl_search_space *sp) {
  return sp->struct_size >= offsetof(tsl_search_space, rule_target) + sizeof sp->rule_target
             ? sp->rule_target
             : NULL;
}

typedef struct tsl_strategy_vtable {
  uint32_t struct_size;
  /* Create an instance from the config's strategy options (every key but
   * kind, trials and batch). Unknown keys are an error naming the key and
   * the valid ones; bad values name what would be valid. */
  int (*create)(void *user_data, uint32_t n_opts, const tsl_kv *opts,
                tsl_strategy **out, tsl_diag *diag);
  void (*destroy)(tsl_strategy *s);
  /* Start a run on `space` (kept by the strategy until post_tuning). */
  int (*pre_tuning)(tsl_strategy *s, const tsl_search_space *space,
                    tsl_diag *diag);
  /* Up to `max` new candidates as traces (a strategy of ABI 1.0; see
   * generate_cands), stored in out[0..*n_out). Each has its
   * decisions filled in and is not is_measured. *n_out == 0 means the
   * strategy has nothing more to propose (space exhausted, or its bound on
   * failed samples reached): the run ends. An error status ends the run
   * with the message. */
  int (*generate)(tsl_strategy *s, uint32_t max, tsl_trace **out,
                  uint32_t *n_out, tsl_diag *diag);
  /* The results of the last generated batch, in its order (failed builds
   * and runs included). */
  int (*notify)(tsl_strategy *s, uint32_t n, const tsl_measured *results,
                tsl_diag *diag);
  /* End of run; the space may be freed after this returns. */
  void (*post_tuning)(tsl_strategy *s);
  /* Appended in 1.1: candidates instead of traces. Up to `max` new
   * candidates of the space's service (space->cands: prepared there and
   * proposed, tsl_cand_propose), stored in out[0..*n_out), each with a
   * reference the tuner takes over. When set, the tuner calls it instead of
   * generate and takes the key and the postprocessed schedule of each from
   * the service, so nothing is replayed or keyed twice; a strategy needs
   * only one of the two. *n_out == 0 ends the run, as for generate. */
  int (*generate_cands)(tsl_strategy *s, uint32_t max, struct tsl_cand **out,
                        uint32_t *n_out, tsl_diag *diag);
} tsl_strategy_vtable;

struct tsl_cost_model_vtable {
  uint32_t struct_size;
  /* Create an instance from the config's cost_model options (every key
   * but kind). `seed` is the run's seed. */
  int (*create)(void *user_data, uint32_t n_opts, const tsl_kv *opts,
                uint64_t seed, tsl_cost_model **out, tsl_diag *diag);
  void (*destroy)(tsl_cost_model *m);
  /* Learn from measured candidates (results[i] belongs to cands[i]). */
  int (*update)(tsl_cost_model *m, uint32_t n, const tsl_candidate *cands,
                const tsl_measured *results, tsl_diag *diag);
  /* Scores for candidates, higher = predicted faster; scores[0..n). */
  int (*predict)(tsl_cost_model *m, uint32_t n, const tsl_candidate *cands,
                 double *scores, tsl_diag *diag);
  /* Persist / restore the model (a file the model defines). */
  int (*save)(tsl_cost_model *m, const char *path, tsl_diag *diag);
  int (*load)(tsl_cost_model *m, const char *path, tsl_diag *diag);
  /* 1 when predict ranks candidates by what the model learned, 0 while its
   * scores carry no information (an untrained model's uniform noise, as
   * TVM's XGBModel before its warm-up samples; the random model). A
   * strategy may then skip ranking altogether: the evolutionary strategy
   * draws a fresh run's first batch from fresh samples directly, which is
   * what evolving them under noise amounts to. NULL: the model ranks. */
  int32_t (*ranks)(const tsl_cost_model *m);
};

/* `ranks` of model `m` of vtable `vt`, 1 when the vtable predates it or
 * leaves it NULL. */
static inline int32_t tsl_cost_model_ranks(const tsl_cost_model_vtable *vt,
                                           const tsl_cost_model *m) {
  if (vt->struct_size < offsetof(tsl_cost_model_vtable, ranks) + sizeof vt->ranks || !vt->ranks)
    return 1;
  return vt->ranks(m) != 0;
}

/* The identity of a candidate: the decisions of `t` as canonical JSON
 * (instruction index, decision) followed by '@' and 16 hex digits of a
 * digest of the rest of the trace (instruction kinds, arguments, outputs),
 * both up to an enter_postproc instruction (a postprocessed trace has the
 * key of the trace before postprocessing), e.g. "[[3,[16,8]],[7,2]]@5f2c1a9e0b3d4c6a". The database, is_measured and
 * the candidate service recognize candidates by it. Equal traces give equal
 * keys; two sketches that sample at the same instruction indices, or a
 * trace whose annotation MutateParallel changed, differ in the digest.
 * (Keys of tessel 0.2 were the JSON part alone; tsl_key_decisions_len.)
 * Heap string (free()); NULL when out of memory. */
TSL_API char *tsl_trace_decisions_key(const tsl_trace *t);
/* The same text, computed once and kept with the trace until it changes
 * (a decision or an argument set, an instruction appended; copies share
 * it): valid while `t` lives unchanged. NULL when out of memory. */
TSL_API const char *tsl_trace_key(const tsl_trace *t);
/* Length of the decisions part of a key (before the last '@'; the whole
 * text when there is none, as in a key of tessel 0.2). */
TSL_API size_t tsl_key_decisions_len(const char *key);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_SEARCH_H */
