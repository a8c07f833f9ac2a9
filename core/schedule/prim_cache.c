/*
 * cache_read and cache_write (TVM tir.Schedule semantics).
 *
 * Both allocate "<buffer>_<scope>" in the scope block (the block around
 * the target), add a copy stage named like it, and redirect accesses:
 * cache_read makes the consumers read the cache, which the stage fills
 * from the buffer; cache_write makes the writer (and consumer_blocks)
 * use the cache, and the stage copies it back. The stage goes where TVM's
 * CacheLocDetector puts it: in the innermost SEQ holding the producer and
 * the first related block, right before that block (top of the scope for
 * a function input; end of the scope when nothing reads the result).
 * The copied region is the producer's write region relaxed over the loops
 * under that point (tightened by split-style T.where conjuncts). When the stage lands directly in the scope (no loop
 * around it), the cache is compact: its shape is the region's extent and
 * accesses are shifted by the region's minimum, as TVM does.
 * The operands, the single writer, the location and the stage builder are
 * shared with the rest of the cache family (cache_internal.h).
 */
#include "cache_internal.h"

#include <string.h>

int cache_has_block(const tsl_block *const *xs, uint32_t n,
                    const tsl_block *b) {
  for (uint32_t i = 0; i < n; i++)
    if (xs[i] == b)
      return 1;
  return 0;
}

const tsl_block *cache_kid(const cache_op *op, uint32_t i) {
  return sch_path_block(&op->kids[i]);
}

/* ---- operands -------------------------------------------------------------- */

int cache_load(cache_op *op, sch_call *c, int is_write, uint32_t index_arg,
               uint32_t scope_arg, int consumers_arg) {
  memset(op, 0, sizeof *op);
  op->c = c;
  op->writer = -1;
  const char *scope = c->args[scope_arg].u.s;
  op->is_write = is_write;
  op->scope_name = scope;
  if (!sto_scope_valid(scope))
    return sch_fail(c, TSL_EINVALID,
                    "storage scope \"%s\" is invalid; valid scopes: %s", scope,
                    sto_scope_list());
  int rc = sch_block_path(c, c->args[0].u.rv, &op->p);
  if (rc)
    return rc;
  op->blk = sch_path_block(&op->p);
  rc = sch_buffer_index_arg(c, op->blk, index_arg, is_write);
  if (rc)
    return rc;
  rc = sto_check_index(c, op->blk, c->args[index_arg].u.i, is_write,
                       c->kind->params[index_arg].name);
  if (rc)
    return rc;
  op->buf = is_write ? op->blk->writes[c->args[index_arg].u.i].buffer
                     : op->blk->reads[c->args[index_arg].u.i].buffer;
  if (op->p.depth < 2)
    return sch_fail(c, TSL_EINVALID, "block '%s' is the root block",
                    op->blk->name);
  op->scope = sch_path_scope_level(&op->p, op->p.depth - 1);
  sch_path sp = op->p;
  sp.depth = op->scope + 1;
  op->n_kids = sch_child_blocks(c, &sp, &op->kids);

  const tsl_sch_value *cb = consumers_arg >= 0 ? &c->args[consumers_arg] : NULL;
  if (cb && cb->kind == TSL_SV_LIST && cb->n) {
    op->cons = TSL_NEW_ARRAY(c->arena, const tsl_block *, cb->n);
    for (uint32_t i = 0; i < cb->n; i++) {
      sch_path cp;
      rc = sch_block_path(c, cb->u.items[i].u.rv, &cp);
      if (rc)
        return rc;
      const tsl_block *b = sch_path_block(&cp);
      int found = 0;
      for (uint32_t k = 0; k < op->n_kids && !found; k++)
        found = cache_kid(op, k) == b;
      if (!found)
        return sch_fail(c, TSL_EINVALID,
                        "consumer block '%s' is not a child block of '%s', "
                        "the scope block of '%s'",
                        b->name, sch_path_block(&sp)->name, op->blk->name);
      if (b == op->blk && is_write)
        return sch_fail(c, TSL_EINVALID,
                        "consumer block '%s' is the block being cached",
                        b->name);
      op->cons[op->n_cons++] = b;
    }
  }
  return TSL_OK;
}

int cache_find_writer(cache_op *op, int *out) {
  *out = -1;
  uint32_t n = 0;
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  for (uint32_t i = 0; i < op->n_kids; i++) {
    const tsl_block *b = cache_kid(op, i);
    if (!sch_regions_have(b->writes, b->n_writes, op->buf))
      continue;
    tsl_strbuf_printf(&sb, "%s'%s'", n ? ", " : "", b->name);
    if (n++ == 0)
      *out = (int)i;
  }
  if (n > 1) {
    sch_fail(op->c, TSL_EINVALID,
             "buffer '%s' is written by %u blocks (%s); %s needs a single "
             "writer block in the scope",
             op->buf->name, n, sb.data, op->c->kind->name);
    tsl_strbuf_free(&sb);
    return TSL_EINVALID;
  }
  tsl_strbuf_free(&sb);
  return TSL_OK;
}

