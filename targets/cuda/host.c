/*
 * targets/cuda/host.c — the host side of a CUDA program as C: what runs
 * between the kernels (loops, conditions, lets, global allocations) and
 * the launches, with a small loader that opens libcuda.so.1 itself, loads
 * the image once per CUDA context (the cubin, else the PTX) and keeps the
 * text of the last failure.
 */
#include "cuda_internal.h"

#include <stdio.h>
#include <string.h>

#include "tessel/analysis.h"

/* %P is the prefix; the rest is plain C. */
static const char loader[] =
    "#include <dlfcn.h>\n#include <pthread.h>\n#include <stdbool.h>\n#include <stddef.h>\n"
    "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n"
    "typedef int CUresult;\n"
    "typedef struct tsl_kref { const char *name; void *fn; } tsl_kref;\n"
    "static struct {\n"
    "  void *lib;\n"
    "  CUresult (*init)(unsigned), (*ctx_get)(void **), (*dev_get)(int *, int);\n"
    "  CUresult (*retain)(void **, int), (*ctx_set)(void *), (*load)(void **, const void *);\n"
    "  CUresult (*get_fn)(void **, void *, const char *), (*drv_version)(int *);\n"
    "  CUresult (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,\n"
    "                     unsigned, void *, void **, void **);\n"
    "  CUresult (*alloc)(unsigned long long *, size_t), (*free_)(unsigned long long);\n"
    "  CUresult (*set_attr)(void *, int, int);\n"
    "  CUresult (*err_name)(CUresult, const char **), (*err_str)(CUresult, const char **);\n"
    "} tsl_cu;\n"
    "static const void *tsl_cubin;\nstatic const char *tsl_ptx;\n"
    "static void *tsl_module, *tsl_module_ctx;\n"
    "static pthread_mutex_t tsl_lock = PTHREAD_MUTEX_INITIALIZER;\n"
    "static __thread char tsl_error[2048];\n\n"
    "const char *%P_last_error(void) { return tsl_error; }\n"
    "void %P_set_image(const void *cubin, const char *ptx) { tsl_cubin = cubin; tsl_ptx = ptx; }\n\n"
    "static const char *tsl_cu_text(CUresult r) {\n"
    "  static __thread char t[256];\n"
    "  const char *n = \"?\", *s = \"?\";\n"
    "  if (tsl_cu.err_name) tsl_cu.err_name(r, &n);\n"
    "  if (tsl_cu.err_str) tsl_cu.err_str(r, &s);\n"
    "  snprintf(t, sizeof t, \"%s (%s)\", n ? n : \"?\", s ? s : \"?\");\n"
    "  return t;\n}\n\n"
    "static int tsl_fail(CUresult r, const char *what) {\n"
    "  snprintf(tsl_error, sizeof tsl_error, \"%P: %s: %s\", what, tsl_cu_text(r));\n"
    "  return r ? (int)r : -1;\n}\n\n"
    "#define TSL_SYM(f, s) if (!(*(void **)&tsl_cu.f = dlsym(tsl_cu.lib, s))) return -1;\n"
    "static int tsl_open(void) {\n"
    "  if (tsl_cu.lib) return 0;\n"
    "  void *lib = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n"
    "  if (!lib) {\n"
    "    const char *e = dlerror();\n"
    "    snprintf(tsl_error, sizeof tsl_error, \"no CUDA device: libcuda.so.1 not found (%s)\",\n"
    "             e ? e : \"?\");\n"
    "    return -1;\n  }\n"
    "  tsl_cu.lib = lib;\n"
    "  TSL_SYM(err_name, \"cuGetErrorName\") TSL_SYM(err_str, \"cuGetErrorString\")\n"
    "  TSL_SYM(init, \"cuInit\") TSL_SYM(ctx_get, \"cuCtxGetCurrent\")\n"
    "  TSL_SYM(dev_get, \"cuDeviceGet\") TSL_SYM(retain, \"cuDevicePrimaryCtxRetain\")\n"
    "  TSL_SYM(ctx_set, \"cuCtxSetCurrent\") TSL_SYM(load, \"cuModuleLoadData\")\n"
    "  TSL_SYM(get_fn, \"cuModuleGetFunction\") TSL_SYM(launch, \"cuLaunchKernel\")\n"
    "  TSL_SYM(alloc, \"cuMemAlloc_v2\") TSL_SYM(free_, \"cuMemFree_v2\")\n"
    "  TSL_SYM(drv_version, \"cuDriverGetVersion\") TSL_SYM(set_attr, \"cuFuncSetAttribute\")\n"
    "  CUresult r = tsl_cu.init(0);\n"
    "  return r ? tsl_fail(r, \"no CUDA device: cuInit failed\") : 0;\n}\n\n"
    "/* The kernels of this library in the calling thread's context (device\n"
    " * 0's primary context when it has none), loaded once per context. */\n"
    "static int tsl_load(tsl_kref *k, int n) {\n"
    "  pthread_mutex_lock(&tsl_lock);\n"
    "  int rc = tsl_open();\n"
    "  void *ctx = NULL;\n"
    "  CUresult r = rc ? 0 : tsl_cu.ctx_get(&ctx);\n"
    "  if (!rc && !r && !ctx) {\n"
    "    int dev = 0;\n"
    "    r = tsl_cu.dev_get(&dev, 0);\n"
    "    r = r ? r : tsl_cu.retain(&ctx, dev);\n"
    "    r = r ? r : tsl_cu.ctx_set(ctx);\n"
    "  }\n"
    "  if (!rc && r) rc = tsl_fail(r, \"no CUDA context\");\n"
    "  if (!rc && (!tsl_module || tsl_module_ctx != ctx)) {\n"
    "    void *m = NULL;\n"
    "    CUresult rb = tsl_cubin ? tsl_cu.load(&m, tsl_cubin) : 1, rp = 0;\n"
    "    if (rb) rp = tsl_ptx ? tsl_cu.load(&m, tsl_ptx) : 1;\n"
    "    if (rb && rp) {\n"
    "      int v = 0;\n"
    "      tsl_cu.drv_version(&v);\n"
    "      char b[400];\n"
    "      snprintf(b, sizeof b, \"cannot load the kernels: the cubin for %A: %s; the PTX of \"\n"
    "               \"NVRTC %N needs a driver of CUDA %N or newer, this driver is CUDA %d.%d\",\n"
    "               tsl_cu_text(rb), v / 1000, v % 1000 / 10);\n"
    "      rc = tsl_fail(rp, b);\n"
    "    }\n"
    "    for (int i = 0; !rc && i < n; i++)\n"
    "      if ((r = tsl_cu.get_fn(&k[i].fn, m, k[i].name))) rc = tsl_fail(r, k[i].name);\n"
    "    if (!rc) { tsl_module = m; tsl_module_ctx = ctx; }\n"
    "  }\n"
    "  pthread_mutex_unlock(&tsl_lock);\n"
    "  return rc;\n}\n\n"
    "/* smem: the dynamic shared memory; beyond 48 KiB the kernel must opt in\n"
    " * (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES). */\n"
    "static int tsl_launch(tsl_kref *k, long long g0, long long g1, long long g2, long long b0,\n"
    "                      long long b1, long long b2, long long smem, void **args) {\n"
    "  if (g0 < 1 || g1 < 1 || g2 < 1 || b0 < 1 || b1 < 1 || b2 < 1) return 0; /* no threads */\n"
    "  CUresult r = smem > 49152 ? tsl_cu.set_attr(k->fn, 8, (int)smem) : 0;\n"
    "  if (r) return tsl_fail(r, \"dynamic shared memory beyond 48 KiB\");\n"
    "  r = tsl_cu.launch(k->fn, (unsigned)g0, (unsigned)g1, (unsigned)g2, (unsigned)b0,\n"
    "                    (unsigned)b1, (unsigned)b2, (unsigned)smem, NULL, args, NULL);\n"
    "  if (!r) return 0;\n"
    "  char b[300];\n"
    "  snprintf(b, sizeof b, \"launch of %s with grid (%lld, %lld, %lld) and block (%lld, %lld, \"\n"
    "           \"%lld)\", k->name, g0, g1, g2, b0, b1, b2);\n"
    "  return tsl_fail(r, b);\n}\n\n"
    "static int tsl_alloc(void **p, long long bytes) {\n"
    "  unsigned long long d = 0;\n"
    "  CUresult r = tsl_cu.alloc(&d, (size_t)(bytes > 0 ? bytes : 1));\n"
    "  *p = (void *)(uintptr_t)d;\n"
    "  return r ? tsl_fail(r, \"cuMemAlloc of a temporary buffer\") : 0;\n}\n\n"
    "static void tsl_free(void *p) { if (p) tsl_cu.free_((unsigned long long)(uintptr_t)p); }\n\n";

