/*
 * Design spaces from schedule rules (tessel/rules.h):
 *   sketches  the llvm default rules on workloads/ programs: the traces
 *             (2 cores, seed 0) equal tests/rules/sketches/NAME.sketch,
 *             and every sketch, replayed with its decisions and with fresh
 *             ones, computes what the program computes before and after
 *             the default postprocessors (interpreter, parallel loops also
 *             shuffled and reversed), and the postprocessed program lowers
 *   fork      a forked schedule is independent of its parent, and either
 *             may be freed first
 *   analyses  the block analyses rules use, against hand-computed facts
 *   options   rule options: defaults, unknown keys and bad values refused;
 *             MultiLevelTiling with thread binds and read reuse
 *   gpu       RewriteCooperativeFetch on MultiLevelTiling's GPU sketch;
 *             MutateThreadBinding's proposals as TVM's test checks them
 *   custom    a block annotated schedule_rule is left to the named rule
 *   AutoBind  the rule alone on tests/rules/auto_bind/NAME.py (options and
 *             seed from `# options: K=V K=V` and `# seed: N` lines): the
 *             sketch and its program (or the error) equal NAME.expected;
 *             replayed with its decisions and fresh ones it computes what
 *             the program computes; RewriteUnboundBlock then changes
 *             nothing; the options of both are checked
 * TESSEL_UPDATE_GOLDEN=1 rewrites the .sketch files (review them by eye).
 * The light (sanitizer) pass runs the interpreter's checks in the shuffled
 * order alone (tests/equiv_orders.h).
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_files.h"
#include "case_options.h"
#include "equiv_orders.h"
#include "golden_text.h"

static tsl_ctx *ctx;
static tsl_registry *reg;
static const char *root;
static const tsl_rule_target target = {sizeof target, "llvm", 2, 32, NULL};

static const tsl_module *parse(tsl_arena *a, const char *src, const char *what) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (tsl_parse(a, what, src, strlen(src), &m, &d)) {
    ok(0, "%s parses", what);
    tap_diag("%s", d.text);
    return NULL;
  }
  return m;
}

static char *slurp(const char *path) {
  char *s = NULL;
  size_t n;
  tsl_diag d = {0};
  return tsl_read_file(path, &s, &n, &d) == TSL_OK ? s : NULL;
}

/* The sketch replayed (recorded or fresh decisions) computes what the
 * program computes. */
static tsl_space_postproc *postprocs;
static uint32_t n_postprocs;
static int n_postprocessed, n_rejected, n_parallel;

typedef struct kind_scan {
  tsl_stmt_visitor v;
  int parallel;
} kind_scan;

static int find_parallel(const tsl_stmt *s, void *ud) {
  if (s->kind == TSL_STMT_FOR && s->u.loop.for_kind == TSL_FOR_PARALLEL)
    ((kind_scan *)ud)->parallel = 1;
  return 0;
}

/* The sketch replayed (recorded or fresh decisions) computes what the
 * program computes, before and after the default postprocessors (which
 * may reject the candidate); the postprocessed program lowers. */
static int sketch_sound(const tsl_module *m, const tsl_trace *t, int fresh, uint64_t seed,
                        char *why, size_t cap) {
  tsl_replay_opts ro = {sizeof ro, fresh, seed, NULL, NULL};
  tsl_schedule *s = NULL;
  tsl_diag d = {0};
  if (tsl_trace_replay(ctx, t, m, &ro, &s, &d)) {
    snprintf(why, cap, "replay: %.1000s", d.text);
    return 0;
  }
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      int rc = tsl_space_apply_postprocs(s, n_postprocs, postprocs, &d);
      if (rc == TSL_EINVALID) {
        n_rejected++;
        break;
      }
      if (rc) {
        snprintf(why, cap, "postprocessors: %.1000s", d.text);
        tsl_schedule_free(s);
        return 0;
      }
      n_postprocessed++;
      kind_scan k = {{.stmt = find_parallel}, 0};
      k.v.user_data = &k;
      tsl_stmt_visit(tsl_schedule_func(s)->body, &k.v);
      n_parallel += k.parallel;
      tsl_arena *la = tsl_arena_new(ctx);
      const tsl_lowered_func *lf = NULL;
      rc = tsl_lower_func(la, tsl_schedule_func(s), NULL, &lf, &d);
      tsl_arena_free(la);
      if (rc) {
        char *tt = tsl_trace_to_script(tsl_schedule_trace(s), 1);
        snprintf(why, cap, "lowering the postprocessed program: %.800s\n%.3000s", d.text, tt);
        free(tt);
        tsl_schedule_free(s);
        return 0;
      }
    }
    const tsl_func *f0 = tsl_schedule_original(s)->funcs[0];
    const tsl_func *f1 = tsl_schedule_func_in_original_layout(s, f0->name);
    tsl_equiv_report rep;
    tsl_interp_opts io = {sizeof io, equiv_orders(), seed};
    int rc = tsl_interp_check_equivalent_opts(f0, f1, NULL, 0, seed, &io, &rep, &d);
    if (rc) {
      char *tt = tsl_trace_to_script(tsl_schedule_trace(s), 1);
      snprintf(why, cap, "interpreter%s: %.800s\n%.3000s", pass ? " after postprocessing" : "",
               d.text, tt);
      free(tt);
      tsl_schedule_free(s);
      return 0;
    }
  }
  tsl_schedule_free(s);
  return 1;
}

/* The sketches' text against tests/rules/sketches/PREFIX NAME.sketch
 * (rewritten first with TESSEL_UPDATE_GOLDEN=1). */
static void golden_sketches(tsl_trace *const *sk, uint32_t n, const char *prefix,
                            const char *name) {
  char path[4200];
  char *text = golden_sketches_text(sk, n);
  snprintf(path, sizeof path, "%s/tests/rules/sketches/%s%s.sketch", root, prefix, name);
  golden_is(text, path, "%s: %u sketch%s as in %s%s.sketch", name, n, n == 1 ? "" : "es", prefix,
            name);
  free(text);
}

static void sketches(void) {
  static const char *const names[] = {
      "elementwise_add", "softmax",    "layer_norm",   "gelu",       "matmul_relu",
      "dense_bias_relu", "conv2d_relu_nchw", "reductions", "avg_pool2d", "reshape_slice",
      "matmul_128",      "conv2d_nhwc", "batch_matmul", "gemv",      "depthwise_conv2d",
      "batch_matmul_1x128", "norm_bmn", "matmul_bias_128"}; /* softmax_256: softmax's sketches, 40x slower */
  tsl_space_rule *rules;
  uint32_t n_rules;
  tsl_diag d = {0};
  if (!ok(tsl_space_default_rules(reg, &target, &rules, &n_rules, &d) == TSL_OK,
          "the llvm default rules are created"))
    tap_diag("%s", d.text);
  for (size_t w = 0; w < sizeof names / sizeof names[0]; w++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/workloads/%s.py", root, names[w]);
    char *src = slurp(path);
    tsl_arena *a = tsl_arena_new(ctx);
    const tsl_module *m = src ? parse(a, src, names[w]) : NULL;
    tsl_trace **sk = NULL;
    uint32_t n = 0;
    if (m && tsl_space_generate(ctx, m, NULL, n_rules, rules, 0, NULL, &sk, &n, &d)) {
      ok(0, "%s: space generated", names[w]);
      tap_diag("%s", d.text);
    } else if (m) {
      golden_sketches(sk, n, "", names[w]);
      int sound = 1;
      char why[8192] = "";
      for (uint32_t i = 0; i < n && sound; i++) {
        sound = sketch_sound(m, sk[i], 0, 1, why, sizeof why);
        if (sound)
          sound = sketch_sound(m, sk[i], 1, 7 + i, why, sizeof why);
      }
      if (!ok(sound, "%s: every sketch, with its decisions and a fresh draw, computes what the "
                     "program computes, also postprocessed", names[w]))
        tap_diag("%s", why);
    }
    for (uint32_t i = 0; i < n; i++)
      tsl_trace_free(sk[i]);
    free(sk);
    tsl_arena_free(a);
    free(src);
  }
  tsl_space_rules_free(rules, n_rules);
  ok(n_postprocessed > 40 && n_parallel * 10 >= n_postprocessed * 8,
     "the default postprocessors: %d candidates postprocessed (interpreter-checked, lowered), "
     "%d with a parallel loop, %d rejected",
     n_postprocessed, n_parallel, n_rejected);
}