void cache_commit_scope(cache_op *op, const tsl_stmt *body,
                        const tsl_buffer *alloc) {
  sch_call *c = op->c;
  const tsl_stmt *scope_real = op->p.stmts[op->scope];
  const tsl_block *scope_blk = scope_real->u.realize.block;
  tsl_block *nb = tsl_block_clone(c->arena, scope_blk);
  nb->body = body;
  if (alloc) {
    const tsl_buffer **al = TSL_NEW_ARRAY(c->arena, const tsl_buffer *,
                                          scope_blk->n_alloc_buffers + 1);
    if (scope_blk->n_alloc_buffers)
      memcpy(al, scope_blk->alloc_buffers,
             sizeof *al * scope_blk->n_alloc_buffers);
    al[scope_blk->n_alloc_buffers] = alloc;
    nb->alloc_buffers = al;
    nb->n_alloc_buffers = scope_blk->n_alloc_buffers + 1;
  }
  const tsl_stmt *nr = sch_with_block(c->arena, scope_real, nb);
  sch_commit(c, op->p.func, sch_path_rebuild(c->arena, &op->p, op->scope, nr));
}

/* ---- where the stage goes ------------------------------------------------------ */

typedef struct det {
  tsl_stmt_visitor v;
  const tsl_block *writer;
  const tsl_block *const *related;
  uint32_t n_related;
  int vb, vr, loops, in_loop;
  const tsl_stmt *loc_seq;
  int loc_pos;
} det;

/* Visitor callbacks; a SEQ walks its items itself (vb is per SEQ) and the
 * walk stops (returns 1) where the stage goes. */
static int det_stmt(const tsl_stmt *s, void *ud) {
  det *d = ud;
  if (s->kind == TSL_STMT_FOR) {
    d->loops++;
  } else if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    const tsl_block *b = s->u.realize.block;
    if (b == d->writer)
      d->vb = 1;
    else if (cache_has_block(d->related, d->n_related, b))
      d->vr = 1;
    return TSL_VISIT_SKIP;
  } else if (s->kind == TSL_STMT_SEQ) {
    int prev = d->vb;
    d->vb = 0;
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      if (tsl_stmt_visit(s->u.seq.stmts[i], &d->v))
        return 1; /* found in a nested SEQ */
      if (d->vb && d->vr) {
        d->loc_pos = (int)i;
        d->loc_seq = s;
        d->in_loop = d->loops > 0;
        return 1;
      }
      if (d->vr)
        break;
    }
    d->vb = d->vb || prev;
    return TSL_VISIT_SKIP;
  }
  return 0;
}

static int det_post(const tsl_stmt *s, void *ud) {
  ((det *)ud)->loops -= s->kind == TSL_STMT_FOR;
  return 0;
}

int cache_locate(cache_op *op) {
  const tsl_stmt *body = op->p.stmts[op->scope]->u.realize.block->body;
  if (op->n_related == 0) {
    /* nothing reads the result: the end of the scope */
    op->loc_seq = body->kind == TSL_STMT_SEQ ? body : NULL;
    op->loc_pos = body->kind == TSL_STMT_SEQ ? body->u.seq.n : 1;
    return TSL_OK;
  }
  det d = {.v = {.stmt = det_stmt, .stmt_post = det_post}};
  d.v.user_data = &d;
  d.writer = op->writer >= 0 ? cache_kid(op, (uint32_t)op->writer) : NULL;
  d.related = op->related;
  d.n_related = op->n_related;
  tsl_stmt_visit(body, &d.v);
  if (d.loc_seq) {
    op->loc_seq = d.loc_seq;
    op->loc_pos = (uint32_t)d.loc_pos;
    op->in_loop = d.in_loop;
    return TSL_OK;
  }
  if (!d.vr)
    return sch_fail(op->c, TSL_EINVALID,
                    "no consumer block of '%s' was found in the scope",
                    op->buf->name);
  if (d.vb)
    return sch_fail(op->c, TSL_EINVALID,
                    "a consumer of '%s' comes before its producer '%s'; cannot "
                    "place the cache stage",
                    op->buf->name, d.writer->name);
  op->loc_seq = body->kind == TSL_STMT_SEQ ? body : NULL;
  op->loc_pos = 0;
  return TSL_OK;
}

/* ---- the copied region -------------------------------------------------------------- */

static const tsl_expr *add(sch_call *c, const tsl_expr *x, const tsl_expr *y) {
  if (y->dtype.bits != x->dtype.bits)
    y = tsl_expr_cast(c->arena, x->dtype, y);
  return sch_simplify(c, tsl_expr_binary(c->arena, TSL_EXPR_ADD, x, y));
}
static const tsl_expr *sub(sch_call *c, const tsl_expr *x, const tsl_expr *y) {
  if (y->dtype.bits != x->dtype.bits)
    y = tsl_expr_cast(c->arena, x->dtype, y);
  return sch_simplify(c, tsl_expr_binary(c->arena, TSL_EXPR_SUB, x, y));
}

