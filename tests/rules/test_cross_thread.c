/*
 * The schedule rule CrossThreadReduction (TVM's, v0.19) alone, as TVM's
 * tests apply it, on the programs of tests/rules/ctr:
 *   sketches  with the "cuda" target's limits (1024 threads, warps of 32;
 *             seed 0) the traces equal tests/rules/sketches/ctr_NAME.sketch;
 *             each sketch has the compute_at / set_scope / threadIdx.x
 *             binds TVM's sketch of that program has; and every sketch,
 *             replayed with its decisions and with fresh draws, computes
 *             what the program computes in the interpreter (thread-bound
 *             loops in natural, shuffled and reversed order, except a
 *             thread loop that feeds a reduction, which runs as the serial
 *             reduction it stands for), and printed it runs as a schedule
 *             script (`tessel schedule`) to the same program
 *   deviations  where tessel's rule differs from TVM's, as the README says
 *   options   defaults, thread_extents in the sample, bad values refused,
 *             a target without thread limits leaves every block alone
 * TESSEL_UPDATE_GOLDEN=1 rewrites the .sketch files (review them by eye
 * against TVM's test_meta_schedule_schedule_rule_cross_thread_reduction).
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_text.h"
#include "test_files.h"

static tsl_ctx *ctx;
static tsl_registry *reg;
static const char *root;
static const tsl_rule_target cuda = {sizeof cuda, "cuda", 2, 32, NULL};
static const tsl_rule_target llvm = {sizeof llvm, "llvm", 2, 32, NULL};

static char *slurp(const char *path) {
  char *s = NULL;
  size_t n;
  tsl_diag d = {0};
  return tsl_read_file(path, &s, &n, &d) == TSL_OK ? s : NULL;
}

static const tsl_module *parse(tsl_arena *a, const char *src, const char *what) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (!src || tsl_parse(a, what, src, strlen(src), &m, &d)) {
    ok(0, "%s parses: %s", what, src ? d.text : "no file");
    return NULL;
  }
  return m;
}

static void golden(tsl_trace *const *sk, uint32_t n, const char *name) {
  char path[4200];
  char *text = golden_sketches_text(sk, n);
  snprintf(path, sizeof path, "%s/tests/rules/sketches/ctr_%s.sketch", root, name);
  golden_is(text, path, "%s: %u sketches as in ctr_%s.sketch", name, n, name);
  free(text);
}

/* The sketch replayed (recorded or fresh decisions) computes what the
 * program computes. */
static int computes(const tsl_module *m, const tsl_trace *t, int fresh, uint64_t seed, char *why,
                    size_t cap) {
  tsl_replay_opts ro = {sizeof ro, (uint32_t)fresh, seed, NULL, NULL};
  tsl_schedule *s = NULL;
  tsl_diag d = {0};
  if (tsl_trace_replay(ctx, t, m, &ro, &s, &d)) {
    snprintf(why, cap, "replay: %.1000s", d.text);
    return 0;
  }
  const tsl_func *f0 = tsl_schedule_original(s)->funcs[0];
  const tsl_func *f1 = tsl_schedule_func(s);
  tsl_interp_opts io = {sizeof io, TSL_INTERP_ORDER_ALL, seed};
  tsl_equiv_report rep;
  int rc = tsl_interp_check_equivalent_opts(f0, f1, NULL, 0, seed, &io, &rep, &d);
  if (rc) {
    char *p = tsl_print_func(f1);
    snprintf(why, cap, "interpreter (%s decisions, seed %llu): %.800s\n%.4000s",
             fresh ? "fresh" : "recorded", (unsigned long long)seed, d.text, p);
    free(p);
  }
  tsl_schedule_free(s);
  return rc == TSL_OK;
}

/* The sketch printed with its decisions runs as a schedule script (what
 * `tessel schedule` does with it) to the program its replay makes. */
