/*
 * plugins/xgb/xgb_train.c — training as TVM's XGBModel._train: one row per
 * store, every row of a candidate labelled with the candidate's normalized
 * throughput y = min_cost / cost (min over its workload's samples) and
 * weighted by it; the pack-sum objective (a candidate's prediction is the
 * sum of its rows' predictions; squared error on it, gradient and hessian
 * scaled by y) through XGBoosterBoostOneIter; early stopping when the
 * training p-rmse (to 6 decimals, as TVM reads it) has not improved for
 * early_stopping_rounds rounds.
 */
#include "xgb_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int xgb_matrix(const xgb_sample *const *s, uint32_t n, DMatrixHandle *out, uint32_t **ids,
               uint64_t *n_rows, tsl_diag *diag) {
  *out = NULL;
  *n_rows = 0;
  if (ids)
    *ids = NULL;
  uint64_t rows = 0;
  for (uint32_t i = 0; i < n; i++)
    rows += xgb_n_rows(s[i]);
  if (!rows)
    return TSL_OK;
  float *x = malloc(sizeof(float) * XGB_NCOL * rows);
  uint32_t *id = malloc(sizeof(uint32_t) * rows);
  if (!x || !id) {
    free(x);
    free(id);
    return tsl_diag_set(diag, TSL_ENOMEM, "cost model 'xgb': out of memory");
  }
  uint64_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t nr = xgb_n_rows(s[i]);
    if (nr)
      memcpy(x + k * XGB_NCOL, s[i]->rows.data, sizeof(float) * XGB_NCOL * nr);
    for (uint32_t r = 0; r < nr; r++)
      id[k + r] = i;
    k += nr;
  }
  int rc = XGDMatrixCreateFromMat(x, rows, XGB_NCOL, NAN, out) ? xgb_fail(diag, "matrix")
                                                               : TSL_OK;
  free(x);
  if (rc || !ids)
    free(id);
  else
    *ids = id;
  *n_rows = rc ? 0 : rows;
  return rc;
}

int xgb_booster(const tsl_cost_model *m, DMatrixHandle dm, BoosterHandle *out,
                tsl_diag *diag) {
  DMatrixHandle dms[1] = {dm};
  if (XGBoosterCreate(dm ? dms : NULL, dm ? 1 : 0, out))
    return xgb_fail(diag, "booster");
  char v[6][32];
  snprintf(v[0], sizeof v[0], "%lld", (long long)m->max_depth);
  snprintf(v[1], sizeof v[1], "%.17g", m->gamma);
  snprintf(v[2], sizeof v[2], "%.17g", m->min_child_weight);
  snprintf(v[3], sizeof v[3], "%.17g", m->eta);
  snprintf(v[4], sizeof v[4], "%lld", (long long)m->seed);
  snprintf(v[5], sizeof v[5], "%lld", (long long)m->nthread);
  const char *params[][2] = {{"max_depth", v[0]}, {"gamma", v[1]},    {"min_child_weight", v[2]},
                             {"eta", v[3]},       {"seed", v[4]},     {"nthread", v[5]},
                             {"tree_method", m->tree_method}, {"verbosity", "0"}};
  for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
    if (XGBoosterSetParam(*out, params[i][0], params[i][1])) {
      XGBoosterFree(*out);
      *out = NULL;
      return xgb_fail(diag, "parameters");
    }
  return TSL_OK;
}

/* The metric as TVM's early stopping sees it: XGBoost's eval_set prints a
 * custom metric with "%f" and TVM parses that text back, so improvements
 * below 1e-6 are none (without this, a fit that creeps towards its floor
 * improves for thousands of rounds: 40 s per training at 640 samples). */
static double metric_value(double v) {
  char text[64];
  snprintf(text, sizeof text, "%f", v);
  return strtod(text, NULL);
}

