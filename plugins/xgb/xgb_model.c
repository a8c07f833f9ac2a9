/*
 * plugins/xgb/xgb_model.c — the "xgb" cost model (TVM MetaSchedule's
 * XGBModel): options, update (features of the measured candidates, labels
 * normalized per workload, retraining when the data grew by a fifth) and
 * predict (random scores during warm-up, then the booster's row scores
 * summed per candidate).
 */
#include "xgb_internal.h"

#include "tessel/analysis.h"
#include "tessel/runner.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XGB_OPTIONS                                                                       \
  "max_depth, gamma, min_child_weight, eta, seed, nthread, num_warmup_samples, "          \
  "early_stopping_rounds, max_rounds, adaptive_training, tree_method"

static int opt_int(const char *k, const char *v, int64_t lo, int64_t hi, int64_t *out,
                   tsl_diag *diag) {
  char *end = NULL;
  errno = 0;
  long long x = v ? strtoll(v, &end, 10) : 0;
  if (!v || !*v || *end || errno || x < lo || x > hi)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "cost model 'xgb': %s: '%s' is not valid; valid: an integer from %lld "
                        "to %lld",
                        k, v ? v : "(null)", (long long)lo, (long long)hi);
  *out = x;
  return TSL_OK;
}

static int opt_num(const char *k, const char *v, double lo, double hi, double *out,
                   tsl_diag *diag) {
  char *end = NULL;
  errno = 0;
  double x = v ? strtod(v, &end) : 0;
  if (!v || !*v || *end || errno || !(x >= lo && x <= hi))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "cost model 'xgb': %s: '%s' is not valid; valid: a number from %g to %g",
                        k, v ? v : "(null)", lo, hi);
  *out = x;
  return TSL_OK;
}

static int xgb_create(void *user_data, uint32_t n_opts, const tsl_kv *opts, uint64_t seed,
                      tsl_cost_model **out, tsl_diag *diag) {
  (void)user_data;
  *out = NULL;
  /* nthread 1: XGBoost's OpenMP threads would live in the tuning process,
   * and a measurement worker forked from it deadlocks in libgomp when its
   * kernel opens a parallel region (see README) */
  tsl_cost_model o = {.max_depth = 10,
                      .seed = 43,
                      .nthread = 1,
                      .num_warmup_samples = 64, /* TVM: 100 (README) */
                      .early_stopping_rounds = 50,
                      .max_rounds = 10000,
                      .gamma = 0.001,
                      .min_child_weight = 0,
                      .eta = 0.2,
                      .adaptive_training = 1,
                      .tree_method = "hist"}; /* XGBoost >= 2.0's default (README) */
  for (uint32_t i = 0; i < n_opts; i++) {
    const char *k = opts[i].key ? opts[i].key : "(null)", *v = opts[i].value;
    int64_t b;
    int rc;
    if (!strcmp(k, "max_depth"))
      rc = opt_int(k, v, 1, 64, &o.max_depth, diag);
    else if (!strcmp(k, "gamma"))
      rc = opt_num(k, v, 0, 1e30, &o.gamma, diag);
    else if (!strcmp(k, "min_child_weight"))
      rc = opt_num(k, v, 0, 1e30, &o.min_child_weight, diag);
    else if (!strcmp(k, "eta"))
      rc = opt_num(k, v, 0, 1, &o.eta, diag);
    else if (!strcmp(k, "seed"))
      rc = opt_int(k, v, 0, INT32_MAX, &o.seed, diag);
    else if (!strcmp(k, "nthread"))
      rc = opt_int(k, v, 1, 1024, &o.nthread, diag);
    else if (!strcmp(k, "num_warmup_samples"))
      rc = opt_int(k, v, 0, INT32_MAX, &o.num_warmup_samples, diag);
    else if (!strcmp(k, "early_stopping_rounds"))
      rc = opt_int(k, v, 1, INT32_MAX, &o.early_stopping_rounds, diag);
    else if (!strcmp(k, "max_rounds"))
      rc = opt_int(k, v, 1, INT32_MAX, &o.max_rounds, diag);
    else if (!strcmp(k, "adaptive_training")) {
      rc = v && (!strcmp(v, "true") || !strcmp(v, "false"))
               ? TSL_OK
               : opt_int(k, v, 0, 1, &b, diag);
      if (!rc)
        o.adaptive_training = v[0] == 't' || v[0] == '1';
      else
        rc = tsl_diag_set(diag, TSL_EINVALID,
                          "cost model 'xgb': adaptive_training: '%s' is not valid; valid: "
                          "true, false",
                          v ? v : "(null)");
    } else if (!strcmp(k, "tree_method")) {
      static const char *const methods[] = {"auto", "exact", "approx", "hist"};
      rc = TSL_EINVALID;
      for (size_t j = 0; v && j < sizeof methods / sizeof methods[0]; j++)
        if (!strcmp(v, methods[j])) {
          o.tree_method = methods[j];
          rc = TSL_OK;
        }
      if (rc)
        rc = tsl_diag_set(diag, TSL_EINVALID,
                          "cost model 'xgb': tree_method: '%s' is not valid; valid: auto, exact, "
                          "approx, hist",
                          v ? v : "(null)");
    } else
      rc = tsl_diag_set(diag, TSL_EINVALID,
                        "cost model 'xgb': unknown option '%s'; valid: " XGB_OPTIONS, k);
    if (rc)
      return rc;
  }
  tsl_cost_model *m = malloc(sizeof *m);
  tsl_ctx *ctx = tsl_ctx_new();
  if (!m || !ctx) {
    free(m);
    tsl_ctx_free(ctx);
    return tsl_diag_set(diag, TSL_ENOMEM, "cost model 'xgb': out of memory");
  }
  *m = o;
  tsl_vec_init(&m->groups, sizeof(xgb_group), NULL);
  m->rng = seed;
  m->ctx = ctx;
  *out = m;
  return TSL_OK;
}

