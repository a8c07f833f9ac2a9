/*
 * The preconditions TVM's schedule primitives share (its
 * analysis/analysis.cc and the block flags of state.cc), written once:
 * affine bindings (iterator-map detection over the loops), complete and
 * reduction blocks, compact data flow of a subtree, stage pipelines with
 * region cover, the single child block of a loop, and the block iterators a
 * parallel / vectorized / thread-bound loop may feed. Each check fails
 * through sch_fail with a message naming the block or loop and what would
 * be valid.
 */
#include "sch_internal.h"
#include "tessel/script.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---------------------------------------------------------- */

static const char *asp(sch_call *c, const char *fmt, ...) TSL_PRINTF(2, 3);
static const char *asp(sch_call *c, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return tsl_arena_strdup(c->arena, buf);
}

static const char *ex(sch_call *c, const tsl_expr *e) {
  char *s = tsl_print_expr(e);
  const char *r = tsl_arena_strdup(c->arena, s ? s : "?");
  free(s);
  return r;
}

static const tsl_expr *bin(sch_call *c, tsl_expr_kind k, const tsl_expr *a,
                           const tsl_expr *b) {
  if (a->dtype.bits != b->dtype.bits || a->dtype.code != b->dtype.code)
    b = tsl_expr_cast(c->arena, a->dtype, b);
  return tsl_expr_binary(c->arena, k, a, b);
}

static const tsl_expr *one_like(sch_call *c, const tsl_expr *e) {
  return tsl_expr_int(c->arena, e->dtype, 1);
}

typedef struct subst_ctx {
  const tsl_block *b;
  const tsl_expr *const *values;
} subst_ctx;

static const tsl_expr *subst_binding(const tsl_var *v, void *ud) {
  const subst_ctx *s = ud;
  for (uint32_t k = 0; k < s->b->n_iter_vars; k++)
    if (s->b->iter_vars[k].var == v)
      return s->values[k];
  return NULL;
}

const tsl_expr *sch_subst_bindings(sch_call *c, const tsl_stmt *realize,
                                   const tsl_expr *e) {
  subst_ctx sc = {realize->u.realize.block, realize->u.realize.iter_values};
  return tsl_expr_substitute(c->arena, e, subst_binding, &sc);
}

int sch_thread_relaxes(const char *scope, const char *tag) {
  if (!tag || !scope)
    return 0;
  int thread = !strncmp(tag, "threadIdx.", 10) || !strncmp(tag, "vthread", 7);
  if (!strcmp(scope, "shared") || !strncmp(scope, "shared.", 7))
    return thread;
  if (!strcmp(scope, "warp"))
    return !strcmp(tag, "threadIdx.x");
  return 0;
}

/* The loops of `p` at levels [from, to) (FORs only), with their ranges. */
typedef struct loop_set {
  uint32_t n;
  const tsl_var **vars;
  tsl_range *doms;
} loop_set;

static loop_set loops_between(sch_call *c, const sch_path *p, uint32_t from,
                              uint32_t to) {
  loop_set ls = {0, TSL_NEW_ARRAY(c->arena, const tsl_var *, p->depth + 1),
                 TSL_NEW_ARRAY(c->arena, tsl_range, p->depth + 1)};
  for (uint32_t k = from; k < to && k < p->depth; k++) {
    const tsl_stmt *s = p->stmts[k];
    if (s->kind != TSL_STMT_FOR)
      continue;
    ls.vars[ls.n] = s->u.loop.loop_var;
    ls.doms[ls.n].min = s->u.loop.min;
    ls.doms[ls.n++].extent = s->u.loop.extent;
  }
  return ls;
}

static void bind_loops(sch_call *c, const sch_path *p, uint32_t from,
                       uint32_t to, int on) {
  for (uint32_t k = from; k < to && k < p->depth; k++) {
    const tsl_stmt *s = p->stmts[k];
    if (s->kind != TSL_STMT_FOR)
      continue;
    if (on)
      tsl_analyzer_bind_bounds(c->sch->an, s->u.loop.loop_var, s->u.loop.min,
                        s->u.loop.extent);
    else
      tsl_analyzer_unbind(c->sch->an, s->u.loop.loop_var);
  }
}

/* ---- affine bindings ----------------------------------------------------------- */

/* One answer of sch_binding_affine: the block's bindings and predicate
 * (by value: primitives rebuild equal ones; a block's annotations do not
 * change the answer), the level checked from and the loops that bound the
 * bindings (variables and ranges, not kinds). */
typedef struct sch_affine_memo {
  struct sch_affine_memo *next;
  const tsl_block *block;
  uint32_t n_bindings;
  const tsl_expr *const *bindings;
  const tsl_expr *predicate;
  uint32_t from, n;
  const tsl_var **vars;
  tsl_range *doms;
  int affine;
  const char *why;
} sch_affine_memo;

