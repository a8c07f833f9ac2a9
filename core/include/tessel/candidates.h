/*
 * tessel/candidates.h — the candidate service: a trace becomes a candidate
 * once per tuning run (replay, the space's postprocessors, on demand the
 * program features), kept under its key (tsl_trace_key), so that
 * strategies, cost models and the tuner share one replay, one key and one
 * feature extraction per candidate, and "seen before" is one hash lookup.
 *
 * The tuner makes one service per run (search.h: tsl_search_space.cands);
 * its set of known keys starts with the database's records for the
 * workload and target. A strategy prepares the traces it considers,
 * scores their views with the cost model, and proposes the ones it
 * returns; the tuner takes the proposed candidates' schedules to build
 * them, without replaying them again.
 *
 * Schedules are the heavy part (a few hundred KiB each): a candidate's
 * postprocessed schedule lives from its replay until tsl_cand_service_sweep
 * finds nobody keeping it (tsl_cand_keep / tsl_cand_let_go); what stays
 * with the candidate afterwards is its trace, its status and its features.
 * A candidate whose schedule was dropped is replayed again when its
 * schedule or its features are asked for.
 *
 * Candidates are reference counted (tsl_cand_ref / tsl_cand_unref); the
 * service forgets the oldest candidates nobody references once it holds
 * more than `max_cands`. A key stays known for the whole run. Every pointer
 * returned by tsl_cand_* lives while the caller's reference does.
 * Threading: one service and its candidates are used by one thread.
 */
#ifndef TESSEL_CANDIDATES_H
#define TESSEL_CANDIDATES_H

#include <stdint.h>
#include <stdlib.h>

#include "tessel/base.h"
#include "tessel/rules.h"
#include "tessel/schedule.h"
#include "tessel/search.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsl_cand tsl_cand; /* one candidate, owned by its service */

typedef struct tsl_cand_service_opts {
  uint32_t struct_size;
  tsl_ctx *ctx;
  const tsl_module *mod;  /* the workload; lives as long as the service */
  const char *func_name;  /* the prim_func tuned (NULL: the only one) */
  const tsl_intrin_registry *intrins; /* for replaying tensorize; may be NULL */
  uint32_t n_postprocs;   /* applied after every replay, in order */
  const tsl_space_postproc *postprocs;
  uint32_t max_cands;     /* candidates kept (0: 16384); the oldest unreferenced go */
  /* appended in 1.10: how duplicates are judged (strategy.dedup).
   *   0: by the trace's decisions alone (the key);
   *   1: by the postprocessed program as well, as TVM's evolutionary
   *      search does: a trace whose program (tsl_module_hash) equals the
   *      program of a candidate prepared before gets that candidate (its
   *      key, a cache hit without a new candidate), and a key is known
   *      when its program was marked under another key. Keys marked
   *      without being prepared (the database's records when the run
   *      began) are known by their decisions alone.
   * A caller of ABI 1.9 passes the smaller struct: 0. */
  int32_t dedup_program;
} tsl_cand_service_opts;

/* Counters of a service, for the search overhead's breakdown. */
typedef struct tsl_cand_service_stats {
  uint32_t struct_size;
  int64_t prepared;   /* tsl_cand_service_prepare calls */
  int64_t hits;       /* ... answered from the cache, without a replay */
  int64_t replays;    /* replays (prepare, and schedules asked again) */
  int64_t failed;     /* traces that made no candidate (replay or postprocessor) */
  int64_t featurized; /* feature extractions */
  int64_t replayed_again; /* ... of candidates whose schedule had been dropped */
  double replay_s, postproc_s, feature_s; /* seconds spent in each */
} tsl_cand_service_stats;

TSL_API int tsl_cand_service_new(const tsl_cand_service_opts *opts, tsl_cand_service **out,
                                 tsl_diag *diag);
/* Every reference to its candidates must be dropped first. NULL ignored. */
TSL_API void tsl_cand_service_free(tsl_cand_service *s);

/* The candidate of `trace`:
 *   fresh 0: with the trace's own decisions. A candidate with its key
 *            prepared before is returned without a replay (a trace that
 *            failed before fails again at once);
 *   fresh 1: the trace replayed with fresh decisions drawn from `seed`; a
 *            result whose key was prepared before is the earlier candidate.
 * 0 and *out (a new reference); 1 when the trace makes no candidate (the
 * replay or a postprocessor failed: diag says which and why; *out NULL); a
 * negative status on error (out of memory). */
