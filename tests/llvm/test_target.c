/*
 * The LLVM target's options and code properties:
 *  - options: defaults and describe(), every bad key / value is an error
 *    saying what is valid;
 *  - hosts: the default CPU (the host's, "generic" with the host's features
 *    when LLVM does not know it, or $TESSEL_LLVM_MCPU), which code a host
 *    can run (pretended Zen 3 and unknown hosts, then this one: an instance
 *    for a CPU it lacks features of is refused, naming them);
 *  - code for each CPU of `cpus` whatever the host (IR only, inspected
 *    through the LLVM C API in ir_shape.h, never as text): vector lanes and
 *    function attributes; UNROLLED loops (left by lowering under
 *    pragma_unroll_explicit = 0) carry llvm.loop.unroll.full and vanish
 *    after O3; T.unroll loops are otherwise copied by lowering; serial
 *    loops carry llvm.loop.unroll.disable unless llvm-unroll=1;
 *  - running on this host: parallel loops (identical results for threads
 *    1, 2, 4, extents that do and do not divide, equal to the interpreter;
 *    per-iteration allocations inside a parallel loop; nested parallel
 *    loops, parallel loops inside serial ones, symbolic extents), opt-level
 *    0..3, and the comparison used by every test detects a corrupted output.
 */
#include "ir_shape.h"
#include "llvm_util.h"

#include <llvm-c/TargetMachine.h>

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

/* Options parsed into tll_opts without an instance (instances are only for
 * CPUs this host can run): "key=value key=value". */
static int parse_spec(const char *spec, const tll_host *host, tll_opts *o, tsl_diag *d) {
  tsl_kv kv[8];
  char buf[256];
  uint32_t n = lt_parse_kv(spec, buf, sizeof buf, kv, 8);
  return host ? tll_opts_parse_for(n, kv, host, o, d) : tll_opts_parse(n, kv, o, d);
}

/* describe() of the options (malloc), or the error. */
static char *describe_of(const char *spec) {
  tsl_diag d = {0};
  tll_opts o;
  if (parse_spec(spec, NULL, &o, &d))
    return strdup(d.text);
  char *s = tll_opts_describe(&o);
  tll_opts_free(&o);
  return s;
}

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
  } else {
    tap_diag("%s", d.text);
  }
  char *s = describe_of("threads=3 opt-level=2 mcpu=haswell");
  is_str(s, "llvm -mcpu=haswell -threads=3 -opt-level=2", "describe with explicit options");
  free(s);
  s = describe_of("threads=3 mcpu=haswell vector-math=0");
  is_str(s, "llvm -mcpu=haswell -threads=3 -opt-level=3 -vector-math=0",
         "describe names vector-math=0 (the default, 1, is left out)");
  free(s);
  tll_opts o;
  int rc = parse_spec("threads=1 mcpu=skylake-avx512", NULL, &o, &d);
  s = rc ? NULL : tll_opts_describe(&o);
  ok(s && strstr(s, "-vector-width=512") && o.vector_width == 512,
     "skylake-avx512 prefers 512-bit vectors by default");
  free(s);
  if (!rc)
    tll_opts_free(&o);
  rc = parse_spec("threads=1 mcpu=skylake-avx512 mattr=-avx512f", NULL, &o, &d);
  ok(!rc && o.vector_width == 0, "mattr=-avx512f turns the 512-bit preference off");
  if (!rc)
    tll_opts_free(&o);
  rc = parse_spec("threads=1 mcpu=skylake-avx512 mattr=-avx2", NULL, &o, &d);
  ok(!rc && o.vector_width == 0,
     "mattr=-avx2 turns it off too (AVX-512F needs AVX2, as in LLVM)");
  if (!rc)
    tll_opts_free(&o);
  rc = parse_spec("threads=1 mcpu=haswell mattr=+avx512f vector-width=256", NULL, &o, &d);
  s = rc ? NULL : tll_opts_describe(&o);
  ok(s && o.vector_width == 256 && strstr(s, "-mattr=+avx512f"),
     "explicit vector-width and mattr are kept");
  free(s);
  if (!rc)
    tll_opts_free(&o);

  expect_error("foo=1", "unknown option 'foo'");
  expect_error("foo=1", "mcpu, mattr, threads, opt-level, vector-width");
  expect_error("threads=0", "1 to 1024");
  expect_error("threads=two", "1 to 1024");
  expect_error("opt-level=4", "0, 1, 2, 3");
  expect_error("vector-width=300", "128, 256, 512");
  expect_error("fast-math=yes", "0 or 1");
  expect_error("llvm-unroll=2", "0 or 1");
  expect_error("vector-math=on", "0 or 1");
  expect_error("foo=1", "llvm-unroll, vector-math");
  expect_error("mcpu=pentium9", "skylake-avx512");
  expect_error("mattr=avx2", "+name or -name");
  expect_error("mattr=+avx2,+nosuchfeature", "nosuchfeature");
}

