/*
 * export_library: a scheduled matmul (parallel, vectorized) written as an
 * object file and as a shared library with a C header. The object is an
 * ELF relocatable file holding both symbols; the shared library is
 * dlopen'ed and both entries ("mm_main" with the natural signature and
 * "mm_main_packed") are called and checked against the interpreter. A
 * symbolic-shape program exports too (size variables as int64_t). Errors:
 * a bad suffix, a bad prefix, a missing C compiler.
 */
#include "llvm_util.h"

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

static tsl_ctx *ctx;

static const char *mm_par =
    "b = sch.get_block(\"C\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "j0, j1 = sch.split(j, [None, 16])\n"
    "sch.reorder(i, j0, k, j1)\n"
    "sch.parallel(i)\n"
    "sch.vectorize(j1)\n";

typedef int32_t (*mm_fn)(const float *, const float *, float *);

static int lower_one(tsl_arena *a, const tsl_func *f,
                     const tsl_lowered_func **lf) {
  tsl_diag d = {0};
  tsl_lower_opts lo = {sizeof lo, 1};
  if (tsl_lower_func(a, f, &lo, lf, &d)) {
    tap_diag("%s", d.text);
    return 0;
  }
  return 1;
}

static void test_matmul(tsl_target *t, const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/matmul_64.py", lt_root());
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  tsl_schedule *sch = NULL;
  const tsl_lowered_func *lf = NULL;
  if (!ok(!tsl_parse_file(a, path, &m, &d) &&
              !tsl_schedule_new(ctx, m, NULL, &sch, &d) &&
              !tsl_script_run(sch, "mm.sch", mm_par, strlen(mm_par), &d) &&
              lower_one(a, tsl_schedule_func(sch), &lf),
          "matmul_64 scheduled and lowered")) {
    tap_diag("%s", d.text);
    goto out;
  }
  const tsl_lowered_func *fl[1] = {lf};
  tsl_lowered_module lm = {sizeof lm, 1, fl};
  char obj[4300], so[4300], hdr[4300];
  snprintf(obj, sizeof obj, "%s/mm.o", dir);
  snprintf(so, sizeof so, "%s/libmm.so", dir);
  snprintf(hdr, sizeof hdr, "%s/libmm.h", dir);

  int rc = tll_vtable.export_library(t, &lm, "mm", obj, NULL, &d);
  ok(rc == 0, "export to .o");
  if (rc)
    tap_diag("%s", d.text);
  char *bytes = NULL;
  size_t n = 0;
  tsl_diag rd = {0};
  if (!rc && !tsl_read_file(obj, &bytes, &n, &rd)) {
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)bytes;
    ok(n > sizeof *eh && !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
           eh->e_type == ET_REL && eh->e_machine == EM_X86_64,
       "the object is an x86-64 ELF relocatable file");
    int has_nat = 0, has_packed = 0;
    for (size_t i = 0; i + 16 < n; i++) {
      if (!memcmp(bytes + i, "mm_main_packed", 15))
        has_packed = 1;
      else if (!memcmp(bytes + i, "mm_main", 8))
        has_nat = 1;
    }
    ok(has_nat && has_packed, "the object defines mm_main and mm_main_packed");
  }
  free(bytes);

  rc = tll_vtable.export_library(t, &lm, "mm", so, hdr, &d);
  ok(rc == 0, "export to .so with a header");
  if (rc) {
    tap_diag("%s", d.text);
    goto out;
  }
  char *h = lt_slurp(hdr);
  ok(h && strstr(h, "mm_main(") && strstr(h, "mm_main_packed("),
     "the header declares both entries");
  free(h);
  void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  ok(lib != NULL, "dlopen the library");
  if (!lib) {
    tap_diag("%s", dlerror());
    goto out;
  }
  mm_fn nat = (mm_fn)(uintptr_t)dlsym(lib, "mm_main");
  tsl_packed_fn packed = (tsl_packed_fn)(uintptr_t)dlsym(lib, "mm_main_packed");
  ok(nat && packed, "both symbols are exported");
  tsl_arg ref[3], got[3];
  const tsl_func *src = m->funcs[0];
  tsl_func_make_args(src, NULL, 0, 5, ref, &d);
  tsl_interp_run(src, ref, 3, &d);
  for (int pass = 0; pass < 2 && nat && packed; pass++) {
    tsl_func_make_args(src, NULL, 0, 5, got, &d);
    int32_t r;
    if (pass == 0) {
      r = nat(got[0].tensor.data, got[1].tensor.data, got[2].tensor.data);
    } else {
      lt_packed p;
      lt_pack(lf, got, NULL, 0, &p);
      r = packed(p.ptrs);
    }
    double err;
    char why[256];
    int64_t bad = lt_compare(src, ref, got, &err, why, sizeof why);
    ok(r == 0 && bad == 0, "%s entry of the .so agrees with the interpreter",
       pass ? "packed" : "natural");
    if (bad)
      tap_diag("%s", why);
    tsl_args_free(got, 3);
  }
  tsl_args_free(ref, 3);
  dlclose(lib);

  rc = tll_vtable.export_library(t, &lm, "mm", "/tmp/x.dll", NULL, &d);
  ok(rc && strstr(d.text, ".o") && strstr(d.text, ".so"),
     "a path without .o / .so is refused: %s", d.text);
  rc = tll_vtable.export_library(t, &lm, "1mm", obj, NULL, &d);
  ok(rc && strstr(d.text, "C identifier"), "a bad prefix is refused: %s",
     d.text);
  setenv("CC", "/nonexistent/cc", 1);
  rc = tll_vtable.export_library(t, &lm, "mm", so, NULL, &d);
  unsetenv("CC");
  ok(rc && strstr(d.text, "C compiler"), "a missing C compiler is a clear "
                                         "error: %s",
     d.text);
  unlink(obj);
  unlink(so);
  unlink(hdr);