enum { AFFINE_MEMO_SEARCH = 32 };

static sch_affine_memo *affine_memo_find(tsl_schedule *sch, const tsl_block *b,
                                         const tsl_expr *const *bindings,
                                         const tsl_expr *pred, uint32_t from,
                                         const loop_set *all) {
  uint32_t k = 0;
  for (sch_affine_memo *m = sch->affine_memo; m && k < AFFINE_MEMO_SEARCH; m = m->next, k++) {
    if (m->from != from || m->n != all->n || m->n_bindings != b->n_iter_vars ||
        strcmp(m->block->name, b->name))
      continue;
    uint32_t i = 0;
    while (i < m->n && m->vars[i] == all->vars[i] && m->doms[i].min == all->doms[i].min &&
           m->doms[i].extent == all->doms[i].extent)
      i++;
    if (i < m->n)
      continue;
    if (!(m->predicate == pred ||
          (m->predicate && pred && tsl_expr_equal(m->predicate, pred))))
      continue;
    i = 0;
    while (i < m->n_bindings &&
           (m->bindings[i] == bindings[i] || tsl_expr_equal(m->bindings[i], bindings[i])))
      i++;
    if (i < m->n_bindings)
      continue;
    return m;
  }
  return NULL;
}

/* TVM's IsAffineBinding on a detected map: the first index whose leading
 * split does not step by 1 (its step in *scale), or map->n. */
static uint32_t unit_steps(const tsl_iter_map *map, int64_t *scale) {
  for (uint32_t i = 0; i < map->n; i++) {
    const tsl_iter_sum *sum = map->indices[i];
    *scale = 1;
    if (sum->n && !(tsl_expr_is_const_int(sum->args[0]->scale, scale) && *scale == 1))
      return i;
  }
  return map->n;
}

static int binding_affine(sch_call *c, const sch_path *bp, uint32_t scope, uint32_t from,
                          const char **why) {
  const tsl_stmt *realize = sch_path_target(bp);
  const tsl_block *b = realize->u.realize.block;
  loop_set ls = loops_between(c, bp, from, bp->depth - 1);
  if (!ls.n)
    return 1;
  uint32_t n = realize->u.realize.n_iter_values;
  tsl_iter_map map;
  tsl_diag d; /* 8 KiB: read only on failure, so not cleared */
  d.len = 0;
  d.text[0] = '\0';
  bind_loops(c, bp, scope + 1, from, 1);
  int rc = tsl_iter_map_detect(c->sch->an, c->arena, n,
                               realize->u.realize.iter_values, ls.n, ls.vars,
                               ls.doms, realize->u.realize.predicate,
                               TSL_ITER_MAP_SURJECTIVE, 0, &map, &d);
  bind_loops(c, bp, scope + 1, from, 0);
  if (rc) {
    *why = tsl_arena_strdup(c->arena, d.text);
    return 0;
  }
  int64_t scale;
  uint32_t i = unit_steps(&map, &scale);
  if (i < n) {
    *why = asp(c,
               "the binding `%s` of iterator '%s' steps by %lld; an affine "
               "binding steps by 1",
               ex(c, realize->u.realize.iter_values[i]), b->iter_vars[i].var->name,
               (long long)scale);
    return 0;
  }
  return 1;
}

int sch_binding_affine(sch_call *c, const sch_path *bp, uint32_t from,
                       const char **why) {
  uint32_t scope = sch_path_scope_level(bp, bp->depth - 1);
  if (from <= scope)
    from = scope + 1;
  const tsl_stmt *realize = sch_path_target(bp);
  loop_set all = loops_between(c, bp, scope + 1, bp->depth - 1);
  const tsl_block *b = realize->u.realize.block;
  sch_affine_memo *m = affine_memo_find(c->sch, b, realize->u.realize.iter_values,
                                        realize->u.realize.predicate, from, &all);
  if (!m) {
    m = TSL_NEW(c->arena, sch_affine_memo);
    m->block = b;
    m->n_bindings = realize->u.realize.n_iter_values;
    m->bindings = realize->u.realize.iter_values;
    m->predicate = realize->u.realize.predicate;
    m->from = from;
    m->n = all.n;
    m->vars = all.vars;
    m->doms = all.doms;
    m->affine = binding_affine(c, bp, scope, from, &m->why);
    m->next = c->sch->affine_memo;
    c->sch->affine_memo = m;
  }
  if (!m->affine && why)
    *why = m->why;
  return m->affine;
}