/* e with every subexpression structurally equal to `pat` replaced. */
static const tsl_expr *replace_sub(sch_call *c, const tsl_expr *e,
                                   const tsl_expr *pat, const tsl_expr *with) {
  if (tsl_expr_equal(e, pat))
    return with;
  if (e->n_args == 0)
    return e;
  const tsl_expr **args = TSL_NEW_ARRAY(c->arena, const tsl_expr *, e->n_args);
  int ch = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = replace_sub(c, e->args[i], pat, with);
    ch |= args[i] != e->args[i];
  }
  return ch ? tsl_expr_with_args(c->arena, e, e->n_args, args) : e;
}

static int uses_any(const tsl_expr *e, const tsl_var *const *vars, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (tsl_expr_uses_var(e, vars[i]))
      return 1;
  return 0;
}

static uint32_t conjuncts(const tsl_expr *p, const tsl_expr **out,
                          uint32_t n, uint32_t cap) {
  if (p->kind == TSL_EXPR_AND) {
    n = conjuncts(p->args[0], out, n, cap);
    return conjuncts(p->args[1], out, n, cap);
  }
  if (n < cap)
    out[n++] = p;
  return n;
}

/* Region of the producer's writes to the buffer, relaxed over the loops
 * between the producer and the insertion point, clipped to the shape when
 * constant. A T.where conjunct `L < c` (L over relaxed loops, as split
 * makes) tightens the region where L occurs in an index. Sets op->loose
 * when the region may cover points the producer does not write. */
static void relax_region(cache_op *op, tsl_range *out) {
  sch_call *c = op->c;
  const sch_path *wp = &op->kids[op->writer];
  const tsl_stmt *real = sch_path_target(wp);
  const tsl_block *w = real->u.realize.block;
  const tsl_buffer_region *reg = NULL;
  for (uint32_t i = 0; i < w->n_writes && !reg; i++)
    if (w->writes[i].buffer == op->buf)
      reg = &w->writes[i];

  uint32_t keep = op->scope;
  for (uint32_t k = op->scope + 1; k < wp->depth && op->loc_seq; k++)
    if (wp->stmts[k] == op->loc_seq)
      keep = k;
  uint32_t nv = 0, cap = wp->depth + 16;
  const tsl_var **vars = TSL_NEW_ARRAY(c->arena, const tsl_var *, cap);
  tsl_range *doms = TSL_NEW_ARRAY(c->arena, tsl_range, cap);
  for (uint32_t k = 0; k + 1 < wp->depth; k++) {
    const tsl_stmt *s = wp->stmts[k];
    if (s->kind == TSL_STMT_FOR) {
      tsl_analyzer_bind(c->sch->an, s->u.loop.loop_var, s->u.loop.min,
                        s->u.loop.extent);
      if (k > keep) {
        vars[nv] = s->u.loop.loop_var;
        doms[nv++] = (tsl_range){s->u.loop.min, s->u.loop.extent};
      }
    } else if (s->kind == TSL_STMT_BLOCK_REALIZE) {
      const tsl_block *b = s->u.realize.block;
      for (uint32_t i = 0; i < b->n_iter_vars; i++)
        tsl_analyzer_bind(c->sch->an, b->iter_vars[i].var,
                          b->iter_vars[i].dom.min, b->iter_vars[i].dom.extent);
    }
  }
  uint32_t n_loops = nv;
  uint32_t nd = reg->ndim;
  const tsl_expr **mn = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
  const tsl_expr **last = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
  for (uint32_t d = 0; d < nd; d++) {
    mn[d] = sch_subst_bindings(c, real, reg->ranges[d].min);
    const tsl_expr *ext = sch_subst_bindings(c, real, reg->ranges[d].extent);
    int64_t e1;
    last[d] = tsl_expr_is_const_int(ext, &e1) && e1 == 1
                  ? mn[d]
                  : sub(c, add(c, mn[d], ext), tsl_expr_int(c->arena, mn[d]->dtype, 1));
  }

  /* the predicate: bounded subexpressions become fresh variables */
  const tsl_expr *conj[16];
  uint32_t nc = conjuncts(real->u.realize.predicate, conj, 0, 16);
  int pred_vars = 0, unabsorbed = 0;
  /* loops of the conjuncts absorbed into fresh variables */
  char *absorbed = TSL_NEW_ARRAY(c->arena, char, n_loops ? n_loops : 1);
  for (uint32_t i = 0; i < nc; i++) {
    const tsl_expr *p = conj[i];
    if (!uses_any(p, vars, n_loops))
      continue;
    pred_vars = 1;
    int64_t bound, lo_c, ext_c;
    tsl_range r;
    if (p->kind != TSL_EXPR_LT || !tsl_expr_is_const_int(p->args[1], &bound) ||
        nv >= cap ||
        tsl_analyzer_relax(c->sch->an, c->arena, p->args[0], n_loops, vars,
                           doms, &r) ||
        !tsl_expr_is_const_int(r.min, &lo_c) ||
        !tsl_expr_is_const_int(r.extent, &ext_c)) {
      unabsorbed = 1;
      continue;
    }
    int64_t hi = lo_c + ext_c < bound ? lo_c + ext_c : bound;
    if (hi <= lo_c) {
      unabsorbed = 1;
      continue;
    }
    for (uint32_t k = 0; k < n_loops; k++)
      absorbed[k] |= tsl_expr_uses_var(p->args[0], vars[k]);
    const tsl_var *t = sch_new_var(c, "t", p->args[0]->dtype);
    vars[nv] = t;
    doms[nv++] = (tsl_range){tsl_expr_int(c->arena, t->dtype, lo_c),
                             tsl_expr_int(c->arena, t->dtype, hi - lo_c)};
    for (uint32_t d = 0; d < nd; d++) {
      mn[d] = replace_sub(c, mn[d], p->args[0], tsl_expr_var(t));
      last[d] = replace_sub(c, last[d], p->args[0], tsl_expr_var(t));
    }
  }
  op->loose = 0;
  /* the first and the last index of every dimension, relaxed together */
  const tsl_expr **ends = TSL_NEW_ARRAY(c->arena, const tsl_expr *, 2 * nd + 1);
  tsl_range *got = TSL_NEW_ARRAY(c->arena, tsl_range, 2 * nd + 1);
  int *ok = TSL_NEW_ARRAY(c->arena, int, 2 * nd + 1);
  for (uint32_t d = 0; d < nd; d++) {
    ends[2 * d] = mn[d];
    ends[2 * d + 1] = last[d];
  }
  tsl_analyzer_relax_n(c->sch->an, c->arena, 2 * nd, ends, nv, vars, doms, got, ok);
  for (uint32_t d = 0; d < nd; d++) {
    const tsl_expr *shape = op->buf->shape[d];
    const tsl_expr *zero = tsl_expr_int(c->arena, shape->dtype, 0);
    /* exact when every conjunct over the loops became a variable and no
     * index still uses a loop of one (the region is then a box) */
    for (uint32_t k = 0; k < n_loops && pred_vars; k++)
      if ((unabsorbed || absorbed[k]) &&
          (tsl_expr_uses_var(mn[d], vars[k]) || tsl_expr_uses_var(last[d], vars[k])))
        op->loose = 1;
    if (!ok[2 * d] || !ok[2 * d + 1]) {
      out[d] = (tsl_range){zero, shape};
      op->loose = 1;
      continue;
    }
    const tsl_range *r1 = &got[2 * d], *r2 = &got[2 * d + 1];
    const tsl_expr *lo = r1->min;
    const tsl_expr *hi = add(c, r2->min, r2->extent); /* exclusive */
    int64_t l, h, s;
    if (tsl_expr_is_const_int(lo, &l) && l < 0)
      lo = zero;
    if (tsl_expr_is_const_int(hi, &h) && tsl_expr_is_const_int(shape, &s) &&
        h > s)
      hi = shape;
    out[d] = (tsl_range){sch_simplify(c, lo), sub(c, hi, lo)};
  }
}

