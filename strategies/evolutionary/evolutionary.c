/*
 * strategies/evolutionary/evolutionary.c — the "evolutionary" search
 * strategy, TVM MetaSchedule's EvolutionarySearch with its defaults and
 * a diversity filter on the picks (tessel's, on by default).
 *
 * One generate call is one of TVM's GenerateMeasureCandidates:
 *   1. the population starts from the database's fastest records
 *      (population x init_measured_ratio; a resumed run continues from
 *      them) and fresh samples of the design space (rounds of
 *      population - measured samples until init_min_unmeasured are valid;
 *      max_fail_count rounds without one end the search);
 *   2. genetic_num_iters rounds: the cost model scores the population,
 *      unseen members enter a heap of the `batch` x diversity_filter_ratio
 *      best, and the next
 *      population draws parents in proportion to their scores, mutating
 *      each with genetic_mutate_prob (a mutator drawn by its weight) or
 *      copying it (each parent once), retrying genetic_max_fail_count
 *      times before reusing the parent; with crossover_ratio > 0 (not
 *      TVM's) a member is first, with that probability, a crossover child
 *      of two parents (crossover.h);
 *   3. the batch: (1 - eps_greedy) from the heap, best first (with
 *      diversity_filter_ratio > 1, not TVM's: those that cover the most
 *      decisions first, diverse.h), the rest from the fresh samples in
 *      random order, none proposed or measured before.
 * A round with nothing measured to start from and a cost model whose
 * scores are noise (search.h: `ranks`; a fresh run's first batch) skips
 * 1's population and 2: its batch is that many fresh samples not seen
 * before, which is what the picks would be.
 * A member is replayed and postprocessed (the space's postprocessors) to
 * be scored; the trace returned is the one before postprocessing, which
 * the core postprocesses again. Without a cost model every member scores
 * 1 (parents are drawn uniformly). Decisions keys decide "seen": TVM
 * compares the scheduled modules, equal decisions give equal modules.
 */
#include "evolutionary.h"

#include "crossover.h"
#include "diverse.h"

#include "tessel/candidates.h"
#include "tessel/container.h"
#include "tessel/runner.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tsl_strategy {
  const char *name; /* the strategy's, for messages: the create call's user_data */
  /* options */
  int64_t population, init_min_unmeasured, max_fail_count, genetic_num_iters,
      genetic_max_fail_count;
  int64_t diversity_filter_ratio;
  int64_t blind_first_batch; /* 1: a blind round draws its batch directly */
  double init_measured_ratio, genetic_mutate_prob, eps_greedy, crossover_ratio;
  /* the run, between pre_tuning and post_tuning */
  const tsl_search_space *space;
  tsl_cand_service *svc;     /* the core's (space->cands), or own_svc */
  tsl_cand_service *own_svc; /* made in pre_tuning when the core gives none */
  tsl_map scores; /* interned key -> double * (arena): members scored in this round */
  double *mutator_w; /* the space's mutator weights, negative ones as 0 */
  int any_mutator;   /* some weight > 0 */
  tsl_arena *score_arena;
  uint64_t rng;     /* splitmix64 */
  int64_t proposed;
  int exhausted;
  /* counters */
  int64_t n_prepared, n_failed, n_mutated, n_mutate_failed, n_score_reused, n_crossed,
      n_cross_failed;
};

/* A member of the population: a candidate of the service (its trace before
 * postprocessing, its key, its schedule until a sweep drops it). */
typedef struct member {
  tsl_cand *c; /* a reference */
  double score;
  int scored;  /* score known (this round already scored the key) */
} member;

/* An index drawn in proportion to w[0..n) (uniformly when they sum to 0). */
static uint32_t draw(uint64_t *rng, const double *w, uint32_t n) {
  double total = 0;
  for (uint32_t i = 0; i < n; i++)
    total += w[i];
  if (!(total > 0))
    return (uint32_t)tsl_rand_below(rng, n);
  double x = tsl_rand_unit(rng) * total;
  for (uint32_t i = 0; i < n; i++) {
    if (x < w[i])
      return i;
    x -= w[i];
  }
  return n - 1;
}

/* ---- options ----------------------------------------------------------------- */

#define EVO_OPTIONS                                                                  \
  "population_size, init_measured_ratio, init_min_unmeasured, max_fail_count, "     \
  "genetic_num_iters, genetic_mutate_prob, genetic_max_fail_count, eps_greedy, "      \
  "crossover_ratio, diversity_filter_ratio, blind_first_batch"