/* ---- hosts: which CPU code is built for, and which code runs here --------- */

/* The feature strings of hosts this test pretends to be, as
 * LLVMGetHostCPUFeatures writes them (abridged). */
static const char *const zen3_features =
    "+sse2,+sse3,+ssse3,+sse4.1,+sse4.2,+popcnt,+lzcnt,+movbe,+bmi,+bmi2,+avx,+avx2,+fma,"
    "+f16c,-gfni,-avx512f,-avx512bw,-avx512vl,-avx512dq,-avx512cd,-avx512vnni,-avxvnni,"
    "-avx512bf16,-avx512fp16,-avx512vbmi,-amx-tile,-amx-int8,-amx-bf16,-amx-fp16";
static const char *const avx512_features =
    "+sse2,+sse3,+ssse3,+sse4.1,+sse4.2,+popcnt,+avx,+avx2,+fma,+f16c,+bmi2,+avx512f,"
    "+avx512bw,+avx512vl,+avx512dq,+avx512cd,-avx512fp16,-amx-tile";

static char *isa_names(uint64_t isa) {
  static char buf[1024];
  buf[0] = '\0';
  for (int i = 0; tll_isa_features[i]; i++)
    if (isa >> i & 1)
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "",
               tll_isa_features[i]);
  return buf[0] ? buf : "(none beyond SSE2)";
}

/* a CPU LLVM does not know: generic tuning, every feature of the host */
static void test_unknown_host(void) {
  static const char *const unknown[] = {"", "generic", "zen9000"};
  for (int i = 0; i < 3; i++) {
    tsl_diag d = {0};
    tll_opts o;
    tll_host h = {unknown[i], avx512_features, NULL};
    int rc = parse_spec("threads=1", &h, &o, &d);
    ok(!rc && !strcmp(o.cpu, "generic") && !strcmp(o.features, avx512_features) &&
           o.cpu_is_host && o.vector_width == 512 &&
           tll_check_runnable(&o, unknown[i], avx512_features, &d) == TSL_OK,
       "a host CPU LLVM does not know ('%s'): code for generic with the host's features, "
       "512-bit vectors from its AVX-512F, runnable",
       unknown[i]);
    if (!rc)
      tll_opts_free(&o);
  }
}

