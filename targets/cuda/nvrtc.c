/*
 * targets/cuda/nvrtc.c — CUDA C to PTX and a cubin with NVRTC, opened with
 * dlopen so that the plugin loads on machines without the toolkit.
 *
 * The library is looked for once per process: $CUDA_HOME/lib64/libnvrtc.so
 * (CUDA_HOME defaulting to /usr/local/cuda), then libnvrtc.so,
 * libnvrtc.so.13 and libnvrtc.so.12 on the loader's search path. The
 * outcome, a library or the reason there is none, is kept for the process.
 * NVRTC's options are not nvcc's: NVRTC 13 refuses -O3 (it optimizes by
 * default), so only the architecture, the include path and the language
 * standard are given.
 */
#include "cuda_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nvrtc.h, the part used here. */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
enum { NVRTC_SUCCESS = 0, NVRTC_ERROR_OUT_OF_MEMORY = 1 };

typedef struct nvrtc_api {
  nvrtcResult (*CreateProgram)(nvrtcProgram *prog, const char *src, const char *name,
                               int num_headers, const char *const *headers,
                               const char *const *include_names);
  nvrtcResult (*CompileProgram)(nvrtcProgram prog, int num_options,
                                const char *const *options);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram prog, size_t *size);
  nvrtcResult (*GetProgramLog)(nvrtcProgram prog, char *log);
  nvrtcResult (*GetPTXSize)(nvrtcProgram prog, size_t *size);
  nvrtcResult (*GetPTX)(nvrtcProgram prog, char *ptx);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram prog, size_t *size);
  nvrtcResult (*GetCUBIN)(nvrtcProgram prog, char *cubin);
  nvrtcResult (*DestroyProgram)(nvrtcProgram *prog);
  const char *(*GetErrorString)(nvrtcResult result);
  nvrtcResult (*Version)(int *major, int *minor);
  nvrtcResult (*GetNumSupportedArchs)(int *n);
  nvrtcResult (*GetSupportedArchs)(int *archs);
} nvrtc_api;

enum { MAX_ARCHS = 64, LOG_SHOWN = 3000 };

/* What loading found, once per process. */
static struct {
  int status;         /* TSL_OK or the error of err */
  char err[2048];
  char path[1100];    /* the library opened */
  nvrtc_api api;
  int major, minor;
  int archs[MAX_ARCHS];
  int n_archs;
} nv;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

const char *tcu_cuda_home(void) {
  const char *home = getenv("CUDA_HOME");
  return home && *home ? home : "/usr/local/cuda";
}

/* The libraries tried after $CUDA_HOME/lib64/libnvrtc.so, by name. */
static const char *const fallback_names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
enum { N_FALLBACKS = sizeof fallback_names / sizeof fallback_names[0] };

/* The first library that opens; `why`: the dlerror of the toolkit's own
 * copy, which says most about what is wrong. */
static void *open_first(const char *home_lib, char *why, size_t cap) {
  void *lib = dlopen(home_lib, RTLD_NOW | RTLD_LOCAL);
  if (lib) {
    snprintf(nv.path, sizeof nv.path, "%s", home_lib);
    return lib;
  }
  const char *e = dlerror();
  snprintf(why, cap, "%s", e ? e : "unknown dlopen error");
  for (int i = 0; i < N_FALLBACKS; i++) {
    lib = dlopen(fallback_names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      snprintf(nv.path, sizeof nv.path, "%s", fallback_names[i]);
      return lib;
    }
  }
  return NULL;
}

static int bind_symbols(void *lib) {
  struct {
    const char *name;
    void **slot;
  } syms[] = {
      {"nvrtcCreateProgram", (void **)&nv.api.CreateProgram},
      {"nvrtcCompileProgram", (void **)&nv.api.CompileProgram},
      {"nvrtcGetProgramLogSize", (void **)&nv.api.GetProgramLogSize},
      {"nvrtcGetProgramLog", (void **)&nv.api.GetProgramLog},
      {"nvrtcGetPTXSize", (void **)&nv.api.GetPTXSize},
      {"nvrtcGetPTX", (void **)&nv.api.GetPTX},
      {"nvrtcGetCUBINSize", (void **)&nv.api.GetCUBINSize},
      {"nvrtcGetCUBIN", (void **)&nv.api.GetCUBIN},
      {"nvrtcDestroyProgram", (void **)&nv.api.DestroyProgram},
      {"nvrtcGetErrorString", (void **)&nv.api.GetErrorString},
      {"nvrtcVersion", (void **)&nv.api.Version},
      {"nvrtcGetNumSupportedArchs", (void **)&nv.api.GetNumSupportedArchs},
      {"nvrtcGetSupportedArchs", (void **)&nv.api.GetSupportedArchs},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    dlerror();
    *syms[i].slot = dlsym(lib, syms[i].name);
    if (!*syms[i].slot) {
      snprintf(nv.err, sizeof nv.err,
               "cuda target: %s has no %s; NVRTC 11.2 or newer is needed (install a newer "
               "CUDA toolkit or point CUDA_HOME at one)",
               nv.path, syms[i].name);
      return TSL_EUNSUPPORTED;
    }
  }
  return TSL_OK;
}