/* The workloads of MetaSchedule's CPU design-space tests written in
 * TVMScript (bench/space; docs/space_conformance.py compares them with
 * TVM's sketches): too big for the interpreter, so their sketches are
 * golden traces that postprocess and lower. */
static void space_workloads(void) {
  static const char *const names[] = {
      "conv1d_nlc",        "conv3d_ndhwc",          "conv2d_capsule_nhwijc",
      "depthwise_conv2d_nhwc", "conv2d_dilated_nhwc", "conv2d_group_nhwc",
      "conv2d_transpose_nhwc", "conv2d_nhwc_bn_relu", "transpose_batch_matmul"};
  tsl_space_rule *rules = NULL;
  uint32_t n_rules = 0;
  tsl_diag d = {0};
  if (tsl_space_default_rules(reg, &target, &rules, &n_rules, &d)) {
    ok(0, "default rules: %s", d.text);
    return;
  }
  for (size_t w = 0; w < sizeof names / sizeof names[0]; w++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/bench/space/%s.py", root, names[w]);
    char *src = slurp(path);
    tsl_arena *a = tsl_arena_new(ctx);
    const tsl_module *m = src ? parse(a, src, names[w]) : NULL;
    tsl_trace **sk = NULL;
    uint32_t n = 0;
    if (!m || tsl_space_generate(ctx, m, NULL, n_rules, rules, 0, NULL, &sk, &n, &d)) {
      ok(0, "%s: space generated: %s", names[w], m ? d.text : "no program");
    } else {
      golden_sketches(sk, n, "space_", names[w]);
      /* a draw a postprocessor rejects (DisallowDynamicLoop after a compute
       * location with a variable extent) is a rejected candidate, as in TVM:
       * each sketch needs one of its first draws to make a program */
      int fine = n > 0;
      for (uint32_t i = 0; i < n && fine; i++) {
        int made = 0;
        for (uint64_t seed = 0; seed < 8 && !made; seed++) {
          tsl_replay_opts ro = {sizeof ro, seed > 0, seed, NULL, NULL};
          tsl_schedule *s = NULL;
          tsl_arena *la = tsl_arena_new(ctx);
          const tsl_lowered_func *lf = NULL;
          if (!tsl_trace_replay(ctx, sk[i], m, &ro, &s, &d) &&
              !tsl_space_apply_postprocs(s, n_postprocs, postprocs, &d)) {
            made = 1;
            fine = !tsl_lower_func(la, tsl_schedule_func(s), NULL, &lf, &d);
          }
          if (!fine)
            tap_diag("%s sketch %u: %s", names[w], i, d.text);
          tsl_arena_free(la);
          tsl_schedule_free(s);
        }
        fine &= made;
      }
      ok(fine, "%s: every sketch gives a candidate that postprocesses and lowers", names[w]);
    }
    for (uint32_t i = 0; i < n; i++)
      tsl_trace_free(sk[i]);
    free(sk);
    tsl_arena_free(a);
    free(src);
  }
  tsl_space_rules_free(rules, n_rules);
}

static const char *two_stage =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 16), \"float32\"), C: T.Buffer((16, 16), \"float32\")):\n"
    "    B = T.alloc_buffer((16, 16))\n"
    "    for i, j in T.grid(16, 16):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "    for i, j in T.grid(16, 16):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            C[vi, vj] = B[vj, vi] + T.float32(1)\n";

static tsl_sch_rv block_rv(tsl_schedule *s, const char *name) {
  tsl_sch_rv rv = 0;
  tsl_diag d = {0};
  tsl_sch_get_block(s, name, &rv, &d);
  return rv;
}

static void fork_test(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, two_stage, "two_stage");
  tsl_schedule *s = NULL, *f = NULL;
  tsl_diag d = {0};
  tsl_schedule_new(ctx, m, NULL, &s, &d);
  tsl_sch_rv b = block_rv(s, "B");
  tsl_sch_arg args[1] = {{NULL, tsl_sv_rv(b)}};
  ok(tsl_schedule_fork(s, &f, &d) == TSL_OK, "fork");
  ok(tsl_sch_call(f, "compute_inline", 1, args, NULL, NULL, &d) == TSL_OK,
     "the fork inlines B through the parent's handle");
  ok(tsl_schedule_get_stmt(s, b) && !tsl_schedule_get_stmt(f, b),
     "B is gone in the fork only");
  ok(tsl_trace_len(tsl_schedule_trace(s)) == 1 && tsl_trace_len(tsl_schedule_trace(f)) == 2,
     "the traces went apart (1 and 2 instructions)");
  tsl_schedule *g = NULL;
  tsl_schedule_fork(f, &g, &d);
  tsl_schedule_free(f); /* g's nodes live in f's arena: kept alive */
  tsl_schedule_free(s);
  char *t = tsl_trace_to_script(tsl_schedule_trace(g), 1);
  ok(t && strstr(t, "compute_inline(block=b0)"),
     "a fork of a fork outlives both parents with its trace");
  free(t);
  char *p = tsl_print_module(tsl_schedule_module(g));
  ok(p && strstr(p, "A[vj, vi] * T.float32(2)"), "  ... and its module");
  free(p);
  tsl_schedule *h = NULL, *h2 = NULL;
  tsl_schedule_fork(g, &h, &d);
  tsl_schedule_fork(g, &h2, &d);
  ok(tsl_schedule_fork_seed(h) != tsl_schedule_fork_seed(h2),
     "two forks draw different seeds from their parent");
  tsl_schedule_free(h);
  tsl_schedule_free(g);
  tsl_schedule_free(h2);
  tsl_arena_free(a);
}

