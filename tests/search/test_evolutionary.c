/*
 * tests/search/test_evolutionary.c — the "evolutionary" strategy plugin
 * (strategies/evolutionary), loaded from the build tree, on the design
 * space the default llvm rules derive for a 32x32 matmul: options and
 * their errors, candidates (distinct, never measured, before
 * postprocessing, replayable), determinism, a cost model steering the
 * search, a first round drawn without the evolution while the model's
 * scores are noise, crossover (the engine linked in, for its counts),
 * the diversity filter (its order, and a batch covering more decisions),
 * the database's best seeding the population, exhaustion.
 */
#include "search_common.h"
#include "diverse.h"
#include "evolutionary.h"

#include <jansson.h>

static const char *matmul32 =
    "@T.prim_func\n"
    "def main(A: T.Buffer((32, 32), \"float32\"), B: T.Buffer((32, 32), \"float32\"),\n"
    "         C: T.Buffer((32, 32), \"float32\")):\n"
    "    for i, j, k in T.grid(32, 32, 32):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static tsl_ctx *ctx;
static tsl_arena *arena;
static tsl_registry *reg;
static const tsl_strategy_vtable *vt;
static const tsl_rule_target target = {sizeof target, "llvm", 2, 32, NULL};

/* ---- the core's side ---------------------------------------------------------- */

typedef struct core {
  char *measured[256]; /* keys claimed measured */
  uint32_t n_measured;
  tsl_trace *top[8]; /* what top_measured hands out, fastest first */
  uint32_t n_top;
  uint32_t top_calls, top_k;
} core;

static int32_t is_measured(void *data, const tsl_trace *t) {
  core *c = data;
  char *key = tsl_trace_decisions_key(t);
  int32_t hit = 0;
  for (uint32_t i = 0; key && i < c->n_measured; i++)
    hit |= strcmp(c->measured[i], key) == 0;
  free(key);
  return hit;
}

static int32_t top_measured(void *data, uint32_t k, tsl_trace **out, uint32_t *n_out,
                            tsl_diag *diag) {
  (void)diag;
  core *c = data;
  c->top_calls++;
  c->top_k = k;
  *n_out = 0;
  for (uint32_t i = 0; i < c->n_top && i < k; i++)
    out[(*n_out)++] = tsl_trace_copy(c->top[i]);
  return TSL_OK;
}

static void measure(core *c, const tsl_trace *t) {
  if (c->n_measured < 256)
    c->measured[c->n_measured++] = tsl_trace_decisions_key(t);
}

/* ---- a cost model that likes large innermost tiles ----------------------------- */

struct tsl_cost_model {
  uint32_t calls, cands, no_module;
  char **look_for; /* keys to find among the first call's candidates */
  uint32_t n_look_for, found;
  int noise; /* `ranks` says 0: the scores carry nothing yet */
};

/* The product of the last factors of the trace's sample_perfect_tile
 * decisions (from its decisions key). */
static double innermost_product(const tsl_trace *t) {
  char *key = tsl_trace_decisions_key(t);
  json_t *j = key ? json_loadb(key, tsl_key_decisions_len(key), 0, NULL) : NULL;
  double p = 1;
  size_t i;
  json_t *e;
  json_array_foreach(j, i, e) {
    json_t *dec = json_array_get(e, 1);
    if (json_is_array(dec) && json_array_size(dec) > 1)
      p *= (double)json_integer_value(json_array_get(dec, json_array_size(dec) - 1));
  }
  json_decref(j);
  free(key);
  return p;
}

static int tm_predict(tsl_cost_model *m, uint32_t n, const tsl_candidate *cands,
                      double *scores, tsl_diag *diag) {
  (void)diag;
  m->calls++;
  for (uint32_t i = 0; i < n; i++) {
    m->cands++;
    m->no_module += !cands[i].scheduled;
    scores[i] = innermost_product(cands[i].trace);
    if (m->calls == 1 && m->n_look_for) {
      char *key = tsl_trace_decisions_key(cands[i].trace);
      for (uint32_t k = 0; key && k < m->n_look_for; k++)
        m->found += !strcmp(key, m->look_for[k]);
      free(key);
    }
  }
  return TSL_OK;
}

static int32_t tm_ranks(const tsl_cost_model *m) { return !m->noise; }

