/*
 * strategies/sketch/sketch_rules.c — Ansor's CPU sketch rules on TensorIR
 * blocks (README.md: each rule's condition and what it does here).
 */
#include <string.h>

#include "sketch.h"
#include "tessel/analysis.h"
#include "tessel/visit.h"

#define SK_MAX_LOOPS 16
#define SK_MAX_INNERMOST 64 /* Ansor's max_innermost_split_factor */
static const char sk_structure[] = "SSRSRS"; /* Ansor's CPU tiling structure */

/* ---- helpers ----------------------------------------------------------------- */

static tsl_sch_value str(tsl_schedule *sch, const char *s) {
  return tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), s));
}

/* A failed primitive drops the branch (0 states); out of memory ends all. */
static int dropped(sk_state *st, int rc) {
  sk_state_free(st);
  return rc == TSL_ENOMEM ? rc : 0;
}

static int pushed(sk_state *st, sk_list *out, tsl_diag *diag) {
  int rc = sk_push(out, st, diag);
  return rc ? rc : 1;
}

static int has_reduce_iter(const tsl_block *b) {
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i].iter_type != TSL_ITER_SPATIAL)
      return 1;
  return 0;
}

/* The products of the spatial and the reduction iterators' extents; 0 when
 * an extent is not a constant. */
static int iter_lengths(const tsl_block *b, int64_t *space, int64_t *reduce) {
  *space = *reduce = 1;
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    int64_t e;
    if (!tsl_expr_is_const_int(b->iter_vars[i].dom.extent, &e))
      return 0;
    if (b->iter_vars[i].iter_type == TSL_ITER_SPATIAL)
      *space *= e;
    else
      *reduce *= e;
  }
  return 1;
}

static int is_iter_var(const tsl_block *b, const tsl_expr *e) {
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i].var == e->u.var)
      return 1;
  return 0;
}

typedef struct access_scan {
  const tsl_block *b;
  const tsl_buffer *buffer; /* loads of this buffer only (NULL: all) */
  const tsl_stmt *store;    /* ... at the store's indices (NULL: any) */
  int simple;               /* every index an iterator or a constant */
  int expensive;            /* a math intrinsic call */
  int matched;              /* every load of `buffer` at the store's indices */
  int loads;                /* loads of `buffer` seen */
} access_scan;

static int scan_expr(const tsl_expr *e, void *ud) {
  access_scan *a = ud;
  if (e->kind == TSL_EXPR_CALL || e->kind == TSL_EXPR_CALL_EXTERN)
    a->expensive = 1;
  if (e->kind != TSL_EXPR_LOAD)
    return 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    int64_t c;
    if (!is_iter_var(a->b, e->args[i]) && !tsl_expr_is_const_int(e->args[i], &c))
      a->simple = 0;
  }
  if (a->buffer && e->u.buffer == a->buffer) {
    a->loads++;
    const tsl_stmt *s = a->store;
    if (e->n_args != s->u.store.n_indices)
      a->matched = 0;
    for (uint32_t i = 0; a->matched && i < e->n_args; i++) {
      const tsl_expr *x = e->args[i], *y = s->u.store.indices[i];
      if (x->kind != TSL_EXPR_VAR || y->kind != TSL_EXPR_VAR || x->u.var != y->u.var)
        a->matched = 0;
    }
  }
  return 0;
}

/* The block's body as one store at its iterators, in their order (what
 * compute_inline and an element-wise match need); NULL otherwise. */
static const tsl_stmt *plain_store(const tsl_block *b) {
  const tsl_stmt *s = b->body;
  if (!s || s->kind != TSL_STMT_STORE || b->init || b->n_writes != 1 ||
      s->u.store.n_indices != b->n_iter_vars)
    return NULL;
  for (uint32_t i = 0; i < s->u.store.n_indices; i++) {
    const tsl_expr *x = s->u.store.indices[i];
    if (x->kind != TSL_EXPR_VAR || x->u.var != b->iter_vars[i].var)
      return NULL;
  }
  return s;
}

