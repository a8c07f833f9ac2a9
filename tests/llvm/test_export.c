/*
 * export_library: a scheduled matmul (parallel, vectorized) written as an
 * object file and as a shared library with a C header. The object is an
 * ELF relocatable file holding both symbols; the shared library is
 * dlopen'ed and both entries ("mm_main" with the natural signature and
 * "mm_main_packed") are called and checked against the interpreter. A
 * symbolic-shape program exports too (size variables as int64_t). The
 * object linked by ld directly (link.c) needs the same shared libraries as
 * when the C compiler's driver links it; when ld fails, the driver links
 * and ld is not tried again. A library links libm and the C library only
 * when its object refers to them (a softmax's expf), with the same
 * DT_NEEDED entries as the driver's. Errors: a bad suffix, a bad prefix, a
 * missing C compiler.
 */
#include "llvm_util.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
  tsl_lower_opts lo = {sizeof lo, 1, 0};
  if (tsl_lower_func(a, f, &lo, lf, &d)) {
    tap_diag("%s", d.text);
    return 0;
  }
  return 1;
}

/* The DT_NEEDED entries of the shared library `so`, sorted and joined by
 * spaces into `out` ("" when it cannot be read). */
static void needed_of(const char *so, char *out, size_t cap) {
  out[0] = '\0';
  char *b = NULL;
  size_t n = 0;
  tsl_diag d = {0};
  if (tsl_read_file(so, &b, &n, &d))
    return;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
  const char *names[32];
  int k = 0;
  if (n >= sizeof *eh && eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= n) {
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
      if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum)
        continue;
      const char *str = b + sh[sh[i].sh_link].sh_offset;
      const Elf64_Dyn *dyn = (const Elf64_Dyn *)(b + sh[i].sh_offset);
      for (size_t j = 0; j < sh[i].sh_size / sizeof *dyn && k < 32; j++)
        if (dyn[j].d_tag == DT_NEEDED)
          names[k++] = str + dyn[j].d_un.d_val;
    }
  }
  for (int i = 1; i < k; i++) /* insertion sort */
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      const char *x = names[j];
      names[j] = names[j - 1];
      names[j - 1] = x;
    }
  size_t len = 0;
  for (int i = 0; i < k && len < cap; i++)
    len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? " " : "", names[i]);
  free(b);
}

/* `text` written to `path`; 0 when it was. */
static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  int bad = !f || fputs(text, f) < 0;
  if (f && fclose(f))
    bad = 1;
  return bad;
}

/* The exported object (which carries the thread pool already) linked by
 * ld directly and by the C compiler's driver: the same shared libraries
 * needed, the C library and not libgomp, and both load. */
