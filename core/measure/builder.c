/*
 * Parallel builds for the tuner: forked worker processes, one per core by
 * default, each exporting candidates as shared libraries. The parent hands
 * out one job at a time over a socket pair and reads back one fixed-size
 * message per job, so a slow build does not hold up the others. A worker
 * that crashes, or whose build outlives the timeout, is killed: only the
 * job it was building becomes a build error naming why, and a fresh worker
 * takes over the remaining jobs.
 */
#include "measure.h"
#include "measure_internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct build_msg {
  uint32_t job;
  int32_t ok;
  double build_s;
  char error[512];
} build_msg;

typedef struct worker {
  pid_t pid;
  int fd;        /* the parent's end of the socket pair; -1 when gone */
  int64_t job;   /* the job being built, -1 when idle */
  double started;
  size_t got;
  build_msg msg;
} worker;

static int write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int read_all(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

static void worker_main(const tsl_target_vtable *vt, tsl_target *t, const char *prefix,
                        measure_build_job *jobs, uint32_t n, int fd) {
  uint32_t i;
  while (read_all(fd, &i, sizeof i) == 0 && i < n) {
    build_msg m;
    memset(&m, 0, sizeof m);
    m.job = i;
    tsl_diag d = {0};
    double t0 = measure_now();
    int rc = vt->export_library(t, jobs[i].lm, prefix, jobs[i].so_path,
                                NULL, &d);
    m.build_s = measure_now() - t0;
    m.ok = rc == TSL_OK;
    if (!m.ok)
      snprintf(m.error, sizeof m.error, "build: %.500s", d.text);
    if (write_all(fd, &m, sizeof m))
      _exit(3);
  }
  _exit(0);
}

/* Fork worker `k`; 0 on success. The child closes every other worker's
 * socket so that each one sees the end of its own. */
static int spawn(worker *ws, uint32_t n_ws, uint32_t k, const tsl_target_vtable *vt,
                 tsl_target *t, const char *prefix, measure_build_job *jobs, uint32_t n) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
    return -1;
  fflush(NULL);
  pid_t pid = measure_fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    return -1;
  }
  if (pid == 0) {
    close(sv[0]);
    for (uint32_t o = 0; o < n_ws; o++)
      if (ws[o].fd >= 0)
        close(ws[o].fd);
    worker_main(vt, t, prefix, jobs, n, sv[1]);
  }
  close(sv[1]);
  ws[k] = (worker){.pid = pid, .fd = sv[0], .job = -1};
  return 0;
}

/* Kill (when `kill_it`) and reap worker k; the job it held fails with `why`
 * followed by how the process ended. */
