/*
 * The "random" strategy plugin, loaded through the real loader: its
 * registration, options, and runs on a 16x16x16 matmul with design spaces
 * made by stochastic schedule scripts. Candidates must carry decisions,
 * replay to programs the interpreter finds equal to the original, never
 * repeat, follow the seed, skip what the run's candidate service knows as
 * measured, keep the budget, exhaust a small space exactly, and give up
 * after max_fail failed samples.
 */
#include "search_common.h"
#include "test_programs.h"

#include <stdint.h>

static const char *const matmul16 = test_matmul16;

/* Same signature, but its block is called "D": every replay fails. */
static const char *other16 =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), "
    "\"float32\"), C: T.Buffer((16, 16), \"float32\")):\n"
    "    for i, j in T.grid(16, 16):\n"
    "        with T.block(\"D\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            C[vi, vj] = A[vi, vj] + B[vi, vj]\n";

/* About 60 points: i in three tiles (innermost <= 4), j in two. */
static const char *big_script =
    "b = sch.get_block(\"C\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "vi = sch.sample_perfect_tile(i, n=3, max_innermost_factor=4)\n"
    "i0, i1, i2 = sch.split(i, vi)\n"
    "vj = sch.sample_perfect_tile(j, n=2, max_innermost_factor=16)\n"
    "j0, j1 = sch.split(j, vj)\n"
    "sch.reorder(i0, j0, i1, j1, i2)\n";

/* One point per divisor d of 16 with d <= SMALL_MAX (the innermost). */
#define SMALL_MAX 8
static const char *small_script =
    "b = sch.get_block(\"C\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "v = sch.sample_perfect_tile(i, n=2, max_innermost_factor=8)\n"
    "i0, i1 = sch.split(i, v)\n";

static tsl_ctx *ctx;
static tsl_arena *arena;
static const tsl_strategy_vtable *vt;

/* What the core measured before a run: the keys its candidate service
 * knows from the start. */
typedef struct core {
  char *keys[64];
  uint32_t n_keys;
} core;

static const tsl_module *parse(const char *src) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (tsl_parse(arena, "test.py", src, strlen(src), &m, &d)) {
    printf("Bail out! parse: %s\n", d.text);
    exit(1);
  }
  return m;
}

/* The design space of `script` on `mod`: the trace of one run. */
static tsl_trace *design_space(const tsl_module *mod, const char *script) {
  tsl_schedule *sch = NULL;
  tsl_diag d = {0};
  tsl_schedule_opts so = {.struct_size = sizeof so, .seed = 99};
  if (tsl_schedule_new(ctx, mod, &so, &sch, &d) ||
      tsl_script_run(sch, "space.sch", script, strlen(script), &d)) {
    printf("Bail out! script: %s\n", d.text);
    exit(1);
  }
  tsl_trace *t = tsl_trace_copy(tsl_schedule_trace(sch));
  tsl_schedule_free(sch);
  return t;
}

static tsl_search_space make_space(const tsl_module *mod,
                                   const tsl_trace *const *traces,
                                   int64_t trials, int32_t batch,
                                   uint64_t seed, core *c) {
  tsl_search_space sp = {
      .struct_size = sizeof sp,
      .ctx = ctx,
      .mod = mod,
      .func_name = "main",
      .n_space = 1,
      .space = traces,
      .trials = trials,
      .batch = batch,
      .seed = seed,
      .target = "llvm",
      .core_data = c,
  };
  return sp;
}

static tsl_strategy *create(const char *max_fail) {
  tsl_kv kv = {"max_fail", max_fail};
  tsl_strategy *s = NULL;
  tsl_diag d = {0};
  if (vt->create(NULL, max_fail ? 1 : 0, &kv, &s, &d)) {
    printf("Bail out! create: %s\n", d.text);
    exit(1);
  }
  return s;
}

/* A run to the end: every candidate's key, in order, into keys[0..*n);
 * the sizes of the batches into sizes (up to 64). Returns the status. */
