/*
 * A quick matmul throughput probe for the LLVM target (not a test; run by
 * hand): bench_llvm_matmul N SCHEDULE.sch [target options...]
 * builds C = A @ B (N x N x N, float32) with the schedule, checks it against
 * the unscheduled program compiled by the same target, and prints the
 * median time of 10 runs and GFLOPS.
 */
#include "llvm_util.h"

#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static tsl_kernel *build(tsl_target *t, tsl_arena *a, const tsl_func *f,
                         tsl_packed_fn *fn, tsl_build_stats *st) {
  tsl_diag d = {0};
  const tsl_lowered_func *lf;
  tsl_lower_opts lo = {sizeof lo, 1};
  tsl_kernel *k = NULL;
  if (tsl_lower_func(a, f, &lo, &lf, &d)) {
    fprintf(stderr, "%s\n", d.text);
    return NULL;
  }
  const tsl_lowered_func *fl[1] = {lf};
  tsl_lowered_module lm = {sizeof lm, 1, fl};
  if (tll_vtable.build(t, &lm, &k, st, &d)) {
    fprintf(stderr, "%s\n", d.text);
    return NULL;
  }
  *fn = tll_vtable.lookup(k, lf->name);
  return k;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s N SCHEDULE.sch [key=value ...]\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]);
  char src[1024], spec[512] = "";
  snprintf(src, sizeof src,
           "@T.prim_func\n"
           "def matmul(A: T.Buffer((%d, %d), \"float32\"), B: T.Buffer((%d, "
           "%d), \"float32\"), C: T.Buffer((%d, %d), \"float32\")):\n"
           "    for i, j, k in T.grid(%d, %d, %d):\n"
           "        with T.block(\"matmul\"):\n"
           "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
           "            with T.init():\n"
           "                C[vi, vj] = T.float32(0)\n"
           "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
           n, n, n, n, n, n, n, n, n);
  for (int i = 3; i < argc; i++) {
    strncat(spec, argv[i], sizeof spec - strlen(spec) - 2);
    strcat(spec, " ");
  }
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m;
  tsl_schedule *sch;
  char *script = lt_slurp(argv[2]);
  if (!script || tsl_parse(a, "mm.py", src, strlen(src), &m, &d) ||
      tsl_schedule_new(ctx, m, NULL, &sch, &d) ||
      tsl_script_run(sch, argv[2], script, strlen(script), &d)) {
    fprintf(stderr, "%s\n", script ? d.text : "cannot read the schedule");
    return 1;
  }
  tsl_target *t = lt_target(spec, &d), *t1 = lt_target("threads=1", &d);
  if (!t || !t1) {
    fprintf(stderr, "%s\n", d.text);
    return 1;
  }
  tsl_packed_fn fn, ref;
  tsl_build_stats st = {sizeof st, 0, 0, 0};
  tsl_kernel *k = build(t, a, tsl_schedule_func(sch), &fn, &st);
  tsl_kernel *kr = build(t1, a, m->funcs[0], &ref, NULL);
  if (!k || !kr)
    return 1;
  tsl_arg x[3], y[3];
  tsl_func_make_args(m->funcs[0], NULL, 0, 1, x, &d);
  tsl_func_make_args(m->funcs[0], NULL, 0, 1, y, &d);
  void *px[3] = {x[0].tensor.data, x[1].tensor.data, x[2].tensor.data};
  void *py[3] = {y[0].tensor.data, y[1].tensor.data, y[2].tensor.data};
  ref(py);
  fn(px);
  double err;
  char why[256];
  int64_t bad = lt_compare(m->funcs[0], y, x, &err, why, sizeof why);
  double times[10];
  for (int r = 0; r < 10; r++) {
    double t0 = now();
    fn(px);
    times[r] = now() - t0;
  }
  qsort(times, 10, sizeof(double), cmp_d);
  double flops = 2.0 * n * n * n;
  printf("%s | N=%d: %.3f ms median, %.1f GFLOPS; check %s (max err %.2g); "
         "compile %.1f ms (codegen %.2f, O3 %.1f, JIT %.1f)\n",
         tll_vtable.describe(t), n, times[5] * 1e3, flops / times[5] * 1e-9,
         bad ? "MISMATCH" : "ok", err,
         1e3 * (st.codegen_s + st.optimize_s + st.jit_s), 1e3 * st.codegen_s,
         1e3 * st.optimize_s, 1e3 * st.jit_s);
  if (bad)
    printf("%s\n", why);
  tsl_args_free(x, 3);
  tsl_args_free(y, 3);
  tll_vtable.kernel_free(k);
  tll_vtable.kernel_free(kr);
  tll_vtable.destroy(t);
  tll_vtable.destroy(t1);
  free(script);
  tsl_schedule_free(sch);
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return bad ? 1 : 0;
}
