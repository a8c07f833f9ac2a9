/*
 * MutateTileSize and MutateUnroll, as TVM's mutators: they change one
 * decision of a candidate's trace (its sketch part: the instructions
 * before enter_postproc) and keep everything else.
 *   MutateTileSize: a sample_perfect_tile decision of two or more factors
 *     with a product of at least 2 moves a divisor of one factor to
 *     another (the innermost kept within max_innermost_factor), or a
 *     cooperative-fetch vector length is redrawn.
 *   MutateUnroll: the sample behind a meta_schedule.unroll_explicit /
 *     unroll_implicit annotation takes another of its candidates, drawn by
 *     their probabilities.
 *   MutateComputeLocation: a sample_compute_location takes another of the
 *     locations its block has where the trace reaches it (found by
 *     replaying the trace before it on the workload).
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct tsl_trace_mutator {
  int32_t which; /* 0 MutateTileSize, 1 MutateUnroll, 2 MutateComputeLocation */
} dec_mutator;

static int create(const char *name, int which, uint32_t n, const tsl_kv *opts,
                  tsl_trace_mutator **out, tsl_diag *diag) {
  int rc = rule_create_plain(name, n, opts, sizeof **out, (void **)out, diag);
  if (!rc)
    (*out)->which = which;
  return rc;
}

static int mts_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_trace_mutator **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return create("MutateTileSize", 0, n, opts, out, diag);
}

static int mu_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                     tsl_trace_mutator **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return create("MutateUnroll", 1, n, opts, out, diag);
}

static int mcl_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_trace_mutator **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return create("MutateComputeLocation", 2, n, opts, out, diag);
}

static void m_destroy(tsl_trace_mutator *m) { free(m); }

/* ---- helpers ------------------------------------------------------------------- */

static int is_inst(const tsl_trace_inst *in, const char *name) {
  return !strcmp(in->kind->name, name);
}

/* An annotate instruction's key, or NULL. */
static const char *ann_key(const tsl_trace_inst *in) {
  return is_inst(in, "annotate") && in->args[1].kind == TSL_SV_STR ? in->args[1].u.s : NULL;
}

/* The instruction whose output is `rv` (a sample_categorical), or -1. */
static int64_t producer_of(const tsl_trace *t, tsl_sch_rv rv) {
  for (uint32_t i = 0; i < tsl_trace_len(t); i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    if (is_inst(in, "sample_categorical") && in->n_outs == 1 && in->outs[0] == rv)
      return i;
  }
  return -1;
}


/* The sketch part of `t` with instruction i's decision replaced. */
static int with_decision(const tsl_trace *t, uint32_t i, tsl_sch_value d, tsl_trace **out,
                         tsl_diag *diag) {
  tsl_trace *r = tsl_trace_before_postproc(t);
  if (!r)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  int rc = tsl_trace_set_decision(r, i, &d, diag);
  if (rc) {
    tsl_trace_free(r);
    return rc;
  }
  *out = r;
  return TSL_OK;
}

/* ---- MutateTileSize -------------------------------------------------------------- */

enum { MAX_CANDS = 256, MAX_TILES = 16 };

static int mutate_tiles(const tsl_trace *t, uint32_t i, uint64_t *rng, tsl_trace **out,
                        tsl_diag *diag) {
  const tsl_trace_inst *in = tsl_trace_get(t, i);
  const tsl_sch_value *d = &in->decision;
  uint32_t n = d->n;
  int64_t tiles[MAX_TILES];
  for (uint32_t k = 0; k < n; k++)
    tiles[k] = d->u.items[k].u.i;
  int64_t limit = in->args[2].kind == TSL_SV_INT ? in->args[2].u.i : -1;
  for (int attempt = 0; attempt < 1000; attempt++) {
    uint32_t x = (uint32_t)tsl_rand_below(rng, n);
    if (tiles[x] <= 1)
      continue;
    uint32_t y = (uint32_t)tsl_rand_below(rng, n - 1);
    if (y >= x)
      y++;
    int64_t f[64];
    uint32_t nf = 0;
    for (int64_t q = 1; q * q <= tiles[x] && nf < 62; q++)
      if (tiles[x] % q == 0) {
        f[nf++] = q;
        if (q * q != tiles[x])
          f[nf++] = tiles[x] / q;
      }
    for (uint32_t a = 1; a < nf; a++) /* sort */
      for (uint32_t b = a; b > 0 && f[b - 1] > f[b]; b--) {
        int64_t tmp = f[b];
        f[b] = f[b - 1];
        f[b - 1] = tmp;
      }
    int64_t div;
    if (y != n - 1) {
      div = f[1 + tsl_rand_below(rng, nf - 1)];
    } else {
      int64_t top = (int64_t)nf - 1;
      while (top >= 1 && limit > 0 && f[top] * tiles[y] > limit)
        top--;
      if (top == 0) {
        if (n <= 2)
          return TSL_OK; /* nothing to propose */
        continue;
      }
      div = f[1 + tsl_rand_below(rng, (uint64_t)top)];
    }
    tiles[x] /= div;
    tiles[y] *= div;
    tsl_sch_value items[MAX_TILES];
    for (uint32_t k = 0; k < n; k++)
      items[k] = tsl_sv_int(tiles[k]);
    return with_decision(t, i, tsl_sv_list(n, items), out, diag);
  }
  return TSL_OK;
}

