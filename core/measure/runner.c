/*
 * The runner (runner.h): one measurement of a packed function or of a
 * function in a shared library. The parent makes the arguments and the
 * reference outputs (the interpreter in-process; a compiled reference in
 * its own forked worker, since it is native code too), then forks the
 * measuring worker: a first call on pristine inputs whose outputs are
 * checked, inputs restored, warm-up and timing, the result sent back
 * through a pipe. Every way the worker can fail becomes a result status.
 */
#include "measure_internal.h"

#include <stdint.h>

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A session's checked call is stopped past its slow bound, but never
 * before this many seconds (tsl_measure_session_set_slow_bound). */
#define STOP_MIN_S 0.05

void tsl_run_opts_default(tsl_run_opts *o) {
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->warmup = 1;
  o->number = 3;
  o->repeat = 3;
  o->min_repeat_ms = 0;
  o->flush_cache = 0;
  o->timeout_s = 10;
  o->seed = 1;
}

const char *tsl_run_status_name(int32_t s) {
  static const char *const names[] = {"ok",      "mismatch",    "error",      "crash",
                                      "timeout", "build error", "setup error", "stopped"};
  return s >= 0 && s <= TSL_RUN_STOPPED ? names[s] : "unknown";
}

const char *tsl_check_name(int32_t c) {
  switch (c) {
  case TSL_CHECK_SKIPPED:
    return "skipped";
  case TSL_CHECK_OK:
    return "ok";
  case TSL_CHECK_MISMATCH:
    return "mismatch";
  }
  return "unknown";
}

/* Defaults, overwritten by the fields the caller's struct has. */
static void opts_from(const tsl_run_opts *in, tsl_run_opts *o) {
  tsl_run_opts_default(o);
  if (!in)
    return;
  size_t n = in->struct_size && in->struct_size < sizeof *o ? in->struct_size : sizeof *o;
  memcpy(o, in, n);
  o->struct_size = sizeof *o;
}

typedef struct measure_job {
  const tsl_lowered_func *lf;
  measure_args *args;
  tsl_packed_fn fn;
  const char *so_path, *symbol;
  int have_ref;
  const tsl_run_opts *opts;
  measure_device *dev; /* opened in the worker */
  /* weights packed ahead of the calls (NULL: none): the prepack function,
   * or its symbol in so_path */
  const measure_pack *pack;
  tsl_packed_fn prepack;
  const char *prepack_symbol;
  double slow_s; /* > 0: skip the timing when the checked call took longer */
  double screen_s; /* > 0: screen a candidate whose checked call took longer */
  int check_only;  /* the checked call alone (tsl_measure_session_set_check_only) */
} measure_job;

/* The symbol of a library loaded now; *handle (when asked) for dlclose. */
static tsl_packed_fn open_library(const char *path, const char *symbol, void **handle,
                                  char *err, size_t cap) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle)
    *handle = h;
  if (!h) {
    const char *e = dlerror();
    snprintf(err, cap, "cannot load %s: %s", path, e ? e : "unknown reason");
    return NULL;
  }
  dlerror();
  void *sym = dlsym(h, symbol);
  if (!sym) {
    snprintf(err, cap, "%s has no symbol '%s'", path, symbol);
    return NULL;
  }
  tsl_packed_fn fn;
  memcpy(&fn, &sym, sizeof fn);
  return fn;
}

/* Another symbol of a library open_library loaded. */
static tsl_packed_fn library_symbol(void *h, const char *path, const char *symbol, char *err,
                                    size_t cap) {
  dlerror();
  void *sym = h ? dlsym(h, symbol) : NULL;
  if (!sym) {
    snprintf(err, cap, "%.240s has no symbol '%.200s'", path, symbol);
    return NULL;
  }
  tsl_packed_fn fn;
  memcpy(&fn, &sym, sizeof fn);
  return fn;
}

double measure_trusted_call_s(const tsl_run_opts *o) { return o->min_repeat_ms * 1e-4; }