static void analyses(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, two_stage, "two_stage");
  tsl_schedule *s = NULL;
  tsl_diag d = {0};
  tsl_schedule_new(ctx, m, NULL, &s, &d);
  tsl_sch_rv b = block_rv(s, "B"), c = block_rv(s, "C"), r = block_rv(s, "root");
  ok(tsl_sch_is_root_block(s, r) && !tsl_sch_is_root_block(s, b), "root block");
  ok(tsl_sch_is_output_block(s, c) && !tsl_sch_is_output_block(s, b),
     "C writes an output, B a buffer its scope allocates");
  ok(tsl_sch_is_trivial_binding(s, b) && tsl_sch_is_spatial_func(s, b), "trivial, spatial");
  const tsl_block *deps[4];
  ok(tsl_sch_block_deps(s, b, 0, deps, 4) == 1 && deps[0]->name == tsl_intern(ctx, "C") &&
         tsl_sch_block_deps(s, c, 1, deps, 4) == 1 &&
         tsl_sch_block_deps(s, b, 1, NULL, 0) == 0,
     "B's consumer is C, C's producer is B, B has none");
  ok(tsl_trace_len(tsl_schedule_trace(s)) == 3, "the analyses record nothing in the trace");
  const tsl_stmt *loops[4];
  uint32_t nl;
  ok(tsl_sch_block_scope(s, c, loops, 4, &nl) == tsl_schedule_func(s)->body && nl == 2,
     "C's scope is the root, under 2 loops");
  const tsl_block *cb = tsl_schedule_get_stmt(s, c)->u.realize.block;
  tsl_rw_pattern p;
  ok(tsl_rw_pattern_analyze(&cb->reads[0], &cb->writes[0], &p) && p.surjective &&
         p.injective && !p.ordered && p.no_const_read && p.no_shift_read,
     "B[vj, vi] against C[vi, vj]: surjective, injective, not ordered");
  tsl_schedule_free(s);

  const char *src =
      "@T.prim_func\n"
      "def main(A: T.Buffer((16,), \"float32\"), D: T.Buffer((4,), \"float32\"),\n"
      "         C: T.Buffer((16, 16), \"float32\")):\n"
      "    for i, j in T.grid(16, 16):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            T.where(i < 15)\n"
      "            C[vi, vj] = A[vi + 1] + D[3]\n";
  m = parse(a, src, "shifted");
  tsl_schedule_new(ctx, m, NULL, &s, &d);
  c = block_rv(s, "C");
  cb = tsl_schedule_get_stmt(s, c)->u.realize.block;
  ok(tsl_sch_has_if_then_else(s, c), "a T.where counts as a branch");
  ok(tsl_rw_pattern_analyze(&cb->reads[0], &cb->writes[0], &p) && !p.surjective &&
         p.injective && p.ordered && !p.no_shift_read && p.no_const_read,
     "A[vi + 1] against C[vi, vj]: shifted, vj unread");
  ok(tsl_rw_pattern_analyze(&cb->reads[1], &cb->writes[0], &p) && !p.no_const_read &&
         !p.surjective,
     "D[3] against C[vi, vj]: a constant read");
  tsl_schedule_free(s);
  tsl_arena_free(a);
}

static void options(void) {
  tsl_space_rule r;
  tsl_diag d = {0};
  tsl_kv bad_key = {"into_produce", "true"}, bad_val = {"into_producer", "maybe"},
         steps = {"unroll_max_steps", "[0, 8]"}, bad_list = {"unroll_max_steps", "[0, x]"};
  ok(tsl_space_rule_create(reg, "AutoInline", &target, 1, &bad_key, &r, &d) == TSL_EINVALID &&
         strstr(d.text, "unknown option 'into_produce'; valid: into_producer, into_consumer"),
     "an unknown option names the valid ones: %s", d.text);
  ok(tsl_space_rule_create(reg, "AutoInline", &target, 1, &bad_val, &r, &d) == TSL_EINVALID &&
         strstr(d.text, "'into_producer' is 'maybe'; it must be true or false"),
     "a bad value says what is valid: %s", d.text);
  ok(tsl_space_rule_create(reg, "ParallelizeVectorizeUnroll", &target, 1, &bad_list, &r, &d) ==
         TSL_EINVALID && strstr(d.text, "a list of integers"),
     "a bad list says what is valid: %s", d.text);
  ok(tsl_space_rule_create(reg, "NoSuchRule", &target, 0, NULL, &r, &d) != TSL_OK &&
         strstr(d.text, "AutoInline"),
     "an unknown rule lists the registered ones: %s", d.text);
  tsl_kv bad_op = {"disallow_op", "tir.exp,tir.frob"};
  ok(tsl_space_rule_create(reg, "AutoInline", &target, 1, &bad_op, &r, &d) == TSL_EINVALID &&
         strstr(d.text, "'tir.frob', which is not a math intrinsic"),
     "disallow_op names only math intrinsics: %s", d.text);
  tsl_kv rf_bad = {"max_innermost_factor", "sixty"};
  ok(tsl_space_rule_create(reg, "AddRFactor", &target, 1, &rf_bad, &r, &d) == TSL_EINVALID &&
         strstr(d.text, "it must be an integer"),
     "AddRFactor options are checked: %s", d.text);
  tsl_rule_target no_cores = target;
  no_cores.num_cores = 0;
  ok(tsl_space_rule_create(reg, "ParallelizeVectorizeUnroll", &no_cores, 0, NULL, &r, &d) ==
         TSL_EINVALID && strstr(d.text, "core count"),
     "parallelizing without a core count is refused: %s", d.text);
  /* a 2-step unroll list shows in the sample */
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, two_stage, "two_stage");
  const char *sum =
      "@T.prim_func\n"
      "def main(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
      "    for i, k in T.grid(16, 16):\n"
      "        with T.block(\"B\"):\n"
      "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
      "            with T.init():\n"
      "                B[vi] = T.float32(0)\n"
      "            B[vi] = B[vi] + A[vi, vk]\n";
  const tsl_module *ms = parse(a, sum, "sum");
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  if (ok(tsl_space_rule_create(reg, "ParallelizeVectorizeUnroll", &target, 1, &steps, &r, &d) ==
             TSL_OK,
         "unroll_max_steps: [0, 8]") &&
      tsl_space_generate(ctx, ms, NULL, 1, &r, 0, NULL, &sk, &n, &d) == TSL_OK && n == 1) {
    char *t = tsl_trace_to_script(sk[0], 1);
    ok(strstr(t, "candidates=[0, 8], probs=[0.5, 0.5]") &&
           strstr(t, "meta_schedule.parallel\", ann_val=32"),
       "the sample draws from [0, 8]; parallel extent 16 jobs x 2 cores");
    free(t);
    tsl_trace_free(sk[0]);
    free(sk);
    sk = NULL;
    /* a spatial function gets no unroll sample */
    if (tsl_space_generate(ctx, m, NULL, 1, &r, 0, NULL, &sk, &n, &d) == TSL_OK && n == 1) {
      t = tsl_trace_to_script(sk[0], 1);
      ok(!strstr(t, "sample_categorical"), "no unroll sample in a spatial function");
      free(t);
      tsl_trace_free(sk[0]);
    }
    free(sk);
    tsl_space_rules_free(NULL, 0);
    r.vtable->destroy(r.rule);
  }
  tsl_arena_free(a);
}

/* MultiLevelTiling with the GPU-style options: thread binds and read reuse
 * with cooperative fetching; and its option errors. */
