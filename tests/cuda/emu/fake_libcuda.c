/*
 * tests/cuda/emu/fake_libcuda.c — a CUDA driver for machines without a GPU,
 * built as libcuda.so.1 for tests: the functions targets/cuda and the host
 * libraries it writes call, with device memory in host memory and kernels
 * run on host threads.
 *
 * A module is a host library the target compiled from its CUDA C under
 * TESSEL_CUDA_EMULATE (its image is "tessel-emu:<path>"); a kernel NAME is
 * its function NAME_emu(void **args). A launch runs the blocks one after
 * another; the threads of a block run one at a time, in a fixed order, each
 * until its next barrier or its end: the last thread of the block first
 * (TESSEL_CUDA_EMU_ORDER=forward: the first). Each emulated thread is a
 * context of its own (ucontext, with its own stack) on the host thread
 * that launched: a barrier switches to the next context with swapcontext
 * (one rt_sigprocmask call, no futex wait or scheduler switch). A launch makes its contexts once and they run every block in
 * turn (the thread that ends a block last starts the next one).
 * So a barrier is a real barrier and a missing one shows on every run: a
 * thread that reads what another thread writes before the next barrier
 * runs first and reads stale data.
 *
 * Events hold the host clock; TESSEL_CUDA_EMU_EVENT_MS=X makes every
 * interval between two events X ms, so a test sees which clock timed it.
 *
 * TESSEL_CUDA_EMU_POISON=N: the Nth launch of a process poisons the
 * context, as an illegal address does: that launch and every call after it
 * fail with CUDA_ERROR_ILLEGAL_ADDRESS until cuDevicePrimaryCtxReset.
 * N:FILE poisons only while FILE does not exist, and creates it: once per
 * run, whatever workers the run forks.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__) /* the sanitizer build: ASan told of each stack switch */
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define ASAN_FIBERS 1
#endif

typedef int CUresult;
#define API __attribute__((visibility("default"))) /* the project builds hidden */
enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, INVALID_IMAGE = 200,
       NOT_FOUND = 500, ILLEGAL_ADDRESS = 700 };

typedef struct kernel {
  void (*call)(void **args);
  void (*set_indices)(const unsigned *thread, const unsigned *block, const unsigned *dim);
  void (*set_barrier)(void (*barrier)(void), void (*warp_barrier)(void));
  int max_dyn_smem; /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: 48 KiB unless raised */
} kernel;

/* An emulated thread's stack: 64 KiB, not more, as under ASan each switch
 * clears the shadow of the stack it enters (tests/README.md). */
enum { STACK_SIZE = 1 << 16, GUARD_SIZE = 1 << 12 };

typedef struct emu_thread emu_thread;

typedef struct block_run {
  int n;
  emu_thread *threads; /* in turn order */
  int *done;
  const kernel *k;
  void **args;
  unsigned block[3], dim[3], grid[3];
  int forward;
  long long blocks_left; /* after the block that runs */
  ucontext_t launch;     /* the launching thread's own context */
  const void *launch_stack; /* its stack, for ASan */
  size_t launch_stack_size;
} block_run;

struct emu_thread {
  block_run *run;
  int pos;
  unsigned tid[3];
  ucontext_t ctx;
  char *map; /* GUARD_SIZE inaccessible bytes, then the stack */
};

static __thread emu_thread *self;
static __thread void *current_ctx;

/* As the real driver: a process that initialised CUDA cannot hand it to
 * the children it forks; their calls fail. */
static pid_t init_pid;
#define FORKED() (init_pid && init_pid != getpid())

static int poisoned; /* TESSEL_CUDA_EMU_POISON */
static long launches;

static CUresult ok(void) {
  return FORKED() ? NOT_INITIALIZED : poisoned ? ILLEGAL_ADDRESS : OK;
}

API CUresult cuInit(unsigned flags) {
  if (FORKED())
    return NOT_INITIALIZED;
  init_pid = getpid();
  return flags ? INVALID_VALUE : OK;
}
/* NVRTC asks the driver for its private tables when one is loaded: none. */
API CUresult cuGetExportTable(const void **table, const void *id) {
  (void)id;
  *table = NULL;
  return 801; /* CUDA_ERROR_NOT_SUPPORTED */
}
API CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
API CUresult cuDeviceGetCount(int *n) { *n = 1; return ok(); }
API CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return ordinal ? INVALID_VALUE : OK; }
API CUresult cuDeviceGetName(char *name, int len, int dev) {
  (void)dev;
  snprintf(name, (size_t)len, "tessel CUDA emulator");
  return OK;
}

