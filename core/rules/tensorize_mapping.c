/*
 * TVM's GetAutoTensorizeMappingInfo: whether a block computes what a
 * tensor intrinsic's description computes, up to its buffers' indices, and
 * which of the block's iterators fuse into each of the description's.
 *
 * The block's update and the description's are compared as expression
 * trees: same kinds, dtypes, constants and intrinsics; loads pair the
 * block's buffers with the description's one to one (dtypes equal),
 * indices are not compared but kept. An iterator's mask is the set of
 * paired buffers whose indices use it. A block iterator maps to the
 * description iterator of the same mask and kind (none: it stays outside,
 * e.g. a batch; two: no mapping, as in TVM); every description iterator
 * must get at least one. The block iterators mapped to one description
 * iterator fuse in their order (n, h, w of a convolution into m).
 */
#include "rules_internal.h"

#include <string.h>

typedef struct cmp {
  rule_tz_map *m;
  int fail;
} cmp;

static int pair_buffer(cmp *c, const tsl_buffer *l, const tsl_buffer *r,
                       const tsl_expr *const *lidx, uint32_t nl, const tsl_expr *const *ridx,
                       uint32_t nr) {
  rule_tz_map *m = c->m;
  if (l->dtype.code != r->dtype.code || l->dtype.bits != r->dtype.bits ||
      l->dtype.lanes != r->dtype.lanes)
    return 0;
  for (uint32_t k = 0; k < m->n_bufs; k++) {
    if (m->lhs[k] == l || m->rhs[k] == r)
      return m->lhs[k] == l && m->rhs[k] == r;
  }
  if (m->n_bufs == RULE_TZ_MAX_BUFS || nl > RULE_TZ_MAX_ITERS || nr > RULE_TZ_MAX_ITERS)
    return 0;
  uint32_t k = m->n_bufs++;
  m->lhs[k] = l;
  m->rhs[k] = r;
  m->n_lhs_idx[k] = nl;
  m->n_rhs_idx[k] = nr;
  memcpy(m->lhs_idx[k], lidx, nl * sizeof *lidx);
  memcpy(m->rhs_idx[k], ridx, nr * sizeof *ridx);
  return 1;
}

static int same_expr(cmp *c, const tsl_expr *l, const tsl_expr *r) {
  if (l->kind != r->kind || l->dtype.code != r->dtype.code || l->dtype.bits != r->dtype.bits ||
      l->dtype.lanes != r->dtype.lanes)
    return 0;
  switch (l->kind) {
  case TSL_EXPR_LOAD:
    return pair_buffer(c, l->u.buffer, r->u.buffer, l->args, l->n_args, r->args, r->n_args);
  case TSL_EXPR_INT_IMM:
    return l->u.int_value == r->u.int_value;
  case TSL_EXPR_FLOAT_IMM:
    return l->u.float_value == r->u.float_value;
  case TSL_EXPR_VAR: case TSL_EXPR_STR_IMM: case TSL_EXPR_BUFFER_DATA:
    return 0; /* outside an index: not a tensor computation of the kind */
  case TSL_EXPR_CALL: case TSL_EXPR_BUILTIN:
    if (l->intrin != r->intrin)
      return 0;
    break;
  }
  if (l->n_args != r->n_args)
    return 0;
  for (uint32_t i = 0; i < l->n_args; i++)
    if (!same_expr(c, l->args[i], r->args[i]))
      return 0;
  return 1;
}

/* The innermost block of a description (its root's only descendant). */
static const tsl_block *desc_block(const tsl_stmt *s) {
  const tsl_block *found = NULL;
  while (s) {
    switch (s->kind) {
    case TSL_STMT_BLOCK_REALIZE:
      found = s->u.realize.block;
      s = found->body;
      break;
    case TSL_STMT_FOR:
      s = s->u.loop.body;
      break;
    default:
      return found;
    }
  }
  return found;
}

/* Which paired buffers index each iterator of `b`: a walk over one index
 * of buffer `buf`. The description's indices may be expressions of its
 * iterators (the AMX tiles' B[vk // 4, vj, vk % 4]; TVM's index by
 * iterators only); `iters` counts the iterators met, `foreign` other
 * variables (the block's indices use its loops' outer variables too). */
typedef struct mask_walk {
  const tsl_block *b;
  uint32_t buf;
  uint32_t *masks; /* per iterator of b */
  int foreign, iters;
} mask_walk;

static int mark_var(const tsl_expr *e, void *ud) {
  mask_walk *w = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t j = 0; j < w->b->n_iter_vars; j++)
    if (w->b->iter_vars[j].var == e->u.var) {
      w->masks[j] |= 1u << w->buf;
      w->iters++;
      return 0;
    }
  w->foreign = 1;
  return 0;
}

int rule_tz_mapping(const tsl_block *block, const tsl_func *desc, rule_tz_map *out) {
  memset(out, 0, sizeof *out);
  const tsl_block *d = desc_block(desc->body);
  if (!d || block->n_iter_vars > RULE_TZ_MAX_ITERS || d->n_iter_vars > RULE_TZ_MAX_ITERS ||
      !block->body || block->body->kind != TSL_STMT_STORE || !d->body ||
      d->body->kind != TSL_STMT_STORE)
    return 0;
  out->block = block;
  out->desc = d;
  out->n_lhs = block->n_iter_vars;
  out->n_rhs = d->n_iter_vars;
  cmp c = {out, 0};
  const tsl_stmt *ls = block->body, *rs = d->body;
  if (!pair_buffer(&c, ls->u.store.buffer, rs->u.store.buffer, ls->u.store.indices,
                   ls->u.store.n_indices, rs->u.store.indices, rs->u.store.n_indices) ||
      !same_expr(&c, ls->u.store.value, rs->u.store.value))
    return 0;
  /* masks: which paired buffers each iterator indexes */
  uint32_t lmask[RULE_TZ_MAX_ITERS] = {0}, rmask[RULE_TZ_MAX_ITERS] = {0};
  for (uint32_t k = 0; k < out->n_bufs; k++) {
    for (uint32_t i = 0; i < out->n_rhs_idx[k]; i++) {
      mask_walk dw = {d, k, rmask, 0, 0};
      tsl_expr_visit(out->rhs_idx[k][i], mark_var, &dw);
      if (dw.foreign || !dw.iters)
        return 0; /* a description index of no iterator, or of another variable */
    }
    mask_walk w = {block, k, lmask, 0, 0};
    for (uint32_t i = 0; i < out->n_lhs_idx[k]; i++)
      tsl_expr_visit(out->lhs_idx[k][i], mark_var, &w);
  }
  int used[RULE_TZ_MAX_ITERS] = {0};
  for (uint32_t i = 0; i < out->n_lhs; i++) {
    out->rhs_of[i] = -1;
    for (uint32_t j = 0; j < out->n_rhs; j++) {
      if (rmask[j] != lmask[i] || d->iter_vars[j].iter_type != block->iter_vars[i].iter_type)
        continue;
      if (out->rhs_of[i] >= 0)
        return 0; /* two candidates: not unique */
      out->rhs_of[i] = (int32_t)j;
    }
    if (out->rhs_of[i] >= 0)
      used[out->rhs_of[i]] = 1;
  }
  for (uint32_t j = 0; j < out->n_rhs; j++)
    if (!used[j])
      return 0;
  return 1;
}