static const tsl_cost_model_vtable tiles_model = {
    .struct_size = sizeof tiles_model, .predict = tm_predict, .ranks = tm_ranks};

/* ---- the space ------------------------------------------------------------------- */

static tsl_trace **sketches;
static uint32_t n_sketches;
static tsl_space_postproc *pps;
static uint32_t n_pps;
static tsl_space_mutator *mutators;
static uint32_t n_mutators;
static const tsl_module *mod;

static void build_space(void) {
  tsl_diag d = {0};
  tsl_space_rule *rules = NULL;
  uint32_t n_rules = 0;
  if (tsl_parse(arena, "matmul32.py", matmul32, strlen(matmul32), &mod, &d) ||
      tsl_space_default_rules(reg, &target, &rules, &n_rules, &d) ||
      tsl_space_generate(ctx, mod, "main", n_rules, rules, 0, NULL, &sketches, &n_sketches,
                         &d) ||
      tsl_space_default_postprocs(reg, &target, &pps, &n_pps, &d) ||
      tsl_space_default_mutators(reg, &target, &mutators, &n_mutators, &d)) {
    printf("Bail out! space: %s\n", d.text);
    exit(1);
  }
  tsl_space_rules_free(rules, n_rules);
}

static tsl_search_space make_space(core *c, tsl_cost_model *model, int64_t trials,
                                   int32_t batch, uint64_t seed) {
  tsl_search_space sp = {
      .struct_size = sizeof sp,
      .ctx = ctx,
      .mod = mod,
      .func_name = "main",
      .n_space = n_sketches,
      .space = (const tsl_trace *const *)sketches,
      .trials = trials,
      .batch = batch,
      .seed = seed,
      .target = "llvm",
      .is_measured = is_measured,
      .core_data = c,
      .cost_vtable = model ? &tiles_model : NULL,
      .cost_model = model,
      .n_postprocs = n_pps,
      .postprocs = pps,
      .n_mutators = n_mutators,
      .mutators = mutators,
      .top_measured = top_measured,
  };
  return sp;
}

/* A small, quick configuration (TVM's defaults but the sizes). */
static tsl_strategy *create_small(double eps) {
  char e[32];
  snprintf(e, sizeof e, "%g", eps);
  tsl_kv kv[] = {{"population_size", "48"}, {"init_min_unmeasured", "16"},
                 {"genetic_num_iters", "3"}, {"init_measured_ratio", "0.25"},
                 {"eps_greedy", e}};
  tsl_strategy *s = NULL;
  tsl_diag d = {0};
  if (vt->create(NULL, 5, kv, &s, &d)) {
    printf("Bail out! create: %s\n", d.text);
    exit(1);
  }
  return s;
}

/* ---- options ------------------------------------------------------------------- */