/* The attributes targets/cuda asks, with an H200's values. */
API CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
  (void)dev;
  switch (attr) {
  case 1: *v = 1024; return OK;                   /* threads per block */
  case 2: case 3: *v = 1024; return OK;           /* block x, y */
  case 4: *v = 64; return OK;                     /* block z */
  case 5: *v = 2147483647; return OK;             /* grid x */
  case 6: case 7: *v = 65535; return OK;          /* grid y, z */
  case 8: *v = 49152; return OK;                  /* shared memory per block */
  case 10: *v = 32; return OK;                    /* warp */
  case 12: *v = 65536; return OK;                 /* registers per block */
  case 75: *v = 9; return OK;                     /* compute capability */
  case 76: *v = 0; return OK;
  case 97: *v = 232448; return OK;                /* opt-in shared memory */
  default: *v = 0; return OK;
  }
}

API CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  if (FORKED())
    return NOT_INITIALIZED;
  static int primary;
  (void)dev;
  *ctx = &primary;
  return OK;
}
API CUresult cuCtxSetCurrent(void *ctx) { current_ctx = ctx; return OK; }
API CUresult cuCtxGetCurrent(void **ctx) { *ctx = current_ctx; return OK; }
API CUresult cuCtxSynchronize(void) { return ok(); } /* launches return when done */
API CUresult cuDevicePrimaryCtxReset_v2(int dev) {
  (void)dev;
  poisoned = 0;
  return FORKED() ? NOT_INITIALIZED : OK;
}

API CUresult cuMemAlloc_v2(unsigned long long *p, size_t bytes) {
  if (ok())
    return ok();
  void *m = calloc(1, bytes ? bytes : 1);
  *p = (unsigned long long)(uintptr_t)m;
  return m ? OK : OUT_OF_MEMORY;
}
API CUresult cuMemFree_v2(unsigned long long p) { free((void *)(uintptr_t)p); return OK; }
API CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  if (ok())
    return ok();
  memcpy((void *)(uintptr_t)dst, src, n);
  return OK;
}
API CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
  if (ok())
    return ok();
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return OK;
}
API CUresult cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, size_t n) {
  if (ok())
    return ok();
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return OK;
}

API CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = r == OK ? "CUDA_SUCCESS" : r == INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
       : r == OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : r == NOT_INITIALIZED
       ? "CUDA_ERROR_NOT_INITIALIZED" : r == INVALID_IMAGE
       ? "CUDA_ERROR_INVALID_IMAGE" : r == NOT_FOUND ? "CUDA_ERROR_NOT_FOUND"
       : r == ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_UNKNOWN";
  return OK;
}
API CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == OK ? "no error" : r == INVALID_VALUE ? "invalid argument"
       : r == OUT_OF_MEMORY ? "out of memory" : r == NOT_INITIALIZED
       ? "initialization error (CUDA was initialised in a parent process before it forked)"
       : r == INVALID_IMAGE
       ? "device kernel image is invalid (the emulator loads only TESSEL_CUDA_EMULATE builds)"
       : r == NOT_FOUND ? "named symbol not found" : r == ILLEGAL_ADDRESS
       ? "an illegal memory access was encountered" : "unknown error";
  return OK;
}

API CUresult cuModuleLoadData(void **module, const void *image) {
  if (ok())
    return ok();
  const char *tag = "tessel-emu:";
  if (!image || strncmp(image, tag, strlen(tag)))
    return INVALID_IMAGE;
  *module = dlopen((const char *)image + strlen(tag), RTLD_NOW | RTLD_LOCAL);
  return *module ? OK : INVALID_IMAGE;
}

/* Only the opt-in to more dynamic shared memory (attribute 8), up to
 * sm_90's 227 KiB. */
API CUresult cuFuncSetAttribute(void *fn, int attr, int value) {
  kernel *k = fn;
  if (ok())
    return ok();
  if (!k || attr != 8 || value < 0 || value > 232448)
    return INVALID_VALUE;
  k->max_dyn_smem = value;
  return OK;
}

