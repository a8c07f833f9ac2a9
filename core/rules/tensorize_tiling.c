/*
 * TVM's TileWithTensorIntrin, shared by MultiLevelTilingWithIntrin and
 * MultiLevelTilingTensorCore: the loops of a block that play the roles of
 * a tensor intrinsic's description loops (GetTensorizeLoopMapping) are
 * split by the description's extents, optionally after padding the block
 * (pad_einsum) to multiples of them, and the inner parts are reordered
 * innermost in the description's order, ready to be blockized.
 *
 * The mapping, as TVM's: the description's iterators are taken from the
 * last, each paired with the block's last not yet paired iterator of the
 * same kind (spatial or reduction) before the previous pair; the block's
 * loop for an iterator is the one its binding is `loop var + something
 * free of loop vars`. Only the block's innermost chain of loops (none with
 * two statements in its body) counts, each starting at 0, one per block
 * iterator.
 */
#include "rule_mlt.h"

#include <stdlib.h>
#include <string.h>

/* The description's innermost block realize and the loops above it,
 * outermost first. */
static const tsl_stmt *desc_nest(const tsl_func *desc, const tsl_stmt **loops, uint32_t *n,
                                 uint32_t max) {
  const tsl_stmt *realize = NULL;
  *n = 0;
  for (const tsl_stmt *s = desc->body; s;) {
    if (s->kind == TSL_STMT_BLOCK_REALIZE) {
      realize = s;
      s = s->u.realize.block->body;
    } else if (s->kind == TSL_STMT_FOR && *n < max) {
      loops[(*n)++] = s;
      s = s->u.loop.body;
    } else {
      break;
    }
  }
  return realize;
}

uint32_t rule_desc_extents(const tsl_func *desc, int64_t *ext, uint32_t max) {
  const tsl_stmt *loops[RULE_TZ_MAX_ITERS];
  uint32_t n;
  desc_nest(desc, loops, &n, max < RULE_TZ_MAX_ITERS ? max : RULE_TZ_MAX_ITERS);
  for (uint32_t i = 0; i < n; i++)
    if (!tsl_expr_is_const_int(loops[i]->u.loop.extent, &ext[i]))
      return 0;
  return n;
}

/* 1 when `e` uses one of the n variables. */
static int uses_any(const tsl_expr *e, const tsl_var *const *vars, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (tsl_expr_uses_var(e, vars[i]))
      return 1;
  return 0;
}

/* simplify(bind - v): *residual, and 1 when it is free of the n vars. */
static int binds_loop(tsl_analyzer *an, tsl_arena *a, const tsl_expr *bind, const tsl_var *v,
                      const tsl_var *const *vars, uint32_t n, const tsl_expr **residual) {
  const tsl_expr *lv = tsl_expr_var(v);
  const tsl_expr *d = tsl_expr_binary(a, TSL_EXPR_SUB, bind, lv->dtype.bits == bind->dtype.bits
                                                                  ? lv
                                                                  : tsl_expr_cast(a, bind->dtype, lv));
  *residual = tsl_simplify(an, a, d);
  return *residual && !uses_any(*residual, vars, n);
}

typedef struct loop_map {
  uint32_t n;                           /* description loops */
  int32_t block_loop[RULE_TZ_MAX_ITERS]; /* per description loop: the block's loop, or -1 */
  int64_t ext[RULE_TZ_MAX_ITERS];       /* the description loops' extents */
  int64_t padding[RULE_TZ_MAX_ITERS];   /* per block iterator */
  int pad;
} loop_map;

/* GetTensorizeLoopMapping over the block's `nl` loops (outermost first);
 * 1 when it maps. */
