/*
 * plugins/random/random_cost_model.h — the "random" cost model's vtable,
 * shared between its implementation and the plugin entry. Folder-internal.
 */
#ifndef TESSEL_RANDOM_COST_MODEL_H
#define TESSEL_RANDOM_COST_MODEL_H

#include "tessel/search.h"

/* The "format" field of a saved model file. */
#define RCM_FORMAT "tessel-random-cost-model"
#define RCM_FORMAT_VERSION 1

extern const tsl_cost_model_vtable rcm_vtable;

#endif
