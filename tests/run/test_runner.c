/*
 * The runner (tessel/runner.h) with hand-written packed functions and
 * hand-made lowered functions (source = a parsed program): correct and
 * wrong results, crashes, aborts, hangs, nonzero returns, number growth
 * under min_repeat_ms, cache flushing, symbolic sizes, compiled references
 * and functions in shared libraries.
 */
#include "tap.h"

#include "tessel/tessel.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#define N 32

static const char mm_src[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((32, 32), \"float32\"), B: T.Buffer((32, 32), \"float32\"),\n"
    "         C: T.Buffer((32, 32), \"float32\")):\n"
    "    for i, j, k in T.grid(32, 32, 32):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

/* In-place accumulation without an init: only the first call on pristine
 * inputs gives the reference's answer. */
static const char acc_src[] =
    "@T.prim_func\n"
    "def acc(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "    for i in range(64):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(64, i)\n"
    "            B[vi] = B[vi] + A[vi]\n";

static const char sym_src[] =
    "@T.prim_func\n"
    "def rowsum(x: T.handle, S: T.Buffer((4,), \"float32\")):\n"
    "    m = T.int64()\n"
    "    X = T.match_buffer(x, (4, m), \"float32\")\n"
    "    for i, j in T.grid(4, m):\n"
    "        with T.block(\"S\"):\n"
    "            vi, vj = T.axis.remap(\"SR\", [i, j])\n"
    "            with T.init():\n"
    "                S[vi] = T.float32(0)\n"
    "            S[vi] = S[vi] + X[vi, vj]\n";

static const char int_src[] =
    "@T.prim_func\n"
    "def iadd(A: T.Buffer((16,), \"int32\"), B: T.Buffer((16,), \"int32\"),\n"
    "         n: T.int32):\n"
    "    for i in range(16):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(16, i)\n"
    "            B[vi] = A[vi] + n\n";

/* ---- packed functions ---------------------------------------------------- */

static void matmul(const float *A, const float *B, float *C) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < N; k++)
        s += A[i * N + k] * B[k * N + j];
      C[i * N + j] = s;
    }
}

static int32_t mm_ok(void *const *args) {
  matmul(args[0], args[1], args[2]);
  return 0;
}

static int32_t mm_wrong(void *const *args) {
  matmul(args[0], args[1], args[2]);
  ((float *)args[2])[3 * N + 4] += 0.5f;
  return 0;
}

/* One value off by 1e-5 relative: within float32's tolerance (1e-4). */
static int32_t mm_close(void *const *args) {
  matmul(args[0], args[1], args[2]);
  float *c = (float *)args[2] + 5 * N + 6;
  *c += 1e-5f * fmaxf(1.0f, fabsf(*c));
  return 0;
}

/* Outputs of root mean square ~30 with one near 1: its error is judged
 * against the buffer's scale (a long sum's rounding is the terms' size,
 * not the result's), +9e-4 within it, +0.3 not. */
static void fill_scaled(float *c, float first) {
  for (int k = 0; k < N * N; k++)
    c[k] = k ? 30.0f : first;
}
static int32_t scaled_ref(void *const *args) {
  fill_scaled(args[2], 1.0f);
  return 0;
}
static int32_t scaled_rounded(void *const *args) {
  fill_scaled(args[2], 1.0009f);
  return 0;
}
static int32_t scaled_wrong(void *const *args) {
  fill_scaled(args[2], 1.3f);
  return 0;
}

/* One NaN where the reference has a number. */
static int32_t mm_nan(void *const *args) {
  matmul(args[0], args[1], args[2]);
  ((float *)args[2])[2 * N + 1] = NAN;
  return 0;
}

/* A store to a page mapped PROT_NONE: a real SIGSEGV that is not undefined
 * behaviour (a NULL store would be stopped by UBSan before it faults). */
static int32_t mm_segv(void *const *args) {
  (void)args;
  void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED)
    raise(SIGSEGV);
  *(volatile int *)page = 1;
  return 0;
}

static int32_t mm_abort(void *const *args) {
  (void)args;
  abort();
}

static int32_t mm_hang(void *const *args) {
  (void)args;
  volatile int x = 1;
  while (x)
    ;
  return 0;
}

static int32_t mm_ret7(void *const *args) {
  (void)args;
  return 7;
}

/* Fails only from the second call on (the timed calls). */
static int32_t mm_fail_later(void *const *args) {
  static int calls = 0; /* per worker process */
  matmul(args[0], args[1], args[2]);
  return ++calls > 1 ? 9 : 0;
}

/* Their first call (the checked one, in a fresh worker) sleeps 30 ms or
 * 3 ms; the calls after it are fast. */
static int32_t mm_slow_first(void *const *args) {
  static int calls = 0; /* per worker process */
  if (calls++ == 0)
    nanosleep(&(struct timespec){0, 30 * 1000 * 1000}, NULL);
  matmul(args[0], args[1], args[2]);
  return 0;
}

static int32_t mm_cold_first(void *const *args) {
  static int calls = 0;
  if (calls++ == 0)
    nanosleep(&(struct timespec){0, 3 * 1000 * 1000}, NULL);
  matmul(args[0], args[1], args[2]);
  return 0;
}

static int32_t acc_kernel(void *const *args) {
  const float *A = args[0];
  float *B = args[1];
  for (int i = 0; i < 64; i++)
    B[i] += A[i];
  return 0;
}

static int32_t rowsum(void *const *args) {
  const float *X = args[0];
  float *S = args[1];
  int64_t m = *(const int64_t *)args[2];
  for (int i = 0; i < 4; i++) {
    float s = 0;
    for (int64_t j = 0; j < m; j++)
      s += X[i * m + j];
    S[i] = s;
  }
  return 0;
}

static int32_t iadd(void *const *args) {
  const int32_t *A = args[0];
  int32_t *B = args[1];
  int64_t n = *(const int64_t *)args[2];
  for (int i = 0; i < 16; i++)
    B[i] = A[i] + (int32_t)n;
  return 0;
}