static int opt_int(const char *name, const char *key, const char *text, int64_t lo, int64_t hi,
                   int64_t *out, tsl_diag *diag) {
  char *end = NULL;
  errno = 0;
  long long v = text ? strtoll(text, &end, 10) : 0;
  if (!text || !*text || *end || errno || v < lo || v > hi)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy '%s': %s: '%s' is not valid; valid: an integer "
                        "from %lld to %lld", name,
                        key, text ? text : "(null)", (long long)lo, (long long)hi);
  *out = v;
  return TSL_OK;
}

static int opt_prob(const char *name, const char *key, const char *text, double *out,
                    tsl_diag *diag) {
  char *end = NULL;
  errno = 0;
  double v = text ? strtod(text, &end) : 0;
  if (!text || !*text || *end || errno || !(v >= 0 && v <= 1))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy '%s': %s: '%s' is not valid; valid: a number "
                        "from 0 to 1", name,
                        key, text ? text : "(null)");
  *out = v;
  return TSL_OK;
}

static int evo_create(void *user_data, uint32_t n_opts, const tsl_kv *opts,
                      tsl_strategy **out, tsl_diag *diag) {
  const char *name = user_data ? (const char *)user_data : "evolutionary";
  *out = NULL;
  tsl_strategy o = {.name = name,
                    .population = EVO_POPULATION,
                    .init_min_unmeasured = EVO_INIT_MIN_UNMEASURED,
                    .max_fail_count = EVO_MAX_FAIL_COUNT,
                    .genetic_num_iters = EVO_GENETIC_NUM_ITERS,
                    .genetic_max_fail_count = EVO_GENETIC_MAX_FAIL_COUNT,
                    .init_measured_ratio = EVO_INIT_MEASURED_RATIO,
                    .genetic_mutate_prob = EVO_GENETIC_MUTATE_PROB,
                    .eps_greedy = EVO_EPS_GREEDY,
                    .crossover_ratio = 0,
                    .diversity_filter_ratio = EVO_DIVERSITY_FILTER_RATIO,
                    .blind_first_batch = 1};
  for (uint32_t i = 0; i < n_opts; i++) {
    const char *k = opts[i].key ? opts[i].key : "(null)", *v = opts[i].value;
    int rc;
    if (!strcmp(k, "population_size"))
      rc = opt_int(name, k, v, 1, 1 << 20, &o.population, diag);
    else if (!strcmp(k, "init_measured_ratio"))
      rc = opt_prob(name, k, v, &o.init_measured_ratio, diag);
    else if (!strcmp(k, "init_min_unmeasured"))
      rc = opt_int(name, k, v, 1, 1 << 20, &o.init_min_unmeasured, diag);
    else if (!strcmp(k, "max_fail_count"))
      rc = opt_int(name, k, v, 1, INT32_MAX, &o.max_fail_count, diag);
    else if (!strcmp(k, "genetic_num_iters"))
      rc = opt_int(name, k, v, 0, 1 << 16, &o.genetic_num_iters, diag);
    else if (!strcmp(k, "genetic_mutate_prob"))
      rc = opt_prob(name, k, v, &o.genetic_mutate_prob, diag);
    else if (!strcmp(k, "genetic_max_fail_count"))
      rc = opt_int(name, k, v, 0, INT32_MAX, &o.genetic_max_fail_count, diag);
    else if (!strcmp(k, "eps_greedy"))
      rc = opt_prob(name, k, v, &o.eps_greedy, diag);
    else if (!strcmp(k, "crossover_ratio"))
      rc = opt_prob(name, k, v, &o.crossover_ratio, diag);
    else if (!strcmp(k, "diversity_filter_ratio"))
      rc = opt_int(name, k, v, 1, EVO_MAX_DIVERSITY_RATIO, &o.diversity_filter_ratio, diag);
    else if (!strcmp(k, "blind_first_batch"))
      rc = opt_int(name, k, v, 0, 1, &o.blind_first_batch, diag);
    else
      rc = tsl_diag_set(diag, TSL_EINVALID,
                        "strategy '%s': unknown option '%s'; valid: " EVO_OPTIONS, name, k);
    if (rc)
      return rc;
  }
  tsl_strategy *s = malloc(sizeof *s);
  if (!s)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", name);
  *s = o;
  *out = s;
  return TSL_OK;
}