static void test_options(void) {
  tsl_strategy *s = NULL;
  tsl_diag d = {0};
  ok(vt->create(NULL, 0, NULL, &s, &d) == TSL_OK && s, "defaults: created");
  vt->destroy(s);
  static const struct {
    const char *key, *value, *says;
  } bad[] = {
      {"population_size", "0", "population_size: '0' is not valid; valid: an integer from 1"},
      {"population_size", "12x", "population_size: '12x'"},
      {"init_measured_ratio", "1.5", "init_measured_ratio: '1.5' is not valid; valid: a number from 0 to 1"},
      {"genetic_mutate_prob", "-0.1", "genetic_mutate_prob: '-0.1'"},
      {"eps_greedy", "nan", "eps_greedy: 'nan'"},
      {"init_min_unmeasured", "", "init_min_unmeasured: ''"},
      {"max_fail_count", "0", "max_fail_count: '0'"},
      {"genetic_num_iters", "-1", "genetic_num_iters: '-1'"},
      {"genetic_max_fail_count", "x", "genetic_max_fail_count: 'x'"},
      {"crossover_ratio", "2", "crossover_ratio: '2' is not valid; valid: a number from 0 to 1"},
      {"diversity_filter_ratio", "0", "diversity_filter_ratio: '0' is not valid; valid: an integer from 1 to 64"},
      {"blind_first_batch", "2", "blind_first_batch: '2' is not valid; valid: an integer from 0 to 1"},
      {"diversity_filter_ratio", "1.5", "diversity_filter_ratio: '1.5'"},
      {"diversity_filter_ratio", "65", "diversity_filter_ratio: '65'"},
      {"populaton_size", "4", "unknown option 'populaton_size'; valid: population_size, "
                              "init_measured_ratio, init_min_unmeasured, max_fail_count, "
                              "genetic_num_iters, genetic_mutate_prob, genetic_max_fail_count, "
                              "eps_greedy, crossover_ratio, diversity_filter_ratio"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tsl_kv kv = {bad[i].key, bad[i].value};
    s = NULL;
    int rc = vt->create(NULL, 1, &kv, &s, &d);
    ok(rc == TSL_EINVALID && !s && has(&d, bad[i].says), "refused: %s: '%s'", bad[i].key,
       bad[i].value);
  }
  tsl_kv good[] = {{"population_size", "8"},     {"init_measured_ratio", "0"},
                   {"init_min_unmeasured", "4"}, {"max_fail_count", "2"},
                   {"genetic_num_iters", "0"},   {"genetic_mutate_prob", "1"},
                   {"genetic_max_fail_count", "0"}, {"eps_greedy", "1"},
                   {"crossover_ratio", "1"}, {"diversity_filter_ratio", "64"}};
  s = NULL;
  ok(vt->create(NULL, 10, good, &s, &d) == TSL_OK && s, "every option at an end of its range");
  core c = {0};
  tsl_search_space sp = make_space(&c, NULL, 4, 4, 1);
  sp.struct_size = offsetof(tsl_search_space, n_postprocs);
  ok(vt->pre_tuning(s, &sp, &d) == TSL_EINVALID && has(&d, "too old search space"),
     "pre_tuning: a search space without the appended fields is refused");
  sp = make_space(&c, NULL, 4, 4, 1);
  sp.struct_size = offsetof(tsl_search_space, rule_target);
  d.text[0] = 0;
  ok(vt->pre_tuning(s, &sp, &d) == TSL_OK,
     "pre_tuning: a core of ABI 1.11 (no rule_target) is served %s", d.text);
  vt->post_tuning(s);
  sp = make_space(&c, NULL, 4, 0, 1);
  ok(vt->pre_tuning(s, &sp, &d) == TSL_EINVALID && has(&d, "batch 0; valid: > 0"),
     "pre_tuning: batch 0 refused");
  sp = make_space(&c, NULL, 4, 4, 1);
  sp.n_space = 0;
  ok(vt->pre_tuning(s, &sp, &d) == TSL_EINVALID && has(&d, "design space is empty"),
     "pre_tuning: an empty space refused");
  tsl_trace *out[4];
  uint32_t n = 9;
  ok(gen_traces(vt, s, 4, out, &n, &d) == TSL_EINVALID && n == 0 &&
         has(&d, "before pre_tuning"),
     "generate before pre_tuning refused");
  vt->destroy(s);
}

/* ---- candidates ------------------------------------------------------------------ */

/* Every candidate of one generate call; its keys (heap) in keys. */
static uint32_t generate(tsl_strategy *s, uint32_t max, tsl_trace **out, char **keys) {
  uint32_t n = 0;
  tsl_diag d = {0};
  if (gen_traces(vt, s, max, out, &n, &d)) {
    tap_diag("generate: %s", d.text);
    return 0;
  }
  for (uint32_t i = 0; i < n; i++)
    keys[i] = tsl_trace_decisions_key(out[i]);
  return n;
}

static int replays_and_postprocesses(const tsl_trace *t) {
  tsl_replay_opts ro = {sizeof ro, 0, 0, "main", NULL};
  tsl_schedule *sch = NULL;
  tsl_diag d = {0};
  int r = tsl_trace_replay(ctx, t, mod, &ro, &sch, &d) == TSL_OK &&
          tsl_space_apply_postprocs(sch, n_pps, pps, &d) == TSL_OK;
  if (!r)
    tap_diag("candidate: %s", d.text);
  tsl_schedule_free(sch);
  return r;
}

static int has_postproc(const tsl_trace *t) {
  tsl_trace *pre = tsl_trace_before_postproc(t);
  int r = tsl_trace_len(pre) != tsl_trace_len(t);
  tsl_trace_free(pre);
  return r;
}

static void test_candidates(void) {
  core c = {0};
  tsl_strategy *s = create_small(0.05);
  tsl_search_space sp = make_space(&c, NULL, 24, 8, 7);
  tsl_diag d = {0};
  ok(vt->pre_tuning(s, &sp, &d) == TSL_OK, "pre_tuning");
  tsl_trace *out[3][8];
  char *keys[3][8];
  uint32_t n[3];
  int distinct = 1, valid = 1, sketch_form = 1, not_measured = 1;
  for (int b = 0; b < 3; b++) {
    n[b] = generate(s, 8, out[b], keys[b]);
    for (uint32_t i = 0; i < n[b]; i++) {
      valid &= replays_and_postprocesses(out[b][i]);
      sketch_form &= !has_postproc(out[b][i]);
      not_measured &= !is_measured(&c, out[b][i]);
      for (int b2 = 0; b2 <= b; b2++)
        for (uint32_t j = 0; j < (b2 == b ? i : n[b2]); j++)
          distinct &= strcmp(keys[b][i], keys[b2][j]) != 0;
    }
    for (uint32_t i = 0; i < n[b]; i++) /* the core measures the batch */
      measure(&c, out[b][i]);
  }
  ok(n[0] == 8 && n[1] == 8 && n[2] == 8, "three batches of 8 (got %u, %u, %u)", n[0], n[1],
     n[2]);
  ok(distinct, "24 distinct decisions");
  ok(valid, "each replays and passes the postprocessors");
  ok(sketch_form, "each is returned before postprocessing (no enter_postproc)");
  ok(not_measured, "none was measured when proposed");
  uint32_t more = 9;
  ok(gen_traces(vt, s, 8, out[0], &more, &d) == TSL_OK && more == 0,
     "the trial budget (24) spent: nothing more");
  is_int(c.top_calls, 3, "the database's best asked for once per batch");
  is_int(c.top_k, 12, "  ... population 48 x init_measured_ratio 0.25 = 12 of them");

  /* the same seed gives the same candidates */
  core c2 = {0};
  tsl_strategy *s2 = create_small(0.05);
  tsl_search_space sp2 = make_space(&c2, NULL, 24, 8, 7);
  vt->pre_tuning(s2, &sp2, &d);
  tsl_trace *again[8];
  char *akeys[8];
  uint32_t na = generate(s2, 8, again, akeys);
  int same = na == n[0];
  for (uint32_t i = 0; same && i < na; i++)
    same = strcmp(akeys[i], keys[0][i]) == 0;
  ok(same, "equal seeds: equal first batches");
  tsl_search_space sp3 = make_space(&c2, NULL, 24, 8, 8);
  vt->post_tuning(s2);
  vt->pre_tuning(s2, &sp3, &d);
  tsl_trace *other[8];
  char *okeys[8];
  uint32_t no = generate(s2, 8, other, okeys);
  int differs = no != n[0];
  for (uint32_t i = 0; !differs && i < no; i++)
    differs = strcmp(okeys[i], keys[0][i]) != 0;
  ok(differs, "another seed: another first batch");
  for (uint32_t i = 0; i < na; i++) {
    tsl_trace_free(again[i]);
    free(akeys[i]);
  }
  for (uint32_t i = 0; i < no; i++) {
    tsl_trace_free(other[i]);
    free(okeys[i]);
  }
  vt->destroy(s2);
  for (int b = 0; b < 3; b++)
    for (uint32_t i = 0; i < n[b]; i++) {
      tsl_trace_free(out[b][i]);
      free(keys[b][i]);
    }
  for (uint32_t i = 0; i < c.n_measured; i++)
    free(c.measured[i]);
  for (uint32_t i = 0; i < c2.n_measured; i++)
    free(c2.measured[i]);
  vt->destroy(s);
}

/* The mean predicted score of one batch of 8 (eps_greedy 0: all from the
 * evolution's heap), searched with the model or without one. */
static double batch_score(struct tsl_cost_model *model, uint32_t *n_out) {
  core c = {0};
  tsl_strategy *s = create_small(0);
  tsl_search_space sp = make_space(&c, model, 8, 8, 11);
  tsl_diag d = {0};
  vt->pre_tuning(s, &sp, &d);
  tsl_trace *out[8];
  char *keys[8];
  uint32_t n = generate(s, 8, out, keys);
  double mean = 0;
  for (uint32_t i = 0; i < n; i++) {
    mean += innermost_product(out[i]) / n;
    tsl_trace_free(out[i]);
    free(keys[i]);
  }
  vt->destroy(s);
  *n_out = n;
  return mean;
}

/* The model's favourites win: the batch it steers scores far above the
 * batch of the same search without a model (every member scores 1). */
static void test_cost_model_guides(void) {
  struct tsl_cost_model model = {0};
  uint32_t n = 0, n0 = 0;
  double guided = batch_score(&model, &n), blind = batch_score(NULL, &n0);
  ok(n == 8 && n0 == 8, "a batch of 8 with the model and one without");
  ok(model.calls == 4, "the model scored the population 4 times (genetic_num_iters 3 + 1), got %u",
     model.calls);
  ok(model.cands >= 4 * 16 && model.no_module == 0,
     "  ... %u candidates, each with its scheduled module", model.cands);
  ok(guided > 4 * blind,
     "the guided batch's predicted score (mean %.1f) is far above the blind one's (mean %.1f)",
     guided, blind);
}

/* Crossover in the search (the engine linked in, for its counts): with
 * mutation off and crossover_ratio 1, the evolution's new members are
 * crossover children, and the batch's picks are valid candidates. */
static void test_crossover_in_search(void) {
  tsl_kv kv[] = {{"population_size", "48"}, {"init_min_unmeasured", "16"},
                 {"genetic_num_iters", "3"}, {"genetic_mutate_prob", "0"},
                 {"crossover_ratio", "1"},   {"eps_greedy", "0"}};
  tsl_strategy *s = NULL;
  tsl_diag d = {0};
  struct tsl_cost_model model = {0};
  core c = {0};
  tsl_search_space sp = make_space(&c, &model, 8, 8, 11);
  int rc = evo_vtable.create(NULL, 6, kv, &s, &d);
  if (!rc)
    rc = evo_vtable.pre_tuning(s, &sp, &d);
  tsl_trace *out[8];
  uint32_t n = 0;
  if (!rc)
    rc = gen_traces(&evo_vtable, s, 8, out, &n, &d);
  ok(!rc && n == 8, "crossover only: a batch of 8 (%s)", rc ? d.text : "");
  evo_counts k;
  if (s)
    evo_get_counts(s, &k);
  ok(s && k.crossed > 0 && k.mutated == 0,
     "  ... its new members were crossover children (%lld made, %lld draws made none, "
     "%lld mutants)",
     s ? (long long)k.crossed : 0, s ? (long long)k.cross_failed : 0,
     s ? (long long)k.mutated : 0);
  int valid = 1;
  for (uint32_t i = 0; i < n; i++) {
    valid &= replays_and_postprocesses(out[i]);
    tsl_trace_free(out[i]);
  }
  ok(valid, "  ... and each pick replays and passes the postprocessors");
  evo_vtable.destroy(s);
}

/* `n` measured records for core `c`: candidates of a throwaway search
 * (seed `seed`, guided by `model` when not NULL), postprocessed as the
 * database keeps them, in c->top, and measured; their traces and keys in
 * rec[] and keys[]. */
static uint32_t seed_records(core *c, struct tsl_cost_model *model, uint32_t n, uint64_t seed,
                             tsl_trace **rec, char **keys) {
  tsl_strategy *first = create_small(0);
  tsl_search_space sp = make_space(c, model, n, n, seed);
  tsl_diag d = {0};
  vt->pre_tuning(first, &sp, &d);
  uint32_t nr = generate(first, n, rec, keys);
  vt->destroy(first);
  for (uint32_t i = 0; i < nr; i++) {
    tsl_replay_opts ro = {sizeof ro, 0, 0, "main", NULL};
    tsl_schedule *sch = NULL;
    if (tsl_trace_replay(ctx, rec[i], mod, &ro, &sch, &d) == TSL_OK &&
        tsl_space_apply_postprocs(sch, n_pps, pps, &d) == TSL_OK)
      c->top[c->n_top++] = tsl_trace_copy(tsl_schedule_trace(sch));
    tsl_schedule_free(sch);
    measure(c, rec[i]);
  }
  return nr;
}

static void free_traces(tsl_trace **t, char **keys, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    tsl_trace_free(t[i]);
    free(keys[i]);
  }
}

