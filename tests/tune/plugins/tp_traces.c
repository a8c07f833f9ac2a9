/*
 * tests: a strategy of ABI 1.0, which returns traces (generate) and knows
 * nothing of proposing candidates: each trace a sketch of the space with
 * fresh decisions (drawn through the space's candidate service). Option
 * `twice: 1` returns every trace twice in its batch, as a careless strategy
 * might, to check that the tuner measures it once.
 */
#include "tessel/tessel.h"

#include <stdlib.h>
#include <string.h>

struct tsl_strategy {
  const tsl_search_space *space;
  uint64_t seed;
  uint32_t next;
  int twice;
};

static int t_create(void *ud, uint32_t n, const tsl_kv *opts, tsl_strategy **out,
                    tsl_diag *diag) {
  (void)ud;
  tsl_strategy *s = calloc(1, sizeof *s);
  if (!s)
    return tsl_diag_set(diag, TSL_ENOMEM, "traces: out of memory");
  for (uint32_t i = 0; i < n; i++) {
    if (strcmp(opts[i].key, "twice")) {
      free(s);
      return tsl_diag_set(diag, TSL_EINVALID, "traces: unknown option '%s'; valid: twice",
                          opts[i].key);
    }
    s->twice = atoi(opts[i].value) != 0;
  }
  *out = s;
  return TSL_OK;
}

static void t_destroy(tsl_strategy *s) { free(s); }

static int t_pre_tuning(tsl_strategy *s, const tsl_search_space *space, tsl_diag *diag) {
  (void)diag;
  s->space = space;
  s->seed = space->seed;
  return TSL_OK;
}

static int t_generate(tsl_strategy *s, uint32_t max, tsl_trace **out, uint32_t *n_out,
                      tsl_diag *diag) {
  *n_out = 0;
  for (uint32_t tries = 0; *n_out < max && tries < 4 * max; tries++) {
    tsl_cand *c = NULL;
    tsl_diag rd = {0};
    const tsl_trace *sketch = s->space->space[s->next++ % s->space->n_space];
    int rc = tsl_cand_service_prepare(s->space->cands, sketch, 1, ++s->seed, &c, &rd);
    if (rc < 0)
      return tsl_diag_set(diag, rc, "traces: %s", rd.text);
    if (rc)
      continue;
    for (int k = 0; k <= s->twice && *n_out < max; k++)
      out[(*n_out)++] = tsl_trace_copy(tsl_cand_trace(c));
    tsl_cand_unref(c);
  }
  return TSL_OK;
}

static int t_notify(tsl_strategy *s, uint32_t n, const tsl_measured *results, tsl_diag *diag) {
  (void)s, (void)n, (void)results, (void)diag;
  return TSL_OK;
}

static void t_post_tuning(tsl_strategy *s) { s->space = NULL; }

/* the vtable as ABI 1.0 knew it: no generate_cands */
static const tsl_strategy_vtable vt = {
    .struct_size = offsetof(tsl_strategy_vtable, generate_cands),
    .create = t_create,
    .destroy = t_destroy,
    .pre_tuning = t_pre_tuning,
    .generate = t_generate,
    .notify = t_notify,
    .post_tuning = t_post_tuning,
};

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {sizeof c, TSL_COMPONENT_STRATEGY, "traces", "1.0.0",
                                  "test strategy of ABI 1.0: traces, not candidates", &vt,
                                  NULL};
  return host->register_component(session, &c, diag);
}