static void mlt_options(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const char *mm =
      "@T.prim_func\n"
      "def main(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\"),\n"
      "         C: T.Buffer((64, 64), \"float32\")):\n"
      "    for i, j, k in T.grid(64, 64, 64):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            with T.init():\n"
      "                C[vi, vj] = T.float32(0)\n"
      "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  const tsl_module *m = parse(a, mm, "mm");
  tsl_kv gpu[] = {{"structure", "SSSRRSRS"},
                  {"tile_binds", "blockIdx.x, vthread.x, threadIdx.x"},
                  {"max_innermost_factor", "16"},
                  {"vector_load_lens", "[1, 2, 3, 4, 8]"},
                  {"reuse_read_req", "must"},
                  {"reuse_read_levels", "[4]"},
                  {"reuse_read_scope", "shared"},
                  {"reuse_write_req", "must"},
                  {"reuse_write_levels", "[3]"},
                  {"reuse_write_scope", "local"}};
  tsl_space_rule r;
  tsl_diag d = {0};
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  if (ok(tsl_space_rule_create(reg, "MultiLevelTiling", &target, 10, gpu, &r, &d) == TSL_OK,
         "MultiLevelTiling with TVM's CUDA options") &&
      ok(tsl_space_generate(ctx, m, NULL, 1, &r, 3, NULL, &sk, &n, &d) == TSL_OK && n == 1,
         "  ... gives one sketch (write reuse must, one level; read reuse at level 4)")) {
    char *t = tsl_trace_to_script(sk[0], 1);
    ok(strstr(t, "sch.bind(loop=") && strstr(t, "thread_axis=\"threadIdx.x\"") &&
           strstr(t, "storage_scope=\"shared\"") && strstr(t, "storage_scope=\"local\"") &&
           strstr(t, "meta_schedule.cooperative_fetch") &&
           strstr(t, "candidates=[1, 2, 3, 4], probs=[0.25, 0.25, 0.25, 0.25]"),
       "  ... fused levels bound to threads, shared and local caches, fetch lengths <= 4 "
       "for float32");
    char why[8192] = "";
    int sound = sketch_sound(m, sk[0], 0, 1, why, sizeof why);
    for (uint64_t s = 1; s <= 3 && sound; s++)
      sound = sketch_sound(m, sk[0], 1, s, why, sizeof why);
    if (!ok(sound, "  ... computes the matmul with its decisions and 3 fresh draws"))
      tap_diag("%s\n%s", why, t);
    free(t);
    tsl_trace_free(sk[0]);
    r.vtable->destroy(r.rule);
  } else {
    tap_diag("%s", d.text);
  }
  free(sk);
  struct {
    tsl_kv kv;
    const char *want;
  } bad[] = {
      {{"structure", "SSXR"}, "only S (spatial) and R (reduction) are valid"},
      {{"reuse_write_req", "always"}, "reuse_write_req is 'always'; it must be no, may or must"},
      {{"reuse_write_levels", "[7]"}, "levels run from 1 to 6"},
      {{"reuse_read_req", "may"}, "reuse_read_req may is not supported"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = tsl_space_rule_create(reg, "MultiLevelTiling", &target, 1, &bad[i].kv, &r, &d);
    ok(rc == TSL_EINVALID && strstr(d.text, bad[i].want), "MultiLevelTiling %s: %s refused: %s",
       bad[i].kv.key, bad[i].kv.value, d.text);
  }
  tsl_arena_free(a);
}

/* AutoInline keeps a block calling a disallowed op (TVM's llvm list:
 * tir.exp), and inlines it when the list is empty. */
static void disallow_op(void) {
  const char *src =
      "@T.prim_func\n"
      "def main(A: T.Buffer((16, 16), \"float32\"), C: T.Buffer((16,), \"float32\")):\n"
      "    B = T.alloc_buffer((16, 16))\n"
      "    for i, j in T.grid(16, 16):\n"
      "        with T.block(\"B\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            B[vi, vj] = T.exp(A[vi, vj])\n"
      "    for i, k in T.grid(16, 16):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
      "            with T.init():\n"
      "                C[vi] = T.float32(0)\n"
      "            C[vi] = C[vi] + B[vi, vk]\n";
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, src, "exp_sum");
  tsl_kv none = {"disallow_op", ""};
  for (int k = 0; k < 2 && m; k++) {
    tsl_space_rule r;
    tsl_diag d = {0};
    tsl_trace **sk = NULL;
    uint32_t n = 0;
    if (tsl_space_rule_create(reg, "AutoInline", &target, k ? 1 : 0, &none, &r, &d) ||
        tsl_space_generate(ctx, m, NULL, 1, &r, 0, NULL, &sk, &n, &d) || n != 1) {
      ok(0, "AutoInline on exp_sum: %s", d.text);
      continue;
    }
    char *t = tsl_trace_to_script(sk[0], 1);
    ok(!strstr(t, "compute_inline") == !k,
       k ? "AutoInline with disallow_op empty inlines the exp block"
         : "AutoInline keeps the exp block (disallow_op tir.exp by default)");
    free(t);
    tsl_trace_free(sk[0]);
    free(sk);
    r.vtable->destroy(r.rule);
  }
  tsl_arena_free(a);
}

/* Each default mutator on a postprocessed candidate (matmul_64 for the
 * tile and unroll mutators, softmax for compute locations): each proposal
 * is the sketch part with one decision changed (tile products kept, the
 * innermost factor within max_innermost_factor; another unroll step;
 * another compute location), and it replays, postprocesses and computes
 * what the program computes. */
/* A workload's first sketch postprocessed with its own decisions: what the
 * mutator tests mutate. */
typedef struct first_cand {
  tsl_arena *a;
  char *src;
  const tsl_module *m;
  tsl_space_rule *rules;
  uint32_t n_rules, n;
  tsl_trace **sk;
  tsl_schedule *s;
} first_cand;

static int first_cand_make(first_cand *fc, const char *workload, tsl_diag *d) {
  memset(fc, 0, sizeof *fc);
  fc->a = tsl_arena_new(ctx);
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/%s.py", root, workload);
  fc->src = slurp(path);
  fc->m = fc->src ? parse(fc->a, fc->src, workload) : NULL;
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  return !fc->m || tsl_space_default_rules(reg, &target, &fc->rules, &fc->n_rules, d) ||
                 tsl_space_generate(ctx, fc->m, NULL, fc->n_rules, fc->rules, 0, NULL, &fc->sk,
                                    &fc->n, d) ||
                 !fc->n || tsl_trace_replay(ctx, fc->sk[0], fc->m, &ro, &fc->s, d) ||
                 tsl_space_apply_postprocs(fc->s, n_postprocs, postprocs, d)
             ? -1
             : 0;
}

static void first_cand_free(first_cand *fc) {
  tsl_schedule_free(fc->s);
  for (uint32_t i = 0; i < fc->n; i++)
    tsl_trace_free(fc->sk[i]);
  free(fc->sk);
  tsl_space_rules_free(fc->rules, fc->n_rules);
  free(fc->src);
  tsl_arena_free(fc->a);
}

static void mutate_one(const tsl_space_mutator *mu, const char *workload, const char *kind) {
  first_cand fc;
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  if (first_cand_make(&fc, workload, &d)) {
    ok(0, "%s on %s: setup: %s", mu->name, workload, d.text);
  } else {
    m = fc.m;
    tsl_trace *cand = tsl_trace_copy(tsl_schedule_trace(fc.s));
    tsl_trace *base = tsl_trace_before_postproc(cand);
    int proposals = 0, good = 0, sound = 0, checked = 0;
    char why[8192] = "";
    for (uint64_t seed = 1; seed <= 60; seed++) {
      uint64_t st = seed;
      tsl_trace *mt = NULL;
      if (mu->vtable->apply(mu->m, m, cand, &st, &mt, &d) || !mt)
        continue;
      proposals++;
      int changed = 0, fine = tsl_trace_len(mt) == tsl_trace_len(base);
      for (uint32_t i = 0; fine && i < tsl_trace_len(mt); i++) {
        const tsl_trace_inst *x = tsl_trace_get(mt, i), *y = tsl_trace_get(base, i);
        if (tsl_sv_equal(&x->decision, &y->decision))
          continue;
        changed++;
        fine = !strcmp(x->kind->name, kind);
        if (fine && !strcmp(kind, "sample_perfect_tile")) {
          int64_t p0 = 1, p1 = 1;
          for (uint32_t j = 0; j < x->decision.n; j++) {
            p0 *= y->decision.u.items[j].u.i;
            p1 *= x->decision.u.items[j].u.i;
          }
          fine = p0 == p1 && x->decision.u.items[x->decision.n - 1].u.i <= 64;
        }
      }
      good += fine && changed == 1;
      if (checked < 6) {
        checked++;
        sound += sketch_sound(m, mt, 0, seed, why, sizeof why);
      }
      tsl_trace_free(mt);
    }
    ok(proposals >= 30 && good == proposals,
       "%s on %s: %d proposals from 60 seeds, each the sketch with one %s decision changed "
       "as TVM's mutator changes it (%d)",
       mu->name, workload, proposals, kind, good);
    if (!ok(sound == checked && checked > 0,
            "%s: the first %d proposals replay, postprocess and compute what %s computes",
            mu->name, checked, workload))
      tap_diag("%s", why);
    tsl_trace_free(base);
    tsl_trace_free(cand);
  }
  first_cand_free(&fc);
}

