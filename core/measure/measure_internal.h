/*
 * core/measure internal declarations: the measurement's argument sets, the
 * forked worker, the timing loop and the output comparison. Only files of
 * core/measure include this header.
 */
#ifndef TESSEL_MEASURE_INTERNAL_H
#define TESSEL_MEASURE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tessel/runner.h"

#include "measure.h"

/* ---- arguments (args.c) ---------------------------------------------------
 * Three copies of every buffer parameter: `pristine` (the seeded random
 * inputs, never passed to code), `work` (what the measured function gets)
 * and `ref` (what the reference gets; shared memory, so that a reference run
 * in a forked worker writes where the parent reads). Scalars and size
 * variables are stored once and pointed to from both slot arrays. */
typedef struct measure_args {
  uint32_t n_params;
  uint32_t n_size_vars;
  tsl_arg *meta;      /* n_params: dtype/shape of buffers (data NULL) and
                         scalar values, as tsl_func_make_args made them */
  size_t *bytes;      /* n_params: bytes of each buffer (0: scalar) */
  void **pristine;    /* n_params: whole pages (NULL: scalar) */
  void **work;        /* n_params: 64-byte aligned */
  void **ref;         /* n_params: MAP_SHARED pages */
  int64_t *ints;      /* n_params + n_size_vars */
  double *floats;     /* n_params */
  void **slots;       /* packed arguments over `work` */
  void **ref_slots;   /* packed arguments over `ref` */
  uint8_t *is_output; /* n_params */
  double *ref_scale;  /* n_params: the check's scale of each reference
                         output (compare.c), set once the reference is made */
} measure_args;

/* Bytes of one element of `t` (lanes included; at least 1). */
size_t measure_elem_bytes(tsl_dtype t);
/* Make the arguments of `lf` from the binds and seed of `opts`. */
int measure_args_make(const tsl_lowered_func *lf, const tsl_run_opts *opts,
                   measure_args *a, tsl_diag *diag);
void measure_args_free(measure_args *a);
/* Make pristine and ref read-only in this process (a persistent worker:
 * a candidate writing past its buffers then crashes instead of changing
 * the inputs or the reference of the candidates after it). */
void measure_args_protect(measure_args *a);
/* Copy pristine into work (every buffer) / into ref. */
void measure_args_reset_work(measure_args *a);
void measure_args_reset_ref(measure_args *a);
/* tsl_arg views over the ref buffers, for the interpreter (n_params
 * entries, caller frees the array with free()). */
tsl_arg *measure_args_ref_view(const measure_args *a);

/* ---- the device (device.c) -------------------------------------------------
 * The memory a measured call runs on: the target's device hooks (target.h),
 * or host memory when it has none (then the device buffers are `work`).
 * Opened lazily in the process that measures (a worker), kept there. */
typedef struct measure_device {
  const tsl_target_vtable *vt; /* NULL: host */
  tsl_target *t;
  int hooks;        /* vt has every hook */
  int open;
  int failed;       /* a hook failed: the next open allocates afresh (a
                       device may have lost its buffers with its context) */
  void **buf;       /* n_params: device buffers (NULL: scalar) */
  void **slots;     /* packed arguments over buf */
} measure_device;

/* A device for `vt`/`t` (either may be NULL: host memory). */
void measure_device_init(measure_device *d, const tsl_target_vtable *vt, tsl_target *t);
/* Allocate the device buffers of `a` (once); 0, or nonzero with the
 * message in err. */
int measure_device_open(measure_device *d, measure_args *a, char *err, size_t cap);
/* Copy the pristine inputs to the device buffers. */
int measure_device_upload(measure_device *d, measure_args *a, char *err, size_t cap);
/* Copy the output buffers back into `work` (to be compared); into `dst`
 * (n_params host buffers: the reference's `ref`). */
int measure_device_download(measure_device *d, measure_args *a, char *err, size_t cap);
int measure_device_download_into(measure_device *d, measure_args *a, void **dst, char *err,
                                 size_t cap);
