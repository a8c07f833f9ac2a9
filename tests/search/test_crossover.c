/*
 * Node-based crossover (strategies/evolutionary/crossover.h) on the first
 * of Ansor's sketches of the NHWC conv2d (workloads/conv2d_nhwc.py): its
 * genes are the seven tile sizes of the conv block, the padding block's
 * compute location, the root's parallel annotation and the unroll step.
 *   refused   identical parents, parents of two sketches, parents whose
 *             genes differ in one node only
 *   nodes     every child takes each node's genes whole from one parent
 *             (the seven tile sizes of the conv block together), differs
 *             from both parents, and its share of a node follows p_a
 *   sound     children replay and compute what the program computes
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crossover.h"
#include "equiv_orders.h"
#include "sketch.h"

static tsl_ctx *ctx;
static const tsl_module *mod;

/* The sketch replayed with fresh decisions from `seed`: its trace (a copy). */
static tsl_trace *sample(const tsl_trace *sketch, uint64_t seed) {
  tsl_replay_opts ro = {sizeof ro, 1, seed, NULL, NULL};
  tsl_schedule *s = NULL;
  tsl_diag d = {0};
  if (tsl_trace_replay(ctx, sketch, mod, &ro, &s, &d)) {
    tap_diag("replay: %s", d.text);
    return NULL;
  }
  tsl_trace *t = tsl_trace_copy(tsl_schedule_trace(s));
  tsl_schedule_free(s);
  return t;
}

/* The gene groups of the sketch, by instruction: 0 none, else a node. */
enum { NONE, TILES, LOCATION, UNROLL, PARALLEL, N_NODES };
static const char *node_name[N_NODES] = {"", "tiles", "location", "unroll", "parallel"};

static int node_of(const tsl_trace_inst *in) {
  const char *k = in->kind->name;
  if (!strcmp(k, "sample_perfect_tile"))
    return TILES;
  if (!strcmp(k, "sample_compute_location"))
    return LOCATION;
  if (!strcmp(k, "sample_categorical"))
    return UNROLL;
  if (!strcmp(k, "annotate") && in->args[2].kind == TSL_SV_INT &&
      !strcmp(in->args[1].u.s, "meta_schedule.parallel"))
    return PARALLEL;
  return NONE;
}

static const tsl_sch_value *gene(const tsl_trace_inst *in) {
  return in->kind->is_sample ? &in->decision : &in->args[2];
}

/* Per node of `c`: 1 every gene from `a`, 2 every gene from `b`, 3 both
 * (the parents agree there), 0 mixed or from neither. */
static void origins(const tsl_trace *c, const tsl_trace *a, const tsl_trace *b,
                    int from[N_NODES]) {
  for (int n = 1; n < N_NODES; n++)
    from[n] = 3;
  for (uint32_t i = 0; i < tsl_trace_len(c); i++) {
    const tsl_trace_inst *ic = tsl_trace_get(c, i);
    int n = node_of(ic);
    if (n == NONE)
      continue;
    int mask = (tsl_sv_equal(gene(ic), gene(tsl_trace_get(a, i))) ? 1 : 0) |
               (tsl_sv_equal(gene(ic), gene(tsl_trace_get(b, i))) ? 2 : 0);
    from[n] &= mask;
  }
}

/* Whether the parents differ in every node. */
static int differ_everywhere(const tsl_trace *a, const tsl_trace *b) {
  int from[N_NODES];
  origins(a, a, b, from);
  for (int n = 1; n < N_NODES; n++)
    if (from[n] != 1)
      return 0;
  return 1;
}

static int sound(const tsl_trace *t, uint64_t seed, char *why, size_t cap) {
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  tsl_schedule *s = NULL;
  tsl_diag d = {0};
  if (tsl_trace_replay(ctx, t, mod, &ro, &s, &d)) {
    snprintf(why, cap, "replay: %.1000s", d.text);
    return 0;
  }
  tsl_equiv_report rep;
  tsl_interp_opts io = {sizeof io, equiv_orders(), seed};
  int rc = tsl_interp_check_equivalent_opts(tsl_schedule_original(s)->funcs[0],
                                            tsl_schedule_func(s), NULL, 0, seed, &io, &rep, &d);
  if (rc)
    snprintf(why, cap, "interpreter: %.1000s", d.text);
  tsl_schedule_free(s);
  return !rc;
}

