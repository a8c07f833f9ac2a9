/*
 * The compiled reference's loop order (core/tune/reference.c): the last
 * spatial loop of a reduction nest moved innermost when it indexes only the
 * last dimension of what the block reads and writes; every output exactly
 * as the unscheduled program computes it (the interpreter, bit for bit).
 */
#include "tap.h"
#include "tessel/tessel.h"
#include "tuner_internal.h"

#include <stdio.h>
#include <string.h>

/* The loop names of `block` in the reference schedule, space-separated. */
static void loop_names(tsl_schedule *sch, const char *block, char *out, size_t cap) {
  tsl_diag d = {0};
  tsl_sch_rv b;
  const tsl_sch_rv *loops = NULL;
  uint32_t n = 0;
  out[0] = '\0';
  if (tsl_sch_get_block(sch, block, &b, &d) || tsl_sch_get_loops(sch, b, &loops, &n, &d))
    return;
  for (uint32_t i = 0; i < n; i++) {
    const char *name = tsl_schedule_rv_name(sch, loops[i]);
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s%s", i ? " " : "", name ? name : "?");
  }
}

/* One workload: the loops of `block` after, and the outputs the same. */
static void check(tsl_ctx *ctx, const char *file, const char *block, const char *want) {
  char path[4200], got[512];
  snprintf(path, sizeof path, "%s/workloads/%s", getenv("TESSEL_SOURCE_ROOT"), file);
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  tsl_schedule *sch = NULL;
  if (!ok(!tsl_parse_file(a, path, &m, &d) &&
              !tsl_tune_reference_schedule(ctx, m, m->funcs[0]->name, m->funcs[0], NULL, NULL, &sch, &d),
          "%s: parsed, reference schedule made", file)) {
    tap_diag("%s", d.text);
    tsl_arena_free(a);
    return;
  }
  loop_names(sch, block, got, sizeof got);
  ok(!strcmp(got, want), "  ... block '%s' loops: %s (want %s)", block, got, want);
  tsl_equiv_report rep = {0};
  int rc = tsl_interp_check_equivalent(m->funcs[0], tsl_schedule_func(sch), NULL, 0, 7, &rep,
                                       &d);
  ok(rc == TSL_OK && rep.n_checked > 0 && rep.max_abs_err == 0,
     "  ... the same outputs, bit for bit (%lld elements, largest difference %g)",
     (long long)rep.n_checked, rep.max_abs_err);
  if (rc)
    tap_diag("%s", d.text);
  tsl_schedule_free(sch);
  tsl_arena_free(a);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  /* C[i, j] += A[i, k] * B[k, j]: j walks C and B contiguously */
  check(ctx, "matmul_128.py", "matmul", "i k j");
  /* the output channel walks the output and the HWIO weights */
  check(ctx, "conv2d_nhwc.py", "conv2d_nhwc", "n h w rh rw rc co");
  /* y[i] += A[i, k] * x[k]: i strides A, the nest stays */
  check(ctx, "gemv.py", "gemv", "i k");
  /* no reduction: nothing to move */
  check(ctx, "elementwise_add.py", "T_add", "ax0 ax1");
  tsl_ctx_free(ctx);
  return tap_done();
}
