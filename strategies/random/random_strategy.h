/*
 * strategies/random/random_strategy.h — the "random" strategy's vtable,
 * shared between its implementation and the plugin entry. Folder-internal.
 */
#ifndef TESSEL_RANDOM_STRATEGY_H
#define TESSEL_RANDOM_STRATEGY_H

#include "tessel/search.h"

/* Default bound on consecutive failed samples: this many per batch slot. */
#define RS_MAX_FAIL_PER_BATCH 64

extern const tsl_strategy_vtable rs_vtable;

#endif