static int loop_vars_only(const tsl_expr *e, void *ud) {
  const loop_set *ls = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t k = 0; k < ls->n; k++)
    if (ls->vars[k] == e->u.var)
      return 0;
  return 1; /* stops the walk: another variable */
}

void sch_binding_affine_seed(sch_call *c, const tsl_block *b, const tsl_expr *const *bindings,
                             const tsl_expr *predicate, uint32_t from, uint32_t n,
                             const tsl_var *const *vars, const tsl_range *doms,
                             const tsl_iter_map *map) {
  int64_t v, scale;
  if (map->n != b->n_iter_vars || unit_steps(map, &scale) < map->n ||
      (predicate && !(predicate->kind == TSL_EXPR_INT_IMM && predicate->u.int_value)))
    return;
  for (uint32_t k = 0; k < n; k++)
    if (!tsl_expr_is_const_int(doms[k].min, &v) || !tsl_expr_is_const_int(doms[k].extent, &v))
      return;
  loop_set ls = {n, (const tsl_var **)vars, (tsl_range *)doms};
  for (uint32_t i = 0; i < map->n; i++)
    if (tsl_expr_visit(bindings[i], loop_vars_only, &ls))
      return;
  if (affine_memo_find(c->sch, b, bindings, predicate, from, &ls))
    return;
  sch_affine_memo *m = TSL_NEW(c->arena, sch_affine_memo);
  m->block = b;
  m->n_bindings = b->n_iter_vars;
  m->bindings = (const tsl_expr *const *)tsl_arena_dup(c->arena, bindings,
                                                       sizeof *bindings * map->n);
  m->predicate = predicate;
  m->from = from;
  m->n = n;
  m->vars = tsl_arena_dup(c->arena, vars, sizeof *vars * n);
  m->doms = tsl_arena_dup(c->arena, doms, sizeof *doms * n);
  m->affine = 1;
  m->next = c->sch->affine_memo;
  c->sch->affine_memo = m;
}

/* ---- complete and reduction blocks --------------------------------------------- */

/* The blocks directly under the statement at the end of `root` (a loop or
 * a block): the writers that dominance is judged among. */
typedef struct block_set {
  uint32_t n;
  sch_path *kids;
} block_set;

static block_set children(sch_call *c, const sch_path *root) {
  block_set s;
  s.n = sch_child_blocks(c, root, &s.kids);
  return s;
}

/* Another block of `set` writing a buffer `b` writes, or NULL. */
static const tsl_block *other_writer(const block_set *set, const tsl_block *b,
                                     const tsl_buffer **buf) {
  for (uint32_t w = 0; w < b->n_writes; w++)
    for (uint32_t k = 0; k < set->n; k++) {
      const tsl_block *o = sch_path_block(&set->kids[k]);
      if (o != b && sch_regions_have(o->writes, o->n_writes, b->writes[w].buffer)) {
        *buf = b->writes[w].buffer;
        return o;
      }
    }
  return NULL;
}

/* TVM's CheckCompleteBlockErrorCode: 0, or the violated condition with the
 * reason in *why. */
static int complete_code(sch_call *c, const sch_path *bp, const block_set *set,
                         const char **why) {
  const tsl_block *b = sch_path_block(bp);
  for (uint32_t k = 0; k < b->n_iter_vars; k++)
    if (b->iter_vars[k].iter_type != TSL_ITER_SPATIAL) {
      *why = asp(c, "its iterator '%s' is %s, not spatial",
                               b->iter_vars[k].var->name,
                               tsl_iter_type_name((tsl_iter_type)b->iter_vars[k].iter_type));
      return 1;
    }
  const tsl_buffer *buf = NULL;
  const tsl_block *o = other_writer(set, b, &buf);
  if (o) {
    *why = asp(c, "block '%s' also writes '%s'", o->name,
                             buf->name);
    return 2;
  }
  for (uint32_t w = 0; w < b->n_writes; w++)
    if (sch_regions_have(b->reads, b->n_reads, b->writes[w].buffer)) {
      *why = asp(c, "it reads '%s', which it writes",
                               b->writes[w].buffer->name);
      return 3;
    }
  return 0;
}

typedef struct store_check {
  const tsl_block *b;
  const char *iter;
  const tsl_buffer *buf;
} store_check;

static int store_uses_reduce(const tsl_stmt *s, void *ud) {
  store_check *sc = ud;
  if (s->kind != TSL_STMT_STORE)
    return 0;
  for (uint32_t i = 0; i < s->u.store.n_indices; i++)
    for (uint32_t k = 0; k < sc->b->n_iter_vars; k++)
      if (sc->b->iter_vars[k].iter_type == TSL_ITER_REDUCE &&
          tsl_expr_uses_var(s->u.store.indices[i], sc->b->iter_vars[k].var)) {
        sc->iter = sc->b->iter_vars[k].var->name;
        sc->buf = s->u.store.buffer;
        return 1;
      }
  return 0;
}

