/*
 * The persistent measurement worker (measure_internal.h): one child process
 * serving jobs over two pipes, so that a tuning run forks once rather than
 * once per candidate (and the child keeps what it set up: loaded runtime
 * libraries, the OpenMP thread pool). A job's deadline, its stop bound, a
 * crash or an exit end that child; the next job forks another. EINTR is
 * retried everywhere and every child is reaped.
 */
#include "measure_internal.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int io_all(int fd, void *p, size_t n, int writing) {
  unsigned char *b = p;
  size_t done = 0;
  while (done < n) {
    ssize_t r = writing ? write(fd, b + done, n - done) : read(fd, b + done, n - done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    done += (size_t)r;
  }
  return 0;
}

/* The child's result pipe (measure_pworker_mark); -1 outside a child. */
static int child_res_fd = -1;

void measure_pworker_mark(char tag) {
  if (child_res_fd >= 0 && io_all(child_res_fd, &tag, 1, 1))
    _exit(3);
}

static void child_loop(measure_pworker *w, int req_fd, int res_fd) {
  struct rlimit no_core = {0, 0}; /* a crashing candidate writes no core file */
  setrlimit(RLIMIT_CORE, &no_core);
  signal(SIGPIPE, SIG_DFL);
  void *req = malloc(w->req_size), *out = malloc(w->out_size);
  if (!req || !out)
    _exit(4);
  child_res_fd = res_fd;
  while (io_all(req_fd, req, w->req_size, 0) == 0) {
    memset(out, 0, w->out_size);
    w->body(w->user_data, req, out);
    char tag = MEASURE_MARK_RESULT;
    if (io_all(res_fd, &tag, 1, 1) || io_all(res_fd, out, w->out_size, 1))
      _exit(3);
  }
  _exit(0); /* the parent closed the pipe: no more jobs */
}

int measure_pworker_start(measure_pworker *w) {
  if (w->pid > 0)
    return 0;
  int rq[2], rs[2];
  if (pipe(rq))
    return -1;
  if (pipe(rs)) {
    close(rq[0]);
    close(rq[1]);
    return -1;
  }
  fflush(NULL); /* nothing buffered is written twice */
#ifdef __GLIBC__
  /* the heap's free pages returned first: fewer pages for fork to map
   * (the tuner at 1024 matmul size: 14 -> 7 ms a fork, for 1.3 ms here) */
  malloc_trim(0);
#endif
  pid_t pid = measure_fork();
  if (pid < 0) {
    close(rq[0]);
    close(rq[1]);
    close(rs[0]);
    close(rs[1]);
    return -1;
  }
  if (pid == 0) {
    close(rq[1]);
    close(rs[0]);
    child_loop(w, rq[0], rs[1]);
  }
  close(rq[0]);
  close(rs[1]);
  w->pid = pid;
  w->req_fd = rq[1];
  w->res_fd = rs[0];
  w->forks++;
  return 0;
}

/* The worker let go (killed first when asked), its pipes closed; its pid,
 * to be reaped. */
static pid_t drop_worker(measure_pworker *w, int kill_it) {
  pid_t pid = w->pid;
  if (kill_it)
    kill(pid, SIGKILL);
  close(w->req_fd);
  close(w->res_fd);
  w->pid = 0;
  return pid;
}

/* The worker ended (or is killed past its deadline): reaped, its pipes
 * closed, the way it ended in *o. */
static void end_worker(measure_pworker *w, int killed, double timeout_s, measure_outcome *o) {
  int status = 0;
  measure_reap(drop_worker(w, killed), &status);
  measure_outcome_end(o, status, killed, timeout_s, 0);
}

/* A worker killed at its stop bound is reaped later: its exit (unmapping a
 * copy of the tuner's address space, 15 ms for a 350 MB tuner) then runs
 * beside the next worker's fork and setup instead of before them.
 * `block`: wait for it (the session's end, or the next stop). */
static void reap_stopped(measure_pworker *w, int block) {
  if (w->stopped <= 0)
    return;
  int status;
  if (block)
    measure_reap(w->stopped, &status);
  else if (waitpid(w->stopped, &status, WNOHANG) != w->stopped)
    return;
  w->stopped = 0;
}

/* The tags before the result; 1 when it follows, 0 when the worker ended or
 * broke the protocol, -1 past the deadline, -2 past the stop bound
 * (*stopped_after: how long the stoppable part had run). */
static int read_marks(measure_pworker *w, double deadline, double stop_s, double *stopped_after) {
  double started = 0;
  for (;;) {
    double stop_at = started > 0 ? started + stop_s : 0;
    int by_stop = stop_at > 0 && (deadline <= 0 || stop_at < deadline);
    char tag = 0;
    size_t got = 0;
    if (measure_read_deadline(w->res_fd, &tag, 1, by_stop ? stop_at : deadline, 0, &got)) {
      *stopped_after = by_stop ? measure_now() - started : 0;
      return by_stop ? -2 : -1;
    }
    if (got < 1)
      return 0;
    if (tag == MEASURE_MARK_RESULT)
      return 1;
    if (tag == MEASURE_MARK_START)
      started = stop_s > 0 ? measure_now() : 0;
    else if (tag == MEASURE_MARK_END)
      started = 0;
    else
      return 0;
  }
}

void measure_pworker_run(measure_pworker *w, double timeout_s, double stop_s, const void *req,
                      void *out, measure_outcome *o) {
  memset(o, 0, sizeof *o);
  double t0 = measure_now();
  if (measure_pworker_start(w)) {
    o->kind = MEASURE_WORKER_NOFORK;
    snprintf(o->message, sizeof o->message, "cannot fork a worker: %s", strerror(errno));
    return;
  }
  sigset_t pipe_sig, old;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE); /* a worker that just died must not kill us */
  pthread_sigmask(SIG_BLOCK, &pipe_sig, &old);
  int sent = io_all(w->req_fd, (void *)req, w->req_size, 1) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  double deadline = timeout_s > 0 ? t0 + timeout_s : 0, stopped_after = 0;
  int marks = sent ? read_marks(w, deadline, stop_s, &stopped_after) : 0;
  size_t got = 0;
  int timed_out = marks == -1 ||
                  (marks == 1 && measure_read_deadline(w->res_fd, out, w->out_size, deadline, 0, &got));
  if (marks == -2) {
    reap_stopped(w, 1);
    w->stopped = drop_worker(w, 1);
    o->kind = MEASURE_WORKER_STOPPED;
    o->wall_s = stopped_after;
    snprintf(o->message, sizeof o->message,
             "stopped after %.3g s, past its bound of %.3g s", stopped_after, stop_s);
    return;
  }
  if (marks != 1 || timed_out || got < w->out_size) { /* the worker ended without its result */
    end_worker(w, timed_out, timeout_s, o);
    return;
  }
  o->kind = MEASURE_WORKER_DONE;
  o->wall_s = measure_now() - t0;
  reap_stopped(w, 0);
}

void measure_pworker_stop(measure_pworker *w) {
  reap_stopped(w, 1);
  if (w->pid <= 0)
    return;
  /* An idle worker waits for a request: it has nothing to finish, so it is
   * killed rather than left to read EOF, which never comes while a later
   * worker (a run of several tasks has one each) holds a copy of its pipe
   * from the fork that made it. */
  int status;
  measure_reap(drop_worker(w, 1), &status);
}
