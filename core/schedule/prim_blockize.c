/*
 * prim_blockize.c: blockize(target, preserve_unit_iters).
 *
 * The loops from `target` down to the one block beneath it become the body
 * of a new outer block `<name>_o`. Each binding of the inner block is
 * divided into a part that depends on loops outside `target` and a part
 * that depends only on loops inside it (binding = outer * c + inner, with
 * 0 <= inner < c); the outer block iterates over the outer parts, the inner
 * block over the inner parts, and the inner block's iter variables are
 * rewritten to outer_iter * c + inner_iter. An init of the inner block
 * moves into the outer block as a loop nest around a block `<name>_init`.
 * Semantics follow TVM's Schedule.blockize; see README.md for the limits.
 * A list of blocks: prim_blockize_blocks.c.
 */
#include "bz_internal.h"

#include "tessel/script.h"
#include "tessel/visit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* An expression as text, for messages (arena copy). */
static const char *ex_str(tsl_arena *a, const tsl_expr *e) {
  char *s = tsl_print_expr(e);
  const char *r = tsl_arena_strdup(a, s ? s : "?");
  free(s);
  return r;
}

static int is_inner(const bz_ctx *x, const tsl_var *v) {
  for (uint32_t k = 0; k < x->n_loops; k++)
    if (x->loops[k]->u.loop.loop_var == v)
      return 1;
  return 0;
}

typedef struct var_use {
  const bz_ctx *x;
  int inner, outer;
} var_use;

static int var_use_fn(const tsl_expr *e, void *ud) {
  var_use *u = ud;
  if (e->kind == TSL_EXPR_VAR) {
    if (is_inner(u->x, e->u.var))
      u->inner = 1;
    else
      u->outer = 1;
  }
  return 0;
}

static void uses(const bz_ctx *x, const tsl_expr *e, int *inner, int *outer) {
  var_use u = {x, 0, 0};
  tsl_expr_visit(e, var_use_fn, &u);
  *inner = u.inner;
  *outer = u.outer;
}

/* ---- subspace division ---------------------------------------------------- */

typedef struct terms {
  const tsl_expr *outer, *inner;
  int mixed;
} terms;

static void add_term(tsl_arena *a, const tsl_expr **sum, const tsl_expr *t,
                     int64_t coef) {
  if (coef != 1)
    t = tsl_expr_binary(a, TSL_EXPR_MUL, t, tsl_expr_int(a, t->dtype, coef));
  *sum = *sum ? tsl_expr_binary(a, TSL_EXPR_ADD, *sum, t) : t;
}

/* Splits a sum into terms that use loops inside the target and the rest. */
static void split_terms(const bz_ctx *x, const tsl_expr *e, int64_t coef,
                        terms *t) {
  int64_t k;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_ADD:
    split_terms(x, e->args[0], coef, t);
    split_terms(x, e->args[1], coef, t);
    return;
  case TSL_EXPR_SUB:
    split_terms(x, e->args[0], coef, t);
    split_terms(x, e->args[1], -coef, t);
    return;
  case TSL_EXPR_NEG:
    split_terms(x, e->args[0], -coef, t);
    return;
  case TSL_EXPR_MUL:
    if (tsl_expr_is_const_int(e->args[1], &k)) {
      split_terms(x, e->args[0], coef * k, t);
      return;
    }
    if (tsl_expr_is_const_int(e->args[0], &k)) {
      split_terms(x, e->args[1], coef * k, t);
      return;
    }
    break;
  default:
    break;
  }
  int in, out;
  uses(x, e, &in, &out);
  if (in && out)
    t->mixed = 1;
  else if (in)
    add_term(x->a, &t->inner, e, coef);
  else
    add_term(x->a, &t->outer, e, coef);
}

/* The division of one binding: binding == outer * inner_ext + inner. */
typedef struct division {
  const tsl_expr *outer, *outer_ext;
  const tsl_expr *inner, *inner_ext;
  int64_t cover; /* outer values the loops reach, ignoring any predicate;
                    0: unknown */
} division;