API CUresult cuModuleGetFunction(void **fn, void *module, const char *name) {
  char sym[600];
  snprintf(sym, sizeof sym, "%s_emu", name);
  kernel *k = calloc(1, sizeof *k);
  if (!k)
    return OUT_OF_MEMORY;
  *(void **)&k->call = dlsym(module, sym);
  *(void **)&k->set_indices = dlsym(module, "tsl_emu_set_indices");
  *(void **)&k->set_barrier = dlsym(module, "tsl_emu_set_barrier");
  if (!k->call || !k->set_indices || !k->set_barrier) {
    free(k);
    return NOT_FOUND;
  }
  *fn = k;
  return OK;
}

/* Gives the host thread to emulated thread `to` (NULL: back to the
 * launch). Returns when the caller's turn comes again, its indices set
 * again (the kernel's are thread-local to the host thread); `final`: it
 * never comes, the caller has ended its last block. */
static void switch_to(emu_thread *to, int final) {
  emu_thread *me = self;
  block_run *r = me->run;
#ifdef ASAN_FIBERS
  void *fake_stack = NULL;
  __sanitizer_start_switch_fiber(final ? NULL : &fake_stack,
                                 to ? to->map + GUARD_SIZE : r->launch_stack,
                                 to ? STACK_SIZE : r->launch_stack_size);
#else
  (void)final;
#endif
  self = to;
  swapcontext(&me->ctx, to ? &to->ctx : &r->launch);
#ifdef ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#endif
  self = me;
  r->k->set_indices(me->tid, r->block, r->dim);
}

/* The next thread in the order after pos that has not ended (pos itself
 * when it alone has not); NULL when every thread has ended the block. */
static emu_thread *next_turn(block_run *r, int pos) {
  for (int i = 1; i <= r->n; i++) {
    int next = (pos + i) % r->n;
    if (!r->done[next])
      return &r->threads[next];
  }
  return NULL;
}

static void barrier(void) {
  emu_thread *t = self, *next = next_turn(t->run, t->pos);
  if (next != t)
    switch_to(next, 0);
}

/* A warp's barrier (the warp-wide operations: shuffles, ldmatrix,
 * mma.sync): the turn passes to the next lane of the warp (linear thread
 * index / 32) that has not ended, round the warp; the other warps wait
 * where they are, so only a block barrier orders them. The warp's lanes
 * are consecutive in the order, so a lane that reaches a block barrier
 * hands the turn on to its warp's next lane first. */
static void warp_barrier(void) {
  emu_thread *t = self;
  block_run *r = t->run;
  const int warp = (r->forward ? t->pos : r->n - 1 - t->pos) / 32;
  for (int i = 1; i <= r->n; i++) {
    int next = (t->pos + i) % r->n;
    if ((r->forward ? next : r->n - 1 - next) / 32 == warp && !r->done[next]) {
      if (next != t->pos)
        switch_to(&r->threads[next], 0);
      return;
    }
  }
}

/* The next block in x, y, z order, started by the thread that ended the
 * last one. */
static void next_block(block_run *r) {
  if (++r->block[0] == r->grid[0]) {
    r->block[0] = 0;
    if (++r->block[1] == r->grid[1]) {
      r->block[1] = 0;
      r->block[2]++;
    }
  }
  r->blocks_left--;
  memset(r->done, 0, (size_t)r->n * sizeof *r->done);
}

/* An emulated thread: its part of every block; it is switched to first
 * by the launch (thread 0) or by a barrier. */
static void thread_main(void) {
  emu_thread *t = self;
  block_run *r = t->run;
#ifdef ASAN_FIBERS /* the first thread entered comes from the launch: its stack */
  if (!r->launch_stack_size)
    __sanitizer_finish_switch_fiber(NULL, &r->launch_stack, &r->launch_stack_size);
  else
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
  for (;;) {
    int last = !r->blocks_left;
    r->k->set_indices(t->tid, r->block, r->dim);
    r->k->call(r->args);
    r->done[t->pos] = 1;
    emu_thread *next = next_turn(r, t->pos);
    if (next) { /* returns at the next block's turn, never after its last */
      switch_to(next, last);
      if (last)
        abort();
      continue;
    }
    if (last) {
      switch_to(NULL, 1);
      abort(); /* the launch never switches back */
    }
    next_block(r);
    if (t->pos != 0)
      switch_to(&r->threads[0], 0);
  }
}

