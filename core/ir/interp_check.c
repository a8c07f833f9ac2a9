/*
 * Equivalence check: run two functions with the same parameter list on the
 * same seeded random arguments and compare every buffer afterwards, with a
 * dtype-aware tolerance. The oracle behind schedule checks.
 */
#include "tessel/interp.h"
#include "tessel/script.h"
#include "interp_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double tsl_equiv_tolerance(tsl_dtype t) {
  if (!tsl_dtype_is_float(t))
    return 0;
  if (t.code == TSL_DT_BFLOAT)
    return 2.5e-1; /* 8-bit mantissa: reordered sums drift by several ulps */
  if (t.bits <= 16)
    return 5e-2; /* 11-bit mantissa */
  if (t.bits == 32)
    return 1e-4;
  return 1e-9;
}

void tsl_tensor_index_text(const tsl_tensor *t, int64_t k, char *buf,
                           size_t cap) {
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

/* Compare the buffers of `a` (ref's run) and `b`; the first difference
 * goes to diag. */
static int compare(const tsl_func *ref, const tsl_arg *a, const tsl_arg *b,
                   tsl_equiv_report *rep, tsl_diag *diag) {
  for (uint32_t p = 0; p < ref->n_params; p++) {
    if (a[p].is_scalar)
      continue;
    const tsl_tensor *x = &a[p].tensor, *y = &b[p].tensor;
    int64_t numel = tsl_tensor_numel(x);
    if (numel != tsl_tensor_numel(y))
      return tsl_diag_set(diag, TSL_EINVALID, "buffer %s has %lld vs %lld elements",
                          ref->params[p].buffer->name, (long long)numel,
                          (long long)tsl_tensor_numel(y));
    double tol = tsl_equiv_tolerance(x->dtype);
    for (int64_t k = 0; k < numel; k++) {
      double u = tsl_tensor_get(x, k), v = tsl_tensor_get(y, k);
      double err = fabs(u - v);
      int bad = isnan(u) != isnan(v) || (!isnan(u) && err > tol * fmax(1.0, fabs(u)));
      if (!isnan(err) && err > rep->max_abs_err)
        rep->max_abs_err = err;
      rep->n_checked++;
      if (bad && !rep->n_mismatched++) {
        char idx[256];
        tsl_tensor_index_text(x, k, idx, sizeof idx);
        tsl_diag_set(diag, TSL_OK, "buffer %s differs at %s: expected %.9g, got %.9g",
                     ref->params[p].buffer->name, idx, u, v);
      }
    }
  }
  return TSL_OK;
}

static const char *order_note(uint32_t order) {
  return order == TSL_INTERP_ORDER_SHUFFLED ? "shuffled" : "reversed";
}

int tsl_interp_check_equivalent(const tsl_func *ref, const tsl_func *got,
                                const tsl_binding *binds, uint32_t n_binds,
                                uint64_t seed, tsl_equiv_report *report,
                                tsl_diag *diag) {
  return tsl_interp_check_equivalent_opts(ref, got, binds, n_binds, seed, NULL,
                                          report, diag);
}

int tsl_interp_check_equivalent_opts(const tsl_func *ref, const tsl_func *got,
                                     const tsl_binding *binds, uint32_t n_binds,
                                     uint64_t seed, const tsl_interp_opts *opts,
                                     tsl_equiv_report *report, tsl_diag *diag) {
  tsl_interp_opts o = {sizeof o, TSL_INTERP_ORDER_NATURAL, 0};
  if (opts)
    memcpy(&o, opts, opts->struct_size < sizeof o ? opts->struct_size : sizeof o);
  uint32_t orders[3], n_orders = 0;
  if (o.loop_order == TSL_INTERP_ORDER_ALL) {
    orders[n_orders++] = TSL_INTERP_ORDER_NATURAL;
    orders[n_orders++] = TSL_INTERP_ORDER_SHUFFLED;
    orders[n_orders++] = TSL_INTERP_ORDER_REVERSED;
  } else {
    orders[n_orders++] = o.loop_order > TSL_INTERP_ORDER_REVERSED
                             ? TSL_INTERP_ORDER_NATURAL
                             : o.loop_order;
  }
  tsl_equiv_report rep = {0};
  if (report)
    *report = rep;
  if (ref->n_params != got->n_params)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "the functions have %u and %u parameters", ref->n_params,
                        got->n_params);
  uint32_t n = ref->n_params;
  tsl_arg *a = calloc(n + 1, sizeof *a), *b = calloc(n + 1, sizeof *b);
  int rc = (!a || !b) ? tsl_diag_set(diag, TSL_ENOMEM, "out of memory") : TSL_OK;
  if (!rc && (rc = tsl_func_make_args(ref, binds, n_binds, seed, a, diag))) {
    free(a);
    free(b);
    return rc;
  }
  tsl_diag sub = {0};
  if (!rc && (rc = tsl_interp_run(ref, a, n, &sub)))
    tsl_diag_set(diag, rc, "original program: %s", sub.text);
  for (uint32_t k = 0; k < n_orders && !rc && !rep.n_mismatched && !rep.got_failed; k++) {
    if ((rc = tsl_func_make_args(got, binds, n_binds, seed, b, diag)))
      break;
    tsl_interp_opts ro = {sizeof ro, orders[k], o.order_seed};
    if ((rc = tsl_interp_run_opts(got, b, n, &ro, &sub))) {
      tsl_diag_set(diag, rc, "transformed program: %s", sub.text);
      rep.got_failed = 1;
    } else {
      rep.n_checked = 0;
      rep.max_abs_err = 0;
      rc = compare(ref, a, b, &rep, diag);
    }
    if ((rep.got_failed || rep.n_mismatched) && orders[k] != TSL_INTERP_ORDER_NATURAL)
      tsl_diag_append(diag,
                      " (iterations of parallel, vectorized and thread-bound loops "
                      "%s, seed %llu: a loop whose iterations are not independent)",
                      order_note(orders[k]), (unsigned long long)o.order_seed);
    tsl_args_free(b, n);
  }
  tsl_args_free(a, n);
  free(a);
  free(b);
  if (report)
    *report = rep;
  if (rep.got_failed)
    return TSL_EINVALID;
  if (rc)
    return rc;
  return rep.n_mismatched ? TSL_EINVALID : TSL_OK;
}