typedef struct run_out {
  char *keys[512];
  tsl_trace *traces[512];
  uint32_t n;
  uint32_t sizes[64];
  uint32_t n_batches;
  int64_t samples; /* the candidates it prepared (sampled) */
} run_out;

/* A run on `sp0` with a fresh candidate service of its own, as the tuner
 * gives each run: it knows the keys the core (`core_data`) measured. */
static int run(tsl_strategy *s, const tsl_search_space *sp0, uint32_t max,
               run_out *o, tsl_diag *d) {
  memset(o, 0, sizeof *o);
  tsl_search_space space = *sp0, *sp = &space;
  tsl_cand_service_opts so = {sizeof so, ctx, sp0->mod, sp0->func_name, NULL, 0, NULL, 0, 0};
  if (sp0->mod && tsl_cand_service_new(&so, &space.cands, d))
    return TSL_ENOMEM;
  const core *c = sp0->core_data;
  for (uint32_t i = 0; c && i < c->n_keys; i++)
    tsl_cand_service_mark(space.cands, c->keys[i]);
  int rc = vt->pre_tuning(s, sp, d);
  while (rc == TSL_OK && o->n_batches < 64) {
    tsl_trace *out[64];
    uint32_t n = 99;
    rc = gen_traces(vt, s, max, out, &n, d);
    if (rc)
      break;
    o->sizes[o->n_batches++] = n;
    for (uint32_t i = 0; i < n && o->n < 512; i++) {
      o->keys[o->n] = strdup(tsl_trace_key(out[i]));
      o->traces[o->n++] = out[i];
    }
    if (n == 0)
      break;
  }
  vt->post_tuning(s);
  tsl_cand_service_stats st;
  memset(&st, 0, sizeof st);
  if (space.cands)
    tsl_cand_service_get_stats(space.cands, &st);
  o->samples = st.prepared;
  tsl_cand_service_free(space.cands);
  return rc;
}

static void run_free(run_out *o) {
  for (uint32_t i = 0; i < o->n; i++) {
    free(o->keys[i]);
    tsl_trace_free(o->traces[i]);
  }
  o->n = 0;
}

static int all_distinct(const run_out *o) {
  for (uint32_t i = 0; i < o->n; i++)
    for (uint32_t j = i + 1; j < o->n; j++)
      if (strcmp(o->keys[i], o->keys[j]) == 0)
        return 0;
  return 1;
}

static int same_sequence(const run_out *a, const run_out *b) {
  if (a->n != b->n)
    return 0;
  for (uint32_t i = 0; i < a->n; i++)
    if (strcmp(a->keys[i], b->keys[i]) != 0)
      return 0;
  return 1;
}

static void test_options(void) {
  tsl_strategy *s = NULL;
  tsl_diag d = {0};
  tsl_kv unknown = {"max_fails", "3"};
  ok(vt->create(NULL, 1, &unknown, &s, &d) == TSL_EINVALID && !s,
     "an unknown option is refused");
  ok(has(&d, "unknown option 'max_fails'") && has(&d, "valid: max_fail"),
     "  ... naming it and the valid options");
  const char *bad[] = {"0", "-2", "abc", "", "3x", "99999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tsl_kv kv = {"max_fail", bad[i]};
    memset(&d, 0, sizeof d);
    int rc = vt->create(NULL, 1, &kv, &s, &d);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
    ok(rc == TSL_EINVALID && !s && has(&d, "max_fail") && has(&d, quoted) &&
           has(&d, "valid: an integer from 1"),
       "max_fail '%s' is refused with the valid range", bad[i]);
  }
  tsl_kv good = {"max_fail", "5"};
  ok(vt->create(NULL, 1, &good, &s, &d) == TSL_OK && s, "max_fail 5 is taken");
  vt->destroy(s);
  ok(vt->create(NULL, 0, NULL, &s, &d) == TSL_OK && s, "no options are fine");

  tsl_trace *out[4];
  uint32_t n = 7;
  memset(&d, 0, sizeof d);
  ok(gen_traces(vt, s, 4, out, &n, &d) == TSL_EINVALID && n == 0 &&
         has(&d, "before pre_tuning"),
     "generate before pre_tuning is an error");
  tsl_search_space empty = make_space(parse(matmul16), NULL, 8, 4, 1, NULL);
  empty.n_space = 0;
  memset(&d, 0, sizeof d);
  ok(vt->pre_tuning(s, &empty, &d) == TSL_EINVALID &&
         has(&d, "design space is empty"),
     "an empty design space is refused");
  vt->destroy(s);
}

