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
/* TVM's num_empty_iters_before_early_stop: rounds that pick nothing new
 * before the space is taken as exhausted */
#define EVO_EMPTY_ROUNDS 5

extern const tsl_strategy_vtable evo_vtable;

#endif