static int32_t iadd_off_by_one(void *const *args) {
  iadd(args);
  ((int32_t *)args[1])[15] += 1;
  return 0;
}

static int32_t check_alignment(void *const *args) {
  for (int k = 0; k < 3; k++)
    if ((uintptr_t)args[k] % 64)
      return 1;
  return mm_ok(args);
}

/* ---- helpers --------------------------------------------------------------- */

static tsl_lowered_func hand_lowered(const tsl_func *f) {
  tsl_lowered_func lf;
  memset(&lf, 0, sizeof lf);
  lf.struct_size = sizeof lf;
  lf.name = f->name;
  lf.source = f;
  lf.n_params = f->n_params;
  lf.params = f->params;
  lf.flops = -1;
  return lf;
}

static const tsl_func *parse(tsl_arena *arena, const char *src) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (tsl_parse(arena, "test.py", src, strlen(src), &m, &d) != TSL_OK) {
    tap_diag("parse failed: %s", d.text);
    exit(1);
  }
  return m->funcs[0];
}

static int no_children(void) {
  errno = 0;
  return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_names(void) {
  is_str(tsl_run_status_name(TSL_RUN_OK), "ok", "status name ok");
  is_str(tsl_run_status_name(TSL_RUN_TIMEOUT), "timeout", "status name timeout");
  is_str(tsl_run_status_name(TSL_RUN_SETUP_ERROR), "setup error", "status name setup error");
  is_str(tsl_check_name(TSL_CHECK_MISMATCH), "mismatch", "check name mismatch");
  is_str(tsl_check_name(TSL_CHECK_SKIPPED), "skipped", "check name skipped");
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  ok(o.struct_size == sizeof o && o.warmup == 1 && o.number == 3 && o.repeat == 3 &&
         o.timeout_s == 10 && o.seed == 1 && !o.flush_cache && o.min_repeat_ms == 0,
     "defaults as documented");
}

static void test_matmul(const tsl_func *f) {
  tsl_lowered_func lf = hand_lowered(f);
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.repeat = 5;
  tsl_run_result r;
  tsl_diag d = {0};

  int rc = tsl_run_packed(&lf, mm_ok, &ref, &o, &r, &d);
  is_int(rc, TSL_OK, "correct function: runner returns TSL_OK");
  is_int(r.status, TSL_RUN_OK, "correct function: status ok");
  is_int(r.check, TSL_CHECK_OK, "correct function: check ok");
  ok(r.max_abs_err < 1e-4 && r.n_mismatched == 0, "correct function: tiny error (%g)",
     r.max_abs_err);
  is_int(r.n_times, 5, "five repeats measured");
  int pos = 1;
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < r.n_times; i++) {
    pos &= r.times_s[i] > 0;
    lo = fmin(lo, r.times_s[i]);
    hi = fmax(hi, r.times_s[i]);
  }
  ok(pos, "every repeat's time is positive");
  ok(r.median_s >= lo && r.median_s <= hi && r.median_s > 0,
     "median within [min, max] of the repeats");
  is_int(r.number, 3, "number as asked when min_repeat_ms is 0");
  ok(no_children(), "no child left after a normal run");

  rc = tsl_run_packed(&lf, check_alignment, &ref, &o, &r, &d);
  ok(rc == TSL_OK && r.status == TSL_RUN_OK, "buffers are 64-byte aligned");

  rc = tsl_run_packed(&lf, mm_close, &ref, &o, &r, &d);
  ok(rc == TSL_OK && r.status == TSL_RUN_OK && r.n_mismatched == 0 && r.max_abs_err >= 9e-6 &&
         r.max_abs_err < 1e-4 * 64,
     "a value off by 1e-5 relative is within the tolerance, and is the largest error (%g)",
     r.max_abs_err);
  rc = tsl_run_packed(&lf, mm_nan, &ref, &o, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH && r.n_mismatched == 1 && isinf(r.max_abs_err) &&
         strstr(r.error, "buffer C differs at [2, 1]") && strstr(r.error, "got nan"),
     "a NaN where the reference has a number: a mismatch of infinite size (%s)", r.error);

  rc = tsl_run_packed(&lf, mm_wrong, &ref, &o, &r, &d);
  is_int(r.status, TSL_RUN_MISMATCH, "wrong function: status mismatch");
  is_int(r.check, TSL_CHECK_MISMATCH, "wrong function: check mismatch");
  ok(fabs(r.max_abs_err - 0.5) < 1e-3, "wrong function: max_abs_err is the planted 0.5 (%g)",
     r.max_abs_err);
  is_int(r.n_mismatched, 1, "wrong function: one element differs");
  ok(strstr(r.error, "buffer C differs at [3, 4]") != NULL,
     "wrong function: message names buffer and index: %s", r.error);
  ok(r.median_s > 0, "wrong function is still timed");

  rc = tsl_run_packed(&lf, mm_wrong, NULL, &o, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_SKIPPED,
     "without a reference the check is skipped");

  rc = tsl_run_packed(&lf, mm_segv, &ref, &o, &r, &d);
  is_int(rc, TSL_OK, "segfault: the caller survives");
  is_int(r.status, TSL_RUN_CRASH, "segfault: status crash");
  ok(strstr(r.error, "worker died: Segmentation fault") != NULL,
     "segfault: message names the signal (%s)", r.error);

  rc = tsl_run_packed(&lf, mm_abort, &ref, &o, &r, &d);
  is_int(r.status, TSL_RUN_CRASH, "abort: status crash");
  ok(strstr(r.error, "Abort") != NULL, "abort: message names the signal (%s)", r.error);

  rc = tsl_run_packed(&lf, mm_ret7, &ref, &o, &r, &d);
  is_int(r.status, TSL_RUN_ERROR, "nonzero return: status error");
  ok(strstr(r.error, "returned 7") != NULL, "nonzero return: message has the code (%s)",
     r.error);

  rc = tsl_run_packed(&lf, mm_fail_later, &ref, &o, &r, &d);
  is_int(r.status, TSL_RUN_ERROR, "nonzero return in a timed call: status error");

  tsl_run_opts ot = o;
  ot.timeout_s = 0.5;
  double t0 = now();
  rc = tsl_run_packed(&lf, mm_hang, &ref, &ot, &r, &d);
  double el = now() - t0;
  is_int(r.status, TSL_RUN_TIMEOUT, "infinite loop: status timeout");
  ok(el >= 0.45 && el < 2.0, "infinite loop: stopped after the timeout (%.2f s)", el);
  ok(strstr(r.error, "timed out after 0.5 s") != NULL, "timeout message (%s)", r.error);
  ok(no_children(), "infinite loop: the worker was reaped (no zombie)");

  /* min_repeat_ms: a ~10 us function with a 30 ms floor needs far more
   * than 3 calls per repeat. */
  tsl_run_opts om = o;
  om.repeat = 2;
  om.min_repeat_ms = 30;
  rc = tsl_run_packed(&lf, mm_ok, &ref, &om, &r, &d);
  ok(r.status == TSL_RUN_OK && r.number > 3, "min_repeat_ms raises number (%d)", r.number);
  ok(r.number * r.times_s[r.n_times - 1] >= 0.029,
     "the last repeat lasts at least min_repeat_ms (%d x %.3g s)", r.number,
     r.times_s[r.n_times - 1]);

  tsl_run_opts of = o;
  of.flush_cache = 1;
  of.number = 2;
  rc = tsl_run_packed(&lf, mm_ok, &ref, &of, &r, &d);
  ok(rc == TSL_OK && r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.median_s > 0,
     "flush_cache: ok, timed");

  tsl_run_opts o70 = o;
  o70.repeat = 70;
  o70.number = 1;
  rc = tsl_run_packed(&lf, mm_ok, NULL, &o70, &r, &d);
  is_int(r.n_times, TSL_RUN_MAX_REPEAT, "repeat capped at TSL_RUN_MAX_REPEAT");

  /* compiled reference: a packed function with the same parameters */
  tsl_reference cref = {sizeof cref, NULL, mm_ok};
  rc = tsl_run_packed(&lf, mm_ok, &cref, &o, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK, "compiled reference: ok");
  rc = tsl_run_packed(&lf, mm_wrong, &cref, &o, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH && fabs(r.max_abs_err - 0.5) < 1e-6,
     "compiled reference: mismatch found (%g)", r.max_abs_err);
  tsl_reference sref = {sizeof sref, NULL, scaled_ref};
  tsl_run_packed(&lf, scaled_rounded, &sref, &o, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK,
     "an error of 9e-4 on a value near 1 among values of 30: within the buffer's scale");
  tsl_run_packed(&lf, scaled_wrong, &sref, &o, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH && fabs(r.max_abs_err - 0.3) < 1e-5,
     "  ... an error of 0.3 there: a mismatch (%g)", r.max_abs_err);
  tsl_reference bad_ref = {sizeof bad_ref, NULL, mm_abort};
  memset(&d, 0, sizeof d);
  rc = tsl_run_packed(&lf, mm_ok, &bad_ref, &o, &r, &d);
  ok(rc != TSL_OK && r.status == TSL_RUN_SETUP_ERROR && strstr(d.text, "reference"),
     "a crashing reference is a setup error (%s)", d.text);
  ok(no_children(), "no child left after the reference runs");

  /* seeds change the inputs, not the verdict */
  tsl_run_opts os = o;
  os.seed = 12345;
  rc = tsl_run_packed(&lf, mm_ok, &ref, &os, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK, "another seed: ok");

  /* a shorter opts struct (an older caller) gets defaults for the rest */
  tsl_run_opts old;
  tsl_run_opts_default(&old);
  old.struct_size = (uint32_t)offsetof(tsl_run_opts, min_repeat_ms);
  old.repeat = 2;
  old.min_repeat_ms = 1e9; /* beyond struct_size: ignored */
  rc = tsl_run_packed(&lf, mm_ok, &ref, &old, &r, &d);
  ok(r.status == TSL_RUN_OK && r.n_times == 2 && r.number == 3,
     "fields beyond struct_size take their defaults");

  rc = tsl_run_packed(&lf, NULL, &ref, &o, &r, &d);
  ok(rc == TSL_EINVALID && r.status == TSL_RUN_SETUP_ERROR, "NULL function: setup error");
}