/* The checked call's time as the result (`skipped`: timing_skipped 1, its
 * time is final; 3, checked only). */
static void checked_call_result(tsl_run_result *r, int32_t skipped) {
  r->timing_skipped = skipped;
  r->median_s = r->times_s[0] = r->check_s;
  r->n_times = r->number = 1;
  r->status = r->check == TSL_CHECK_MISMATCH ? TSL_RUN_MISMATCH : TSL_RUN_OK;
}

/* The checked call and the timed ones of `fn` on `slots` (the device's
 * arguments, packed weights in place), the inputs on the device. */
static void measure_calls(measure_job *j, tsl_packed_fn fn, void *const *slots,
                          tsl_run_result *r) {
  measure_device *dev = j->dev;
  if (j->slow_s > 0) /* a persistent worker's parent stops the call past slow_s */
    measure_pworker_mark(MEASURE_MARK_START);
  double t0 = measure_now();
  int32_t rc = fn(slots);
  int synced = !rc && !measure_device_sync(dev, r->error, sizeof r->error);
  r->check_s = measure_now() - t0;
  if (j->slow_s > 0)
    measure_pworker_mark(MEASURE_MARK_END);
  if (rc) {
    r->status = TSL_RUN_ERROR;
    snprintf(r->error, sizeof r->error, "the function returned %d", (int)rc);
    return;
  }
  if (!synced) {
    r->status = TSL_RUN_ERROR;
    return;
  }
  if (measure_device_download(dev, j->args, r->error, sizeof r->error)) {
    r->status = TSL_RUN_SETUP_ERROR;
    return;
  }
  if (j->have_ref)
    measure_compare(j->args, j->lf->source, r);
  else
    r->check = TSL_CHECK_SKIPPED;
  int past_slow = j->slow_s > 0 && r->check_s > j->slow_s;
  if (past_slow && r->check_s >= measure_trusted_call_s(j->opts)) {
    checked_call_result(r, 1); /* hopeless: its one call is its time */
    return;
  }
  if (j->check_only) {
    checked_call_result(r, 3); /* timed later, in a run of its own */
    return;
  }
  /* Fresh inputs for the timing, in case the function writes in place. */
  if (measure_device_upload(dev, j->args, r->error, sizeof r->error)) {
    r->status = TSL_RUN_SETUP_ERROR;
    return;
  }
  measure_flush fl = {NULL, 0}, *flp = NULL;
  if (j->opts->flush_cache) {
    fl.size = measure_flush_size();
    fl.buf = calloc(fl.size, 1);
    flp = fl.buf ? &fl : NULL;
  }
  double screen_s = j->screen_s > 0 ? j->screen_s : past_slow ? j->slow_s : 0;
  if (screen_s > 0 && r->check_s > screen_s) {
    /* one short repeat (a tenth of min_repeat_ms, at least one call) says
     * whether the full timing is worth its time */
    tsl_run_opts screen = *j->opts;
    screen.warmup = 0;
    screen.number = 1;
    screen.repeat = 1;
    screen.min_repeat_ms = j->opts->min_repeat_ms / 10;
    rc = measure_time_calls(fn, slots, &screen, flp, dev, r);
    if (!rc && r->median_s > screen_s)
      r->timing_skipped = 2;
  }
  if (!rc && r->timing_skipped != 2)
    rc = measure_time_calls(fn, slots, j->opts, flp, dev, r);
  free(fl.buf);
  if (rc == INT32_MIN) { /* the device failed; r->error says how */
    r->status = TSL_RUN_ERROR;
    return;
  }
  if (rc) {
    r->status = TSL_RUN_ERROR;
    snprintf(r->error, sizeof r->error, "the function returned %d in a timed call", (int)rc);
    return;
  }
  r->status = r->check == TSL_CHECK_MISMATCH ? TSL_RUN_MISMATCH : TSL_RUN_OK;
}