/* Wait for the device's calls; 0 without hooks. */
int measure_device_sync(measure_device *d, char *err, size_t cap);

/* ---- packed weights (pack.c) -----------------------------------------------
 * A candidate that packs layout-free weights ahead of its calls
 * (tsl_measure_session_run_prepacked): which parameters its main function
 * takes packed, and the packed buffers' sizes. */
#define MEASURE_MAX_PACKED 16
typedef struct measure_pack {
  uint32_t n;
  uint32_t pos[MEASURE_MAX_PACKED];
  uint64_t bytes[MEASURE_MAX_PACKED];
} measure_pack;

/* In the worker, after the device got the inputs: allocate the packed
 * buffers into `bufs` (the device's, or host memory), run `prepack` on the
 * weights' device buffers, and make `slots` (n_params + n_size_vars
 * entries) dev->slots with the packed parameters pointing at the packed
 * buffers. 0, or -1 with the message in err; release the buffers either
 * way with measure_pack_release. */
int measure_pack_run(const measure_pack *p, tsl_packed_fn prepack, measure_device *dev,
                     const measure_args *a, void **bufs, void **slots, char *err, size_t cap);
void measure_pack_release(const measure_pack *p, measure_device *dev, void **bufs);

/* Whether a worker reaches the device: a one-byte buffer allocated and
 * freed in a forked child, so that a run without its device stops before
 * its first candidate (the message in err). 0 for host memory. */
int measure_device_probe(measure_device *d, char *err, size_t cap);

/* ---- forked worker (worker.c) ---------------------------------------------
 * Runs `body(user_data, out)` in a child process; the child sends `out`
 * (out_size bytes, at most a few KiB) back through a pipe and exits. */
typedef void (*measure_worker_body)(void *user_data, void *out);

enum {
  MEASURE_WORKER_DONE = 0,     /* the child sent its result and exited 0 */
  MEASURE_WORKER_SIGNAL = 1,   /* killed by a signal (sig) */
  MEASURE_WORKER_EXIT = 2,     /* exited (exit_code) without a full result */
  MEASURE_WORKER_TIMEOUT = 3,  /* still running after timeout_s: killed */
  MEASURE_WORKER_NOFORK = 4,   /* fork or pipe failed (message) */
  MEASURE_WORKER_STOPPED = 5   /* a persistent worker's stoppable part ran
                                  past its bound: killed (wall_s: how long
                                  it had run) */
};

typedef struct measure_outcome {
  int kind;      /* MEASURE_WORKER_* */
  int sig;
  int exit_code;
  double wall_s; /* from fork to reaping */
  char message[256];
} measure_outcome;

/* fork() for every worker (measurements and builds). The child dies with
 * the parent (PR_SET_PDEATHSIG; a parent already gone ends it) and has
 * default SIGINT / SIGTERM handling, so that a killed or interrupted run
 * leaves no worker behind and prints its message once. Both signals are
 * blocked across the fork, so one that comes before the child has reset
 * its handlers waits for that instead of running the parent's handler in
 * the child. Returns as fork() does. */
pid_t measure_fork(void);

/* Never leaves a zombie: the child is always reaped. timeout_s <= 0 waits
 * forever. */
void measure_worker_run(double timeout_s, measure_worker_body body, void *user_data,
                     void *out, size_t out_size, measure_outcome *outcome);
/* "worker died: Segmentation fault", "timed out after 2 s", ... */
void measure_outcome_text(const measure_outcome *o, char *buf, size_t cap);
/* waitpid for `pid`, EINTR retried: 0, or -1 with errno. */
int measure_reap(pid_t pid, int *status);
/* Read `size` bytes of `fd` into buf before `deadline` (CLOCK_MONOTONIC
 * seconds, 0: none), polling; with `drain`, go on reading (and dropping)
 * until EOF. *got the bytes kept. 1 when the deadline passed, else 0 (all
 * read, or EOF first). */
int measure_read_deadline(int fd, void *buf, size_t size, double deadline, int drain,
                       size_t *got);