/* The loader with %P, %A (sm_XY) and %N (NVRTC's version) filled in. */
static void write_loader(tsl_strbuf *sb, const char *prefix, int32_t arch, const char *nvrtc) {
  for (const char *p = loader; *p; p++) {
    if (p[0] == '%' && (p[1] == 'P' || p[1] == 'A' || p[1] == 'N')) {
      if (p[1] == 'P')
        tsl_strbuf_append(sb, prefix);
      else if (p[1] == 'A')
        tsl_strbuf_printf(sb, "sm_%d", (int)arch);
      else
        tsl_strbuf_append(sb, nvrtc);
      p++;
    } else {
      tsl_strbuf_append_n(sb, p, 1);
    }
  }
}

typedef struct host_state {
  const tcu_program *p;
  uint32_t func;       /* index of the function being written */
  uint32_t first;      /* index in tsl_k of its first kernel */
} host_state;

static void launch(tcu_emitter *em, const tcu_kernel *k, uint32_t index) {
  tcu_out(em, "if (!rc_) {\nvoid *a_[] = {");
  const tsl_buffer *const *bufs = k->buffers.data;
  const tsl_var *const *vars = k->vars.data;
  for (uint32_t i = 0; i < k->buffers.len; i++)
    tcu_out(em, "%s&%b", i ? ", " : "", bufs[i]);
  for (uint32_t i = 0; i < k->vars.len; i++)
    tcu_out(em, "%s&%v", i || k->buffers.len ? ", " : "", vars[i]);
  if (!k->buffers.len && !k->vars.len)
    tcu_out(em, "0");
  tcu_out(em, "};\nrc_ = tsl_launch(&tsl_k[%d]", (int)index);
  for (int d = 0; d < TCU_N_DIMS; d++)
    if (k->extent[d])
      tcu_out(em, ", (long long)%e", k->extent[d]);
    else
      tcu_out(em, ", 1");
  tcu_out(em, ", %dLL, a_);\n}\n", (int)k->dyn_smem);
}