out:
  tsl_schedule_free(sch);
  tsl_arena_free(a);
}

typedef int32_t (*dyn_fn)(const float *, const float *, float *, int64_t);

static void test_symbolic(tsl_target *t, const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/matmul_dynamic.py", lt_root());
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  const tsl_lowered_func *lf = NULL;
  if (!ok(!tsl_parse_file(a, path, &m, &d) && lower_one(a, m->funcs[0], &lf),
          "matmul_dynamic lowered") ||
      !ok(lf->n_size_vars == 1, "one size variable")) {
    tsl_arena_free(a);
    return;
  }
  const tsl_lowered_func *fl[1] = {lf};
  tsl_lowered_module lm = {sizeof lm, 1, fl};
  char so[4300];
  snprintf(so, sizeof so, "%s/libdyn.so", dir);
  int rc = tll_vtable.export_library(t, &lm, "dyn", so, NULL, &d);
  ok(rc == 0, "symbolic program exports");
  void *lib = rc ? NULL : dlopen(so, RTLD_NOW | RTLD_LOCAL);
  dyn_fn fn = lib ? (dyn_fn)(uintptr_t)dlsym(lib, "dyn_main") : NULL;
  ok(fn != NULL, "dyn_main found");
  for (int64_t mv = 1; fn && mv <= 75; mv += 37) {
    tsl_binding b = {"m", mv};
    tsl_arg ref[3], got[3];
    tsl_func_make_args(m->funcs[0], &b, 1, 9, ref, &d);
    tsl_func_make_args(m->funcs[0], &b, 1, 9, got, &d);
    tsl_interp_run(m->funcs[0], ref, 3, &d);
    int32_t r = fn(got[0].tensor.data, got[1].tensor.data, got[2].tensor.data, mv);
    double err;
    char why[256];
    ok(r == 0 && lt_compare(m->funcs[0], ref, got, &err, why, sizeof why) == 0,
       "m = %lld: the exported function agrees with the interpreter",
       (long long)mv);
    tsl_args_free(ref, 3);
    tsl_args_free(got, 3);
  }
  if (lib)
    dlclose(lib);
  unlink(so);
  tsl_arena_free(a);
}

int main(void) {
  ctx = tsl_ctx_new();
  char dir[] = "/tmp/tessel-llvm-export-XXXXXX";
  if (!ok(mkdtemp(dir) != NULL, "temporary directory"))
    return tap_done();
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=2", &d);
  ok(t != NULL, "target");
  if (t) {
    test_matmul(t, dir);
    test_symbolic(t, dir);
  }
  tll_vtable.destroy(t);
  rmdir(dir);
  tsl_ctx_free(ctx);
  return tap_done();
}