static void evo_post_tuning(tsl_strategy *s) {
  if (!s || !s->space)
    return;
  tsl_cand_service_free(s->own_svc); /* every member is freed by now */
  s->own_svc = s->svc = NULL;
  tsl_map_free(&s->scores);
  tsl_arena_free(s->score_arena);
  s->score_arena = NULL;
  free(s->mutator_w);
  s->mutator_w = NULL;
  s->space = NULL;
}

static void evo_destroy(tsl_strategy *s) {
  evo_post_tuning(s);
  free(s);
}

static int evo_pre_tuning(tsl_strategy *s, const tsl_search_space *space, tsl_diag *diag) {
  /* everything up to the candidate service (ABI 1.1); rule_target (1.12)
   * is not read here */
  const size_t need = offsetof(tsl_search_space, cands) + sizeof space->cands;
  if (!space || space->struct_size < need)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy '%s': pre_tuning: missing or too old search "
                        "space (struct_size %u; this strategy needs %zu: postprocessors, "
                        "mutators, measured records)", s->name,
                        space ? space->struct_size : 0, need);
  if (!space->ctx || !space->mod || !space->n_space || !space->space)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy '%s': pre_tuning: the design space is empty; "
                        "valid: at least one trace", s->name);
  for (uint32_t i = 0; i < space->n_space; i++)
    if (!space->space[i])
      return tsl_diag_set(diag, TSL_EINVALID,
                          "strategy '%s': pre_tuning: design space trace %u is NULL", s->name,
                          i);
  if (space->batch <= 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy '%s': pre_tuning: batch %d; valid: > 0", s->name,
                        space->batch);
  evo_post_tuning(s);
  s->svc = space->cands;
  if (!s->svc) { /* a host without the service: one of our own */
    tsl_cand_service_opts o = {sizeof o, space->ctx, space->mod, space->func_name,
                               space->intrins, space->n_postprocs, space->postprocs, 0, 0};
    int rc = tsl_cand_service_new(&o, &s->own_svc, diag);
    if (rc)
      return rc;
    s->svc = s->own_svc;
  }
  s->space = space;
  tsl_map_init(&s->scores, NULL);
  s->score_arena = NULL;
  s->mutator_w = calloc(space->n_mutators + 1, sizeof *s->mutator_w);
  if (!s->mutator_w)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
  s->any_mutator = 0;
  for (uint32_t i = 0; i < space->n_mutators; i++) {
    s->mutator_w[i] = space->mutators[i].prob > 0 ? space->mutators[i].prob : 0;
    s->any_mutator |= s->mutator_w[i] > 0;
  }
  s->rng = space->seed;
  s->proposed = 0;
  s->exhausted = 0;
  s->n_prepared = s->n_failed = 0;
  s->n_mutated = s->n_mutate_failed = s->n_score_reused = 0;
  s->n_crossed = s->n_cross_failed = 0;
  return TSL_OK;
}

/* ---- members ----------------------------------------------------------------- */

static void member_free(member *m) {
  tsl_cand_unref(m->c);
  memset(m, 0, sizeof *m);
}

/* A population: a tsl_vec of member. */
static void pop_init(tsl_vec *p) { tsl_vec_init(p, sizeof(member), NULL); }

static void pop_clear(tsl_vec *p) {
  for (uint32_t i = 0; i < p->len; i++)
    member_free(&TSL_VEC_AT(p, member, i));
  p->len = 0;
}

static void pop_free(tsl_vec *p) {
  pop_clear(p);
  tsl_vec_free(p);
}

/* Moves `m` into `p` (zeroing it). */
static void pop_push(tsl_vec *p, member *m) {
  TSL_VEC_PUSH(p, member, *m);
  memset(m, 0, sizeof *m);
}

/* The candidate of `trace` (with its decisions, or fresh ones when
 * `fresh`) from the service: replayed and postprocessed there once per
 * run. 0: a member; 1: the trace makes no candidate; < 0: out of memory. */
static int prepare(tsl_strategy *s, const tsl_trace *trace, int fresh, member *out) {
  tsl_diag d;
  tsl_cand *c = NULL;
  s->n_prepared++;
  int rc = tsl_cand_service_prepare(s->svc, trace, fresh, tsl_rand_next(&s->rng), &c, &d);
  if (rc < 0)
    return -1;
  if (rc) {
    s->n_failed++;
    return 1;
  }
  *out = (member){c, 0, 0};
  return 0;
}