static void test_accumulate(const tsl_func *f) {
  tsl_lowered_func lf = hand_lowered(f);
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.warmup = 3;
  o.number = 5;
  tsl_run_result r;
  tsl_diag d = {0};
  tsl_run_packed(&lf, acc_kernel, &ref, &o, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK,
     "in-place accumulation: checked on the first call (%s)", r.error);
}

static void test_symbolic(const tsl_func *f) {
  tsl_lowered_func lf = hand_lowered(f);
  const tsl_var *m = f->params[0].buffer->shape[1]->u.var;
  const tsl_var *vars[1] = {m};
  lf.n_size_vars = 1;
  lf.size_vars = vars;
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_binding b = {"m", 37};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.n_binds = 1;
  o.binds = &b;
  tsl_run_result r;
  tsl_diag d = {0};
  int rc = tsl_run_packed(&lf, rowsum, &ref, &o, &r, &d);
  ok(rc == TSL_OK && r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK,
     "symbolic size bound to 37: ok (%s)", r.error);
  o.n_binds = 0;
  memset(&d, 0, sizeof d);
  rc = tsl_run_packed(&lf, rowsum, &ref, &o, &r, &d);
  ok(rc == TSL_EINVALID && r.status == TSL_RUN_SETUP_ERROR && strstr(d.text, "'m'") &&
         strstr(d.text, "m=64"),
     "missing binding: setup error naming the variable and how to bind it (%s)", d.text);
}

