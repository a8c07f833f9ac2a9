/*
 * The LLVM target's options and code properties:
 *  - options: defaults and describe(), every bad key / value is an error
 *    saying what is valid;
 *  - vector code: with a 512-bit preference (mcpu=skylake-avx512) the
 *    optimized IR of a plain elementwise loop uses <16 x float>, with
 *    vector-width=256 only <8 x float> (IR only: this host may lack
 *    AVX-512);
 *  - UNROLLED loops (left by lowering under pragma_unroll_explicit = 0)
 *    carry llvm.loop.unroll.full and vanish after O3; T.unroll loops are
 *    otherwise copied by lowering;
 *  - parallel loops: identical results for threads 1, 2, 4 (extents that
 *    do and do not divide), equal to the interpreter; per-iteration
 *    allocations inside a parallel loop; nested parallel loops, parallel
 *    loops inside serial ones, symbolic extents;
 *  - opt-level 0..3 all give correct code;
 *  - the comparison used by every test detects a corrupted output.
 */
#include "llvm_util.h"

static tsl_ctx *ctx;

static const tsl_module *parse(tsl_arena *a, const char *src) {
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  if (tsl_parse(a, "test.py", src, strlen(src), &m, &d)) {
    tap_diag("parse: %s", d.text);
    return NULL;
  }
  return m;
}

static const tsl_func *schedule(tsl_arena *a, const char *src,
                                const char *script, tsl_schedule **sch,
                                const tsl_module **orig) {
  tsl_diag d = {0};
  *orig = parse(a, src);
  if (!*orig)
    return NULL;
  if (tsl_schedule_new(ctx, *orig, NULL, sch, &d) ||
      tsl_script_run(*sch, "test.sch", script, strlen(script), &d)) {
    tap_diag("schedule: %s", d.text);
    return NULL;
  }
  return tsl_schedule_func(*sch);
}

/* ---- options --------------------------------------------------------------- */

static void expect_error(const char *spec, const char *needle) {
  tsl_diag d = {0};
  tsl_target *t = lt_target(spec, &d);
  ok(!t && strstr(d.text, needle), "option error for '%s' mentions '%s'",
     spec, needle);
  if (t || !strstr(d.text, needle))
    tap_diag("got: %s", t ? "(created)" : d.text);
  tll_vtable.destroy(t);
}

static void test_options(void) {
  tsl_diag d = {0};
  tsl_target *t = lt_target("", &d);
  ok(t != NULL, "default target");
  if (t) {
    const char *s = tll_vtable.describe(t);
    tap_diag("default: %s", s);
    ok(!strncmp(s, "llvm -mcpu=", 11) && strstr(s, "-threads=") &&
           strstr(s, "-opt-level=3"),
       "describe() names cpu, threads and opt level");
    ok(t->opts.threads >= 1, "default threads %d >= 1", (int)t->opts.threads);
    tll_vtable.destroy(t);
  }
  t = lt_target("threads=3 opt-level=2 mcpu=haswell", &d);
  ok(t && !strcmp(tll_vtable.describe(t),
                  "llvm -mcpu=haswell -threads=3 -opt-level=2"),
     "describe with explicit options: %s", t ? tll_vtable.describe(t) : d.text);
  tll_vtable.destroy(t);
  t = lt_target("threads=1 mcpu=skylake-avx512", &d);
  ok(t && strstr(tll_vtable.describe(t), "-vector-width=512") &&
         t->opts.vector_width == 512,
     "skylake-avx512 prefers 512-bit vectors by default");
  tll_vtable.destroy(t);
  t = lt_target("threads=1 mcpu=skylake-avx512 mattr=-avx512f", &d);
  ok(t && t->opts.vector_width == 0,
     "mattr=-avx512f turns the 512-bit preference off");
  tll_vtable.destroy(t);
  t = lt_target("threads=1 mcpu=haswell mattr=+avx512f vector-width=256", &d);
  ok(t && t->opts.vector_width == 256 &&
         strstr(tll_vtable.describe(t), "-mattr=+avx512f"),
     "explicit vector-width and mattr are kept");
  tll_vtable.destroy(t);

  expect_error("foo=1", "unknown option 'foo'");
  expect_error("foo=1", "mcpu, mattr, threads, opt-level, vector-width");
  expect_error("threads=0", "1 to 1024");
  expect_error("threads=two", "1 to 1024");
  expect_error("opt-level=4", "0, 1, 2, 3");
  expect_error("vector-width=300", "128, 256, 512");
  expect_error("fast-math=yes", "0 or 1");
  expect_error("llvm-unroll=2", "0 or 1");
  expect_error("mcpu=pentium9", "skylake-avx512");
  expect_error("mattr=avx2", "+name or -name");
  expect_error("mattr=+avx2,+nosuchfeature", "nosuchfeature");
}