/* The outcome of a reaped worker: timed out (killed), a signal, an exit
 * before a complete result (`complete` 0), or done. */
void measure_outcome_end(measure_outcome *o, int status, int timed_out, double timeout_s,
                      int complete);

/* ---- persistent worker (pworker.c) ------------------------------------------
 * A worker that stays alive across jobs: forked by measure_pworker_start,
 * given one fixed-size request at a time through a pipe, answering with a
 * fixed-size result; after it crashed, exited or timed out (killed), the
 * next job forks a fresh one. The child runs body(user_data, req, out)
 * on the memory it had at its fork. On the result pipe every answer is a
 * tag byte and what follows it: MEASURE_MARK_START and MEASURE_MARK_END
 * (nothing follows) enclose a part of the job the parent may stop, and
 * MEASURE_MARK_RESULT precedes the result. */
enum { MEASURE_MARK_START = 'S', MEASURE_MARK_END = 'E', MEASURE_MARK_RESULT = 'R' };
typedef void (*measure_pworker_body)(void *user_data, const void *req, void *out);

typedef struct measure_pworker {
  measure_pworker_body body;
  void *user_data;
  size_t req_size, out_size;
  pid_t pid; /* 0: not running */
  int req_fd, res_fd;
  int64_t forks; /* workers started so far */
  pid_t stopped; /* a worker killed past its stop bound, not reaped yet (0: none) */
} measure_pworker;

/* Workers a measurement session forked so far (runner.c; for tests). */
struct tsl_measure_session;
int64_t measure_session_forks(const struct tsl_measure_session *s);

/* Fork the worker now (it would be forked by the first job otherwise). */
int measure_pworker_start(measure_pworker *w);
/* One job; the outcome as measure_worker_run's (DONE when the result came
 * back; the worker then stays). With stop_s > 0, a part of the job between
 * the child's marks that runs longer than stop_s is stopped: the worker is
 * killed, the outcome STOPPED. */
void measure_pworker_run(measure_pworker *w, double timeout_s, double stop_s, const void *req,
                      void *out, measure_outcome *o);
/* In the child of a persistent worker: tell the parent that a part it may
 * stop starts (MEASURE_MARK_START) or ended (MEASURE_MARK_END). Elsewhere
 * (a one-job worker, the parent): nothing. */
void measure_pworker_mark(char tag);
/* End the worker (closing its pipe; it exits), reaped. */
void measure_pworker_stop(measure_pworker *w);

/* ---- timing (timing.c) ----------------------------------------------------- */

typedef struct measure_flush {
  unsigned char *buf;
  size_t size;
} measure_flush;

/* Bytes to write for a cache flush: 1.5x the last-level cache (sysfs, then
 * sysconf), clamped to [8 MiB, 256 MiB]; 48 MiB when unknown. */
size_t measure_flush_size(void);
/* Time `fn(slots)` per `opts` into `r` (times_s, n_times, number,
 * median_s). Returns the first nonzero return code of a call (timing stops
 * there), else 0. `flush` NULL: no flushing. `dev` (may be NULL) is
 * synchronized before every reading of the clock that ends calls; a failed
 * synchronization stops the timing: INT32_MIN, its message in r->error. */
int32_t measure_time_calls(tsl_packed_fn fn, void *const *slots,
                        const tsl_run_opts *opts, measure_flush *flush,
                        measure_device *dev, tsl_run_result *r);
double measure_median(const double *v, int32_t n);

/* ---- comparison (compare.c) ------------------------------------------------ */

/* Compare a->work outputs with a->ref outputs: fills r->check,
 * r->max_abs_err, r->n_mismatched and, on a mismatch, r->error with the
 * first differing element. `names` are the parameters' buffer names. */
void measure_compare(const measure_args *a, const tsl_func *src, tsl_run_result *r);
/* a->ref_scale from the reference outputs in a->ref, once per reference
 * (not per candidate: it is a pass over every output). */
void measure_args_set_ref_scales(measure_args *a);

#endif /* TESSEL_MEASURE_INTERNAL_H */
