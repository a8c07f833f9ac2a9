/*
 * tests/llvm/test_thread_pool.c — the thread pool PARALLEL loops run on
 * (targets/llvm/thread_pool.h): every index of a team runs once, on
 * distinct threads, the caller as index 0; launches that cannot get a team
 * (threads = 1, a launch from inside a task, a second caller) run whole on
 * their caller; workers block the process's signals, wake after sleeping
 * past the spin time; a forked child gets a pool of its own; a JIT-built
 * kernel's parallel loop runs on it.
 */
#include "llvm_util.h"
#include "thread_pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SEEN 64

typedef struct team {
  _Atomic int runs[MAX_SEEN]; /* how often each index ran */
  _Atomic int bad_count;      /* calls whose count differed from the first */
  _Atomic int count;          /* the count the first call saw */
  pthread_t who[MAX_SEEN];    /* the thread each index ran on */
} team;

static void record(void *closure, int32_t index, int32_t count) {
  team *t = closure;
  int expected = 0;
  if (!atomic_compare_exchange_strong(&t->count, &expected, count) && expected != count)
    atomic_fetch_add(&t->bad_count, 1);
  if (index >= 0 && index < MAX_SEEN) {
    t->who[index] = pthread_self();
    atomic_fetch_add(&t->runs[index], 1);
  }
}

/* Each of indices 0 .. n-1 ran once, nothing else; all saw count n. */
static int ran_once_each(team *t, int n) {
  if (atomic_load(&t->count) != n || atomic_load(&t->bad_count))
    return 0;
  for (int i = 0; i < MAX_SEEN; i++)
    if (atomic_load(&t->runs[i]) != (i < n))
      return 0;
  return 1;
}

static int distinct_threads(team *t, int n) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (pthread_equal(t->who[i], t->who[j]))
        return 0;
  return 1;
}

static void test_teams(void) {
  team t = {0};
  tessel_parallel_launch(record, &t, 1);
  ok(ran_once_each(&t, 1) && pthread_equal(t.who[0], pthread_self()),
     "threads=1: the task runs once, whole, on the caller");

  team u = {0};
  tessel_parallel_launch(record, &u, 4);
  ok(ran_once_each(&u, 4), "threads=4: indices 0..3 each run once, count 4");
  ok(distinct_threads(&u, 4) && pthread_equal(u.who[0], pthread_self()),
     "  ... on four threads, the caller being index 0");
  ok(tessel_parallel_workers() >= 3, "  ... three workers started (%d)",
     (int)tessel_parallel_workers());

  team v = {0};
  tessel_parallel_launch(record, &v, 2);
  ok(ran_once_each(&v, 2), "threads=2 after 4: indices 0 and 1 only, count 2");

  team w = {0};
  tessel_parallel_launch(record, &w, 0);
  ok(ran_once_each(&w, 1), "threads=0 runs whole on the caller");
}

/* Many launches: a sum over each team's chunks, the chunks taken as the
 * generated code takes them. */
typedef struct sum_job {
  const int32_t *x;
  int64_t n;
  _Atomic int64_t total;
} sum_job;

static void sum_chunk(void *closure, int32_t index, int32_t count) {
  sum_job *j = closure;
  int64_t chunk = (j->n + count - 1) / count, lo = index * chunk;
  int64_t hi = lo + chunk < j->n ? lo + chunk : j->n, s = 0;
  for (int64_t i = lo; i < hi; i++)
    s += j->x[i];
  atomic_fetch_add(&j->total, s);
}

/* `launches` sums of x, each over a team of `lo` .. `hi` threads; how
 * many came out wrong; *us: microseconds a launch. */
static int sum_launches(int launches, int lo, int hi, double *us) {
  enum { N = 1000 };
  static int32_t x[N];
  int64_t want = 0;
  for (int i = 0; i < N; i++)
    want += x[i] = i % 7 - 3 + i;
  int wrong = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int l = 0; l < launches; l++) {
    sum_job j = {x, N, 0};
    tessel_parallel_launch(sum_chunk, &j, lo + l % (hi - lo + 1));
    wrong += atomic_load(&j.total) != want;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  *us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / launches / 1e3;
  return wrong;
}

/* A worker blocks the signals a process is sent, not faults. */
static _Atomic int worker_masks_ok = -1;

static void check_mask(void *closure, int32_t index, int32_t count) {
  (void)closure;
  (void)count;
  sigset_t cur;
  if (index == 1 && !pthread_sigmask(SIG_BLOCK, NULL, &cur))
    atomic_store(&worker_masks_ok, sigismember(&cur, SIGINT) && sigismember(&cur, SIGALRM) &&
                                       sigismember(&cur, SIGTERM) && !sigismember(&cur, SIGSEGV));
}

static void test_signal_mask(void) {
  tessel_parallel_launch(check_mask, NULL, 2);
  sigset_t cur;
  pthread_sigmask(SIG_BLOCK, NULL, &cur);
  ok(atomic_load(&worker_masks_ok) == 1 && !sigismember(&cur, SIGINT),
     "a worker blocks SIGINT, SIGALRM and SIGTERM but not SIGSEGV; the caller's mask is "
     "unchanged");
}

/* Two threads first: the pool is not larger than the CPUs (when there
 * are two), so its workers spin. */