/* Candidates of a ~60-point space, budget 20, batches of 8. */
static void test_candidates(const tsl_module *mod, const tsl_trace *design) {
  const tsl_trace *traces[] = {design};
  tsl_search_space sp = make_space(mod, traces, 20, 8, 7, NULL);
  tsl_strategy *s = create(NULL);
  run_out o;
  tsl_diag d = {0};
  ok(run(s, &sp, 8, &o, &d) == TSL_OK, "a run succeeds");
  is_int(o.n, 20, "  ... proposing exactly the budget of 20");
  ok(o.n_batches == 4 && o.sizes[0] == 8 && o.sizes[1] == 8 &&
         o.sizes[2] == 4 && o.sizes[3] == 0,
     "  ... in batches 8, 8, 4, then 0");
  ok(all_distinct(&o), "  ... with no two equal decision keys");

  int decided = 1, lengths = 1;
  for (uint32_t c = 0; c < o.n; c++) {
    const tsl_trace *t = o.traces[c];
    lengths &= tsl_trace_len(t) == tsl_trace_len(design);
    for (uint32_t i = 0; i < tsl_trace_len(t); i++) {
      const tsl_trace_inst *in = tsl_trace_get(t, i);
      if (in->kind->is_sample)
        decided &= in->decision.kind == TSL_SV_LIST && in->decision.n >= 2;
    }
  }
  ok(decided, "every sample_perfect_tile of every candidate has a decision");
  ok(lengths, "every candidate has the design space's instructions");

  /* Replays with the recorded decisions compute what the original does. */
  const tsl_func *ref = tsl_module_find(mod, "main");
  for (uint32_t c = 0; c < 4 && c < o.n; c++) {
    tsl_schedule *sch = NULL;
    tsl_replay_opts ro = {.struct_size = sizeof ro, .fresh_decisions = 0,
                          .func_name = "main"};
    memset(&d, 0, sizeof d);
    int rc = tsl_trace_replay(ctx, o.traces[c], mod, &ro, &sch, &d);
    ok(rc == TSL_OK, "candidate %u replays with its decisions", c);
    if (rc) {
      tap_diag("%s", d.text);
      continue;
    }
    const tsl_func *got = tsl_module_find(tsl_schedule_module(sch), "main");
    char *before = tsl_print_func(ref), *after = tsl_print_func(got);
    ok(strcmp(before, after) != 0, "  ... to a transformed program");
    tsl_equiv_report rep = {0};
    rc = tsl_interp_check_equivalent(ref, got, NULL, 0, 1234 + c, &rep, &d);
    ok(rc == TSL_OK && rep.n_checked > 0 && rep.n_mismatched == 0,
       "  ... that computes the same C as the original (%lld elements)",
       (long long)rep.n_checked);
    if (rc)
      tap_diag("%s", d.text);
    free(before);
    free(after);
    tsl_schedule_free(sch);
  }

  /* The seed decides the sequence. */
  run_out o2, o3;
  ok(run(s, &sp, 8, &o2, &d) == TSL_OK && same_sequence(&o, &o2),
     "pre_tuning again with the same seed repeats the sequence");
  tsl_strategy *s2 = create(NULL);
  run_free(&o2);
  ok(run(s2, &sp, 5, &o2, &d) == TSL_OK && same_sequence(&o, &o2),
     "a new instance with the same seed (batches of 5) gives the same "
     "sequence");
  sp.seed = 8;
  ok(run(s2, &sp, 8, &o3, &d) == TSL_OK && o3.n == 20 &&
         !same_sequence(&o, &o3),
     "another seed gives another sequence");
  tsl_measured res[2] = {
      {.struct_size = sizeof res[0], .trace = o.traces[0],
       .status = TSL_RUN_OK, .latency_s = 1e-3, .gflops = 8},
      {.struct_size = sizeof res[1], .trace = o.traces[1],
       .status = TSL_RUN_CRASH, .latency_s = -1},
  };
  tsl_cand_service_opts so = {sizeof so, ctx, sp.mod, sp.func_name, NULL, 0, NULL, 0, 0};
  tsl_cand_service_new(&so, &sp.cands, &d);
  ok(vt->pre_tuning(s, &sp, &d) == TSL_OK &&
         vt->notify(s, 2, res, &d) == TSL_OK,
     "notify takes measured and failed results");
  vt->post_tuning(s);
  tsl_cand_service_free(sp.cands);
  sp.cands = NULL;
  ok(vt->pre_tuning(s, &sp, &d) == TSL_EINVALID && has(&d, "no candidate service"),
     "a space without its candidate service is refused");
  run_free(&o);
  run_free(&o2);
  run_free(&o3);
  vt->destroy(s);
  vt->destroy(s2);
}