TSL_API int tsl_cand_service_prepare(tsl_cand_service *s, const tsl_trace *trace,
                                     int32_t fresh, uint64_t seed, tsl_cand **out,
                                     tsl_diag *diag);
/* The candidate prepared under `key` (a new reference), or NULL; with
 * dedup_program also the earlier candidate that answered a trace with
 * that key (its own key is the earlier one's). */
TSL_API tsl_cand *tsl_cand_service_find(tsl_cand_service *s, const char *key);
/* 1 when `key` was measured (the database's records when the run began,
 * and every key marked since) or proposed in this run; else 0. */
TSL_API int tsl_cand_service_known(const tsl_cand_service *s, const char *key);
/* Mark `key` known (measured, or proposed). 0, or TSL_ENOMEM. */
TSL_API int tsl_cand_service_mark(tsl_cand_service *s, const char *key);
/* Drop the schedules nobody keeps (their traces, status and features
 * stay). */
TSL_API void tsl_cand_service_sweep(tsl_cand_service *s);
TSL_API void tsl_cand_service_get_stats(const tsl_cand_service *s,
                                        tsl_cand_service_stats *out);

/* The key (interned in the service's context: it outlives the candidate). */
TSL_API const char *tsl_cand_key(const tsl_cand *c);
/* The trace that replays to the candidate before the space's
 * postprocessors (what a strategy returns): the part before enter_postproc
 * when the service has postprocessors, else the whole replayed trace. */
TSL_API const tsl_trace *tsl_cand_trace(const tsl_cand *c);
/* The postprocessed schedule, replayed again when it was dropped: 0 and
 * *out (owned by the candidate, valid until it is dropped: keep the
 * candidate to hold it), or an error status with the replay's message. */
TSL_API int tsl_cand_schedule(tsl_cand *c, tsl_schedule **out, tsl_diag *diag);
/* The candidate as a cost model sees it: the postprocessed trace, the
 * scheduled module while the schedule lives (else NULL), the workload, and
 * `features`, which extracts the features once (replaying the candidate
 * when its schedule was dropped) and keeps them. Valid until the schedule
 * is dropped or the reference ends. */
TSL_API const tsl_candidate *tsl_cand_view(tsl_cand *c);
/* Keep the schedule past the next sweep / stop keeping it (counted). */
TSL_API void tsl_cand_keep(tsl_cand *c);
TSL_API void tsl_cand_let_go(tsl_cand *c);
/* Propose the candidate for measurement: its key becomes known, and its
 * schedule is kept for the tuner (which lets it go once built). 0, or
 * TSL_ENOMEM. */
TSL_API int tsl_cand_propose(tsl_cand *c);
TSL_API tsl_cand *tsl_cand_ref(tsl_cand *c);
/* NULL ignored. */
TSL_API void tsl_cand_unref(tsl_cand *c);

/* A strategy's `generate` on top of its `generate_cands` (search.h), for
 * hosts of ABI 1.0, which call only generate: copies of the candidates'
 * traces, their references dropped (the candidates stay proposed in the
 * service). `gen` is the strategy's generate_cands. */
static inline int tsl_generate_traces(int (*gen)(tsl_strategy *, uint32_t, tsl_cand **,
                                                 uint32_t *, tsl_diag *),
                                      tsl_strategy *s, uint32_t max, tsl_trace **out,
                                      uint32_t *n_out, tsl_diag *diag) {
  tsl_cand **cands = (tsl_cand **)calloc(max ? max : 1, sizeof *cands);
  uint32_t n = 0;
  int rc = cands ? gen(s, max, cands, &n, diag)
                 : tsl_diag_set(diag, TSL_ENOMEM, "generate: out of memory");
  *n_out = 0;
  for (uint32_t i = 0; i < n; i++) {
    tsl_trace *t = rc ? NULL : tsl_trace_copy(tsl_cand_trace(cands[i]));
    if (t)
      out[(*n_out)++] = t;
    else if (!rc)
      rc = tsl_diag_set(diag, TSL_ENOMEM, "generate: out of memory");
    tsl_cand_unref(cands[i]);
  }
  free(cands);
  for (uint32_t i = 0; rc && i < *n_out; i++)
    tsl_trace_free(out[i]);
  *n_out = rc ? 0 : *n_out;
  return rc;
}

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_CANDIDATES_H */
