/*
 * tests/llvm/llvm_util.h — helpers shared by the LLVM target tests: target
 * instances from "key=value" strings, packed argument arrays, comparing a
 * compiled function against the reference interpreter on seeded random
 * inputs (the tolerance of tsl_interp_check_equivalent), loading programs
 * and schedule scripts.
 */
#ifndef TESSEL_TESTS_LLVM_UTIL_H
#define TESSEL_TESTS_LLVM_UTIL_H

#include "llvm_internal.h"
#include "tap.h"
#include "tessel/tessel.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "threads=2 opt-level=3" -> key/value pairs pointing into `buf` (tokens
 * without '=' are skipped); returns how many, at most `cap`. */
static inline uint32_t lt_parse_kv(const char *spec, char *buf, size_t size, tsl_kv *kv,
                                   uint32_t cap) {
  char *save = NULL;
  uint32_t n = 0;
  snprintf(buf, size, "%s", spec ? spec : "");
  for (char *tok = strtok_r(buf, " ", &save); tok && n < cap; tok = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq)
      continue;
    *eq = '\0';
    kv[n].key = tok;
    kv[n++].value = eq + 1;
  }
  return n;
}

/* "threads=2 opt-level=3" -> a target, or NULL with the message in `d` and
 * create()'s status in *rc (rc may be NULL). */
static inline tsl_target *lt_target_rc(const char *spec, tsl_diag *d, int *rc) {
  tsl_kv kv[16];
  char buf[512];
  uint32_t n = lt_parse_kv(spec, buf, sizeof buf, kv, 16);
  tsl_target *t = NULL;
  int st = tll_vtable.create(NULL, n, kv, &t, d);
  if (rc)
    *rc = st;
  return st ? NULL : t;
}

static inline tsl_target *lt_target(const char *spec, tsl_diag *d) {
  return lt_target_rc(spec, d, NULL);
}

/* Programs that run code for the default CPU ($TESSEL_LLVM_MCPU, else the
 * host's) call this first. It says which CPU the code is built for; when
 * the host cannot run that CPU's code (tests/llvm/meson.build runs some
 * programs again for x86-64-v2 and x86-64-v3), the program is one skipped
 * case saying why, and exits. */
static inline void lt_announce_cpu(void) {
  tsl_diag d = {0};
  int rc = 0;
  tsl_target *t = lt_target_rc("threads=1", &d, &rc);
  if (rc == TSL_EUNSUPPORTED) {
    tap_skip(d.text, "code for the CPU of TESSEL_LLVM_MCPU, run on this host");
    exit(tap_done());
  }
  if (t)
    tap_diag("code built for, and run on, this host: %s", tll_vtable.describe(t));
  else
    tap_diag("no default target: %s", d.text);
  tll_vtable.destroy(t);
}

static inline char *lt_slurp(const char *path) {
  char *s = NULL;
  size_t n;
  tsl_diag d = {0};
  return tsl_read_file(path, &s, &n, &d) == TSL_OK ? s : NULL;
}

/* The threads of this process (entries of /proc/self/task), or -1. */
static inline int lt_thread_count(void) {
  DIR *dir = opendir("/proc/self/task");
  if (!dir)
    return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(dir));)
    n += e->d_name[0] != '.';
  closedir(dir);
  return n;
}

static inline const char *lt_root(void) {
  const char *r = getenv("TESSEL_SOURCE_ROOT");
  return r ? r : ".";
}

static inline int64_t lt_bind(const tsl_binding *b, uint32_t n,
                              const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(b[i].name, name))
      return b[i].value;
  return 0;
}

/* The packed argument array for `lf` over `args` (made for lf->source). */
typedef struct lt_packed {
  void *ptrs[64];
  int64_t ints[64];
  double flts[64];
} lt_packed;