static int map_loops(tsl_schedule *sch, tsl_sch_rv block, const tsl_sch_rv *loop_rvs,
                     uint32_t nl, const tsl_func *desc, int allow_padding, loop_map *m) {
  const tsl_stmt *dloops[RULE_TZ_MAX_ITERS];
  uint32_t nd;
  const tsl_stmt *drealize = desc_nest(desc, dloops, &nd, RULE_TZ_MAX_ITERS);
  const tsl_stmt *realize = tsl_schedule_get_stmt(sch, block);
  if (!drealize || !realize || !nd)
    return 0;
  const tsl_block *db = drealize->u.realize.block, *b = realize->u.realize.block;
  /* the block's innermost chain of loops */
  const tsl_stmt *loops[RULE_TZ_MAX_ITERS];
  const tsl_var *loop_vars[RULE_TZ_MAX_ITERS], *dvars[RULE_TZ_MAX_ITERS];
  uint32_t first = nl, n = 0;
  while (first > 0) {
    const tsl_stmt *l = tsl_schedule_get_stmt(sch, loop_rvs[first - 1]);
    if (l->u.loop.body->kind == TSL_STMT_SEQ)
      break;
    first--;
  }
  if (nl - first > RULE_TZ_MAX_ITERS || db->n_iter_vars != nd || nd > RULE_TZ_MAX_ITERS)
    return 0;
  for (uint32_t i = first; i < nl; i++) {
    const tsl_stmt *l = tsl_schedule_get_stmt(sch, loop_rvs[i]);
    int64_t mn;
    if (!tsl_expr_is_const_int(l->u.loop.min, &mn) || mn != 0)
      return 0;
    loops[n] = l;
    loop_vars[n++] = l->u.loop.loop_var;
  }
  if (n != b->n_iter_vars || b->n_iter_vars < nd)
    return 0;
  for (uint32_t i = 0; i < nd; i++)
    dvars[i] = dloops[i]->u.loop.loop_var;
  memset(m, 0, sizeof *m);
  m->n = nd;
  for (uint32_t i = 0; i < RULE_TZ_MAX_ITERS; i++) {
    m->block_loop[i] = -1;
    m->padding[i] = 1;
  }
  int mapped[RULE_TZ_MAX_ITERS] = {0}, ok = 1;
  tsl_arena *a = tsl_arena_new(tsl_schedule_ctx(sch));
  tsl_analyzer *an = tsl_analyzer_new(tsl_schedule_ctx(sch));
  int next = (int)n - 1;
  for (int id = (int)nd - 1; id >= 0 && ok; id--) {
    const tsl_expr *res;
    int dl = -1;
    for (uint32_t i = 0; i < nd && dl < 0; i++)
      if (binds_loop(an, a, drealize->u.realize.iter_values[id], dvars[i], dvars, nd, &res))
        dl = (int)i;
    if (dl < 0 || !tsl_expr_is_const_int(dloops[dl]->u.loop.extent, &m->ext[dl])) {
      ok = 0;
      break;
    }
    uint32_t type = db->iter_vars[dl].iter_type; /* TVM takes the loop's index here */
    int cur = next;
    while (cur >= 0 && b->iter_vars[cur].iter_type != type)
      cur--;
    if (cur < 0) {
      ok = 0;
      break;
    }
    next = cur - 1;
    const tsl_expr *bind = realize->u.realize.iter_values[cur];
    for (uint32_t i = 0; i < n; i++) {
      int64_t ext, zero;
      if (mapped[i] || !binds_loop(an, a, bind, loop_vars[i], loop_vars, n, &res))
        continue;
      if (allow_padding && !(tsl_expr_is_const_int(res, &zero) && zero == 0))
        allow_padding = 0;
      if (!tsl_expr_is_const_int(loops[i]->u.loop.extent, &ext)) {
        ok = 0;
        break;
      }
      if (ext % m->ext[dl]) {
        if (!allow_padding) {
          ok = 0;
          break;
        }
        m->padding[cur] = m->ext[dl];
        m->pad = 1;
      }
      mapped[i] = 1;
      m->block_loop[dl] = (int32_t)(first + i);
      break;
    }
  }
  for (uint32_t i = 0; i < nd && ok; i++)
    ok = m->block_loop[i] >= 0;
  if (ok && m->pad && !allow_padding)
    ok = 0;
  tsl_analyzer_free(an);
  tsl_arena_free(a);
  return ok;
}

/* The names of a block's producers or consumers (recorded, as TVM's
 * sch->GetProducers), into names[] (at most 16); their count. */
static uint32_t neighbours(tsl_schedule *sch, const char *inst, tsl_sch_rv block,
                           tsl_sch_rv *rvs, const char **names) {
  uint32_t n = 0;
  tsl_sch_rv *q = rule_query(sch, inst, block, &n);
  n = n > 16 ? 16 : n;
  for (uint32_t i = 0; i < n; i++) {
    rvs[i] = q[i];
    names[i] = tsl_schedule_get_stmt(sch, q[i])->u.realize.block->name;
  }
  free(q);
  return n;
}

static int named(const char *const *names, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(names[i], name))
      return 1;
  return 0;
}

/* TVM's padding in TileWithTensorIntrin: pad_einsum the block's iterators
 * to multiples of the intrinsic's extents, then inline the original
 * producer of each padded input into its padding block and each padded
 * output's copy-out block into the original consumer. */
