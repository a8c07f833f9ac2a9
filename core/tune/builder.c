/*
 * Parallel builds for the tuner: forked worker processes, one per core by
 * default, each exporting its share of a batch as shared libraries. A
 * worker sends one fixed-size message per job through its pipe; a worker
 * that crashes or outlives the deadline is killed, and its jobs without a
 * message become build errors naming why.
 */
#include "tuner_internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct build_msg {
  uint32_t job;
  int32_t ok;
  double build_s;
  char error[512];
} build_msg;

static void worker_main(const tsl_target_vtable *vt, tsl_target *t,
                        tune_build_job *jobs, uint32_t n, uint32_t first,
                        uint32_t step, int fd) {
  for (uint32_t i = first; i < n; i += step) {
    build_msg m;
    memset(&m, 0, sizeof m);
    m.job = i;
    tsl_diag d = {0};
    double t0 = tune_now();
    int rc = vt->export_library(t, jobs[i].lm, TUNE_PREFIX, jobs[i].so_path,
                                NULL, &d);
    m.build_s = tune_now() - t0;
    m.ok = rc == TSL_OK;
    if (!m.ok)
      snprintf(m.error, sizeof m.error, "build: %.500s", d.text);
    const char *p = (const char *)&m;
    size_t left = sizeof m;
    while (left > 0) {
      ssize_t w = write(fd, p, left);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        _exit(3);
      p += w;
      left -= (size_t)w;
    }
  }
  _exit(0);
}

void tune_build_batch(const tsl_target_vtable *vt, tsl_target *t,
                      tune_build_job *jobs, uint32_t n, int32_t workers,
                      double deadline_s) {
  for (uint32_t i = 0; i < n; i++) {
    jobs[i].done = 0;
    jobs[i].ok = 0;
    jobs[i].build_s = -1;
    snprintf(jobs[i].error, sizeof jobs[i].error,
             "build: the build worker ended without a result");
  }
  uint32_t w = workers < 1 ? 1 : (uint32_t)workers;
  if (w > n)
    w = n;
  pid_t pids[TUNE_MAX_WORKERS];
  int fds[TUNE_MAX_WORKERS];
  size_t got[TUNE_MAX_WORKERS];
  build_msg partial[TUNE_MAX_WORKERS];
  if (w > TUNE_MAX_WORKERS)
    w = TUNE_MAX_WORKERS;
  fflush(NULL);
  uint32_t started = 0;
  for (uint32_t k = 0; k < w; k++) {
    int p[2];
    if (pipe(p) != 0)
      break;
    pid_t pid = fork();
    if (pid < 0) {
      close(p[0]);
      close(p[1]);
      break;
    }
    if (pid == 0) {
      close(p[0]);
      worker_main(vt, t, jobs, n, k, w, p[1]);
    }
    close(p[1]);
    pids[started] = pid;
    fds[started] = p[0];
    got[started] = 0;
    started++;
  }
  if (started == 0) {
    for (uint32_t i = 0; i < n; i++)
      snprintf(jobs[i].error, sizeof jobs[i].error,
               "build: cannot start a build worker: %s", strerror(errno));
    return;
  }
  double end = tune_now() + deadline_s;
  uint32_t open_fds = started;
  while (open_fds > 0) {
    struct pollfd pf[TUNE_MAX_WORKERS];
    for (uint32_t k = 0; k < started; k++) {
      pf[k].fd = fds[k];
      pf[k].events = POLLIN;
      pf[k].revents = 0;
    }
    double left = end - tune_now();
    if (left <= 0)
      break;
    int r = poll(pf, started, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    for (uint32_t k = 0; k < started; k++) {
      if (fds[k] < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t rd = read(fds[k], (char *)&partial[k] + got[k],
                        sizeof(build_msg) - got[k]);
      if (rd < 0 && errno == EINTR)
        continue;
      if (rd <= 0) {
        close(fds[k]);
        fds[k] = -1;
        open_fds--;
        continue;
      }
      got[k] += (size_t)rd;
      if (got[k] == sizeof(build_msg)) {
        build_msg *m = &partial[k];
        if (m->job < n) {
          tune_build_job *j = &jobs[m->job];
          j->done = 1;
          j->ok = m->ok;
          j->build_s = m->build_s;
          memcpy(j->error, m->error, sizeof j->error);
          j->error[sizeof j->error - 1] = '\0';
        }
        got[k] = 0;
      }
    }
  }
  for (uint32_t k = 0; k < started; k++) {
    if (fds[k] >= 0) {
      kill(pids[k], SIGKILL);
      close(fds[k]);
    }
    int st = 0;
    while (waitpid(pids[k], &st, 0) < 0 && errno == EINTR)
      ;
    char why[128] = "";
    if (WIFSIGNALED(st))
      snprintf(why, sizeof why, "build: the build worker died: %s",
               strsignal(WTERMSIG(st)));
    if (why[0])
      for (uint32_t i = k; i < n; i += w)
        if (!jobs[i].done)
          snprintf(jobs[i].error, sizeof jobs[i].error, "%s%s", why,
                   tune_now() >= end ? " (build deadline passed)" : "");
  }
  /* Workers that never started: their jobs are built by nobody. */
  for (uint32_t k = started; k < w; k++)
    for (uint32_t i = k; i < n; i += w)
      snprintf(jobs[i].error, sizeof jobs[i].error,
               "build: could not start a build worker");
}