static int tile_size(const tsl_trace *t, uint64_t *rng, tsl_trace **out, tsl_diag *diag) {
  uint32_t tiles[MAX_CANDS], vecs[MAX_CANDS], na = 0, nb = 0;
  uint32_t len = tsl_trace_len(t);
  for (uint32_t i = 0; i < len; i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    if (is_inst(in, "enter_postproc"))
      break;
    if (is_inst(in, "sample_perfect_tile") && in->decision.n >= 2 &&
        in->decision.n <= MAX_TILES && na < MAX_CANDS) {
      int64_t prod = 1;
      for (uint32_t k = 0; k < in->decision.n; k++)
        prod *= in->decision.u.items[k].u.i;
      if (prod >= 2)
        tiles[na++] = i;
    }
    const char *key = ann_key(in);
    if (key && !strcmp(key, "meta_schedule.cooperative_fetch") && in->args[2].kind == TSL_SV_RV &&
        nb < MAX_CANDS) {
      int64_t p = producer_of(t, in->args[2].u.rv);
      if (p >= 0 && tsl_trace_get(t, (uint32_t)p)->args[1].n > 1)
        vecs[nb++] = (uint32_t)p;
    }
  }
  if (!na && !nb)
    return TSL_OK;
  uint32_t k = (uint32_t)tsl_rand_below(rng, na + nb);
  if (k < na)
    return mutate_tiles(t, tiles[k], rng, out, diag);
  const tsl_trace_inst *in = tsl_trace_get(t, vecs[k - na]);
  tsl_sch_value d = tsl_sv_int(rule_redraw_categorical(in, in->decision.u.i, rng));
  return with_decision(t, vecs[k - na], d, out, diag);
}

/* ---- MutateUnroll ---------------------------------------------------------------- */

static int unroll(const tsl_trace *t, uint64_t *rng, tsl_trace **out, tsl_diag *diag) {
  uint32_t anns[MAX_CANDS], n = 0;
  uint32_t len = tsl_trace_len(t);
  for (uint32_t i = 0; i < len && n < MAX_CANDS; i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    if (is_inst(in, "enter_postproc"))
      break;
    const char *key = ann_key(in);
    if (key && (!strcmp(key, "meta_schedule.unroll_explicit") ||
                !strcmp(key, "meta_schedule.unroll_implicit")) &&
        in->args[2].kind == TSL_SV_RV)
      anns[n++] = i;
  }
  if (!n)
    return TSL_OK;
  const tsl_trace_inst *ann = tsl_trace_get(t, anns[tsl_rand_below(rng, n)]);
  int64_t p = producer_of(t, ann->args[2].u.rv);
  if (p < 0)
    return TSL_OK;
  const tsl_trace_inst *in = tsl_trace_get(t, (uint32_t)p);
  if (in->args[1].n < 2)
    return TSL_OK;
  tsl_sch_value d = tsl_sv_int(rule_redraw_categorical(in, in->decision.u.i, rng));
  return with_decision(t, (uint32_t)p, d, out, diag);
}

/* ---- MutateComputeLocation ------------------------------------------------------ */

/* The other locations sample_compute_location number i could take: the
 * trace before it replayed on `mod`, its block's candidates without the
 * current decision. *n 0 when none. */