/* Bits of guard[d]: the region may start below 0 (GUARD_LO) or end past
 * the shape (GUARD_HI) in dimension d (symbolic bounds). */
enum { GUARD_LO = CACHE_GUARD_LO, GUARD_HI = CACHE_GUARD_HI };

/* Variables around the target block with a symbolic domain (the analyzer
 * keeps constant bounds only): bounds over them are proved by relaxing. */
static uint32_t symbolic_vars(cache_op *op, const tsl_var **vars, tsl_range *doms) {
  uint32_t n = 0;
  for (uint32_t k = 0; k + 1 < op->p.depth; k++) {
    const tsl_stmt *s = op->p.stmts[k];
    if (s->kind == TSL_STMT_FOR) {
      if (!tsl_expr_is_const_int(s->u.loop.extent, NULL)) {
        vars[n] = s->u.loop.loop_var;
        doms[n++] = (tsl_range){s->u.loop.min, s->u.loop.extent};
      }
    } else if (s->kind == TSL_STMT_BLOCK_REALIZE) {
      const tsl_block *b = s->u.realize.block;
      for (uint32_t i = 0; i < b->n_iter_vars && n < SCH_MAX_DEPTH; i++)
        if (!tsl_expr_is_const_int(b->iter_vars[i].dom.extent, NULL)) {
          vars[n] = b->iter_vars[i].var;
          doms[n++] = b->iter_vars[i].dom;
        }
    }
    if (n >= SCH_MAX_DEPTH)
      break;
  }
  return n;
}