static int is_const(const tsl_expr *e, int64_t v) {
  int64_t k;
  return tsl_expr_is_const_int(e, &k) && k == v;
}

static int divide(bz_ctx *x, const tsl_block *b, uint32_t i,
                  const tsl_expr *e, division *d) {
  sch_call *c = x->c;
  const tsl_iter_var *iv = &b->iter_vars[i];
  tsl_dtype dt = iv->var->dtype;
  const tsl_expr *zero = tsl_expr_int(x->a, dt, 0), *one = tsl_expr_int(x->a, dt, 1);
  int in, out;
  uses(x, e, &in, &out);
  if (!in) {
    int64_t k;
    int zero_const = tsl_expr_is_const_int(e, &k) && k == 0;
    *d = (division){e, zero_const ? one : iv->dom.extent, zero, one, 0};
    int64_t lo, hi;
    if (!zero_const && tsl_analyzer_const_bound(x->an, e, &lo, &hi))
      d->cover = hi + 1;
    return TSL_OK;
  }
  terms t = {0};
  split_terms(x, e, 1, &t);
  if (t.mixed)
    return sch_fail(c, TSL_EINVALID,
                    "the binding of block '%s' iter '%s' (%s) has a term that "
                    "mixes loops inside and outside %s; blockize needs "
                    "bindings of the form outer * c + inner",
                    b->name, iv->var->name, ex_str(x->a, e), x->target_name);
  const tsl_expr *inner = tsl_simplify(x->an, x->a, t.inner);
  const tsl_expr *outer = t.outer ? tsl_simplify(x->an, x->a, t.outer) : zero;
  if (is_const(outer, 0)) {
    *d = (division){zero, one, inner, iv->dom.extent, 0};
    return TSL_OK;
  }
  int64_t lo, hi, dom;
  if (!tsl_analyzer_const_bound(x->an, inner, &lo, &hi) || lo != 0)
    return sch_fail(c, TSL_EINVALID,
                    "the part of block '%s' iter '%s' that loops inside %s "
                    "cover (%s) does not range over [0, c) for a constant "
                    "c",
                    b->name, iv->var->name, x->target_name,
                    ex_str(x->a, inner));
  int64_t cc = hi + 1;
  if (!tsl_expr_is_const_int(iv->dom.extent, &dom))
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "block '%s' iter '%s' has a symbolic extent %s; blockize "
                    "splits only iters of constant extent between loops "
                    "inside and outside %s",
                    b->name, iv->var->name, ex_str(x->a, iv->dom.extent),
                    x->target_name);
  const tsl_expr *ce = tsl_expr_int(x->a, dt, cc);
  const tsl_expr *rem = tsl_simplify(
      x->an, x->a, tsl_expr_binary(x->a, TSL_EXPR_FLOORMOD, outer, ce));
  if (!is_const(rem, 0))
    return sch_fail(c, TSL_EINVALID,
                    "the part of block '%s' iter '%s' that depends on loops "
                    "outside %s (%s) is not a multiple of %lld, the "
                    "number of values the inner loops cover",
                    b->name, iv->var->name, x->target_name,
                    ex_str(x->a, outer), (long long)cc);
  /* ceildiv covers every tile the predicate lets through; `cover` is what
   * the loops reach when the predicate stays inside */
  const tsl_expr *q = tsl_simplify(
      x->an, x->a, tsl_expr_binary(x->a, TSL_EXPR_FLOORDIV, outer, ce));
  int64_t ext = (dom + cc - 1) / cc, qlo, qhi;
  *d = (division){q, tsl_expr_int(x->a, dt, ext), inner, ce, 0};
  if (tsl_analyzer_const_bound(x->an, q, &qlo, &qhi))
    d->cover = qhi + 1;
  return TSL_OK;
}

/* ---- rewriting -------------------------------------------------------------- */

/* `e` with the variables `vars` binds replaced (var -> expr). */
static const tsl_expr *subst(tsl_arena *a, tsl_map *vars, const tsl_expr *e) {
  tsl_mutator m = tsl_mutator_make(a);
  m.vars = vars;
  return tsl_mutate_expr(&m, e);
}