/* TVM's CheckReductionBlockErrorCode. */
static int reduction_code(sch_call *c, const sch_path *bp, const block_set *set,
                          const char **why) {
  const tsl_block *b = sch_path_block(bp);
  if (!b->init) {
    *why = "it has no T.init()";
    return 1;
  }
  const char *aw = NULL;
  if (!sch_binding_affine(c, bp, 0, &aw)) {
    *why = asp(c, "its bindings are not affine: %s", aw);
    return 2;
  }
  for (uint32_t k = 0; k < b->n_iter_vars; k++) {
    uint32_t t = b->iter_vars[k].iter_type;
    if (t != TSL_ITER_SPATIAL && t != TSL_ITER_REDUCE) {
      *why = asp(c, "its iterator '%s' is %s",
                               b->iter_vars[k].var->name,
                               tsl_iter_type_name((tsl_iter_type)t));
      return 3;
    }
  }
  const tsl_buffer *buf = NULL;
  const tsl_block *o = other_writer(set, b, &buf);
  if (o) {
    *why = asp(c, "block '%s' also writes '%s'", o->name,
                             buf->name);
    return 4;
  }
  store_check sc = {b, NULL, NULL};
  tsl_stmt_visitor v = {.stmt = store_uses_reduce, .user_data = &sc};
  if (tsl_stmt_visit(b->body, &v)) {
    *why = asp(c,
                             "its reduce iterator '%s' indexes the buffer '%s' it "
                             "stores to",
                             sc.iter, sc.buf->name);
    return 5;
  }
  return 0;
}

#define COMPLETE_DEF                                                           \
  "a complete block has only spatial iterators, is the only writer of its "   \
  "outputs in its scope and does not read them"
#define REDUCTION_DEF                                                          \
  "a reduction block has a T.init(), affine bindings, only spatial and "      \
  "reduce iterators, is the only writer of its outputs in its scope, and "    \
  "indexes them with spatial iterators only"

sch_path sch_scope_path(const sch_path *p) {
  sch_path sp = *p;
  sp.depth = sch_path_scope_level(p, p->depth - 1) + 1;
  return sp;
}

int sch_is_complete(sch_call *c, const sch_path *bp) {
  sch_path sp = sch_scope_path(bp);
  block_set set = children(c, &sp);
  const char *why;
  return complete_code(c, bp, &set, &why) == 0;
}

int sch_is_reduction(sch_call *c, const sch_path *bp) {
  sch_path sp = sch_scope_path(bp);
  block_set set = children(c, &sp);
  const char *why;
  return reduction_code(c, bp, &set, &why) == 0;
}

int sch_check_complete(sch_call *c, const sch_path *bp) {
  sch_path sp = sch_scope_path(bp);
  block_set set = children(c, &sp);
  const char *why;
  if (!complete_code(c, bp, &set, &why))
    return TSL_OK;
  return sch_fail(c, TSL_EINVALID, "block '%s' is not a complete block: %s (" COMPLETE_DEF ")",
                  sch_path_block(bp)->name, why);
}

int sch_check_reduction(sch_call *c, const sch_path *bp) {
  sch_path sp = sch_scope_path(bp);
  block_set set = children(c, &sp);
  const char *why;
  if (!reduction_code(c, bp, &set, &why))
    return TSL_OK;
  return sch_fail(c, TSL_EINVALID, "block '%s' is not a reduction block: %s (" REDUCTION_DEF ")",
                  sch_path_block(bp)->name, why);
}

int sch_check_complete_or_reduction(sch_call *c, const sch_path *bp) {
  sch_path sp = sch_scope_path(bp);
  block_set set = children(c, &sp);
  const char *w1, *w2;
  if (!complete_code(c, bp, &set, &w1) || !reduction_code(c, bp, &set, &w2))
    return TSL_OK;
  return sch_fail(c, TSL_EINVALID,
                  "block '%s' is neither a complete block (%s) nor a reduction "
                  "block (%s); " COMPLETE_DEF "; " REDUCTION_DEF,
                  sch_path_block(bp)->name, w1, w2);
}

/* ---- compact data flow ---------------------------------------------------------- */