static void core_free(core *c) {
  for (uint32_t i = 0; i < c->n_top; i++)
    tsl_trace_free(c->top[i]);
  for (uint32_t i = 0; i < c->n_measured; i++)
    free(c->measured[i]);
}

/* A model whose scores are noise (`ranks` 0) and nothing measured: the
 * round's batch is drawn from fresh samples, nothing evolved or scored;
 * with a measured record to start from, or a model that ranks, the round
 * evolves (the model scores genetic_num_iters + 1 populations). */
static void test_blind_first_round(void) {
  struct tsl_cost_model noise = {.noise = 1}, ranks = {0};
  uint32_t n = 0, n_ranks = 0;
  double blind = batch_score(&noise, &n), guided = batch_score(&ranks, &n_ranks);
  is_int(noise.calls, 0, "a model of noise and nothing measured: the model is never asked");
  ok(n == 8, "  ... and the batch is 8 candidates (got %u)", n);
  ok(blind < guided / 4,
     "  ... drawn as the samples come (mean innermost product %.1f; ranked: %.1f)", blind,
     guided);
  is_int(ranks.calls, 4, "a model that ranks scores the population 4 times");
  /* noise again, but a measured record seeds the population: evolve */
  core c = {0};
  tsl_trace *rec[1];
  char *rkeys[1];
  uint32_t nr = seed_records(&c, NULL, 1, 31, rec, rkeys);
  struct tsl_cost_model noise2 = {.noise = 1};
  tsl_strategy *s = create_small(0);
  tsl_search_space sp = make_space(&c, &noise2, 8, 8, 32);
  tsl_diag d = {0};
  vt->pre_tuning(s, &sp, &d);
  tsl_trace *out[8];
  char *keys[8];
  uint32_t n2 = generate(s, 8, out, keys);
  ok(c.n_top == 1 && n2 == 8 && noise2.calls == 4,
     "noise with a measured record: the round evolves (%u calls, %u candidates)", noise2.calls,
     n2);
  free_traces(out, keys, n2);
  free_traces(rec, rkeys, nr);
  core_free(&c);
  vt->destroy(s);
  /* noise and nothing measured, blind_first_batch 0: evolve as TVM does */
  core c2 = {0};
  struct tsl_cost_model noise3 = {.noise = 1};
  tsl_kv kv[] = {{"population_size", "48"}, {"init_min_unmeasured", "16"},
                 {"genetic_num_iters", "3"}, {"blind_first_batch", "0"}};
  s = NULL;
  if (vt->create(NULL, 4, kv, &s, &d)) {
    printf("Bail out! create: %s\n", d.text);
    exit(1);
  }
  sp = make_space(&c2, &noise3, 8, 8, 33);
  vt->pre_tuning(s, &sp, &d);
  uint32_t n3 = generate(s, 8, out, keys);
  ok(n3 == 8 && noise3.calls == 4 && noise3.cands >= 4 * 16,
     "blind_first_batch 0, noise and nothing measured: the round evolves (%u calls, %u scored, "
     "%u candidates)", noise3.calls, noise3.cands, n3);
  free_traces(out, keys, n3);
  core_free(&c2);
  vt->destroy(s);
}

