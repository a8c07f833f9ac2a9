/*
 * sample_compute_location (TVM semantics): the candidate locations of a
 * block are -2 (inline, when compute_inline would succeed), -1 (root: stay
 * where it is) and k >= 0 for the k-th loop of the block's first consumer
 * (outermost first) up to the consumers' lowest common loop, skipping
 * unit loops, data-parallel loops after a reduction loop and trailing
 * reduction loops, and keeping those where compute_at (with
 * preserve_unit_loops) succeeds in a trial run. The decision is one of
 * these numbers; a given decision that is not a candidate falls back to
 * the nearest candidate below it, as TVM does. The result is a loop
 * handle; for -1 / -2 it is a mark (see compute_internal.h) that
 * compute_at / reverse_compute_at treat as "leave at root" / "inline".
 */
#include "compute_internal.h"
#include "tessel/rules.h"

/* Trial run of `fn` on the current state, which is restored after. */
static int trial_at(sch_call *c, const sch_path *bp, const sch_path *lp) {
  sch_snapshot snap = sch_snapshot_take(c);
  tsl_diag *saved = c->diag;
  c->diag = NULL;
  int rc = cmp_compute_at(c, bp, lp, 1, -1, 0);
  sch_snapshot_restore(c, snap);
  c->diag = saved;
  return rc == TSL_OK;
}

static int trial_inline(sch_call *c, const sch_path *bp) {
  sch_snapshot snap = sch_snapshot_take(c);
  tsl_diag *saved = c->diag;
  c->diag = NULL;
  int rc = cmp_compute_inline(c, bp);
  sch_snapshot_restore(c, snap);
  c->diag = saved;
  return rc == TSL_OK;
}

static int is_sref(const tsl_stmt *s) {
  return s->kind == TSL_STMT_FOR || s->kind == TSL_STMT_BLOCK_REALIZE;
}

/* Level of the consumers' lowest common loop or block (TVM's LCA of the
 * consumer srefs; the parent of the consumer when there is one). */
static uint32_t boundary_level(const cmp_scope *s, const uint32_t *cons,
                               uint32_t nc) {
  const sch_path *q0 = &s->kids[cons[0]];
  uint32_t common = q0->depth - 1; /* exclusive of the block itself */
  for (uint32_t i = 1; i < nc; i++) {
    const sch_path *q = &s->kids[cons[i]];
    uint32_t k = 1;
    while (k < common && k < q->depth && q->stmts[k] == q0->stmts[k] &&
           q->index[k] == q0->index[k])
      k++;
    common = k;
  }
  uint32_t lvl = common - 1;
  while (lvl > 0 && !is_sref(q0->stmts[lvl]))
    lvl--;
  return lvl;
}

typedef struct candidate {
  int64_t decision;
  uint32_t level;
} candidate;

/* The candidate locations of the block at `bp` into cands (candidate),
 * in increasing decision order; *q0 the first consumer's path (NULL when
 * there is none). */
static void location_candidates(sch_call *c, const sch_path *bpp, tsl_vec *cands,
                                const sch_path **q0_out) {
  sch_path bp = *bpp;
  cmp_scope s;
  cmp_scope_of(c, &bp, &s);
  tsl_vec_init(cands, sizeof(candidate), c->arena);
  if (trial_inline(c, &bp))
    TSL_VEC_PUSH(cands, candidate, ((candidate){-2, 0}));
  TSL_VEC_PUSH(cands, candidate, ((candidate){-1, 0}));
  uint32_t *cons;
  uint32_t nc = cmp_consumers(c, &s, s.self, &cons);
  const sch_path *q0 = nc ? &s.kids[cons[0]] : NULL;
  *q0_out = q0;
  uint32_t bl = nc ? boundary_level(&s, cons, nc) : 0;
  if (nc && q0->stmts[bl]->kind == TSL_STMT_FOR) {
    /* the loops of the first consumer, outermost first, up to the boundary */
    uint32_t loops[SCH_MAX_DEPTH], nl = 0, types[SCH_MAX_DEPTH];
    int last_dp = -1;
    for (uint32_t k = s.level + 1; k <= bl; k++)
      if (q0->stmts[k]->kind == TSL_STMT_FOR) {
        types[nl] = cmp_loop_iter_type(q0->stmts[k]);
        if (types[nl] == TSL_ITER_SPATIAL)
          last_dp = (int)nl;
        loops[nl++] = k;
      }
    int seen_reduce = 0;
    for (uint32_t i = 0; i < nl; i++) {
      const tsl_stmt *l = q0->stmts[loops[i]];
      int64_t ext;
      if (tsl_expr_is_const_int(sch_simplify(c, l->u.loop.extent), &ext) &&
          ext == 1)
        continue;
      if (types[i] == TSL_ITER_SPATIAL) {
        if (seen_reduce)
          break;
      } else {
        seen_reduce = 1;
        if ((int)i > last_dp)
          break;
      }
      sch_path lp = *q0;
      lp.depth = loops[i] + 1;
      if (trial_at(c, &bp, &lp))
        TSL_VEC_PUSH(cands, candidate, ((candidate){i, loops[i]}));
    }
  }
}

int sch_apply_sample_compute_location(sch_call *c) {
  sch_path bp;
  int rc = sch_block_path(c, c->args[0].u.rv, &bp);
  if (rc)
    return rc;
  tsl_vec cands; /* candidate: decision and, for a loop, its path level */
  const sch_path *q0;
  location_candidates(c, &bp, &cands, &q0);
  const candidate *cand = TSL_VEC_DATA(&cands, candidate);
  uint32_t n = cands.len, pick;
  if (c->decision.kind != TSL_SV_NONE) {
    if (c->decision.kind != TSL_SV_INT)
      return sch_fail(c, TSL_EINVALID,
                      "decision must be an int (-2 inline, -1 root, k >= 0 the "
                      "k-th loop of the first consumer)");
    int64_t want = c->decision.u.i;
    uint32_t k = 0;
    while (k < n && cand[k].decision < want)
      k++;
    if (k < n && cand[k].decision == want)
      pick = k;
    else if (k > 0)
      pick = k - 1;
    else
      pick = cand[0].decision == -1 ? 0 : 1; /* below every candidate: root */
  } else {
    pick = (uint32_t)sch_rand_below(c->sch, n);
  }
  c->decision = tsl_sv_int(cand[pick].decision);
  if (cand[pick].decision >= 0) {
    sch_out_loop(c, bp.func->name, q0->stmts[cand[pick].level]->u.loop.loop_var);
  } else {
    const char *mark = cand[pick].decision == -1 ? CMP_ROOT_MARK : CMP_INLINE_MARK;
    sch_out_loop(c, bp.func->name, sch_new_var(c, mark, TSL_INT32));
  }
  return TSL_OK;
}

uint32_t tsl_sch_compute_locations(tsl_schedule *sch, tsl_sch_rv block, int64_t *out,
                                   uint32_t max) {
  sch_call c = {.sch = sch, .arena = sch->arena, .kind = tsl_sch_inst_kind_find("compute_at"),
                .decision = tsl_sv_none()};
  tsl_vec_init(&c.outs, sizeof(tsl_sch_rv), sch->arena);
  sch_path bp;
  if (sch_block_path(&c, block, &bp))
    return 0;
  tsl_vec cands;
  const sch_path *q0;
  location_candidates(&c, &bp, &cands, &q0);
  for (uint32_t i = 0; i < cands.len && i < max; i++)
    out[i] = TSL_VEC_AT(&cands, candidate, i).decision;
  return cands.len;
}
