/*
 * targets/llvm/thread_pool.h — the thread pool PARALLEL loops run on.
 *
 * Generated code calls tessel_parallel_launch(task, closure, threads): the
 * task runs as task(closure, i, n) for i = 0 .. n-1 on n threads (the
 * caller is i = 0), n <= threads, and the call returns when every one has
 * returned. n is 1 (the task runs whole on the caller) when threads <= 1,
 * when another team is running (a second caller thread, or a launch from
 * inside a task), and when no thread could be started.
 *
 * The same source is compiled twice: into the plugin, which the JIT
 * resolves the symbol to (one pool for every kernel of a process), and
 * into an object that exported libraries carry (export.c, link.c), so a
 * library runs on the pool its kernels were measured on. There it is
 * hidden: each exported shared library has a pool of its own (kernels of
 * one library share it); and weak: two exported .o files linked into one
 * program use the first one's (of the same tessel version, the same code).
 *
 * Why not libgomp (which tessel used before): each parallel region costs
 * two futex system calls in libgomp even while its threads spin, 3.1 us a
 * region on a 2-core VM where this pool's fork and join take 0.45 us, a
 * sixth of a 16 us kernel (README.md, "Parallel runtime").
 *
 * Workers spin on the team's generation for TESSEL_POOL_SPIN_NS after
 * their last task and then sleep on it (futex); the caller wakes sleepers
 * only when there are some. Workers block the signals a process is sent
 * (faults still reach them). When the pool has more threads than the
 * first launching thread's CPUs, workers sleep after a few hundred
 * pauses and the caller yields while it waits: spinning would keep the
 * team's own threads off the CPUs. Every started worker checks in on
 * every team, so a pool once grown past the CPUs stays in that mode. A forked child starts with no workers. When
 * the file holding the pool is unloaded, or the process exits, the
 * workers return and are joined.
 */
#ifndef TESSEL_LLVM_THREAD_POOL_H
#define TESSEL_LLVM_THREAD_POOL_H

#include <stdint.h>

/* Spinning before sleeping: a sleeping worker took 65-220 us to wake on
 * the VMs of these sessions, so gaps of up to 2 ms between launches stay
 * cheap (libgomp spins for about 300,000 pauses). */
#define TESSEL_POOL_SPIN_NS 2000000
#define TESSEL_POOL_MAX_THREADS 1024

typedef void (*tessel_parallel_task)(void *closure, int32_t index, int32_t count);

void tessel_parallel_launch(tessel_parallel_task task, void *closure, int32_t threads);

/* Starts the workers a launch of `threads` needs and returns once they
 * run, so that a library's first call does not pay for them (a new
 * thread took 200-450 us to start on the VMs of these sessions). An
 * exported library with parallel loops calls it from a constructor, when
 * it is loaded. */
void tessel_parallel_prepare(int32_t threads);

/* Worker threads started so far in this process (tests). */
int32_t tessel_parallel_workers(void);

#endif