/* Ansor's IsStrictlyInlineable: every read at iterators or constants, no
 * expensive operation (here: no math intrinsic or extern call). */
static int strictly_inlineable(const tsl_block *b) {
  const tsl_stmt *s = plain_store(b);
  if (!s || has_reduce_iter(b))
    return 0;
  access_scan a = {b, NULL, NULL, 1, 0, 1, 0};
  tsl_expr_visit(s->u.store.value, scan_expr, &a);
  return a.simple && !a.expensive;
}

/* The stage of `block`'s only consumer when that consumer is element-wise
 * matched (Ansor's HasSingleElementwiseMatchedConsumer): a spatial block
 * storing at its iterators a buffer of the producer's shape, reading the
 * producer's buffer only at those same indices. -1 otherwise. */
static int32_t elementwise_consumer(sk_state *st, int32_t s) {
  const tsl_block *b = sk_stage_block(st, s);
  const tsl_block *cons[2];
  if (!b || b->n_writes != 1 ||
      tsl_sch_block_deps(st->sch, st->stages[s], 0, cons, 2) != 1)
    return -1;
  const tsl_block *cb = cons[0];
  const tsl_stmt *cs = plain_store(cb);
  if (!cs || has_reduce_iter(cb))
    return -1;
  const tsl_buffer *w = b->writes[0].buffer, *cw = cs->u.store.buffer;
  if (w->ndim != cw->ndim)
    return -1;
  for (uint32_t d = 0; d < w->ndim; d++)
    if (!tsl_expr_equal(w->shape[d], cw->shape[d])) /* symbolic sizes too */
      return -1;
  access_scan a = {cb, w, cs, 1, 0, 1, 0};
  tsl_expr_visit(cs->u.store.value, scan_expr, &a);
  if (!a.matched || !a.loads)
    return -1;
  for (int32_t k = 0; k < (int32_t)st->n_stages; k++)
    if (sk_stage_block(st, k) == cb)
      return k;
  return -1;
}

/* Tiling material (TVM's NeedsMultiLevelTiling) with constant extents,
 * which sample_perfect_tile needs. */
static int needs_tiling(sk_state *st) {
  const tsl_block *b = sk_stage_block(st, st->stage);
  int64_t space, reduce;
  return b && iter_lengths(b, &space, &reduce) &&
         tsl_sch_needs_multi_level_tiling(st->sch, st->stages[st->stage]);
}

/* Ansor's NeedsRfactor on a CPU. */
static int needs_rfactor(const sk_ctx *c, sk_state *st) {
  const tsl_block *b = sk_stage_block(st, st->stage);
  int64_t space, reduce;
  if (!b || !has_reduce_iter(b) || !iter_lengths(b, &space, &reduce))
    return 0;
  if (needs_tiling(st))
    return !(space > reduce || space > (int64_t)c->num_cores * 16);
  return reduce > 1 && reduce > c->num_cores;
}

/* The block's loops with their iterator kinds; 0 on failure. */
static uint32_t block_loops(sk_state *st, tsl_sch_rv block, tsl_sch_rv *loops, int *kinds,
                            tsl_diag *diag) {
  const tsl_sch_rv *l = NULL;
  uint32_t n = 0;
  if (tsl_sch_get_loops(st->sch, block, &l, &n, diag) || n > SK_MAX_LOOPS)
    return 0;
  for (uint32_t i = 0; i < n; i++) {
    loops[i] = l[i];
    kinds[i] = tsl_sch_loop_iter_type(st->sch, l[i]);
  }
  return n;
}

/* Ansor's DoMultiLevelTiling with `sk_structure`: every loop split into as
 * many perfect tiles as its kind has letters, the tiles reordered by the
 * structure. last_s[l] is the innermost spatial loop of the l-th S level
 * (the loops a consumer follows the tiling to). */
