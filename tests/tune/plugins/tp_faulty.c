/*
 * tests/tune/plugins/tp_faulty.c — the target "faulty" for the tuner's fault
 * tests: the llvm target (linked in) with faults injected into chosen
 * candidates, as real generated code or real build failures.
 *
 * Options (the rest go to llvm):
 *   faults: a comma list of outcomes, e.g. "ok,segv,hang,wrong"; a
 *           candidate gets entry (hash of its lowered text) mod length:
 *     ok          built unchanged
 *     segv        a store far outside the output buffer first (SIGSEGV)
 *     hang        a loop of 2^40 dependent float adds first
 *     wrong       only C[0] is written: fast and wrong
 *     build_error export fails with a message
 *     build_crash the build worker raises SIGSEGV
 *     build_hang  the build worker sleeps forever
 *   log:    a file that gets one line "HASH OUTCOME" per export
 * Only exports (what the tuner builds) are faulty; in-process builds are
 * llvm's.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llvm_internal.h"
#include "tessel/plugin.h"

enum { OK, SEGV, HANG, WRONG, BUILD_ERROR, BUILD_CRASH, BUILD_HANG, N_OUTCOMES };
static const char *const k_outcomes[N_OUTCOMES] = {
    "ok", "segv", "hang", "wrong", "build_error", "build_crash", "build_hang"};

#define MAX_FAULTS 32

typedef struct faulty {
  tsl_target *inner;
  tsl_ctx *ctx;
  int n_faults;
  int faults[MAX_FAULTS];
  char log[1024];
  char describe[1024];
} faulty;

static int parse_faults(faulty *f, const char *list, tsl_diag *diag) {
  const char *p = list;
  while (*p) {
    size_t n = strcspn(p, ",");
    int k = 0;
    while (k < N_OUTCOMES && !(strlen(k_outcomes[k]) == n && !strncmp(p, k_outcomes[k], n)))
      k++;
    if (k == N_OUTCOMES || f->n_faults == MAX_FAULTS)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "faulty: faults: unknown outcome '%.*s'; valid: ok, segv, "
                          "hang, wrong, build_error, build_crash, build_hang",
                          (int)n, p);
    f->faults[f->n_faults++] = k;
    p += n + (p[n] == ',');
  }
  if (f->n_faults == 0)
    return tsl_diag_set(diag, TSL_EINVALID, "faulty: faults: empty list");
  return TSL_OK;
}

static int f_create(void *ud, uint32_t n_opts, const tsl_kv *opts, tsl_target **out,
                    tsl_diag *diag) {
  (void)ud;
  faulty *f = calloc(1, sizeof *f);
  tsl_kv *rest = calloc(n_opts + 1, sizeof *rest);
  uint32_t n_rest = 0;
  int rc = f && rest ? TSL_OK : tsl_diag_set(diag, TSL_ENOMEM, "faulty: out of memory");
  for (uint32_t i = 0; !rc && i < n_opts; i++) {
    if (!strcmp(opts[i].key, "faults"))
      rc = parse_faults(f, opts[i].value, diag);
    else if (!strcmp(opts[i].key, "log"))
      snprintf(f->log, sizeof f->log, "%s", opts[i].value);
    else
      rest[n_rest++] = opts[i];
  }
  if (!rc && f->n_faults == 0)
    rc = tsl_diag_set(diag, TSL_EINVALID, "faulty: the option 'faults' is required");
  if (!rc)
    rc = tll_vtable.create(NULL, n_rest, rest, &f->inner, diag);
  free(rest);
  if (rc) {
    free(f);
    return rc;
  }
  f->ctx = tsl_ctx_new();
  snprintf(f->describe, sizeof f->describe, "faulty %s", tll_vtable.describe(f->inner));
  *out = (tsl_target *)f;
  return TSL_OK;
}

static void f_destroy(tsl_target *t) {
  faulty *f = (faulty *)t;
  if (!f)
    return;
  tll_vtable.destroy(f->inner);
  tsl_ctx_free(f->ctx);
  free(f);
}

static const char *f_describe(tsl_target *t) { return ((faulty *)t)->describe; }

static uint64_t lowered_hash(const tsl_lowered_func *lf) {
  char *text = tsl_lowered_print(lf);
  uint64_t h = 1469598103934665603ull;
  for (const char *p = text ? text : ""; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  free(text);
  return h;
}

/* The output: the last buffer parameter. */
static const tsl_buffer *output_of(const tsl_lowered_func *lf) {
  for (uint32_t i = lf->n_params; i-- > 0;)
    if (lf->params[i].buffer)
      return lf->params[i].buffer;
  return NULL;
}