static void test_int_scalar(const tsl_func *f) {
  tsl_lowered_func lf = hand_lowered(f);
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_binding b = {"n", 5};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.n_binds = 1;
  o.binds = &b;
  tsl_run_result r;
  tsl_diag d = {0};
  tsl_run_packed(&lf, iadd, &ref, &o, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.max_abs_err == 0,
     "int32 with a scalar parameter: exact match");
  tsl_run_packed(&lf, iadd_off_by_one, &ref, &o, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH && r.max_abs_err == 1 && r.n_mismatched == 1,
     "integers must match exactly (off by one is a mismatch)");
}

static void test_library(const tsl_func *f) {
#ifdef RUN_TESTLIB
  tsl_lowered_func lf = hand_lowered(f);
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  tsl_run_result r;
  tsl_diag d = {0};
  int rc = tsl_run_library(&lf, RUN_TESTLIB, "testlib_mm_packed", &ref, &o, &r, &d);
  ok(rc == TSL_OK && r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK,
     "library function: ok (%s)", r.error);
  rc = tsl_run_library(&lf, RUN_TESTLIB, "nope", &ref, &o, &r, &d);
  ok(rc == TSL_OK && r.status == TSL_RUN_BUILD_ERROR && strstr(r.error, "nope"),
     "missing symbol: build error naming it (%s)", r.error);
  memset(&d, 0, sizeof d);
  rc = tsl_run_library(&lf, "/nonexistent/lib.so", "x", &ref, &o, &r, &d);
  ok(rc == TSL_EIO && r.status == TSL_RUN_SETUP_ERROR && strstr(d.text, "/nonexistent/lib.so"),
     "missing library: setup error naming the path (%s)", d.text);
#else
  (void)f;
  tap_skip("no test library", "library function");
#endif
}

/* runner.c, internal: workers a session forked so far */
struct tsl_measure_session;
int64_t measure_session_forks(const struct tsl_measure_session *s);

/* A session's persistent worker: forked once, kept across candidates,
 * replaced after a crash or a timeout; every candidate starts from the
 * pristine inputs whatever the one before did to them. */
static void test_session_worker(const tsl_func *f) {
#ifdef RUN_TESTLIB
  tsl_lowered_func lf = hand_lowered(f);
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.timeout_s = 2;
  tsl_measure_session *s = NULL;
  tsl_diag d = {0};
  if (!ok(tsl_measure_session_new(&lf, &ref, &o, &s, &d) == TSL_OK, "session")) {
    tap_diag("%s", d.text);
    return;
  }
  is_int(measure_session_forks(s), 1, "the worker is forked when the session is made");
  tsl_run_result r;
  int good = 1;
  for (int i = 0; i < 3; i++) {
    tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
    good &= r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK;
  }
  ok(good, "three candidates measured and checked");
  is_int(measure_session_forks(s), 1, "  ... by the same worker");
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_scribble_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH, "a kernel that scribbles over its input: mismatch");
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK,
     "  ... the next candidate starts from the pristine inputs: ok (%s)", r.error);
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_crash_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_CRASH && strstr(r.error, "worker died"),
     "a crash ends the worker (%s)", r.error);
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK, "  ... the next candidate gets a fresh one");
  is_int(measure_session_forks(s), 2, "  ... the second worker");
  double t0 = now();
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_hang_packed", NULL, &r, &d);
  double took = now() - t0;
  ok(r.status == TSL_RUN_TIMEOUT && took < 4, "a hang is killed after the timeout (%.1f s)",
     took);
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK, "  ... then a third worker measures the next");
  is_int(measure_session_forks(s), 3, "  ... three workers in all");
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "nope", NULL, &r, &d);
  ok(r.status == TSL_RUN_BUILD_ERROR && strstr(r.error, "nope"),
     "a missing symbol is a build error, and the worker stays");
  is_int(measure_session_forks(s), 3, "  ... still three");
  /* the bound on slow candidates: a checked call running past it is
   * stopped there; its time so far is the result */
  o.repeat = 3;
  tsl_measure_session_free(s);
  s = NULL;
  tsl_measure_session_new(&lf, &ref, &o, &s, &d);
  tsl_measure_session_set_slow_bound(s, 0.2);
  t0 = now();
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_hang_packed", NULL, &r, &d);
  took = now() - t0;
  ok(r.status == TSL_RUN_STOPPED && r.check == TSL_CHECK_SKIPPED && r.median_s >= 0.2 &&
         r.median_s < 1 && r.n_times == 1 && r.times_s[0] == r.median_s && took < 1.5 &&
         strstr(r.error, "stopped after"),
     "a call past the session's bound (0.2 s) is stopped there, long before the timeout "
     "(2 s): a lower bound %.3g s in %.2f s (%s)",
     r.median_s, took, r.error);
  is_str(tsl_run_status_name(r.status), "stopped", "  ... status name 'stopped'");
  int64_t forks = measure_session_forks(s);
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.timing_skipped == 0 &&
         r.n_times == 3,
     "  ... a fast candidate after it: checked and timed fully (%d repeats)", r.n_times);
  is_int(measure_session_forks(s), forks + 1, "  ... by a fresh worker");
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_scribble_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH, "  ... a wrong fast one is still a mismatch");
  /* a call that ended past the bound before it could be stopped (here an
   * in-process function: its own worker, no stopping): checked, and timed
   * by that call alone */
  tsl_measure_session_set_slow_bound(s, 1e-12);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_ok, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.timing_skipped == 1 &&
         r.n_times == 1 && r.number == 1 && r.median_s == r.check_s && r.check_s > 0,
     "a call that ended past the bound: checked, then timed by that call alone (%.3g s)",
     r.check_s);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_wrong, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH && r.timing_skipped == 1,
     "  ... a wrong result past the bound is still a mismatch");
  tsl_measure_session_set_slow_bound(s, 0);
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 0 && r.n_times == 3,
     "  ... without the bound: the three repeats (%d)", r.n_times);
  tsl_measure_session_set_slow_bound(s, 10);
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 0 && r.n_times == 3,
     "  ... a call faster than the bound is timed fully");
  tsl_measure_session_free(s);
  ok(no_children(), "freeing the session ends and reaps its worker");
