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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tessel/runner.h"

struct tsl_kernel {
  void *handle;
  tcu_image image;
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

/* The kernels of `m` compiled by NVRTC, and the host C source. */
static int generate(tsl_target *t, const tsl_lowered_module *m, const char *prefix, int embed,
                    tcu_image *img, tsl_strbuf *host, tsl_build_stats *stats, tsl_diag *diag) {
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
    rc = tcu_nvrtc_compile(dev.data, prefix, t->arch, img, diag);
  double t2 = now();
  if (!rc)
    rc = tcu_emit_host(&p, embed ? img : NULL, t->arch, host, diag);
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

int tcu_build(tsl_target *t, const tsl_lowered_module *m, tsl_kernel **out,
              tsl_build_stats *stats, tsl_diag *diag) {
  *out = NULL;
  tsl_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  tsl_strbuf host;
  tsl_strbuf_init(&host);
  char path[] = "/tmp/tessel-cuda-XXXXXX";
  int rc = generate(t, m, "k", 0, &k->image, &host, stats, diag);
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
  int rc = generate(t, m, prefix, 1, &img, &host, NULL, diag);
  rc = rc ? rc : compile_host(t, &host, path, n > 3 && !strcmp(path + n - 3, ".so"), diag);
  rc = rc ? rc : write_file(ptx, img.ptx, img.ptx_len, diag);
  char *h = rc || !header_path ? NULL : tsl_export_header(m, prefix);
  if (!rc && header_path)
    rc = h ? write_file(header_path, h, strlen(h), diag)
           : tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  free(h);
  tsl_strbuf_free(&host);
  tcu_image_free(&img);
  return rc;
}