/* lhs <= rhs for every value of the symbolic variables. */
static int prove_le(cache_op *op, const tsl_expr *lhs, const tsl_expr *rhs,
                    uint32_t nv, const tsl_var **vars, const tsl_range *doms) {
  sch_call *c = op->c;
  if (tsl_analyzer_can_prove(c->sch->an, tsl_expr_binary(c->arena, TSL_EXPR_LE, lhs, rhs)))
    return 1;
  if (!nv)
    return 0;
  tsl_range rl, rr;
  if (tsl_analyzer_relax(c->sch->an, c->arena, lhs, nv, vars, doms, &rl) ||
      tsl_analyzer_relax(c->sch->an, c->arena, rhs, nv, vars, doms, &rr))
    return 0;
  /* max(lhs) <= min(rhs) */
  const tsl_expr *mx = sub(c, add(c, rl.min, rl.extent), tsl_expr_int(c->arena, rl.min->dtype, 1));
  return tsl_analyzer_can_prove(c->sch->an,
                                tsl_expr_binary(c->arena, TSL_EXPR_LE, mx, rr.min));
}

static int out_of_bounds(cache_op *op, const tsl_range *region, int *guard) {
  sch_call *c = op->c;
  int any = 0;
  const tsl_var *vars[SCH_MAX_DEPTH];
  tsl_range doms[SCH_MAX_DEPTH];
  uint32_t nv = symbolic_vars(op, vars, doms);
  for (uint32_t d = 0; d < op->buf->ndim; d++) {
    const tsl_expr *end = add(c, region[d].min, region[d].extent);
    const tsl_expr *shape = op->buf->shape[d];
    if (shape->dtype.bits != end->dtype.bits)
      shape = tsl_expr_cast(c->arena, end->dtype, shape);
    const tsl_expr *zero = tsl_expr_int(c->arena, region[d].min->dtype, 0);
    guard[d] = (prove_le(op, zero, region[d].min, nv, vars, doms) ? 0 : GUARD_LO) |
               (prove_le(op, end, shape, nv, vars, doms) ? 0 : GUARD_HI);
    any |= guard[d];
  }
  return any;
}

/* Binds the loops and block iterators around the scope (and the scope's
 * own iterators) so bounds of the region can be proved. */
static void bind_scope(cache_op *op) {
  tsl_analyzer *an = op->c->sch->an;
  for (uint32_t k = 0; k <= op->scope; k++) {
    const tsl_stmt *s = op->p.stmts[k];
    if (s->kind == TSL_STMT_FOR) {
      tsl_analyzer_bind(an, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent);
    } else if (s->kind == TSL_STMT_BLOCK_REALIZE) {
      const tsl_block *b = s->u.realize.block;
      for (uint32_t i = 0; i < b->n_iter_vars; i++)
        tsl_analyzer_bind(an, b->iter_vars[i].var, b->iter_vars[i].dom.min,
                          b->iter_vars[i].dom.extent);
    }
  }
}

/* ---- the stage ------------------------------------------------------------------------ */

/* min + v as TVM builds it: folded only when min is 0. */
static const tsl_expr *offset_var(sch_call *c, const tsl_expr *min,
                                  const tsl_expr *v) {
  int64_t k;
  if (tsl_expr_is_const_int(min, &k) && k == 0)
    return v;
  if (min->dtype.bits != v->dtype.bits)
    min = tsl_expr_cast(c->arena, v->dtype, min);
  return tsl_expr_binary(c->arena, TSL_EXPR_ADD, min, v);
}