static int script_runs(const tsl_module *m, const tsl_trace *t, char *why, size_t cap) {
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  tsl_schedule *a = NULL, *b = NULL;
  tsl_diag d = {0};
  char *script = tsl_trace_to_script(t, 1), *pa = NULL, *pb = NULL;
  int fine = !tsl_trace_replay(ctx, t, m, &ro, &a, &d) &&
             !tsl_schedule_new(ctx, m, NULL, &b, &d) &&
             !tsl_script_run(b, "sketch.sch", script, strlen(script), &d);
  if (fine) {
    pa = tsl_print_func(tsl_schedule_func(a));
    pb = tsl_print_func(tsl_schedule_func(b));
    fine = !strcmp(pa, pb);
    snprintf(why, cap, "the script's program differs:\n%.3000s\n%.3000s", pa, pb);
  } else {
    snprintf(why, cap, "%.1000s\n%.3000s", d.text, script);
  }
  free(pa);
  free(pb);
  free(script);
  tsl_schedule_free(a);
  tsl_schedule_free(b);
  return fine;
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
    n++;
  return n;
}

/* The sketches of `src` under the rule alone (heap array of traces). */
/* With the cuda target, its limits as its default space gives them, then
 * `opts`. */
static int generate(const tsl_module *m, const tsl_rule_target *t, uint32_t n_opts,
                    const tsl_kv *opts, tsl_trace ***sk, uint32_t *n, tsl_diag *d) {
  tsl_space_rule r;
  tsl_kv all[8] = {{"max_threads_per_block", "1024"}, {"warp_size", "32"}};
  uint32_t k = t == &cuda ? 2 : 0;
  for (uint32_t i = 0; i < n_opts && k < 8; i++)
    all[k++] = opts[i];
  int rc = tsl_space_rule_create(reg, "CrossThreadReduction", t, k, all, &r, d);
  if (rc)
    return rc;
  rc = tsl_space_generate(ctx, m, NULL, 1, &r, 0, NULL, sk, n, d);
  r.vtable->destroy(r.rule);
  return rc;
}

static void free_sketches(tsl_trace **sk, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    tsl_trace_free(sk[i]);
  free(sk);
}

/* What TVM's sketches of each program have: per sketch, the blocks
 * computed at a consumer (one set_scope "shared" each) and the loops bound
 * to threadIdx.x. */
typedef struct expect {
  const char *name;
  uint32_t n;
  int compute_at[4];
  int binds[4];
} expect;

static const expect programs[] = {
    /* no consumer: the reduction loop split and bound */
    {"row_sum", 2, {0, 0}, {0, 1}},
    /* TVM's test_gpu_softmax_mn: row_max at exp's row, row_sum at norm's
     * row, then both; each fused block binds its consumer's loop too */
    {"softmax", 4, {0, 1, 1, 2}, {0, 2, 2, 4}},
    /* TVM's test_gpu_softmax_mn_after_inline: row_max alone has two
     * consumers under no common loop (not fused); once row_sum is at
     * norm's row, row_max goes there too, with norm's thread extent */
    {"softmax_inlined", 4, {0, 0, 1, 2}, {0, 1, 2, 3}},
    /* TVM's test_gpu_batch_norm_bmn: the two reduction loops fused */
    {"norm", 2, {0, 1}, {0, 2}},
    /* TVM's test_gpu_argmax: two writes, never fused */
    {"argmax", 2, {0, 0}, {0, 1}},
};