static void retire(worker *w, measure_build_job *jobs, int kill_it, const char *why) {
  if (kill_it)
    kill(w->pid, SIGKILL);
  close(w->fd);
  w->fd = -1;
  int st = 0;
  while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (w->job >= 0) {
    measure_build_job *j = &jobs[w->job];
    j->done = 1;
    j->ok = 0;
    j->build_s = measure_now() - w->started;
    if (why)
      snprintf(j->error, sizeof j->error, "build: %s", why);
    else if (WIFSIGNALED(st))
      snprintf(j->error, sizeof j->error, "build: the build worker died: %s",
               strsignal(WTERMSIG(st)));
    else
      snprintf(j->error, sizeof j->error,
               "build: the build worker exited with status %d without a result",
               WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  }
  w->job = -1;
}

void measure_build_batch(const tsl_target_vtable *vt, tsl_target *t, const char *prefix,
                         measure_build_job *jobs, uint32_t n, int32_t workers,
                         double timeout_s) {
  for (uint32_t i = 0; i < n; i++) {
    jobs[i].done = 0;
    jobs[i].ok = 0;
    jobs[i].build_s = -1;
    jobs[i].error[0] = '\0';
  }
  if (!(timeout_s > 0))
    timeout_s = 1e9;
  uint32_t n_ws = workers < 1 ? 1 : (uint32_t)workers;
  if (n_ws > n)
    n_ws = n;
  if (n_ws > MEASURE_MAX_BUILD_WORKERS)
    n_ws = MEASURE_MAX_BUILD_WORKERS;
  worker ws[MEASURE_MAX_BUILD_WORKERS];
  for (uint32_t k = 0; k < n_ws; k++)
    ws[k] = (worker){.pid = -1, .fd = -1, .job = -1};
  uint32_t next = 0, finished = 0;
  char why[160];
  while (finished < n) {
    /* give every idle worker a job, starting workers where needed */
    int spawn_errno = 0;
    for (uint32_t k = 0; k < n_ws && next < n; k++) {
      if (ws[k].fd >= 0 && ws[k].job >= 0)
        continue;
      if (ws[k].fd < 0 && spawn(ws, n_ws, k, vt, t, prefix, jobs, n) != 0) {
        spawn_errno = errno;
        continue;
      }
      uint32_t i = next++;
      ws[k].job = i;
      ws[k].started = measure_now();
      ws[k].got = 0;
      if (write_all(ws[k].fd, &i, sizeof i) != 0) {
        retire(&ws[k], jobs, 1, NULL);
        finished++;
      }
    }
    struct pollfd pf[MEASURE_MAX_BUILD_WORKERS];
    uint32_t map[MEASURE_MAX_BUILD_WORKERS], n_pf = 0;
    double now = measure_now(), wait_s = -1;
    for (uint32_t k = 0; k < n_ws; k++) {
      if (ws[k].fd < 0 || ws[k].job < 0)
        continue;
      double left = ws[k].started + timeout_s - now;
      if (left <= 0) {
        snprintf(why, sizeof why, "timed out after %g s (builder.timeout_s)",
                 timeout_s);
        retire(&ws[k], jobs, 1, why);
        finished++;
        continue;
      }
      if (wait_s < 0 || left < wait_s)
        wait_s = left;
      pf[n_pf] = (struct pollfd){.fd = ws[k].fd, .events = POLLIN};
      map[n_pf++] = k;
    }
    if (n_pf == 0) {
      if (spawn_errno && next < n) {
        /* no worker could be started: the rest is built by nobody */
        snprintf(why, sizeof why, "cannot start a build worker: %s",
                 strerror(spawn_errno));
        for (; next < n; next++, finished++) {
          jobs[next].done = 1;
          snprintf(jobs[next].error, sizeof jobs[next].error, "build: %s", why);
        }
      }
      continue;
    }
    int r = poll(pf, n_pf, wait_s > 3600 ? 3600000 : (int)(wait_s * 1000) + 1);
    if (r < 0 && errno != EINTR)
      break;
    for (uint32_t q = 0; r > 0 && q < n_pf; q++) {
      if (!(pf[q].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      worker *w = &ws[map[q]];
      ssize_t rd = read(w->fd, (char *)&w->msg + w->got, sizeof w->msg - w->got);
      if (rd < 0 && errno == EINTR)
        continue;
      if (rd <= 0) { /* the worker died while building */
        retire(w, jobs, 1, NULL);
        finished++;
        continue;
      }
      w->got += (size_t)rd;
      if (w->got < sizeof w->msg)
        continue;
      w->got = 0;
      if (w->msg.job != (uint32_t)w->job) { /* a confused worker */
        retire(w, jobs, 1, "the build worker answered for another job");
        finished++;
        continue;
      }
      measure_build_job *j = &jobs[w->job];
      j->done = 1;
      j->ok = w->msg.ok;
      j->build_s = w->msg.build_s;
      memcpy(j->error, w->msg.error, sizeof j->error);
      j->error[sizeof j->error - 1] = '\0';
      w->job = -1;
      finished++;
    }
  }
  /* idle workers end at the end of their socket; busy ones (a poll
   * failure) are killed and their job fails */
  for (uint32_t k = 0; k < n_ws; k++) {
    if (ws[k].fd < 0)
      continue;
    int busy = ws[k].job >= 0;
    retire(&ws[k], jobs, busy, busy ? "the build was abandoned" : NULL);
  }
  for (uint32_t i = 0; i < n; i++)
    if (!jobs[i].done)
      snprintf(jobs[i].error, sizeof jobs[i].error, "build: never started");
}