/* the default CPU: the host's, or TESSEL_LLVM_MCPU's */
static void test_default_cpu(void) {
  tsl_diag d = {0};
  tll_opts o;
  tll_host h = {"znver3", zen3_features, NULL};
  int rc = parse_spec("threads=1", &h, &o, &d);
  ok(!rc && !strcmp(o.cpu, "znver3") && o.cpu_is_host && o.vector_width == 0,
     "on a Zen 3 host the default is znver3 with LLVM's vector width");
  if (!rc)
    tll_opts_free(&o);
  h.default_cpu = "x86-64-v2";
  rc = parse_spec("threads=1", &h, &o, &d);
  ok(!rc && !strcmp(o.cpu, "x86-64-v2") && !strcmp(o.features, "") && !o.cpu_is_host,
     "TESSEL_LLVM_MCPU sets the default CPU (its own features, not the host's)");
  if (!rc)
    tll_opts_free(&o);
  rc = parse_spec("threads=1 mcpu=haswell", &h, &o, &d);
  ok(!rc && !strcmp(o.cpu, "haswell"), "an mcpu option wins over TESSEL_LLVM_MCPU");
  if (!rc)
    tll_opts_free(&o);
  rc = parse_spec("threads=1 mcpu=native", &h, &o, &d);
  ok(!rc && !strcmp(o.cpu, "znver3") && o.cpu_is_host, "mcpu=native is the host");
  if (!rc)
    tll_opts_free(&o);
  h.default_cpu = "pentium9";
  rc = parse_spec("threads=1", &h, &o, &d);
  ok(rc && strstr(d.text, "TESSEL_LLVM_MCPU") && strstr(d.text, "pentium9") &&
         strstr(d.text, "znver3"),
     "an unknown TESSEL_LLVM_MCPU is an error naming it and the valid CPUs");
  if (!rc)
    tll_opts_free(&o);
}

/* which code a Zen 3 host can run */
static void test_zen3_runs(void) {
  static const struct {
    const char *spec;
    int runs;
    const char *missing; /* a feature the message must name */
  } cases[] = {
      {"mcpu=znver3", 1, NULL},
      {"mcpu=x86-64-v2", 1, NULL},
      {"mcpu=x86-64-v3", 1, NULL},
      {"mcpu=haswell", 1, NULL},
      {"mcpu=x86-64-v4", 0, "avx512f"},
      {"mcpu=sapphirerapids", 0, "amx-tile"},
      {"mcpu=skylake-avx512 mattr=-avx512f", 1, NULL},
      {"mcpu=znver3 mattr=+avx512bw", 0, "avx512bw"},
      {"mcpu=znver3 mattr=+avx512bw", 0, "avx512f"},
      {"mcpu=x86-64-v3 mattr=+avx10.1-512", 0, "avx512f"},
      {"mcpu=x86-64-v3 mattr=+avx512vbmi2", 0, "avx512vbmi2"},
      {"mcpu=alderlake mattr=-avxvnni", 0, "gfni"},
  };
  tll_host zen3 = {"znver3", zen3_features, NULL};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tsl_diag d = {0};
    tll_opts o;
    char spec[128];
    snprintf(spec, sizeof spec, "threads=1 %s", cases[i].spec);
    int rc = parse_spec(spec, &zen3, &o, &d);
    int st = rc ? -99 : tll_check_runnable(&o, "znver3", zen3_features, &d);
    if (cases[i].runs)
      ok(st == TSL_OK, "a Zen 3 host runs code for %s", cases[i].spec);
    else
      ok(st == TSL_EUNSUPPORTED && strstr(d.text, "(znver3)") &&
             strstr(d.text, cases[i].missing) && strstr(d.text, "x86-64-v3") &&
             !strstr(d.text, "x86-64-v4,"),
         "a Zen 3 host refuses code for %s, naming the missing %s and CPUs that run here",
         cases[i].spec, cases[i].missing);
    if (st != (cases[i].runs ? TSL_OK : TSL_EUNSUPPORTED))
      tap_diag("%s", rc || st ? d.text : "(runnable)");
    if (!rc)
      tll_opts_free(&o);
  }
}

