/*
 * tests/llvm/test_vecmath.c — math functions of vectors through libmvec
 * (targets/llvm/vecmath.c): each function the target sends there, on
 * float32 and float64 vectors of whole and partial widths, agrees with the
 * interpreter; the module calls the variants the CPU and vector width
 * allow (16-lane expf with AVX-512 at 512 bits, 8 lanes with AVX2, 4 with
 * SSE), and LLVM's own vector exp (libm lane by lane) with vector-math=0,
 * none for a scalar; a shared library of it needs libmvec and computes
 * the same.
 */
#include "llvm_util.h"

#include <dlfcn.h>
#include <llvm-c/Core.h>

/* B[vi] = expr over n elements of `dtype`, the inner loop of `lanes`
 * vectorized (the outer one parallel with `parallel`); `expr` reads A[vi]. */
static const tsl_func *program_ex(tsl_arena *a, const char *dtype, int n, int lanes,
                                  const char *expr, int parallel, tsl_diag *d) {
  char src[2048];
  snprintf(src, sizeof src,
           "# from tvm.script import tir as T\n"
           "@T.prim_func\n"
           "def main(A: T.Buffer((%d,), \"%s\"), B: T.Buffer((%d,), \"%s\")):\n"
           "    T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": T.bool(True)})\n"
           "    for i0 in %s(%d):\n"
           "        for i1 in T.vectorized(%d):\n"
           "            with T.block(\"B\"):\n"
           "                vi = T.axis.spatial(%d, i0 * %d + i1)\n"
           "                T.reads(A[vi])\n"
           "                T.writes(B[vi])\n"
           "                B[vi] = %s\n",
           n, dtype, n, dtype, parallel ? "T.parallel" : "range", n / lanes, lanes, n, lanes,
           expr);
  const tsl_module *m = NULL;
  if (tsl_parse(a, "vecmath.py", src, strlen(src), &m, d))
    return NULL;
  return m->funcs[0];
}

static const tsl_func *program(tsl_arena *a, const char *dtype, int n, int lanes,
                               const char *expr, tsl_diag *d) {
  return program_ex(a, dtype, n, lanes, expr, 0, d);
}

/* The names of the functions `mod` declares that start with `prefix`,
 * space-separated, into `out`. */
static void declared(LLVMModuleRef mod, const char *prefix, char *out, size_t cap) {
  out[0] = '\0';
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    size_t n = 0;
    const char *name = LLVMGetValueName2(f, &n);
    if (LLVMIsDeclaration(f) && !strncmp(name, prefix, strlen(prefix)) &&
        strlen(out) + n + 2 < cap) {
      if (*out)
        strcat(out, " ");
      strcat(out, name);
    }
  }
}

/* The functions starting with `prefix` that a program of `expr` on
 * `lanes` lanes of `dtype` declares when compiled (not run: any host) for
 * the options `spec`, into `out` ("" when none); 0 on success. */
static int calls_of(tsl_ctx *ctx, const char *spec, const char *dtype, int lanes,
                    const char *expr, const char *prefix, char *out, size_t cap) {
  tsl_diag d = {0};
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_kv kv[16];
  char buf[512];
  uint32_t n = lt_parse_kv(spec, buf, sizeof buf, kv, 16);
  struct tsl_target target = {0}, *t = &target;
  int parsed = tll_opts_parse(n, kv, &target.opts, &d) == TSL_OK;
  const tsl_func *f = parsed ? program(a, dtype, lanes * 4, lanes, expr, &d) : NULL;
  const tsl_lowered_func *lf = NULL;
  tsl_lower_opts lo = {sizeof lo, 1, 0};
  int rc = -1;
  if (f && !tsl_lower_func(a, f, &lo, &lf, &d)) {
    LLVMContextRef lc = LLVMContextCreate();
    tsl_build_stats st;
    LLVMModuleRef mod = lt_optimize(t, lf, lc, &st, &d);
    if (mod) {
      declared(mod, prefix, out, cap);
      LLVMDisposeModule(mod);
      rc = 0;
    }
    LLVMContextDispose(lc);
  }
  if (rc)
    tap_diag("%s: %s", spec, d.text);
  if (parsed)
    tll_opts_free(&target.opts);
  tsl_arena_free(a);
  return rc;
}

