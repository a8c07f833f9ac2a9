/*
 * The GPU against cuBLAS (issue 29's evidence), on this machine's CUDA
 * device. Each workload of bench/gpu is tuned from the bare program with
 * `tessel tune` (the cuda target's default space, evolutionary search, the
 * xgb cost model, TVM's GPU runner settings) in rounds of 32 trials, each
 * a resumed run of the same database that exports its best as a library,
 * until the workload's share of the time budget is spent; then that
 * library and the reference are timed side by side in this process:
 * CUDA events around `number` calls, rounds alternating between the two,
 * medians. The references:
 *   sgemm_1024, sgemm_4096      cublasSgemm
 *   hgemm_4096                  cublasGemmEx, float16 in, float32 out and
 *                               accumulator (tensor cores)
 *   conv2d_resnet_nhwc          cublasGemmEx of the convolution's implicit
 *                               GEMM (M = N*H*W, N = C_out, K = R*S*C_in):
 *                               cuBLAS has no convolution; the same
 *                               arithmetic without the im2col
 *   softmax_4096x1024,          the bandwidth a device-to-device copy
 *   window_sum_16m              reaches in the same run (bytes read and
 *                               written once), and the device's peak
 * The GEMM outputs are compared with cuBLAS's (largest error relative to
 * the largest magnitude). Without a device it says why and exits 2.
 * Usage: bench_gpu [SOURCE_ROOT] [--minutes M] [--only a,b,...] [--rounds R]
 *                  (or ./tessel bench gpu ...)
 */
#include "../bench_util.h"

#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static struct {
  CUresult (*Init)(unsigned), (*DeviceGet)(int *, int), (*DeviceGetName)(char *, int, int);
  CUresult (*DeviceGetAttribute)(int *, int, int), (*DriverGetVersion)(int *);
  CUresult (*PrimaryCtxRetain)(void **, int), (*CtxSetCurrent)(void *), (*CtxSynchronize)(void);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t), (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t), (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*EventCreate)(void **, unsigned), (*EventRecord)(void *, void *);
  CUresult (*EventSynchronize)(void *), (*EventElapsedTime)(float *, void *, void *);
} cu;

static struct {
  int (*Create)(void **), (*Destroy)(void *);
  int (*Sgemm)(void *, int, int, int, int, int, const float *, const float *, int,
               const float *, int, const float *, float *, int);
  int (*GemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int,
                const void *, int, int, const void *, void *, int, int, int, int);
  void *handle;
} blas;

enum { KIND_SGEMM, KIND_HGEMM, KIND_CONV, KIND_BANDWIDTH };

typedef struct workload {
  const char *name;
  int kind;
  double weight;          /* share of the tuning budget */
  int64_t m, n, k;        /* GEMMs: the (implicit) GEMM's sizes */
  int n_bufs;             /* parameters, in order */
  int64_t elems[3];       /* per parameter */
  int bytes[3];           /* per element */
  double moved;           /* bandwidth workloads: bytes read and written once */
} workload;

static const workload workloads[] = {
    {"sgemm_1024", KIND_SGEMM, 1.0, 1024, 1024, 1024, 3, {1 << 20, 1 << 20, 1 << 20}, {4, 4, 4}, 0},
    {"sgemm_4096", KIND_SGEMM, 1.5, 4096, 4096, 4096, 3, {1 << 24, 1 << 24, 1 << 24}, {4, 4, 4}, 0},
    {"hgemm_4096", KIND_HGEMM, 1.5, 4096, 4096, 4096, 3, {1 << 24, 1 << 24, 1 << 24}, {2, 2, 4}, 0},
    {"conv2d_resnet_nhwc", KIND_CONV, 1.0, 8 * 56 * 56, 64, 3 * 3 * 64, 3,
     {8 * 58 * 58 * 64, 3 * 3 * 64 * 64, 8 * 56 * 56 * 64}, {2, 2, 4}, 0},
    {"softmax_4096x1024", KIND_BANDWIDTH, 0.5, 0, 0, 0, 2, {1 << 22, 1 << 22}, {4, 4},
     2.0 * 4 * (1 << 22)},
    {"window_sum_16m", KIND_BANDWIDTH, 0.5, 0, 0, 0, 2, {(1 << 24) + 2, 1 << 24}, {4, 4},
     4.0 * ((1 << 24) + 2) + 4.0 * (1 << 24)},
};
enum { N_WORK = sizeof workloads / sizeof workloads[0] };

