/*
 * targets/cuda/driver.c — the CUDA driver API, opened with dlopen: the
 * device of measurements, its limits and primary context, and the device
 * hooks (memory, copies, synchronize) on that context.
 *
 * libcuda.so.1 is opened and initialised once per process, and each device
 * once: the answer, a device or the reason there is none, is kept, so a
 * machine without a driver pays one dlopen. Every call makes the device's
 * primary context current in the calling thread. CUDA cannot be used in a
 * child forked after its parent called cuInit; such a child gets an error
 * that says so (measurement workers are forked: open the driver in the
 * worker, never before the fork).
 */
#include "cuda_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* cuda.h, the part used here. */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;

enum { CUDA_SUCCESS = 0, CUDA_ERROR_OUT_OF_MEMORY = 2, CUDA_ERROR_STUB_LIBRARY = 34 };
enum {
  ATTR_MAX_THREADS_PER_BLOCK = 1,
  ATTR_MAX_BLOCK_DIM_X = 2,
  ATTR_MAX_BLOCK_DIM_Y = 3,
  ATTR_MAX_BLOCK_DIM_Z = 4,
  ATTR_MAX_GRID_DIM_X = 5,
  ATTR_MAX_GRID_DIM_Y = 6,
  ATTR_MAX_GRID_DIM_Z = 7,
  ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  ATTR_WARP_SIZE = 10,
  ATTR_MAX_REGISTERS_PER_BLOCK = 12,
  ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
  ATTR_COMPUTE_CAPABILITY_MINOR = 76,
  ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
};

typedef struct cu_api {
  CUresult (*Init)(unsigned int flags);
  CUresult (*DriverGetVersion)(int *version);
  CUresult (*DeviceGetCount)(int *count);
  CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
  CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
  CUresult (*DeviceGetAttribute)(int *value, int attr, CUdevice dev);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
  CUresult (*DevicePrimaryCtxReset)(CUdevice dev);
  CUresult (*CtxSetCurrent)(CUcontext ctx);
  CUresult (*CtxSynchronize)(void);
  CUresult (*MemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*MemFree)(CUdeviceptr ptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*EventCreate)(void **event, unsigned int flags);
  CUresult (*EventRecord)(void *event, void *stream);
  CUresult (*EventSynchronize)(void *event);
  CUresult (*EventElapsedTime)(float *ms, void *start, void *end);
  CUresult (*EventDestroy)(void *event);
  CUresult (*GetErrorName)(CUresult code, const char **name);
  CUresult (*GetErrorString)(CUresult code, const char **text);
} cu_api;

enum { MAX_DEVICES = 64 };

typedef struct dev_slot {
  int done;
  int status;
  char err[1024];
  tcu_device_info info;
  CUcontext ctx;
} dev_slot;

/* The process's driver, under drv_lock. */
static pthread_mutex_t drv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int done;
  int status;
  char err[1024];
  int initialised; /* cuInit was called, by process `pid` */
  pid_t pid;
  int version;
  int count;
  cu_api api;
  dev_slot dev[MAX_DEVICES];
} drv;

/* Names of the codes seen when the driver cannot name them itself (its
 * stub library answers cuGetErrorName with an error too). */
static const struct {
  CUresult code;
  const char *name, *text;
} known_errors[] = {
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
};

const char *tcu_cu_error(int code, char *buf, size_t cap) {
  if (!buf || !cap)
    return "";
  const char *name = NULL, *text = NULL;
  if (!drv.api.GetErrorName || drv.api.GetErrorName(code, &name) != CUDA_SUCCESS)
    name = NULL;
  if (!drv.api.GetErrorString || drv.api.GetErrorString(code, &text) != CUDA_SUCCESS)
    text = NULL;
  for (size_t i = 0; !name && i < sizeof known_errors / sizeof known_errors[0]; i++)
    if (known_errors[i].code == code) {
      name = known_errors[i].name;
      text = known_errors[i].text;
    }
  if (name && text)
    snprintf(buf, cap, "%s (%s)", name, text);
  else if (name)
    snprintf(buf, cap, "%s", name);
  else
    snprintf(buf, cap, "CUresult %d", code);
  return buf;
}

