/*
 * plugins/xgb/xgb_model.h — the "xgb" cost model: XGBoost over TVM's
 * per-store features with the pack-sum objective (TVM MetaSchedule's
 * XGBModel). Folder-internal.
 */
#ifndef TESSEL_XGB_MODEL_H
#define TESSEL_XGB_MODEL_H

#include "tessel/search.h"

extern const tsl_cost_model_vtable xgb_vtable;

#endif