/* subst, simplified when anything was replaced. */
static const tsl_expr *subst_simplify(bz_ctx *x, tsl_map *vars, const tsl_expr *e) {
  const tsl_expr *n = subst(x->a, vars, e);
  return n == e ? e : tsl_simplify(x->an, x->a, n);
}

static int has_load(const tsl_expr *e) {
  if (e->kind == TSL_EXPR_LOAD)
    return 1;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (e->args[i] && has_load(e->args[i]))
      return 1;
  return 0;
}

/* Mutator hook: the iter vars rewritten (x->sub) and each expression
 * without buffer loads (an index, a binding, a bound) simplified whole; a
 * value computed from loads keeps its shape (TVM's blockize substitutes
 * there without simplifying, so operands stay in the order tensorize's
 * comparison with an intrinsic's description expects). */
static const tsl_expr *sub_expr(tsl_mutator *m, const tsl_expr *e) {
  bz_ctx *x = m->user_data;
  if (has_load(e))
    return tsl_mutate_expr_children(m, e);
  return subst_simplify(x, &x->sub, e);
}

static const char *suffixed(tsl_arena *a, const char *name, const char *suf) {
  size_t n = strlen(name), m = strlen(suf);
  char *s = tsl_arena_alloc(a, n + m + 1);
  memcpy(s, name, n);
  memcpy(s + n, suf, m + 1);
  return s;
}

/* The region relaxed over the inner iter vars. */
static tsl_buffer_region relax_region(bz_ctx *x, const tsl_buffer_region *r,
                                      uint32_t n, const tsl_var *const *vars,
                                      const tsl_range *doms) {
  tsl_buffer_region out = *r;
  tsl_range *rs = TSL_NEW_ARRAY(x->a, tsl_range, r->ndim + 1);
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_range *g = &r->ranges[d];
    const tsl_expr *last = tsl_expr_binary(
        x->a, TSL_EXPR_SUB, tsl_expr_binary(x->a, TSL_EXPR_ADD, g->min, g->extent),
        tsl_expr_int(x->a, g->extent->dtype, 1));
    tsl_range lo, hi;
    if (tsl_analyzer_relax(x->an, x->a, g->min, n, vars, doms, &lo) ||
        tsl_analyzer_relax(x->an, x->a, last, n, vars, doms, &hi)) {
      rs[d].min = tsl_expr_int(x->a, g->min->dtype, 0);
      rs[d].extent = r->buffer->shape[d];
      continue;
    }
    rs[d].min = lo.min;
    rs[d].extent = tsl_simplify(
        x->an, x->a,
        tsl_expr_binary(x->a, TSL_EXPR_SUB,
                        tsl_expr_binary(x->a, TSL_EXPR_ADD, hi.min, hi.extent),
                        lo.min));
  }
  out.ranges = rs;
  return out;
}

static int uses_any_vals(const tsl_expr *const *vals, uint32_t n,
                         const tsl_var *v) {
  for (uint32_t i = 0; i < n; i++)
    if (tsl_expr_uses_var(vals[i], v))
      return 1;
  return 0;
}


static int stmt_var_fn(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_uses_var(e, (const tsl_var *)ud);
}

static int stmt_uses_var(const tsl_stmt *s, const tsl_var *v) {
  tsl_stmt_visitor vis = {.expr = stmt_var_fn, .user_data = (void *)v};
  return tsl_stmt_visit(s, &vis) != 0;
}

/* The outer block's init: the inner init inside a block `<name>_init`
 * over the inner spatial iters it uses, under copies of the loops that
 * those iters' bindings use. */