static void test_direct_link(const char *obj, const char *dir) {
  char so[4300], so_cc[4300], cmd[9000], need[512], need_cc[512];
  snprintf(so, sizeof so, "%s/libdirect.so", dir);
  snprintf(so_cc, sizeof so_cc, "%s/libdriver.so", dir);
  tsl_diag d = {0};
  int direct = 0;
  int rc = tll_link_shared(obj, so, TLL_LINK_C, &direct, &d);
  ok(rc == 0 && direct == 1, "the object linked by ld directly (rc %d, direct %d)", rc, direct);
  if (rc)
    tap_diag("%s", d.text);
  snprintf(cmd, sizeof cmd, "cc -shared -o '%s' '%s' -lm", so_cc, obj);
  int sys = system(cmd);
  needed_of(so, need, sizeof need);
  needed_of(so_cc, need_cc, sizeof need_cc);
  ok(sys == 0 && need[0] && strcmp(need, need_cc) == 0 && strstr(need, "libc.so.6") &&
         !strstr(need, "gomp"),
     "  ... it needs what the driver's library needs: '%s' ('%s')", need, need_cc);
  void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  ok(lib && dlsym(lib, "mm_main_packed"), "  ... and loads, its entries defined");
  if (lib)
    dlclose(lib);
  unlink(so);
  unlink(so_cc);

  /* A compiler whose ld fails (a script that counts its calls): the driver
   * links instead, and direct linking is off for that $CC afterwards. */
  char bin[4300], ld[4400], cc[4400], calls[4400], script[13000];
  snprintf(bin, sizeof bin, "%s/bin", dir);
  snprintf(ld, sizeof ld, "%s/ld", bin);
  snprintf(cc, sizeof cc, "%s/cc", bin);
  snprintf(calls, sizeof calls, "%s/ld-calls", dir);
  mkdir(bin, 0755);
  snprintf(script, sizeof script, "#!/bin/sh\necho x >> '%s'\nexit 1\n", calls);
  int w1 = write_text(ld, script);
  snprintf(script, sizeof script,
           "#!/bin/sh\n"
           "if [ \"$1\" = -print-search-dirs ]; then\n"
           "  cc -print-search-dirs | sed 's|^programs: =|programs: =%s:|'\n"
           "  exit 0\n"
           "fi\n"
           "exec cc \"$@\"\n",
           bin);
  int w2 = write_text(cc, script);
  chmod(ld, 0755);
  chmod(cc, 0755);
  setenv("CC", cc, 1);
  int d1 = -1, d2 = -1;
  int rc1 = tll_link_shared(obj, so, TLL_LINK_C, &d1, &d);
  int rc2 = tll_link_shared(obj, so, TLL_LINK_C, &d2, &d);
  char *log = lt_slurp(calls);
  ok(!w1 && !w2 && rc1 == 0 && rc2 == 0 && d1 == 0 && d2 == 0 && log && !strcmp(log, "x\n"),
     "an ld that fails: the driver links, and ld is not tried again (%d calls)",
     log ? (int)(strlen(log) / 2) : -1);
  free(log);
  char joined[4400];
  snprintf(joined, sizeof joined, "%s/joined.o", dir);
  tsl_diag dj = {0};
  int rc3 = tll_link_with_pool(obj, joined, &dj);
  unsetenv("CC");
  ok(rc3 && strstr(dj.text, "adding the thread pool to the object file failed") &&
         strstr(dj.text, "status 1"),
     "joining the thread pool to an object with that ld is an error: %s", dj.text);
  unlink(joined);
  unlink(calls);
  unlink(ld);
  unlink(cc);
  rmdir(bin);
  unlink(so);
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
  tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
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
    int has_nat = 0, has_packed = 0, has_pool = 0;
    for (size_t i = 0; i + 24 < n; i++) {
      if (!memcmp(bytes + i, "mm_main_packed", 15))
        has_packed = 1;
      else if (!memcmp(bytes + i, "mm_main", 8))
        has_nat = 1;
      else if (!memcmp(bytes + i, "tessel_parallel_launch", 23))
        has_pool = 1;
    }
    ok(has_nat && has_packed, "the object defines mm_main and mm_main_packed");
    ok(has_pool, "  ... and carries the thread pool its parallel loop launches");
  }
  free(bytes);

  if (!rc)
    test_direct_link(obj, dir);

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
  int threads_before = lt_thread_count();
  void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  ok(lib != NULL, "dlopen the library");
  ok(lt_thread_count() == threads_before + 1,
     "  ... whose constructor started its pool's worker (threads %d -> %d)", threads_before,
     lt_thread_count());
  if (!lib) {
    tap_diag("%s", dlerror());
    goto out;
  }
  mm_fn nat = (mm_fn)(uintptr_t)dlsym(lib, "mm_main");
  tsl_packed_fn packed = (tsl_packed_fn)(uintptr_t)dlsym(lib, "mm_main_packed");
  ok(nat && packed, "both symbols are exported");
  ok(!dlsym(lib, "tessel_parallel_launch"), "  ... and the thread pool's are not");
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
  ok(lt_thread_count() == threads_before + 1,
     "the library's parallel loop ran on that worker (threads %d -> %d)", threads_before,
     lt_thread_count());
  dlclose(lib);
  ok(lt_thread_count() == threads_before, "  ... whose worker is joined when it is unloaded");
  /* its fork handler went with it: a fork now runs none of its code */
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0)
    _exit(0);
  int st = -1;
  int waited = pid > 0 && waitpid(pid, &st, 0) == pid;
  ok(waited && WIFEXITED(st) && WEXITSTATUS(st) == 0,
     "  ... and a fork after the unload is clean (status %d)", st);

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