static void measure_body(void *user_data, void *out) {
  measure_job *j = user_data;
  tsl_run_result *r = out;
  tsl_packed_fn fn = j->fn, prepack = j->prepack;
  int packs = j->pack && j->pack->n;
  if (!fn) {
    void *h = NULL;
    fn = open_library(j->so_path, j->symbol, &h, r->error, sizeof r->error);
    if (fn && packs && !prepack)
      prepack = library_symbol(h, j->so_path, j->prepack_symbol, r->error, sizeof r->error);
    if (!fn || (packs && !prepack)) {
      r->status = TSL_RUN_BUILD_ERROR;
      return;
    }
  }
  /* The device's buffers (the target's hooks, or `work` on the host) get
   * the pristine inputs; the checked call runs on them, its outputs come
   * back into `work` to be compared. */
  measure_device *dev = j->dev;
  if (measure_device_open(dev, j->args, r->error, sizeof r->error) ||
      measure_device_upload(dev, j->args, r->error, sizeof r->error)) {
    r->status = TSL_RUN_SETUP_ERROR;
    return;
  }
  if (!packs) {
    measure_calls(j, fn, dev->slots, r);
    return;
  }
  /* the weights packed once, from the same inputs; the calls take the
   * packed buffers */
  void *bufs[MEASURE_MAX_PACKED];
  void **slots = calloc(j->args->n_params + j->args->n_size_vars + 1, sizeof *slots);
  if (!slots) {
    r->status = TSL_RUN_SETUP_ERROR;
    snprintf(r->error, sizeof r->error, "out of memory for the argument list");
    return;
  }
  if (measure_pack_run(j->pack, prepack, dev, j->args, bufs, slots, r->error, sizeof r->error))
    r->status = TSL_RUN_ERROR;
  else
    measure_calls(j, fn, slots, r);
  measure_pack_release(j->pack, dev, bufs);
  free(slots);
}

typedef struct ref_job {
  tsl_packed_fn fn;
  measure_args *args;
  const measure_device *dev; /* the target's device; without hooks: host memory */
} ref_job;

typedef struct ref_out {
  int32_t rc;
  char error[sizeof(((tsl_diag *)0)->text)]; /* a device hook's failure */
} ref_out;

/* The compiled reference on the pristine inputs, its outputs in `ref`: on a
 * device (a GPU), in buffers of its own there, the outputs copied back. */
static void ref_body(void *user_data, void *out) {
  ref_job *j = user_data;
  ref_out *o = out;
  measure_args *a = j->args;
  if (!j->dev || !j->dev->hooks) {
    o->rc = j->fn(a->ref_slots);
    return;
  }
  measure_device d;
  measure_device_init(&d, j->dev->vt, j->dev->t);
  if (measure_device_open(&d, a, o->error, sizeof o->error) ||
      measure_device_upload(&d, a, o->error, sizeof o->error))
    return;
  if ((o->rc = j->fn(d.slots)) || measure_device_sync(&d, o->error, sizeof o->error))
    return;
  measure_device_download_into(&d, a, a->ref, o->error, sizeof o->error);
}

/* dst = a + b, truncated to cap (no format: the parts may be long). */
static void join_text(char *dst, size_t cap, const char *a, const char *b) {
  size_t n = 0;
  for (const char *s = a; *s && n + 1 < cap; s++)
    dst[n++] = *s;
  for (const char *s = b; *s && n + 1 < cap; s++)
    dst[n++] = *s;
  dst[n] = '\0';
}

static int setup_fail(tsl_run_result *r, tsl_diag *diag, int status, const char *what,
                      const char *why) {
  r->status = TSL_RUN_SETUP_ERROR;
  join_text(r->error, sizeof r->error, what, why);
  return tsl_diag_set(diag, status, "%s%s", what, why);
}