/* A resumed run: the database's fastest records join the population and,
 * measured, are never proposed again; their neighbours are. */
static void test_seeded_from_database(void) {
  core c = {0};
  struct tsl_cost_model model = {0};
  /* the "measured" records: postprocessed traces of two good candidates */
  tsl_trace *best[2];
  char *bkeys[2];
  uint32_t nb = seed_records(&c, &model, 2, 21, best, bkeys);
  is_int(c.n_top, 2, "two measured records (postprocessed, as the database keeps them)");
  /* no fresh samples survive: only the measured records can seed the
   * population, through mutation */
  tsl_kv kv[] = {{"population_size", "24"}, {"init_min_unmeasured", "1"},
                 {"genetic_num_iters", "2"}, {"init_measured_ratio", "0.5"},
                 {"eps_greedy", "0"}, {"genetic_mutate_prob", "1"}};
  tsl_strategy *s = NULL;
  tsl_diag d = {0};
  vt->create(NULL, 6, kv, &s, &d);
  struct tsl_cost_model seeded = {0, 0, 0, bkeys, nb, 0, 0};
  tsl_search_space sp2 = make_space(&c, &seeded, 8, 8, 22);
  vt->pre_tuning(s, &sp2, &d);
  tsl_trace *out[8];
  char *keys[8];
  uint32_t n = generate(s, 8, out, keys);
  int fresh = 1;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < nb; k++)
      fresh &= strcmp(keys[i], bkeys[k]) != 0;
  is_int(seeded.found, 2, "a resumed run's first population holds the two measured records");
  ok(n == 8 && fresh, "  ... and proposes 8 new candidates, not the measured ones");
  is_int(c.top_k, 12, "  ... after asking for population 24 x 0.5 = 12 records");
  free_traces(out, keys, n);
  free_traces(best, bkeys, nb);
  core_free(&c);
  vt->destroy(s);
}