/* 1 when the member's key was proposed in this run or measured. */
static int known(tsl_strategy *s, const member *m) {
  const tsl_search_space *sp = s->space;
  if (tsl_cand_service_known(s->svc, tsl_cand_key(m->c)))
    return 1;
  return s->own_svc && sp->is_measured && sp->is_measured(sp->core_data, tsl_cand_trace(m->c));
}

/* ---- the steps of one round ----------------------------------------------------- */

/* TVM's PickBestFromDatabase: the fastest measured candidates. */
static int pick_measured(tsl_strategy *s, uint32_t num, tsl_vec *out, tsl_diag *diag) {
  const tsl_search_space *sp = s->space;
  if (!num || !sp->top_measured)
    return TSL_OK;
  tsl_trace **traces = calloc(num, sizeof *traces);
  if (!traces)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
  uint32_t n = 0;
  int rc = sp->top_measured(sp->core_data, num, traces, &n, diag);
  for (uint32_t i = 0; i < n; i++) {
    member m = {0};
    int prc = rc ? 1 : prepare(s, traces[i], 0, &m); /* the key ignores postprocessing */
    if (prc < 0) {
      member_free(&m);
      rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
    } else if (!prc) {
      pop_push(out, &m);
    }
    tsl_trace_free(traces[i]);
  }
  free(traces);
  return rc;
}

/* Rounds of `num` fresh samples until `enough` are in `out`, or
 * max_fail_count rounds added none. Without `unseen`, every valid sample of
 * a round is kept (TVM's SampleInitPopulation, `enough` its
 * init_min_unmeasured). With it (a blind round: no measured member, a
 * model that cannot rank, so the picks are fresh samples whatever the
 * evolution does) only samples neither proposed, measured nor already in
 * `out` are kept, and a round stops once `enough` are in. */
static int sample_fresh(tsl_strategy *s, uint32_t num, int64_t enough, int unseen,
                        tsl_vec *out, tsl_diag *diag) {
  const tsl_search_space *sp = s->space;
  tsl_map taken; /* keys of `out`, when unseen */
  tsl_map_init(&taken, NULL);
  int rc = TSL_OK;
  for (int64_t fails = 0; !rc && (int64_t)out->len < enough && fails < s->max_fail_count;) {
    uint32_t before = out->len;
    for (uint32_t i = 0; !rc && i < num && (!unseen || (int64_t)out->len < enough); i++) {
      const tsl_trace *design = sp->space[tsl_rand_next(&s->rng) % sp->n_space];
      member m = {0};
      int prc = prepare(s, design, 1, &m);
      if (prc > 0)
        continue;
      const char *key = prc ? NULL : tsl_cand_key(m.c);
      if (!prc && unseen && (known(s, &m) || tsl_map_get(&taken, key))) {
        member_free(&m);
        continue;
      }
      if (prc < 0) {
        member_free(&m);
        rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
        continue;
      }
      pop_push(out, &m);
      if (unseen)
        tsl_map_put(&taken, key, (void *)1);
    }
    fails += out->len == before;
  }
  tsl_map_free(&taken);
  return rc;
}

/* Whether the run's cost model ranks candidates (search.h: `ranks`); no
 * model scores every member 1, which ranks nothing. */
static int model_ranks(const tsl_search_space *sp) {
  return sp->cost_vtable && sp->cost_model &&
         tsl_cost_model_ranks(sp->cost_vtable, sp->cost_model);
}

/* Scores of the population (TVM's PredictNormalizedScore: negative ones
 * become 0), on the service's views (features extracted once per
 * candidate). */
