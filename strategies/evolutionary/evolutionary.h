/*
 * strategies/evolutionary/evolutionary.h — the "evolutionary" search
 * strategy (TVM MetaSchedule's EvolutionarySearch). Folder-internal.
 */
#ifndef TESSEL_EVOLUTIONARY_H
#define TESSEL_EVOLUTIONARY_H

#include "tessel/search.h"

/* TVM's defaults (python/tvm/meta_schedule/search_strategy/evolutionary_search.py). */
#define EVO_POPULATION 512
#define EVO_INIT_MEASURED_RATIO 0.2
#define EVO_INIT_MIN_UNMEASURED 50
#define EVO_MAX_FAIL_COUNT 5
#define EVO_GENETIC_NUM_ITERS 4
#define EVO_GENETIC_MUTATE_PROB 0.85
#define EVO_GENETIC_MAX_FAIL_COUNT 10
#define EVO_EPS_GREEDY 0.05
/* tessel's, not TVM's: the heap keeps ratio x batch favourites and the
 * batch takes those that cover the most decisions (diverse.h); 1 is TVM's
 * pick, best first (strategies/evolutionary/README.md has the paired seeds
 * that made 2 the default) */
#define EVO_DIVERSITY_FILTER_RATIO 2
#define EVO_MAX_DIVERSITY_RATIO 64
/* TVM's num_empty_iters_before_early_stop: rounds that pick nothing new
 * before the space is taken as exhausted */
#define EVO_EMPTY_ROUNDS 5

extern const tsl_strategy_vtable evo_vtable;

/* What the engine did since pre_tuning, for tests and reports. */
typedef struct evo_counts {
  int64_t prepared, failed;           /* members replayed; those that made no program */
  int64_t mutated, mutate_failed;     /* mutants made; mutations that failed */
  int64_t crossed, cross_failed;      /* crossover children made; crossovers drawn that made none */
} evo_counts;

/* `s` is an instance of evo_vtable. */
void evo_get_counts(const tsl_strategy *s, evo_counts *out);

#endif