/* Reference outputs into a->ref. */
static int make_reference(const tsl_lowered_func *lf, const tsl_reference *ref,
                          measure_args *a, const measure_device *dev, const tsl_run_opts *o,
                          tsl_run_result *r, tsl_diag *diag) {
  if (ref->interp_func) {
    const tsl_func *g = ref->interp_func;
    if (g->n_params != lf->source->n_params) {
      char why[160];
      snprintf(why, sizeof why, "it has %u parameters, the measured function %u",
               g->n_params, lf->source->n_params);
      return setup_fail(r, diag, TSL_EINVALID, "reference function: ", why);
    }
    tsl_arg *view = measure_args_ref_view(a);
    if (!view)
      return setup_fail(r, diag, TSL_ENOMEM, "reference: ", "out of memory");
    tsl_diag sub = {0};
    int rc = tsl_interp_run(g, view, g->n_params, &sub);
    free(view);
    if (rc)
      return setup_fail(r, diag, rc, "reference (interpreter): ", sub.text);
    measure_args_set_ref_scales(a);
    return TSL_OK;
  }
  ref_job j = {ref->compiled_fn, a, dev};
  ref_out out = {0, ""};
  measure_outcome oc;
  measure_worker_run(o->timeout_s, ref_body, &j, &out, sizeof out, &oc);
  if (oc.kind != MEASURE_WORKER_DONE)
    return setup_fail(r, diag, TSL_ERUNTIME, "reference (compiled): ", oc.message);
  if (out.error[0])
    return setup_fail(r, diag, TSL_ERUNTIME, "reference (compiled): ", out.error);
  if (out.rc) {
    char why[64];
    snprintf(why, sizeof why, "it returned %d", (int)out.rc);
    return setup_fail(r, diag, TSL_ERUNTIME, "reference (compiled): ", why);
  }
  measure_args_set_ref_scales(a);
  return TSL_OK;
}

/* A worker's outcome as the run's result: the worker's own result when it
 * finished (*done), else the status the way it ended gives. */
static int outcome_result(const measure_outcome *oc, const tsl_run_result *done, tsl_run_result *r,
                          tsl_diag *diag) {
  switch (oc->kind) {
  case MEASURE_WORKER_DONE:
    *r = *done;
    r->struct_size = sizeof *r;
    return TSL_OK;
  case MEASURE_WORKER_TIMEOUT:
    r->status = TSL_RUN_TIMEOUT;
    break;
  case MEASURE_WORKER_STOPPED: /* its time so far is a lower bound */
    r->status = TSL_RUN_STOPPED;
    r->check = TSL_CHECK_SKIPPED;
    r->median_s = r->times_s[0] = r->check_s = oc->wall_s;
    r->n_times = r->number = 1;
    r->timing_skipped = 1;
    break;
  case MEASURE_WORKER_NOFORK:
    return setup_fail(r, diag, TSL_ERUNTIME, "", oc->message);
  default:
    r->status = TSL_RUN_CRASH;
    break;
  }
  join_text(r->error, sizeof r->error, oc->message, "");
  return TSL_OK;
}

/* Run the measuring worker of `j`; every way it can end becomes r->status. */
static int measure_forked(const measure_job *j, tsl_run_result *r, tsl_diag *diag) {
  tsl_run_result out = *r;
  out.status = TSL_RUN_CRASH; /* overwritten by a worker that finishes */
  measure_outcome oc;
  measure_worker_run(j->opts->timeout_s, measure_body, (void *)j, &out, sizeof out, &oc);
  return outcome_result(&oc, &out, r, diag);
}

/* The start of every run: the result reset to a setup error, then the
 * function to call checked (a packed entry, or a readable library and its
 * symbol). */