static int pad_to_intrin(tsl_schedule *sch, tsl_sch_rv block, uint32_t n_iters,
                         const int64_t *padding, tsl_diag *diag) {
  tsl_sch_rv rvs[16], rvs2[16];
  const char *prod[16], *cons[16], *now[16], *two[16];
  uint32_t np = neighbours(sch, "get_producers", block, rvs, prod);
  uint32_t nc = neighbours(sch, "get_consumers", block, rvs, cons);
  tsl_sch_value pv[RULE_TZ_MAX_ITERS];
  for (uint32_t i = 0; i < n_iters; i++)
    pv[i] = tsl_sv_int(padding[i]);
  tsl_sch_arg pa[2] = {{"block", mlt_rv(block)}, {"padding", tsl_sv_list(n_iters, pv)}};
  int rc = tsl_sch_call(sch, "pad_einsum", 2, pa, NULL, NULL, diag);
  tsl_sch_rv inline_rv[32];
  uint32_t n_inline = 0;
  uint32_t k = rc ? 0 : neighbours(sch, "get_producers", block, rvs, now);
  for (uint32_t i = 0; i < k; i++) /* a new producer: the padding of an input */
    if (!named(prod, np, now[i]) && neighbours(sch, "get_producers", rvs[i], rvs2, two))
      inline_rv[n_inline++] = rvs2[0];
  k = rc ? 0 : neighbours(sch, "get_consumers", block, rvs, now);
  for (uint32_t i = 0; i < k; i++) /* a new consumer: the copy out of a padded output */
    if (!named(cons, nc, now[i]) && neighbours(sch, "get_consumers", rvs[i], rvs2, two))
      inline_rv[n_inline++] = rvs[i];
  for (uint32_t i = 0; i < n_inline && !rc; i++) {
    tsl_sch_arg ia = {NULL, mlt_rv(inline_rv[i])};
    rc = tsl_sch_call(sch, "compute_inline", 1, &ia, NULL, NULL, diag);
  }
  return rc;
}

int mlt_loops_of(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv *loops, uint32_t *n,
                 tsl_diag *diag) {
  tsl_sch_arg ga = {NULL, mlt_rv(block)};
  return mlt_call_list(sch, "get_loops", 1, &ga, loops, MAX_PER_LEVEL * 2, n, diag);
}

int rule_tile_with_intrin(tsl_schedule *sch, tsl_sch_rv block, const tsl_func *desc,
                          int allow_padding, tsl_sch_rv *inner, int *applicable,
                          tsl_diag *diag) {
  tsl_sch_rv loops[MAX_PER_LEVEL * 2];
  uint32_t nl;
  loop_map m;
  *applicable = 0;
  int rc = mlt_loops_of(sch, block, loops, &nl, diag);
  if (rc || !map_loops(sch, block, loops, nl, desc, allow_padding, &m))
    return rc;
  const tsl_block *b = tsl_schedule_get_stmt(sch, block)->u.realize.block;
  if (m.pad && ((rc = pad_to_intrin(sch, block, b->n_iter_vars, m.padding, diag)) ||
                (rc = mlt_loops_of(sch, block, loops, &nl, diag))))
    return rc;
  *applicable = 1;
  /* split each mapped loop; the loops after it are the old ones with each
   * mapped loop replaced by its two parts (no get_loops recorded) */
  tsl_sch_rv suffix[RULE_TZ_MAX_ITERS], outer_of[MAX_PER_LEVEL * 2];
  int desc_of[MAX_PER_LEVEL * 2];
  for (uint32_t i = 0; i < nl; i++)
    desc_of[i] = -1;
  for (uint32_t d = 0; d < m.n; d++)
    desc_of[m.block_loop[d]] = (int)d;
  for (uint32_t d = 0; d < m.n && !rc; d++) {
    tsl_sch_value f[2] = {tsl_sv_none(), tsl_sv_int(m.ext[d])};
    tsl_sch_arg sa[2] = {{"loop", mlt_rv(loops[m.block_loop[d]])},
                         {"factors", tsl_sv_list(2, f)}};
    tsl_sch_rv parts[2];
    uint32_t np;
    rc = mlt_call_list(sch, "split", 2, sa, parts, 2, &np, diag);
    outer_of[m.block_loop[d]] = parts[0];
    suffix[d] = parts[1];
  }
  if (rc)
    return rc;
  tsl_sch_arg order[MAX_PER_LEVEL * 2 + RULE_TZ_MAX_ITERS];
  uint32_t no = 0;
  int meet = 0;
  for (uint32_t i = 0; i < nl; i++) {
    if (desc_of[i] < 0) {
      if (meet)
        order[no++] = (tsl_sch_arg){NULL, mlt_rv(loops[i])};
      continue;
    }
    if (meet)
      order[no++] = (tsl_sch_arg){NULL, mlt_rv(outer_of[i])};
    meet = 1; /* the inner part follows its outer one */
  }
  for (uint32_t d = 0; d < m.n; d++)
    order[no++] = (tsl_sch_arg){NULL, mlt_rv(suffix[d])};
  *inner = suffix[0];
  return tsl_sch_call(sch, "reorder", no, order, NULL, NULL, diag);
}