/* ---- IR properties --------------------------------------------------------- */

static const char *add_src =
    "@T.prim_func\n"
    "def add(A: T.Buffer((4096,), \"float32\"), B: T.Buffer((4096,), "
    "\"float32\"), C: T.Buffer((4096,), \"float32\")):\n"
    "    for i in range(4096):\n"
    "        with T.block(\"C\"):\n"
    "            vi = T.axis.spatial(4096, i)\n"
    "            C[vi] = A[vi] + B[vi]\n";

static char *ir_of(const char *spec, const tsl_func *f, int vectorize,
                   int optimized) {
  tsl_diag d = {0};
  tll_opts o;
  tsl_kv kv[8];
  char buf[256], *save = NULL;
  uint32_t n = 0;
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *tok = strtok_r(buf, " ", &save); tok && n < 8;
       tok = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(tok, '=');
    *eq = '\0';
    kv[n].key = tok;
    kv[n++].value = eq + 1;
  }
  if (tll_opts_parse(n, kv, &o, &d))
    return NULL;
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_lowered_func *lf = NULL;
  tsl_lower_opts lo = {sizeof lo, vectorize};
  char *ir = NULL;
  if (!tsl_lower_func(a, f, &lo, &lf, &d)) {
    const tsl_lowered_func *fl[1] = {lf};
    tsl_lowered_module lm = {sizeof lm, 1, fl};
    if (tll_module_ir(&o, &lm, optimized, &ir, &d))
      tap_diag("%s", d.text);
  } else {
    tap_diag("%s", d.text);
  }
  tsl_arena_free(a);
  tll_opts_free(&o);
  return ir;
}

static void test_vector_width(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, add_src);
  char *w512 = m ? ir_of("threads=1 mcpu=skylake-avx512", m->funcs[0], 0, 1)
                 : NULL;
  char *w256 = m ? ir_of("threads=1 mcpu=skylake-avx512 vector-width=256",
                         m->funcs[0], 0, 1)
                 : NULL;
  ok(w512 && strstr(w512, "<16 x float>"),
     "512-bit preference: the loop is vectorized with <16 x float>");
  ok(w512 && strstr(w512, "\"prefer-vector-width\"=\"512\""),
     "functions carry prefer-vector-width=512");
  ok(w256 && strstr(w256, "<8 x float>") && !strstr(w256, "<16 x float>"),
     "vector-width=256: only <8 x float>");
  ok(w512 && strstr(w512, "\"target-cpu\"=\"skylake-avx512\""),
     "functions carry target-cpu");
  free(w512);
  free(w256);
  tsl_arena_free(a);
}

/* A T.unroll loop under pragma_unroll_explicit = 0 stays an UNROLLED loop
 * in the lowered program (by default lowering makes one copy of the body
 * per iteration instead). */
static const char *unroll_src =
    "@T.prim_func\n"
    "def scale(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), "
    "\"float32\")):\n"
    "    for i in T.unroll(8, annotations={\"pragma_unroll_explicit\": 0}):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(8, i)\n"
    "            B[vi] = A[vi] * T.float32(3)\n";

