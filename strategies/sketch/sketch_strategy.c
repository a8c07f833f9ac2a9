/*
 * strategies/sketch/sketch_strategy.c — the "sketch" strategy: Ansor's
 * search. At pre_tuning it derives its own design space from the workload
 * (sk_generate: Ansor's CPU sketch rules and random annotation) and runs
 * the evolutionary engine (strategies/evolutionary, which is Ansor's
 * evolutionary search as MetaSchedule ported it) over that space with
 * Ansor's parameters. The core's candidate service, postprocessors,
 * mutators, cost model and database serve it as they serve every strategy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evolutionary.h"
#include "sketch.h"
#include "sketch_strategy.h"

/* The instance (tsl_strategy stays the engine's type in this plugin). */
typedef struct sketch_strategy {
  tsl_strategy *engine;
  sk_ctx ctx;
  int64_t max_sketches;
  tsl_search_space space; /* the core's, with the sketches as its design space */
  tsl_trace **sketches;
  uint32_t n_sketches;
} sketch_strategy;

/* Ansor's option names and defaults (SketchPolicy's params), each with
 * the engine's option it sets, or NULL for the sketch's own. */
typedef struct sk_option {
  const char *key, *fallback, *engine_key;
  int is_prob;
  int64_t lo, hi;
} sk_option;

static const sk_option options[] = {
    {"evolutionary_search_population", "2048", "population_size", 0, 1, 1 << 20},
    {"evolutionary_search_num_iters", "4", "genetic_num_iters", 0, 0, 1 << 16},
    {"evolutionary_search_mutation_prob", "0.85", "genetic_mutate_prob", 1, 0, 1},
    {"evolutionary_search_crossover_ratio", "0", "crossover_ratio", 1, 0, 1},
    {"eps_greedy", "0.05", "eps_greedy", 1, 0, 1},
    {"diversity_filter_ratio", "1", "diversity_filter_ratio", 0, 1, 64}, /* not Ansor's */
    {"sample_init_min_population", "50", "init_min_unmeasured", 0, 1, 1 << 20},
    {"sample_init_use_measured_ratio", "0.2", "init_measured_ratio", 1, 0, 1},
    {"max_vectorize_size", "16", NULL, 0, 1, 1 << 16},
    {"disable_change_compute_location", "0", NULL, 0, 0, 1},
    {"max_sketches", "64", NULL, 0, 1, 1 << 16},
};
enum {
  N_OPTIONS = sizeof options / sizeof options[0],
  /* the sketch's own options, by their place in `options` */
  OPT_MAX_VECTORIZE_SIZE = N_OPTIONS - 3,
  OPT_DISABLE_CHANGE_COMPUTE_LOCATION = N_OPTIONS - 2,
  OPT_MAX_SKETCHES = N_OPTIONS - 1
};

#define SK_OPTION_NAMES                                                                  \
  "evolutionary_search_population, evolutionary_search_num_iters, "                     \
  "evolutionary_search_mutation_prob, evolutionary_search_crossover_ratio, eps_greedy, "  \
  "diversity_filter_ratio, sample_init_min_population, "                               \
  "sample_init_use_measured_ratio, max_vectorize_size, disable_change_compute_location, " \
  "max_sketches"

static int check_option(const sk_option *o, const char *text, int64_t *iv, tsl_diag *diag) {
  char *end = NULL;
  errno = 0;
  if (o->is_prob) {
    double v = text ? strtod(text, &end) : 0;
    if (text && *text && !*end && !errno && v >= 0 && v <= 1)
      return TSL_OK;
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'sketch': %s: '%s' is not valid; valid: a number from 0 to 1",
                        o->key, text ? text : "(null)");
  }
  long long v = text ? strtoll(text, &end, 10) : 0;
  if (text && *text && !*end && !errno && v >= o->lo && v <= o->hi) {
    *iv = v;
    return TSL_OK;
  }
  return tsl_diag_set(diag, TSL_EINVALID,
                      "strategy 'sketch': %s: '%s' is not valid; valid: an integer from %lld "
                      "to %lld",
                      o->key, text ? text : "(null)", (long long)o->lo, (long long)o->hi);
}