static int query_library(void) {
  int n = 0;
  if (nv.api.Version(&nv.major, &nv.minor) != NVRTC_SUCCESS ||
      nv.api.GetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > MAX_ARCHS ||
      nv.api.GetSupportedArchs(nv.archs) != NVRTC_SUCCESS) {
    snprintf(nv.err, sizeof nv.err,
             "cuda target: %s did not answer its version or its architectures (%d "
             "reported); reinstall the CUDA toolkit",
             nv.path, n);
    return TSL_ERUNTIME;
  }
  nv.n_archs = n;
  return TSL_OK;
}

static void load_once(void) {
  char home_lib[1100], why[512];
  snprintf(home_lib, sizeof home_lib, "%s/lib64/libnvrtc.so", tcu_cuda_home());
  void *lib = open_first(home_lib, why, sizeof why);
  if (!lib) {
    snprintf(nv.err, sizeof nv.err,
             "cuda target: NVRTC not found (tried %s, %s, %s, %s): %s; install the CUDA "
             "toolkit or set CUDA_HOME",
             home_lib, fallback_names[0], fallback_names[1], fallback_names[2], why);
    nv.status = TSL_EUNSUPPORTED;
    return;
  }
  nv.status = bind_symbols(lib);
  if (nv.status == TSL_OK)
    nv.status = query_library();
  /* the library stays open for the process, also after a failure: a
   * half-bound handle is never used, and dlclose would gain nothing */
}

static int load(tsl_diag *diag) {
  pthread_once(&nv_once, load_once);
  if (nv.status != TSL_OK)
    return tsl_diag_set(diag, nv.status, "%s", nv.err);
  return TSL_OK;
}

int tcu_nvrtc_version(int32_t *major, int32_t *minor, tsl_diag *diag) {
  int rc = load(diag);
  if (rc != TSL_OK)
    return rc;
  if (major)
    *major = nv.major;
  if (minor)
    *minor = nv.minor;
  return TSL_OK;
}

static int check_arch(int32_t arch, tsl_diag *diag) {
  for (int i = 0; i < nv.n_archs; i++)
    if (nv.archs[i] == arch)
      return TSL_OK;
  char list[MAX_ARCHS * 10] = "";
  size_t len = 0;
  for (int i = 0; i < nv.n_archs && len < sizeof list; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%ssm_%d", i ? ", " : "",
                            nv.archs[i]);
  return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                      "cuda target: NVRTC %d.%d cannot compile for sm_%d; it supports %s",
                      nv.major, nv.minor, (int)arch, list);
}

static const char *nvrtc_error(nvrtcResult r) {
  const char *s = nv.api.GetErrorString(r);
  return s ? s : "unknown NVRTC error";
}

/* How much of `log` to show: all of it without trailing blanks, or its
 * first LOG_SHOWN characters, cut after a line when one ends in their
 * second half (*cut set). */
static size_t log_shown(const char *log, int *cut) {
  size_t len = strlen(log);
  while (len > 0 && (log[len - 1] == '\n' || log[len - 1] == ' '))
    len--;
  *cut = len > LOG_SHOWN;
  if (!*cut)
    return len;
  for (len = LOG_SHOWN; len > LOG_SHOWN / 2; len--)
    if (log[len - 1] == '\n')
      return len - 1;
  return LOG_SHOWN;
}