void xgb_clear(tsl_cost_model *m) {
  for (uint32_t g = 0; g < m->groups.len; g++) {
    xgb_group *gr = &TSL_VEC_AT(&m->groups, xgb_group, g);
    for (uint32_t i = 0; i < gr->s.len; i++)
      tsl_vec_free(&TSL_VEC_AT(&gr->s, xgb_sample, i).rows);
    tsl_vec_free(&gr->s);
  }
  tsl_vec_free(&m->groups);
  m->data_size = m->last_train_size = m->loaded = 0;
  if (m->booster)
    XGBoosterFree(m->booster);
  m->booster = NULL;
}

static void xgb_destroy(tsl_cost_model *m) {
  if (!m)
    return;
  xgb_clear(m);
  tsl_ctx_free(m->ctx);
  free(m);
}

int xgb_fail(tsl_diag *diag, const char *what) {
  return tsl_diag_set(diag, TSL_ERUNTIME, "cost model 'xgb': %s: %s", what, XGBGetLastError());
}

/* Float rows from double features (XGBoost refuses infinities; NaN is
 * "missing"), appended to out. */
static void add_rows(xgb_sample *out, const tsl_features *fs) {
  if (fs->row_len != XGB_NCOL || !fs->n_rows)
    return; /* a program the features cannot read adds nothing */
  tsl_vec_reserve(&out->rows, out->rows.len + fs->n_rows * XGB_NCOL);
  for (uint32_t r = 0; r < fs->n_rows; r++) {
    float row[XGB_NCOL];
    for (uint32_t k = 0; k < XGB_NCOL; k++) {
      double v = fs->values[(size_t)r * XGB_NCOL + k];
      row[k] = isinf(v) ? (v > 0 ? 1e30f : -1e30f) : (float)v;
    }
    tsl_vec_append(&out->rows, row, XGB_NCOL);
  }
}

/* The feature rows of one candidate (every function of its scheduled
 * module, TVM's ExtractSingle): the core's, extracted once per candidate,
 * when it offers them; else extracted here. 0 rows when it has none. */
static void features(tsl_cost_model *m, const tsl_candidate *c, xgb_sample *out) {
  memset(out, 0, sizeof *out);
  tsl_vec_init(&out->rows, sizeof(float), NULL);
  if (c->struct_size >= sizeof(tsl_candidate) && c->features) {
    tsl_features fs;
    tsl_diag fd;
    if (!c->features(c, &fs, &fd)) /* a candidate that no longer replays has none */
      add_rows(out, &fs);
    return;
  }
  if (!c->scheduled)
    return;
  tsl_arena *a = tsl_arena_new(m->ctx);
  for (uint32_t f = 0; f < c->scheduled->n_funcs; f++) {
    tsl_features fs;
    tsl_diag fd;
    if (!tsl_features_per_store(a, c->scheduled->funcs[f], NULL, &fs, &fd))
      add_rows(out, &fs);
  }
  tsl_arena_free(a);
}

static uint64_t workload_of(const tsl_candidate *c) {
  if (c->struct_size < sizeof(tsl_candidate) || !c->workload)
    return 0;
  return tsl_module_hash(c->workload);
}

/* A sample the group holds already: the same cost and feature rows (the
 * records of a resumed run, met again in a file that run saved). */
static int known(const xgb_group *g, const xgb_sample *x) {
  for (uint32_t i = 0; i < g->s.len; i++) {
    const xgb_sample *y = &TSL_VEC_AT(&g->s, xgb_sample, i);
    if (y->cost == x->cost && y->rows.len == x->rows.len &&
        !memcmp(y->rows.data, x->rows.data, sizeof(float) * x->rows.len))
      return 1;
  }
  return 0;
}