/* The innermost factor of candidate `t`'s only sample_perfect_tile, after
 * checking the decision is a perfect tiling of 16. -1 if it is not. */
static int64_t innermost(const tsl_trace *t) {
  for (uint32_t i = 0; i < tsl_trace_len(t); i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    if (!in->kind->is_sample)
      continue;
    const tsl_sch_value *v = in->decision.u.items;
    if (in->decision.kind != TSL_SV_LIST || in->decision.n != 2 ||
        v[0].u.i * v[1].u.i != 16)
      return -1;
    return v[1].u.i;
  }
  return -1;
}

static void test_small_space(const tsl_module *mod, const tsl_trace *design) {
  /* The points: divisors of 16 up to SMALL_MAX. */
  int want[17] = {0}, n_points = 0;
  for (int d = 1; d <= 16; d++)
    if (16 % d == 0 && d <= SMALL_MAX)
      want[d] = 1, n_points++;

  const tsl_trace *traces[] = {design};
  core c = {0};
  tsl_search_space sp = make_space(mod, traces, 100, 16, 3, &c);
  tsl_strategy *s = create(NULL);
  run_out o;
  tsl_diag d = {0};
  ok(run(s, &sp, 16, &o, &d) == TSL_OK, "a run of the small space succeeds");
  ok(o.n_batches == 2 && o.sizes[0] == (uint32_t)n_points && o.sizes[1] == 0,
     "  ... giving all %d points in the first batch, then 0", n_points);
  if (o.n_batches < 2)
    tap_diag("  batches %u, first %u", o.n_batches, o.sizes[0]);
  int seen[17] = {0}, match = 1;
  for (uint32_t i = 0; i < o.n; i++) {
    int64_t f = innermost(o.traces[i]);
    match &= f >= 1 && f <= 16 && want[f] && !seen[f];
    if (f >= 1 && f <= 16)
      seen[f] = 1;
  }
  ok(match && o.n == (uint32_t)n_points,
     "  ... each innermost factor d | 16, d <= %d exactly once", SMALL_MAX);
  ok(o.samples >= n_points, "  ... sampling at least once per point (%lld samples)",
     (long long)o.samples);

  /* The core claims two of them measured. */
  c.keys[0] = o.keys[0];
  c.keys[1] = o.keys[2];
  c.n_keys = 2;
  run_out o2;
  ok(run(s, &sp, 16, &o2, &d) == TSL_OK && o2.n == (uint32_t)n_points - 2,
     "with 2 points measured before, the rest (%d) are proposed",
     n_points - 2);
  int fresh = 1;
  for (uint32_t i = 0; i < o2.n; i++)
    fresh &= strcmp(o2.keys[i], c.keys[0]) && strcmp(o2.keys[i], c.keys[1]);
  ok(fresh, "  ... and none of the measured ones");
  run_free(&o2);

  /* Everything measured: max_fail decides how long it tries. */
  for (uint32_t i = 0; i < o.n; i++)
    c.keys[i] = o.keys[i];
  c.n_keys = o.n;
  tsl_strategy *s7 = create("7");
  ok(run(s7, &sp, 16, &o2, &d) == TSL_OK && o2.n == 0 && o2.n_batches == 1,
     "with every point measured, generate returns 0");
  is_int(o2.samples, 7, "  ... after max_fail = 7 failed samples");
  run_free(&o2);
  sp.batch = 2;
  ok(run(s, &sp, 2, &o2, &d) == TSL_OK && o2.n == 0,
     "the default bound also gives up");
  is_int(o2.samples, 64 * 2, "  ... after 64 x batch (= 2) failed samples");
  run_free(&o2);
  c.n_keys = 0;
  run_free(&o);
  vt->destroy(s);
  vt->destroy(s7);
}

