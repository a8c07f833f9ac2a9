/*
 * tessel/tessel.h — the umbrella header: everything public in one include.
 */
#ifndef TESSEL_TESSEL_H
#define TESSEL_TESSEL_H

#include "tessel/base.h"
#include "tessel/container.h"
#include "tessel/dtype.h"
#include "tessel/ir.h"
#include "tessel/visit.h"
#include "tessel/script.h"
#include "tessel/analysis.h"
#include "tessel/interp.h"
#include "tessel/schedule.h"
#include "tessel/lower.h"
#include "tessel/feature.h"
#include "tessel/target.h"
#include "tessel/runner.h"
#include "tessel/plugin.h"
#include "tessel/search.h"
#include "tessel/candidates.h"
#include "tessel/rules.h"
#include "tessel/db.h"
#include "tessel/config.h"
#include "tessel/tune.h"
#include "tessel/weights.h"
#include "tessel/relax.h"
#include "tessel/model.h"
#include "tessel/relax_build.h"
#include "tessel/pass.h"
#include "tessel/library.h"
#include "tessel/onnx.h"

#define TSL_VERSION_MAJOR 0
#define TSL_VERSION_MINOR 1
#define TSL_VERSION_PATCH 0
#define TSL_VERSION_STRING "0.1.0"

#endif /* TESSEL_TESSEL_H */