uint32_t xgb_add(tsl_cost_model *m, uint64_t workload, uint32_t n, xgb_sample *samples) {
  xgb_group *g = NULL;
  for (uint32_t i = 0; i < m->groups.len && !g; i++)
    if (TSL_VEC_AT(&m->groups, xgb_group, i).workload == workload)
      g = &TSL_VEC_AT(&m->groups, xgb_group, i);
  if (!g) {
    g = tsl_vec_push(&m->groups);
    g->workload = workload;
    tsl_vec_init(&g->s, sizeof(xgb_sample), NULL);
    g->min_cost = INFINITY;
  }
  uint32_t added = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (known(g, &samples[i]))
      continue; /* left to the caller to free */
    tsl_vec_append(&g->s, &samples[i], 1);
    if (samples[i].cost < g->min_cost)
      g->min_cost = samples[i].cost;
    tsl_vec_init(&samples[i].rows, sizeof(float), NULL); /* taken over */
    added++;
  }
  m->data_size += added;
  return added;
}

static int xgb_update(tsl_cost_model *m, uint32_t n, const tsl_candidate *cands,
                      const tsl_measured *results, tsl_diag *diag) {
  if (!n)
    return TSL_OK;
  xgb_sample *s = calloc(n, sizeof *s);
  if (!s)
    return tsl_diag_set(diag, TSL_ENOMEM, "cost model 'xgb': out of memory");
  uint32_t kept = 0;
  uint64_t workload = workload_of(&cands[0]);
  for (uint32_t i = 0; i < n; i++) {
    features(m, &cands[i], &s[kept]);
    if (!xgb_n_rows(&s[kept])) /* TVM drops candidates without features */
      continue;
    const tsl_measured *r = &results[i];
    /* a stopped candidate's lower bound is label enough: it is far slower
     * than the best */
    s[kept].cost =
        (r->status == TSL_RUN_OK || r->status == TSL_RUN_STOPPED) && r->latency_s > 0
            ? r->latency_s
            : 1e10;
    kept++;
  }
  uint32_t added = kept ? xgb_add(m, workload, kept, s) : 0;
  for (uint32_t i = 0; i < n; i++)
    tsl_vec_free(&s[i].rows);
  free(s);
  if (!added)
    return TSL_OK;
  int64_t own = m->data_size - m->loaded;
  if (m->adaptive_training && (double)(own - m->last_train_size) < (double)m->last_train_size / 5)
    return TSL_OK; /* retrain once the data (not counting loaded samples) grew by a fifth */
  m->last_train_size = own;
  return xgb_train(m, diag);
}

static int xgb_predict(tsl_cost_model *m, uint32_t n, const tsl_candidate *cands,
                       double *scores, tsl_diag *diag) {
  if (m->data_size < m->num_warmup_samples || !m->booster) {
    for (uint32_t i = 0; i < n; i++) /* TVM: uniform in [0, 1) until warmed up */
      scores[i] = tsl_rand_unit(&m->rng);
    return TSL_OK;
  }
  xgb_sample *s = calloc(n ? n : 1, sizeof *s);
  const xgb_sample **ps = calloc(n ? n : 1, sizeof *ps);
  int rc = s && ps ? TSL_OK : tsl_diag_set(diag, TSL_ENOMEM, "cost model 'xgb': out of memory");
  for (uint32_t i = 0; i < n && !rc; i++) {
    features(m, &cands[i], &s[i]);
    ps[i] = &s[i];
  }
  DMatrixHandle dm = NULL;
  uint32_t *ids = NULL;
  uint64_t n_rows = 0;
  if (!rc)
    rc = xgb_matrix(ps, n, &dm, &ids, &n_rows, diag);
  bst_ulong len = 0;
  const float *pred = NULL;
  if (!rc && n_rows && XGBoosterPredict(m->booster, dm, 0, 0, 0, &len, &pred))
    rc = xgb_fail(diag, "predict");
  for (uint32_t i = 0; !rc && i < n; i++)
    scores[i] = 0; /* a candidate without features scores 0 */
  for (uint64_t k = 0; !rc && k < len && k < n_rows; k++)
    scores[ids[k]] += pred[k]; /* pack-sum: a candidate's score is its rows' sum */
  if (dm)
    XGDMatrixFree(dm);
  free(ids);
  for (uint32_t i = 0; s && i < n; i++)
    tsl_vec_free(&s[i].rows);
  free(s);
  free(ps);
  return rc;
}

/* until warmed up, predict's scores are uniform noise */
static int32_t xgb_ranks(const tsl_cost_model *m) {
  return m->data_size >= m->num_warmup_samples && m->booster;
}

const tsl_cost_model_vtable xgb_vtable = {
    .struct_size = sizeof(tsl_cost_model_vtable),
    .create = xgb_create,
    .destroy = xgb_destroy,
    .update = xgb_update,
    .predict = xgb_predict,
    .save = xgb_save,
    .load = xgb_load,
    .ranks = xgb_ranks,
};