static void sketches(void) {
  for (size_t w = 0; w < sizeof programs / sizeof programs[0]; w++) {
    const expect *e = &programs[w];
    char path[4200];
    snprintf(path, sizeof path, "%s/tests/rules/ctr/%s.py", root, e->name);
    char *src = slurp(path);
    tsl_arena *a = tsl_arena_new(ctx);
    const tsl_module *m = parse(a, src, e->name);
    tsl_trace **sk = NULL;
    uint32_t n = 0;
    tsl_diag d = {0};
    if (m && generate(m, &cuda, 0, NULL, &sk, &n, &d)) {
      ok(0, "%s: space generated: %s", e->name, d.text);
    } else if (m) {
      golden(sk, n, e->name);
      int shaped = n == e->n;
      for (uint32_t i = 0; i < n && shaped; i++) {
        char *t = tsl_trace_to_script(sk[i], 0);
        shaped = count(t, "sch.compute_at(") == e->compute_at[i] &&
                 count(t, "storage_scope=\"shared\"") == e->compute_at[i] &&
                 count(t, "thread_axis=\"threadIdx.x\"") == e->binds[i];
        if (!shaped)
          tap_diag("sketch %u:\n%s", i + 1, t);
        free(t);
      }
      ok(shaped, "%s: %u sketches, computed at consumers and bound to threads as TVM's", e->name,
         e->n);
      int sound = 1;
      char why[8192] = "";
      for (uint32_t i = 0; i < n && sound; i++) {
        sound = computes(m, sk[i], 0, 1, why, sizeof why);
        for (uint64_t s = 1; s <= 2 && sound; s++)
          sound = computes(m, sk[i], 1, 10 * i + s, why, sizeof why);
      }
      if (!ok(sound, "%s: every sketch, with its decisions and 2 fresh draws, computes what the "
                     "program computes",
              e->name))
        tap_diag("%s", why);
      int runs = 1;
      for (uint32_t i = 0; i < n && runs; i++)
        runs = script_runs(m, sk[i], why, sizeof why);
      if (!ok(runs, "%s: every sketch, printed, runs as a schedule script to the same program",
              e->name))
        tap_diag("%s", why);
    }
    free_sketches(sk, n);
    tsl_arena_free(a);
    free(src);
  }
}

/* Where tessel's rule differs from TVM's (core/rules/README.md): a
 * consumer bound to threadIdx.x by a loop no split made lends its constant
 * extent; a block that cannot be computed at its consumer (an output
 * block) or a consumer on threadIdx.y alone drops the cross-thread sketch
 * (TVM's rule raises). */