/* A space of one program: one candidate, then the search ends. */
static void test_exhausted(void) {
  tsl_schedule *sch = NULL;
  tsl_diag d = {0};
  tsl_schedule_opts so = {.struct_size = sizeof so};
  const char *script = "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\n"
                       "sch.reorder(j, i)\n";
  if (tsl_schedule_new(ctx, mod, &so, &sch, &d) ||
      tsl_script_run(sch, "one.sch", script, strlen(script), &d)) {
    printf("Bail out! script: %s\n", d.text);
    exit(1);
  }
  tsl_trace *one = tsl_trace_copy(tsl_schedule_trace(sch));
  tsl_schedule_free(sch);
  core c = {0};
  tsl_strategy *s = create_small(0.05);
  tsl_search_space sp = make_space(&c, NULL, 16, 8, 3);
  sp.n_space = 1;
  sp.space = (const tsl_trace *const *)&one;
  sp.n_postprocs = 0;
  vt->pre_tuning(s, &sp, &d);
  tsl_trace *out[8];
  char *keys[8];
  uint32_t n1 = generate(s, 8, out, keys);
  for (uint32_t i = 0; i < n1; i++) {
    measure(&c, out[i]);
    tsl_trace_free(out[i]);
    free(keys[i]);
  }
  uint32_t n2 = generate(s, 8, out, keys);
  is_int(n1, 1, "a space without choices: one candidate");
  is_int(n2, 0, "  ... then nothing (the run ends)");
  for (uint32_t i = 0; i < c.n_measured; i++)
    free(c.measured[i]);
  tsl_trace_free(one);
  vt->destroy(s);
}