static const char *unroll_explicit_src =
    "@T.prim_func\n"
    "def scale(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), "
    "\"float32\")):\n"
    "    for i in T.unroll(8):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(8, i)\n"
    "            B[vi] = A[vi] * T.float32(3)\n";

static void test_unrolled(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, unroll_src);
  const tsl_module *mx = parse(a, unroll_explicit_src);
  char *raw = m ? ir_of("threads=1 opt-level=3", m->funcs[0], 0, 0) : NULL;
  char *opt = m ? ir_of("threads=1 opt-level=3", m->funcs[0], 0, 1) : NULL;
  char *copies = mx ? ir_of("threads=1 opt-level=3", mx->funcs[0], 0, 0) : NULL;
  ok(raw && strstr(raw, "llvm.loop.unroll.full") && strstr(raw, "phi"),
     "an UNROLLED loop is a loop with llvm.loop.unroll.full before O3");
  ok(opt && !strstr(opt, "phi") && !strstr(opt, "br label"),
     "after O3 the unrolled loop has no loop left");
  if (opt && (strstr(opt, "phi") || strstr(opt, "br label")))
    tap_diag("%s", opt);
  ok(copies && !strstr(copies, "phi") && !strstr(copies, "llvm.loop"),
     "T.unroll without pragma_unroll_explicit = 0: lowering leaves no loop");
  free(raw);
  free(opt);
  free(copies);
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=1", &d);
  if (m && t)
    lt_check(t, ctx, m->funcs[0], m->funcs[0], NULL, 0, 1, "unrolled loop");
  if (mx && t)
    lt_check(t, ctx, mx->funcs[0], mx->funcs[0], NULL, 0, 1, "explicitly unrolled loop");
  tll_vtable.destroy(t);
  tsl_arena_free(a);
}

/* pragma_auto_unroll_max_step with pragma_unroll_explicit = 0: lowering
 * marks the loops that qualify UNROLLED (j: 8 steps, i: 4 x 8 = 32 <= 64)
 * instead of copying their bodies; they reach LLVM's unroller. */
static const char *unroll_hint_src =
    "@T.prim_func\n"
    "def scale(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), "
    "\"float32\")):\n"
    "    for i in T.serial(4, annotations={\"pragma_auto_unroll_max_step\": 64, "
    "\"pragma_unroll_explicit\": 0}):\n"
    "        for j in range(8):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = A[vi, vj] * T.float32(3)\n";

static void test_unroll_hint(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, unroll_hint_src);
  char *raw = m ? ir_of("threads=1 opt-level=3", m->funcs[0], 0, 0) : NULL;
  ok(raw && strstr(raw, "llvm.loop.unroll.full") && strstr(raw, "phi") &&
         !strstr(raw, "llvm.loop.unroll.disable"),
     "pragma_unroll_explicit = 0: both loops stay loops with "
     "llvm.loop.unroll.full");
  if (raw && !strstr(raw, "llvm.loop.unroll.full"))
    tap_diag("%s", raw);
  free(raw);
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=1", &d);
  if (m && t)
    lt_check(t, ctx, m->funcs[0], m->funcs[0], NULL, 0, 1, "unroll hint");
  tll_vtable.destroy(t);
  tsl_arena_free(a);
}

/* A serial loop the schedule did not unroll stays rolled by default
 * (llvm.loop.unroll.disable); llvm-unroll=1 hands it to LLVM's unroller. */
static const char *rolled_src =
    "@T.prim_func\n"
    "def scale(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), "
    "\"float32\")):\n"
    "    for i, j in T.grid(4, 8):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(3)\n";