#else
  (void)f;
  tap_skip("no test library", "session worker");
#endif
}

/* The sessions of the screening and probing tests: min_repeat_ms 200, so
 * a checked call is trusted alone from 20 ms (a tenth of it) and a full
 * timing takes 0.6 s. The calls these tests expect below the 20 ms take
 * microseconds or sleep 3 ms: a loaded machine that preempts them for
 * 15 ms still passes. */
enum { SESSION_MS = 200 };
#define TRUSTED_S (SESSION_MS / 10 * 1e-3)
#define FULL_S (3 * SESSION_MS * 1e-3)

/* A session over `lf` (which must outlive it) with the interpreter's
 * reference, 3 repeats of 3 calls and min_repeat_ms SESSION_MS; NULL
 * (reported) when it cannot be made. */
static tsl_measure_session *session_timed(const tsl_func *f, const tsl_lowered_func *lf,
                                          const char *what) {
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.timeout_s = 5;
  o.number = 3;
  o.repeat = 3;
  o.min_repeat_ms = SESSION_MS;
  tsl_measure_session *s = NULL;
  tsl_diag d = {0};
  if (!ok(tsl_measure_session_new(lf, &ref, &o, &s, &d) == TSL_OK, "%s: session", what)) {
    tap_diag("%s", d.text);
    return NULL;
  }
  return s;
}

/* The screening bound: a candidate whose checked call and one short
 * repeat (a tenth of min_repeat_ms) are both slower than the bound keeps
 * that repeat's time; one whose short repeat is within it is timed fully. */
static void test_screening(const tsl_func *f) {
  tsl_lowered_func lf = hand_lowered(f);
  tsl_diag d = {0};
  tsl_measure_session *s = session_timed(f, &lf, "screening");
  if (!s)
    return;
  tsl_run_result r;
  tsl_measure_session_set_screen_bound(s, 1e-12);
  double t0 = now();
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_ok, &r, &d);
  double took = now() - t0;
  double screen_s = r.number * r.median_s;
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.timing_skipped == 2 &&
         r.n_times == 1 && r.times_s[0] == r.median_s && r.number > 1 &&
         screen_s >= TRUSTED_S * 0.99 && took < 0.75 * FULL_S,
     "slower than the screening bound: checked, then one repeat of a tenth of min_repeat_ms "
     "(%d calls, %.1f ms; %.2f s in all, where the full timing takes %.1f s)",
     r.number, screen_s * 1e3, took, FULL_S);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_wrong, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH && r.timing_skipped == 2,
     "  ... a wrong result screened out is still a mismatch");
  tsl_measure_session_set_screen_bound(s, 0.01);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_slow_first, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check_s >= 0.03 && r.timing_skipped == 0 && r.n_times == 3 &&
         r.median_s < TRUSTED_S,
     "a checked call past the bound (%.0f ms) whose short repeat is within it: timed fully "
     "(%d repeats, median %.2g s)",
     r.check_s * 1e3, r.n_times, r.median_s);
  tsl_measure_session_set_screen_bound(s, 10);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_ok, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 0 && r.n_times == 3,
     "a checked call within the bound: timed fully, no screening");
  tsl_measure_session_set_screen_bound(s, 1e-12);
  tsl_measure_session_set_slow_bound(s, 1e-12);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_ok, &r, &d);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_slow_first, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 1 && r.number == 1 && r.check_s >= 0.03,
     "past the slow bound with a call of a tenth of min_repeat_ms or more: the checked call "
     "alone, no screening");
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_ok, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 2 && r.number > 1 && r.check_s < TRUSTED_S,
     "past the slow bound with a shorter call (%.2g s): screened instead, the checked call "
     "not trusted alone",
     r.check_s);
  tsl_measure_session_set_screen_bound(s, 0);
  tsl_measure_session_set_slow_bound(s, 0.001);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_cold_first, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check_s > 0.001 && r.check_s < TRUSTED_S && r.timing_skipped == 0 &&
         r.n_times == 3 && r.median_s < 0.001,
     "a cold checked call past the slow bound (%.1f ms) whose screening, against that bound "
     "(no screening bound set), is within it: timed fully (median %.2g s)",
     r.check_s * 1e3, r.median_s);
  tsl_measure_session_set_screen_bound(s, 1e-12);
  tsl_measure_session_set_slow_bound(s, 0);
#ifdef RUN_TESTLIB
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.timing_skipped == 2 &&
         r.n_times == 1,
     "a library's candidate in the persistent worker is screened the same way");
  tsl_measure_session_set_screen_bound(s, 0);
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 0 && r.n_times == 3,
     "  ... and without the bound timed fully (%d repeats)", r.n_times);
#else
  tap_skip("no test library", "screening in the persistent worker");
  tap_skip("no test library", "screening in the persistent worker, off");
#endif
  tsl_measure_session_free(s);
}

/* Probing: the checked call alone (compared, not timed); the slow bound
 * still applies, and a call past it long enough to be its own time says
 * so (timing_skipped 1: no later run needed). */