/* Thread t's stack and context, entering thread_main; 0 when made. */
static int make_thread(emu_thread *t) {
  t->map = mmap(NULL, GUARD_SIZE + STACK_SIZE, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (t->map == MAP_FAILED) {
    t->map = NULL;
    return -1;
  }
  if (mprotect(t->map, GUARD_SIZE, PROT_NONE) || getcontext(&t->ctx))
    return -1;
  t->ctx.uc_stack.ss_sp = t->map + GUARD_SIZE;
  t->ctx.uc_stack.ss_size = STACK_SIZE;
  t->ctx.uc_link = NULL; /* thread_main never returns */
  makecontext(&t->ctx, thread_main, 0);
  return 0;
}

/* Every block of a launch on one set of emulated threads. */
static CUresult run_blocks(block_run *r) {
  r->threads = calloc((size_t)r->n, sizeof *r->threads);
  r->done = calloc((size_t)r->n, sizeof *r->done);
  CUresult rc = r->threads && r->done ? OK : OUT_OF_MEMORY;
  for (int i = 0; !rc && i < r->n; i++) {
    emu_thread *t = &r->threads[i];
    unsigned id = (unsigned)(r->forward ? i : r->n - 1 - i);
    *t = (emu_thread){.run = r, .pos = i, .tid = {id % r->dim[0], id / r->dim[0] % r->dim[1],
                                                  id / (r->dim[0] * r->dim[1])}};
    if (make_thread(t))
      rc = OUT_OF_MEMORY;
  }
  if (!rc) {
    emu_thread *outer = self; /* NULL: the launch is no emulated thread */
#ifdef ASAN_FIBERS
    void *fake_stack = NULL;
    __sanitizer_start_switch_fiber(&fake_stack, r->threads[0].map + GUARD_SIZE, STACK_SIZE);
#endif
    self = &r->threads[0];
    swapcontext(&r->launch, &r->threads[0].ctx);
#ifdef ASAN_FIBERS
    __sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#endif
    self = outer;
  }
  for (int i = 0; r->threads && i < r->n; i++)
    if (r->threads[i].map) {
#ifdef ASAN_FIBERS /* a thread's last frames stay poisoned; the next map may reuse them */
      __asan_unpoison_memory_region(r->threads[i].map + GUARD_SIZE, STACK_SIZE);
#endif
      munmap(r->threads[i].map, GUARD_SIZE + STACK_SIZE);
    }
  free(r->threads);
  free(r->done);
  return rc;
}

API CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, void *stream, void **args,
                        void **extra) {
  (void)stream;
  (void)extra;
  const kernel *k = fn;
  unsigned long long threads = (unsigned long long)bx * by * bz;
  if (!k || !threads || threads > 1024 || bz > 64 || gy > 65535 || gz > 65535 ||
      !gx || !gy || !gz || (int)smem > (k->max_dyn_smem > 49152 ? k->max_dyn_smem : 49152))
    return INVALID_VALUE;
  const char *poison = getenv("TESSEL_CUDA_EMU_POISON");
  if (ok())
    return ok();
  const char *once = poison ? strchr(poison, ':') : NULL; /* "N:FILE": once per FILE */
  if (poison && ++launches == atol(poison) && (!once || access(once + 1, F_OK) != 0)) {
    if (once) {
      FILE *f = fopen(once + 1, "w");
      if (f)
        fclose(f);
    }
    poisoned = 1; /* as a kernel's illegal address: this launch fails late */
    return OK;
  }
  const char *order = getenv("TESSEL_CUDA_EMU_ORDER");
  k->set_barrier(barrier, warp_barrier);
  block_run r = {.n = (int)threads, .k = k, .args = args, .dim = {bx, by, bz},
                 .grid = {gx, gy, gz}, .forward = order && !strcmp(order, "forward"),
                 .blocks_left = (long long)gx * gy * gz - 1};
  return run_blocks(&r);
}

API CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = calloc(1, sizeof(double));
  return *event ? ok() : OUT_OF_MEMORY;
}
API CUresult cuEventRecord(void *event, void *stream) {
  (void)stream;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  *(double *)event = ts.tv_sec + ts.tv_nsec * 1e-9;
  return ok();
}
API CUresult cuEventSynchronize(void *event) { return event ? ok() : INVALID_VALUE; }
API CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  const char *fixed = getenv("TESSEL_CUDA_EMU_EVENT_MS");
  *ms = fixed ? (float)atof(fixed) : (float)((*(double *)end - *(double *)start) * 1e3);
  return ok();
}
API CUresult cuEventDestroy_v2(void *event) {
  free(event);
  return OK;
}
