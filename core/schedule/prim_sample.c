/*
 * Sampling primitives: sample_perfect_tile and sample_categorical, plus the
 * enter_postproc marker. A given decision is checked and used; otherwise
 * one is drawn from the schedule's generator and recorded.
 */
#include "sch_internal.h"

#include <stdio.h>
#include <string.h>

/* the decision as text, for messages (made only on the error paths) */
static const char *print_ints(char *buf, size_t cap, const tsl_sch_value *v) {
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (uint32_t i = 0; i < v->n && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "",
                          (long long)v->u.items[i].u.i);
  if (n < cap)
    snprintf(buf + n, cap - n, "]");
  return buf;
}

/* TVM's SamplePerfectTile: n factors of `extent` (product == extent). Each
 * prime's exponent is split into n parts uniformly among the compositions
 * (stars and bars; a prime that divides once goes to a uniform position).
 * The distribution is TVM's; its generator is not, so a seed draws other
 * decisions than TVM's. */
static void draw_perfect(tsl_schedule *sch, int64_t extent, int64_t n, int64_t *out) {
  for (int64_t i = 0; i < n; i++)
    out[i] = 1;
  if (n == 1) {
    out[0] = extent;
    return;
  }
  int64_t rest = extent;
  for (int64_t p = 2; rest > 1; p++) {
    if (p * p > rest)
      p = rest;
    int64_t e = 0;
    while (rest % p == 0) {
      rest /= p;
      e++;
    }
    if (e == 0)
      continue;
    if (e == 1) {
      out[sch_rand_below(sch, (uint64_t)n)] *= p;
      continue;
    }
    /* n - 1 distinct bars among the e + n - 1 slots (a partial
     * Fisher-Yates), in order; the gaps between them are the exponents */
    int64_t slots[64 + 16], bars[16], m = e + n - 1;
    for (int64_t i = 0; i < m; i++)
      slots[i] = i;
    for (int64_t i = 0; i < n - 1; i++) {
      int64_t j = i + (int64_t)sch_rand_below(sch, (uint64_t)(m - i));
      int64_t t = slots[i];
      slots[i] = slots[j];
      slots[j] = t;
      bars[i] = slots[i];
    }
    for (int64_t i = 1; i < n - 1; i++)
      for (int64_t j = i; j > 0 && bars[j - 1] > bars[j]; j--) {
        int64_t t = bars[j];
        bars[j] = bars[j - 1];
        bars[j - 1] = t;
      }
    for (int64_t i = 0, last = -1; i < n; i++) {
      int64_t bar = i < n - 1 ? bars[i] : m;
      for (int64_t x = bar - last - 1; x > 0; x--)
        out[i] *= p;
      last = bar;
    }
  }
}

/* With an innermost limit (`max_inner` > 0), TVM draws again until the
 * innermost factor is within it (1 always is). */
static void draw_tile(tsl_schedule *sch, int64_t extent, int64_t n, int64_t max_inner,
                      int64_t *out) {
  do
    draw_perfect(sch, extent, n, out);
  while (max_inner > 0 && out[n - 1] > max_inner);
}

int sch_apply_sample_perfect_tile(sch_call *c) {
  sch_path p;
  int rc = sch_loop_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_stmt *loop = sch_path_target(&p);
  const char *lname = loop->u.loop.loop_var->name;
  int64_t n = c->args[1].u.i, max_inner = c->args[2].u.i, extent;
  if (!tsl_expr_is_const_int(sch_simplify(c, loop->u.loop.extent), &extent))
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' has a non-constant extent; perfect tiling needs "
                    "a constant one",
                    lname);
  if (n < 1 || n > 16)
    return sch_fail(c, TSL_EINVALID, "n = %lld; n must be in 1..16",
                    (long long)n);
  if (extent < 1)
    return sch_fail(c, TSL_EINVALID, "loop '%s' has extent %lld", lname,
                    (long long)extent);
  int64_t f[16];
  if (c->decision.kind != TSL_SV_NONE) {
    const tsl_sch_value *d = &c->decision;
    char txt[256];
    if (d->kind != TSL_SV_LIST || d->n != (uint32_t)n)
      return sch_fail(c, TSL_EINVALID,
                      "decision must be a list of %lld ints (one per tile)",
                      (long long)n);
    int64_t prod = 1;
    for (int64_t i = 0; i < n; i++) {
      f[i] = d->u.items[i].u.i;
      if (f[i] < 1)
        return sch_fail(c, TSL_EINVALID,
                        "decision %s has a factor below 1",
                        print_ints(txt, sizeof txt, d));
      prod = prod > extent ? prod : prod * f[i];
    }
    if (prod != extent)
      return sch_fail(c, TSL_EINVALID,
                      "decision %s does not multiply to the extent %lld of "
                      "loop '%s'",
                      print_ints(txt, sizeof txt, d), (long long)extent, lname);
    if (max_inner > 0 && f[n - 1] > max_inner)
      return sch_fail(c, TSL_EINVALID,
                      "decision %s: innermost factor %lld exceeds "
                      "max_innermost_factor=%lld",
                      print_ints(txt, sizeof txt, d), (long long)f[n - 1], (long long)max_inner);
  } else {
    draw_tile(c->sch, extent, n, max_inner, f);
  }
  tsl_sch_value *items = TSL_NEW_ARRAY(c->arena, tsl_sch_value, (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    items[i] = tsl_sv_int(f[i]);
    sch_out_int(c, f[i]);
  }
  c->decision = tsl_sv_list((uint32_t)n, items);
  return TSL_OK;
}