/* LLVM's implications between features */
static void test_implications(void) {
  uint64_t fp16 = tll_isa_required("x86-64", "+avx512fp16");
  ok(tll_isa_has(fp16, "avx512f") && tll_isa_has(fp16, "avx512bw") &&
         tll_isa_has(fp16, "avx512vl") && tll_isa_has(fp16, "avx2") &&
         tll_isa_has(fp16, "fma") && tll_isa_has(fp16, "sse4.2") && !tll_isa_has(fp16, "amx-tile"),
     "+avx512fp16 implies AVX-512F/BW/VL, AVX2, FMA, SSE4.2 and no AMX (%s)", isa_names(fp16));
  uint64_t no_avx2 = tll_isa_required("znver4", "-avx2");
  ok(!tll_isa_has(no_avx2, "avx2") && !tll_isa_has(no_avx2, "avx512f") &&
         !tll_isa_has(no_avx2, "avx512bw") && !tll_isa_has(no_avx2, "avx512vnni") &&
         !tll_isa_has(no_avx2, "avx512bf16") && tll_isa_has(no_avx2, "avx") &&
         tll_isa_has(no_avx2, "fma") && tll_isa_has(no_avx2, "gfni"),
     "znver4 with -avx2 loses AVX2 and every AVX-512 set, keeps AVX, FMA and GFNI (%s)",
     isa_names(no_avx2));
  uint64_t avx10 = tll_isa_required("x86-64-v3", "+avx10.1-512");
  ok(tll_isa_has(avx10, "avx512f") && tll_isa_has(avx10, "avx512fp16") &&
         tll_isa_has(avx10, "avx512vbmi2"),
     "+avx10.1-512, a feature outside the sets, implies AVX-512F, FP16, VBMI2 (%s)",
     isa_names(avx10));
}

/* CPUs whose code every host checks as IR, and which the real host may or
 * may not run; with the vector lanes a float loop gets by default. */
static const struct {
  const char *cpu;
  int lanes;
  int prefers512;
} cpus[] = {
    {"x86-64-v2", 4, 0},       {"znver3", 8, 0},         {"znver4", 16, 1},
    {"znver5", 16, 1},         {"skylake-avx512", 16, 1}, {"sapphirerapids", 16, 1},
    {"emeraldrapids", 16, 1},  {"graniterapids", 16, 1},
};
enum { N_CPUS = sizeof cpus / sizeof *cpus };

static void test_this_host(void) {
  char *name = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
  uint64_t host = tll_isa_of_host(features);
  int known = 0;
  for (int i = 0; tll_cpu_names[i]; i++)
    known |= !strcmp(tll_cpu_names[i], name) && strcmp(name, "generic");
  if (known)
    tap_diag("this host: LLVM 19 names its CPU '%s'; it has %s", name, isa_names(host));
  else
    tap_diag("this host: LLVM 19 does not know its CPU ('%s'): code is built for 'generic' "
             "with the host's features: %s",
             name, isa_names(host));
  tll_host h = {name, features, NULL};
  tll_opts o;
  tsl_diag d = {0};
  int rc = tll_opts_parse_for(0, NULL, &h, &o, &d);
  ok(!rc && !strcmp(o.cpu, known ? name : "generic") && o.cpu_is_host &&
         o.vector_width == (tll_isa_has(host, "avx512f") ? 512 : 0),
     "the default target is the host's CPU (%s) with its features and vector width",
     rc ? d.text : o.cpu);
  if (!rc)
    tll_opts_free(&o);
  const char *env = getenv("TESSEL_LLVM_MCPU");
  if (env && *env)
    tap_diag("TESSEL_LLVM_MCPU=%s: targets without mcpu build code for it", env);
  /* An instance refuses a CPU this host cannot run. */
  int refused = 0;
  for (int i = 0; i < N_CPUS; i++) {
    char spec[64];
    snprintf(spec, sizeof spec, "threads=1 mcpu=%s", cpus[i].cpu);
    int runs = !(tll_cpu_isa_of(cpus[i].cpu) & ~host);
    tsl_target *t = lt_target(spec, &d);
    if (runs)
      ok(t != NULL, "this host runs code for %s: a target instance", cpus[i].cpu);
    else
      ok(!t && strstr(d.text, cpus[i].cpu) && strstr(d.text, "cannot run code") &&
             strstr(d.text, "valid here: native"),
         "this host cannot run code for %s: refused with what it lacks", cpus[i].cpu);
    if (!t != !runs)
      tap_diag("%s", t ? "(created)" : d.text);
    refused += !runs;
    tll_vtable.destroy(t);
  }
  tap_diag("%d of %d CPUs refused here", refused, N_CPUS);
  LLVMDisposeMessage(name);
  LLVMDisposeMessage(features);
}

