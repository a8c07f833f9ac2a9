/*
 * plugins/xgb/xgb_internal.h — the model's state, shared by the files of
 * the plugin: xgb_model.c (options, update, predict), xgb_train.c (the
 * pack-sum training loop), xgb_file.c (save / load). Folder-internal.
 */
#ifndef TESSEL_XGB_INTERNAL_H
#define TESSEL_XGB_INTERNAL_H

#include "xgb_model.h"

#include "tessel/container.h"
#include "tessel/feature.h"

#include <stdint.h>
#include <xgboost/c_api.h>

/* Values per feature row: TVM's default per-store features. */
#define XGB_NCOL TSL_FEATURE_DEFAULT_LEN

/* One measured candidate: its feature rows and its cost (seconds; 1e10
 * when it did not run, as TVM). */
typedef struct xgb_sample {
  tsl_vec rows; /* float: XGB_NCOL per feature row, heap */
  double cost;
} xgb_sample;

/* The number of feature rows of `s`. */
static inline uint32_t xgb_n_rows(const xgb_sample *s) { return s->rows.len / XGB_NCOL; }

/* The samples of one workload (TVM's FeatureGroup): labels are
 * min_cost / cost within the group. */
typedef struct xgb_group {
  uint64_t workload; /* tsl_module_hash of the workload, 0 when unknown */
  tsl_vec s;         /* xgb_sample */
  double min_cost;
} xgb_group;

struct tsl_cost_model {
  /* options (TVM's XGBConfig and XGBModel defaults) */
  int64_t max_depth, seed, nthread, num_warmup_samples, early_stopping_rounds, max_rounds;
  double gamma, min_child_weight, eta;
  int adaptive_training;
  const char *tree_method; /* a static string: auto, exact, approx or hist */
  /* data and model */
  tsl_vec groups; /* xgb_group */
  int64_t data_size, last_train_size;
  /* samples read by load: adaptive training measures the growth of the
   * rest, so a large loaded corpus does not hold back retraining on the
   * run's own measurements */
  int64_t loaded;
  BoosterHandle booster; /* NULL before the first training */
  uint64_t rng;          /* warm-up scores */
  tsl_ctx *ctx;          /* for the arenas features are extracted in */
  /* the last training, for reports and tests */
  int64_t n_trainings, last_rounds;
  double last_rmse;
};

/* Add samples to the group of `workload` (rows taken over), but those it
 * holds already (same cost and rows: left to the caller); how many were
 * added. */
uint32_t xgb_add(tsl_cost_model *m, uint64_t workload, uint32_t n, xgb_sample *samples);
/* Train a new booster on every sample (replacing the old one). */
int xgb_train(tsl_cost_model *m, tsl_diag *diag);
/* A DMatrix of the rows of n samples (ids[k]: the sample of row k, heap,
 * may be NULL). */
int xgb_matrix(const xgb_sample *const *s, uint32_t n, DMatrixHandle *out, uint32_t **ids,
               uint64_t *n_rows, tsl_diag *diag);
/* An XGBoost error as a diagnostic: "cost model 'xgb': WHAT: xgboost's message". */
int xgb_fail(tsl_diag *diag, const char *what);
/* A booster with the model's parameters over `dm` (NULL: none yet). */
int xgb_booster(const tsl_cost_model *m, DMatrixHandle dm, BoosterHandle *out, tsl_diag *diag);

int xgb_save(tsl_cost_model *m, const char *path, tsl_diag *diag);
int xgb_load(tsl_cost_model *m, const char *path, tsl_diag *diag);
void xgb_clear(tsl_cost_model *m);

#endif