static void test_probing(const tsl_func *f) {
  tsl_lowered_func lf = hand_lowered(f);
  tsl_diag d = {0};
  tsl_measure_session *s = session_timed(f, &lf, "probing");
  if (!s)
    return;
  tsl_run_result r;
  tsl_measure_session_set_check_only(s, 1);
  double t0 = now();
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_ok, &r, &d);
  double took = now() - t0;
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.timing_skipped == 3 &&
         r.n_times == 1 && r.number == 1 && r.median_s == r.check_s &&
         r.times_s[0] == r.check_s && took < 0.75 * FULL_S,
     "check only: the checked call's time, compared, nothing timed (%.3f s; the full timing "
     "takes %.1f s)",
     took, FULL_S);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_wrong, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH && r.check == TSL_CHECK_MISMATCH && r.timing_skipped == 3,
     "  ... a wrong result is a mismatch");
  tsl_measure_session_set_slow_bound(s, 1e-12);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_slow_first, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 1 && r.check_s >= 0.03,
     "  ... past the slow bound with a call of a tenth of min_repeat_ms or more: its time, "
     "final (timing_skipped 1)");
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_ok, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 3 && r.check_s < TRUSTED_S,
     "  ... past it with a shorter call: checked only, to be timed later");
  tsl_measure_session_set_slow_bound(s, 0);
#ifdef RUN_TESTLIB
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && r.timing_skipped == 3 &&
         r.n_times == 1,
     "  ... a library's candidate in the persistent worker the same");
#else
  tap_skip("no test library", "probing in the persistent worker");
#endif
  tsl_measure_session_set_check_only(s, 0);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_ok, &r, &d);
  ok(r.status == TSL_RUN_OK && r.timing_skipped == 0 && r.n_times == 3,
     "probing off: timed fully again");
  tsl_measure_session_free(s);
}

/* Weights packed ahead of the calls: the prepack function runs once on the
 * session's weights, main is checked and timed on the packed buffer. */
static const char mm_bt_src[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((32, 32), \"float32\"), Bt: T.Buffer((32, 32), \"float32\"),\n"
    "         C: T.Buffer((32, 32), \"float32\")):\n"
    "    for i, j, k in T.grid(32, 32, 32):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * Bt[vj, vk]\n";

static void test_prepacked(tsl_arena *arena, const tsl_func *f) {
#ifdef RUN_TESTLIB
  tsl_lowered_func lf = hand_lowered(f);
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.timeout_s = 5;
  tsl_measure_session *s = NULL;
  tsl_diag d = {0};
  const tsl_func *main_bt = parse(arena, mm_bt_src);
  if (!main_bt || !ok(tsl_measure_session_new(&lf, &ref, &o, &s, &d) == TSL_OK, "session")) {
    tap_diag("%s", d.text);
    return;
  }
  static const uint32_t pos[1] = {1};
  tsl_prepack_split sp = {main_bt, NULL, 1, pos};
  tsl_run_result r;
  tsl_measure_session_run_prepacked(s, &sp, RUN_TESTLIB, "testlib_mm_bt_packed",
                                    "testlib_pack_t_packed", &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK,
     "prepacked: main on the packed weight matches the reference (%s)", r.error);
  tsl_measure_session_run_prepacked(s, &sp, RUN_TESTLIB, "testlib_mm_bt_packed",
                                    "testlib_pack_copy_packed", &r, &d);
  ok(r.status == TSL_RUN_MISMATCH,
     "prepacked: a packing into the wrong layout is a mismatch (the check starts from the "
     "original weights)");
  double t0 = now();
  tsl_measure_session_run_prepacked(s, &sp, RUN_TESTLIB, "testlib_mm_bt_packed",
                                    "testlib_pack_slow_packed", &r, &d);
  double took = now() - t0;
  ok(r.status == TSL_RUN_OK && took > 0.1 && r.median_s < 0.02,
     "prepacked: a slow packing (the run took %.2f s) is left out of the timing (median "
     "%.2g s)",
     took, r.median_s);
  tsl_measure_session_set_slow_bound(s, 0.05);
  t0 = now();
  tsl_measure_session_run_prepacked(s, &sp, RUN_TESTLIB, "testlib_mm_bt_packed",
                                    "testlib_pack_slow_packed", &r, &d);
  took = now() - t0;
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK && took > 0.1 && r.timing_skipped == 0,
     "  ... and from the slow bound (0.05 s): not stopped, checked and timed (%.2f s, %s)",
     took, tsl_run_status_name(r.status));
  tsl_measure_session_set_slow_bound(s, 0);
  tsl_measure_session_run_prepacked(s, &sp, RUN_TESTLIB, "testlib_mm_bt_packed",
                                    "testlib_pack_fail_packed", &r, &d);
  ok(r.status == TSL_RUN_ERROR && strstr(r.error, "prepack function returned 5"),
     "prepacked: a failing prepack function is an error saying so (%s)", r.error);
  tsl_measure_session_run_prepacked(s, &sp, RUN_TESTLIB, "testlib_mm_bt_packed", "nope", &r,
                                    &d);
  ok(r.status == TSL_RUN_BUILD_ERROR && strstr(r.error, "nope"),
     "prepacked: a missing prepack symbol is a build error naming it (%s)", r.error);
  tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK,
     "prepacked: the next plain candidate is measured as before");
  static const uint32_t out_pos[1] = {2};
  tsl_prepack_split bad = {main_bt, NULL, 1, out_pos};
  tsl_measure_session_run_prepacked(s, &bad, RUN_TESTLIB, "testlib_mm_bt_packed",
                                    "testlib_pack_t_packed", &r, &d);
  ok(r.status == TSL_RUN_ERROR && strstr(r.error, "not an input"),
     "prepacked: packing an output is refused (%s)", r.error);
  tsl_measure_session_free(s);
#else
  (void)arena;
  (void)f;
  tap_skip("no test library", "prepacked");
#endif
}

/* ---- the device hooks ---------------------------------------------------------
 * A fake device: host memory behind the target's hooks, every call counted
 * in shared memory (the hooks run in the measuring worker). */
typedef struct dev_log {
  int allocs, to, from, syncs, corrupt, fail_sync, n_bufs, parent_allocs, ref_on_device;
  pid_t parent;
  void *bufs[8], *seen[3];
} dev_log;
static dev_log *g_dev;
struct tsl_target {
  int unused;
};