static void test_failing_replays(const tsl_trace *design) {
  const tsl_trace *traces[] = {design};
  core c = {0};
  tsl_search_space sp = make_space(parse(other16), traces, 100, 4, 3, &c);
  tsl_strategy *s = create("9");
  run_out o;
  tsl_diag d = {0};
  ok(run(s, &sp, 4, &o, &d) == TSL_OK && o.n == 0 && o.n_batches == 1,
     "replays that fail are failed samples: generate returns 0, no error");
  is_int(o.samples, 9, "  ... after max_fail = 9 of them");
  run_free(&o);
  vt->destroy(s);
}

static void test_two_traces(const tsl_module *mod, const tsl_trace *big,
                            const tsl_trace *small) {
  const tsl_trace *traces[] = {small, big};
  tsl_search_space sp = make_space(mod, traces, 10, 10, 5, NULL);
  sp.n_space = 2;
  tsl_strategy *s = create(NULL);
  run_out o;
  tsl_diag d = {0};
  ok(run(s, &sp, 10, &o, &d) == TSL_OK && o.n == 10 && all_distinct(&o),
     "a space of two traces gives 10 distinct candidates");
  uint32_t from_small = 0, from_big = 0;
  for (uint32_t i = 0; i < o.n; i++) {
    if (tsl_trace_len(o.traces[i]) == tsl_trace_len(small))
      from_small++;
    else if (tsl_trace_len(o.traces[i]) == tsl_trace_len(big))
      from_big++;
  }
  ok(from_small > 0 && from_big > 0 && from_small + from_big == 10,
     "  ... from both traces (%u and %u)", from_small, from_big);
  run_free(&o);
  vt->destroy(s);
}

int main(void) {
  ctx = tsl_ctx_new();
  arena = tsl_arena_new(ctx);
  tsl_registry *reg = load_registry(ctx);
  uint32_t k = 0;
  const tsl_component *c = find_random(reg, TSL_COMPONENT_STRATEGY, &k);
  ok(c != NULL, "the default search path registers strategy 'random'");
  if (!c) {
    tsl_registry_free(reg);
    return tap_done();
  }
  ok(strstr(tsl_registry_path(reg, k),
            "/strategies/random/tessel-random-strategy.so") != NULL,
     "  ... from the build tree's strategies/random");
  is_str(c->version, "0.1.0", "  ... version 0.1.0");
  ok(tsl_registry_abi(reg, k) == TSL_ABI_VERSION, "  ... built for this ABI");
  vt = c->vtable;
  ok(vt->struct_size >= sizeof(tsl_strategy_vtable) && vt->create &&
         vt->destroy && vt->pre_tuning && vt->generate_cands && vt->notify &&
         vt->post_tuning,
     "  ... with a complete strategy vtable");

  const tsl_module *mod = parse(matmul16);
  tsl_trace *big = design_space(mod, big_script);
  tsl_trace *small = design_space(mod, small_script);
  test_options();
  test_candidates(mod, big);
  test_small_space(mod, small);
  test_failing_replays(small);
  test_two_traces(mod, big, small);

  tsl_trace_free(big);
  tsl_trace_free(small);
  tsl_registry_free(reg);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
