/*
 * targets/llvm/thread_pool.c — the thread pool of thread_pool.h. Standalone
 * (libc only): it is also compiled into the object exported libraries
 * carry.
 *
 * A team is one generation: the caller writes the job, bumps `generation`
 * and runs index 0; every started worker sees the new generation, runs its
 * index when it is below the job's count, and checks in on `finished`; the
 * caller returns when all have checked in, so the job is never rewritten
 * under a worker still reading it. When the file is unloaded (dlclose of
 * an exported library or of the plugin) or the process exits, a last
 * generation tells the workers to return, and they are joined: no thread
 * is left running code that is gone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "thread_pool.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef TESSEL_POOL_EXPORTED
#define POOL_API __attribute__((weak, visibility("hidden")))
#else
#define POOL_API
#endif

static struct {
  pthread_mutex_t lock; /* held by the caller of the running team */
  _Atomic uint32_t generation;
  _Atomic int32_t sleepers;
  _Atomic int32_t finished;
  _Atomic int32_t started; /* workers that have begun to run */
  tessel_parallel_task task;
  void *closure;
  int32_t count;
  int32_t quit;
  int32_t workers;
  int32_t cpus;           /* CPUs in the first launching thread's affinity mask */
  _Atomic int64_t spin_ns; /* how long an idle worker spins */
  pthread_t threads[TESSEL_POOL_MAX_THREADS];
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* A worker's start argument packs its index and the generation it has seen. */
_Static_assert(sizeof(uintptr_t) == 8, "the pool packs two 32-bit values in a pointer");

