/*
 * tsl_run_library on a library made in another process: `tessel build`
 * exports workloads/matmul_128.py (naive and scheduled), this program lowers
 * the same function and measures the library's packed entry, checked
 * against the interpreter.
 */
#include "tap.h"

#include "tessel/tessel.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int build(const char *exe, const char *src, const char *extra, const char *out) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' build '%s/workloads/matmul_128.py' %s -o '%s' >/dev/null",
           exe, src, extra, out);
  return system(cmd);
}

int main(void) {
  const char *exe = getenv("TESSEL_EXE"), *src = getenv("TESSEL_SOURCE_ROOT");
  if (!exe || !src) {
    tap_skip("TESSEL_EXE / TESSEL_SOURCE_ROOT not set", "library runs");
    return tap_done();
  }
  char dir[] = "/tmp/tessel_libXXXXXX";
  if (!mkdtemp(dir))
    return 1;
  char naive[512], sched[512], extra[4096], path[4096];
  snprintf(naive, sizeof naive, "%s/libnaive.so", dir);
  snprintf(sched, sizeof sched, "%s/libsched.so", dir);
  snprintf(extra, sizeof extra, "--schedule '%s/examples/matmul_128.sch'", src);
  is_int(build(exe, src, "", naive), 0, "tessel build (naive) succeeds");
  is_int(build(exe, src, extra, sched), 0, "tessel build (scheduled) succeeds");

  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  const tsl_lowered_func *lf = NULL;
  tsl_diag d = {0};
  snprintf(path, sizeof path, "%s/workloads/matmul_128.py", src);
  int rc = tsl_parse_file(arena, path, &m, &d);
  if (!rc)
    rc = tsl_lower_func(arena, m->funcs[0], NULL, &lf, &d);
  ok(rc == TSL_OK, "parse and lower (%s)", d.text);
  if (rc == TSL_OK) {
    tsl_reference ref = {sizeof ref, m->funcs[0], NULL};
    tsl_run_opts o;
    tsl_run_opts_default(&o);
    tsl_run_result r;
    const char *libs[2] = {naive, sched};
    const char *syms[2] = {"naive_matmul_packed", "sched_matmul_packed"};
    for (int i = 0; i < 2; i++) {
      rc = tsl_run_library(lf, libs[i], syms[i], &ref, &o, &r, &d);
      ok(rc == TSL_OK && r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.median_s > 0,
         "%s: measured and checked ok (%s, %s)", i ? "scheduled" : "naive",
         tsl_run_status_name(r.status), r.error);
      tap_diag("%s: %.3g s per call, max abs error %.3g", libs[i], r.median_s, r.max_abs_err);
    }
    rc = tsl_run_library(lf, naive, "naive_matmul", &ref, &o, &r, &d);
    ok(rc == TSL_OK && r.status != TSL_RUN_OK,
       "the natural entry called as packed is caught, not fatal (%s)",
       tsl_run_status_name(r.status));
  }
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  snprintf(path, sizeof path, "rm -rf '%s'", dir);
  if (system(path) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