/* "<what> failed: NAME (text)" after `prefix`, into `dst`. */
static void failed(char *dst, size_t cap, const char *prefix, const char *what, CUresult r) {
  char e[256];
  snprintf(dst, cap, "%s%s failed: %s", prefix, what, tcu_cu_error(r, e, sizeof e));
}

/* ---- the library, once per process ---------------------------------------- */

static int bind_symbols(void *lib) {
  struct {
    const char *name;
    void **slot;
  } syms[] = {
      {"cuInit", (void **)&drv.api.Init},
      {"cuDriverGetVersion", (void **)&drv.api.DriverGetVersion},
      {"cuDeviceGetCount", (void **)&drv.api.DeviceGetCount},
      {"cuDeviceGet", (void **)&drv.api.DeviceGet},
      {"cuDeviceGetName", (void **)&drv.api.DeviceGetName},
      {"cuDeviceGetAttribute", (void **)&drv.api.DeviceGetAttribute},
      {"cuDevicePrimaryCtxRetain", (void **)&drv.api.DevicePrimaryCtxRetain},
      {"cuDevicePrimaryCtxReset_v2", (void **)&drv.api.DevicePrimaryCtxReset},
      {"cuCtxSetCurrent", (void **)&drv.api.CtxSetCurrent},
      {"cuCtxSynchronize", (void **)&drv.api.CtxSynchronize},
      {"cuMemAlloc_v2", (void **)&drv.api.MemAlloc},
      {"cuMemFree_v2", (void **)&drv.api.MemFree},
      {"cuMemcpyHtoD_v2", (void **)&drv.api.MemcpyHtoD},
      {"cuMemcpyDtoH_v2", (void **)&drv.api.MemcpyDtoH},
      {"cuEventCreate", (void **)&drv.api.EventCreate},
      {"cuEventRecord", (void **)&drv.api.EventRecord},
      {"cuEventSynchronize", (void **)&drv.api.EventSynchronize},
      {"cuEventElapsedTime_v2", (void **)&drv.api.EventElapsedTime},
      {"cuEventDestroy_v2", (void **)&drv.api.EventDestroy},
      {"cuGetErrorName", (void **)&drv.api.GetErrorName},
      {"cuGetErrorString", (void **)&drv.api.GetErrorString},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    *syms[i].slot = dlsym(lib, syms[i].name);
    if (!*syms[i].slot) {
      memset(&drv.api, 0, sizeof drv.api);
      snprintf(drv.err, sizeof drv.err,
               "no CUDA device: libcuda.so.1 has no %s; the NVIDIA driver is too old "
               "(one of CUDA 12 or newer is needed)",
               syms[i].name);
      return TSL_EUNSUPPORTED;
    }
  }
  return TSL_OK;
}

static int init_driver(void) {
  drv.initialised = 1;
  drv.pid = getpid();
  CUresult r = drv.api.Init(0);
  const char *what = "cuInit";
  if (r == CUDA_SUCCESS) {
    r = drv.api.DriverGetVersion(&drv.version);
    what = "cuDriverGetVersion";
  }
  if (r == CUDA_SUCCESS) {
    r = drv.api.DeviceGetCount(&drv.count);
    what = "cuDeviceGetCount";
  }
  if (r == CUDA_SUCCESS)
    return TSL_OK;
  failed(drv.err, sizeof drv.err, "no CUDA device: ", what, r);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    size_t len = strlen(drv.err);
    snprintf(drv.err + len, sizeof drv.err - len,
             "; the libcuda.so.1 found is the toolkit's stub (lib64/stubs), not the NVIDIA "
             "driver's: take the stubs folder off LD_LIBRARY_PATH");
  }
  return TSL_EUNSUPPORTED;
}

static void open_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(drv.err, sizeof drv.err, "no CUDA device: libcuda.so.1 not found (%s)",
             e ? e : "unknown dlopen error");
    drv.status = TSL_EUNSUPPORTED;
    return;
  }
  drv.status = bind_symbols(lib);
  if (drv.status == TSL_OK)
    drv.status = init_driver();
}

/* ---- one device, once per process ---------------------------------------- */