static int begin_run(tsl_run_result *r, tsl_packed_fn fn, const char *so_path,
                     const char *symbol, tsl_diag *diag) {
  if (!r)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_run: NULL result");
  memset(r, 0, sizeof *r);
  r->struct_size = sizeof *r;
  r->status = TSL_RUN_SETUP_ERROR;
  if (!fn && (!so_path || !symbol))
    return setup_fail(r, diag, TSL_EINVALID, "tsl_run: ", "no function to run");
  if (so_path && access(so_path, R_OK) != 0) {
    char why[600];
    snprintf(why, sizeof why, "%s: %s", so_path, strerror(errno));
    return setup_fail(r, diag, TSL_EIO, "cannot read the library ", why);
  }
  return TSL_OK;
}

static int run_common(const tsl_lowered_func *lf, tsl_packed_fn fn, const char *so_path,
                      const char *symbol, const tsl_reference *ref,
                      const tsl_run_opts *opts_in, const tsl_target_vtable *vt,
                      tsl_target *target, tsl_run_result *r, tsl_diag *diag) {
  int rc0 = begin_run(r, fn, so_path, symbol, diag);
  if (rc0)
    return rc0;
  if (!lf || !lf->source)
    return setup_fail(r, diag, TSL_EINVALID, "tsl_run: ", "NULL lowered function or source");
  tsl_run_opts o;
  opts_from(opts_in, &o);
  measure_args a;
  tsl_diag sub = {0};
  int rc = measure_args_make(lf, &o, &a, &sub);
  if (rc)
    return setup_fail(r, diag, rc, "arguments: ", sub.text);
  measure_device dev;
  measure_device_init(&dev, vt, target); /* NULL: host memory */
  int have_ref = ref && (ref->interp_func || ref->compiled_fn);
  if (have_ref && (rc = make_reference(lf, ref, &a, &dev, &o, r, diag))) {
    measure_args_free(&a);
    return rc;
  }
  measure_job j = {lf, &a, fn, so_path, symbol, have_ref, &o, &dev, NULL, NULL, NULL, 0, 0, 0};
  rc = measure_forked(&j, r, diag);
  measure_args_free(&a);
  return rc;
}

/* ---- sessions: arguments and reference made once ---------------------------- */

/* One job of a session's persistent worker: a library and its symbol. */
typedef struct session_req {
  char so_path[4096];
  char symbol[512];
  char prepack_symbol[512]; /* with pack.n > 0 */
  measure_pack pack;
  double slow_s;
  double screen_s;
  int check_only;
} session_req;

struct tsl_measure_session {
  const tsl_lowered_func *lf;
  tsl_run_opts opts;
  measure_args args;
  int have_ref;
  measure_device dev; /* opened by each worker, in the worker */
  measure_pworker worker;
  double slow_s; /* tsl_measure_session_set_slow_bound */
  double screen_s; /* tsl_measure_session_set_screen_bound */
  int check_only;  /* tsl_measure_session_set_check_only */
};

/* In the worker: fresh inputs, the library loaded, measured, unloaded. */
static void session_body(void *user_data, const void *req, void *out) {
  tsl_measure_session *s = user_data;
  const session_req *q = req;
  tsl_run_result *r = out;
  r->struct_size = sizeof *r;
  static int protected; /* per worker: each is a fresh fork of a parent at 0 */
  if (!protected) {
    measure_args_protect(&s->args);
    protected = 1;
  }
  void *h = NULL;
  tsl_packed_fn fn = open_library(q->so_path, q->symbol, &h, r->error, sizeof r->error);
  tsl_packed_fn prepack = NULL;
  if (fn && q->pack.n)
    prepack = library_symbol(h, q->so_path, q->prepack_symbol, r->error, sizeof r->error);
  if (!fn || (q->pack.n && !prepack)) {
    r->status = TSL_RUN_BUILD_ERROR;
  } else {
    measure_job j = {s->lf, &s->args, fn, NULL, NULL, s->have_ref, &s->opts, &s->dev,
                     &q->pack, prepack, NULL, q->slow_s, q->screen_s, q->check_only};
    measure_body(&j, r);
  }
  if (h)
    dlclose(h);
}