/* The postprocessed program of a candidate (heap text), or NULL. */
static char *postprocessed(const tsl_module *m, const tsl_trace *t) {
  tsl_schedule *s = NULL;
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  tsl_diag d = {0};
  char *text = NULL;
  if (!tsl_trace_replay(ctx, t, m, &ro, &s, &d) &&
      !tsl_space_apply_postprocs(s, n_postprocs, postprocs, &d))
    text = tsl_print_func(tsl_schedule_func(s));
  tsl_schedule_free(s);
  return text;
}

/* MutateParallel changes only the meta_schedule.parallel annotation's
 * value, to a limit that fuses another number of leading loops. */
static void mutate_parallel(const tsl_space_mutator *mu) {
  first_cand fc;
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  /* the candidate: the sketch of the golden case MutateParallel/mm64_seed1
   * (its tiles put loops of 2, 1, 4, 8 first), postprocessed */
  char path[4200];
  snprintf(path, sizeof path, "%s/tests/rules/cases/MutateParallel/mm64_seed1.sch", root);
  char *script = slurp(path);
  int rc = first_cand_make(&fc, "matmul_64", &d);
  if (!rc) {
    tsl_schedule_free(fc.s);
    fc.s = NULL;
    rc = !script || tsl_schedule_new(ctx, fc.m, NULL, &fc.s, &d) ||
         tsl_script_run(fc.s, "mm64_seed1.sch", script, strlen(script), &d) ||
         tsl_space_apply_postprocs(fc.s, n_postprocs, postprocs, &d);
  }
  free(script);
  if (rc) {
    ok(0, "MutateParallel: setup: %s", d.text);
  } else {
    m = fc.m;
    tsl_trace *cand = tsl_trace_copy(tsl_schedule_trace(fc.s));
    tsl_trace *base = tsl_trace_before_postproc(cand);
    char *orig_prog = postprocessed(m, base);
    int64_t orig_val = -1;
    int proposals = 0, good = 0, other_prog = 0, sound = 0;
    int64_t values[64];
    int n_values = 0;
    char why[8192] = "";
    for (uint64_t seed = 1; seed <= 30; seed++) {
      uint64_t st = seed;
      tsl_trace *mt = NULL;
      if (mu->vtable->apply(mu->m, m, cand, &st, &mt, &d) || !mt)
        continue;
      proposals++;
      int changed = 0, fine = tsl_trace_len(mt) == tsl_trace_len(base);
      for (uint32_t i = 0; fine && i < tsl_trace_len(mt); i++) {
        const tsl_trace_inst *x = tsl_trace_get(mt, i), *y = tsl_trace_get(base, i);
        for (uint32_t k = 0; k < x->n_args; k++) {
          if (tsl_sv_equal(&x->args[k], &y->args[k]))
            continue;
          changed++;
          fine = !strcmp(x->kind->name, "annotate") && k == 2 &&
                 !strcmp(x->args[1].u.s, "meta_schedule.parallel") &&
                 x->args[2].u.i != y->args[2].u.i && x->args[2].u.i <= 2 * 16;
          orig_val = y->args[2].u.i;
          int seen = 0;
          for (int v = 0; v < n_values; v++)
            seen |= values[v] == x->args[2].u.i;
          if (!seen && n_values < 64)
            values[n_values++] = x->args[2].u.i;
        }
      }
      good += fine && changed == 1;
      char *prog = postprocessed(m, mt); /* another fusion in some block */
      other_prog += prog && orig_prog && strcmp(prog, orig_prog) != 0;
      free(prog);
      if (proposals <= 4)
        sound += sketch_sound(m, mt, 0, seed, why, sizeof why);
      tsl_trace_free(mt);
    }
    ok(proposals >= 20 && good == proposals,
       "MutateParallel on matmul_64: %d proposals from 30 seeds, each the sketch with only the "
       "meta_schedule.parallel value changed (from %lld), within 2 cores x 16 jobs (%d)",
       proposals, (long long)orig_val, good);
    /* both blocks' leading loops (2, 1, 4, 8, then the reduction) give the
     * running products 2, 2, 8, 64: limit 2 fuses 2 loops, 8 fuses 3, the
     * current 32 fuses 4 (TVM's GetNumFusedLoops), 64 is over 2 x 16 */
    int two = 0, eight = 0, others = 0;
    for (int v = 0; v < n_values; v++)
      *(values[v] == 2 ? &two : values[v] == 8 ? &eight : &others) += 1;
    ok(two && eight && !others, "  ... the limits drawn are 2 and 8, the plans other than 32's");
    ok(other_prog > 0 && other_prog < proposals,
       "  ... limit 2 postprocesses into another program; 8 into the same as 32 (the "
       "postprocessor fuses up to the first product over the limit: TVM's mutator and "
       "postprocessor disagree at equality) (%d of %d differ)", other_prog, proposals);
    free(orig_prog);
    if (!ok(sound == (proposals < 4 ? proposals : 4) && sound > 0,
            "  ... the first proposals replay, postprocess and compute what matmul_64 computes"))
      tap_diag("%s", why);
    tsl_trace_free(base);
    tsl_trace_free(cand);
  }
  first_cand_free(&fc);
  /* options */
  tsl_space_mutator bad;
  tsl_kv kv = {"max_jobs_per_core", "0"};
  ok(tsl_space_mutator_create(reg, "MutateParallel", &target, 0.02, 1, &kv, &bad, &d) ==
             TSL_EINVALID &&
         strstr(d.text, "max_jobs_per_core"),
     "MutateParallel: max_jobs_per_core 0 is refused");
}

static void mutators(void) {
  tsl_space_mutator *ms = NULL;
  uint32_t n_ms = 0;
  tsl_diag d = {0};
  if (tsl_space_default_mutators(reg, &target, &ms, &n_ms, &d)) {
    ok(0, "default mutators: %s", d.text);
    return;
  }
  ok(n_ms == 4 && !strcmp(ms[0].name, "MutateTileSize") && ms[0].prob == 0.9 &&
         !strcmp(ms[1].name, "MutateComputeLocation") && ms[1].prob == 0.05 &&
         !strcmp(ms[2].name, "MutateUnroll") && ms[2].prob == 0.03 &&
         !strcmp(ms[3].name, "MutateParallel") && ms[3].prob == 0.02,
     "the llvm mutators with TVM's weights");
  if (n_ms == 4) {
    mutate_one(&ms[0], "matmul_64", "sample_perfect_tile");
    mutate_one(&ms[1], "softmax", "sample_compute_location");
    mutate_one(&ms[2], "matmul_64", "sample_categorical");
    mutate_parallel(&ms[3]);
  }
  tsl_space_mutators_free(ms, n_ms);
}

static void custom(void) {
  const char *src =
      "@T.prim_func\n"
      "def main(A: T.Buffer((16,), \"float32\"), C: T.Buffer((16,), \"float32\")):\n"
      "    B = T.alloc_buffer((16,))\n"
      "    for i in range(16):\n"
      "        with T.block(\"B\"):\n"
      "            vi = T.axis.spatial(16, i)\n"
      "            T.block_attr({\"schedule_rule\": \"my_rule\"})\n"
      "            B[vi] = A[vi] * T.float32(2)\n"
      "    for i in range(16):\n"
      "        with T.block(\"C\"):\n"
      "            vi = T.axis.spatial(16, i)\n"
      "            C[vi] = B[vi] + T.float32(1)\n";
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, src, "custom");
  tsl_space_rule r;
  tsl_diag d = {0};
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  if (m && tsl_space_rule_create(reg, "AutoInline", &target, 0, NULL, &r, &d) == TSL_OK &&
      tsl_space_generate(ctx, m, NULL, 1, &r, 0, NULL, &sk, &n, &d) == TSL_OK && n == 1) {
    char *t = tsl_trace_to_script(sk[0], 1);
    ok(!strstr(t, "compute_inline"), "AutoInline leaves a block annotated schedule_rule alone");
    free(t);
    tsl_trace_free(sk[0]);
    r.vtable->destroy(r.rule);
  } else {
    ok(0, "AutoInline leaves a block annotated schedule_rule alone");
    tap_diag("%s", d.text);
  }
  free(sk);
  tsl_arena_free(a);
}