static int other_locations(tsl_ctx *ctx, const tsl_module *mod, const tsl_trace *t,
                           uint32_t i, int64_t *locs, uint32_t max, uint32_t *n) {
  *n = 0;
  const tsl_trace_inst *in = tsl_trace_get(t, i);
  tsl_sch_rv block = in->args[0].u.rv;
  /* the instruction that made the block handle, and which of its outputs */
  int64_t maker = -1;
  uint32_t out_no = 0;
  for (uint32_t k = 0; k < i && maker < 0; k++) {
    const tsl_trace_inst *x = tsl_trace_get(t, k);
    for (uint32_t j = 0; j < x->n_outs; j++)
      if (x->outs[j] == block) {
        maker = k;
        out_no = j;
      }
  }
  if (maker < 0)
    return TSL_OK;
  tsl_trace *prefix = tsl_trace_prefix(t, i);
  tsl_replay_opts ro = {sizeof ro, 0, 0, NULL, NULL};
  tsl_schedule *s = NULL;
  tsl_diag d;
  if (!prefix || tsl_trace_replay(ctx, prefix, mod, &ro, &s, &d)) {
    tsl_trace_free(prefix);
    return TSL_OK; /* a trace that does not replay has nothing to mutate */
  }
  /* the replayed schedule's trace numbers handles as the schedule does */
  const tsl_trace_inst *rx = tsl_trace_get(tsl_schedule_trace(s), (uint32_t)maker);
  int64_t all[64];
  uint32_t na = rx && out_no < rx->n_outs
                    ? tsl_sch_compute_locations(s, rx->outs[out_no], all, 64) : 0;
  for (uint32_t k = 0; k < na && k < 64; k++)
    if (all[k] != in->decision.u.i && *n < max)
      locs[(*n)++] = all[k];
  tsl_schedule_free(s);
  tsl_trace_free(prefix);
  return TSL_OK;
}

/* TVM's MutateComputeLocation: among the sample_compute_location
 * instructions with another possible location, one at random takes one of
 * its other locations at random. */
static int compute_location(const tsl_module *mod, const tsl_trace *t, uint64_t *rng,
                            tsl_trace **out, tsl_diag *diag) {
  if (!mod)
    return TSL_OK;
  tsl_ctx *ctx = tsl_ctx_new();
  uint32_t cand[MAX_CANDS], nc = 0;
  int64_t locs[MAX_CANDS][16];
  uint32_t nl[MAX_CANDS];
  int rc = TSL_OK;
  for (uint32_t i = 0; i < tsl_trace_len(t) && nc < MAX_CANDS && !rc; i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    if (is_inst(in, "enter_postproc"))
      break;
    if (!is_inst(in, "sample_compute_location") || in->args[0].kind != TSL_SV_RV)
      continue;
    rc = other_locations(ctx, mod, t, i, locs[nc], 16, &nl[nc]);
    if (!rc && nl[nc])
      cand[nc++] = i;
  }
  if (!rc && nc) {
    uint32_t k = (uint32_t)tsl_rand_below(rng, nc);
    int64_t loc = locs[k][tsl_rand_below(rng, nl[k])];
    rc = with_decision(t, cand[k], tsl_sv_int(loc), out, diag);
  }
  tsl_ctx_free(ctx);
  return rc;
}

static int m_apply(tsl_trace_mutator *m, const tsl_module *mod, const tsl_trace *trace,
                   uint64_t *rand_state, tsl_trace **out, tsl_diag *diag) {
  *out = NULL;
  return m->which == 0   ? tile_size(trace, rand_state, out, diag)
         : m->which == 1 ? unroll(trace, rand_state, out, diag)
                         : compute_location(mod, trace, rand_state, out, diag);
}

const tsl_trace_mutator_vtable mutator_tile_size_vt = {
    sizeof(tsl_trace_mutator_vtable), mts_create, m_destroy, m_apply};
const tsl_trace_mutator_vtable mutator_unroll_vt = {sizeof(tsl_trace_mutator_vtable), mu_create,
                                                    m_destroy, m_apply};
const tsl_trace_mutator_vtable mutator_compute_location_vt = {
    sizeof(tsl_trace_mutator_vtable), mcl_create, m_destroy, m_apply};