int sch_apply_sample_categorical(sch_call *c) {
  const tsl_sch_value *cand = &c->args[0], *probs = &c->args[1];
  if (cand->n == 0)
    return sch_fail(c, TSL_EINVALID, "candidates is empty");
  if (cand->n != probs->n)
    return sch_fail(c, TSL_EINVALID,
                    "%u candidates but %u probabilities; give one per candidate",
                    cand->n, probs->n);
  double total = 0;
  for (uint32_t i = 0; i < probs->n; i++) {
    double pr = probs->u.items[i].u.f;
    if (!(pr >= 0))
      return sch_fail(c, TSL_EINVALID,
                      "probability %u is %g; probabilities must be >= 0", i, pr);
    total += pr;
  }
  if (!(total > 0))
    return sch_fail(c, TSL_EINVALID, "the probabilities sum to 0");
  int64_t k;
  if (c->decision.kind != TSL_SV_NONE) {
    if (c->decision.kind != TSL_SV_INT)
      return sch_fail(c, TSL_EINVALID,
                      "decision must be an int (an index into candidates)");
    k = c->decision.u.i;
    if (k < 0 || k >= (int64_t)cand->n)
      return sch_fail(c, TSL_EINVALID,
                      "decision %lld is out of range; valid: 0..%u",
                      (long long)k, cand->n - 1);
  } else {
    double u = (double)(sch_rand_u64(c->sch) >> 11) * 0x1.0p-53 * total;
    k = 0;
    while (k + 1 < (int64_t)cand->n && (u >= probs->u.items[k].u.f ||
                                        probs->u.items[k].u.f == 0)) {
      u -= probs->u.items[k].u.f;
      k++;
    }
  }
  c->decision = tsl_sv_int(k);
  sch_out_int(c, cand->u.items[k].u.i);
  return TSL_OK;
}

int sch_apply_enter_postproc(sch_call *c) {
  c->sch->in_postproc = 1;
  return TSL_OK;
}

/* sample_partitioned_tile: a perfect tile whose factors from partition_pos
 * on multiply to a multiple of innerpart_factor (TVM's
 * SamplePartitionedTile; with partition_pos 0 and innerpart_factor 1 it is
 * sample_perfect_tile without an innermost limit). */
int sch_apply_sample_partitioned_tile(sch_call *c) {
  sch_path p;
  int rc = sch_loop_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_stmt *loop = sch_path_target(&p);
  const char *lname = loop->u.loop.loop_var->name;
  int64_t n = c->args[1].u.i, pos = c->args[2].u.i, inner = c->args[3].u.i, extent;
  if (n < 2 || n > 16)
    return sch_fail(c, TSL_EINVALID, "n = %lld; n must be in 2..16", (long long)n);
  if (pos < 0 || pos >= n)
    return sch_fail(c, TSL_EINVALID,
                    "partition_pos = %lld; it must be in 0..%lld (a tile index)",
                    (long long)pos, (long long)n - 1);
  if (inner < 1)
    return sch_fail(c, TSL_EINVALID, "innerpart_factor = %lld; it must be >= 1",
                    (long long)inner);
  if (!tsl_expr_is_const_int(sch_simplify(c, loop->u.loop.extent), &extent) ||
      extent < 1)
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s' has a non-constant extent; partitioned tiling "
                    "needs a constant one",
                    lname);
  if (extent % inner)
    return sch_fail(c, TSL_EINVALID,
                    "innerpart_factor %lld does not divide the extent %lld of "
                    "loop '%s'",
                    (long long)inner, (long long)extent, lname);
  int64_t f[16];
  if (c->decision.kind != TSL_SV_NONE) {
    const tsl_sch_value *d = &c->decision;
    char txt[256];
    if (d->kind != TSL_SV_LIST || d->n != (uint32_t)n)
      return sch_fail(c, TSL_EINVALID,
                      "decision must be a list of %lld ints (one per tile)",
                      (long long)n);
    int64_t prod = 1, part = 1;
    for (int64_t i = 0; i < n; i++) {
      f[i] = d->u.items[i].u.i;
      if (f[i] < 1)
        return sch_fail(c, TSL_EINVALID, "decision %s has a factor below 1",
                        print_ints(txt, sizeof txt, d));
      prod = prod > extent ? prod : prod * f[i];
      if (i >= pos)
        part = part > extent ? part : part * f[i];
    }
    if (prod != extent)
      return sch_fail(c, TSL_EINVALID,
                      "decision %s does not multiply to the extent %lld of "
                      "loop '%s'",
                      print_ints(txt, sizeof txt, d), (long long)extent, lname);
    if (part % inner)
      return sch_fail(c, TSL_EINVALID,
                      "decision %s: the factors from partition_pos %lld on do "
                      "not multiply to a multiple of innerpart_factor %lld",
                      print_ints(txt, sizeof txt, d), (long long)pos, (long long)inner);
  } else {
    /* as TVM: perfect tiles drawn until one fits (one always does: the
     * draw is uniform enough that the loop ends quickly) */
    for (int tries = 0;; tries++) {
      draw_tile(c->sch, extent, n, 0, f);
      int64_t part = 1;
      for (int64_t i = pos; i < n; i++)
        part *= f[i];
      if (part % inner == 0)
        break;
      if (tries == 1000) { /* a fitting decision: all of `inner` at pos */
        for (int64_t i = 0; i < n; i++)
          f[i] = 1;
        f[0] = extent / inner;
        f[pos] *= inner;
        break;
      }
    }
  }
  tsl_sch_value *items = TSL_NEW_ARRAY(c->arena, tsl_sch_value, (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    items[i] = tsl_sv_int(f[i]);
    sch_out_int(c, f[i]);
  }
  c->decision = tsl_sv_list((uint32_t)n, items);
  return TSL_OK;
}
