/*
 * Comparing a measured function's outputs with the reference's: the
 * buffer parameters the source function writes, element by element, with
 * the dtype-aware tolerance of tsl_interp_check_equivalent (integers exact;
 * floats |ref - got| <= tol * max(1, s, |ref|), s the root mean square of
 * the buffer's finite reference values for float32 and float64, 1 for
 * the 16-bit floats, whose relative bound is loose already). A NaN where
 * the reference has a number (or the other way round) is a mismatch of
 * infinite size.
 *
 * The s: a long sum's rounding error grows with the size of the terms,
 * not of the result, and an element that cancels to near zero keeps the
 * error of its neighbours. A 4096-deep float16 product accumulated in
 * float32 on tensor cores (results of RMS 21) is off by up to 9e-4 where
 * a result is near 1, past 1e-4 * max(1, |ref|); an error of the size of
 * one missed term (0.3) is still 140 times past tol * s.
 */
#include "measure_internal.h"
#include "interp_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* float32 outputs, the common case, in one branch-free pass without the
 * generic element reads (a 1024x1024 output: 3 ms instead of 29; with
 * branches 6): 1 when every value is within the tolerance (the largest
 * error in *max_err), 0 when one is not, and then the generic loop below
 * finds and describes it. A NaN against a NaN passes (err is NaN, no
 * comparison holds), a NaN against a number does not. */
static int f32_all_close(const float *ref, const float *got, int64_t n, double tol,
                         double scale, double *max_err) {
  double worst = *max_err;
  int bad = 0;
  for (int64_t k = 0; k < n; k++) {
    double u = ref[k], v = got[k], err = fabs(u - v), au = fabs(u);
    bad |= (err > tol * (au > scale ? au : scale)) | ((u != u) != (v != v));
    worst = err > worst ? err : worst; /* a NaN err leaves it */
  }
  if (!bad)
    *max_err = worst;
  return !bad;
}

/* max(1, the root mean square of the finite values of `t`) for float32
 * and float64, else 1. Summed as (u / largest)^2: float64 squares of
 * values past 1e154 would overflow. */
static double magnitude_scale(const tsl_tensor *t, int64_t n) {
  if (t->dtype.code != TSL_DT_FLOAT || t->dtype.bits < 32)
    return 1;
  int f32 = t->dtype.bits == 32 && t->dtype.lanes == 1;
  double big = 0, sum = 0;
  int64_t count = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int64_t k = 0; k < n; k++) {
      double u = f32 ? ((const float *)t->data)[k] : tsl_tensor_get(t, k);
      if (!isfinite(u))
        continue;
      if (!pass) {
        big = fmax(big, fabs(u));
      } else if (big > 0) {
        sum += (u / big) * (u / big);
        count++;
      }
    }
  double rms = count ? big * sqrt(sum / (double)count) : 0;
  return rms > 1 ? rms : 1;
}

void measure_args_set_ref_scales(measure_args *a) {
  for (uint32_t p = 0; p < a->n_params; p++) {
    a->ref_scale[p] = 1;
    if (a->meta[p].is_scalar || !a->is_output[p])
      continue;
    tsl_tensor ref = a->meta[p].tensor;
    ref.data = a->ref[p];
    if (tsl_equiv_tolerance(ref.dtype) > 0)
      a->ref_scale[p] = magnitude_scale(&ref, tsl_tensor_numel(&ref));
  }
}

void measure_compare(const measure_args *a, const tsl_func *src, tsl_run_result *r) {
  int64_t checked = 0, bad = 0;
  double max_err = 0;
  char first[400] = "";
  for (uint32_t p = 0; p < a->n_params; p++) {
    if (a->meta[p].is_scalar || !a->is_output[p])
      continue;
    tsl_tensor got = a->meta[p].tensor, ref = a->meta[p].tensor;
    got.data = a->work[p];
    ref.data = a->ref[p];
    double tol = tsl_equiv_tolerance(got.dtype);
    int64_t n = tsl_tensor_numel(&got);
    double scale = a->ref_scale[p] > 1 ? a->ref_scale[p] : 1;
    if (got.dtype.code == TSL_DT_FLOAT && got.dtype.bits == 32 && got.dtype.lanes == 1 &&
        f32_all_close(ref.data, got.data, n, tol, scale, &max_err)) {
      checked += n;
      continue;
    }
    for (int64_t k = 0; k < n; k++) {
      double u = tsl_tensor_get(&ref, k), v = tsl_tensor_get(&got, k);
      double err = fabs(u - v);
      int nan_diff = isnan(u) != isnan(v);
      int wrong = nan_diff || (!isnan(u) && err > tol * fmax(scale, fabs(u)));
      if (nan_diff)
        err = INFINITY;
      if (!isnan(err) && err > max_err)
        max_err = err;
      checked++;
      if (wrong && !bad++) {
        char idx[256];
        tsl_tensor_index_text(&got, k, idx, sizeof idx);
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