static const tsl_stmt *outer_init(bz_ctx *x, const tsl_stmt *init,
                                  const tsl_stmt *inner_realize,
                                  tsl_str base_name) {
  sch_call *c = x->c;
  tsl_arena *a = x->a;
  const tsl_block *ib = inner_realize->u.realize.block;
  uint32_t n = ib->n_iter_vars, k = 0;
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, n + 1);
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  tsl_map m; /* the init's new variables */
  tsl_map_init(&m, a);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_iter_var *iv = &ib->iter_vars[i];
    if (iv->iter_type != TSL_ITER_SPATIAL || !stmt_uses_var(init, iv->var))
      continue;
    ivs[k] = *iv;
    ivs[k].var =
        sch_new_var(c, suffixed(a, iv->var->name, "_init"), iv->var->dtype);
    tsl_map_put(&m, iv->var, (void *)ivs[k].var->ref);
    vals[k++] = inner_realize->u.realize.iter_values[i];
  }
  tsl_block *nb = TSL_NEW(a, tsl_block);
  nb->name = sch_fresh_block_name(c, x->f, suffixed(a, base_name, "_init"));
  nb->n_iter_vars = k;
  nb->iter_vars = ivs;
  nb->n_writes = ib->n_writes;
  nb->writes = ib->writes;
  nb->body = init;
  /* loops the init does not iterate read as their start in the predicate:
   * the init runs for the first instance of the reduction */
  tsl_map first;
  tsl_map_init(&first, a);
  for (uint32_t l = 0; l < x->n_loops; l++)
    if (!uses_any_vals(vals, k, x->loops[l]->u.loop.loop_var))
      tsl_map_put(&first, x->loops[l]->u.loop.loop_var, (void *)x->loops[l]->u.loop.min);
  const tsl_expr *pred = subst_simplify(x, &first, inner_realize->u.realize.predicate);
  const tsl_stmt *s = tsl_stmt_block_realize(a, k, vals, pred, nb);
  for (uint32_t l = x->n_loops; l-- > 0;) {
    const tsl_stmt *loop = x->loops[l];
    if (tsl_map_get(&first, loop->u.loop.loop_var))
      continue;
    const tsl_var *nv = sch_new_var(c, loop->u.loop.loop_var->name,
                                    loop->u.loop.loop_var->dtype);
    tsl_map_put(&m, loop->u.loop.loop_var, (void *)nv->ref);
    s = tsl_stmt_for(a, nv, loop->u.loop.min, loop->u.loop.extent,
                     (tsl_for_kind)loop->u.loop.for_kind, loop->u.loop.thread_tag,
                     loop->u.loop.annotations, s);
  }
  tsl_mutator mu = tsl_mutator_make(a);
  mu.vars = &m;
  return tsl_mutate_stmt(&mu, s);
}

/* Checks that the subtree under the target loop is a chain of loops ending
 * in one block; fills x->loops. */
static int collect_chain(bz_ctx *x, const tsl_stmt *target,
                         const tsl_stmt **realize) {
  const tsl_stmt *s = target;
  x->n_loops = 0;
  x->loops = TSL_NEW_ARRAY(x->a, const tsl_stmt *, SCH_MAX_DEPTH);
  while (s->kind == TSL_STMT_FOR) {
    if (x->n_loops == SCH_MAX_DEPTH)
      return sch_fail(x->c, TSL_EUNSUPPORTED, "loop nest too deep");
    x->loops[x->n_loops++] = s;
    s = s->u.loop.body;
  }
  if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    *realize = s;
    return TSL_OK;
  }
  const char *what = s->kind == TSL_STMT_SEQ  ? "a sequence of statements"
                     : s->kind == TSL_STMT_IF ? "an if statement"
                     : s->kind == TSL_STMT_LET ? "a let binding"
                                               : "a statement outside any block";
  return sch_fail(x->c, TSL_EINVALID,
                  "the subtree under %s must be a chain of loops "
                  "ending in exactly one block, but loop '%s' contains %s",
                  x->target_name,
                  x->loops[x->n_loops - 1]->u.loop.loop_var->name, what);
}

