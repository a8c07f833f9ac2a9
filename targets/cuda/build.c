/*
 * targets/cuda/build.c — builds for measurement and exported libraries.
 *
 * Both compile the kernels with NVRTC (a cubin for the instance's sm_XY and
 * the PTX) and the host side with the system C compiler. A build is a
 * temporary shared library, loaded and deleted (the mapping stays), that
 * gets its image through <prefix>_set_image; an export carries its image
 * inside and writes the PTX beside it.
 */
#include "cuda_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tessel/runner.h"

struct tsl_kernel {
  void *handle;
  tcu_image image;
  char *emu_image; /* "tessel-emu:<library>" under TESSEL_CUDA_EMULATE */
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int write_file(const char *path, const char *text, size_t n, tsl_diag *diag) {
  FILE *f = fopen(path, "wb");
  int bad = !f || fwrite(text, 1, n, f) != n;
  if ((f && fclose(f)) || bad)
    return tsl_diag_set(diag, TSL_EIO, "cuda target: cannot write %s", path);
  return TSL_OK;
}

typedef struct nvrtc_reply {
  int32_t rc;
  uint64_t ptx_len, cubin_len;
  char text[sizeof(((tsl_diag *)0)->text)];
} nvrtc_reply;

static int write_all(int fd, const void *p, size_t n) {
  for (const char *c = p; n;) {
    ssize_t w = write(fd, c, n);
    if (w <= 0)
      return -1;
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

static int read_all(int fd, void *p, size_t n) {
  for (char *c = p; n;) {
    ssize_t r = read(fd, c, n);
    if (r <= 0)
      return -1;
    c += r;
    n -= (size_t)r;
  }
  return 0;
}

static void nvrtc_child(int fd, const char *src, const char *name, int32_t arch) {
  tcu_image img = {0};
  tsl_diag d = {0};
  nvrtc_reply r = {0};
  r.rc = tcu_nvrtc_compile(src, name, arch, &img, &d);
  r.ptx_len = r.rc ? 0 : img.ptx_len;
  r.cubin_len = r.rc ? 0 : img.cubin_len;
  memcpy(r.text, d.text, sizeof r.text);
  int bad = write_all(fd, &r, sizeof r) || write_all(fd, img.ptx, r.ptx_len) ||
            write_all(fd, img.cubin, r.cubin_len);
  _exit(bad);
}

/* NVRTC in a child process: with a driver installed it initialises CUDA
 * (nvrtcCompileProgram calls cuInit), and a process that has done so cannot
 * hand CUDA to the measurement workers it forks later. */
static int nvrtc_isolated(const char *src, const char *name, int32_t arch, tcu_image *img,
                          tsl_diag *diag) {
  int fds[2];
  if (pipe(fds))
    return tsl_diag_set(diag, TSL_EIO, "cuda target: pipe for NVRTC failed");
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    nvrtc_child(fds[1], src, name, arch);
  }
  close(fds[1]);
  nvrtc_reply r;
  int rc = pid < 0 ? -1 : read_all(fds[0], &r, sizeof r);
  if (!rc && !r.rc) {
    img->ptx = malloc(r.ptx_len + 1);
    img->cubin = malloc(r.cubin_len + 1);
    rc = !img->ptx || !img->cubin || read_all(fds[0], img->ptx, r.ptx_len) ||
         read_all(fds[0], img->cubin, r.cubin_len);
    if (img->ptx)
      img->ptx[rc ? 0 : r.ptx_len] = 0;
    img->ptx_len = rc ? 0 : r.ptx_len;
    img->cubin_len = rc ? 0 : r.cubin_len;
  }
  close(fds[0]);
  int status = 0;
  if (pid > 0)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  if (rc) {
    tcu_image_free(img);
    if (pid > 0 && WIFSIGNALED(status))
      return tsl_diag_set(diag, TSL_ERUNTIME, "cuda target: NVRTC died of signal %d compiling %s",
                          WTERMSIG(status), name);
    return tsl_diag_set(diag, TSL_EIO, "cuda target: no answer from the NVRTC process for %s",
                        name);
  }
  if (r.rc)
    return tsl_diag_set(diag, r.rc, "%s", r.text);
  return TSL_OK;
}

/* The kernels of `m` compiled by NVRTC, and the host C source. */
static int emulate(const tcu_program *p, const tsl_strbuf *dev, const char *beside,
                   char **emu_image, tsl_diag *diag);

/* `embed`: the path of an export (its image goes inside), or NULL. */
static int generate(tsl_target *t, const tsl_lowered_module *m, const char *prefix,
                    const char *embed,
                    tcu_image *img, tsl_strbuf *host, char **emu_image, tsl_build_stats *stats,
                    tsl_diag *diag) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = ctx ? tsl_arena_new(ctx) : NULL;
  tcu_program p;
  tsl_strbuf dev;
  tsl_strbuf_init(&dev);
  double t0 = now();
  int rc = arena ? tcu_program_make(arena, m, prefix, &p, diag)
                 : tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  rc = rc ? rc : tcu_emit_device(&p, &dev, diag);
  double t1 = now();
  if (!rc)
    rc = nvrtc_isolated(dev.data, prefix, t->arch, img, diag);
  double t2 = now();
  if (!rc && emu_image)
    rc = emulate(&p, &dev, embed ? embed : NULL, emu_image, diag);
  if (!rc) { /* an emulated export carries the emulator's image */
    size_t n = emu_image && *emu_image ? strlen(*emu_image) : 0;
    char *e = emu_image ? *emu_image : NULL;
    tcu_image emu = {e, n, (unsigned char *)e, n};
    rc = tcu_emit_host(&p, !embed ? NULL : n ? &emu : img, t->arch, host, diag);
  }
  if (arena) {
    tcu_program_free(&p);
    tsl_arena_free(arena);
  }
  tsl_ctx_free(ctx);
  tsl_strbuf_free(&dev);
  if (stats && stats->struct_size >= sizeof *stats) {
    stats->codegen_s = t1 - t0;
    stats->optimize_s = t2 - t1;
  }
  return rc;
}

/* Compile the host C `src` into `path` (a shared library or an object);
 * the source stays at `path`.c when the compiler fails. */
static int compile_host(tsl_target *t, const tsl_strbuf *src, const char *path, int shared,
                        tsl_diag *diag) {
  char cmd[13000], cfile[4200], log[4200], *text = NULL;
  size_t len;
  snprintf(cfile, sizeof cfile, "%s.c", path);
  snprintf(log, sizeof log, "%s.log", path);
  snprintf(cmd, sizeof cmd, "%s -std=gnu11 -O2 -fPIC %s -o '%s' '%s' %s 2>'%s'", t->cc,
           shared ? "-shared" : "-c", path, cfile, shared ? "-ldl -lpthread" : "", log);
  int rc = write_file(cfile, src->data, src->len, diag);
  if (!rc && system(cmd) != 0) {
    tsl_read_file(log, &text, &len, NULL);
    rc = tsl_diag_set(diag, TSL_ERUNTIME, "cuda target: the host code did not compile: "
                      "`%s`:\n%.1500s", cmd, text ? text : "(no output)");
    free(text);
  }
  if (!rc)
    remove(cfile);
  remove(log);
  return rc;
}

/* Tests only: the kernels compiled for the emulator of tests/cuda/emu (its
 * folder in TESSEL_CUDA_EMULATE) by the host C++ compiler, into a library
 * named by *emu_image ("tessel-emu:<path>", the image its fake libcuda
 * loads). For the host that compiles it (-march=native): float16 converts
 * with F16C's instructions, not libgcc's calls, 3 times faster in all. */
static int emulate(const tcu_program *p, const tsl_strbuf *dev, const char *beside,
                   char **emu_image, tsl_diag *diag) {
  char path[4200] = "/tmp/tessel-cuda-emu-XXXXXX", src[4300], log[4300], cmd[13000];
  char *text = NULL;
  size_t len;
  if (beside) { /* an export's: PATH.emu.so */
    snprintf(path, sizeof path, "%s.emu.so", beside);
  } else {
    int fd = mkstemp(path);
    if (fd < 0)
      return tsl_diag_set(diag, TSL_EIO, "cuda target: mkstemp %s failed", path);
    close(fd);
  }
  snprintf(src, sizeof src, "%s.cc", path);
  snprintf(log, sizeof log, "%s.log", path);
  snprintf(cmd, sizeof cmd, "c++ -std=c++17 -O1 -march=native -w -shared -fPIC -I'%s' "
           "-include cuda_emu.h -o '%s' '%s' -lm 2>'%s'", getenv("TESSEL_CUDA_EMULATE"), path,
           src, log);
  tsl_strbuf all;
  tsl_strbuf_init(&all);
  tsl_strbuf_append_n(&all, dev->data, dev->len);
  int rc = tcu_emit_emu_wrappers(p, &all, diag);
  rc = rc ? rc : write_file(src, all.data, all.len, diag);
  tsl_strbuf_free(&all);
  if (!rc && system(cmd) != 0) {
    tsl_read_file(log, &text, &len, NULL);
    rc = tsl_diag_set(diag, TSL_ERUNTIME, "cuda target: the emulator's kernels did not compile: "
                      "`%s`:\n%.1500s", cmd, text && *text ? text : "(no output)");
    free(text);
  }
  if (!rc) /* kept beside the library when the compiler fails */
    remove(src);
  remove(log);
  size_t n = strlen("tessel-emu:") + strlen(path) + 1;
  if (!rc && !(*emu_image = malloc(n)))
    rc = tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  if (rc)
    remove(path);
  else
    snprintf(*emu_image, n, "tessel-emu:%s", path);
  return rc;
}

int tcu_build(tsl_target *t, const tsl_lowered_module *m, tsl_kernel **out,
              tsl_build_stats *stats, tsl_diag *diag) {
  *out = NULL;
  tsl_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  tsl_strbuf host;
  tsl_strbuf_init(&host);
  char path[] = "/tmp/tessel-cuda-XXXXXX";
  const char *emu = getenv("TESSEL_CUDA_EMULATE");
  int rc = generate(t, m, "k", NULL, &k->image, &host, emu && *emu ? &k->emu_image : NULL, stats,
                    diag);
  double t0 = now();
  int fd = rc ? -1 : mkstemp(path);
  if (!rc && fd < 0)
    rc = tsl_diag_set(diag, TSL_EIO, "cuda target: mkstemp %s failed", path);
  rc = rc ? rc : compile_host(t, &host, path, 1, diag);
  if (!rc && !(k->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
    rc = tsl_diag_set(diag, TSL_EIO, "cuda target: dlopen %s: %s", path, dlerror());
  if (fd >= 0) {
    close(fd);
    remove(path);
  }
  tsl_strbuf_free(&host);
  void (*set_image)(const void *, const char *) = NULL;
  if (!rc)
    *(void **)&set_image = dlsym(k->handle, "k_set_image");
  if (!rc && !set_image)
    rc = tsl_diag_set(diag, TSL_EIO, "cuda target: the host library lacks k_set_image");
  if (rc) {
    tcu_kernel_free(k);
    return rc;
  }
  if (k->emu_image)
    set_image(k->emu_image, k->emu_image);
  else
    set_image(k->image.cubin, k->image.ptx);
  if (stats && stats->struct_size >= sizeof *stats)
    stats->jit_s = now() - t0;
  *out = k;
  return TSL_OK;
}

tsl_packed_fn tcu_lookup(tsl_kernel *k, const char *name) {
  char sym[512];
  snprintf(sym, sizeof sym, "k_%s_packed", name);
  union { void *p; tsl_packed_fn fn; } u = {dlsym(k->handle, sym)};
  return u.fn;
}

void tcu_kernel_free(tsl_kernel *k) {
  if (!k)
    return;
  if (k->handle)
    dlclose(k->handle);
  tcu_image_free(&k->image);
  if (k->emu_image)
    remove(k->emu_image + strlen("tessel-emu:"));
  free(k->emu_image);
  free(k);
}

/* `path` with its extension replaced by `ext` ("libmm.so" -> "libmm.ptx"). */
static void beside(char *out, size_t cap, const char *path, const char *ext) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
  snprintf(out, cap, "%.*s%s", (int)n, path, ext);
}

int tcu_export(tsl_target *t, const tsl_lowered_module *m, const char *prefix,
               const char *path, const char *header_path, tsl_diag *diag) {
  tcu_image img = {0};
  tsl_strbuf host;
  tsl_strbuf_init(&host);
  size_t n = strlen(path);
  char ptx[4200];
  beside(ptx, sizeof ptx, path, ".ptx");
  const char *emu = getenv("TESSEL_CUDA_EMULATE");
  char *emu_image = NULL;
  int rc = generate(t, m, prefix, path, &img, &host, emu && *emu ? &emu_image : NULL, NULL, diag);
  free(emu_image);
  rc = rc ? rc : compile_host(t, &host, path, n > 3 && !strcmp(path + n - 3, ".so"), diag);
  rc = rc ? rc : write_file(ptx, img.ptx, img.ptx_len, diag);
  char *h = rc || !header_path ? NULL : tsl_export_header(m, prefix);
  tsl_strbuf hs;
  tsl_strbuf_init(&hs);
  tsl_strbuf_printf(&hs, "/* cuda target: every buffer argument is a device pointer "
                    "(cuMemAlloc's), aligned to 16 bytes: vector accesses assume it. */\n%s",
                    h ? h : "");
  if (!rc && header_path)
    rc = h ? write_file(header_path, hs.data, hs.len, diag)
           : tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  tsl_strbuf_free(&hs);
  free(h);
  tsl_strbuf_free(&host);
  tcu_image_free(&img);
  return rc;
}