/* The parallel annotation's value set to `v` (a copy of `t` changed). */
static void set_parallel(tsl_trace *t, int64_t v) {
  for (uint32_t i = 0; i < tsl_trace_len(t); i++)
    if (node_of(tsl_trace_get(t, i)) == PARALLEL) {
      tsl_sch_value val = {TSL_SV_INT, 0, {.i = v}};
      tsl_diag d;
      tsl_trace_set_arg(t, i, 2, &val, &d);
    }
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/conv2d_nhwc.py", root ? root : ".");
  ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const sk_ctx opts = {2, 16, 0};
  tsl_trace **sk = NULL;
  uint32_t n_sk = 0;
  if (tsl_parse_file(arena, path, &mod, &d) ||
      sk_generate(ctx, mod, NULL, &opts, NULL, 0, 64, &sk, &n_sk, &d) || n_sk < 2) {
    ok(0, "conv2d_nhwc: two sketches or more (%s)", d.text);
    return tap_done();
  }
  /* two samples of sketch 1 that differ in every node */
  tsl_trace *a = sample(sk[0], 1), *b = NULL;
  for (uint64_t seed = 2; a && seed < 200 && !b; seed++) {
    b = sample(sk[0], seed);
    if (b)
      set_parallel(b, 64);
    if (b && !differ_everywhere(a, b)) {
      tsl_trace_free(b);
      b = NULL;
    }
  }
  ok(a && b, "two samples of the first sketch that differ in every node");
  if (!a || !b)
    return tap_done();
  uint64_t rng = 5;
  tsl_trace *c = NULL;

  /* refused */
  ok(evo_crossover(a, a, 0.5, &rng, &c) == 1 && !c, "identical parents do not cross");
  tsl_trace *other = sample(sk[1], 1);
  ok(other && evo_crossover(a, other, 0.5, &rng, &c) == 1 && !c,
     "samples of two sketches do not cross");
  tsl_trace_free(other);
  tsl_trace *one = tsl_trace_copy(a); /* differs from a in the parallel node only */
  set_parallel(one, 64);
  ok(evo_crossover(a, one, 0.5, &rng, &c) == 1 && !c,
     "parents that differ in one node do not cross (a child would repeat one)");
  tsl_trace_free(one);

  /* nodes */
  for (int k = 0; k < 3; k++) {
    static const double p[3] = {0.5, 0.9, 1.0};
    int draws = 400, made = 0, whole = 1, new_child = 1, from_a[N_NODES] = {0}, from_b_total = 0,
        one_from_b = 1;
    for (int i = 0; i < draws; i++) {
      if (evo_crossover(a, b, p[k], &rng, &c))
        continue;
      made++;
      int from[N_NODES], n_b = 0;
      origins(c, a, b, from);
      for (int n = 1; n < N_NODES; n++) {
        whole &= from[n] == 1 || from[n] == 2;
        from_a[n] += from[n] == 1;
        n_b += from[n] == 2;
      }
      new_child &= n_b > 0 && n_b < N_NODES - 1;
      from_b_total += n_b;
      one_from_b &= n_b == 1;
      tsl_trace_free(c);
      c = NULL;
    }
    ok(made == draws, "p_a %.1f: every draw makes a child (%d of %d)", p[k], made, draws);
    ok(whole, "p_a %.1f: each node's genes come whole from one parent", p[k]);
    ok(new_child, "p_a %.1f: every child takes a node from each parent", p[k]);
    if (k == 0) {
      int fair = 1;
      for (int n = 1; n < N_NODES; n++) {
        fair &= from_a[n] > draws * 3 / 10 && from_a[n] < draws * 7 / 10;
        tap_diag("p_a 0.5: %s from a in %d of %d", node_name[n], from_a[n], draws);
      }
      ok(fair, "p_a 0.5: each node from either parent in 30-70%% of the children");
    } else if (k == 1) {
      /* 0.9, less the draws that took all 4 nodes from a (0.9^4) and gave
       * the tiles to b (1 in 4): 73.6% */
      ok(from_a[TILES] > draws * 6 / 10 && from_a[TILES] < draws * 9 / 10,
         "p_a 0.9: the tiles from a in 60-90%% of the children (%d of %d; 73.6%% expected)",
         from_a[TILES], draws);
    } else {
      ok(one_from_b && from_b_total == draws,
         "p_a 1: exactly one node from b, so that the child is new (%d nodes in %d children)",
         from_b_total, draws);
    }
  }

  /* sound */
  int all = 1;
  char why[2048] = "";
  for (int i = 0; i < 8 && all; i++) {
    all = !evo_crossover(a, b, 0.5, &rng, &c) && sound(c, 11 + i, why, sizeof why);
    tsl_trace_free(c);
    c = NULL;
  }
  ok(all, "8 children replay and compute what the program computes");
  if (!all)
    tap_diag("%s", why);

  tsl_trace_free(a);
  tsl_trace_free(b);
  for (uint32_t i = 0; i < n_sk; i++)
    tsl_trace_free(sk[i]);
  free(sk);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