/* The faulty version of `lf` in `a` (lf itself for ok and the build faults). */
static const tsl_lowered_func *inject(tsl_arena *a, const tsl_lowered_func *lf, int outcome) {
  const tsl_buffer *c = output_of(lf);
  if (!c || outcome == OK || outcome >= BUILD_ERROR)
    return lf;
  tsl_dtype t = c->dtype;
  const tsl_stmt *body = lf->body;
  if (outcome == SEGV) {
    const tsl_expr *far = tsl_expr_int(a, TSL_INT64, (int64_t)1 << 36);
    const tsl_stmt *s[2] = {tsl_stmt_store(a, c, tsl_expr_float(a, t, 1), 1, &far), body};
    body = tsl_stmt_seq(a, 2, s);
  } else if (outcome == HANG) {
    const tsl_var *v = tsl_var_new(a, "spin", TSL_INT64);
    const tsl_expr *zero = tsl_expr_int(a, TSL_INT64, 0);
    const tsl_expr *sum = tsl_expr_binary(a, TSL_EXPR_ADD, tsl_expr_load(a, c, 1, &zero),
                                          tsl_expr_float(a, t, 1));
    const tsl_stmt *loop = tsl_stmt_for(
        a, v, zero, tsl_expr_int(a, TSL_INT64, (int64_t)1 << 40), TSL_FOR_SERIAL, NULL,
        (tsl_attrs){0, NULL}, tsl_stmt_store(a, c, sum, 1, &zero));
    const tsl_stmt *s[2] = {loop, body};
    body = tsl_stmt_seq(a, 2, s);
  } else if (outcome == WRONG) {
    const tsl_expr *zero = tsl_expr_int(a, TSL_INT64, 0);
    body = tsl_stmt_store(a, c, tsl_expr_float(a, t, 12345), 1, &zero);
  }
  tsl_lowered_func *g = tsl_arena_alloc(a, sizeof *g);
  *g = *lf;
  g->body = body;
  return g;
}

static int f_export(tsl_target *t, const tsl_lowered_module *m, const char *prefix,
                    const char *path, const char *header, tsl_diag *diag) {
  faulty *f = (faulty *)t;
  if (m->n_funcs != 1)
    return tll_vtable.export_library(f->inner, m, prefix, path, header, diag);
  uint64_t h = lowered_hash(m->funcs[0]);
  int outcome = f->faults[h % (uint64_t)f->n_faults];
  if (f->log[0]) {
    int fd = open(f->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      char line[64];
      int n = snprintf(line, sizeof line, "%016llx %s\n", (unsigned long long)h,
                       k_outcomes[outcome]);
      if (write(fd, line, (size_t)n) != n)
        fprintf(stderr, "faulty: short write to %s\n", f->log);
      close(fd);
    }
  }
  if (outcome == BUILD_ERROR)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "faulty: injected build error");
  if (outcome == BUILD_CRASH)
    raise(SIGSEGV);
  if (outcome == BUILD_HANG)
    for (;;)
      pause();
  tsl_arena *a = tsl_arena_new(f->ctx);
  const tsl_lowered_func *one[1] = {inject(a, m->funcs[0], outcome)};
  tsl_lowered_module fm = {sizeof fm, 1, one, 0, NULL};
  int rc = tll_vtable.export_library(f->inner, &fm, prefix, path, header, diag);
  tsl_arena_free(a);
  return rc;
}

static int f_build(tsl_target *t, const tsl_lowered_module *m, tsl_kernel **out,
                   tsl_build_stats *stats, tsl_diag *diag) {
  return tll_vtable.build(((faulty *)t)->inner, m, out, stats, diag);
}

static tsl_packed_fn f_lookup(tsl_kernel *k, const char *name) {
  return tll_vtable.lookup(k, name);
}

static void f_kernel_free(tsl_kernel *k) { tll_vtable.kernel_free(k); }

static const tsl_target_vtable k_vtable = {
    .struct_size = sizeof(tsl_target_vtable),
    .create = f_create,
    .destroy = f_destroy,
    .describe = f_describe,
    .build = f_build,
    .lookup = f_lookup,
    .kernel_free = f_kernel_free,
    .export_library = f_export,
    .time_calls = NULL,
    .space_defaults = &tll_space_defaults, /* llvm's space */
};

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {
      .struct_size = sizeof(tsl_component),
      .kind = TSL_COMPONENT_TARGET,
      .name = "faulty",
      .version = "0.1.0",
      .summary = "test target: llvm with injected crashes, hangs and wrong results",
      .vtable = &k_vtable,
      .user_data = NULL,
  };
  return host->register_component(session, &c, diag);
}