static void test_llvm_unroll_option(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, rolled_src);
  const tsl_func *f = m ? m->funcs[0] : NULL;
  char *def = f ? ir_of("threads=1", f, 0, 0) : NULL;
  char *on = f ? ir_of("threads=1 llvm-unroll=1", f, 0, 0) : NULL;
  ok(def && strstr(def, "llvm.loop.unroll.disable"),
     "by default serial loops carry llvm.loop.unroll.disable");
  ok(on && !strstr(on, "llvm.loop"),
     "llvm-unroll=1: serial loops carry no loop metadata");
  char *opt_def = f ? ir_of("threads=1", f, 0, 1) : NULL;
  char *opt_on = f ? ir_of("threads=1 llvm-unroll=1", f, 0, 1) : NULL;
  ok(opt_def && strstr(opt_def, "phi"),
     "after O3 the 4-iteration loop is still a loop");
  ok(opt_on && !strstr(opt_on, "phi"),
     "llvm-unroll=1: after O3 LLVM has unrolled it");
  free(opt_on);
  free(def);
  free(on);
  free(opt_def);
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=1 llvm-unroll=1", &d);
  ok(t != NULL, "llvm-unroll=1 is accepted");
  if (f && t)
    lt_check(t, ctx, f, f, NULL, 0, 1, "llvm-unroll=1");
  tll_vtable.destroy(t);
  tsl_arena_free(a);
}

/* ---- parallel loops -------------------------------------------------------- */