static void host_stmt(tcu_emitter *em, const tsl_stmt *s) {
  host_state *h = em->user;
  const tsl_buffer *b = s->u.alloc.buffer;
  switch (s->kind) {
  case TSL_STMT_FOR: {
    const tsl_vec *ks = &h->p->kernels[h->func];
    for (uint32_t i = 0; i < ks->len; i++)
      if (TSL_VEC_DATA(ks, tcu_kernel)[i].root == s)
        return launch(em, &TSL_VEC_DATA(ks, tcu_kernel)[i], h->first + i);
    return (void)tcu_stmt_common(em, s);
  }
  case TSL_STMT_IF: case TSL_STMT_LET: case TSL_STMT_SEQ:
    return (void)tcu_stmt_common(em, s);
  case TSL_STMT_ALLOCATE: /* global memory of the device */
    return tcu_out(em, "{\n%t *%b = NULL;\nif (!rc_) rc_ = tsl_alloc((void **)&%b, "
                   "(long long)sizeof(%t) * (long long)(%e));\n%Stsl_free(%b);\n}\n", b->dtype, b,
                   b, b->dtype, b->shape[0], s->u.alloc.body, b);
  default: /* tcu_find_kernels refused the rest */
    return tcu_fail(em, "statement", tsl_stmt_kind_name((tsl_stmt_kind)s->kind));
  }
}