/* ---- IR properties, for every CPU of the list (nothing runs) -------------- */

typedef struct ir_mod {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMValueRef fn; /* the natural function tsl_<name> */
} ir_mod;

static int ir_build(const char *spec, const tsl_func *f, int optimized, ir_mod *out) {
  tsl_diag d = {0};
  tll_opts o;
  memset(out, 0, sizeof *out);
  if (parse_spec(spec, NULL, &o, &d)) {
    tap_diag("%s: %s", spec, d.text);
    return 0;
  }
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_lowered_func *lf = NULL;
  tsl_lower_opts lo = {sizeof lo, 0, 0};
  out->ctx = LLVMContextCreate();
  if (!tsl_lower_func(a, f, &lo, &lf, &d)) {
    const tsl_lowered_func *fl[1] = {lf};
    tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
    if (tll_module_ir(&o, &lm, optimized, out->ctx, &out->mod, &d))
      tap_diag("%s: %s", spec, d.text);
  } else {
    tap_diag("%s", d.text);
  }
  if (out->mod) {
    char sym[128];
    snprintf(sym, sizeof sym, "%s_%s", TLL_JIT_PREFIX, f->name);
    out->fn = LLVMGetNamedFunction(out->mod, sym);
  }
  tsl_arena_free(a);
  tll_opts_free(&o);
  return out->fn != NULL;
}

static void ir_free(ir_mod *m) {
  if (m->mod)
    LLVMDisposeModule(m->mod);
  if (m->ctx)
    LLVMContextDispose(m->ctx);
  memset(m, 0, sizeof *m);
}

/* "mcpu=X " + rest */
static const char *with_cpu(int i, const char *rest) {
  static char buf[256];
  snprintf(buf, sizeof buf, "mcpu=%s %s", cpus[i].cpu, rest);
  return buf;
}

static const char *add_src =
    "@T.prim_func\n"
    "def add(A: T.Buffer((4096,), \"float32\"), B: T.Buffer((4096,), "
    "\"float32\"), C: T.Buffer((4096,), \"float32\")):\n"
    "    for i in range(4096):\n"
    "        with T.block(\"C\"):\n"
    "            vi = T.axis.spatial(4096, i)\n"
    "            C[vi] = A[vi] + B[vi]\n";