static int sk_create(void *user_data, uint32_t n_opts, const tsl_kv *opts, tsl_strategy **out,
                     tsl_diag *diag) {
  (void)user_data;
  *out = NULL;
  const char *value[N_OPTIONS];
  for (uint32_t k = 0; k < N_OPTIONS; k++)
    value[k] = options[k].fallback;
  for (uint32_t i = 0; i < n_opts; i++) {
    const char *key = opts[i].key ? opts[i].key : "(null)";
    uint32_t k = 0;
    while (k < N_OPTIONS && strcmp(options[k].key, key))
      k++;
    if (k == N_OPTIONS)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "strategy 'sketch': unknown option '%s'; valid: " SK_OPTION_NAMES, key);
    value[k] = opts[i].value;
  }
  int64_t iv[N_OPTIONS] = {0};
  tsl_kv engine_opts[N_OPTIONS];
  uint32_t n_engine = 0;
  for (uint32_t k = 0; k < N_OPTIONS; k++) {
    int rc = check_option(&options[k], value[k], &iv[k], diag);
    if (rc)
      return rc;
    if (options[k].engine_key)
      engine_opts[n_engine++] = (tsl_kv){options[k].engine_key, value[k]};
  }
  sketch_strategy *s = calloc(1, sizeof *s);
  if (!s)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy 'sketch': out of memory");
  s->ctx.max_vectorize_size = (int32_t)iv[OPT_MAX_VECTORIZE_SIZE];
  s->ctx.disable_change_compute_location = (int32_t)iv[OPT_DISABLE_CHANGE_COMPUTE_LOCATION];
  s->max_sketches = iv[OPT_MAX_SKETCHES];
  int rc = evo_vtable.create((void *)"sketch", n_engine, engine_opts, &s->engine, diag);
  if (rc) {
    free(s);
    return rc;
  }
  *out = (tsl_strategy *)s;
  return TSL_OK;
}

static void free_sketches(sketch_strategy *s) {
  for (uint32_t i = 0; i < s->n_sketches; i++)
    tsl_trace_free(s->sketches[i]);
  free(s->sketches);
  s->sketches = NULL;
  s->n_sketches = 0;
}

static void sk_post_tuning(tsl_strategy *st) {
  sketch_strategy *s = (sketch_strategy *)st;
  if (!s)
    return;
  evo_vtable.post_tuning(s->engine);
  free_sketches(s);
}

static void sk_destroy(tsl_strategy *st) {
  sketch_strategy *s = (sketch_strategy *)st;
  if (!s)
    return;
  evo_vtable.destroy(s->engine); /* its post_tuning first */
  free_sketches(s);
  free(s);
}

static int sk_pre_tuning(tsl_strategy *st, const tsl_search_space *space, tsl_diag *diag) {
  sketch_strategy *s = (sketch_strategy *)st;
  if (!space || space->struct_size < sizeof(tsl_search_space) || !space->ctx || !space->mod)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'sketch': pre_tuning: missing or too old search space "
                        "(struct_size %u; this strategy needs %zu: the target as rules see it)",
                        space ? space->struct_size : 0, sizeof(tsl_search_space));
  const tsl_rule_target *t = tsl_search_space_rule_target(space);
  if (!t || !t->kind || !strcmp(t->kind, "cuda"))
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "strategy 'sketch': target '%s': Ansor's CPU sketch rules need a CPU "
                        "target; valid: llvm, or a CPU target of its kind",
                        t && t->kind ? t->kind : "(unknown)");
  int pvu = 0;
  for (uint32_t i = 0; i < space->n_postprocs; i++)
    pvu |= space->postprocs[i].name &&
           !strcmp(space->postprocs[i].name, "RewriteParallelVectorizeUnroll");
  if (!pvu)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "strategy 'sketch': the run has no RewriteParallelVectorizeUnroll "
                        "postprocessor, which turns the sketches' parallel, vectorize and unroll "
                        "annotations into loops; the sketch strategy derives its own space from "
                        "the target's defaults: leave space.schedule out");
  sk_post_tuning(st);
  s->ctx.num_cores = t->num_cores > 0 ? t->num_cores : 1;
  int rc = sk_generate(space->ctx, space->mod, space->func_name, &s->ctx, space->intrins,
                       space->seed, (uint32_t)s->max_sketches, &s->sketches, &s->n_sketches,
                       diag);
  if (!rc && !s->n_sketches)
    rc = tsl_diag_set(diag, TSL_EINVALID, "strategy 'sketch': function '%s' gave no sketch",
                      space->func_name ? space->func_name : "(default)");
  if (rc)
    return rc;
  s->space = *space;
  s->space.struct_size = sizeof s->space; /* a newer core's struct is larger */
  s->space.n_space = s->n_sketches;
  s->space.space = (const tsl_trace *const *)s->sketches;
  return evo_vtable.pre_tuning(s->engine, &s->space, diag);
}

static int sk_generate_traces(tsl_strategy *st, uint32_t max, tsl_trace **out, uint32_t *n_out,
                              tsl_diag *diag) {
  return evo_vtable.generate(((sketch_strategy *)st)->engine, max, out, n_out, diag);
}

static int sk_generate_cands(tsl_strategy *st, uint32_t max, struct tsl_cand **out,
                             uint32_t *n_out, tsl_diag *diag) {
  return evo_vtable.generate_cands(((sketch_strategy *)st)->engine, max, out, n_out, diag);
}

static int sk_notify(tsl_strategy *st, uint32_t n, const tsl_measured *results,
                     tsl_diag *diag) {
  return evo_vtable.notify(((sketch_strategy *)st)->engine, n, results, diag);
}

const tsl_strategy_vtable sketch_vtable = {
    .struct_size = sizeof(tsl_strategy_vtable),
    .create = sk_create,
    .destroy = sk_destroy,
    .pre_tuning = sk_pre_tuning,
    .generate = sk_generate_traces,
    .notify = sk_notify,
    .post_tuning = sk_post_tuning,
    .generate_cands = sk_generate_cands,
};