const tsl_stmt *cache_make_stage(cache_op *op, tsl_str name,
                                  const tsl_buffer *cache,
                                  const tsl_range *region, int compact,
                                  const int *guard) {
  sch_call *c = op->c;
  tsl_arena *a = c->arena;
  uint32_t nd = op->buf->ndim;
  const tsl_var **loops = TSL_NEW_ARRAY(a, const tsl_var *, nd);
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, nd);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, nd);
  const tsl_expr **orig_idx = TSL_NEW_ARRAY(a, const tsl_expr *, nd);
  const tsl_expr **cache_idx = TSL_NEW_ARRAY(a, const tsl_expr *, nd);
  tsl_range *orig_rg = TSL_NEW_ARRAY(a, tsl_range, nd);
  tsl_range *cache_rg = TSL_NEW_ARRAY(a, tsl_range, nd);
  char nm[32];
  for (uint32_t d = 0; d < nd; d++) {
    tsl_dtype dt = region[d].extent->dtype;
    loops[d] = sch_new_var(c, sch_name_join(nm, sizeof nm, "ax", NULL, d), dt);
    sch_name_join(nm, sizeof nm, "v", NULL, d);
    const tsl_var *v = sch_new_var(c, nm, dt);
    const tsl_expr *zero = tsl_expr_int(a, dt, 0);
    const tsl_expr *one = tsl_expr_int(a, dt, 1);
    ivs[d].var = v;
    ivs[d].iter_type = TSL_ITER_SPATIAL;
    ivs[d].dom = (tsl_range){zero, compact ? region[d].extent : op->buf->shape[d]};
    vals[d] = compact ? tsl_expr_var(loops[d])
                      : offset_var(c, region[d].min, tsl_expr_var(loops[d]));
    cache_idx[d] = tsl_expr_var(v);
    orig_idx[d] =
        compact ? offset_var(c, region[d].min, tsl_expr_var(v)) : tsl_expr_var(v);
    cache_rg[d] = (tsl_range){cache_idx[d], one};
    orig_rg[d] = (tsl_range){orig_idx[d], one};
  }
  const tsl_buffer *src = op->is_write ? cache : op->buf;
  const tsl_buffer *dst = op->is_write ? op->buf : cache;
  const tsl_expr *const *src_idx = op->is_write ? cache_idx : orig_idx;
  const tsl_expr *const *dst_idx = op->is_write ? orig_idx : cache_idx;
  tsl_buffer_region rd = {src, nd, op->is_write ? cache_rg : orig_rg};
  tsl_buffer_region wr = {dst, nd, op->is_write ? orig_rg : cache_rg};
  tsl_block *b = TSL_NEW(a, tsl_block);
  b->name = name;
  b->n_iter_vars = nd;
  b->iter_vars = ivs;
  b->n_reads = 1;
  b->reads = tsl_arena_dup(a, &rd, sizeof rd);
  b->n_writes = 1;
  b->writes = tsl_arena_dup(a, &wr, sizeof wr);
  b->body = tsl_stmt_store(a, dst, tsl_expr_load(a, src, nd, src_idx), nd,
                           dst_idx);
  /* guard: original index = min + ax stays inside [0, shape) */
  const tsl_expr *pred = NULL;
  for (uint32_t d = 0; d < nd; d++) {
    if (!guard || !guard[d])
      continue;
    const tsl_expr *idx = offset_var(c, region[d].min, tsl_expr_var(loops[d]));
    if (guard[d] & GUARD_LO) {
      const tsl_expr *ok = tsl_expr_binary(
          a, TSL_EXPR_LE, tsl_expr_int(a, idx->dtype, 0), idx);
      pred = pred ? tsl_expr_binary(a, TSL_EXPR_AND, pred, ok) : ok;
    }
    if (guard[d] & GUARD_HI) {
      const tsl_expr *shape = op->buf->shape[d];
      if (shape->dtype.bits != idx->dtype.bits)
        shape = tsl_expr_cast(a, idx->dtype, shape);
      const tsl_expr *ok = tsl_expr_binary(a, TSL_EXPR_LT, idx, shape);
      pred = pred ? tsl_expr_binary(a, TSL_EXPR_AND, pred, ok) : ok;
    }
  }
  const tsl_stmt *s = tsl_stmt_block_realize(a, nd, vals,
                                             pred ? pred : tsl_expr_bool(a, 1), b);
  for (uint32_t d = nd; d-- > 0;)
    s = tsl_stmt_for(a, loops[d], tsl_expr_int(a, region[d].extent->dtype, 0),
                     region[d].extent, TSL_FOR_SERIAL, NULL, (tsl_attrs){0},
                     s);
  return s;
}

/* ---- rewriting ----------------------------------------------------------------------- */

static int read_mode(const tsl_block *b, void *ud) {
  const cache_op *op = ud;
  if (sch_regions_have(b->writes, b->n_writes, op->buf))
    return STO_SKIP;
  if (op->n_cons == 0 || cache_has_block(op->cons, op->n_cons, b))
    return STO_REWRITE;
  return STO_RECURSE;
}

static int write_mode(const tsl_block *b, void *ud) {
  const cache_op *op = ud;
  if (b == op->blk || cache_has_block(op->cons, op->n_cons, b))
    return STO_REWRITE;
  return STO_SKIP;
}

