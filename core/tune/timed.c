/*
 * Timed stand-ins for a run's cost model and mutators, handed to the
 * strategy in their place, so that the search overhead can be split into
 * prediction, training and mutation (tsl_tune_result).
 */
#include "tuner_internal.h"

static int tm_update(tsl_cost_model *w, uint32_t n, const tsl_candidate *cands,
                     const tsl_measured *results, tsl_diag *diag) {
  tune_timed_model *t = (tune_timed_model *)w;
  double t0 = measure_now();
  int rc = t->vt->update(t->m, n, cands, results, diag);
  t->update_s += measure_now() - t0;
  return rc;
}

static int tm_predict(tsl_cost_model *w, uint32_t n, const tsl_candidate *cands,
                      double *scores, tsl_diag *diag) {
  tune_timed_model *t = (tune_timed_model *)w;
  double t0 = measure_now();
  int rc = t->vt->predict(t->m, n, cands, scores, diag);
  t->predict_s += measure_now() - t0;
  return rc;
}

static int tm_save(tsl_cost_model *w, const char *path, tsl_diag *diag) {
  tune_timed_model *t = (tune_timed_model *)w;
  return t->vt->save(t->m, path, diag);
}

static int tm_load(tsl_cost_model *w, const char *path, tsl_diag *diag) {
  tune_timed_model *t = (tune_timed_model *)w;
  return t->vt->load(t->m, path, diag);
}

static int32_t tm_ranks(const tsl_cost_model *w) {
  const tune_timed_model *t = (const tune_timed_model *)w;
  return tsl_cost_model_ranks(t->vt, t->m);
}

/* create / destroy stay the plugin's: the tuner owns the instance */
const tsl_cost_model_vtable tune_timed_model_vt = {
    sizeof(tsl_cost_model_vtable), NULL, NULL, tm_update, tm_predict, tm_save, tm_load,
    tm_ranks};

static int tmu_apply(tsl_trace_mutator *w, const tsl_module *mod, const tsl_trace *trace,
                     uint64_t *rand_state, tsl_trace **out, tsl_diag *diag) {
  tune_timed_mutator *t = (tune_timed_mutator *)w;
  double t0 = measure_now();
  int rc = t->vt->apply(t->m, mod, trace, rand_state, out, diag);
  *t->apply_s += measure_now() - t0;
  return rc;
}

const tsl_trace_mutator_vtable tune_timed_mutator_vt = {
    sizeof(tsl_trace_mutator_vtable), NULL, NULL, tmu_apply};