static void entries(tcu_emitter *em, const tsl_lowered_func *f) {
  host_state *h = em->user;
  uint32_t n = f->n_params + f->n_size_vars;
  tcu_out(em, "int32_t %s_%s(", h->p->prefix, f->name);
  for (uint32_t k = 0; k < n; k++) {
    const tsl_param *p = k < f->n_params ? &f->params[k] : NULL;
    const tsl_var *v = p ? p->var : f->size_vars[k - f->n_params];
    if (p && p->buffer)
      tcu_out(em, "%s%t *%b", k ? ", " : "", p->buffer->dtype, p->buffer);
    else
      tcu_out(em, "%s%t %v", k ? ", " : "", p ? v->dtype : TSL_INT64, v);
  }
  tcu_out(em, "%s) {\nint rc_ = tsl_load(tsl_k, (int)(sizeof tsl_k / sizeof *tsl_k));\n%S"
          "return rc_;\n}\n", n ? "" : "void", f->body);
  tcu_out(em, "int32_t %s_%s_packed(void *const *args) {\n(void)args;\nreturn %s_%s(",
          h->p->prefix, f->name, h->p->prefix, f->name);
  for (uint32_t k = 0; k < n; k++) {
    const tsl_param *p = k < f->n_params ? &f->params[k] : NULL;
    const tsl_var *v = p ? p->var : f->size_vars[k - f->n_params];
    if (p && p->buffer)
      tcu_out(em, "%sargs[%d]", k ? ", " : "", (int)k);
    else
      tcu_out(em, "%s(%t)*(const %s *)args[%d]", k ? ", " : "", p ? v->dtype : TSL_INT64,
              p && v->dtype.code == TSL_DT_FLOAT ? "double" : "int64_t", (int)k);
  }
  tcu_out(em, ");\n}\n\n");
}

static void embed_bytes(tsl_strbuf *sb, const char *name, const unsigned char *data, size_t n) {
  tsl_strbuf_printf(sb, "static const unsigned char %s[%zu] = {", name, n + 1);
  for (size_t i = 0; i < n; i++)
    tsl_strbuf_printf(sb, "%s%u,", i % 24 ? "" : "\n", data[i]);
  tsl_strbuf_append(sb, "0};\n");
}

int tcu_emit_host(const tcu_program *p, const tcu_image *embed, int32_t arch, tsl_strbuf *out,
                  tsl_diag *diag) {
  int32_t major = 0, minor = 0;
  char nvrtc[32];
  tcu_nvrtc_version(&major, &minor, NULL);
  snprintf(nvrtc, sizeof nvrtc, "%d.%d", (int)major, (int)minor);
  write_loader(out, p->prefix, arch, nvrtc);
  tsl_strbuf_append(out, tcu_prelude_host);
  tsl_strbuf_append(out, "\nstatic tsl_kref tsl_k[] = {");
  uint32_t total = 0;
  for (uint32_t i = 0; i < p->n_funcs; i++)
    for (uint32_t k = 0; k < p->kernels[i].len; k++, total++)
      tsl_strbuf_printf(out, "%s{\"%s\", NULL}", total ? ", " : "",
                        TSL_VEC_DATA(&p->kernels[i], tcu_kernel)[k].name);
  tsl_strbuf_append(out, total ? "};\n\n" : "{NULL, NULL}};\n\n");
  if (!total) /* nothing to load: a function without kernels */
    tsl_strbuf_append(out, "#define tsl_load(k, n) 0\n");
  if (embed) {
    embed_bytes(out, "tsl_cubin_data", embed->cubin, embed->cubin_len);
    embed_bytes(out, "tsl_ptx_data", (const unsigned char *)embed->ptx, embed->ptx_len);
    tsl_strbuf_append(out, "__attribute__((constructor)) static void tsl_image(void) {\n"
                           "  tsl_cubin = tsl_cubin_data;\n  tsl_ptx = (const char *)"
                           "tsl_ptx_data;\n}\n\n");
  }
  host_state h = {p, 0, 0};
  tcu_emitter em = {.sb = out, .diag = diag, .host = 1, .stmt = host_stmt, .user = &h};
  for (uint32_t i = 0; i < p->n_funcs && !em.rc; i++) {
    h.func = i;
    em.f = p->funcs[i];
    entries(&em, p->funcs[i]);
    h.first += p->kernels[i].len;
  }
  return em.rc;
}