int sch_check_compact_dataflow(sch_call *c, const sch_path *root) {
  const tsl_stmt *s = sch_path_target(root);
  const char *what = s->kind == TSL_STMT_FOR ? "loop" : "block";
  const char *name = s->kind == TSL_STMT_FOR ? s->u.loop.loop_var->name
                                             : s->u.realize.block->name;
  block_set set = children(c, root);
  for (uint32_t k = 0; k < set.n; k++) {
    const char *w1, *w2;
    if (!complete_code(c, &set.kids[k], &set, &w1) ||
        !reduction_code(c, &set.kids[k], &set, &w2))
      continue;
    return sch_fail(c, TSL_EINVALID,
                    "the subtree of %s '%s' is not compact data flow: block '%s' "
                    "under it is neither a complete block (%s) nor a reduction "
                    "block (%s); every block under the %s must be one of them, "
                    "judged within the %s",
                    what, name, sch_path_block(&set.kids[k])->name, w1, w2, what,
                    what);
  }
  return TSL_OK;
}

/* ---- stage pipeline and region cover -------------------------------------------- */

/* An interval [lo, hi] per dimension; lo NULL: nothing (no bound known). */
typedef struct ival {
  const tsl_expr *lo, *hi;
} ival;

/* Loops a region of `buf` accessed by the block at `bp` is relaxed over
 * when judged at level L (the LCA): the loops below L, and for shared and
 * warp buffers the thread-bound loops above it. */
static loop_set region_loops(sch_call *c, const sch_path *bp, uint32_t L,
                             const tsl_buffer *buf) {
  loop_set ls = loops_between(c, bp, L + 1, bp->depth - 1);
  for (uint32_t k = 0; k <= L && k < bp->depth; k++) {
    const tsl_stmt *s = bp->stmts[k];
    if (s->kind == TSL_STMT_FOR && s->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
        sch_thread_relaxes(buf->scope, s->u.loop.thread_tag)) {
      ls.vars[ls.n] = s->u.loop.loop_var;
      ls.doms[ls.n].min = s->u.loop.min;
      ls.doms[ls.n++].extent = s->u.loop.extent;
    }
  }
  return ls;
}

/* TVM's EstimateRegionStrictBound: with constant extents, each
 * dimension's minimum an iterator map of the relaxed loops (under the
 * block's predicate), the exact interval each dimension covers; 0 when
 * that cannot be shown. */
static int strict_region(sch_call *c, const sch_path *bp, uint32_t L,
                         const tsl_buffer_region *r, ival *out) {
  const tsl_stmt *realize = sch_path_target(bp);
  loop_set ls = region_loops(c, bp, L, r->buffer);
  const tsl_expr **mins = TSL_NEW_ARRAY(c->arena, const tsl_expr *, r->ndim + 1);
  int64_t *exts = TSL_NEW_ARRAY(c->arena, int64_t, r->ndim + 1);
  for (uint32_t d = 0; d < r->ndim; d++) {
    mins[d] = sch_subst_bindings(c, realize, r->ranges[d].min);
    if (!tsl_expr_is_const_int(sch_simplify(c, sch_subst_bindings(c, realize, r->ranges[d].extent)),
                               &exts[d]) ||
        exts[d] <= 0)
      return 0;
  }
  tsl_iter_map map;
  const tsl_expr *pred = realize->u.realize.predicate;
  if (ls.n && tsl_iter_map_detect(c->sch->an, c->arena, r->ndim, mins, ls.n, ls.vars,
                                  ls.doms, pred, TSL_ITER_MAP_SURJECTIVE, 0, &map, NULL))
    return 0;
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_expr *base = mins[d], *line_ext = NULL;
    int64_t s = 0;
    if (ls.n && !tsl_iter_sum_as_line(map.indices[d], &base, &s, &line_ext))
      return 0;
    const tsl_expr *ext = tsl_expr_int(c->arena, base->dtype, exts[d]);
    const tsl_expr *last = bin(c, TSL_EXPR_SUB, bin(c, TSL_EXPR_ADD, base, ext), one_like(c, base));
    if (!s) {
      out[d].lo = base;
      out[d].hi = last;
      continue;
    }
    if ((s < 0 ? -s : s) > exts[d])
      return 0; /* gaps between the iterations' parts */
    /* the iterator adds (n - 1) * s at one end */
    const tsl_expr *span = bin(c, TSL_EXPR_MUL, bin(c, TSL_EXPR_SUB, line_ext,
                                                    one_like(c, line_ext)),
                               tsl_expr_int(c->arena, line_ext->dtype, s));
    out[d].lo = s > 0 ? base : bin(c, TSL_EXPR_ADD, base, span);
    out[d].hi = s > 0 ? bin(c, TSL_EXPR_ADD, last, span) : last;
  }
  return 1;
}

/* What the consumer at `bp` may read of region `r` (TVM's
 * EstimateRegionUpperBound: the strict bound, else the region relaxed over
 * the loops). */
