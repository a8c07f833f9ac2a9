/*
 * The sketch strategy's sketches (strategies/sketch, Ansor's CPU rules):
 *   golden   on workloads/ programs (2 cores, seed 0), the traces equal
 *            tests/search/sketches/NAME.sketch (TESSEL_UPDATE_GOLDEN=1
 *            rewrites them; review them by eye)
 *   counts   the sketch count each rule implies: matmul 3 (tiled; a cache
 *            write fused at either of two levels), a matmul with an
 *            element-wise consumer 3 (that consumer fused at either level,
 *            or not), element-wise stages inlined or left alone, rfactor's
 *            two branches on a reduction with few outputs
 *   sound    every sketch, replayed with its decisions and with fresh ones,
 *            computes what the program computes (interpreter)
 *   symbolic a symbolic size: not tiled, one sketch
 *   limit    max_sketches keeps the first ones
 *   ranges   the random annotation's draws over many fresh samples: tile
 *            sizes perfect with the innermost at most 64, unroll steps
 *            among 0, 16, 64, 512 (each drawn), parallel 16 x cores,
 *            vectorize max_vectorize_size, compute locations inline, root
 *            or a loop (several drawn); the options change them
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "equiv_orders.h"
#include "golden_text.h"
#include "sketch.h"

static tsl_ctx *ctx;
static const char *root;
static const sk_ctx opts = {2, 16, 0}; /* 2 cores, Ansor's defaults */

static const tsl_module *load(tsl_arena *a, const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/%s.py", root, name);
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (tsl_parse_file(a, path, &m, &d)) {
    ok(0, "%s parses", name);
    tap_diag("%s", d.text);
    return NULL;
  }
  return m;
}

/* Replayed with its decisions (fresh = 0) or fresh ones, the sketch
 * computes what the program computes. */
static int sound(const tsl_module *m, const tsl_trace *t, int fresh, uint64_t seed, char *why,
                 size_t cap) {
  tsl_replay_opts ro = {sizeof ro, fresh, seed, NULL, NULL};
  tsl_schedule *s = NULL;
  tsl_diag d = {0};
  if (tsl_trace_replay(ctx, t, m, &ro, &s, &d)) {
    snprintf(why, cap, "replay: %.1000s", d.text);
    return 0;
  }
  const tsl_func *f0 = tsl_schedule_original(s)->funcs[0];
  const tsl_func *f1 = tsl_schedule_func(s);
  tsl_equiv_report rep;
  tsl_interp_opts io = {sizeof io, equiv_orders(), seed};
  int rc = tsl_interp_check_equivalent_opts(f0, f1, NULL, 0, seed, &io, &rep, &d);
  if (rc)
    snprintf(why, cap, "interpreter: %.1000s", d.text);
  tsl_schedule_free(s);
  return !rc;
}

static void golden(const char *name, uint32_t want) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = load(a, name);
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  tsl_diag d = {0};
  if (!m) {
    tsl_arena_free(a);
    return;
  }
  if (sk_generate(ctx, m, NULL, &opts, NULL, 0, 64, &sk, &n, &d)) {
    ok(0, "%s: sketches generated", name);
    tap_diag("%s", d.text);
    tsl_arena_free(a);
    return;
  }
  ok(n == want, "%s: %u sketches (want %u)", name, n, want);
  char path[4200];
  char *text = golden_sketches_text(sk, n);
  snprintf(path, sizeof path, "%s/tests/search/sketches/%s.sketch", root, name);
  golden_is(text, path, "%s: the sketches as in sketches/%s.sketch", name, name);
  free(text);
  int all = 1;
  char why[2048] = "";
  for (uint32_t i = 0; i < n && all; i++)
    all = sound(m, sk[i], 0, 1, why, sizeof why) && sound(m, sk[i], 1, 7 + i, why, sizeof why);
  ok(all, "%s: every sketch, with its decisions and fresh ones, computes the program", name);
  if (!all)
    tap_diag("%s", why);
  for (uint32_t i = 0; i < n; i++)
    tsl_trace_free(sk[i]);
  free(sk);
  tsl_arena_free(a);
}

/* A symbolic size: no tiling (sample_perfect_tile needs constant
 * extents), so no cache write either: one sketch, and generation ends. */
static void symbolic(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = load(a, "matmul_dynamic");
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  tsl_diag d = {0};
  int rc = m ? sk_generate(ctx, m, NULL, &opts, NULL, 0, 64, &sk, &n, &d) : -1;
  int cache_writes = 0;
  for (uint32_t i = 0; i < n; i++) {
    char *t = tsl_trace_to_script(sk[i], 1);
    for (const char *p = t; (p = strstr(p, "cache_write(")); p++)
      cache_writes++;
    free(t);
    tsl_trace_free(sk[i]);
  }
  free(sk);
  ok(!rc && n == 1 && cache_writes == 0,
     "matmul_dynamic: 1 sketch, no cache write (got %u, %d; %s)", n, cache_writes,
     rc ? d.text : "");
  tsl_arena_free(a);
}

static void limit(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = load(a, "matmul_128");
  tsl_trace **all = NULL, **two = NULL;
  uint32_t n_all = 0, n_two = 0;
  tsl_diag d = {0};
  int rc = m ? sk_generate(ctx, m, NULL, &opts, NULL, 0, 64, &all, &n_all, &d) : -1;
  if (!rc)
    rc = sk_generate(ctx, m, NULL, &opts, NULL, 0, 2, &two, &n_two, &d);
  ok(!rc && n_two == 2 && n_all > 2, "max_sketches 2 keeps 2 of %u", n_all);
  int same = !rc && n_two == 2;
  for (uint32_t i = 0; same && i < 2; i++) {
    char *x = tsl_trace_to_script(all[i], 1), *y = tsl_trace_to_script(two[i], 1);
    same = !strcmp(x, y);
    free(x);
    free(y);
  }
  ok(same, "... the first two");
  for (uint32_t i = 0; i < n_all; i++)
    tsl_trace_free(all[i]);
  for (uint32_t i = 0; i < n_two; i++)
    tsl_trace_free(two[i]);
  free(all);
  free(two);
  tsl_arena_free(a);
}

