/*
 * tessel/runner.h — measuring built functions: timing like TVM's
 * time_evaluator, isolation in a forked worker with a timeout, and checking
 * outputs against a reference.
 *
 * A measurement runs in a child process (fork): a segfault, an abort, a
 * hang past the timeout or a nonzero return becomes a failed result, never
 * a dead caller. The parent allocates the arguments (seeded random inputs,
 * 64-byte aligned) and the reference outputs before forking; the child
 * times the calls, compares the outputs and writes the result back through
 * a pipe.
 *
 * Timing: `warmup` untimed calls, then `repeat` repeats of `number` calls
 * each; a repeat's time is its mean per call. When a repeat takes less than
 * `min_repeat_ms`, calls are added to it until it does not, and `number`
 * (reported, and used by the later repeats) is the calls it took (TVM
 * grows `number` and times the repeat again); the first repeat starts from
 * enough calls to last `min_repeat_ms` at the checked call's speed. With
 * `flush_cache`, a buffer larger than the last-level cache is written
 * before every timed call (and that call is timed alone). The median of the
 * repeats is reported.
 */
#ifndef TESSEL_RUNNER_H
#define TESSEL_RUNNER_H

#include <stdint.h>

#include "tessel/interp.h"
#include "tessel/lower.h"
#include "tessel/target.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsl_run_opts {
  uint32_t struct_size;
  int32_t warmup;        /* untimed calls first (default 1) */
  int32_t number;        /* calls per repeat (default 3) */
  int32_t repeat;        /* repeats (default 3) */
  double min_repeat_ms;  /* default 0 */
  int32_t flush_cache;   /* 1: flush caches before each timed call */
  double timeout_s;      /* whole measurement, default 10; <= 0: none */
  uint64_t seed;         /* random inputs (default 1) */
  /* Values of symbolic sizes and scalar parameters, by name. */
  uint32_t n_binds;
  const tsl_binding *binds;
} tsl_run_opts;

/* Fills `o` with the defaults above. */
TSL_API void tsl_run_opts_default(tsl_run_opts *o);

enum {
  TSL_RUN_OK = 0,
  TSL_RUN_MISMATCH = 1,      /* ran, outputs differ from the reference */
  TSL_RUN_ERROR = 2,         /* the function returned nonzero */
  TSL_RUN_CRASH = 3,         /* the worker died on a signal */
  TSL_RUN_TIMEOUT = 4,       /* killed after timeout_s */
  TSL_RUN_BUILD_ERROR = 5,   /* lowering or compilation failed */
  TSL_RUN_SETUP_ERROR = 6,   /* arguments / reference could not be made */
  /* its first call ran past the session's bound
   * (tsl_measure_session_set_slow_bound) and was stopped there: median_s
   * is a lower bound of its latency, the outputs are not checked */
  TSL_RUN_STOPPED = 7
};
/* "ok", "mismatch", "error", "crash", "timeout", "build error",
 * "setup error", "stopped". */
TSL_API const char *tsl_run_status_name(int32_t status);

enum {
  TSL_CHECK_SKIPPED = 0,
  TSL_CHECK_OK = 1,
  TSL_CHECK_MISMATCH = 2
};
/* "skipped", "ok", "mismatch". */
TSL_API const char *tsl_check_name(int32_t check);

#define TSL_RUN_MAX_REPEAT 64

typedef struct tsl_run_result {
  uint32_t struct_size;
  int32_t status;          /* TSL_RUN_* */
  int32_t check;           /* TSL_CHECK_* */
  double median_s;         /* median seconds per call (status OK/MISMATCH) */
  int32_t n_times;         /* repeats measured */
  double times_s[TSL_RUN_MAX_REPEAT]; /* seconds per call of each repeat */
  int32_t number;          /* calls per repeat actually used */
  double max_abs_err;      /* largest |ref - got| over the outputs */
  int64_t n_mismatched;    /* elements outside the tolerance */
  char error[512];         /* why it failed, for the user */
  double check_s;          /* seconds of the checked call (the first) */
  int32_t timing_skipped;  /* 1: slower than the session's bound, so
                              median_s is the checked call's time alone
                              (tsl_measure_session_set_slow_bound);
                              2: slower than its screening
                              bound, so median_s is one short repeat's
                              time per call, `number` calls
                              (tsl_measure_session_set_screen_bound);
                              3: checked only, median_s is
                              the checked call's time, to be timed in a
                              later run (tsl_measure_session_set_check_only) */
} tsl_run_result;