static inline void lt_pack(const tsl_lowered_func *lf, tsl_arg *args,
                           const tsl_binding *binds, uint32_t n_binds,
                           lt_packed *p) {
  uint32_t k = 0;
  for (; k < lf->n_params && k < 64; k++) {
    if (lf->params[k].buffer) {
      p->ptrs[k] = args[k].tensor.data;
    } else if (tsl_dtype_is_float(lf->params[k].var->dtype)) {
      p->flts[k] = args[k].float_value;
      p->ptrs[k] = &p->flts[k];
    } else {
      p->ints[k] = args[k].int_value;
      p->ptrs[k] = &p->ints[k];
    }
  }
  for (uint32_t s = 0; s < lf->n_size_vars && k < 64; s++, k++) {
    p->ints[k] = lt_bind(binds, n_binds, lf->size_vars[s]->name);
    p->ptrs[k] = &p->ints[k];
  }
}

/* Compare every buffer parameter; returns elements outside tolerance. */
static inline int64_t lt_compare(const tsl_func *f, tsl_arg *ref, tsl_arg *got,
                                 double *max_err, char *why, size_t whylen) {
  int64_t bad = 0;
  *max_err = 0;
  if (why && whylen)
    why[0] = '\0';
  for (uint32_t k = 0; k < f->n_params; k++) {
    if (ref[k].is_scalar)
      continue;
    const tsl_tensor *a = &ref[k].tensor, *b = &got[k].tensor;
    double tol = tsl_equiv_tolerance(a->dtype);
    int64_t n = tsl_tensor_numel(a);
    for (int64_t i = 0; i < n; i++) {
      double x = tsl_tensor_get(a, i), y = tsl_tensor_get(b, i);
      double err = fabs(x - y);
      if (x != x && y != y)
        continue;
      if (err > *max_err || err != err)
        *max_err = err != err ? INFINITY : err;
      int okv = tol == 0 ? x == y : err <= tol * fmax(1.0, fabs(x));
      if (!okv) {
        if (!bad && why)
          snprintf(why, whylen, "buffer %s differs at flat index %lld: "
                   "expected %.9g, got %.9g",
                   f->params[k].buffer->name, (long long)i, x, y);
        bad++;
      }
    }
  }
  return bad;
}

/* Build `sched` (lowered with `vectorize`) with target `t`, run it on
 * random inputs and compare with the interpreter running `ref`. One TAP
 * case named `id`. Returns 1 when it passed. With `expect_error`, the case
 * passes when the build fails with a message containing it. */
static inline int lt_check_ex(tsl_target *t, tsl_ctx *ctx, const tsl_func *ref,
                              const tsl_func *sched, const tsl_binding *binds,
                              uint32_t n_binds, int vectorize, const char *id,
                              const char *expect_error) {
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_lowered_func *lf = NULL;
  tsl_lower_opts lo = {sizeof lo, vectorize, 0};
  tsl_kernel *k = NULL;
  tsl_arg ra[64], ga[64];
  int made = 0, passed = 0;
  uint32_t np = ref->n_params;
  if (np > 64) {
    ok(0, "%s: at most 64 parameters", id);
    goto out;
  }
  if (tsl_lower_func(arena, sched, &lo, &lf, &d)) {
    ok(0, "%s: lowers", id);
    tap_diag("%s", d.text);
    goto out;
  }
  const tsl_lowered_func *fl[1] = {lf};
  tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
  tsl_build_stats st = {sizeof st, 0, 0, 0};
  int brc = tll_vtable.build(t, &lm, &k, &st, &d);
  if (expect_error) {
    passed = brc != 0 && strstr(d.text, expect_error) != NULL;
    ok(passed, "%s: the build fails naming '%s'", id, expect_error);
    tap_diag("%s", brc ? d.text : "(it built)");
    goto out;
  }
  if (brc) {
    ok(0, "%s: builds", id);
    tap_diag("%s", d.text);
    goto out;
  }
  tsl_packed_fn fn = tll_vtable.lookup(k, lf->name);
  if (!fn) {
    ok(0, "%s: lookup of '%s'", id, lf->name);
    goto out;
  }
  if (tsl_func_make_args(ref, binds, n_binds, 7, ra, &d) ||
      tsl_func_make_args(ref, binds, n_binds, 7, ga, &d)) {
    ok(0, "%s: arguments", id);
    tap_diag("%s", d.text);
    goto out;
  }
  made = 1;
  if (tsl_interp_run(ref, ra, np, &d)) {
    ok(0, "%s: the interpreter runs the reference", id);
    tap_diag("%s", d.text);
    goto out;
  }
  lt_packed p;
  lt_pack(lf, ga, binds, n_binds, &p);
  int32_t rc = fn(p.ptrs);
  double err;
  char why[512];
  int64_t bad = rc ? -1 : lt_compare(ref, ra, ga, &err, why, sizeof why);
  passed = rc == 0 && bad == 0;
  ok(passed, "%s: compiled code agrees with the interpreter (max err %.2g)",
     id, rc ? 0.0 : err);
  if (rc)
    tap_diag("the call returned %d", (int)rc);
  else if (bad)
    tap_diag("%lld elements differ; %s", (long long)bad, why);
  if (!passed) {
    char *s = tsl_lowered_print(lf);
    tap_diag("lowered:\n%s", s ? s : "?");
    free(s);
  }
out:
  if (made) {
    tsl_args_free(ra, np);
    tsl_args_free(ga, np);
  }
  tll_vtable.kernel_free(k);
  tsl_arena_free(arena);
  return passed;
}