/* The libraries a shared library links follow what its object refers to:
 * the parallel matmul (the thread pool's pthread calls) and a softmax
 * (expf) exported by export_library need what the C compiler's driver
 * links for their objects (libc.so.6, libm.so.6), never libgomp; both load
 * and agree with the interpreter. */
static void test_needed_libs(tsl_target *t, const char *dir) {
  static const struct {
    const char *file, *script, *need;
  } cases[] = {
      {"matmul_64.py", NULL, "libc.so.6"},
      {"softmax.py", NULL, "libm.so.6"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char path[4200], obj[4300], so[4300], so_cc[4300], cmd[9000], need[512], need_cc[512];
    snprintf(path, sizeof path, "%s/workloads/%s", lt_root(), cases[c].file);
    snprintf(obj, sizeof obj, "%s/need.o", dir);
    snprintf(so, sizeof so, "%s/libneed.so", dir);
    snprintf(so_cc, sizeof so_cc, "%s/libneed_cc.so", dir);
    tsl_arena *a = tsl_arena_new(ctx);
    tsl_diag d = {0};
    const tsl_module *m = NULL;
    tsl_schedule *sch = NULL;
    const tsl_lowered_func *lf = NULL;
    int built = !tsl_parse_file(a, path, &m, &d) && !tsl_schedule_new(ctx, m, NULL, &sch, &d) &&
                (c || !tsl_script_run(sch, "mm.sch", mm_par, strlen(mm_par), &d)) &&
                lower_one(a, tsl_schedule_func(sch), &lf);
    const tsl_lowered_func *fl[1] = {lf};
    tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
    built = built && !tll_vtable.export_library(t, &lm, "nd", obj, NULL, &d) &&
            !tll_vtable.export_library(t, &lm, "nd", so, NULL, &d);
    if (!ok(built, "%s exported as .o and .so", cases[c].file)) {
      tap_diag("%s", d.text);
    } else {
      snprintf(cmd, sizeof cmd, "cc -shared -o '%s' '%s' -lm", so_cc, obj);
      int sys = system(cmd);
      needed_of(so, need, sizeof need);
      needed_of(so_cc, need_cc, sizeof need_cc);
      ok(sys == 0 && !strcmp(need, need_cc) && strstr(need, cases[c].need) &&
             !strstr(need, "gomp"),
         "  ... it needs what the driver's library of its object needs: '%s' ('%s')", need,
         need_cc);
      void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
      tsl_packed_fn fn = lib ? (tsl_packed_fn)(uintptr_t)dlsym(lib, "nd_main_packed") : NULL;
      const tsl_func *src = m->funcs[0];
      tsl_arg ref[4], got[4];
      uint32_t n = src->n_params;
      int agree = 0;
      if (fn && n <= 4 && !tsl_func_make_args(src, NULL, 0, 3, ref, &d) &&
          !tsl_func_make_args(src, NULL, 0, 3, got, &d)) {
        tsl_interp_run(src, ref, n, &d);
        lt_packed p;
        lt_pack(lf, got, NULL, 0, &p);
        double err;
        char why[256];
        agree = fn(p.ptrs) == 0 && lt_compare(src, ref, got, &err, why, sizeof why) == 0;
        if (!agree)
          tap_diag("%s", why);
        tsl_args_free(ref, n);
        tsl_args_free(got, n);
      }
      ok(agree, "  ... loads, and its entry agrees with the interpreter");
      if (lib)
        dlclose(lib);
    }
    unlink(obj);
    unlink(so);
    unlink(so_cc);
    tsl_schedule_free(sch);
    tsl_arena_free(a);
  }
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
  tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
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
    test_needed_libs(t, dir);
    test_symbolic(t, dir);
  }
  tll_vtable.destroy(t);
  rmdir(dir);
  tsl_ctx_free(ctx);
  return tap_done();
}