/* Where reference outputs come from. */
typedef struct tsl_reference {
  uint32_t struct_size;
  /* One of: */
  const tsl_func *interp_func;   /* run in the interpreter */
  tsl_packed_fn compiled_fn;     /* a compiled reference (same parameters) */
  /* Neither: no check (result.check = TSL_CHECK_SKIPPED). */
} tsl_reference;

/* Measure `fn`, a packed function for `lf` (target.h's convention), in a
 * forked worker. `ref` may be NULL. The outputs compared are the buffer
 * parameters the source function writes (tsl_func_param_is_output), with
 * the dtype's tolerance of tsl_interp_check_equivalent, for float32 and
 * float64 outputs at least that times the root mean square of the
 * buffer's reference values (from 1.14). Returns TSL_OK when a
 * result was produced (look at result->status), or an error status when
 * even the setup failed (message in diag, result->status SETUP_ERROR). */
TSL_API int tsl_run_packed(const tsl_lowered_func *lf, tsl_packed_fn fn,
                           const tsl_reference *ref, const tsl_run_opts *opts,
                           tsl_run_result *result, tsl_diag *diag);

/* The same on the memory of `target` (1.2): the worker allocates and
 * copies the buffers through its device hooks (target.h), as a measurement
 * session does; NULL hooks are host memory. A compiled reference runs on
 * that memory too, from 1.14 (on a target with the hooks it gets device
 * pointers, its outputs are copied back; before, it got host pointers). */
TSL_API int tsl_run_packed_on(const tsl_lowered_func *lf, tsl_packed_fn fn,
                              const tsl_reference *ref, const tsl_run_opts *opts,
                              const tsl_target_vtable *vt, tsl_target *target,
                              tsl_run_result *result, tsl_diag *diag);

/* The same for a function inside a shared library (as written by a
 * target's export_library): the worker dlopens `so_path` and calls
 * "<symbol>". Used to measure builds made in other processes. */
TSL_API int tsl_run_library(const tsl_lowered_func *lf, const char *so_path,
                            const char *symbol, const tsl_reference *ref,
                            const tsl_run_opts *opts, tsl_run_result *result,
                            tsl_diag *diag);

/* A measurement session: the arguments (seeded random inputs) and the
 * reference outputs are made once, from `lf` (the unscheduled program,
 * lowered) and `ref`, and every candidate measured in the session reuses
 * them. Candidates must have the same parameters as `lf`. `lf` must outlive
 * the session. Used by the tuner, where a reference run per candidate
 * would cost more than the candidate. */
typedef struct tsl_measure_session tsl_measure_session;
TSL_API int tsl_measure_session_new(const tsl_lowered_func *lf,
                                    const tsl_reference *ref,
                                    const tsl_run_opts *opts,
                                    tsl_measure_session **out, tsl_diag *diag);
/* The same, measuring on the device of `target` through its device hooks
 * (target.h: buffers allocated, inputs copied in and outputs read back
 * through them, calls synchronized before the clock is read), in the
 * session's worker process. A vtable without the hooks, or NULL: host
 * memory. `vt` and `target` must outlive the session. */
TSL_API int tsl_measure_session_new_on(const tsl_lowered_func *lf,
                                       const tsl_reference *ref,
                                       const tsl_run_opts *opts,
                                       const tsl_target_vtable *vt, tsl_target *target,
                                       tsl_measure_session **out, tsl_diag *diag);
