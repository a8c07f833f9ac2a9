/*
 * strategies/sketch/sketch_strategy.h — the "sketch" strategy's vtable
 * (Ansor's search: its own sketches, the evolutionary engine with Ansor's
 * parameters). Folder-internal.
 */
#ifndef TESSEL_SKETCH_STRATEGY_H
#define TESSEL_SKETCH_STRATEGY_H

#include "tessel/search.h"

extern const tsl_strategy_vtable sketch_vtable;

#endif