static inline int lt_check(tsl_target *t, tsl_ctx *ctx, const tsl_func *ref,
                           const tsl_func *sched, const tsl_binding *binds,
                           uint32_t n_binds, int vectorize, const char *id) {
  return lt_check_ex(t, ctx, ref, sched, binds, n_binds, vectorize, id, NULL);
}

/* `program` (a path under the source root) scheduled by the script file
 * `script` (likewise) and lowered into `a` with `lo`; NULL, with `d` set,
 * on failure. The caller frees *sch. */
static inline const tsl_lowered_func *lt_lower_scripted(tsl_ctx *ctx, tsl_arena *a,
                                                        const char *program, const char *script,
                                                        const tsl_lower_opts *lo,
                                                        tsl_schedule **sch, tsl_diag *d) {
  char prog[4200], path[4200];
  const tsl_module *m = NULL;
  const tsl_lowered_func *lf = NULL;
  if ((size_t)snprintf(prog, sizeof prog, "%s/%s", lt_root(), program) >= sizeof prog ||
      (size_t)snprintf(path, sizeof path, "%s/%s", lt_root(), script) >= sizeof path) {
    tsl_diag_set(d, TSL_EIO, "%s: path too long", script);
    return NULL;
  }
  char *text = lt_slurp(path);
  if (!text)
    tsl_diag_set(d, TSL_EIO, "%s: cannot read", path);
  else if (!tsl_parse_file(a, prog, &m, d) && !tsl_schedule_new(ctx, m, NULL, sch, d) &&
           !tsl_script_run(*sch, path, text, strlen(text), d))
    tsl_lower_func(a, tsl_schedule_func(*sch), lo, &lf, d);
  free(text);
  return lf;
}

/* `lf` through the target's codegen and O3 (no backend) into a module of
 * `lc`, the stage times in *st; NULL, with `d` set, on failure. */
static inline LLVMModuleRef lt_optimize(tsl_target *t, const tsl_lowered_func *lf,
                                        LLVMContextRef lc, tsl_build_stats *st, tsl_diag *d) {
  LLVMTargetMachineRef tm = NULL;
  LLVMModuleRef mod = NULL;
  if (tll_target_machine(&t->opts, 1, &tm, d))
    return NULL;
  const tsl_lowered_func *fl[1] = {lf};
  tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
  *st = (tsl_build_stats){sizeof *st, -1, -1, -1};
  if (tll_compile(lc, &t->opts, tm, &lm, "w", &mod, st, d) && mod) {
    LLVMDisposeModule(mod);
    mod = NULL;
  }
  LLVMDisposeTargetMachine(tm);
  return mod;
}

#endif /* TESSEL_TESTS_LLVM_UTIL_H */