TSL_API void tsl_measure_session_free(tsl_measure_session *s);
/* The time worth spending on a candidate of the session from now on: its
 * checked call (the first, on the pristine inputs) is stopped once it has
 * run `seconds`, or 50 ms if that is longer (the worker is killed, and the
 * next candidate gets a fresh one, which costs a fork and its setup):
 * status TSL_RUN_STOPPED, median_s and times_s[0] the time it ran (a
 * lower bound), outputs unchecked. A call that ends just past the bound,
 * before it could be stopped, is checked, and only its own time is taken
 * (status OK or MISMATCH, n_times 1, number 1, timing_skipped 1) when it
 * lasted at least a tenth of opts.min_repeat_ms; a shorter one (the cold
 * first call of a microseconds kernel can be several times its steady
 * time) gets the screening repeat of tsl_measure_session_set_screen_bound,
 * against that bound, or this one when none is set. The
 * tuner sets the bound to the best latency so far times
 * runner.skip_slower: such a candidate cannot be the best, and its cost
 * model label needs no more precision, while its calls could take most of
 * a tuning run (a kernel 50 times slower than the best spends 4 calls
 * where the best spends one, each 50 times as long). Only candidates of
 * tsl_measure_session_run(_prepacked) given a library are stopped early
 * (in-process functions get a worker of their own, checked and skipped as
 * above). <= 0: off (a new session's). */
TSL_API void tsl_measure_session_set_slow_bound(tsl_measure_session *s, double seconds);
/* Candidates worth only a short timing: a candidate whose
 * checked call took longer than `seconds` first gets one screening repeat
 * (calls for a tenth of opts.min_repeat_ms, at least one; the cache flush
 * as configured); if that too reads longer than `seconds` per call, it is
 * the result (median_s, n_times 1, number its calls, timing_skipped 2),
 * else the timing goes on as without the bound. A checked call is often
 * slower than the steady state (cold caches, a thread pool waking up), so
 * the screening repeat decides, not that call. The tuner sets the bound
 * to the best latency so far times runner.screen_slower: a candidate 1.5
 * times slower than the best needs a real time for its cost model label,
 * not TVM's full protocol. Applies after the slow bound
 * (tsl_measure_session_set_slow_bound), to library and in-process
 * candidates alike. <= 0: off (a new session's). */
TSL_API void tsl_measure_session_set_screen_bound(tsl_measure_session *s, double seconds);
/* Probing: on (nonzero), the session's runs make the checked
 * call and compare its outputs, and time nothing more: status OK or
 * MISMATCH, median_s and times_s[0] the checked call's time, n_times and
 * number 1, timing_skipped 3; the slow bound applies as in a full run (a
 * call stopped there is STOPPED, one past it and long enough to be its own
 * time has timing_skipped 1: no later run needed). The tuner probes the
 * candidates of a batch that starts without a best this way, then times
 * the ones worth it, fastest probe first, with the run's bounds: the
 * first candidates measured no longer get the full timing for lack of a
 * best to compare with. Off (0) by default. */
TSL_API void tsl_measure_session_set_check_only(tsl_measure_session *s, int32_t on);
/* Measure one candidate: `fn` in-process code, or `symbol` in the shared
 * library `so_path`; as tsl_run_packed / tsl_run_library otherwise. `lf` is
 * the candidate's lowered function (NULL: the session's). */
TSL_API int tsl_measure_session_run(tsl_measure_session *s,
                                    const tsl_lowered_func *lf,
                                    const char *so_path, const char *symbol,
                                    tsl_packed_fn fn, tsl_run_result *result,
                                    tsl_diag *diag);

/* A candidate that packs layout-free weights ahead of its calls (lower.h,
 * tsl_func_split_prepack gave `split`): the library holds `symbol`, the
 * split's main function, and `prepack_symbol`, its prepack function. In the
 * worker the packed buffers are allocated where the candidate runs (the
 * target's device hooks, or host memory), the prepack function runs once
 * on the session's weights (the seeded inputs the reference ran on), and
 * main is checked and timed on the packed buffers: the packing is left out
 * of the timing, the output check still starts from the original weights.
 * A split without packed parameters measures `symbol` as
 * tsl_measure_session_run does. */
TSL_API int tsl_measure_session_run_prepacked(tsl_measure_session *s,
                                              const tsl_prepack_split *split,
                                              const char *so_path, const char *symbol,
                                              const char *prepack_symbol,
                                              tsl_run_result *result, tsl_diag *diag);

/* The C header of an exported library: one declaration per function
 * ("int32_t <prefix>_<name>(float *A, ..., int64_t n)"), with each
 * parameter's shape and dtype in comments. Returns a malloc'ed string. */
TSL_API char *tsl_export_header(const tsl_lowered_module *m,
                                const char *prefix);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_RUNNER_H */