/* A target names its own default space (tsl_target_vtable.space_defaults):
 * the lists are created from the registry in its order, with its options
 * and weights; a target without one, or naming an unknown component, gets
 * an error that says what to do. */
static void target_defaults(void) {
  static const tsl_kv mlt_opts[] = {{"max_innermost_factor", "4"}};
  static const tsl_space_entry rules[] = {{"AutoInline", 0, 0, NULL},
                                          {"MultiLevelTiling", 0, 1, mlt_opts}};
  static const tsl_space_entry pps[] = {{"DisallowDynamicLoop", 0, 0, NULL}};
  static const tsl_space_entry muts[] = {{"MutateUnroll", 0.25, 0, NULL},
                                         {"MutateTileSize", 0.75, 0, NULL}};
  static const tsl_space_defaults mine = {sizeof mine, 2, rules, 1, pps, 2, muts};
  static const tsl_target_vtable with = {.struct_size = sizeof with, .space_defaults = &mine};
  static const tsl_target_vtable without = {.struct_size = sizeof without};
  static const tsl_target_vtable old = {.struct_size = offsetof(tsl_target_vtable,
                                                                space_defaults)};
  static const tsl_space_entry unknown[] = {{"NoSuchRule", 0, 0, NULL}};
  static const tsl_space_defaults bad = {sizeof bad, 1, unknown, 0, NULL, 0, NULL};
  static const tsl_target_vtable naming_unknown = {.struct_size = sizeof naming_unknown,
                                                   .space_defaults = &bad};
  const struct {
    const char *name;
    const tsl_target_vtable *vt;
  } targets[] = {{"t.mine", &with}, {"t.none", &without}, {"t.old", &old},
                 {"t.unknown", &naming_unknown}};
  tsl_diag d = {0};
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    tsl_component c = {.struct_size = sizeof c, .kind = TSL_COMPONENT_TARGET,
                       .name = targets[i].name, .version = "1", .vtable = targets[i].vt};
    if (tsl_registry_add(reg, &c, &d))
      tap_diag("%s", d.text);
  }
  tsl_rule_target t = {sizeof t, "t.mine", 2, 32, NULL};
  tsl_space_rule *rs = NULL;
  tsl_space_postproc *ps = NULL;
  tsl_space_mutator *ms = NULL;
  uint32_t nr = 0, np = 0, nm = 0;
  is_int(tsl_space_default_rules(reg, &t, &rs, &nr, &d), 0, "a target's own default rules");
  ok(nr == 2 && !strcmp(rs[0].name, "AutoInline") && !strcmp(rs[1].name, "MultiLevelTiling"),
     "  ... the two it names, in its order");
  is_int(tsl_space_default_postprocs(reg, &t, &ps, &np, &d), 0, "  ... its postprocessors");
  ok(np == 1 && !strcmp(ps[0].name, "DisallowDynamicLoop"), "  ... the one it names");
  is_int(tsl_space_default_mutators(reg, &t, &ms, &nm, &d), 0, "  ... its mutators");
  ok(nm == 2 && !strcmp(ms[0].name, "MutateUnroll") && ms[0].prob == 0.25 &&
         !strcmp(ms[1].name, "MutateTileSize") && ms[1].prob == 0.75,
     "  ... with its weights");
  /* The options reach the rule (TVM's llvm default is 64). */
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, "@T.prim_func\n"
                                 "def mm(A: T.Buffer((64, 64), \"float32\"), "
                                 "B: T.Buffer((64, 64), \"float32\"), "
                                 "C: T.Buffer((64, 64), \"float32\")):\n"
                                 "    for i, j, k in T.grid(64, 64, 64):\n"
                                 "        with T.block(\"C\"):\n"
                                 "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
                                 "            with T.init():\n"
                                 "                C[vi, vj] = T.float32(0)\n"
                                 "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
                              "matmul");
  tsl_trace **sk = NULL;
  uint32_t nsk = 0;
  if (m && nr == 2 && !tsl_space_generate(ctx, m, NULL, nr, rs, 1, NULL, &sk, &nsk, &d)) {
    char *text = golden_sketches_text(sk, nsk);
    ok(nsk >= 1 && strstr(text, "max_innermost_factor=4") &&
           !strstr(text, "max_innermost_factor=64"),
       "  ... with its options (MultiLevelTiling's max_innermost_factor 4)");
    free(text);
    for (uint32_t i = 0; i < nsk; i++)
      tsl_trace_free(sk[i]);
    free(sk);
  } else {
    ok(0, "  ... with its options: %s", d.text);
  }
  tsl_arena_free(a);
  tsl_space_rules_free(rs, nr);
  tsl_space_postprocs_free(ps, np);
  tsl_space_mutators_free(ms, nm);

  const char *none[] = {"t.none", "t.old"};
  for (int i = 0; i < 2; i++) {
    t.kind = none[i];
    is_int(tsl_space_default_rules(reg, &t, &rs, &nr, &d), TSL_EUNSUPPORTED,
           "a target without a default space (%s) has no default rules", none[i]);
    ok(strstr(d.text, "names no default schedule rules") &&
           strstr(d.text, "space: {schedule: FILE.sch}"),
       "  ... saying to give the space as a schedule script");
  }
  t.kind = "t.unknown";
  ok(tsl_space_default_rules(reg, &t, &rs, &nr, &d) != 0 && strstr(d.text, "NoSuchRule"),
     "a default naming an unregistered rule fails, naming it");
  t.kind = "nosuch";
  is_int(tsl_space_default_rules(reg, &t, &rs, &nr, &d), TSL_EUNSUPPORTED,
         "an unregistered target has no default rules");
  ok(strstr(d.text, "no target 'nosuch' is registered") != NULL, "  ... saying so");
}

/* ---- AutoBind ------------------------------------------------------------------ */

/* Replayed with its decisions and 3 fresh draws, the sketch computes what
 * the program computes (thread loops in every order the interpreter
 * tries). */
static int bound_sketch_sound(const tsl_module *m, const tsl_trace *t, char *why, size_t cap) {
  for (uint64_t seed = 0; seed < 4; seed++) {
    tsl_replay_opts ro = {sizeof ro, seed > 0, seed, NULL, NULL};
    tsl_schedule *s = NULL;
    tsl_diag d = {0};
    tsl_equiv_report rep;
    tsl_interp_opts io = {sizeof io, equiv_orders(), seed + 1};
    int rc = tsl_trace_replay(ctx, t, m, &ro, &s, &d);
    if (!rc)
      rc = tsl_interp_check_equivalent_opts(m->funcs[0], tsl_schedule_func(s), NULL, 0,
                                            seed + 1, &io, &rep, &d);
    tsl_schedule_free(s);
    if (rc) {
      snprintf(why, cap, "seed %llu: %.2000s", (unsigned long long)seed, d.text);
      return 0;
    }
  }
  return 1;
}