#define SUM_INTO(S_DECL, S_ALLOC, CONSUMER)                                                  \
  "@T.prim_func\n"                                                                           \
  "def main(A: T.Buffer((16, 64), \"float32\"), C: T.Buffer((16, 64), \"float32\")" S_DECL  \
  "):\n" S_ALLOC                                                                             \
  "    for i, k in T.grid(16, 64):\n"                                                        \
  "        with T.block(\"S\"):\n"                                                           \
  "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                      \
  "            with T.init():\n"                                                             \
  "                S[vi] = T.float32(0)\n"                                                   \
  "            S[vi] = S[vi] + A[vi, vk]\n"                                                  \
  "    for i in range(16):\n" CONSUMER                                                       \
  "            with T.block(\"C\"):\n"                                                       \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                  \
  "                C[vi, vj] = A[vi, vj] / S[vi]\n"

static void deviations(void) {
  static const struct {
    const char *what, *src;
    uint32_t n;
    const char *has;
  } cases[] = {
      {"a consumer on threadIdx.x from no split: its extent 64",
       SUM_INTO("", "    S = T.alloc_buffer((16,))\n",
                "        for j in T.thread_binding(64, thread=\"threadIdx.x\"):\n"),
       2, "factors=[None, 64]"},
      {"a consumer on threadIdx.y only: the sketch dropped",
       SUM_INTO("", "    S = T.alloc_buffer((16,))\n",
                "        for j in T.thread_binding(64, thread=\"threadIdx.y\"):\n"),
       1, NULL},
      {"an output block with a consumer: the sketch dropped",
       SUM_INTO(", S: T.Buffer((16,), \"float32\")", "", "        for j in range(64):\n"), 1,
       NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tsl_arena *a = tsl_arena_new(ctx);
    const tsl_module *m = parse(a, cases[i].src, cases[i].what);
    tsl_trace **sk = NULL;
    uint32_t n = 0;
    tsl_diag d = {0};
    char why[8192] = "";
    int fine = m && !generate(m, &cuda, 0, NULL, &sk, &n, &d) && n == cases[i].n;
    for (uint32_t k = 0; k < n && fine; k++)
      fine = computes(m, sk[k], 0, 1, why, sizeof why);
    if (fine && cases[i].has) {
      char *t = tsl_trace_to_script(sk[n - 1], 1);
      fine = strstr(t, cases[i].has) != NULL;
      snprintf(why, sizeof why, "%s", t);
      free(t);
    }
    if (!ok(fine, "%s (%u sketch%s)", cases[i].what, cases[i].n, cases[i].n == 1 ? "" : "es"))
      tap_diag("%u sketches: %s %s", n, d.text, why);
    free_sketches(sk, n);
    tsl_arena_free(a);
  }
}

static const char *sum_src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 64), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "    for i, k in T.grid(16, 64):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                B[vi] = T.float32(0)\n"
    "            B[vi] = B[vi] + A[vi, vk]\n";

static void options(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, sum_src, "sum");
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  tsl_diag d = {0};
  if (m && !generate(m, &cuda, 0, NULL, &sk, &n, &d) && n == 2) {
    char *t = tsl_trace_to_script(sk[1], 1);
    ok(strstr(t, "candidates=[4, 8, 16, 32, 64, 128, 256, 512], probs=[0.125, 0.125, 0.125, "
                 "0.125, 0.125, 0.125, 0.125, 0.125]") != NULL,
       "the default thread extents are TVM's CUDA list, drawn with equal weights");
    free(t);
  } else {
    ok(0, "a row sum gives 2 sketches: %s", d.text);
  }
  free_sketches(sk, n);

  tsl_kv ext = {"thread_extents", "[16, 32]"};
  if (m && !generate(m, &cuda, 1, &ext, &sk, &n, &d) && n == 2) {
    char *t = tsl_trace_to_script(sk[1], 1);
    ok(strstr(t, "candidates=[16, 32], probs=[0.5, 0.5]") != NULL,
       "thread_extents: [16, 32] is the sample's candidates");
    free(t);
  } else {
    ok(0, "thread_extents: [16, 32]: %s", d.text);
  }
  free_sketches(sk, n);

  /* TVM's rule does nothing for a target without max_threads_per_block or
   * thread_warp_size (llvm); tessel takes them as options */
  ok(m && !generate(m, &llvm, 0, NULL, &sk, &n, &d) && n == 1 && tsl_trace_len(sk[0]) == 2,
     "on the llvm target every block is left alone (1 sketch, the get_block calls only)");
  free_sketches(sk, n);
  tsl_kv limits[] = {{"max_threads_per_block", "1024"}, {"warp_size", "32"}};
  ok(m && !generate(m, &llvm, 2, limits, &sk, &n, &d) && n == 2,
     "  ... and with max_threads_per_block and warp_size given, 2 sketches");
  free_sketches(sk, n);

  struct {
    tsl_kv kv;
    const char *want;
  } bad[] = {
      {{"thread_extents", "[]"}, "'thread_extents' is empty; it must list positive"},
      {{"thread_extents", "[8, 0]"}, "holds 0; every entry must be a positive thread count"},
      {{"thread_extents", "[8, x]"}, "a list of integers"},
      {{"max_threads_per_block", "0"}, "it must be positive, or -1"},
      {{"warp_size", "-2"}, "it must be positive, or -1"},
      {{"thread_extent", "[8]"}, "unknown option 'thread_extent'; valid: thread_extents, "
                                 "max_threads_per_block, warp_size"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tsl_space_rule r;
    int rc = tsl_space_rule_create(reg, "CrossThreadReduction", &cuda, 1, &bad[i].kv, &r, &d);
    ok(rc == TSL_EINVALID && strstr(d.text, bad[i].want), "%s: %s refused: %s", bad[i].kv.key,
       bad[i].kv.value, d.text);
  }
  tsl_arena_free(a);
}

int main(void) {
  root = getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  ctx = tsl_ctx_new();
  tsl_diag d = {0};
  unsetenv("TESSEL_PLUGIN_PATH");
  if (tsl_registry_new(ctx, &reg, &d)) {
    ok(0, "registry: %s", d.text);
    return tap_done();
  }
  sketches();
  deviations();
  options();
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return tap_done();
}