/* ---- the diversity filter ---------------------------------------------------------- */

/* The greedy order on keys written out (diverse.h): each pick brings the
 * most (instruction, decision) pairs new to the picks before it, ties to
 * the better score; another sketch's digest makes every pair new. */
static void test_diverse_order(void) {
  const char *keys[] = {"[[1,[4,8]],[3,2]]@aa", "[[1,[4,8]],[3,3]]@aa", "[[1,[2,16]],[3,2]]@aa",
                        "[[1,[2,16]],[3,5]]@aa", "[[1,[4,8]],[3,2]]@bb"};
  uint32_t order[5];
  int rc = evo_diverse_order(keys, 5, 3, order);
  ok(rc == 0 && order[0] == 0 && order[1] == 3 &&
         order[2] == 4 && order[3] == 1 && order[4] == 2,
     "diverse order: the best, then the one with two new decisions, then the other sketch's, "
     "then the rest best first: %u %u %u %u %u", order[0], order[1], order[2], order[3],
     order[4]);
  ok(evo_diverse_order(keys, 5, 0, order) == 0 && order[0] == 0 && order[1] == 1 &&
         order[4] == 4,
     "  ... no picks: best first, as TVM picks");
  const char *odd[] = {NULL, "not a key", "[[2,7]]@aa", "[]@aa"};
  rc = evo_diverse_order(odd, 4, 4, order);
  ok(rc == 0 && order[0] == 2 && order[1] == 0 &&
         order[2] == 1 && order[3] == 3,
     "  ... a NULL, a malformed and an empty key bring nothing: %u %u %u %u", order[0],
     order[1], order[2], order[3]);
}