int xgb_train(tsl_cost_model *m, tsl_diag *diag) {
  const xgb_group *groups = TSL_VEC_DATA(&m->groups, const xgb_group);
  uint32_t n = 0;
  for (uint32_t g = 0; g < m->groups.len; g++)
    n += groups[g].s.len;
  const xgb_sample **s = calloc(n ? n : 1, sizeof *s);
  double *y = malloc(sizeof *y * (n ? n : 1));
  if (!s || !y) {
    free(s);
    free(y);
    return tsl_diag_set(diag, TSL_ENOMEM, "cost model 'xgb': out of memory");
  }
  n = 0;
  for (uint32_t g = 0; g < m->groups.len; g++)
    for (uint32_t i = 0; i < groups[g].s.len; i++) {
      const xgb_sample *si = &TSL_VEC_AT(&groups[g].s, const xgb_sample, i);
      s[n] = si;
      y[n++] = groups[g].min_cost / si->cost;
    }
  DMatrixHandle dm = NULL;
  uint32_t *ids = NULL;
  uint64_t rows = 0;
  int rc = xgb_matrix(s, n, &dm, &ids, &rows, diag);
  float *label = rc || !rows ? NULL : malloc(sizeof(float) * rows);
  float *grad = rc || !rows ? NULL : malloc(sizeof(float) * rows);
  float *hess = rc || !rows ? NULL : malloc(sizeof(float) * rows);
  double *sum = malloc(sizeof *sum * (n ? n : 1));
  if (!rc && rows && (!label || !grad || !hess || !sum))
    rc = tsl_diag_set(diag, TSL_ENOMEM, "cost model 'xgb': out of memory");
  BoosterHandle b = NULL;
  if (!rc && rows) {
    for (uint64_t k = 0; k < rows; k++)
      label[k] = (float)y[ids[k]];
    if (XGDMatrixSetFloatInfo(dm, "label", label, rows) ||
        XGDMatrixSetFloatInfo(dm, "weight", label, rows))
      rc = xgb_fail(diag, "labels");
    if (!rc)
      rc = xgb_booster(m, dm, &b, diag);
  }
  double best = INFINITY, rmse = INFINITY;
  int64_t best_round = 0, round = 0;
  for (; !rc && rows && round <= m->max_rounds; round++) {
    bst_ulong len = 0;
    const float *pred = NULL;
    if (XGBoosterPredict(b, dm, 1 /* margin */, 0, 1 /* training */, &len, &pred) ||
        len != rows) {
      rc = xgb_fail(diag, "predict while training");
      break;
    }
    memset(sum, 0, sizeof *sum * n);
    for (uint64_t k = 0; k < rows; k++)
      sum[ids[k]] += pred[k];
    if (round > 0) { /* TVM's tr-p-rmse of the previous round's model */
      double se = 0;
      for (uint64_t k = 0; k < rows; k++)
        se += (sum[ids[k]] - label[k]) * (sum[ids[k]] - label[k]);
      rmse = metric_value(sqrt(se / (double)rows));
      if (rmse < best) {
        best = rmse;
        best_round = round - 1;
      } else if (round - 1 - best_round >= m->early_stopping_rounds) {
        break;
      }
    }
    if (round == m->max_rounds)
      break;
    for (uint64_t k = 0; k < rows; k++) {
      grad[k] = (float)((sum[ids[k]] - label[k]) * label[k]);
      hess[k] = label[k];
    }
    if (XGBoosterBoostOneIter(b, dm, grad, hess, rows))
      rc = xgb_fail(diag, "boost");
  }
  if (!rc && b) {
    if (m->booster)
      XGBoosterFree(m->booster);
    m->booster = b;
    m->n_trainings++;
    m->last_rounds = round;
    m->last_rmse = rmse;
  } else if (b) {
    XGBoosterFree(b);
  }
  if (dm)
    XGDMatrixFree(dm);
  free(ids);
  free(label);
  free(grad);
  free(hess);
  free(sum);
  free(s);
  free(y);
  return rc;
}