static int multi_level_tiling(sk_state *st, tsl_sch_rv *last_s, tsl_diag *diag) {
  tsl_schedule *sch = st->sch;
  tsl_sch_rv block = st->stages[st->stage];
  tsl_sch_rv loops[SK_MAX_LOOPS];
  int kinds[SK_MAX_LOOPS];
  uint32_t n = block_loops(st, block, loops, kinds, diag);
  uint32_t n_s = 0, n_r = 0;
  for (const char *p = sk_structure; *p; p++)
    *p == 'S' ? n_s++ : n_r++;
  tsl_sch_arg ann[3] = {{NULL, tsl_sv_rv(block)},
                        {NULL, str(sch, "meta_schedule.tiling_structure")},
                        {NULL, str(sch, sk_structure)}};
  int rc = n ? tsl_sch_call(sch, "annotate", 3, ann, NULL, NULL, diag) : TSL_EINVALID;
  /* tiles[i][k]: loop i's k-th tile */
  tsl_sch_rv tiles[SK_MAX_LOOPS][8];
  for (uint32_t i = 0; i < n && !rc; i++) {
    if (kinds[i] != TSL_ITER_SPATIAL && kinds[i] != TSL_ITER_REDUCE)
      return TSL_EINVALID;
    uint32_t parts = kinds[i] == TSL_ITER_SPATIAL ? n_s : n_r;
    tsl_sch_arg sa[3] = {{NULL, tsl_sv_rv(loops[i])},
                         {"n", tsl_sv_int(parts)},
                         {"max_innermost_factor", tsl_sv_int(SK_MAX_INNERMOST)}};
    const tsl_sch_rv *v = NULL, *l = NULL;
    uint32_t nv = 0, nl = 0;
    rc = tsl_sch_call(sch, "sample_perfect_tile", 3, sa, &v, &nv, diag);
    tsl_sch_value f[8];
    for (uint32_t k = 0; !rc && k < nv && k < 8; k++)
      f[k] = tsl_sv_rv(v[k]);
    if (!rc) {
      tsl_sch_arg sp[2] = {{NULL, tsl_sv_rv(loops[i])}, {NULL, tsl_sv_list(nv, f)}};
      rc = tsl_sch_call(sch, "split", 2, sp, &l, &nl, diag);
    }
    for (uint32_t k = 0; !rc && k < nl && k < 8; k++)
      tiles[i][k] = l[k];
  }
  tsl_sch_arg order[SK_MAX_LOOPS * 8];
  uint32_t no = 0, level_s = 0, level_r = 0;
  for (const char *p = sk_structure; *p && !rc; p++) {
    int want = *p == 'S' ? TSL_ITER_SPATIAL : TSL_ITER_REDUCE;
    uint32_t level = *p == 'S' ? level_s++ : level_r++;
    for (uint32_t i = 0; i < n; i++)
      if (kinds[i] == want) {
        order[no++] = (tsl_sch_arg){NULL, tsl_sv_rv(tiles[i][level])};
        if (want == TSL_ITER_SPATIAL)
          last_s[level] = tiles[i][level];
      }
  }
  if (!rc && no > 1)
    rc = tsl_sch_call(sch, "reorder", no, order, NULL, NULL, diag);
  return rc;
}

/* ---- the rules ------------------------------------------------------------------ */

static int always_inline_condition(const sk_ctx *c, sk_state *st) {
  (void)c;
  const tsl_block *b = sk_stage_block(st, st->stage);
  return b && !tsl_sch_is_output_block(st->sch, st->stages[st->stage]) &&
                 strictly_inlineable(b)
             ? SK_APPLY_AND_SKIP_REST
             : SK_PASS;
}

static int always_inline_apply(const sk_ctx *c, sk_state *st, sk_list *out, tsl_diag *diag) {
  (void)c;
  tsl_sch_arg a = {NULL, tsl_sv_rv(st->stages[st->stage])};
  int rc = tsl_sch_call(st->sch, "compute_inline", 1, &a, NULL, NULL, diag);
  if (rc)
    return dropped(st, rc);
  st->stage--;
  return pushed(st, out, diag);
}