static const struct {
  const char *name; /* the function; `expr` keeps its argument in its domain */
  const char *expr;
} functions[] = {
    {"exp", "T.exp(A[vi])"},
    {"exp2", "T.exp2(A[vi])"},
    {"exp10", "T.exp10(A[vi])"},
    {"log", "T.log(A[vi] * A[vi] + T.%s(0.25))"},
    {"log2", "T.log2(A[vi] * A[vi] + T.%s(0.25))"},
    {"log10", "T.log10(A[vi] * A[vi] + T.%s(0.25))"},
    {"log1p", "T.log1p(A[vi] * A[vi])"},
    {"tanh", "T.tanh(A[vi])"},
    {"pow", "T.pow(A[vi] * A[vi] + T.%s(0.5), A[vi])"},
    {"sin", "T.sin(A[vi] * T.%s(4))"},
    {"cos", "T.cos(A[vi] * T.%s(4))"},
    {"tan", "T.tan(A[vi])"},
    {"erf", "T.erf(A[vi] * T.%s(2))"},
    {"atan", "T.atan(A[vi] * T.%s(3))"},
    {"sigmoid", "T.sigmoid(A[vi])"},
};
enum { N_FUNCTIONS = sizeof functions / sizeof functions[0] };

int main(void) {
  lt_announce_cpu();
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_diag d = {0};
  void *mvec = tll_libmvec();
  tap_diag("libmvec: %s", mvec ? "found" : "not in this process (the scalar path is tested)");

  /* 1. every function, float32 and float64, whole and partial widths,
   * against the interpreter */
  tsl_target *t = lt_target("threads=1", &d);
  static const int widths[] = {16, 64, 20, 3};
  for (int i = 0; t && i < N_FUNCTIONS; i++)
    for (int dt = 0; dt < 2; dt++)
      for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        const char *dtype = dt ? "float64" : "float32";
        char expr[256], id[128];
        snprintf(expr, sizeof expr, functions[i].expr, dtype);
        snprintf(id, sizeof id, "%s, %s x %d", functions[i].name, dtype, widths[w]);
        tsl_arena *a = tsl_arena_new(ctx);
        const tsl_func *f = program(a, dtype, widths[w] * 4, widths[w], expr, &d);
        if (!f) {
          ok(0, "%s: parses", id);
          tap_diag("%s", d.text);
        } else {
          lt_check(t, ctx, f, f, NULL, 0, 1, id);
        }
        tsl_arena_free(a);
      }
  tll_vtable.destroy(t);
  /* in the outlined body of a parallel loop too */
  t = lt_target("threads=2", &d);
  for (int dt = 0; t && dt < 2; dt++) {
    tsl_arena *a = tsl_arena_new(ctx);
    const char *dtype = dt ? "float64" : "float32";
    const tsl_func *f = program_ex(a, dtype, 16 * 64, 16, "T.exp(A[vi])", 1, &d);
    char id[64];
    snprintf(id, sizeof id, "exp, %s x 16 in a parallel loop, 2 threads", dtype);
    if (f)
      lt_check(t, ctx, f, f, NULL, 0, 1, id);
    else
      ok(0, "%s: parses", id);
    tsl_arena_free(a);
  }
  tll_vtable.destroy(t);

  /* 2. the variants called, by CPU and vector width */
  char got[1024];
  static const struct {
    const char *spec, *dtype, *expr, *feature;
    int lanes;
    const char *want; /* the declarations, with libmvec */
  } cases[] = {
      {"mcpu=x86-64-v4 threads=1", "float32", "T.exp(A[vi])", "avx512f", 64,
       "_ZGVeN16v_expf"},
      {"mcpu=x86-64-v4 threads=1 vector-width=256", "float32", "T.exp(A[vi])", "avx2", 64,
       "_ZGVdN8v_expf"},
      {"mcpu=x86-64-v3 threads=1", "float32", "T.exp(A[vi])", "avx2", 64, "_ZGVdN8v_expf"},
      {"mcpu=x86-64-v2 threads=1", "float32", "T.exp(A[vi])", NULL, 64, "_ZGVbN4v_expf"},
      {"mcpu=x86-64-v4 threads=1", "float32", "T.exp(A[vi])", "avx512f", 20,
       "_ZGVeN16v_expf _ZGVbN4v_expf"},
      {"mcpu=x86-64-v4 threads=1", "float32", "T.exp(A[vi])", "avx512f", 3, "_ZGVbN4v_expf"},
      {"mcpu=x86-64-v4 threads=1", "float64", "T.tanh(A[vi])", "avx512f", 8,
       "_ZGVeN8v_tanh"},
      {"mcpu=x86-64-v3 threads=1", "float32",
       "T.pow(A[vi] * A[vi] + T.float32(0.5), A[vi])", "avx2", 8, "_ZGVdN8vv_powf"},
      {"mcpu=x86-64-v4 threads=1 vector-math=0", "float32", "T.exp(A[vi])", NULL, 64, ""},
      {"mcpu=x86-64-v4 threads=1", "float32", "T.exp(A[vi])", NULL, 1, ""},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char what[256];
    snprintf(what, sizeof what, "%s of %s x %d with %s", cases[c].expr, cases[c].dtype,
             cases[c].lanes, cases[c].spec);
    if (calls_of(ctx, cases[c].spec, cases[c].dtype, cases[c].lanes, cases[c].expr, "_ZGV",
                 got, sizeof got)) {
      ok(0, "%s: builds", what);
      continue;
    }
    const char *want = mvec ? cases[c].want : "";
    ok(!strcmp(got, want), "%s calls '%s'", what, want);
    if (strcmp(got, want))
      tap_diag("declared: '%s'", got);
  }
  /* without them, LLVM's vector exp (libm's expf lane by lane) */
  if (!calls_of(ctx, "mcpu=x86-64-v4 threads=1 vector-math=0", "float32", 16, "T.exp(A[vi])",
                "llvm.exp", got, sizeof got))
    ok(!strcmp(got, "llvm.exp.v16f32"), "vector-math=0: llvm.exp.v16f32 ('%s')", got);
  else
    ok(0, "vector-math=0 builds");

  /* 3. a shared library calling libmvec needs it, and computes exp */
  if (!mvec) {
    tap_skip("no libmvec in this process", "a shared library of a vector exp needs libmvec");
  } else {
    tsl_arena *a = tsl_arena_new(ctx);
    tsl_target *tt = lt_target("threads=1", &d);
    const tsl_func *f = tt ? program(a, "float32", 64, 16, "T.exp(A[vi])", &d) : NULL;
    const tsl_lowered_func *lf = NULL;
    tsl_lower_opts lo = {sizeof lo, 1, 0};
    char dir[] = "/tmp/tessel-vecmath-XXXXXX", so[256], cmd[600];
    int built = f && !tsl_lower_func(a, f, &lo, &lf, &d) && mkdtemp(dir);
    if (built) {
      snprintf(so, sizeof so, "%s/libvm.so", dir);
      const tsl_lowered_func *fl[1] = {lf};
      tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
      built = tll_vtable.export_library(tt, &lm, "vm", so, NULL, &d) == TSL_OK;
    }
    if (!ok(built, "a vector exp exports as a shared library"))
      tap_diag("%s", d.text);
    if (built) {
      snprintf(cmd, sizeof cmd, "readelf -d '%s' | grep -q 'NEEDED.*libmvec.so.1'", so);
      ok(system(cmd) == 0, "it needs libmvec.so.1 (DT_NEEDED)");
      /* its object, linked by ld directly, needs the same */
      char obj[256], so2[256];
      snprintf(obj, sizeof obj, "%s/vm.o", dir);
      snprintf(so2, sizeof so2, "%s/libvm2.so", dir);
      const tsl_lowered_func *fl[1] = {lf};
      tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
      int direct = 0;
      int linked = tll_vtable.export_library(tt, &lm, "vm", obj, NULL, &d) == TSL_OK &&
                   tll_link_shared(obj, so2, TLL_LINK_C | TLL_LINK_MVEC, &direct, &d) == TSL_OK;
      snprintf(cmd, sizeof cmd, "readelf -d '%s' | grep -q 'NEEDED.*libmvec.so.1'", so2);
      ok(linked && direct && system(cmd) == 0,
         "its object linked by ld directly needs libmvec.so.1 too (direct %d)", direct);
      if (!linked)
        tap_diag("%s", d.text);
      void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
      int32_t (*fn)(float *, float *) = h ? (int32_t(*)(float *, float *))dlsym(h, "vm_main")
                                           : NULL;
      float x[64], y[64];
      double worst = 0;
      for (int i = 0; i < 64; i++)
        x[i] = (float)(i - 32) * 0.37f;
      int rc = fn ? fn(x, y) : -1;
      for (int i = 0; i < 64 && !rc; i++)
        worst = fmax(worst, fabs(y[i] - exp((double)x[i])) / exp((double)x[i]));
      ok(rc == 0 && worst < 1e-6, "it loads and computes exp within 1e-6 (relative error %.2g)",
         worst);
      if (!h)
        tap_diag("dlopen: %s", dlerror());
      if (h)
        dlclose(h);
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
      if (system(cmd) != 0)
        tap_diag("could not remove %s", dir);
    }
    tll_vtable.destroy(tt);
    tsl_arena_free(a);
  }
  tsl_ctx_free(ctx);
  return tap_done();
}
