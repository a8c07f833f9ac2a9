/*
 * Comparing a measured function's outputs with the reference's: the
 * buffer parameters the source function writes, element by element, with
 * the dtype-aware tolerance of tsl_interp_check_equivalent (integers exact;
 * floats |ref - got| <= tol * max(1, |ref|)). A NaN where the reference
 * has a number (or the other way round) is a mismatch of infinite size.
 */
#include "tune_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double tune_tolerance(tsl_dtype t) {
  if (!tsl_dtype_is_float(t))
    return 0;
  if (t.code == TSL_DT_BFLOAT)
    return 2.5e-1;
  if (t.bits <= 16)
    return 5e-2;
  if (t.bits == 32)
    return 1e-4;
  return 1e-9;
}

static void index_text(const tsl_tensor *t, int64_t k, char *buf, size_t cap) {
  int64_t idx[TSL_MAX_NDIM];
  for (int32_t d = t->ndim; d-- > 0;) {
    idx[d] = t->shape[d] ? k % t->shape[d] : 0;
    k = t->shape[d] ? k / t->shape[d] : 0;
  }
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int32_t d = 0; d < t->ndim && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "", (long long)idx[d]);
  if (n < cap)
    snprintf(buf + n, cap - n, "]");
}

void tune_compare(const tune_args *a, const tsl_func *src, tsl_run_result *r) {
  int64_t checked = 0, bad = 0;
  double max_err = 0;
  char first[400] = "";
  for (uint32_t p = 0; p < a->n_params; p++) {
    if (a->meta[p].is_scalar || !a->is_output[p])
      continue;
    tsl_tensor got = a->meta[p].tensor, ref = a->meta[p].tensor;
    got.data = a->work[p];
    ref.data = a->ref[p];
    double tol = tune_tolerance(got.dtype);
    int64_t n = tsl_tensor_numel(&got);
    for (int64_t k = 0; k < n; k++) {
      double u = tsl_tensor_get(&ref, k), v = tsl_tensor_get(&got, k);
      double err = fabs(u - v);
      int nan_diff = isnan(u) != isnan(v);
      int wrong = nan_diff || (!isnan(u) && err > tol * fmax(1.0, fabs(u)));
      if (nan_diff)
        err = INFINITY;
      if (!isnan(err) && err > max_err)
        max_err = err;
      checked++;
      if (wrong && !bad++) {
        char idx[256];
        index_text(&got, k, idx, sizeof idx);
        snprintf(first, sizeof first, "buffer %s differs at %s: expected %.9g, got %.9g",
                 src->params[p].buffer->name, idx, u, v);
      }
    }
  }
  r->max_abs_err = max_err;
  r->n_mismatched = bad;
  r->check = bad ? TSL_CHECK_MISMATCH : TSL_CHECK_OK;
  if (bad)
    snprintf(r->error, sizeof r->error, "%s (%lld of %lld values differ, max abs error %.3g)",
             first, (long long)bad, (long long)checked, max_err);
}