int bz_divide(bz_ctx *x, const sch_path *bp, uint32_t top, int preserve,
              const tsl_iter_var *reuse, bz_part *out) {
  sch_call *c = x->c;
  tsl_arena *a = x->a;
  const tsl_stmt *realize = sch_path_target(bp);
  const tsl_block *b = realize->u.realize.block;
  int rc;

  /* loop domains; unit loops read as their min unless preserved */
  tsl_map unit;
  tsl_map_init(&unit, a);
  uint32_t scope = sch_path_scope_level(bp, bp->depth - 1);
  for (uint32_t k = scope + 1; k + 1 < bp->depth; k++) {
    const tsl_stmt *l = bp->stmts[k];
    if (l->kind != TSL_STMT_FOR)
      continue;
    tsl_analyzer_bind_bounds(x->an, l->u.loop.loop_var, l->u.loop.min, l->u.loop.extent);
    if (!preserve && is_const(l->u.loop.extent, 1))
      tsl_map_put(&unit, l->u.loop.loop_var, (void *)l->u.loop.min);
  }

  /* divide the bindings */
  uint32_t n = b->n_iter_vars, n_in = 0;
  tsl_iter_var *oivs = TSL_NEW_ARRAY(a, tsl_iter_var, n + 1);
  tsl_iter_var *iivs = TSL_NEW_ARRAY(a, tsl_iter_var, n + 1);
  const tsl_expr **ovals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  const tsl_expr **ivals = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  const tsl_var **ivars = TSL_NEW_ARRAY(a, const tsl_var *, n + 1);
  tsl_range *idoms = TSL_NEW_ARRAY(a, tsl_range, n + 1);
  int64_t *cover = TSL_NEW_ARRAY(a, int64_t, n + 1);
  tsl_map_init(&x->sub, a);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    if (!is_const(iv->dom.min, 0))
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "block '%s' iter '%s' has a domain starting at %s; "
                      "blockize supports domains starting at 0",
                      b->name, iv->var->name, ex_str(a, iv->dom.min));
    const tsl_expr *e = tsl_simplify(x->an, a, subst(a, &unit, realize->u.realize.iter_values[i]));
    division d = {0};
    if ((rc = divide(x, b, i, e, &d)))
      return rc;
    cover[i] = d.cover;
    tsl_dtype dt = iv->var->dtype;
    oivs[i] = *iv;
    oivs[i].var = reuse ? reuse[i].var : sch_new_var(c, suffixed(a, iv->var->name, "_o"), dt);
    oivs[i].dom.min = tsl_expr_int(a, dt, 0);
    oivs[i].dom.extent = d.outer_ext;
    ovals[i] = d.outer;
    const tsl_expr *ov = tsl_expr_var(oivs[i].var), *sub;
    if (is_const(d.inner_ext, 1)) {
      sub = is_const(d.outer_ext, 1) && !preserve ? tsl_expr_int(a, dt, 0) : ov;
    } else {
      tsl_iter_var *ii = &iivs[n_in];
      *ii = *iv;
      ii->var = sch_new_var(c, suffixed(a, iv->var->name, "_i"), dt);
      ii->dom.min = tsl_expr_int(a, dt, 0);
      ii->dom.extent = d.inner_ext;
      ivals[n_in] = d.inner;
      ivars[n_in] = ii->var;
      idoms[n_in] = ii->dom;
      n_in++;
      const tsl_expr *iexp = tsl_expr_var(ii->var);
      sub = is_const(d.outer_ext, 1)
                ? iexp
                : tsl_expr_binary(a, TSL_EXPR_ADD,
                                  tsl_expr_binary(a, TSL_EXPR_MUL, ov, d.inner_ext),
                                  iexp);
      tsl_analyzer_bind_bounds(x->an, ii->var, ii->dom.min, ii->dom.extent);
    }
    tsl_map_put(&x->sub, iv->var, (void *)sub);
  }

  /* The predicate stays inside or moves out whole; outer loops that an
   * outer iter is bound to read as that iter inside. */
  /* inner unit loops are constants: a predicate that uses only them and
   * outer loops moves out */
  tsl_map iu;
  tsl_map_init(&iu, a);
  for (uint32_t l = 0; l < x->n_loops; l++)
    if (is_const(x->loops[l]->u.loop.extent, 1))
      tsl_map_put(&iu, x->loops[l]->u.loop.loop_var, (void *)x->loops[l]->u.loop.min);
  const tsl_expr *pred = subst_simplify(x, &iu, realize->u.realize.predicate);
  const tsl_expr *tru = tsl_expr_bool(a, 1);
  const tsl_expr *inner_pred = tru, *outer_pred = tru;
  if (!(pred->kind == TSL_EXPR_INT_IMM && pred->u.int_value)) {
    int in, o;
    uses(x, pred, &in, &o);
    if (in && o) {
      tsl_map lv;
      tsl_map_init(&lv, a);
      for (uint32_t i = 0; i < n; i++)
        if (ovals[i]->kind == TSL_EXPR_VAR && !tsl_map_get(&lv, ovals[i]->u.var))
          tsl_map_put(&lv, ovals[i]->u.var, (void *)oivs[i].var->ref);
      const tsl_expr *np = subst(a, &lv, pred);
      for (uint32_t k = scope + 1; k < top; k++)
        if (bp->stmts[k]->kind == TSL_STMT_FOR &&
            tsl_expr_uses_var(np, bp->stmts[k]->u.loop.loop_var))
          return sch_fail(c, TSL_EINVALID,
                          "the predicate of block '%s' (%s) depends on loops "
                          "both inside and outside %s, and outer loop "
                          "'%s' is not the binding of an outer iter",
                          b->name, ex_str(a, pred), x->target_name,
                          bp->stmts[k]->u.loop.loop_var->name);
      inner_pred = np;
    } else if (in) {
      inner_pred = pred;
    } else {
      outer_pred = pred;
    }
  }

  /* unguarded by a predicate, the outer block runs for every value the
   * loops give its bindings: the outer domains must cover them */
  if (outer_pred == tru)
    for (uint32_t i = 0; i < n; i++) {
      int64_t ext;
      if (cover[i] > 0 && tsl_expr_is_const_int(oivs[i].dom.extent, &ext) &&
          cover[i] > ext)
        oivs[i].dom.extent =
            tsl_expr_int(a, oivs[i].var->dtype, cover[i]);
    }

  /* the inner block, rewritten over the new iter vars */
  tsl_block *nb = tsl_block_clone(a, b);
  nb->n_iter_vars = n_in;
  nb->iter_vars = iivs;
  tsl_mutator rw = tsl_mutator_make(a);
  rw.expr = sub_expr;
  rw.user_data = x;
  const tsl_stmt *sr =
      tsl_mutate_stmt(&rw, tsl_stmt_block_realize(a, n_in, ivals, inner_pred, nb));
  const tsl_block *bs = sr->u.realize.block;
  int outer_reduce = 0;
  for (uint32_t i = 0; i < n && bs->init; i++)
    outer_reduce |= oivs[i].iter_type == TSL_ITER_REDUCE;
  tsl_block *ib = tsl_block_clone(a, bs);
  ib->init = NULL;
  if (outer_reduce) {
    tsl_buffer_region *rd =
        TSL_NEW_ARRAY(a, tsl_buffer_region, bs->n_reads + bs->n_writes + 1);
    memcpy(rd, bs->writes, sizeof *rd * bs->n_writes);
    if (bs->n_reads)
      memcpy(rd + bs->n_writes, bs->reads, sizeof *rd * bs->n_reads);
    ib->reads = rd;
    ib->n_reads = bs->n_reads + bs->n_writes;
  }

  /* regions may name the inner loops too (opaque blocks): relaxed with
   * the inner iters */
  const tsl_var **rvars = TSL_NEW_ARRAY(a, const tsl_var *, n_in + x->n_loops + 1);
  tsl_range *rdoms = TSL_NEW_ARRAY(a, tsl_range, n_in + x->n_loops + 1);
  uint32_t nrv = n_in;
  memcpy(rvars, ivars, sizeof *rvars * n_in);
  memcpy(rdoms, idoms, sizeof *rdoms * n_in);
  for (uint32_t l = 0; l < x->n_loops; l++) {
    rvars[nrv] = x->loops[l]->u.loop.loop_var;
    rdoms[nrv++] = (tsl_range){x->loops[l]->u.loop.min, x->loops[l]->u.loop.extent};
  }
  out->n = n;
  out->oivs = oivs;
  out->ovals = ovals;
  out->outer_pred = outer_pred;
  out->inner = sch_with_block(a, sr, ib);
  out->init = bs->init;
  out->outer_reduce = outer_reduce;
  out->n_reads = bs->n_reads;
  out->reads = TSL_NEW_ARRAY(a, tsl_buffer_region, bs->n_reads + 1);
  for (uint32_t i = 0; i < bs->n_reads; i++)
    out->reads[i] = relax_region(x, &bs->reads[i], nrv, rvars, rdoms);
  out->n_writes = bs->n_writes;
  out->writes = TSL_NEW_ARRAY(a, tsl_buffer_region, bs->n_writes + 1);
  for (uint32_t i = 0; i < bs->n_writes; i++)
    out->writes[i] = relax_region(x, &bs->writes[i], nrv, rvars, rdoms);
  return TSL_OK;
}