static void test_vector_width(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, add_src);
  for (int i = 0; i < N_CPUS && m; i++) {
    ir_mod w = {0}, w256 = {0}, w128 = {0};
    ir_build(with_cpu(i, "threads=1"), m->funcs[0], 1, &w);
    ir_build(with_cpu(i, "threads=1 vector-width=256"), m->funcs[0], 1, &w256);
    ir_build(with_cpu(i, "threads=1 vector-width=128"), m->funcs[0], 1, &w128);
    int lanes = irs_widest_float_vector(w.fn);
    char *cpu = irs_fn_attr(w.fn, "target-cpu"), *pref = irs_fn_attr(w.fn, "prefer-vector-width");
    is_int(lanes, cpus[i].lanes, "%s: the float loop is vectorized with <%d x float>",
           cpus[i].cpu, cpus[i].lanes);
    ok(cpu && !strcmp(cpu, cpus[i].cpu), "%s: functions carry target-cpu=%s (%s)", cpus[i].cpu,
       cpus[i].cpu, cpu ? cpu : "none");
    if (cpus[i].prefers512)
      ok(pref && !strcmp(pref, "512"), "%s: functions carry prefer-vector-width=512",
         cpus[i].cpu);
    else
      ok(w.fn && !pref, "%s: no prefer-vector-width (LLVM's choice)", cpus[i].cpu);
    is_int(irs_widest_float_vector(w256.fn), cpus[i].lanes < 8 ? cpus[i].lanes : 8,
           "%s, vector-width=256: at most <8 x float>", cpus[i].cpu);
    is_int(irs_widest_float_vector(w128.fn), 4, "%s, vector-width=128: <4 x float>",
           cpus[i].cpu);
    free(cpu);
    free(pref);
    ir_free(&w);
    ir_free(&w256);
    ir_free(&w128);
  }
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
  for (int i = 0; i < N_CPUS && m && mx; i++) {
    ir_mod raw = {0}, opt = {0}, copies = {0};
    ir_build(with_cpu(i, "threads=1 opt-level=3"), m->funcs[0], 0, &raw);
    ir_build(with_cpu(i, "threads=1 opt-level=3"), m->funcs[0], 1, &opt);
    ir_build(with_cpu(i, "threads=1 opt-level=3"), mx->funcs[0], 0, &copies);
    ok(irs_loops(raw.fn) == 1 && irs_loop_md(raw.fn, "llvm.loop.unroll.full", -1) == 1 &&
           irs_count_opcode(raw.fn, LLVMPHI) >= 1,
       "%s: an UNROLLED loop is one loop with llvm.loop.unroll.full before O3 (%d loops)",
       cpus[i].cpu, irs_loops(raw.fn));
    ok(irs_loops(opt.fn) == 0 && irs_count_opcode(opt.fn, LLVMPHI) == 0,
       "%s: after O3 the unrolled loop has no loop and no phi left (%d loops, %d phis)",
       cpus[i].cpu, irs_loops(opt.fn), irs_count_opcode(opt.fn, LLVMPHI));
    ok(irs_loops(copies.fn) == 0 && irs_count_opcode(copies.fn, LLVMPHI) == 0 &&
           irs_loop_md(copies.fn, NULL, -1) == 0,
       "%s: T.unroll without pragma_unroll_explicit = 0: lowering leaves no loop (%d loops)",
       cpus[i].cpu, irs_loops(copies.fn));
    ir_free(&raw);
    ir_free(&opt);
    ir_free(&copies);
  }
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=1", &d);
  if (!ok(t != NULL, "a target to run the unrolled loops"))
    tap_diag("%s", d.text);
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
  for (int i = 0; i < N_CPUS && m; i++) {
    ir_mod raw = {0};
    ir_build(with_cpu(i, "threads=1 opt-level=3"), m->funcs[0], 0, &raw);
    ok(irs_loops(raw.fn) == 2 && irs_loop_md(raw.fn, "llvm.loop.unroll.full", -1) == 2 &&
           irs_loop_md(raw.fn, "llvm.loop.unroll.disable", -1) == 0,
       "%s: pragma_unroll_explicit = 0: both loops stay loops with llvm.loop.unroll.full "
       "(%d loops, %d marked)",
       cpus[i].cpu, irs_loops(raw.fn), irs_loop_md(raw.fn, "llvm.loop.unroll.full", -1));
    ir_free(&raw);
  }
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=1", &d);
  if (!ok(t != NULL, "a target to run the unroll hint"))
    tap_diag("%s", d.text);
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
  for (int i = 0; i < N_CPUS && f; i++) {
    ir_mod def = {0}, on = {0}, opt_def = {0}, opt_on = {0};
    ir_build(with_cpu(i, "threads=1"), f, 0, &def);
    ir_build(with_cpu(i, "threads=1 llvm-unroll=1"), f, 0, &on);
    ir_build(with_cpu(i, "threads=1"), f, 1, &opt_def);
    ir_build(with_cpu(i, "threads=1 llvm-unroll=1"), f, 1, &opt_on);
    ok(irs_loops(def.fn) == 2 && irs_loop_md(def.fn, "llvm.loop.unroll.disable", -1) == 2,
       "%s: by default both serial loops carry llvm.loop.unroll.disable", cpus[i].cpu);
    ok(irs_loops(on.fn) == 2 && irs_loop_md(on.fn, NULL, -1) == 0,
       "%s: llvm-unroll=1: serial loops carry no loop metadata", cpus[i].cpu);
    ok(irs_loops(opt_def.fn) >= 1,
       "%s: after O3 the 4-iteration loop is still a loop (%d loops)", cpus[i].cpu,
       irs_loops(opt_def.fn));
    ok(irs_loops(opt_on.fn) == 0 && irs_count_opcode(opt_on.fn, LLVMPHI) == 0,
       "%s: llvm-unroll=1: after O3 LLVM has unrolled it (%d loops)", cpus[i].cpu,
       irs_loops(opt_on.fn));
    ir_free(&def);
    ir_free(&on);
    ir_free(&opt_def);
    ir_free(&opt_on);
  }
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
  tsl_lower_opts lo = {sizeof lo, 1, 0};
  if (t && !tsl_lower_func(a, f, &lo, &lf, &d)) {
    const tsl_lowered_func *fl[1] = {lf};
    tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
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
  /* Threads change who computes an element, not how: the opt-level 3 builds
   * agree bit for bit. The opt-level 1 build may contract other multiply-
   * adds into FMA, so it is held to the interpreter's tolerance only. */
  for (int s = 1; s < 3; s++)
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

/* parallel loops over narrow loop variables near their type's end: the
 * chunk of each thread (extent + threads - 1, a later thread's begin)
 * must not wrap in the loop's own type (a uint8 loop of 255 at 2 threads
 * once gave every thread an empty chunk) */
static const char *narrow_src =
    "@T.prim_func\n"
    "def narrow(A: T.Buffer((255,), \"float32\"), B: T.Buffer((255,), \"float32\"),\n"
    "           C: T.Buffer((127,), \"float32\"), D: T.Buffer((127,), \"float32\")):\n"
    "    for i in T.parallel(T.uint8(255)):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(255, T.Cast(\"int32\", i))\n"
    "            B[vi] = A[vi] + T.float32(1)\n"
    "    for i in T.parallel(T.int8(127)):\n"
    "        with T.block(\"D\"):\n"
    "            vi = T.axis.spatial(127, T.Cast(\"int32\", i))\n"
    "            D[vi] = C[vi] * T.float32(3)\n";

static void test_narrow_parallel(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, narrow_src);
  static const int counts[] = {2, 3, 7, 64};
  for (int k = 0; k < 4 && m; k++) {
    char spec[32], id[80];
    snprintf(spec, sizeof spec, "threads=%d", counts[k]);
    snprintf(id, sizeof id, "uint8 and int8 parallel loops of 255 and 127, threads=%d",
             counts[k]);
    tsl_diag d = {0};
    tsl_target *t = lt_target(spec, &d);
    lt_check(t, ctx, m->funcs[0], m->funcs[0], NULL, 0, 1, id);
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

/* The bfloat16 dot of plugins/x86 after tensorize: W's tile reaches
 * vdpbf16ps as loaded (a load of its 16-bit lanes, bitcast), with no
 * float round trip and no LLVM bfloat arithmetic (fpext, fptrunc), which
 * LLVM lowers to __truncsfbf2 calls on CPUs without AVX-512 BF16. */
static const char *bf16_dot_src =
    "@T.prim_func\n"
    "def dot(A: T.Buffer((2,), \"bfloat16\"), B: T.Buffer((16, 2), \"bfloat16\"), "
    "C: T.Buffer((16,), \"float32\")):\n"
    "    C[T.Ramp(0, 1, 16)] = T.call_llvm_pure_intrin(\"float32x16\", "
    "\"llvm.x86.avx512bf16.dpbf16ps.512\", T.uint32(3), C[T.Ramp(0, 1, 16)], "
    "T.reinterpret(\"bfloat16x32\", T.Broadcast(T.reinterpret(\"float32\", A[T.Ramp(0, 1, 2)]), "
    "16)), B[0, T.Ramp(0, 1, 32)])\n";

static int bf16_fp_ops(LLVMValueRef fn) {
  int n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(in);
      if (op != LLVMFPExt && op != LLVMFPTrunc)
        continue;
      LLVMTypeRef t[2] = {LLVMTypeOf(in), LLVMTypeOf(LLVMGetOperand(in, 0))};
      for (int k = 0; k < 2; k++) {
        LLVMTypeRef e = LLVMGetTypeKind(t[k]) == LLVMVectorTypeKind ? LLVMGetElementType(t[k])
                                                                     : t[k];
        n += LLVMGetTypeKind(e) == LLVMBFloatTypeKind;
      }
    }
  return n;
}

static void test_bf16_operands(void) {
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = parse(a, bf16_dot_src);
  ir_mod w = {0};
  int built = m && ir_build("mcpu=sapphirerapids threads=1", m->funcs[0], 1, &w);
  LLVMValueRef call = NULL;
  for (LLVMBasicBlockRef bb = built ? LLVMGetFirstBasicBlock(w.fn) : NULL; bb && !call;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && !call;
         in = LLVMGetNextInstruction(in)) {
      size_t len = 0;
      LLVMValueRef callee = LLVMGetInstructionOpcode(in) == LLVMCall
                                ? LLVMGetCalledValue(in) : NULL;
      const char *name = callee ? LLVMGetValueName2(callee, &len) : "";
      if (strstr(name, "dpbf16ps"))
        call = in;
    }
  LLVMValueRef b = call ? LLVMGetOperand(call, 2) : NULL;
  if (b && LLVMIsAInstruction(b) && LLVMGetInstructionOpcode(b) == LLVMBitCast)
    b = LLVMGetOperand(b, 0);
  ok(b && LLVMIsAInstruction(b) && LLVMGetInstructionOpcode(b) == LLVMLoad,
     "a bfloat16 tile loaded for vdpbf16ps reaches it as loaded (optimized IR for "
     "sapphirerapids)");
  ir_free(&w);
  /* a select of bfloat16 lanes (a padding block vectorized across the
   * border): LLVM narrowed fpext(select) to a bfloat select */
  static const char *pad_src =
      "@T.prim_func\n"
      "def pad(data: T.Buffer((4, 16), \"bfloat16\"), out: T.Buffer((6, 18), \"bfloat16\")):\n"
      "    for h, w in T.grid(6, 18):\n"
      "        with T.block(\"pad\"):\n"
      "            vh, vw = T.axis.remap(\"SS\", [h, w])\n"
      "            out[vh, vw] = T.if_then_else(1 <= vh and vh < 5 and 1 <= vw and vw < 17,\n"
      "                                         data[vh - 1, vw - 1], T.bfloat16(0))\n";
  tsl_schedule *sch = NULL;
  const tsl_module *orig = NULL;
  const tsl_func *f = schedule(a, pad_src, "b = sch.get_block(\"pad\")\nh, w = sch.get_loops(b)\n"
                               "sch.vectorize(w)\n", &sch, &orig);
  built = f && ir_build("mcpu=x86-64-v3 threads=1", f, 1, &w);
  int conversions = built ? bf16_fp_ops(w.fn) : -1;
  ok(conversions == 0, "a bfloat16 select across vector lanes: no fpext or fptrunc of LLVM "
     "bfloat in the optimized IR for x86-64-v3 (%d)", conversions);
  ir_free(&w);
  tsl_schedule_free(sch);
  tsl_arena_free(a);
}

int main(void) {
  ctx = tsl_ctx_new();
  test_options();
  test_unknown_host();
  test_default_cpu();
  test_zen3_runs();
  test_implications();
  test_this_host();
  test_vector_width();
  test_unrolled();
  test_unroll_hint();
  test_llvm_unroll_option();
  test_parallel();
  test_nested_parallel();
  test_narrow_parallel();
  test_opt_levels();
  test_bf16_operands();
  tsl_ctx_free(ctx);
  return tap_done();
}