static int fd_alloc(tsl_target *t, size_t bytes, void **out, tsl_diag *diag) {
  (void)t;
  (void)diag;
  *out = malloc(bytes);
  g_dev->allocs++;
  g_dev->parent_allocs += getpid() == g_dev->parent;
  if (g_dev->n_bufs < 8)
    g_dev->bufs[g_dev->n_bufs++] = *out;
  return TSL_OK;
}
static void fd_free(tsl_target *t, void *p) {
  (void)t;
  free(p);
}
static int fd_to(tsl_target *t, void *dst, const void *src, size_t n, tsl_diag *diag) {
  (void)t;
  (void)diag;
  memcpy(dst, src, n);
  g_dev->to++;
  return TSL_OK;
}
static int fd_from(tsl_target *t, void *dst, const void *src, size_t n, tsl_diag *diag) {
  (void)t;
  (void)diag;
  memcpy(dst, src, n);
  if (g_dev->corrupt)
    ((float *)dst)[0] += 1.0f;
  g_dev->from++;
  return TSL_OK;
}
static int fd_sync(tsl_target *t, tsl_diag *diag) {
  (void)t;
  g_dev->syncs++;
  return g_dev->fail_sync ? tsl_diag_set(diag, TSL_ERUNTIME, "the device lost the kernel")
                          : TSL_OK;
}

static int32_t mm_on_device(void *const *args) {
  for (int i = 0; i < 3; i++)
    g_dev->seen[i] = args[i];
  matmul(args[0], args[1], args[2]);
  return 0;
}

/* A compiled reference: notes whether every pointer it got is a device
 * buffer (a GPU kernel cannot read host memory). */
static int32_t mm_ref_on_device(void *const *args) {
  int on_device = 1;
  for (int i = 0; i < 3; i++) {
    int found = 0;
    for (int k = 0; k < g_dev->n_bufs; k++)
      found |= args[i] == g_dev->bufs[k];
    on_device &= found;
  }
  g_dev->ref_on_device = on_device;
  matmul(args[0], args[1], args[2]);
  return 0;
}

/* A vtable of device hooks only, allocating with `alloc`. */
static tsl_target_vtable fake_device(int (*alloc)(tsl_target *, size_t, void **, tsl_diag *)) {
  tsl_target_vtable vt;
  memset(&vt, 0, sizeof vt);
  vt.struct_size = sizeof vt;
  vt.dev_alloc = alloc;
  vt.dev_free = fd_free;
  vt.copy_to_device = fd_to;
  vt.copy_from_device = fd_from;
  vt.synchronize = fd_sync;
  return vt;
}

static int no_device(tsl_target *t, size_t bytes, void **out, tsl_diag *diag) {
  (void)t;
  (void)bytes;
  *out = NULL;
  return tsl_diag_set(diag, TSL_EUNSUPPORTED, "no CUDA device: a test's");
}

/* A session whose device cannot be reached stops before its first run. */
static void test_device_missing(const tsl_func *f) {
  tsl_target_vtable vt = fake_device(no_device);
  struct tsl_target target = {0};
  tsl_lowered_func lf = hand_lowered(f);
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_measure_session *s = NULL;
  tsl_diag d = {0};
  int rc = tsl_measure_session_new_on(&lf, &ref, NULL, &vt, &target, &s, &d);
  if (!ok(rc == TSL_EUNSUPPORTED && !s && !strcmp(d.text, "device: no CUDA device: a test's"),
          "a session whose device a child cannot reach is refused with the hook's message"))
    tap_diag("%d %s", rc, d.text);
}

static void test_device(const tsl_func *f) {
  g_dev = mmap(NULL, sizeof *g_dev, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  g_dev->parent = getpid();
  tsl_target_vtable vt = fake_device(fd_alloc);
  struct tsl_target target = {0};
  tsl_lowered_func lf = hand_lowered(f);
  tsl_reference ref = {sizeof ref, f, NULL};
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.repeat = 2;
  o.number = 2;
  tsl_measure_session *s = NULL;
  tsl_diag d = {0};
  if (!ok(tsl_measure_session_new_on(&lf, &ref, &o, &vt, &target, &s, &d) == TSL_OK,
          "a session on a device")) {
    tap_diag("%s", d.text);
    return;
  }
  ok(g_dev->parent_allocs == 0, "the tuner's process allocates nothing on the device");
  is_int(g_dev->allocs, 1, "  ... a child probed the device once (one allocation)");
  g_dev->allocs = g_dev->n_bufs = 0;
  tsl_run_result r;
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_on_device, &r, &d);
  ok(r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK, "measured and checked through the hooks (%s)",
     r.error);
  is_int(g_dev->allocs, 3, "  ... one device buffer per buffer parameter");
  ok(g_dev->seen[0] == g_dev->bufs[0] && g_dev->seen[1] == g_dev->bufs[1] &&
         g_dev->seen[2] == g_dev->bufs[2],
     "  ... the function got the device buffers");
  is_int(g_dev->to, 6, "  ... inputs copied in twice (checked call, timed calls)");
  is_int(g_dev->from, 1, "  ... only the output read back");
  ok(g_dev->syncs >= 1 + 1 + 2, "  ... synchronized after the checked call, the warm-up and each repeat (%d)",
     g_dev->syncs);
  g_dev->corrupt = 1;
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_on_device, &r, &d);
  ok(r.status == TSL_RUN_MISMATCH, "outputs read back wrong: a mismatch (the check reads the device)");
  g_dev->corrupt = 0;
  g_dev->fail_sync = 1;
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_on_device, &r, &d);
  ok(r.status == TSL_RUN_ERROR && strstr(r.error, "device: synchronizing: the device lost the kernel"),
     "a failed synchronization is an error naming it (%s)", r.error);
  g_dev->fail_sync = 0;
#ifdef RUN_TESTLIB
  memset(g_dev, 0, sizeof *g_dev);
  int good = 1;
  for (int i = 0; i < 3; i++) {
    tsl_measure_session_run(s, &lf, RUN_TESTLIB, "testlib_mm_packed", NULL, &r, &d);
    good &= r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK;
  }
  ok(good && g_dev->allocs == 3,
     "the persistent worker keeps its device buffers across candidates (%d allocations for 3)",
     g_dev->allocs);