static const char *mm_src =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((74, 48), \"float32\"), B: T.Buffer((48, 40), "
    "\"float32\"), C: T.Buffer((74, 40), \"float32\")):\n"
    "    for i, j, k in T.grid(74, 40, 48):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

/* i split by 2 (37 outer iterations: 4 threads do not divide them), a local
 * accumulator allocated per parallel iteration, j vectorized by 8 */
static const char *mm_par =
    "b = sch.get_block(\"C\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "i0, i1 = sch.split(i, [None, 2])\n"
    "j0, j1 = sch.split(j, [None, 8])\n"
    "sch.reorder(i0, j0, k, i1, j1)\n"
    "c = sch.cache_write(b, 0, \"local\")\n"
    "sch.reverse_compute_at(c, j0)\n"
    "sch.parallel(i0)\n"
    "sch.vectorize(j1)\n";

static int run_with(const char *spec, const tsl_func *f, tsl_arg *args,
                    uint32_t n) {
  tsl_diag d = {0};
  tsl_target *t = lt_target(spec, &d);
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_lowered_func *lf = NULL;
  tsl_kernel *k = NULL;
  int rc = -1;
  tsl_lower_opts lo = {sizeof lo, 1};
  if (t && !tsl_lower_func(a, f, &lo, &lf, &d)) {
    const tsl_lowered_func *fl[1] = {lf};
    tsl_lowered_module lm = {sizeof lm, 1, fl};
    if (!tll_vtable.build(t, &lm, &k, NULL, &d)) {
      lt_packed p;
      (void)n;
      lt_pack(lf, args, NULL, 0, &p);
      rc = tll_vtable.lookup(k, lf->name)(p.ptrs);
    }
  }
  if (rc)
    tap_diag("%s: %s", spec, d.text);
  tll_vtable.kernel_free(k);
  tll_vtable.destroy(t);
  tsl_arena_free(a);
  return rc;
}

static void test_parallel(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_schedule *sch = NULL;
  const tsl_module *orig = NULL;
  const tsl_func *f = schedule(a, mm_src, mm_par, &sch, &orig);
  ok(f != NULL, "parallel matmul schedule applies");
  if (!f) {
    tsl_arena_free(a);
    return;
  }
  static const char *specs[] = {"threads=1", "threads=2", "threads=4",
                                "threads=3 opt-level=1"};
  tsl_arg args[4][3], ref[3];
  tsl_diag d = {0};
  tsl_func_make_args(orig->funcs[0], NULL, 0, 3, ref, &d);
  tsl_interp_run(orig->funcs[0], ref, 3, &d);
  for (int s = 0; s < 4; s++) {
    tsl_func_make_args(orig->funcs[0], NULL, 0, 3, args[s], &d);
    is_int(run_with(specs[s], f, args[s], 3), 0, "%s: call returns 0",
           specs[s]);
    double err;
    char why[256];
    int64_t bad = lt_compare(orig->funcs[0], ref, args[s], &err, why, sizeof why);
    ok(bad == 0, "%s: agrees with the interpreter", specs[s]);
    if (bad)
      tap_diag("%s", why);
  }
  for (int s = 1; s < 4; s++)
    ok(!memcmp(args[s][2].tensor.data, args[0][2].tensor.data,
               74 * 40 * sizeof(float)),
       "%s: bit-identical to threads=1", specs[s]);
  for (int s = 0; s < 4; s++)
    tsl_args_free(args[s], 3);
  tsl_args_free(ref, 3);

  /* the comparison catches a wrong element */
  tsl_arg got[3];
  tsl_func_make_args(orig->funcs[0], NULL, 0, 3, ref, &d);
  tsl_func_make_args(orig->funcs[0], NULL, 0, 3, got, &d);
  tsl_interp_run(orig->funcs[0], ref, 3, &d);
  run_with("threads=2", f, got, 3);
  double err;
  char why[256];
  ((float *)got[2].tensor.data)[1234] += 0.01f;
  ok(lt_compare(orig->funcs[0], ref, got, &err, why, sizeof why) == 1,
     "a corrupted output element is detected (%s)", why);
  tsl_args_free(ref, 3);
  tsl_args_free(got, 3);
  tsl_schedule_free(sch);
  tsl_arena_free(a);
}

/* a parallel loop nested in a parallel loop (runs serially inside), a
 * parallel loop inside a serial one (a team per iteration) and a parallel
 * loop with a symbolic extent */
static const char *nested_src =
    "@T.prim_func\n"
    "def nest(a: T.handle, b: T.handle):\n"
    "    n = T.int32()\n"
    "    A = T.match_buffer(a, (n, 24), \"float32\")\n"
    "    B = T.match_buffer(b, (n, 24), \"float32\")\n"
    "    for i in T.parallel(n):\n"
    "        for j in T.parallel(24):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "    for j in range(24):\n"
    "        for i in T.parallel(n):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = B[vi, vj] + A[vi, vj]\n";

static void test_nested_parallel(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, nested_src);
  static const tsl_binding binds[] = {{"n", 37}};
  for (int th = 1; th <= 4 && m; th *= 2) {
    char spec[32], id[64];
    snprintf(spec, sizeof spec, "threads=%d", th);
    snprintf(id, sizeof id, "nested and symbolic parallel loops, threads=%d",
             th);
    tsl_diag d = {0};
    tsl_target *t = lt_target(spec, &d);
    lt_check(t, ctx, m->funcs[0], m->funcs[0], binds, 1, 1, id);
    tll_vtable.destroy(t);
  }
  tsl_arena_free(a);
}

static void test_opt_levels(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_schedule *sch = NULL;
  const tsl_module *orig = NULL;
  const tsl_func *f = schedule(a, mm_src, mm_par, &sch, &orig);
  for (int level = 0; level <= 3 && f; level++) {
    char spec[64], id[64];
    snprintf(spec, sizeof spec, "threads=2 opt-level=%d", level);
    snprintf(id, sizeof id, "opt-level=%d", level);
    tsl_diag d = {0};
    tsl_target *t = lt_target(spec, &d);
    lt_check(t, ctx, orig->funcs[0], f, NULL, 0, 1, id);
    tll_vtable.destroy(t);
  }
  tsl_schedule_free(sch);
  tsl_arena_free(a);
}

int main(void) {
  ctx = tsl_ctx_new();
  test_options();
  test_vector_width();
  test_unrolled();
  test_unroll_hint();
  test_llvm_unroll_option();
  test_parallel();
  test_nested_parallel();
  test_opt_levels();
  tsl_ctx_free(ctx);
  return tap_done();
}