static int blockize_impl(bz_ctx *x, const sch_path *p, int preserve,
                         const tsl_stmt **out) {
  sch_call *c = x->c;
  tsl_arena *a = x->a;
  const tsl_stmt *target = sch_path_target(p);
  const tsl_stmt *realize = NULL;
  int rc = collect_chain(x, target, &realize);
  if (rc)
    return rc;
  const tsl_block *b = realize->u.realize.block;
  /* the path down to the block */
  sch_path *bp = TSL_NEW(a, sch_path);
  *bp = *p;
  for (uint32_t l = 1; l <= x->n_loops; l++) {
    if (bp->depth == SCH_MAX_DEPTH)
      return sch_fail(c, TSL_EUNSUPPORTED, "loop nest too deep");
    bp->stmts[bp->depth] = l < x->n_loops ? x->loops[l] : realize;
    bp->index[bp->depth++] = 0;
  }
  bz_part part;
  if ((rc = bz_divide(x, bp, p->depth - 1, preserve, NULL, &part)))
    return rc;

  /* the outer block */
  tsl_block *ob = TSL_NEW(a, tsl_block);
  ob->name = sch_fresh_block_name(c, x->f, suffixed(a, b->name, "_o"));
  ob->n_iter_vars = part.n;
  ob->iter_vars = part.oivs;
  ob->n_reads = part.n_reads;
  ob->reads = part.reads;
  ob->n_writes = part.n_writes;
  ob->writes = part.writes;
  const tsl_stmt *body = part.inner;
  for (uint32_t l = x->n_loops; l-- > 0;)
    body = sch_with_child(a, x->loops[l], 0, body);
  ob->body = body;
  if (part.init)
    ob->init = outer_init(x, part.init, part.inner, b->name);
  *out = tsl_stmt_block_realize(a, part.n, part.ovals, part.outer_pred, ob);
  return TSL_OK;
}