static int consumed_region(sch_call *c, const sch_path *bp, uint32_t L,
                           const tsl_buffer_region *r, ival *out) {
  if (strict_region(c, bp, L, r, out))
    return 1;
  const tsl_stmt *realize = sch_path_target(bp);
  loop_set ls = region_loops(c, bp, L, r->buffer);
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_expr *mn = sch_subst_bindings(c, realize, r->ranges[d].min);
    const tsl_expr *ext = sch_subst_bindings(c, realize, r->ranges[d].extent);
    const tsl_expr *last = bin(c, TSL_EXPR_SUB, bin(c, TSL_EXPR_ADD, mn, ext), one_like(c, mn));
    tsl_range a, b;
    if (tsl_analyzer_relax(c->sch->an, c->arena, mn, ls.n, ls.vars, ls.doms, &a) ||
        tsl_analyzer_relax(c->sch->an, c->arena, last, ls.n, ls.vars, ls.doms, &b))
      return 0;
    out[d].lo = a.min;
    out[d].hi = bin(c, TSL_EXPR_SUB, bin(c, TSL_EXPR_ADD, b.min, b.extent), one_like(c, b.min));
  }
  return 1;
}

static const tsl_expr *clip_lo(sch_call *c, const tsl_expr *e) {
  const tsl_expr *z = tsl_expr_int(c->arena, e->dtype, 0);
  return sch_simplify(c, bin(c, TSL_EXPR_MAX, e, z));
}

static const tsl_expr *clip_hi(sch_call *c, const tsl_expr *e, const tsl_expr *dim) {
  return sch_simplify(c, bin(c, TSL_EXPR_MIN, e, bin(c, TSL_EXPR_SUB, dim, one_like(c, dim))));
}

static int prove_le(sch_call *c, const tsl_expr *a, const tsl_expr *b) {
  return tsl_analyzer_can_prove(c->sch->an, bin(c, TSL_EXPR_LE, a, b));
}

/* The level of the deepest statement two paths share. */
static uint32_t lca_level(const sch_path *p, const sch_path *q) {
  uint32_t k = 0;
  while (k + 1 < p->depth && k + 1 < q->depth && p->stmts[k + 1] == q->stmts[k + 1])
    k++;
  return k;
}

/* Region cover of consumer kid j (TVM's CheckRegionCoverAndStagePipeline,
 * step 2): at every LCA of j with its producers, what the producers under
 * that LCA surely write covers what j may read, per dimension within the
 * buffer. Fails naming the first uncovered dimension. */
/* Whether the produced interval covers the consumed one, both clipped to
 * [0, dim - 1], by the constant bounds of their ends: what the proofs below
 * find, cheaper (checked against them on 57679 intervals of the suite and
 * TVM's cases). */
static int covers_by_bounds(sch_call *c, const ival *prod, const ival *cons,
                            const tsl_expr *dim) {
  int64_t plo, phi, clo, chi, n, t;
  if (!tsl_expr_is_const_int(dim, &n) ||
      !tsl_analyzer_const_bound(c->sch->an, prod->lo, &t, &plo) ||
      !tsl_analyzer_const_bound(c->sch->an, prod->hi, &phi, &t) ||
      !tsl_analyzer_const_bound(c->sch->an, cons->lo, &clo, &t) ||
      !tsl_analyzer_const_bound(c->sch->an, cons->hi, &t, &chi))
    return 0;
  /* max(plo, 0) <= max(clo, 0) and min(chi, n - 1) <= min(phi, n - 1) */
  return (plo <= 0 || plo <= clo) && (chi >= n - 1 ? phi >= n - 1 : chi <= phi);
}