#endif
  tsl_measure_session_free(s);
  /* A compiled reference runs on device buffers of its own, its outputs
   * read back into the reference (read back wrong: every candidate
   * mismatches, so the check does read what the device computed). */
  tsl_reference cref = {sizeof cref, NULL, mm_ref_on_device};
  for (int corrupt = 0; corrupt < 2; corrupt++) {
    memset(g_dev, 0, sizeof *g_dev);
    g_dev->corrupt = corrupt;
    s = NULL;
    int rc = tsl_measure_session_new_on(&lf, &cref, &o, &vt, &target, &s, &d);
    g_dev->corrupt = 0;
    if (!ok(rc == TSL_OK, "a session with a compiled reference on a device%s",
            corrupt ? ", its output read back wrong" : "")) {
      tap_diag("%s", d.text);
      continue;
    }
    if (!corrupt)
      ok(g_dev->ref_on_device && g_dev->allocs == 1 + 3,
         "  ... the reference got device buffers of its own (%d allocations)", g_dev->allocs);
    tsl_measure_session_run(s, &lf, NULL, NULL, mm_on_device, &r, &d);
    ok(corrupt ? r.status == TSL_RUN_MISMATCH : r.status == TSL_RUN_OK && r.check == TSL_CHECK_OK,
       "  ... a right candidate %s", corrupt ? "mismatches the wrong reference" : "matches it");
    tsl_measure_session_free(s);
  }
  vt.struct_size = offsetof(tsl_target_vtable, dev_alloc); /* a 0.2 target */
  memset(g_dev, 0, sizeof *g_dev);
  s = NULL;
  tsl_measure_session_new_on(&lf, &ref, &o, &vt, &target, &s, &d);
  tsl_measure_session_run(s, &lf, NULL, NULL, mm_on_device, &r, &d);
  ok(r.status == TSL_RUN_OK && g_dev->allocs == 0 && g_dev->to == 0,
     "a target without the hooks is measured in host memory");
  tsl_measure_session_free(s);
  munmap(g_dev, sizeof *g_dev);
}

/* The timing loop itself (timing.c), in-process. */
struct measure_flush;
struct measure_device;
int32_t measure_time_calls(tsl_packed_fn fn, void *const *slots, const tsl_run_opts *o,
                           struct measure_flush *fl, struct measure_device *dev,
                           tsl_run_result *res);

static int spin_calls;

/* Each call lasts at least 1 ms. */
static int32_t spin_1ms(void *const *args) {
  (void)args;
  double t0 = now();
  while (now() - t0 < 1e-3)
    ;
  spin_calls++;
  return 0;
}

/* min_repeat_ms 30 with 1 ms calls: the first repeat starts from the 31
 * calls the checked call's time asks for, instead of 3 calls first; and
 * without it, the 3 calls are extended to a repeat of 30 ms or more. */
static void test_first_repeat(void) {
  tsl_run_opts o;
  tsl_run_opts_default(&o);
  o.number = 3;
  o.repeat = 1;
  o.min_repeat_ms = 30;
  tsl_run_result r;
  memset(&r, 0, sizeof r);
  r.check_s = 1e-3;
  spin_calls = 0;
  int32_t rc = measure_time_calls(spin_1ms, NULL, &o, NULL, NULL, &r);
  ok(rc == 0 && r.number == 31 && spin_calls == o.warmup + 31 && r.n_times == 1,
     "a checked call of 1 ms and min_repeat_ms 30: one repeat of 31 calls, none short "
     "(%d calls for number %d)",
     spin_calls, r.number);
  memset(&r, 0, sizeof r);
  spin_calls = 0;
  rc = measure_time_calls(spin_1ms, NULL, &o, NULL, NULL, &r);
  /* 3 calls first, extended to 30 or more: the repeat is their mean, none
   * thrown away (TVM's evaluator would time the grown number afresh) */
  /* a call takes 1 ms or more (longer when the machine is busy), so the
   * repeat's length, not its count, is what is promised */
  ok(rc == 0 && r.number > 3 && r.times_s[0] * r.number >= 0.03 * (1 - 1e-9) &&
         spin_calls == o.warmup + r.number && r.times_s[0] >= 1e-3 && r.n_times == 1,
     "  ... without the checked call's time: 3 calls first, extended to %d (%d calls, none "
     "discarded)",
     r.number, spin_calls);
  memset(&r, 0, sizeof r);
  spin_calls = 0;
  o.repeat = 3;
  rc = measure_time_calls(spin_1ms, NULL, &o, NULL, NULL, &r);
  /* the later repeats start from the first one's count; one that a busy
   * machine made shorter than 30 ms is extended in turn, so the count can
   * only grow: the last repeat has r.number calls, the others at most as
   * many, and each lasts 30 ms or more */
  ok(rc == 0 && r.number > 3 && r.n_times == 3 && r.times_s[2] * r.number >= 0.03 * (1 - 1e-9) &&
         spin_calls <= o.warmup + 3 * r.number && spin_calls > o.warmup + r.number + 6 &&
         r.times_s[0] >= 1e-3 && r.times_s[1] >= 1e-3 && r.times_s[2] >= 1e-3,
     "  ... repeat 3: the first repeat extended, the next two from its count (the last of %d "
     "calls, %d in all)",
     r.number, spin_calls);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  test_names();
  test_first_repeat();
  const tsl_func *mm = parse(arena, mm_src);
  test_matmul(mm);
  test_accumulate(parse(arena, acc_src));
  test_symbolic(parse(arena, sym_src));
  test_int_scalar(parse(arena, int_src));
  test_library(mm);
  test_session_worker(mm);
  test_screening(mm);
  test_probing(mm);
  test_prepacked(arena, mm);
  test_device(mm);
  test_device_missing(mm);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