int tsl_measure_session_new(const tsl_lowered_func *lf, const tsl_reference *ref,
                            const tsl_run_opts *opts, tsl_measure_session **out,
                            tsl_diag *diag) {
  return tsl_measure_session_new_on(lf, ref, opts, NULL, NULL, out, diag);
}

int tsl_measure_session_new_on(const tsl_lowered_func *lf, const tsl_reference *ref,
                               const tsl_run_opts *opts, const tsl_target_vtable *vt,
                               tsl_target *target, tsl_measure_session **out,
                               tsl_diag *diag) {
  *out = NULL;
  if (!lf || !lf->source)
    return tsl_diag_set(diag, TSL_EINVALID, "measure session: NULL lowered function");
  tsl_measure_session *s = calloc(1, sizeof *s);
  if (!s)
    return tsl_diag_set(diag, TSL_ENOMEM, "measure session: out of memory");
  s->lf = lf;
  opts_from(opts, &s->opts);
  measure_device_init(&s->dev, vt, target);
  tsl_diag sub = {0};
  int rc = measure_args_make(lf, &s->opts, &s->args, &sub);
  if (rc) {
    free(s);
    return tsl_diag_set(diag, rc, "arguments: %s", sub.text);
  }
  char err[sizeof(((tsl_diag *)0)->text)];
  if (measure_device_probe(&s->dev, err, sizeof err)) {
    rc = tsl_diag_set(diag, TSL_EUNSUPPORTED, "%s", err);
    tsl_measure_session_free(s);
    return rc;
  }
  s->have_ref = ref && (ref->interp_func || ref->compiled_fn);
  tsl_run_result r;
  memset(&r, 0, sizeof r);
  if (s->have_ref && (rc = make_reference(lf, ref, &s->args, &s->dev, &s->opts, &r, diag))) {
    tsl_measure_session_free(s);
    return rc;
  }
  s->worker = (measure_pworker){session_body, s, sizeof(session_req), sizeof(tsl_run_result),
                             0, -1, -1, 0, 0};
  /* forked now, before the caller starts threads (a cost model's) whose
   * state a later fork would inherit half-way */
  measure_pworker_start(&s->worker);
  *out = s;
  return TSL_OK;
}

void tsl_measure_session_free(tsl_measure_session *s) {
  if (!s)
    return;
  measure_pworker_stop(&s->worker);
  measure_args_free(&s->args);
  free(s);
}

int64_t measure_session_forks(const tsl_measure_session *s) { return s ? s->worker.forks : 0; }

void tsl_measure_session_set_slow_bound(tsl_measure_session *s, double seconds) {
  if (s)
    s->slow_s = seconds > 0 ? seconds : 0;
}

void tsl_measure_session_set_screen_bound(tsl_measure_session *s, double seconds) {
  if (s)
    s->screen_s = seconds > 0 ? seconds : 0;
}

void tsl_measure_session_set_check_only(tsl_measure_session *s, int32_t on) {
  if (s)
    s->check_only = on != 0;
}

