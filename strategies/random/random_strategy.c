/*
 * strategies/random/random_strategy.c — the "random" search strategy, in
 * the manner of MetaSchedule's ReplayTrace: every candidate is one design
 * space trace replayed with fresh decisions drawn from a per-candidate seed.
 *
 * Seeds come from a splitmix64 stream seeded by the run's seed, and design
 * space traces are taken round-robin, so equal seeds give equal candidate
 * sequences. Samples are the core's candidates (the candidate service:
 * replayed and postprocessed once, built later from the same schedule). A
 * sample fails when its replay or a postprocessor fails, when its key was
 * proposed before in this run, or when the core says it was measured.
 * After max_fail failures in a row the strategy gives up for good (the
 * space is taken as exhausted); it never proposes more than space->trials.
 */
#include "random_strategy.h"

#include "tessel/candidates.h"
#include "tessel/container.h"
#include "tessel/runner.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct tsl_strategy {
  int64_t max_fail; /* option; 0 = RS_MAX_FAIL_PER_BATCH * batch */
  /* the run, between pre_tuning and post_tuning */
  const tsl_search_space *space;
  int64_t fail_bound;  /* max_fail in effect */
  uint64_t rng;        /* splitmix64 state */
  uint32_t next_space; /* round-robin cursor */
  int64_t proposed;    /* candidates returned so far */
  int64_t fails;       /* consecutive failed samples */
  int exhausted;       /* the failure bound was reached */
  tsl_cand_service *svc; /* the run's (space->cands) */
  /* counters (notify) */
  int64_t n_samples, n_replay_failed, n_known;
  int64_t n_notified, n_ok;
  double best_latency_s;
};

static int parse_max_fail(const char *text, int64_t *out, tsl_diag *diag) {
  char *end = NULL;
  errno = 0;
  long long v = text ? strtoll(text, &end, 10) : 0;
  if (!text || !*text || *end || errno || v < 1 || v > INT32_MAX)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'random': max_fail: '%s' is not valid; "
                        "valid: an integer from 1 to %d (default %d x batch)",
                        text ? text : "(null)", INT32_MAX,
                        RS_MAX_FAIL_PER_BATCH);
  *out = v;
  return TSL_OK;
}

static int rs_create(void *user_data, uint32_t n_opts, const tsl_kv *opts,
                     tsl_strategy **out, tsl_diag *diag) {
  (void)user_data;
  *out = NULL;
  int64_t max_fail = 0;
  for (uint32_t i = 0; i < n_opts; i++) {
    const char *key = opts[i].key ? opts[i].key : "(null)";
    if (strcmp(key, "max_fail") == 0) {
      int rc = parse_max_fail(opts[i].value, &max_fail, diag);
      if (rc)
        return rc;
    } else {
      return tsl_diag_set(diag, TSL_EINVALID,
                          "strategy 'random': unknown option '%s'; valid: "
                          "max_fail",
                          key);
    }
  }
  tsl_strategy *s = calloc(1, sizeof *s);
  if (!s)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy 'random': out of memory");
  s->max_fail = max_fail;
  s->best_latency_s = -1;
  *out = s;
  return TSL_OK;
}

static void rs_post_tuning(tsl_strategy *s) {
  if (!s)
    return;
  s->svc = NULL;
  s->space = NULL;
}

static void rs_destroy(tsl_strategy *s) {
  rs_post_tuning(s);
  free(s);
}

static int rs_pre_tuning(tsl_strategy *s, const tsl_search_space *space,
                         tsl_diag *diag) {
  if (!space || space->struct_size < sizeof(tsl_search_space))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'random': pre_tuning: missing or too old search space "
                        "(struct_size %u; this strategy needs %zu, with the candidate "
                        "service)",
                        space ? space->struct_size : 0, sizeof(tsl_search_space));
  if (!space->ctx || !space->mod || space->n_space == 0 || !space->space)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'random': pre_tuning: the design space is "
                        "empty; valid: at least one trace (a schedule script "
                        "with sample_* calls)");
  for (uint32_t i = 0; i < space->n_space; i++)
    if (!space->space[i])
      return tsl_diag_set(diag, TSL_EINVALID,
                          "strategy 'random': pre_tuning: design space trace "
                          "%u is NULL",
                          i);
  if (!space->cands)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'random': pre_tuning: the space has no candidate service "
                        "(space->cands)");
  if (space->batch <= 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'random': pre_tuning: batch %d; valid: > 0",
                        space->batch);
  rs_post_tuning(s);
  s->svc = space->cands;
  s->space = space;
  s->fail_bound = s->max_fail ? s->max_fail
                              : (int64_t)RS_MAX_FAIL_PER_BATCH * space->batch;
  s->rng = space->seed;
  s->next_space = 0;
  s->proposed = s->fails = 0;
  s->exhausted = 0;
  s->n_samples = s->n_replay_failed = s->n_known = 0;
  s->n_notified = s->n_ok = 0;
  s->best_latency_s = -1;
  return TSL_OK;
}