static int add_rfactor_condition(const sk_ctx *c, sk_state *st) {
  return needs_rfactor(c, st) && !st->cache_written[st->stage] ? SK_APPLY : SK_PASS;
}

/* The reduction loops fused and split in two; a branch rfactors the outer
 * part, another the inner one (in TensorIR the rfactor block keeps the loop
 * order, so the inner part is already innermost, where Ansor reorders it
 * there). The factor axis goes last, after the output's axes. */
static int add_rfactor_apply(const sk_ctx *c, sk_state *st, sk_list *out, tsl_diag *diag) {
  (void)c;
  tsl_schedule *sch = st->sch;
  tsl_sch_rv block = st->stages[st->stage];
  const tsl_block *b = sk_stage_block(st, st->stage);
  tsl_sch_rv loops[SK_MAX_LOOPS];
  int kinds[SK_MAX_LOOPS];
  uint32_t n = block_loops(st, block, loops, kinds, diag), first_r = n;
  for (uint32_t i = 0; i < n; i++)
    if (kinds[i] == TSL_ITER_REDUCE && first_r == n)
      first_r = i;
    else if (kinds[i] != TSL_ITER_REDUCE && first_r < n)
      return dropped(st, TSL_EINVALID); /* reduction loops not innermost */
  if (first_r == n || !b)
    return dropped(st, TSL_EINVALID);
  tsl_sch_rv fused = loops[first_r];
  int rc = TSL_OK;
  if (n - first_r > 1) {
    tsl_sch_arg fa[SK_MAX_LOOPS];
    for (uint32_t i = first_r; i < n; i++)
      fa[i - first_r] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[i])};
    const tsl_sch_rv *o = NULL;
    rc = tsl_sch_call(sch, "fuse", n - first_r, fa, &o, NULL, diag);
    if (!rc)
      fused = o[0];
  }
  const tsl_sch_rv *v = NULL, *parts = NULL;
  uint32_t nv = 0, np = 0;
  if (!rc) {
    tsl_sch_arg sa[3] = {{NULL, tsl_sv_rv(fused)},
                         {"n", tsl_sv_int(2)},
                         {"max_innermost_factor", tsl_sv_int(SK_MAX_INNERMOST)}};
    rc = tsl_sch_call(sch, "sample_perfect_tile", 3, sa, &v, &nv, diag);
  }
  if (!rc) {
    tsl_sch_value f[2] = {tsl_sv_rv(v[0]), tsl_sv_rv(v[1])};
    tsl_sch_arg sp[2] = {{NULL, tsl_sv_rv(fused)}, {NULL, tsl_sv_list(2, f)}};
    rc = tsl_sch_call(sch, "split", 2, sp, &parts, &np, diag);
  }
  if (rc || np != 2)
    return dropped(st, rc ? rc : TSL_EINVALID);
  tsl_sch_rv split[2] = {parts[0], parts[1]};
  int made = 0;
  for (int k = 0; k < 2; k++) {
    sk_state *f;
    if ((rc = sk_state_fork(st, &f, diag)))
      break;
    tsl_sch_arg ra[2] = {{NULL, tsl_sv_rv(split[k])},
                         {"factor_axis", tsl_sv_int(b->writes[0].buffer->ndim)}};
    const tsl_sch_rv *rf = NULL;
    int prc = tsl_sch_call(f->sch, "rfactor", 2, ra, &rf, NULL, diag);
    if (!prc)
      prc = sk_insert_stage(f, (uint32_t)f->stage, rf[0], diag);
    if (prc) {
      if ((rc = dropped(f, prc)))
        break;
      continue;
    }
    f->stage--; /* past the rfactor stage, which inserted before this one */
    if ((rc = sk_push(out, f, diag)))
      break;
    made++;
  }
  sk_state_free(st);
  return rc ? rc : made;
}

static int add_cache_write_condition(const sk_ctx *c, sk_state *st) {
  (void)c;
  return needs_tiling(st) && !st->cache_written[st->stage] &&
                 elementwise_consumer(st, st->stage) < 0
             ? SK_APPLY
             : SK_PASS;
}