static int apply(cache_op *op) {
  sch_call *c = op->c;
  const tsl_buffer *buf = op->buf;
  const tsl_stmt *scope_real = op->p.stmts[op->scope];
  const tsl_block *scope_blk = scope_real->u.realize.block;
  tsl_range *region = TSL_NEW_ARRAY(c->arena, tsl_range, buf->ndim);

  if (op->writer < 0) {
    /* a function input: the top of the scope, the region the scope reads */
    const tsl_buffer_region *r = NULL;
    for (uint32_t i = 0; i < scope_blk->n_reads && !r; i++)
      if (scope_blk->reads[i].buffer == buf)
        r = &scope_blk->reads[i];
    for (uint32_t d = 0; d < buf->ndim; d++)
      region[d] = r ? r->ranges[d]
                    : (tsl_range){tsl_expr_int(c->arena, buf->shape[d]->dtype, 0),
                                  buf->shape[d]};
    op->loc_seq = scope_blk->body->kind == TSL_STMT_SEQ ? scope_blk->body : NULL;
    op->loc_pos = 0;
    op->in_loop = 0;
  } else {
    int rc = cache_locate(op);
    if (rc)
      return rc;
    relax_region(op, region);
  }
  /* A region past the buffer (a guarded padding read such as
   * data[v - 1] under T.if_then_else) is clamped to the buffer where the
   * bounds are constants: nothing outside it can be copied. */
  for (uint32_t d = 0; d < buf->ndim; d++) {
    int64_t lo, ext, size;
    if (tsl_expr_is_const_int(region[d].min, &lo) &&
        tsl_expr_is_const_int(region[d].extent, &ext) &&
        tsl_expr_is_const_int(buf->shape[d], &size) && (lo < 0 || lo + ext > size)) {
      int64_t nlo = lo < 0 ? 0 : lo, nhi = lo + ext > size ? size : lo + ext;
      if (nhi <= nlo)
        return sch_fail(c, TSL_EINVALID,
                        "block '%s' reads '%s' only outside its bounds in "
                        "dimension %u", op->blk->name, buf->name, d);
      tsl_dtype dt = region[d].min->dtype;
      region[d] = (tsl_range){tsl_expr_int(c->arena, dt, nlo),
                              tsl_expr_int(c->arena, region[d].extent->dtype, nhi - nlo)};
    }
  }
  /* A symbolic region past the buffer (the same read inside a loop) is
   * kept and the copy is guarded by a T.where keeping each index in
   * [0, shape); the consumer reads the missing points only under its own
   * guard. */
  bind_scope(op);
  int *guard = TSL_NEW_ARRAY(c->arena, int, buf->ndim);
  if (out_of_bounds(op, region, guard) && op->is_write)
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "cannot bound the region of '%s' that block '%s' writes "
                    "(its T.where predicate or indices make the copied region "
                    "leave the buffer); apply cache_write before splitting",
                    buf->name, op->blk->name);
  if (op->loose && op->is_write)
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "cannot bound the region of '%s' that block '%s' writes "
                    "under its T.where predicate; the copy-back would "
                    "overwrite elements it does not produce (apply "
                    "cache_write before splitting)",
                    buf->name, op->blk->name);
  int compact = !op->in_loop;
  const tsl_expr **shape = NULL;
  const tsl_expr **offset = NULL;
  if (compact) {
    shape = TSL_NEW_ARRAY(c->arena, const tsl_expr *, buf->ndim);
    offset = TSL_NEW_ARRAY(c->arena, const tsl_expr *, buf->ndim);
    for (uint32_t d = 0; d < buf->ndim; d++) {
      shape[d] = region[d].extent;
      offset[d] = region[d].min;
    }
    /* an opaque use (buf.data) addresses the whole buffer's layout */
    int part = 0;
    int64_t v;
    for (uint32_t d = 0; d < buf->ndim; d++)
      part |= !(tsl_expr_is_const_int(offset[d], &v) && v == 0) ||
              !tsl_expr_equal(shape[d], buf->shape[d]);
    if (part && tsl_stmt_uses_buffer_data(scope_blk->body, buf))
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "'%s' is accessed opaquely (through %s.data) and the "
                      "cache would hold only a part of it",
                      buf->name, buf->name);
  }
  const tsl_buffer *cache =
      sto_buffer_with_scope(c, buf, op->scope_name, compact ? shape : NULL);
  char base[512];
  size_t len = strlen(sch_name_join(base, sizeof base, buf->name, "_", -1));
  sch_name_join(base + len, sizeof base - len, op->scope_name, NULL, -1);
  tsl_str name = sch_fresh_block_name(c, op->p.func, base);
  const tsl_stmt *stage = cache_make_stage(op, name, cache, region, compact, guard);

  sto_rw rw;
  sto_rw_init(&rw, c, buf, cache);
  rw.offset = offset;
  rw.block_mode = op->is_write ? write_mode : read_mode;
  rw.ud = op;
  rw.place = (sto_place){op->loc_seq, op->loc_pos, stage, 0};
  const tsl_stmt *body = sto_place_finish(c->arena, &rw.place, sto_rw_stmt(&rw, scope_blk->body));
  if (!body)
    return sch_fail(c, TSL_EINVALID, "cache stage insertion point lost");

  cache_commit_scope(op, body, cache);
  sch_out_block(c, op->p.func->name, name);
  return TSL_OK;
}

int cache_region_under(sch_call *c, const sch_path *kp, uint32_t top,
                        const tsl_buffer_region *r, const tsl_expr **mn,
                        const tsl_expr **mx) {
  const tsl_stmt *real = sch_path_target(kp);
  const tsl_var **vars = TSL_NEW_ARRAY(c->arena, const tsl_var *, kp->depth + 1);
  tsl_range *doms = TSL_NEW_ARRAY(c->arena, tsl_range, kp->depth + 1);
  uint32_t nv = 0;
  for (uint32_t k = top + 1; k + 1 < kp->depth; k++) {
    const tsl_stmt *s = kp->stmts[k];
    if (s->kind == TSL_STMT_FOR) {
      vars[nv] = s->u.loop.loop_var;
      doms[nv++] = (tsl_range){s->u.loop.min, s->u.loop.extent};
    } else if (s->kind == TSL_STMT_BLOCK_REALIZE) {
      return 0; /* a block between: not a direct child */
    }
  }
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_expr *lo = sch_subst_bindings(c, real, r->ranges[d].min);
    const tsl_expr *ext = sch_subst_bindings(c, real, r->ranges[d].extent);
    const tsl_expr *hi = sub(c, add(c, lo, ext), tsl_expr_int(c->arena, lo->dtype, 1));
    tsl_range r1, r2;
    if (tsl_analyzer_relax(c->sch->an, c->arena, lo, nv, vars, doms, &r1) ||
        tsl_analyzer_relax(c->sch->an, c->arena, hi, nv, vars, doms, &r2))
      return 0;
    mn[d] = r1.min;
    mx[d] = sub(c, add(c, r2.min, r2.extent), tsl_expr_int(c->arena, lo->dtype, 1));
  }
  return 1;
}