/* One sample: a new candidate, proposed, in *out (0, a reference), a
 * failed sample (1), or an error (< 0). */
static int sample_one(tsl_strategy *s, tsl_cand **out, tsl_diag *diag) {
  const tsl_search_space *sp = s->space;
  const tsl_trace *design = sp->space[s->next_space];
  s->next_space = (s->next_space + 1) % sp->n_space;
  s->n_samples++;
  tsl_cand *c = NULL;
  tsl_diag rd = {0};
  int rc = tsl_cand_service_prepare(s->svc, design, 1, tsl_rand_next(&s->rng), &c, &rd);
  if (rc < 0)
    return tsl_diag_set(diag, rc, "strategy 'random': %s", rd.text);
  if (rc) {
    s->n_replay_failed++;
    return 1;
  }
  /* proposed before in this run (tsl_cand_propose marks it) or measured */
  if (tsl_cand_service_known(s->svc, tsl_cand_key(c))) {
    s->n_known++;
    tsl_cand_unref(c);
    tsl_cand_service_sweep(s->svc); /* its schedule is not needed */
    return 1;
  }
  if (tsl_cand_propose(c)) {
    tsl_cand_unref(c);
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy 'random': out of memory");
  }
  *out = c;
  return 0;
}

static int rs_generate_cands(tsl_strategy *s, uint32_t max, tsl_cand **out, uint32_t *n_out,
                             tsl_diag *diag) {
  *n_out = 0;
  if (!s->space)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'random': generate called before "
                        "pre_tuning");
  int64_t left = s->space->trials - s->proposed;
  uint32_t want = left <= 0 ? 0 : (left < (int64_t)max ? (uint32_t)left : max);
  while (*n_out < want && !s->exhausted) {
    tsl_cand *c = NULL;
    int rc = sample_one(s, &c, diag);
    if (rc < 0) {
      for (uint32_t i = 0; i < *n_out; i++)
        tsl_cand_unref(out[i]);
      *n_out = 0;
      return rc;
    }
    if (rc == 0) {
      out[(*n_out)++] = c;
      s->proposed++;
      s->fails = 0;
    } else if (++s->fails >= s->fail_bound) {
      s->exhausted = 1;
    }
  }
  return TSL_OK;
}

static int rs_notify(tsl_strategy *s, uint32_t n, const tsl_measured *results,
                     tsl_diag *diag) {
  (void)diag;
  for (uint32_t i = 0; i < n; i++) {
    s->n_notified++;
    if (results[i].status == TSL_RUN_OK && results[i].latency_s >= 0) {
      s->n_ok++;
      if (s->best_latency_s < 0 || results[i].latency_s < s->best_latency_s)
        s->best_latency_s = results[i].latency_s;
    }
  }
  return TSL_OK;
}

/* For a host of ABI 1.0, which calls only generate. */
static int rs_generate_traces(tsl_strategy *s, uint32_t max, tsl_trace **out, uint32_t *n_out,
                              tsl_diag *diag) {
  return tsl_generate_traces(rs_generate_cands, s, max, out, n_out, diag);
}

const tsl_strategy_vtable rs_vtable = {
    .struct_size = sizeof(tsl_strategy_vtable),
    .create = rs_create,
    .destroy = rs_destroy,
    .pre_tuning = rs_pre_tuning,
    .generate = rs_generate_traces,
    .notify = rs_notify,
    .post_tuning = rs_post_tuning,
    .generate_cands = rs_generate_cands,
};