/* A "local" stage the block writes instead; its write-back stage follows
 * it, and the same stage is visited again (now with a matched consumer). */
static int add_cache_write_apply(const sk_ctx *c, sk_state *st, sk_list *out, tsl_diag *diag) {
  (void)c;
  tsl_sch_arg a[3] = {{NULL, tsl_sv_rv(st->stages[st->stage])},
                      {NULL, tsl_sv_int(0)},
                      {NULL, str(st->sch, "local")}};
  const tsl_sch_rv *o = NULL;
  int rc = tsl_sch_call(st->sch, "cache_write", 3, a, &o, NULL, diag);
  if (!rc)
    rc = sk_insert_stage(st, (uint32_t)st->stage + 1, o[0], diag);
  if (rc)
    return dropped(st, rc);
  st->cache_written[st->stage] = 1;
  return pushed(st, out, diag);
}

static int tiling_with_fusion_condition(const sk_ctx *c, sk_state *st) {
  (void)c;
  if (!needs_tiling(st) || elementwise_consumer(st, st->stage) < 0)
    return SK_PASS;
  return st->cache_written[st->stage] ? SK_APPLY_AND_SKIP_REST : SK_APPLY;
}

/* The block tiled, its consumer computed under the tiles of the first S
 * level, or of the first two: a branch each. */
static int tiling_with_fusion_apply(const sk_ctx *c, sk_state *st, sk_list *out,
                                    tsl_diag *diag) {
  (void)c;
  int32_t cs = elementwise_consumer(st, st->stage);
  tsl_sch_rv last_s[8] = {0};
  int rc = cs < 0 ? TSL_EINVALID : multi_level_tiling(st, last_s, diag);
  if (rc)
    return dropped(st, rc);
  int made = 0;
  for (int level = 1; level <= 2 && !rc; level++) {
    sk_state *f;
    if ((rc = sk_state_fork(st, &f, diag)))
      break;
    tsl_sch_arg a[3] = {{NULL, tsl_sv_rv(f->stages[cs])},
                        {NULL, tsl_sv_rv(last_s[level - 1])},
                        {"preserve_unit_loops", tsl_sv_bool(1)}};
    int prc = tsl_sch_call(f->sch, "reverse_compute_at", 3, a, NULL, NULL, diag);
    if (prc) {
      rc = dropped(f, prc);
      continue;
    }
    f->stage--;
    if (!(rc = sk_push(out, f, diag)))
      made++;
  }
  sk_state_free(st);
  return rc ? rc : made;
}

static int tiling_condition(const sk_ctx *c, sk_state *st) {
  (void)c;
  return needs_tiling(st) ? SK_APPLY_AND_SKIP_REST : SK_PASS;
}

static int tiling_apply(const sk_ctx *c, sk_state *st, sk_list *out, tsl_diag *diag) {
  (void)c;
  tsl_sch_rv last_s[8];
  int rc = multi_level_tiling(st, last_s, diag);
  if (rc)
    return dropped(st, rc);
  st->stage--;
  return pushed(st, out, diag);
}

static int skip_condition(const sk_ctx *c, sk_state *st) {
  (void)c;
  (void)st;
  return SK_APPLY;
}

static int skip_apply(const sk_ctx *c, sk_state *st, sk_list *out, tsl_diag *diag) {
  (void)c;
  st->stage--;
  return pushed(st, out, diag);
}

const sk_rule sk_cpu_rules[] = {
    {"AlwaysInline", always_inline_condition, always_inline_apply},
    {"AddRfactor", add_rfactor_condition, add_rfactor_apply},
    {"AddCacheWrite", add_cache_write_condition, add_cache_write_apply},
    {"MultiLevelTilingWithFusion", tiling_with_fusion_condition, tiling_with_fusion_apply},
    {"MultiLevelTiling", tiling_condition, tiling_apply},
    {"SkipStage", skip_condition, skip_apply},
};
const uint32_t sk_n_cpu_rules = sizeof sk_cpu_rules / sizeof sk_cpu_rules[0];