static int check_cover(sch_call *c, const block_set *set, uint32_t j,
                       const tsl_buffer *only) {
  const sch_path *cp = &set->kids[j];
  const tsl_block *cb = sch_path_block(cp);
  for (uint32_t r = 0; r < cb->n_reads; r++) {
    const tsl_buffer_region *rr = &cb->reads[r];
    if (only && rr->buffer != only)
      continue;
    uint32_t nd = rr->ndim;
    /* producers of this buffer, grouped by their LCA with the consumer */
    for (uint32_t L = cp->depth; L-- > 0;) {
      ival *prod = NULL;
      const char *pname = NULL;
      int any = 0, nothing = 1;
      for (uint32_t i = 0; i < j; i++) {
        const tsl_block *pb = sch_path_block(&set->kids[i]);
        const tsl_buffer_region *wr = NULL;
        for (uint32_t w = 0; w < pb->n_writes && !wr; w++)
          if (pb->writes[w].buffer == rr->buffer)
            wr = &pb->writes[w];
        if (!wr || lca_level(&set->kids[i], cp) != L)
          continue;
        any = 1;
        ival *iv = TSL_NEW_ARRAY(c->arena, ival, nd + 1);
        if (wr->ndim != nd)
          continue;
        bind_loops(c, cp, 0, L + 1, 1);
        int okp = strict_region(c, &set->kids[i], L, wr, iv);
        bind_loops(c, cp, 0, L + 1, 0);
        if (!okp)
          continue;
        if (!prod) {
          prod = iv;
          pname = pb->name;
          nothing = 0;
          continue;
        }
        /* a second producer: merge one dimension when the others agree */
        int diff = -1, same = 1;
        for (uint32_t d = 0; d < nd && same; d++) {
          if (tsl_analyzer_equal(c->sch->an, prod[d].lo, iv[d].lo) &&
              tsl_analyzer_equal(c->sch->an, prod[d].hi, iv[d].hi))
            continue;
          if (diff >= 0)
            same = 0;
          diff = (int)d;
        }
        if (same && diff >= 0) {
          ival *a = &prod[diff], *b = &iv[diff];
          const tsl_expr *ahi1 = bin(c, TSL_EXPR_ADD, a->hi, one_like(c, a->hi));
          const tsl_expr *bhi1 = bin(c, TSL_EXPR_ADD, b->hi, one_like(c, b->hi));
          if (prove_le(c, b->lo, ahi1) && prove_le(c, a->lo, b->lo))
            a->hi = sch_simplify(c, bin(c, TSL_EXPR_MAX, a->hi, b->hi));
          else if (prove_le(c, a->lo, bhi1) && prove_le(c, b->lo, a->lo)) {
            a->lo = b->lo;
            a->hi = sch_simplify(c, bin(c, TSL_EXPR_MAX, a->hi, b->hi));
          }
        }
      }
      if (!any)
        continue;
      if (nothing)
        return sch_fail(c, TSL_EINVALID,
                        "the producers of '%s' that block '%s' reads do not write "
                        "a region that can be bounded from below (region cover); "
                        "their write regions must be affine in their loops",
                        rr->buffer->name, cb->name);
      ival *cons = TSL_NEW_ARRAY(c->arena, ival, nd + 1);
      bind_loops(c, cp, 0, L + 1, 1);
      int okc = consumed_region(c, cp, L, rr, cons);
      int bad = okc ? -1 : 0;
      for (uint32_t d = 0; d < nd && okc && bad < 0; d++) {
        const tsl_expr *dim = rr->buffer->shape[d];
        if (covers_by_bounds(c, &prod[d], &cons[d], dim))
          continue;
        const tsl_expr *plo = clip_lo(c, prod[d].lo), *phi = clip_hi(c, prod[d].hi, dim);
        const tsl_expr *clo = clip_lo(c, cons[d].lo), *chi = clip_hi(c, cons[d].hi, dim);
        if (!prove_le(c, plo, clo) || !prove_le(c, chi, phi))
          bad = (int)d;
      }
      if (bad >= 0) {
        const char *msg = asp(
            c,
            "block '%s' reads more of '%s' than its producer block '%s' writes "
            "(region cover): dimension %d",
            cb->name, rr->buffer->name, pname, bad);
        if (okc)
          msg = asp(c, "%s reads [%s, %s], the producer writes [%s, %s]",
                                  msg, ex(c, sch_simplify(c, cons[bad].lo)),
                                  ex(c, sch_simplify(c, cons[bad].hi)),
                                  ex(c, sch_simplify(c, prod[bad].lo)),
                                  ex(c, sch_simplify(c, prod[bad].hi)));
        bind_loops(c, cp, 0, L + 1, 0);
        return sch_fail(c, TSL_EINVALID, "%s", msg);
      }
      bind_loops(c, cp, 0, L + 1, 0);
    }
  }
  return TSL_OK;
}

int sch_check_stage_pipeline(sch_call *c, const sch_path *sp) {
  const tsl_block *scope = sch_path_block(sp);
  block_set set = children(c, sp);
  /* no write after read between two blocks (TVM's WAR dependency) */
  for (uint32_t j = 0; j < set.n; j++) {
    const tsl_block *bj = sch_path_block(&set.kids[j]);
    for (uint32_t i = 0; i < j; i++) {
      const tsl_block *bi = sch_path_block(&set.kids[i]);
      for (uint32_t w = 0; w < bj->n_writes; w++)
        if (sch_regions_have(bi->reads, bi->n_reads, bj->writes[w].buffer))
          return sch_fail(c, TSL_EINVALID,
                          "the scope block '%s' is not a stage pipeline: block '%s' "
                          "writes '%s' after block '%s' read it (a stage pipeline "
                          "has no write-after-read between its blocks)",
                          scope->name, bj->name, bj->writes[w].buffer->name, bi->name);
    }
  }
  for (uint32_t j = 0; j < set.n; j++) {
    int rc = check_cover(c, &set, j, NULL);
    if (rc) {
      sch_diag_prefix(c->diag, "the scope block '%s' is not a stage pipeline: ",
                      scope->name);
      return rc;
    }
  }
  return TSL_OK;
}