/* The compile error naming `name`, with NVRTC's log. */
static int compile_error(nvrtcProgram prog, nvrtcResult r, const char *name, int32_t arch,
                         tsl_diag *diag) {
  size_t size = 0;
  char *log = NULL;
  if (nv.api.GetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1) {
    log = malloc(size);
    if (log && nv.api.GetProgramLog(prog, log) != NVRTC_SUCCESS) {
      free(log);
      log = NULL;
    }
  }
  if (log)
    log[size - 1] = '\0';
  int cut = 0;
  size_t len = log ? log_shown(log, &cut) : 0;
  int rc = tsl_diag_set(diag, TSL_EINVALID,
                        "cuda target: NVRTC %d.%d could not compile %s for sm_%d: %s%s%.*s%s",
                        nv.major, nv.minor, name, (int)arch, nvrtc_error(r),
                        len ? "\n" : " (no log)", (int)len, log ? log : "",
                        cut ? "\n[... log cut]" : "");
  free(log);
  return rc;
}

/* PTX (NUL dropped) and cubin of a compiled program into `out`. */
static int take_outputs(nvrtcProgram prog, const char *name, tcu_image *out,
                        tsl_diag *diag) {
  size_t ptx_size = 0, cubin_size = 0;
  nvrtcResult r = nv.api.GetPTXSize(prog, &ptx_size);
  if (r == NVRTC_SUCCESS)
    r = nv.api.GetCUBINSize(prog, &cubin_size);
  if (r != NVRTC_SUCCESS)
    return tsl_diag_set(diag, TSL_ERUNTIME, "cuda target: NVRTC output of %s unreadable: %s",
                        name, nvrtc_error(r));
  out->ptx = malloc(ptx_size + 1);
  out->cubin = cubin_size ? malloc(cubin_size) : NULL;
  if (!out->ptx || (cubin_size && !out->cubin))
    return tsl_diag_set(diag, TSL_ENOMEM,
                        "cuda target: out of memory for the PTX (%zu bytes) and cubin (%zu "
                        "bytes) of %s",
                        ptx_size, cubin_size, name);
  r = nv.api.GetPTX(prog, out->ptx);
  if (r == NVRTC_SUCCESS && cubin_size)
    r = nv.api.GetCUBIN(prog, (char *)out->cubin);
  if (r != NVRTC_SUCCESS)
    return tsl_diag_set(diag, TSL_ERUNTIME, "cuda target: NVRTC output of %s unreadable: %s",
                        name, nvrtc_error(r));
  out->ptx[ptx_size] = '\0';
  out->ptx_len = strlen(out->ptx);
  out->cubin_len = cubin_size;
  return TSL_OK;
}

static int compile(const char *src, const char *name, int32_t arch, tcu_image *out,
                   tsl_diag *diag) {
  char opt_arch[48], opt_include[1100];
  snprintf(opt_arch, sizeof opt_arch, "--gpu-architecture=sm_%d", (int)arch);
  snprintf(opt_include, sizeof opt_include, "--include-path=%s/include", tcu_cuda_home());
  const char *opts[] = {opt_arch, opt_include, "--std=c++17"};
  nvrtcProgram prog = NULL;
  nvrtcResult r = nv.api.CreateProgram(&prog, src, name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS)
    return tsl_diag_set(diag, r == NVRTC_ERROR_OUT_OF_MEMORY ? TSL_ENOMEM : TSL_ERUNTIME,
                        "cuda target: NVRTC could not take the source of %s: %s", name,
                        nvrtc_error(r));
  r = nv.api.CompileProgram(prog, (int)(sizeof opts / sizeof opts[0]), opts);
  int rc = r == NVRTC_SUCCESS ? take_outputs(prog, name, out, diag)
                              : compile_error(prog, r, name, arch, diag);
  nv.api.DestroyProgram(&prog);
  return rc;
}

int tcu_nvrtc_compile(const char *src, const char *name, int32_t arch, tcu_image *out,
                      tsl_diag *diag) {
  if (!out)
    return tsl_diag_set(diag, TSL_EINVALID, "cuda target: NVRTC compile without an output");
  memset(out, 0, sizeof *out);
  if (!src)
    return tsl_diag_set(diag, TSL_EINVALID, "cuda target: NVRTC compile without a source");
  if (!name || !*name)
    name = "tessel_kernels.cu";
  int rc = load(diag);
  if (rc == TSL_OK)
    rc = check_arch(arch, diag);
  if (rc == TSL_OK)
    rc = compile(src, name, arch, out, diag);
  if (rc != TSL_OK)
    tcu_image_free(out);
  return rc;
}

void tcu_image_free(tcu_image *img) {
  if (!img)
    return;
  free(img->ptx);
  free(img->cubin);
  memset(img, 0, sizeof *img);
}