/* One candidate of a session, with its packed weights (pack NULL: none). */
static int session_run(tsl_measure_session *s, const tsl_lowered_func *lf, const char *so_path,
                       const char *symbol, tsl_packed_fn fn, const measure_pack *pack,
                       const char *prepack_symbol, tsl_run_result *r, tsl_diag *diag) {
  int rc = begin_run(r, fn, so_path, symbol, diag);
  if (rc)
    return rc;
  session_req q;
  if (fn || strlen(so_path) >= sizeof q.so_path || strlen(symbol) >= sizeof q.symbol ||
      (prepack_symbol && strlen(prepack_symbol) >= sizeof q.prepack_symbol)) {
    /* an in-process function (it may not exist in the worker), or names
     * too long for a job: a worker of its own, forked from here; its writes
     * to the arguments stay in it */
    measure_job j = {lf && lf->source ? lf : s->lf, &s->args, fn, so_path, symbol,
                     s->have_ref, &s->opts, &s->dev, pack, NULL, prepack_symbol, s->slow_s,
                     s->screen_s, s->check_only};
    return measure_forked(&j, r, diag);
  }
  memset(&q, 0, sizeof q);
  strcpy(q.so_path, so_path);
  strcpy(q.symbol, symbol);
  q.slow_s = s->slow_s;
  q.screen_s = s->screen_s;
  q.check_only = s->check_only;
  if (pack) {
    q.pack = *pack;
    strcpy(q.prepack_symbol, prepack_symbol);
  }
  tsl_run_result out = *r;
  measure_outcome oc;
  /* stopping costs a fresh worker (a fork and its setup): not worth it for
   * a call shorter than STOP_MIN_S, which ends and is not timed further */
  double stop_s = s->slow_s > 0 ? fmax(s->slow_s, STOP_MIN_S) : 0;
  measure_pworker_run(&s->worker, s->opts.timeout_s, stop_s, &q, &out, &oc);
  return outcome_result(&oc, &out, r, diag);
}

int tsl_measure_session_run(tsl_measure_session *s, const tsl_lowered_func *lf,
                            const char *so_path, const char *symbol,
                            tsl_packed_fn fn, tsl_run_result *r, tsl_diag *diag) {
  return session_run(s, lf, so_path, symbol, fn, NULL, NULL, r, diag);
}

int tsl_measure_session_run_prepacked(tsl_measure_session *s, const tsl_prepack_split *split,
                                      const char *so_path, const char *symbol,
                                      const char *prepack_symbol, tsl_run_result *r,
                                      tsl_diag *diag) {
  if (!split || !split->n_packed || !prepack_symbol)
    return session_run(s, NULL, so_path, symbol, NULL, NULL, NULL, r, diag);
  measure_pack pack = {.n = split->n_packed};
  const char *why = split->n_packed > MEASURE_MAX_PACKED ||
                            split->main->n_params != s->args.n_params
                        ? "more than 16, or not the session's parameters"
                        : NULL;
  for (uint32_t k = 0; !why && k < pack.n; k++) {
    const tsl_buffer *b = split->main->params[split->positions[k]].buffer;
    int64_t n = b ? tsl_buffer_const_size(b) : -1;
    if (n < 0)
      why = "a packed buffer without a constant shape";
    else
      pack.bytes[k] = (uint64_t)n * measure_elem_bytes(b->dtype);
    pack.pos[k] = split->positions[k];
  }
  if (why) {
    int rc = begin_run(r, NULL, so_path, symbol, diag);
    return rc ? rc : setup_fail(r, diag, TSL_EINVALID, "packed weights: ", why);
  }
  return session_run(s, NULL, so_path, symbol, NULL, &pack, prepack_symbol, r, diag);
}

/* run_common refuses a missing function, library or symbol as a setup
 * error. */
int tsl_run_packed(const tsl_lowered_func *lf, tsl_packed_fn fn, const tsl_reference *ref,
                   const tsl_run_opts *opts, tsl_run_result *result, tsl_diag *diag) {
  return run_common(lf, fn, NULL, NULL, ref, opts, NULL, NULL, result, diag);
}

int tsl_run_packed_on(const tsl_lowered_func *lf, tsl_packed_fn fn, const tsl_reference *ref,
                      const tsl_run_opts *opts, const tsl_target_vtable *vt,
                      tsl_target *target, tsl_run_result *result, tsl_diag *diag) {
  return run_common(lf, fn, NULL, NULL, ref, opts, vt, target, result, diag);
}

int tsl_run_library(const tsl_lowered_func *lf, const char *so_path, const char *symbol,
                    const tsl_reference *ref, const tsl_run_opts *opts,
                    tsl_run_result *result, tsl_diag *diag) {
  return run_common(lf, NULL, so_path, symbol, ref, opts, NULL, NULL, result, diag);
}