int sch_check_region_cover(sch_call *c, const sch_path *scope,
                           const tsl_buffer *buf) {
  block_set set = children(c, scope);
  for (uint32_t j = 0; j < set.n; j++)
    if (sch_regions_have(sch_path_block(&set.kids[j])->reads,
                         sch_path_block(&set.kids[j])->n_reads, buf)) {
      int rc = check_cover(c, &set, j, NULL);
      if (rc)
        return rc;
    }
  return TSL_OK;
}

/* ---- loops and their blocks ----------------------------------------------------- */

int sch_single_child_block(sch_call *c, const sch_path *p, sch_path *out) {
  sch_path *kids;
  uint32_t n = sch_child_blocks(c, p, &kids);
  if (n == 1) {
    if (out)
      *out = kids[0];
    return TSL_OK;
  }
  const tsl_stmt *s = sch_path_target(p);
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  for (uint32_t i = 0; i < n && i < 8; i++)
    tsl_strbuf_printf(&sb, "%s'%s'", i ? ", " : " (", sch_path_block(&kids[i])->name);
  if (n)
    tsl_strbuf_append(&sb, n > 8 ? ", ...)" : ")");
  sch_fail(c, TSL_EINVALID, "%s '%s' must have exactly one block under it, found %u%s",
           s->kind == TSL_STMT_FOR ? "loop" : "block",
           s->kind == TSL_STMT_FOR ? s->u.loop.loop_var->name : s->u.realize.block->name,
           n, sb.len ? sb.data : "");
  tsl_strbuf_free(&sb);
  return TSL_EINVALID;
}

typedef struct par_check {
  tsl_stmt_visitor v;
  const tsl_var *loop;
  int allow_reduce;
  const tsl_block *block;
  const tsl_iter_var *iter;
} par_check;

/* Visitor: 1 at the first block binding a wrong iterator to the loop.
 * Blocks of init statements are not checked (as TVM). */
static int par_block(const tsl_stmt *s, void *ud) {
  par_check *pc = ud;
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  const tsl_block *b = s->u.realize.block;
  for (uint32_t i = 0; i < b->n_iter_vars && i < s->u.realize.n_iter_values; i++) {
    if (!tsl_expr_uses_var(s->u.realize.iter_values[i], pc->loop))
      continue;
    uint32_t t = b->iter_vars[i].iter_type;
    if (t == TSL_ITER_SPATIAL || (t == TSL_ITER_REDUCE && pc->allow_reduce))
      continue;
    pc->block = b;
    pc->iter = &b->iter_vars[i];
    return 1;
  }
  return tsl_stmt_visit(b->body, &pc->v) ? 1 : TSL_VISIT_SKIP;
}

int sch_check_parallelizable(sch_call *c, const sch_path *lp, uint32_t kind,
                             const char *tag) {
  const tsl_stmt *loop = sch_path_target(lp);
  const char *name = loop->u.loop.loop_var->name;
  const char *what = kind == TSL_FOR_PARALLEL     ? "parallelized"
                     : kind == TSL_FOR_VECTORIZED ? "vectorized"
                                                  : "bound to a thread";
  int rc = sch_check_compact_dataflow(c, lp);
  if (rc) {
    sch_diag_prefix(c->diag, "loop '%s' cannot be %s: ", name, what);
    return rc;
  }
  int thread_idx = kind == TSL_FOR_THREAD_BINDING && tag && !strncmp(tag, "threadIdx.", 10);
  par_check pc = {{.stmt = par_block}, loop->u.loop.loop_var, thread_idx, NULL, NULL};
  pc.v.user_data = &pc;
  if (!tsl_stmt_visit(loop->u.loop.body, &pc.v))
    return TSL_OK;
  return sch_fail(c, TSL_EINVALID,
                  "loop '%s' cannot be %s: block '%s' binds its %s iterator '%s' "
                  "to it; only spatial iterators may be bound to a %s loop%s",
                  name, what, pc.block->name,
                  tsl_iter_type_name((tsl_iter_type)pc.iter->iter_type),
                  pc.iter->var->name,
                  kind == TSL_FOR_PARALLEL     ? "parallel"
                  : kind == TSL_FOR_VECTORIZED ? "vectorized"
                                               : "thread-bound",
                  kind == TSL_FOR_THREAD_BINDING
                      ? " (and reduce iterators to threadIdx.x/y/z: a cross-thread "
                        "reduction)"
                      : "");
}