/* RewriteUnboundBlock after AutoBind: nothing left to bind. */
static void nothing_unbound(const tsl_module *m, const tsl_trace *t, const char *name) {
  tsl_space_postproc pp;
  tsl_schedule *s = NULL;
  tsl_diag d = {0};
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  int rc = tsl_space_postproc_create(reg, "RewriteUnboundBlock", &target, 0, NULL, &pp, &d);
  if (rc) {
    ok(0, "AutoBind/%s: RewriteUnboundBlock: %s", name, d.text);
    return;
  }
  char why[1024] = "";
  if (!(rc = tsl_trace_replay(ctx, t, m, &ro, &s, &d))) {
    const tsl_module *before = tsl_schedule_module(s);
    rc = tsl_space_apply_postprocs(s, 1, &pp, &d);
    if (!rc && !tsl_module_equal(before, tsl_schedule_module(s), why, sizeof why))
      rc = TSL_EINVALID;
  }
  if (!ok(!rc, "AutoBind/%s: RewriteUnboundBlock then changes nothing", name))
    tap_diag("%s %s", d.text, why);
  tsl_schedule_free(s);
  pp.vtable->destroy(pp.pp);
}

static void auto_bind_case(const char *dir, const char *name) {
  char path[4400], obuf[512];
  snprintf(path, sizeof path, "%s/%s.py", dir, name);
  char *src = slurp(path);
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = src ? parse(a, src, name) : NULL;
  tsl_kv kv[8];
  uint32_t n_kv = src ? case_options(src, obuf, sizeof obuf, kv, 8) : 0;
  const char *sl = src ? strstr(src, "# seed:") : NULL;
  uint64_t seed = sl ? strtoull(sl + 7, NULL, 10) : 0;
  tsl_space_rule r = {0};
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  tsl_diag d = {0};
  if (!m || tsl_space_rule_create(reg, "AutoBind", &target, n_kv, kv, &r, &d)) {
    ok(0, "AutoBind/%s: the program and the rule: %s", name, d.text);
    goto out;
  }
  char *got;
  int rc = tsl_space_generate(ctx, m, NULL, 1, &r, seed, NULL, &sk, &n, &d);
  tsl_schedule *s = NULL;
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  if (!rc && n == 1 && !(rc = tsl_trace_replay(ctx, sk[0], m, &ro, &s, &d))) {
    char *text = golden_sketches_text(sk, n), *prog = tsl_print_module(tsl_schedule_module(s));
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    tsl_strbuf_printf(&sb, "%s\n# the sketch's program\n%s", text, prog);
    got = tsl_strbuf_take(&sb);
    free(text);
    free(prog);
  } else {
    got = malloc(strlen(d.text) + 32);
    if (rc)
      sprintf(got, "%s\n", d.text);
    else
      sprintf(got, "%u sketches, not 1\n", n);
  }
  tsl_schedule_free(s);
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  golden_is(got, path, "AutoBind/%s: %s as in %s.expected", name,
            rc ? "the error" : "the sketch and its program", name);
  free(got);
  if (!rc && n == 1) {
    char why[4096] = "";
    if (!ok(bound_sketch_sound(m, sk[0], why, sizeof why),
            "AutoBind/%s: the sketch, with its decisions and 3 fresh draws, computes what the "
            "program computes",
            name))
      tap_diag("%s", why);
    nothing_unbound(m, sk[0], name);
  }
out:
  for (uint32_t i = 0; i < n; i++)
    tsl_trace_free(sk[i]);
  free(sk);
  if (r.rule)
    r.vtable->destroy(r.rule);
  tsl_arena_free(a);
  free(src);
}

/* Option errors of AutoBind and RewriteUnboundBlock name what is valid. */
static void bind_options(void) {
  static const struct {
    const char *comp;
    tsl_kv kv;
    const char *want;
  } bad[] = {
      {"AutoBind", {"max_threadblock", "8"},
       "unknown option 'max_threadblock'; valid: max_threadblocks, thread_extents, "
       "max_threads_per_block"},
      {"AutoBind", {"max_threadblocks", "0"}, "max_threadblocks is 0; it must be from 1"},
      {"AutoBind", {"thread_extents", "[32, -64]"}, "thread extents must be positive"},
      {"AutoBind", {"thread_extents", "32 64"}, "it must be a list of integers"},
      {"AutoBind", {"max_threads_per_block", "-1"}, "max_threads_per_block is -1"},
      {"RewriteUnboundBlock", {"thread_extents", "[32]"},
       "unknown option 'thread_extents'; valid: max_threadblocks, max_threads_per_block"},
      {"RewriteUnboundBlock", {"max_threadblocks", "many"}, "it must be an integer"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tsl_diag d = {0};
    tsl_space_rule r;
    tsl_space_postproc pp;
    int rc = !strcmp(bad[i].comp, "AutoBind")
                 ? tsl_space_rule_create(reg, bad[i].comp, &target, 1, &bad[i].kv, &r, &d)
                 : tsl_space_postproc_create(reg, bad[i].comp, &target, 1, &bad[i].kv, &pp, &d);
    ok(rc == TSL_EINVALID && strstr(d.text, bad[i].want), "%s %s: %s refused: %s",
       bad[i].comp, bad[i].kv.key, bad[i].kv.value, d.text);
  }
}

static void auto_bind(void) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/tests/rules/auto_bind", root);
  char *names[64];
  int n = tf_list(dir, ".py", 0, names, 64);
  ok(n >= 10, "AutoBind: %d programs", n);
  for (int i = 0; i < n; i++) {
    if (tf_selected(names[i]))
      auto_bind_case(dir, names[i]);
    free(names[i]);
  }
  bind_options();
}

/* ---- GPU components ------------------------------------------------------------- */

typedef struct fetch_scan {
  const tsl_stmt *loops[64];
  uint32_t depth;
  int annotated, shared, bound; /* annotations left, _shared blocks, those bound */
} fetch_scan;

static int fetch_pre(const tsl_stmt *s, void *ud) {
  fetch_scan *f = ud;
  if (s->kind == TSL_STMT_FOR && f->depth < 64)
    f->loops[f->depth++] = s;
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  const tsl_block *b = s->u.realize.block;
  f->annotated += tsl_attrs_get(b->annotations, "meta_schedule.cooperative_fetch") != NULL;
  size_t n = strlen(b->name);
  if (n < 7 || strcmp(b->name + n - 7, "_shared"))
    return 0;
  f->shared++;
  /* the innermost loop is threadIdx.x, or vectorized under threadIdx.x */
  const tsl_stmt *in = f->depth ? f->loops[f->depth - 1] : NULL;
  if (in && in->u.loop.for_kind == TSL_FOR_VECTORIZED && f->depth >= 2)
    in = f->loops[f->depth - 2];
  f->bound += in && in->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
              !strcmp(in->u.loop.thread_tag, "threadIdx.x");
  return 0;
}

static int fetch_post(const tsl_stmt *s, void *ud) {
  fetch_scan *f = ud;
  if (s->kind == TSL_STMT_FOR && f->depth)
    f->depth--;
  return 0;
}

/* RewriteCooperativeFetch on MultiLevelTiling's GPU sketch of a matmul
 * (TVM's CUDA options): with fresh decisions, every shared-memory copy is
 * bound to threadIdx.x (its vector lanes inside), no annotation is left,
 * and the program computes the matmul. */