static int device_failed(dev_slot *s, int ordinal, const char *what, CUresult r) {
  char prefix[200];
  snprintf(prefix, sizeof prefix, "cuda target: device %d%s%s%s: ", ordinal,
           s->info.name[0] ? " (" : "", s->info.name, s->info.name[0] ? ")" : "");
  failed(s->err, sizeof s->err, prefix, what, r);
  return TSL_ERUNTIME;
}

static int read_attributes(dev_slot *s, int ordinal, CUdevice dev) {
  tcu_device_info *in = &s->info;
  int major = 0, minor = 0;
  struct {
    int32_t *to;
    int attr;
    const char *name;
  } attrs[] = {
      {&major, ATTR_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR"},
      {&minor, ATTR_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR"},
      {&in->max_threads_per_block, ATTR_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"},
      {&in->max_block[0], ATTR_MAX_BLOCK_DIM_X, "MAX_BLOCK_DIM_X"},
      {&in->max_block[1], ATTR_MAX_BLOCK_DIM_Y, "MAX_BLOCK_DIM_Y"},
      {&in->max_block[2], ATTR_MAX_BLOCK_DIM_Z, "MAX_BLOCK_DIM_Z"},
      {&in->max_grid[0], ATTR_MAX_GRID_DIM_X, "MAX_GRID_DIM_X"},
      {&in->max_grid[1], ATTR_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y"},
      {&in->max_grid[2], ATTR_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z"},
      {&in->smem_per_block, ATTR_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK"},
      {&in->smem_per_block_optin, ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"},
      {&in->regs_per_block, ATTR_MAX_REGISTERS_PER_BLOCK, "MAX_REGISTERS_PER_BLOCK"},
      {&in->warp_size, ATTR_WARP_SIZE, "WARP_SIZE"},
  };
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
    int v = 0;
    CUresult r = drv.api.DeviceGetAttribute(&v, attrs[i].attr, dev);
    if (r != CUDA_SUCCESS) {
      char what[96];
      snprintf(what, sizeof what, "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_%s)",
               attrs[i].name);
      return device_failed(s, ordinal, what, r);
    }
    *attrs[i].to = v;
  }
  in->arch = 10 * major + minor;
  return TSL_OK;
}

static int open_device(dev_slot *s, int ordinal) {
  memset(&s->info, 0, sizeof s->info);
  s->info.ordinal = ordinal;
  s->info.driver_version = drv.version;
  CUdevice dev = 0;
  CUresult r = drv.api.DeviceGet(&dev, ordinal);
  if (r != CUDA_SUCCESS) {
    char what[48];
    snprintf(what, sizeof what, "cuDeviceGet(%d)", ordinal);
    failed(s->err, sizeof s->err, "no CUDA device: ", what, r);
    return TSL_EUNSUPPORTED;
  }
  r = drv.api.DeviceGetName(s->info.name, (int)sizeof s->info.name, dev);
  if (r != CUDA_SUCCESS) {
    s->info.name[0] = '\0';
    return device_failed(s, ordinal, "cuDeviceGetName", r);
  }
  int rc = read_attributes(s, ordinal, dev);
  if (rc != TSL_OK)
    return rc;
  r = drv.api.DevicePrimaryCtxRetain(&s->ctx, dev);
  if (r != CUDA_SUCCESS)
    return device_failed(s, ordinal, "cuDevicePrimaryCtxRetain", r);
  return TSL_OK;
}

/* The slot of `ordinal`, opening what is not yet open; under drv_lock. */
static int open_locked(int32_t ordinal, dev_slot **out, tsl_diag *diag) {
  if (!drv.done) {
    open_driver();
    drv.done = 1;
  }
  if (drv.status == TSL_OK && drv.initialised && drv.pid != getpid())
    return tsl_diag_set(diag, TSL_ERUNTIME,
                        "cuda target: the CUDA driver was initialised in process %ld before "
                        "it forked this one (%ld), and CUDA cannot be used in such a child; "
                        "open the device only in the process that uses it",
                        (long)drv.pid, (long)getpid());
  if (drv.status != TSL_OK)
    return tsl_diag_set(diag, drv.status, "%s", drv.err);
  if (drv.count <= 0)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "no CUDA device: the driver (CUDA %d.%d) sees none", drv.version / 1000,
                        drv.version % 1000 / 10);
  if (ordinal >= drv.count)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "no CUDA device: device %d requested but the driver sees %d (ordinals "
                        "0 to %d)",
                        (int)ordinal, drv.count, drv.count - 1);
  if (ordinal >= MAX_DEVICES)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "cuda target: device %d is past the %d devices this target handles",
                        (int)ordinal, MAX_DEVICES);
  dev_slot *s = &drv.dev[ordinal];
  if (!s->done) {
    s->status = open_device(s, ordinal);
    s->done = 1;
  }
  if (s->status != TSL_OK)
    return tsl_diag_set(diag, s->status, "%s", s->err);
  *out = s;
  return TSL_OK;
}

int tcu_driver_open(int32_t ordinal, const tcu_device_info **out, tsl_diag *diag) {
  if (out)
    *out = NULL;
  if (ordinal < 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "cuda target: device ordinal %d is invalid; ordinals count from 0",
                        (int)ordinal);
  dev_slot *s = NULL;
  pthread_mutex_lock(&drv_lock);
  int rc = open_locked(ordinal, &s, diag);
  pthread_mutex_unlock(&drv_lock);
  if (rc != TSL_OK)
    return rc;
  CUresult r = drv.api.CtxSetCurrent(s->ctx);
  if (r != CUDA_SUCCESS) {
    char e[256];
    return tsl_diag_set(diag, TSL_ERUNTIME,
                        "cuda target: device %d (%s): cuCtxSetCurrent failed: %s", (int)ordinal,
                        s->info.name, tcu_cu_error(r, e, sizeof e));
  }
  if (out)
    *out = &s->info;
  return TSL_OK;
}

/* ---- the device hooks ------------------------------------------------------- */

static int32_t ordinal_of(const tsl_target *t) { return t ? t->device : 0; }

/* The errors after which the context is unusable: a kernel's illegal
 * address or instruction, a launch that failed or ran past the watchdog. */
static int sticky(CUresult r) {
  return r == 700 || r == 702 || (r >= 714 && r <= 719);
}

/* A poisoned primary context rebuilt (TVM issue #13639 is a tuner that
 * dies there): reset, made current again. Every allocation goes with it.
 * Returns what happened, for the message. */
static const char *rebuild(int32_t ordinal) {
  CUdevice dev = 0;
  pthread_mutex_lock(&drv_lock);
  dev_slot *s = ordinal >= 0 && ordinal < MAX_DEVICES ? &drv.dev[ordinal] : NULL;
  CUresult r = s && s->done && s->status == TSL_OK ? drv.api.DeviceGet(&dev, ordinal) : 1;
  r = r ? r : drv.api.DevicePrimaryCtxReset(dev);
  r = r ? r : drv.api.DevicePrimaryCtxRetain(&s->ctx, dev);
  r = r ? r : drv.api.CtxSetCurrent(s->ctx);
  pthread_mutex_unlock(&drv_lock);
  return r ? "; rebuilding the context failed too" :
             "; the context was rebuilt (cuDevicePrimaryCtxReset), its buffers with it";
}

static int call_failed(const tsl_target *t, tsl_diag *diag, CUresult r, const char *fmt, ...)
    TSL_PRINTF(4, 5);
static int call_failed(const tsl_target *t, tsl_diag *diag, CUresult r, const char *fmt, ...) {
  char what[256], e[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *after = sticky(r) ? rebuild(ordinal_of(t)) : "";
  return tsl_diag_set(diag, r == CUDA_ERROR_OUT_OF_MEMORY ? TSL_ENOMEM : TSL_ERUNTIME,
                      "cuda target: %s failed: %s%s", what, tcu_cu_error(r, e, sizeof e), after);
}

int tcu_dev_alloc(tsl_target *t, size_t bytes, void **out, tsl_diag *diag) {
  if (!out)
    return tsl_diag_set(diag, TSL_EINVALID, "cuda target: dev_alloc without an output");
  *out = NULL;
  int rc = tcu_driver_open(ordinal_of(t), NULL, diag);
  if (rc != TSL_OK)
    return rc;
  CUdeviceptr p = 0;
  CUresult r = drv.api.MemAlloc(&p, bytes ? bytes : 1); /* 0 bytes is an error to CUDA */
  if (r != CUDA_SUCCESS)
    return call_failed(t, diag, r, "cuMemAlloc of %zu bytes", bytes);
  *out = (void *)(uintptr_t)p;
  return TSL_OK;
}

void tcu_dev_free(tsl_target *t, void *ptr) {
  if (!ptr || tcu_driver_open(ordinal_of(t), NULL, NULL) != TSL_OK)
    return;
  drv.api.MemFree((CUdeviceptr)(uintptr_t)ptr);
}

static int copy_args(const void *dst, const void *src, size_t bytes, const char *call,
                     tsl_diag *diag) {
  if (bytes && (!dst || !src))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "cuda target: %s of %zu bytes with a NULL %s pointer", call, bytes,
                        dst ? "source" : "destination");
  return TSL_OK;
}

int tcu_copy_to_device(tsl_target *t, void *dst, const void *src, size_t bytes,
                       tsl_diag *diag) {
  int rc = copy_args(dst, src, bytes, "cuMemcpyHtoD", diag);
  if (rc == TSL_OK)
    rc = tcu_driver_open(ordinal_of(t), NULL, diag);
  if (rc != TSL_OK || !bytes)
    return rc;
  CUresult r = drv.api.MemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes);
  if (r != CUDA_SUCCESS)
    return call_failed(t, diag, r, "cuMemcpyHtoD of %zu bytes to %p", bytes, dst);
  return TSL_OK;
}

int tcu_copy_from_device(tsl_target *t, void *dst, const void *src, size_t bytes,
                         tsl_diag *diag) {
  int rc = copy_args(dst, src, bytes, "cuMemcpyDtoH", diag);
  if (rc == TSL_OK)
    rc = tcu_driver_open(ordinal_of(t), NULL, diag);
  if (rc != TSL_OK || !bytes)
    return rc;
  CUresult r = drv.api.MemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes);
  if (r != CUDA_SUCCESS)
    return call_failed(t, diag, r, "cuMemcpyDtoH of %zu bytes from %p", bytes, src);
  return TSL_OK;
}

int tcu_synchronize(tsl_target *t, tsl_diag *diag) {
  int rc = tcu_driver_open(ordinal_of(t), NULL, diag);
  if (rc != TSL_OK)
    return rc;
  CUresult r = drv.api.CtxSynchronize();
  if (r != CUDA_SUCCESS)
    return call_failed(t, diag, r,
                       "cuCtxSynchronize (waiting for the kernels launched before)");
  return TSL_OK;
}

/* The calls timed between two CUDA events on the default stream (TVM's
 * runner on a GPU), after the work before them has finished. */
int tcu_time_calls(tsl_target *t, tsl_kernel *k, tsl_packed_fn fn, void *const *args,
                   int32_t number, double *mean_s, tsl_diag *diag) {
  (void)k;
  int rc = tcu_driver_open(ordinal_of(t), NULL, diag);
  if (rc != TSL_OK)
    return rc;
  void *start = NULL, *stop = NULL;
  CUresult r = drv.api.EventCreate(&start, 0);
  r = r ? r : drv.api.EventCreate(&stop, 0);
  r = r ? r : drv.api.EventRecord(start, NULL);
  int32_t status = 0;
  for (int32_t i = 0; !r && !status && i < number; i++)
    status = fn(args);
  r = r ? r : drv.api.EventRecord(stop, NULL);
  r = r ? r : drv.api.EventSynchronize(stop);
  float ms = 0;
  r = r ? r : drv.api.EventElapsedTime(&ms, start, stop);
  if (start)
    drv.api.EventDestroy(start);
  if (stop)
    drv.api.EventDestroy(stop);
  if (r)
    return call_failed(t, diag, r, "timing %d calls between CUDA events", (int)number);
  if (status)
    return tsl_diag_set(diag, TSL_ERUNTIME, "cuda target: a timed call returned %d",
                        (int)status);
  *mean_s = number > 0 ? ms * 1e-3 / number : 0;
  return TSL_OK;
}