static void pause_cpu(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The generation after `seen`: spinning, then sleeping on it. */
static uint32_t next_generation(uint32_t seen) {
  int64_t since = 0;
  for (uint32_t spins = 1;; spins++) {
    uint32_t g = atomic_load_explicit(&pool.generation, memory_order_acquire);
    if (g != seen)
      return g;
    pause_cpu();
    if (spins % 64)
      continue;
    int64_t t = now_ns();
    if (!since)
      since = t;
    else if (t - since >= atomic_load_explicit(&pool.spin_ns, memory_order_relaxed))
      break;
  }
  atomic_fetch_add(&pool.sleepers, 1);
  uint32_t g;
  while ((g = atomic_load(&pool.generation)) == seen)
    syscall(SYS_futex, &pool.generation, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
  atomic_fetch_sub(&pool.sleepers, 1);
  return g;
}

static void *worker_main(void *arg) {
  uintptr_t a = (uintptr_t)arg;
  int32_t index = (int32_t)(a >> 32);
  uint32_t seen = (uint32_t)a;
  atomic_fetch_add(&pool.started, 1);
  for (;;) {
    seen = next_generation(seen);
    if (pool.quit)
      return NULL;
    if (index < pool.count)
      pool.task(pool.closure, index, pool.count);
    atomic_fetch_add_explicit(&pool.finished, 1, memory_order_release);
  }
}

/* A forked child has the caller's thread only. */
static void child_after_fork(void) {
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  pool.lock = fresh;
  pool.workers = 0;
  atomic_store(&pool.sleepers, 0);
  atomic_store(&pool.started, 0);
}

static void init(void) {
  cpu_set_t set;
  pool.cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  pthread_atfork(NULL, NULL, child_after_fork);
}

/* A new generation: the futex's sleepers woken when there are some. */
static void publish(uint32_t g) {
  atomic_store(&pool.generation, g); /* sequentially consistent with the load below */
  if (atomic_load(&pool.sleepers) > 0)
    syscall(SYS_futex, &pool.generation, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* At unload or exit. A launch still running (exit() called from a signal
 * handler or a task) keeps its workers: they go with the process. */
__attribute__((destructor)) static void stop_workers(void) {
  if (pthread_mutex_trylock(&pool.lock))
    return;
  if (!pool.workers) {
    pthread_mutex_unlock(&pool.lock);
    return;
  }
  pool.quit = 1;
  publish(atomic_load(&pool.generation) + 1);
  for (int32_t i = 0; i < pool.workers; i++)
    pthread_join(pool.threads[i], NULL);
  pool.workers = 0;
  pool.quit = 0;
  atomic_store(&pool.started, 0);
  pthread_mutex_unlock(&pool.lock);
}

/* How long idle workers spin for a pool of `workers` (the lock held):
 * with more threads than CPUs, spinning would keep the team's own threads
 * off the CPUs, so they sleep at once and the caller yields. Whether it
 * is crowded so. */
static int set_spin(int32_t workers) {
  int crowded = workers + 1 > pool.cpus;
  atomic_store_explicit(&pool.spin_ns, crowded ? 0 : TESSEL_POOL_SPIN_NS, memory_order_relaxed);
  return crowded;
}

/* Workers up to `want` (the lock held); how many there are. They block
 * the signals a process is sent (SIGINT, SIGALRM, ...), which go to the
 * program's own threads; faults still reach them. */
static int32_t start_workers(int32_t want, uint32_t seen) {
  if (pool.workers >= want)
    return pool.workers;
  static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS};
  sigset_t blocked, old;
  sigfillset(&blocked);
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
    sigdelset(&blocked, faults[i]);
  pthread_sigmask(SIG_BLOCK, &blocked, &old);
  while (pool.workers < want) {
    uintptr_t arg = ((uintptr_t)(uint32_t)(pool.workers + 1) << 32) | seen;
    if (pthread_create(&pool.threads[pool.workers], NULL, worker_main, (void *)arg))
      break;
    pool.workers++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return pool.workers;
}

POOL_API void tessel_parallel_launch(tessel_parallel_task task, void *closure,
                                     int32_t threads) {
  if (threads > TESSEL_POOL_MAX_THREADS)
    threads = TESSEL_POOL_MAX_THREADS;
  if (threads > 1)
    pthread_once(&init_once, init); /* the fork handler before the lock is ever held */
  if (threads <= 1 || pthread_mutex_trylock(&pool.lock) != 0) {
    task(closure, 0, 1);
    return;
  }
  uint32_t g = atomic_load_explicit(&pool.generation, memory_order_relaxed);
  int32_t workers = start_workers(threads - 1, g);
  int32_t count = workers + 1 < threads ? workers + 1 : threads;
  if (count == 1) {
    pthread_mutex_unlock(&pool.lock);
    task(closure, 0, 1);
    return;
  }
  pool.task = task;
  pool.closure = closure;
  pool.count = count;
  int crowded = set_spin(workers);
  atomic_store_explicit(&pool.finished, 0, memory_order_relaxed);
  publish(g + 1);
  task(closure, 0, count);
  for (uint32_t spins = 1;
       atomic_load_explicit(&pool.finished, memory_order_acquire) != workers; spins++) {
    pause_cpu();
    if (crowded || spins % 1024 == 0)
      sched_yield();
  }
  pthread_mutex_unlock(&pool.lock);
}

POOL_API void tessel_parallel_prepare(int32_t threads) {
  if (threads > TESSEL_POOL_MAX_THREADS)
    threads = TESSEL_POOL_MAX_THREADS;
  if (threads <= 1)
    return;
  pthread_once(&init_once, init);
  if (pthread_mutex_trylock(&pool.lock) != 0)
    return;
  set_spin(pool.workers > threads - 1 ? pool.workers : threads - 1); /* before they start */
  int32_t workers = start_workers(threads - 1, atomic_load(&pool.generation));
  while (atomic_load(&pool.started) < workers)
    sched_yield();
  pthread_mutex_unlock(&pool.lock);
}

POOL_API int32_t tessel_parallel_workers(void) {
  pthread_mutex_lock(&pool.lock);
  int32_t n = pool.workers;
  pthread_mutex_unlock(&pool.lock);
  return n;
}