static void cooperative_fetch_space(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/matmul_64.py", root);
  char *src = slurp(path);
  const tsl_module *m = src ? parse(a, src, "matmul_64") : NULL;
  tsl_kv gpu[] = {{"structure", "SSSRRSRS"},
                  {"tile_binds", "blockIdx.x, vthread.x, threadIdx.x"},
                  {"max_innermost_factor", "64"},
                  {"vector_load_lens", "[1, 2, 3, 4]"},
                  {"reuse_read_req", "must"},
                  {"reuse_read_levels", "[4]"},
                  {"reuse_read_scope", "shared"},
                  {"reuse_write_req", "must"},
                  {"reuse_write_levels", "[3]"},
                  {"reuse_write_scope", "local"}};
  static const char *const names[] = {"DisallowDynamicLoop", "RewriteCooperativeFetch",
                                      "RewriteParallelVectorizeUnroll",
                                      "RewriteReductionBlock"};
  tsl_space_rule r = {0};
  tsl_space_postproc pps[4] = {{0}};
  tsl_diag d = {0};
  tsl_trace **sk = NULL;
  uint32_t n = 0;
  int rc = !m || tsl_space_rule_create(reg, "MultiLevelTiling", &target, 10, gpu, &r, &d) ||
           tsl_space_generate(ctx, m, NULL, 1, &r, 5, NULL, &sk, &n, &d) || n != 1;
  for (int i = 0; i < 4 && !rc; i++)
    rc = tsl_space_postproc_create(reg, names[i], &target, 0, NULL, &pps[i], &d);
  int good = 0, runs = 0, copies = 0;
  char why[2048] = "";
  for (uint64_t seed = 1; seed <= 8 && !rc; seed++, runs++) {
    tsl_replay_opts ro = {sizeof ro, 1, seed, NULL, NULL};
    tsl_schedule *s = NULL;
    tsl_equiv_report rep;
    fetch_scan f = {.depth = 0};
    tsl_stmt_visitor v = {.stmt = fetch_pre, .stmt_post = fetch_post, .user_data = &f};
    int st = tsl_trace_replay(ctx, sk[0], m, &ro, &s, &d) ||
             tsl_space_apply_postprocs(s, 4, pps, &d);
    if (!st) {
      tsl_stmt_visit(tsl_schedule_func(s)->body, &v);
      st = tsl_interp_check_equivalent(m->funcs[0], tsl_schedule_func(s), NULL, 0, seed, &rep,
                                       &d);
    }
    copies += f.shared;
    if (!st && !f.annotated && f.shared == 2 && f.bound == 2)
      good++;
    else if (!why[0])
      snprintf(why, sizeof why, "seed %llu: %.1900s (%d annotations left, %d of %d copies bound)",
               (unsigned long long)seed, st ? d.text : "", f.annotated, f.bound, f.shared);
    tsl_schedule_free(s);
  }
  if (!ok(!rc && good == runs && runs == 8,
          "RewriteCooperativeFetch on MultiLevelTiling's GPU matmul sketch: %d of 8 fresh draws "
          "bind all %d shared copies to threadIdx.x, leave no annotation and compute the "
          "matmul",
          good, copies))
    tap_diag("%s %s", rc ? d.text : "", why);
  for (uint32_t i = 0; i < n; i++)
    tsl_trace_free(sk[i]);
  free(sk);
  for (int i = 0; i < 4; i++)
    if (pps[i].pp)
      pps[i].vtable->destroy(pps[i].pp);
  if (r.rule)
    r.vtable->destroy(r.rule);
  free(src);
  tsl_arena_free(a);
  /* options */
  tsl_space_postproc bad;
  tsl_kv kv[] = {{"thread_warp_size", "0"}, {"warp", "32"}};
  ok(tsl_space_postproc_create(reg, "RewriteCooperativeFetch", &target, 1, &kv[0], &bad, &d) ==
             TSL_EINVALID &&
         strstr(d.text, "thread_warp_size"),
     "RewriteCooperativeFetch: thread_warp_size 0 is refused: %s", d.text);
  ok(tsl_space_postproc_create(reg, "RewriteCooperativeFetch", &target, 1, &kv[1], &bad, &d) ==
             TSL_EINVALID &&
         strstr(d.text, "valid: thread_warp_size"),
     "RewriteCooperativeFetch: an unknown option is refused: %s", d.text);
}

/* TVM's test of MutateThreadBinding: AutoBind's pattern with six thread
 * counts and decision 3; proposals from one advancing state change only
 * that decision, never to 3, and reach the five others. */
static void mutate_thread_binding(void) {
  static const char *script =
      "b0 = sch.get_block(name=\"T_add\", func_name=\"main\")\n"
      "l1, l2 = sch.get_loops(block=b0)\n"
      "l3 = sch.fuse(l1, l2)\n"
      "v4 = sch.sample_categorical(candidates=[32, 64, 128, 256, 512, 1024], "
      "probs=[0.16666666666666666, 0.16666666666666666, 0.16666666666666666, "
      "0.16666666666666666, 0.16666666666666666, 0.16666666666666666], decision=3)\n"
      "l5, l6 = sch.split(loop=l3, factors=[None, v4])\n"
      "sch.bind(loop=l5, thread_axis=\"blockIdx.x\")\n"
      "sch.bind(loop=l6, thread_axis=\"threadIdx.x\")\n";
  tsl_arena *a = tsl_arena_new(ctx);
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/elementwise_add.py", root);
  char *src = slurp(path);
  const tsl_module *m = src ? parse(a, src, "elementwise_add") : NULL;
  tsl_space_mutator mu = {0};
  tsl_schedule *s = NULL;
  tsl_diag d = {0};
  int rc = !m || tsl_space_mutator_create(reg, "MutateThreadBinding", &target, 1, 0, NULL, &mu,
                                          &d) ||
           tsl_schedule_new(ctx, m, NULL, &s, &d) ||
           tsl_script_run(s, "thread_binding", script, strlen(script), &d);
  int seen[6] = {0}, n_seen = 0, proposals = 0, only = 1;
  uint64_t state = 42;
  for (int i = 0; i < 100 && !rc && n_seen < 5; i++) {
    tsl_trace *mt = NULL;
    if (mu.vtable->apply(mu.m, m, tsl_schedule_trace(s), &state, &mt, &d) || !mt)
      break;
    proposals++;
    const tsl_trace *t = tsl_schedule_trace(s);
    for (uint32_t k = 0; k < tsl_trace_len(mt); k++) {
      const tsl_sch_value *x = &tsl_trace_get(mt, k)->decision, *y = &tsl_trace_get(t, k)->decision;
      if (k != 3)
        only &= tsl_sv_equal(x, y);
    }
    int64_t dec = tsl_trace_get(mt, 3)->decision.u.i;
    only &= dec >= 0 && dec < 6 && dec != 3;
    if (dec >= 0 && dec < 6 && !seen[dec]++)
      n_seen++;
    tsl_trace_free(mt);
  }
  ok(!rc && only && n_seen == 5 && !seen[3],
     "MutateThreadBinding (TVM's test): %d proposals reach decisions {0, 1, 2, 4, 5} of the "
     "thread count, nothing else changed%s%s",
     proposals, rc ? ": " : "", rc ? d.text : "");
  tsl_schedule_free(s);
  if (mu.m)
    mu.vtable->destroy(mu.m);
  tsl_kv kv = {"weight", "1"};
  tsl_space_mutator bad;
  ok(tsl_space_mutator_create(reg, "MutateThreadBinding", &target, 1, 1, &kv, &bad, &d) ==
             TSL_EINVALID &&
         strstr(d.text, "unknown option 'weight'"),
     "MutateThreadBinding takes no options: %s", d.text);
  free(src);
  tsl_arena_free(a);
}

int main(void) {
  root = getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  ctx = tsl_ctx_new();
  tsl_diag d = {0};
  /* the llvm target's plugin names the default space */
  unsetenv("TESSEL_PLUGIN_PATH");
  if (tsl_registry_new(ctx, &reg, &d) || tsl_registry_load_default(reg, 0, NULL, &d)) {
    ok(0, "registry: %s", d.text);
    return tap_done();
  }
  if (tsl_space_default_postprocs(reg, &target, &postprocs, &n_postprocs, &d)) {
    ok(0, "default postprocessors: %s", d.text);
    return tap_done();
  }
  sketches();
  space_workloads();
  fork_test();
  analyses();
  options();
  mlt_options();
  disallow_op();
  mutators();
  cooperative_fetch_space();
  mutate_thread_binding();
  custom();
  target_defaults();
  auto_bind();
  tsl_space_postprocs_free(postprocs, n_postprocs);
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return tap_done();
}
