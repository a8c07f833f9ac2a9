/*
 * The forked worker: run a body in a child process, get its fixed-size
 * result back through a pipe, and turn every way the child can end (result
 * sent, signal, exit without a result, timeout) into an outcome. The parent
 * polls the pipe against a deadline on CLOCK_MONOTONIC, kills the child
 * with SIGKILL when it passes, and always reaps it (no zombies). EINTR is
 * retried everywhere.
 */
#include "measure_internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

static void child_main(int fd, measure_worker_body body, void *user_data, void *out,
                       size_t out_size) {
  /* A crashing candidate must not write core files. */
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(SIGPIPE, SIG_DFL);
  body(user_data, out);
  const unsigned char *p = out;
  size_t done = 0;
  while (done < out_size) {
    ssize_t w = write(fd, p + done, out_size - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      _exit(3);
    done += (size_t)w;
  }
  close(fd);
  /* _exit: no atexit handlers or stdio flushes of the parent's state. */
  _exit(0);
}

int measure_reap(pid_t pid, int *status) {
  for (;;) {
    pid_t r = waitpid(pid, status, 0);
    if (r == pid)
      return 0;
    if (r < 0 && errno != EINTR)
      return -1;
  }
}

int measure_read_deadline(int fd, void *buf, size_t size, double deadline, int drain,
                       size_t *got) {
  unsigned char *p = buf;
  *got = 0;
  while (drain || *got < size) {
    int wait_ms = -1;
    if (deadline > 0) {
      double left = deadline - measure_now();
      if (left <= 0)
        return 1;
      wait_ms = left > 3600 ? 3600000 : (int)(left * 1e3) + 1; /* no int overflow */
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int pr = poll(&pfd, 1, wait_ms);
    if (pr < 0) {
      if (errno == EINTR)
        continue;
      return 0; /* unexpected: taken as the end */
    }
    if (pr == 0)
      continue; /* the deadline check above decides */
    unsigned char scratch[256];
    unsigned char *dst = *got < size ? p + *got : scratch;
    size_t cap = *got < size ? size - *got : sizeof scratch;
    ssize_t r = read(fd, dst, cap);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return 0;
    if (*got < size)
      *got += (size_t)r;
  }
  return 0;
}

void measure_outcome_end(measure_outcome *o, int status, int timed_out, double timeout_s,
                      int complete) {
  if (timed_out) {
    o->kind = MEASURE_WORKER_TIMEOUT;
    snprintf(o->message, sizeof o->message, "timed out after %g s", timeout_s);
  } else if (WIFSIGNALED(status)) {
    o->kind = MEASURE_WORKER_SIGNAL;
    o->sig = WTERMSIG(status);
    snprintf(o->message, sizeof o->message, "worker died: %s", strsignal(o->sig));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !complete) {
    o->kind = MEASURE_WORKER_EXIT;
    o->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    snprintf(o->message, sizeof o->message,
             "worker exited with status %d before sending its result "
             "(the code called exit, or a sanitizer stopped it)",
             o->exit_code);
  } else {
    o->kind = MEASURE_WORKER_DONE;
  }
}

pid_t measure_fork(void) {
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(126);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return pid;
}

void measure_worker_run(double timeout_s, measure_worker_body body, void *user_data,
                     void *out, size_t out_size, measure_outcome *o) {
  memset(o, 0, sizeof *o);
  int fds[2];
  if (pipe(fds) != 0) {
    o->kind = MEASURE_WORKER_NOFORK;
    snprintf(o->message, sizeof o->message, "cannot create a pipe: %s", strerror(errno));
    return;
  }
  double t0 = measure_now();
  fflush(NULL); /* nothing buffered is written twice */
  pid_t pid = measure_fork();
  if (pid < 0) {
    o->kind = MEASURE_WORKER_NOFORK;
    snprintf(o->message, sizeof o->message, "cannot fork a worker: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return;
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(fds[1], body, user_data, out, out_size);
  }
  close(fds[1]);
  size_t got = 0;
  int timed_out = measure_read_deadline(fds[0], out, out_size,
                                     timeout_s > 0 ? t0 + timeout_s : 0, 1, &got);
  close(fds[0]);
  if (timed_out)
    kill(pid, SIGKILL);
  int status = 0;
  if (measure_reap(pid, &status) != 0) {
    o->kind = MEASURE_WORKER_NOFORK;
    snprintf(o->message, sizeof o->message, "cannot wait for the worker: %s", strerror(errno));
    return;
  }
  o->wall_s = measure_now() - t0;
  measure_outcome_end(o, status, timed_out, timeout_s, got == out_size);
}

void measure_outcome_text(const measure_outcome *o, char *buf, size_t cap) {
  snprintf(buf, cap, "%s", o->message[0] ? o->message : "ok");
}