static int load_driver(char *why, size_t cap) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(why, cap, "libcuda.so.1 not found (%s)", dlerror());
    return -1;
  }
  struct { const char *name; void **fn; } syms[] = {
      {"cuInit", (void **)&cu.Init}, {"cuDeviceGet", (void **)&cu.DeviceGet},
      {"cuDeviceGetName", (void **)&cu.DeviceGetName},
      {"cuDeviceGetAttribute", (void **)&cu.DeviceGetAttribute},
      {"cuDriverGetVersion", (void **)&cu.DriverGetVersion},
      {"cuDevicePrimaryCtxRetain", (void **)&cu.PrimaryCtxRetain},
      {"cuCtxSetCurrent", (void **)&cu.CtxSetCurrent},
      {"cuCtxSynchronize", (void **)&cu.CtxSynchronize},
      {"cuMemAlloc_v2", (void **)&cu.MemAlloc}, {"cuMemFree_v2", (void **)&cu.MemFree},
      {"cuMemcpyHtoD_v2", (void **)&cu.MemcpyHtoD}, {"cuMemcpyDtoH_v2", (void **)&cu.MemcpyDtoH},
      {"cuMemcpyDtoD_v2", (void **)&cu.MemcpyDtoD}, {"cuEventCreate", (void **)&cu.EventCreate},
      {"cuEventRecord", (void **)&cu.EventRecord},
      {"cuEventSynchronize", (void **)&cu.EventSynchronize},
      {"cuEventElapsedTime_v2", (void **)&cu.EventElapsedTime}};
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    if (!(*syms[i].fn = dlsym(lib, syms[i].name))) {
      snprintf(why, cap, "libcuda.so.1 has no %s", syms[i].name);
      return -1;
    }
  void *ctx = NULL;
  int dev = 0, r = cu.Init(0);
  if (!r)
    r = cu.DeviceGet(&dev, 0);
  if (!r)
    r = cu.PrimaryCtxRetain(&ctx, dev);
  if (!r)
    r = cu.CtxSetCurrent(ctx);
  if (r)
    snprintf(why, cap, "the driver answered CUresult %d (cuInit, cuDeviceGet(0) or its context)",
             r);
  return r ? -1 : 0;
}

static void load_cublas(const char *cuda_home) {
  char path[600];
  snprintf(path, sizeof path, "%s/lib64/libcublas.so.13", cuda_home);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("cuBLAS: not loaded (%s); the GEMM references are missing\n", dlerror());
    return;
  }
  *(void **)&blas.Create = dlsym(lib, "cublasCreate_v2");
  *(void **)&blas.Destroy = dlsym(lib, "cublasDestroy_v2");
  *(void **)&blas.Sgemm = dlsym(lib, "cublasSgemm_v2");
  *(void **)&blas.GemmEx = dlsym(lib, "cublasGemmEx");
  int st = blas.Create && blas.Sgemm && blas.GemmEx ? blas.Create(&blas.handle) : -1;
  if (st) {
    printf("cuBLAS: cublasCreate failed (status %d)\n", st);
    blas.handle = NULL;
  }
}

/* `tessel ARGS...`, interrupted (SIGINT, then SIGKILL a minute later)
 * after `limit_s` seconds (0: never); its output goes to `log`. Returns its
 * exit status, or -1. */