static int score(tsl_strategy *s, tsl_vec *p, tsl_diag *diag) {
  const tsl_search_space *sp = s->space;
  member *pm = TSL_VEC_DATA(p, member);
  int rc = TSL_OK;
  uint32_t *todo = calloc(p->len ? p->len : 1, sizeof *todo), n = 0;
  if (!todo)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
  for (uint32_t i = 0; i < p->len; i++)
    if (!pm[i].scored)
      todo[n++] = i;
  if (sp->cost_vtable && sp->cost_model && n) {
    tsl_candidate *cands = calloc(n, sizeof *cands);
    double *scores = calloc(n, sizeof *scores);
    if (!cands || !scores) {
      rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
    } else {
      for (uint32_t k = 0; k < n; k++)
        cands[k] = *tsl_cand_view(pm[todo[k]].c);
      tsl_diag md;
      md.len = 0;
      md.text[0] = '\0';
      rc = sp->cost_vtable->predict(sp->cost_model, n, cands, scores, &md);
      if (rc)
        tsl_diag_set(diag, rc, "strategy '%s': cost model: %s", s->name, md.text);
      for (uint32_t k = 0; !rc && k < n; k++)
        pm[todo[k]].score = isfinite(scores[k]) && scores[k] > 0 ? scores[k] : 0;
    }
    free(cands);
    free(scores);
  } else {
    for (uint32_t k = 0; k < n; k++)
      pm[todo[k]].score = 1;
  }
  for (uint32_t k = 0; !rc && k < n; k++) { /* later members with these keys reuse them */
    member *m = &pm[todo[k]];
    m->scored = 1;
    double *v = TSL_NEW(s->score_arena, double);
    *v = m->score;
    tsl_map_put(&s->scores, tsl_cand_key(m->c), v);
  }
  free(todo);
  return rc;
}

/* The `limit` best unseen members met during the evolution: a min-heap on
 * score (TVM's SizedHeap); entries hold a reference and keep the
 * candidate's schedule (the core builds the picks from it). */
typedef struct best_heap {
  member *m;
  uint32_t n, limit;
} best_heap;

static void heap_sift_down(best_heap *h, uint32_t i) {
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, min = i;
    if (l < h->n && h->m[l].score < h->m[min].score)
      min = l;
    if (r < h->n && h->m[r].score < h->m[min].score)
      min = r;
    if (min == i)
      return;
    member t = h->m[i];
    h->m[i] = h->m[min];
    h->m[min] = t;
    i = min;
  }
}

static void heap_entry_free(member *e) {
  tsl_cand_let_go(e->c);
  member_free(e);
}