/* Distinct (instruction, decision) pairs among a batch's keys. */
static uint32_t distinct_pairs(char **keys, uint32_t n) {
  json_t *seen = json_object();
  for (uint32_t i = 0; i < n; i++) {
    json_t *j = json_loadb(keys[i], tsl_key_decisions_len(keys[i]), 0, NULL);
    size_t k;
    json_t *e;
    json_array_foreach(j, k, e) {
      char *text = json_dumps(e, JSON_COMPACT);
      if (text)
        json_object_set_new(seen, text, json_true());
      free(text);
    }
    json_decref(j);
  }
  uint32_t n_pairs = (uint32_t)json_object_size(seen);
  json_decref(seen);
  return n_pairs;
}

/* A batch of 8 guided by the model after 8 measured records, with the
 * diversity filter at `ratio` (1: TVM's picks); its distinct pairs. */
static uint32_t guided_batch_pairs(const char *ratio, uint32_t *n_out, int *valid) {
  tsl_kv kv[] = {{"population_size", "48"}, {"init_min_unmeasured", "16"},
                 {"genetic_num_iters", "3"}, {"init_measured_ratio", "0.25"},
                 {"eps_greedy", "0"}, {"diversity_filter_ratio", ratio}};
  struct tsl_cost_model model = {0};
  core c = {0};
  tsl_trace *rec[8];
  char *rkeys[8];
  uint32_t n_rec = seed_records(&c, &model, 8, 5, rec, rkeys);
  tsl_strategy *s = NULL;
  tsl_diag d = {0};
  tsl_search_space sp = make_space(&c, &model, 8, 8, 13);
  int rc = vt->create(NULL, 6, kv, &s, &d);
  if (!rc)
    rc = vt->pre_tuning(s, &sp, &d);
  tsl_trace *out[8];
  char *keys[8];
  uint32_t n = rc ? 0 : generate(s, 8, out, keys);
  if (rc)
    tap_diag("diversity_filter_ratio %s: %s", ratio, d.text);
  *valid = 1;
  for (uint32_t i = 0; i < n; i++) {
    *valid &= replays_and_postprocesses(out[i]) && !is_measured(&c, out[i]);
    tsl_trace_free(out[i]);
  }
  uint32_t pairs = distinct_pairs(keys, n);
  for (uint32_t i = 0; i < n; i++)
    free(keys[i]);
  free_traces(rec, rkeys, n_rec);
  core_free(&c);
  vt->destroy(s);
  *n_out = n;
  return pairs;
}

/* The model's favourites of one search are near copies of each other (the
 * test model rewards a large innermost tile); a filter of ratio 4 picks a
 * batch that covers more decisions, still unmeasured and valid. */
static void test_diverse_batch(void) {
  uint32_t n1 = 0, n4 = 0;
  int valid1 = 0, valid4 = 0;
  uint32_t tvm = guided_batch_pairs("1", &n1, &valid1),
           diverse = guided_batch_pairs("4", &n4, &valid4);
  ok(n1 == 8 && n4 == 8 && valid1 && valid4,
     "a guided batch of 8 with and without the diversity filter, each pick unmeasured and valid");
  ok(diverse > tvm, "  ... the filter's batch covers more decisions: %u distinct against %u",
     diverse, tvm);
}

int main(void) {
  ctx = tsl_ctx_new();
  arena = tsl_arena_new(ctx);
  reg = load_registry(ctx);
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const tsl_component *comp = tsl_registry_get(reg, k);
    if (comp->kind == TSL_COMPONENT_STRATEGY && !strcmp(comp->name, "evolutionary"))
      vt = comp->vtable;
  }
  if (!vt) {
    printf("Bail out! no strategy 'evolutionary' in the build tree\n");
    return 1;
  }
  build_space();
  test_options();
  test_candidates();
  test_cost_model_guides();
  test_crossover_in_search();
  test_blind_first_round();
  test_seeded_from_database();
  test_diverse_order();
  test_diverse_batch();
  test_exhausted();
  for (uint32_t i = 0; i < n_sketches; i++)
    tsl_trace_free(sketches[i]);
  free(sketches);
  tsl_space_postprocs_free(pps, n_pps);
  tsl_space_mutators_free(mutators, n_mutators);
  tsl_registry_free(reg);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