static int run_tessel(const char *exe, const char *log, double limit_s, char *const *args) {
  pid_t pid = fork();
  fflush(stdout);
  if (pid == 0) {
    FILE *f = freopen(log, "w", stdout);
    if (f)
      dup2(fileno(stdout), 2);
    execv(exe, args);
    _exit(127);
  }
  if (pid < 0)
    return -1;
  double t0 = bench_now();
  int status = 0, sent = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    double el = bench_now() - t0;
    if (limit_s > 0 && !sent && el > limit_s) {
      kill(pid, SIGINT); /* the tuner stops; the records stay */
      sent = 1;
    } else if (sent && el > limit_s + 60) {
      kill(pid, SIGKILL);
    }
    usleep(200000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first number after `key` in a file, or NAN. */
static double number_after(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  char line[4096];
  double v = NAN;
  while (f && fgets(line, sizeof line, f)) {
    char *p = strstr(line, key);
    if (p && sscanf(p + strlen(key), "%lf", &v) == 1)
      break;
  }
  if (f)
    fclose(f);
  return v;
}

typedef int (*kernel3)(void *, void *, void *);
typedef int (*kernel2)(void *, void *);

/* Mean seconds per call of `call` (number calls between two events). */
static double time_calls(void (*call)(void *), void *ud, int number) {
  void *e0 = NULL, *e1 = NULL;
  float ms = 0;
  if (cu.EventCreate(&e0, 0) || cu.EventCreate(&e1, 0))
    return NAN;
  call(ud);
  cu.CtxSynchronize();
  cu.EventRecord(e0, NULL);
  for (int i = 0; i < number; i++)
    call(ud);
  cu.EventRecord(e1, NULL);
  cu.EventSynchronize(e1);
  return cu.EventElapsedTime(&ms, e0, e1) ? NAN : ms * 1e-3 / number;
}

typedef struct bench_args {
  const workload *w;
  CUdeviceptr buf[3], ref_out;
  CUdeviceptr ref_a; /* the convolution's reference: an M x K operand of its own */
  size_t copy_bytes;  /* the copy reference: the smaller buffer's bytes */
  void *fn; /* NAME_main: a pointer per buffer, an int32 status */
  int bad;
} bench_args;

static void call_tessel(void *ud) {
  bench_args *a = ud;
  void *b0 = (void *)(uintptr_t)a->buf[0], *b1 = (void *)(uintptr_t)a->buf[1];
  if (a->w->n_bufs == 2)
    a->bad |= ((kernel2)a->fn)(b0, b1) != 0;
  else
    a->bad |= ((kernel3)a->fn)(b0, b1, (void *)(uintptr_t)a->buf[2]) != 0;
}

/* cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T. */
static void call_reference(void *ud) {
  bench_args *a = ud;
  const workload *w = a->w;
  const float one = 1, zero = 0;
  int m = (int)w->m, n = (int)w->n, k = (int)w->k, st;
  void *A = (void *)(uintptr_t)(a->ref_a ? a->ref_a : a->buf[0]);
  void *B = (void *)(uintptr_t)a->buf[1], *C = (void *)(uintptr_t)a->ref_out;
  if (w->kind == KIND_SGEMM)
    st = blas.Sgemm(blas.handle, 0, 0, n, m, k, &one, B, n, A, k, &zero, C, n);
  else /* CUDA_R_16F inputs, CUDA_R_32F output, CUBLAS_COMPUTE_32F, the default algorithm */
    st = blas.GemmEx(blas.handle, 0, 0, n, m, k, &one, B, 2, n, A, 2, k, &zero, C, 0, n, 68, -1);
  a->bad |= st != 0;
}

static void call_copy(void *ud) {
  bench_args *a = ud;
  a->bad |= cu.MemcpyDtoD(a->buf[1], a->buf[0], a->copy_bytes) != 0;
}

static uint16_t half_bits(float x) { /* round to nearest even, finite inputs in [-1, 1) */
  uint32_t u;
  memcpy(&u, &x, 4);
  uint32_t sign = (u >> 16) & 0x8000u;
  int exp = (int)((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffffu;
  if (exp <= 0)
    return (uint16_t)sign;
  uint32_t h = sign | (uint32_t)exp << 10 | mant >> 13, rest = mant & 0x1fffu;
  return (uint16_t)(h + (rest > 0x1000u || (rest == 0x1000u && (h & 1))));
}

static int fill(CUdeviceptr dst, int64_t n, int bytes, unsigned seed) {
  void *h = malloc((size_t)(n * bytes));
  if (!h)
    return -1;
  srand(seed);
  for (int64_t i = 0; i < n; i++) {
    float x = (float)rand() / ((float)RAND_MAX + 1) * 2 - 1;
    if (bytes == 2)
      ((uint16_t *)h)[i] = half_bits(x);
    else
      ((float *)h)[i] = x;
  }
  int r = cu.MemcpyHtoD(dst, h, (size_t)(n * bytes));
  free(h);
  return r;
}

/* Largest |tessel - cuBLAS| over the largest |cuBLAS|. */
static double compare(CUdeviceptr a, CUdeviceptr b, int64_t n) {
  float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
  double err = NAN;
  if (x && y && !cu.MemcpyDtoH(x, a, (size_t)n * 4) && !cu.MemcpyDtoH(y, b, (size_t)n * 4)) {
    double e = 0, big = 0;
    for (int64_t i = 0; i < n; i++) {
      e = fmax(e, fabs((double)x[i] - y[i]));
      big = fmax(big, fabs((double)y[i]));
    }
    err = e / (big > 0 ? big : 1);
  }
  free(x);
  free(y);
  return err;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* children (the tuner's, the driver's) inherit no text */
  /* absolute: the configs written in the temporary folder name the programs */
  char root[4096];
  if (!realpath(argc > 1 && argv[1][0] != '-' ? argv[1] : ".", root)) {
    perror("bench_gpu: the source root");
    return 2;
  }
  double minutes = 7;
  int rounds = 5;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--minutes") && i + 1 < argc)
      minutes = atof(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (i > 1 || argv[i][0] == '-') {
      fprintf(stderr, "usage: bench_gpu [SOURCE_ROOT] [--minutes M] [--only a,b] [--rounds R]\n"
              "  workloads: sgemm_1024 sgemm_4096 hgemm_4096 conv2d_resnet_nhwc "
              "softmax_4096x1024 window_sum_16m\n");
      return 2;
    }
  }
  if (minutes <= 0 || rounds < 1 || rounds > 99) {
    fprintf(stderr, "bench_gpu: --minutes must be > 0 and --rounds 1..99\n");
    return 2;
  }
  char why[600];
  if (load_driver(why, sizeof why)) {
    printf("bench_gpu: no CUDA device: %s\n", why);
    return 2;
  }
  char name[256] = "?", self[4096], dir[4096], exe[4200];
  int v = 0, cc[2] = {0, 0}, clock_khz = 0, bus_bits = 0, sms = 0;
  cu.DeviceGetName(name, sizeof name, 0);
  cu.DriverGetVersion(&v);
  cu.DeviceGetAttribute(&cc[0], 75, 0);
  cu.DeviceGetAttribute(&cc[1], 76, 0);
  cu.DeviceGetAttribute(&clock_khz, 36, 0);
  cu.DeviceGetAttribute(&bus_bits, 37, 0);
  cu.DeviceGetAttribute(&sms, 16, 0);
  double peak_bw = 2.0 * clock_khz * 1e3 * bus_bits / 8;
  printf("device: %s, sm_%d%d, %d SMs, driver CUDA %d.%d, peak memory bandwidth %.0f GB/s "
         "(clock x bus width)\n", name, cc[0], cc[1], sms, v / 1000, v % 1000 / 10,
         peak_bw * 1e-9);
  const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
  load_cublas(home);
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  self[len > 0 ? len : 0] = 0;
  char *slash = strrchr(self, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - self) : 1, slash ? self : ".");
  snprintf(exe, sizeof exe, "%s/../core/cli/tessel", dir);
  char tmp[] = "/tmp/tessel-bench-gpu-XXXXXX";
  if (!mkdtemp(tmp)) {
    perror("bench_gpu: mkdtemp");
    return 2;
  }
  double total_w = 0;
  for (int i = 0; i < N_WORK; i++)
    total_w += !only || strstr(only, workloads[i].name) ? workloads[i].weight : 0;
  printf("%-20s %6s %8s %7s %12s %10s %12s %10s %7s %9s\n", "workload", "trials", "tune s",
         "search", "tessel", "", "reference", "", "ratio", "max err");
  for (int wi = 0; wi < N_WORK; wi++) {
    const workload *w = &workloads[wi];
    if (only && !strstr(only, w->name))
      continue;
    char prog[4400], cfg[4400], log[4400], lib[4400];
    snprintf(prog, sizeof prog, "%s/bench/gpu/%s.py", root, w->name);
    snprintf(cfg, sizeof cfg, "%s/%s.yaml", tmp, w->name);
    snprintf(log, sizeof log, "%s/%s.log", tmp, w->name);
    snprintf(lib, sizeof lib, "%s/lib%s.so", tmp, w->name);
    /* rounds of 32 trials, each a resumed `tessel tune` that exports its
     * best, until the share is spent (a round may end a minute past it) */
    double budget = minutes * 60 * w->weight / total_w, t0 = bench_now();
    double trials = 0, search = 0, total = 0;
    for (int64_t target = 32; bench_now() - t0 < budget; target += 32) {
      FILE *f = fopen(cfg, "w");
      if (!f)
        break;
      /* TVM's GPU runner (number 3, repeat 1, min_repeat_ms 100) */
      fprintf(f, "workload: {file: %s}\ntarget: {kind: cuda}\nstrategy: {kind: evolutionary, "
              "trials: %lld, batch: 64}\ncost_model: {kind: xgb}\nrunner: {number: 3, repeat: "
              "1, min_repeat_ms: 100, timeout_s: 30}\ndatabase: %s/%s.db\nexport: %s\nseed: 1\n",
              prog, (long long)target, tmp, w->name, lib);
      fclose(f);
      char *targs[] = {exe, "tune", cfg, NULL};
      if (run_tessel(exe, log, budget - (bench_now() - t0) + 60, targs))
        break;
      double n = number_after(log, "tuned: "), t = number_after(log, "time: ");
      double sr = number_after(log, "(search ");
      if (!(n > 0))
        break; /* the strategy has nothing left */
      trials += n;
      total += t;
      search += sr;
    }
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    char sym[300];
    snprintf(sym, sizeof sym, "%s_main", w->name);
    void *fn = h ? dlsym(h, sym) : NULL;
    if (!fn) {
      printf("%-20s no tuned library after %.0f s (see %s)\n", w->name, bench_now() - t0, log);
      continue;
    }
    bench_args a = {.w = w, .fn = fn};
    int64_t out_elems = w->elems[w->n_bufs - 1];
    int bad = 0;
    for (int p = 0; p < w->n_bufs; p++)
      bad |= cu.MemAlloc(&a.buf[p], (size_t)(w->elems[p] * w->bytes[p])) ||
             (p + 1 < w->n_bufs && fill(a.buf[p], w->elems[p], w->bytes[p], 7u + (unsigned)p));
    int has_ref = w->kind != KIND_BANDWIDTH && blas.handle;
    if (has_ref)
      bad |= cu.MemAlloc(&a.ref_out, (size_t)(out_elems * 4));
    if (has_ref && w->kind == KIND_CONV) /* the input is smaller than M x K */
      bad |= cu.MemAlloc(&a.ref_a, (size_t)(w->m * w->k * 2)) || fill(a.ref_a, w->m * w->k, 2, 7);
    a.copy_bytes = (size_t)(w->elems[1] * w->bytes[1]);
    for (int p = 0; p < w->n_bufs; p++)
      if ((size_t)(w->elems[p] * w->bytes[p]) < a.copy_bytes)
        a.copy_bytes = (size_t)(w->elems[p] * w->bytes[p]);
    if (bad) {
      printf("%-20s device memory could not be allocated or filled\n", w->name);
      continue;
    }
    double ts[99], rs[99];
    for (int r = 0; r < rounds; r++) { /* alternating, each a warm-up call and a timed block */
      ts[r] = time_calls(call_tessel, &a, 20);
      rs[r] = has_ref ? time_calls(call_reference, &a, 20)
              : w->kind == KIND_BANDWIDTH ? time_calls(call_copy, &a, 20) : NAN;
    }
    double t = bench_median(ts, rounds), ref = bench_median(rs, rounds);
    double err = has_ref && w->kind != KIND_CONV ? compare(a.buf[2], a.ref_out, out_elems) : NAN;
    /* GEMMs: the same arithmetic; the copy: its bytes read and written */
    double work = w->kind == KIND_BANDWIDTH ? w->moved : 2.0 * w->m * w->n * w->k;
    double ref_work = w->kind == KIND_BANDWIDTH ? 2.0 * (double)a.copy_bytes : work;
    double ratio = (work / t) / (ref_work / ref);
    const char *unit = w->kind == KIND_BANDWIDTH ? "GB/s" : "TFLOPS";
    double scale = w->kind == KIND_BANDWIDTH ? 1e-9 : 1e-12;
    printf("%-20s %6.0f %8.0f %6.0f%% %9.3f ms %7.2f %s %9.3f ms %7.2f %s %7.2f %9.2g%s\n",
           w->name, trials, total, total > 0 ? 100 * search / total : NAN, t * 1e3,
           work / t * scale, unit, ref * 1e3, ref_work / ref * scale, unit, ratio, err,
           a.bad ? "  (a call failed)" : "");
    if (w->kind == KIND_BANDWIDTH)
      printf("%-20s %.0f%% of the copy's bandwidth, %.0f%% of the peak\n", "", 100 * ratio,
             100 * work / t / peak_bw);
    for (int p = 0; p < w->n_bufs; p++)
      cu.MemFree(a.buf[p]);
    if (a.ref_out)
      cu.MemFree(a.ref_out);
    if (a.ref_a)
      cu.MemFree(a.ref_a);
  }
  printf("aims: SGEMM >= 0.9x cuBLAS, tensor-core GEMM >= 0.75x cuBLAS (ratio = tessel's "
         "throughput over the reference's); runs in %s\n", tmp);
  if (blas.handle)
    blas.Destroy(blas.handle);
  return 0;
}