static void test_two_thread_launches(void) {
  double us;
  int wrong = sum_launches(50000, 2, 2, &us);
  ok(wrong == 0, "50000 launches of 2 threads, each sums all of its range (%d wrong)", wrong);
  tap_diag("%.2f us a launch (fork, a 1000-element sum, join) on %ld CPUs", us,
           sysconf(_SC_NPROCESSORS_ONLN));
}

/* prepare: the workers run before the first launch. */
static void test_prepare(void) {
  tessel_parallel_prepare(4);
  int32_t n = tessel_parallel_workers();
  team t = {0};
  tessel_parallel_launch(record, &t, 4);
  ok(n >= 3 && tessel_parallel_workers() == n && ran_once_each(&t, 4),
     "prepare(4) starts the workers a 4-thread launch needs (%d), which it then uses", (int)n);
}

static void test_mixed_launches(void) {
  double us;
  int wrong = sum_launches(5000, 2, 4, &us);
  ok(wrong == 0, "5000 launches of 2-4 threads, each sums all of its range (%d wrong)", wrong);
  tap_diag("%.2f us a launch", us);
}

/* A launch from inside a task runs whole on that thread. */
typedef struct nest {
  team inner[4];
} nest;

static void outer_task(void *closure, int32_t index, int32_t count) {
  (void)count;
  nest *n = closure;
  if (index < 4)
    tessel_parallel_launch(record, &n->inner[index], 4);
}

static void test_nested(void) {
  nest n = {0};
  tessel_parallel_launch(outer_task, &n, 2);
  ok(ran_once_each(&n.inner[0], 1) && ran_once_each(&n.inner[1], 1) &&
         pthread_equal(n.inner[0].who[0], pthread_self()),
     "a launch inside a task runs whole, on the task's thread");
}

/* Two threads launching at once: each team is whole. */
typedef struct caller {
  int wrong;
} caller;

static void *launch_loop(void *arg) {
  caller *c = arg;
  for (int l = 0; l < 2000; l++) {
    team t = {0};
    tessel_parallel_launch(record, &t, 3);
    int n = atomic_load(&t.count);
    c->wrong += (n != 1 && n != 3) || !ran_once_each(&t, n);
  }
  return NULL;
}

static void test_two_callers(void) {
  caller a = {0}, b = {0};
  pthread_t ta, tb;
  int made = !pthread_create(&ta, NULL, launch_loop, &a) &&
             !pthread_create(&tb, NULL, launch_loop, &b);
  if (made) {
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
  }
  ok(made && a.wrong == 0 && b.wrong == 0,
     "two threads launching at once: every launch runs whole, as a team or alone "
     "(%d, %d wrong)",
     a.wrong, b.wrong);
}

/* After the spin time the workers sleep; a launch wakes them. */
static void test_sleepers(void) {
  struct timespec nap = {0, 20 * 1000 * 1000};
  int good = 1;
  for (int round = 0; round < 3; round++) {
    nanosleep(&nap, NULL);
    team t = {0};
    tessel_parallel_launch(record, &t, 4);
    good &= ran_once_each(&t, 4) && distinct_threads(&t, 4);
  }
  ok(good, "after 20 ms idle (past the %d us of spinning) a launch wakes the workers",
     TESSEL_POOL_SPIN_NS / 1000);
}

/* A child forked after launches runs teams on workers of its own. */
static void test_fork(void) {
  pid_t pid = fork();
  if (pid == 0) {
    alarm(10); /* a hang fails the test instead of stalling the suite */
    team t = {0};
    tessel_parallel_launch(record, &t, 3);
    _exit(ran_once_each(&t, 3) && distinct_threads(&t, 3) ? 0 : 1);
  }
  int st = 0;
  int waited = pid > 0 && waitpid(pid, &st, 0) == pid;
  ok(waited && WIFEXITED(st) && WEXITSTATUS(st) == 0,
     "a forked child runs a 3-thread team (status %d)", st);
}

/* A kernel built by the JIT with threads=3 launches its parallel loop on
 * this pool, and agrees with the interpreter. */
static void test_jit_kernel(tsl_ctx *ctx) {
  static const char *src =
      "@T.prim_func\n"
      "def main(A: T.Buffer((96,), \"float32\"), B: T.Buffer((96,), \"float32\")):\n"
      "    for i in T.parallel(96):\n"
      "        with T.block(\"B\"):\n"
      "            vi = T.axis.spatial(96, i)\n"
      "            B[vi] = A[vi] * T.float32(2)\n";
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=3", &d);
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  if (!t || tsl_parse(a, "pool.py", src, strlen(src), &m, &d)) {
    ok(0, "a 3-thread parallel loop parses and has a target");
    tap_diag("%s", d.text);
  } else {
    int32_t before = tessel_parallel_workers();
    lt_check(t, ctx, m->funcs[0], m->funcs[0], NULL, 0, 1, "a 3-thread parallel loop, JIT-built");
    ok(before >= 2 && tessel_parallel_workers() == before,
       "  ... ran on the workers already started (%d, then %d)", (int)before,
       (int)tessel_parallel_workers());
  }
  tsl_arena_free(a);
  tll_vtable.destroy(t);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  test_two_thread_launches();
  test_signal_mask();
  test_prepare();
  test_teams();
  test_mixed_launches();
  test_nested();
  test_two_callers();
  test_sleepers();
  test_fork();
  test_jit_kernel(ctx);
  tsl_ctx_free(ctx);
  return tap_done();
}