int bz_blockize_loop(sch_call *c, const sch_path *p, int preserve_unit_iters,
                     const tsl_stmt **out) {
  bz_ctx x = {.c = c, .a = c->arena, .an = tsl_analyzer_new(c->sch->ctx),
              .f = p->func};
  x.target = sch_path_target(p)->u.loop.loop_var;
  {
    char t[300];
    snprintf(t, sizeof t, "loop '%s'", x.target->name);
    x.target_name = tsl_arena_strdup(c->arena, t);
  }
  int rc = blockize_impl(&x, p, preserve_unit_iters, out);
  tsl_analyzer_free(x.an);
  return rc;
}

int sch_apply_blockize(sch_call *c) {
  const tsl_sch_value *target = &c->args[0];
  if (target->kind == TSL_SV_LIST)
    return bz_blockize_blocks(c, target, (int)c->args[1].u.i);
  sch_path p;
  int rc = sch_loop_path(c, target->u.rv, &p);
  if (rc)
    return rc;
  const tsl_stmt *outer;
  if ((rc = bz_blockize_loop(c, &p, (int)c->args[1].u.i, &outer)))
    return rc;
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, p.depth - 1, outer));
  sch_out_block(c, p.func->name, outer->u.realize.block->name);
  return TSL_OK;
}