/* A writer with child blocks may read the buffer it writes when each
 * child reading it comes after a child writing a region that covers the
 * read (the values then come from the cache the block fills). */
static int reads_follow_writes(cache_op *op) {
  sch_call *c = op->c;
  sch_path *kids;
  uint32_t n = sch_child_blocks(c, &op->p, &kids);
  if (!n)
    return 0;
  const tsl_block *blk = op->blk;
  for (uint32_t i = 0; i < blk->n_iter_vars; i++)
    tsl_analyzer_bind(c->sch->an, blk->iter_vars[i].var, blk->iter_vars[i].dom.min,
                      blk->iter_vars[i].dom.extent);
  uint32_t nd = op->buf->ndim, top = op->p.depth - 1;
  const tsl_expr ***wmin = TSL_NEW_ARRAY(c->arena, const tsl_expr **, n);
  const tsl_expr ***wmax = TSL_NEW_ARRAY(c->arena, const tsl_expr **, n);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_block *k = sch_path_block(&kids[i]);
    for (uint32_t r = 0; r < k->n_reads; r++) {
      if (k->reads[r].buffer != op->buf)
        continue;
      const tsl_expr **mn = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
      const tsl_expr **mx = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
      if (!cache_region_under(c, &kids[i], top, &k->reads[r], mn, mx))
        return 0;
      int covered = 0;
      for (uint32_t j = 0; j < i && !covered; j++) {
        if (!wmin[j])
          continue;
        covered = 1;
        for (uint32_t d = 0; d < nd && covered; d++)
          covered = tsl_analyzer_can_prove(
                        c->sch->an, tsl_expr_binary(c->arena, TSL_EXPR_LE, wmin[j][d], mn[d])) &&
                    tsl_analyzer_can_prove(
                        c->sch->an, tsl_expr_binary(c->arena, TSL_EXPR_LE, mx[d], wmax[j][d]));
      }
      if (!covered)
        return 0;
    }
    for (uint32_t w = 0; w < k->n_writes; w++) {
      if (k->writes[w].buffer != op->buf)
        continue;
      wmin[i] = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
      wmax[i] = TSL_NEW_ARRAY(c->arena, const tsl_expr *, nd);
      if (!cache_region_under(c, &kids[i], top, &k->writes[w], wmin[i], wmax[i]))
        wmin[i] = NULL;
      break;
    }
  }
  return 1;
}

int sch_apply_cache_read(sch_call *c) {
  cache_op op;
  int rc = cache_load(&op, c, 0, 1, 2, 3);
  if (rc)
    return rc;
  /* TVM: every block of the scope reading the buffer has region cover */
  sch_path sp = op.p;
  sp.depth = op.scope + 1;
  if ((rc = sch_check_region_cover(c, &sp, op.buf)))
    return rc;
  rc = cache_find_writer(&op, &op.writer);
  if (rc)
    return rc;
  if (op.n_cons) {
    op.related = op.cons;
    op.n_related = op.n_cons;
  } else if (op.writer >= 0) {
    op.related = TSL_NEW_ARRAY(c->arena, const tsl_block *, op.n_kids);
    for (uint32_t i = (uint32_t)op.writer + 1; i < op.n_kids; i++)
      if (sch_regions_have(cache_kid(&op, i)->reads, cache_kid(&op, i)->n_reads, op.buf))
        op.related[op.n_related++] = cache_kid(&op, i);
  }
  return apply(&op);
}

int sch_apply_cache_write(sch_call *c) {
  cache_op op;
  int rc = cache_load(&op, c, 1, 1, 2, 3);
  if (rc)
    return rc;
  rc = cache_find_writer(&op, &op.writer);
  if (rc)
    return rc;
  if (op.writer < 0 || cache_kid(&op, (uint32_t)op.writer) != op.blk)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' is not the writer of '%s' in its scope",
                    op.blk->name, op.buf->name);
  if (!op.blk->init && sch_regions_have(op.blk->reads, op.blk->n_reads, op.buf) &&
      !reads_follow_writes(&op))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' reads '%s' before writing it (an update "
                    "without T.init()); the cache would start uninitialized",
                    op.blk->name, op.buf->name);
  op.related = TSL_NEW_ARRAY(c->arena, const tsl_block *, op.n_kids);
  for (uint32_t i = (uint32_t)op.writer + 1; i < op.n_kids; i++) {
    const tsl_block *b = cache_kid(&op, i);
    if (sch_regions_have(b->reads, b->n_reads, op.buf) &&
        !cache_has_block(op.cons, op.n_cons, b))
      op.related[op.n_related++] = b;
  }
  return apply(&op);
}