static int heap_push(best_heap *h, const member *m) {
  if (h->n == h->limit && !(m->score > h->m[0].score))
    return TSL_OK;
  member e = {tsl_cand_ref(m->c), m->score, 1};
  tsl_cand_keep(e.c);
  if (h->n == h->limit) {
    heap_entry_free(&h->m[0]);
    h->m[0] = e;
    heap_sift_down(h, 0);
    return TSL_OK;
  }
  uint32_t i = h->n++;
  h->m[i] = e;
  while (i && h->m[(i - 1) / 2].score > h->m[i].score) {
    member t = h->m[i];
    h->m[i] = h->m[(i - 1) / 2];
    h->m[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
  return TSL_OK;
}

static int by_score_desc(const void *a, const void *b) {
  double x = ((const member *)a)->score, y = ((const member *)b)->score;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* A mutator drawn as TVM's MakeMutatorSampler: none with probability
 * 1 - genetic_mutate_prob, else one in proportion to its weight (-1: none). */
static int draw_mutator(tsl_strategy *s) {
  if (!s->any_mutator || tsl_rand_unit(&s->rng) >= s->genetic_mutate_prob)
    return -1;
  return (int)draw(&s->rng, s->mutator_w, s->space->n_mutators);
}

/* A prepared child `t` of the service into *out, with the score this
 * round gave its key, if any. 0, 1 (no candidate), < 0 out of memory. */
static int child(tsl_strategy *s, const tsl_trace *t, member *out) {
  int rc = prepare(s, t, 0, out);
  if (rc == 0) {
    const double *v = tsl_map_get(&s->scores, tsl_cand_key(out->c));
    if (v) {
      out->score = *v;
      out->scored = 1;
      s->n_score_reused++;
    }
  }
  return rc;
}

/* With probability crossover_ratio, a child of two parents drawn by score
 * (crossover.h: each node from the first with probability its share of
 * the two scores). 0: *out; 1: none (no draw, parents that do not cross,
 * a child that makes no program); < 0 out of memory. */
static int crossed(tsl_strategy *s, const tsl_vec *cur, const double *w, member *out) {
  if (!(s->crossover_ratio > 0) || cur->len < 2 || tsl_rand_unit(&s->rng) >= s->crossover_ratio)
    return 1;
  const member *cm = TSL_VEC_DATA(cur, const member);
  uint32_t p1 = draw(&s->rng, w, cur->len), p2 = draw(&s->rng, w, cur->len);
  double sum = cm[p1].score + cm[p2].score;
  tsl_trace *t = NULL;
  int rc = p1 == p2 ? 1
                    : evo_crossover(tsl_cand_trace(cm[p1].c), tsl_cand_trace(cm[p2].c),
                                    sum > 0 ? cm[p1].score / sum : 0.5, &s->rng, &t);
  if (!rc)
    rc = child(s, t, out);
  tsl_trace_free(t);
  if (rc > 0)
    s->n_cross_failed++;
  else if (!rc)
    s->n_crossed++;
  return rc;
}

/* One member of the next population (TVM's f_find_candidate), after a
 * crossover when one is drawn and makes a program. A parent copied, or a
 * child whose key this round scored already, keeps its score (TVM predicts
 * it again: the model gives the same); a child met before in the run comes
 * from the service without a replay. */
static int offspring(tsl_strategy *s, const tsl_vec *cur, const double *w,
                     unsigned char *copied, member *out) {
  const tsl_search_space *sp = s->space;
  const member *cm = TSL_VEC_DATA(cur, const member);
  uint32_t parent = 0;
  int crc = crossed(s, cur, w, out);
  if (crc <= 0)
    return crc;
  for (int64_t fail = 0; fail <= s->genetic_max_fail_count; fail++) {
    parent = draw(&s->rng, w, cur->len);
    int mi = draw_mutator(s);
    if (mi >= 0) {
      const tsl_space_mutator *mu = &sp->mutators[mi];
      tsl_trace *nt = NULL;
      tsl_diag d;
      int rc = mu->vtable->apply(mu->m, sp->mod, tsl_cand_trace(cm[parent].c), &s->rng,
                                 &nt, &d);
      if (rc == TSL_ENOMEM)
        return -1;
      if (rc || !nt) {
        s->n_mutate_failed++;
        tsl_trace_free(nt);
        continue;
      }
      rc = child(s, nt, out);
      tsl_trace_free(nt);
      if (rc < 0)
        return rc;
      if (rc == 0) {
        s->n_mutated++;
        return 0;
      }
    } else if (!copied[parent]) {
      copied[parent] = 1;
      break;
    }
  }
  /* not mutated, or every try failed: the parent again */
  const member *p = &cm[parent];
  *out = (member){tsl_cand_ref(p->c), p->score, 1};
  return 0;
}

/* TVM's EvolveWithCostModel: the `num` best unseen members, best first. */
static int evolve(tsl_strategy *s, tsl_vec *pop, uint32_t num, best_heap *h,
                  tsl_diag *diag) {
  h->limit = num;
  h->m = calloc(num ? num : 1, sizeof *h->m);
  if (!h->m)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
  tsl_map exists; /* keys judged in this evolution, on top of `known` */
  tsl_map_init(&exists, NULL);
  tsl_vec next;
  pop_init(&next);
  int rc = TSL_OK;
  for (int64_t iter = 0; !rc; iter++) {
    if ((rc = score(s, pop, diag)))
      break;
    for (uint32_t i = 0; !rc && i < pop->len; i++) {
      member *m = &TSL_VEC_AT(pop, member, i);
      const char *key = tsl_cand_key(m->c);
      if (tsl_map_get(&exists, key))
        continue;
      tsl_map_put(&exists, key, (void *)1);
      if (!known(s, m) && heap_push(h, m))
        rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
    }
    /* schedules past here only for the heap's members */
    tsl_cand_service_sweep(s->svc);
    if (rc || iter == s->genetic_num_iters || !pop->len)
      break;
    double *w = malloc(pop->len * sizeof *w);
    unsigned char *copied = calloc(pop->len, 1);
    if (!w || !copied) {
      free(w);
      free(copied);
      rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
      break;
    }
    for (uint32_t i = 0; i < pop->len; i++)
      w[i] = TSL_VEC_AT(pop, member, i).score;
    for (int64_t k = 0; !rc && k < s->population; k++) {
      member m = {0};
      int orc = offspring(s, pop, w, copied, &m);
      if (orc < 0) {
        member_free(&m);
        rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
      } else if (!orc) {
        pop_push(&next, &m);
      }
    }
    free(w);
    free(copied);
    pop_clear(pop);
    tsl_vec t = *pop;
    *pop = next;
    next = t;
  }
  pop_free(&next);
  tsl_map_free(&exists);
  qsort(h->m, h->n, sizeof *h->m, by_score_desc);
  return rc;
}

/* The fresh samples' random order for the eps-greedy picks (Fisher-Yates),
 * or NULL when out of memory. */
static uint32_t *shuffled(tsl_strategy *s, uint32_t n) {
  uint32_t *order = malloc((n ? n : 1) * sizeof *order);
  if (!order)
    return NULL;
  for (uint32_t i = 0; i < n; i++)
    order[i] = i;
  for (uint32_t i = n; i > 1; i--) {
    uint32_t j = (uint32_t)(tsl_rand_next(&s->rng) % i);
    uint32_t t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
  return order;
}

/* The order in which the picks take the heap's members (sorted best
 * first): that order, or with diversity_filter_ratio > 1 the n_best that
 * cover the most decisions first (diverse.h). NULL when out of memory. */
static uint32_t *bests_order(const tsl_strategy *s, const best_heap *bests, uint32_t n_best) {
  uint32_t n = bests->n;
  uint32_t *order = malloc((n ? n : 1) * sizeof *order);
  const char **keys = malloc((n ? n : 1) * sizeof *keys);
  int rc = order && keys ? 0 : -1;
  for (uint32_t i = 0; !rc && i < n; i++)
    keys[i] = tsl_cand_key(bests->m[i].c);
  if (!rc)
    rc = evo_diverse_order(keys, n, s->diversity_filter_ratio > 1 ? n_best : 0, order);
  free(keys);
  if (rc) {
    free(order);
    return NULL;
  }
  return order;
}

/* TVM's PickWithEpsGreedy: `num` picks, the last num x eps_greedy from the
 * fresh samples in the random `order`, the others from `bests` (each list
 * standing in when the other runs out), none proposed or measured before. */
static int pick(tsl_strategy *s, const tsl_vec *fresh, const uint32_t *order,
                const best_heap *bests, uint32_t num, tsl_cand **out, uint32_t *n_out,
                tsl_diag *diag) {
  uint32_t n_rand = (uint32_t)(num * s->eps_greedy), n_best = num - n_rand;
  uint32_t ib = 0, ir = 0;
  uint32_t *best_order = bests_order(s, bests, n_best);
  if (!best_order)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
  int rc = TSL_OK;
  for (uint32_t i = 0; i < num && !rc; i++) {
    int has_best = ib < bests->n, has_rand = ir < fresh->len;
    const member *m;
    if (i < n_best ? has_best : !has_rand && has_best)
      m = &bests->m[best_order[ib++]];
    else if (has_rand)
      m = &TSL_VEC_AT(fresh, const member, order[ir++]);
    else
      break;
    if (known(s, m))
      continue;
    if (tsl_cand_propose(m->c)) { /* known from now on; the core builds it */
      rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
      break;
    }
    out[(*n_out)++] = tsl_cand_ref(m->c);
  }
  free(best_order);
  return rc;
}

/* One of TVM's GenerateMeasureCandidates. */
static int round_(tsl_strategy *s, uint32_t want, tsl_cand **out, uint32_t *n_out,
                  tsl_diag *diag) {
  uint32_t pop_n = (uint32_t)s->population;
  tsl_vec measured, fresh, pop; /* member */
  pop_init(&measured);
  pop_init(&fresh);
  pop_init(&pop);
  /* scores hold for one round: the model learns between rounds */
  tsl_map_clear(&s->scores);
  tsl_arena_free(s->score_arena);
  s->score_arena = tsl_arena_new(s->space->ctx);
  best_heap bests = {0};
  int rc = pick_measured(s, (uint32_t)(pop_n * s->init_measured_ratio), &measured, diag);
  /* Nothing measured to evolve from and scores that are noise: TVM would
   * evolve the fresh samples and pick by those scores, which amounts to
   * picking random samples and their mutants; with blind_first_batch they
   * are fresh samples drawn directly (a fresh run's first batch;
   * docs/decisions.md). */
  int blind = !rc && s->blind_first_batch && !measured.len && !model_ranks(s->space);
  if (!rc)
    rc = blind ? sample_fresh(s, want, want, 1, &fresh, diag)
               : sample_fresh(s, pop_n > measured.len ? pop_n - measured.len : 1,
                              s->init_min_unmeasured, 0, &fresh, diag);
  if (!rc && (blind ? !fresh.len : (int64_t)fresh.len < s->init_min_unmeasured)) {
    s->exhausted = 1; /* TVM: "cannot sample enough initial population" */
    goto done;
  }
  /* the population: measured then fresh members (fresh keeps its traces
   * for the eps-greedy picks, the population gets its own) */
  for (uint32_t i = 0; !rc && i < measured.len + fresh.len; i++) {
    const member *src = i < measured.len ? &TSL_VEC_AT(&measured, member, i)
                                         : &TSL_VEC_AT(&fresh, member, i - measured.len);
    member m = {tsl_cand_ref(src->c), 0, 0};
    pop_push(&pop, &m);
  }
  /* the fresh samples the picks may take keep their schedules through the
   * evolution, so that the core builds them without a second replay */
  uint32_t *order = rc ? NULL : shuffled(s, fresh.len);
  uint32_t n_keep = fresh.len < want ? fresh.len : want;
  if (!rc && !order)
    rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy '%s': out of memory", s->name);
  for (uint32_t k = 0; order && k < n_keep; k++)
    tsl_cand_keep(TSL_VEC_AT(&fresh, member, order[k]).c);
  uint64_t heap_n = (uint64_t)want * (uint64_t)s->diversity_filter_ratio;
  if (!rc && !blind) /* with a diversity filter, a heap of ratio x want */
    rc = evolve(s, &pop, heap_n < UINT32_MAX ? (uint32_t)heap_n : UINT32_MAX, &bests, diag);
  if (!rc)
    rc = pick(s, &fresh, order, &bests, want, out, n_out, diag);
  for (uint32_t k = 0; order && k < n_keep; k++)
    tsl_cand_let_go(TSL_VEC_AT(&fresh, member, order[k]).c);
  free(order);
done:
  for (uint32_t i = 0; i < bests.n; i++)
    heap_entry_free(&bests.m[i]);
  free(bests.m);
  pop_free(&measured);
  pop_free(&fresh);
  pop_free(&pop);
  tsl_cand_service_sweep(s->svc); /* the picks stay: proposed */
  return rc;
}

static int evo_generate(tsl_strategy *s, uint32_t max, tsl_cand **out, uint32_t *n_out,
                        tsl_diag *diag) {
  *n_out = 0;
  if (!s->space)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy '%s': generate called before pre_tuning", s->name);
  int64_t left = s->space->trials - s->proposed;
  uint32_t want = left <= 0 ? 0 : (left < (int64_t)max ? (uint32_t)left : max);
  /* a round that finds nothing new is repeated (TVM: num_empty_iters) */
  for (int empty = 0; want && !*n_out && !s->exhausted && empty < EVO_EMPTY_ROUNDS; empty++) {
    int rc = round_(s, want, out, n_out, diag);
    if (rc) {
      for (uint32_t i = 0; i < *n_out; i++)
        tsl_cand_unref(out[i]);
      *n_out = 0;
      return rc;
    }
  }
  s->proposed += *n_out;
  return TSL_OK;
}

static int evo_notify(tsl_strategy *s, uint32_t n, const tsl_measured *results,
                      tsl_diag *diag) {
  (void)s;
  (void)n;
  (void)results;
  (void)diag; /* the database holds the results; the next round reads them */
  return TSL_OK;
}

/* For a host of ABI 1.0, which calls only generate. */
static int evo_generate_traces(tsl_strategy *s, uint32_t max, tsl_trace **out, uint32_t *n_out,
                              tsl_diag *diag) {
  return tsl_generate_traces(evo_generate, s, max, out, n_out, diag);
}

void evo_get_counts(const tsl_strategy *s, evo_counts *out) {
  *out = (evo_counts){s->n_prepared, s->n_failed, s->n_mutated, s->n_mutate_failed,
                      s->n_crossed, s->n_cross_failed};
}

const tsl_strategy_vtable evo_vtable = {
    .struct_size = sizeof(tsl_strategy_vtable),
    .create = evo_create,
    .destroy = evo_destroy,
    .pre_tuning = evo_pre_tuning,
    .generate = evo_generate_traces,
    .notify = evo_notify,
    .post_tuning = evo_post_tuning,
    .generate_cands = evo_generate,
};