static int64_t product(const tsl_sch_value *v) {
  int64_t p = 1;
  for (uint32_t i = 0; i < v->n; i++)
    p *= v->u.items[i].u.i;
  return p;
}

/* The annotation's draws in `draws` fresh samples of each conv2d sketch
 * generated with options `o`, checked against their ranges. */
static void ranges(const sk_ctx *o, const char *label, int draws) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = load(a, "conv2d_nhwc");
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  tsl_diag d = {0};
  if (!m || sk_generate(ctx, m, NULL, o, NULL, 0, 64, &sk, &n, &d)) {
    ok(0, "%s: sketches (%s)", label, d.text);
    tsl_arena_free(a);
    return;
  }
  int tiles = 1, unroll = 1, parallel = 1, vectorize = 1, location = 1, replays = 1;
  int unroll_seen[4] = {0}, n_locations = 0, n_samples_loc = 0;
  int64_t locations_seen[64];
  char why[512] = "";
  for (uint32_t k = 0; k < n; k++)
    for (int i = 0; i < draws; i++) {
      tsl_replay_opts ro = {sizeof ro, 1, 100 + (uint64_t)i, NULL, NULL};
      tsl_schedule *s = NULL;
      if (tsl_trace_replay(ctx, sk[k], m, &ro, &s, &d)) {
        replays = 0;
        snprintf(why, sizeof why, "%.400s", d.text);
        continue;
      }
      const tsl_trace *t = tsl_schedule_trace(s);
      for (uint32_t j = 0; j < tsl_trace_len(t); j++) {
        const tsl_trace_inst *in = tsl_trace_get(t, j);
        const char *kind = in->kind->name;
        if (!strcmp(kind, "sample_perfect_tile")) {
          const tsl_sch_value *dec = &in->decision, *was = &tsl_trace_get(sk[k], j)->decision;
          tiles &= product(dec) == product(was) && dec->u.items[dec->n - 1].u.i <= 64;
        } else if (!strcmp(kind, "sample_categorical")) {
          const tsl_sch_value *c = &in->args[0];
          int64_t x = in->decision.u.i;
          unroll &= c->n == 4 && c->u.items[0].u.i == 0 && c->u.items[1].u.i == 16 &&
                    c->u.items[2].u.i == 64 && c->u.items[3].u.i == 512 && x >= 0 && x < 4;
          if (x >= 0 && x < 4)
            unroll_seen[x] = 1;
        } else if (!strcmp(kind, "sample_compute_location")) {
          int64_t x = in->decision.u.i;
          location &= x >= -2;
          n_samples_loc++;
          int seen = 0;
          for (int q = 0; q < n_locations; q++)
            seen |= locations_seen[q] == x;
          if (!seen && n_locations < 64)
            locations_seen[n_locations++] = x;
        } else if (!strcmp(kind, "annotate") && in->args[2].kind == TSL_SV_INT) {
          const char *key = in->args[1].u.s;
          if (!strcmp(key, "meta_schedule.parallel"))
            parallel &= in->args[2].u.i == 16 * o->num_cores;
          else if (!strcmp(key, "meta_schedule.vectorize"))
            vectorize &= in->args[2].u.i == o->max_vectorize_size;
        }
      }
      tsl_schedule_free(s);
    }
  ok(replays, "%s: %d fresh samples of each of the %u sketches replay %s", label, draws, n, why);
  ok(tiles, "%s: tile sizes perfect (the sketch's product), the innermost at most 64", label);
  ok(unroll && unroll_seen[0] && unroll_seen[1] && unroll_seen[2] && unroll_seen[3],
     "%s: unroll steps among 0, 16, 64, 512, each drawn", label);
  ok(parallel, "%s: parallel %d (16 x %d cores)", label, 16 * o->num_cores, o->num_cores);
  ok(vectorize, "%s: vectorize %d", label, o->max_vectorize_size);
  if (o->disable_change_compute_location)
    ok(n_samples_loc == 0, "%s: no compute location sampled (got %d)", label, n_samples_loc);
  else
    ok(location && n_samples_loc > 0 && n_locations >= 3,
       "%s: compute locations inline, root or a loop, %d distinct drawn in %d", label,
       n_locations, n_samples_loc);
  for (uint32_t i = 0; i < n; i++)
    tsl_trace_free(sk[i]);
  free(sk);
  tsl_arena_free(a);
}

int main(void) {
  root = getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  ctx = tsl_ctx_new();
  golden("matmul_128", 3);
  golden("dense_bias_relu", 3);
  golden("elementwise_add", 1);
  golden("softmax", 9);
  golden("gemv", 3);
  golden("conv2d_nhwc", 3);
  symbolic();
  limit();
  ranges(&opts, "conv2d_nhwc, Ansor's defaults", 40);
  static const sk_ctx other = {4, 8, 1}; /* 4 cores, vectorize 8, no compute location */
  ranges(&other, "conv2d_nhwc, 4 cores, max_vectorize_size 8, locations fixed", 20);
  tsl_ctx_free(ctx);
  return tap_done();
}
