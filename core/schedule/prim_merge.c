/*
 * merge: loop nests of equal depth and extents that are items of one
 * sequence become one nest whose innermost loop runs their bodies in the
 * order given (TVM's Merge):
 *
 *   for i in range(8): for j in range(16): A        for i_m in range(8):
 *   for i in range(8): for j in range(8):  B   ->     for j: A
 *                                                     for j: B
 *   (merging the two `i` loops)
 *
 * The merged nest takes the place of the last loop given; the others are
 * removed. Besides TVM's checks (same scope, no annotations or thread
 * bindings, loops starting at 0, single-child chains, equal depth and
 * extents), the nests, and the statements they move past, must not
 * access a buffer that one of them writes: TVM does not check, and such a
 * merge reorders dependent work.
 */
#include "compute_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- buffers a subtree reads and writes --------------------------------- */

typedef struct access_set {
  tsl_map reads, writes, views; /* views: match buffer -> its source */
} access_set;

static const tsl_buffer *source_of(const access_set *s, const tsl_buffer *b) {
  const tsl_buffer *src;
  while ((src = tsl_map_get(&s->views, b)))
    b = src;
  return b;
}

static int acc_load(const tsl_expr *e, void *ud) {
  access_set *s = ud;
  if (e->kind == TSL_EXPR_LOAD)
    tsl_map_put(&s->reads, source_of(s, e->u.buffer), NULL);
  return 0;
}
static int acc_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, acc_load, ud);
}
static int acc_stmt(const tsl_stmt *st, void *ud) {
  access_set *s = ud;
  if (st->kind == TSL_STMT_STORE)
    tsl_map_put(&s->writes, source_of(s, st->u.store.buffer), NULL);
  return 0;
}
static int acc_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  access_set *s = ud;
  for (uint32_t i = 0; i < b->n_match_buffers; i++)
    tsl_map_put(&s->views, b->match_buffers[i].buffer,
                (void *)b->match_buffers[i].source.buffer);
  for (uint32_t i = 0; i < b->n_reads; i++)
    tsl_map_put(&s->reads, source_of(s, b->reads[i].buffer), NULL);
  for (uint32_t i = 0; i < b->n_writes; i++)
    tsl_map_put(&s->writes, source_of(s, b->writes[i].buffer), NULL);
  return 0;
}

static void access_of(tsl_arena *a, const tsl_stmt *st, access_set *s) {
  tsl_map_init(&s->reads, a);
  tsl_map_init(&s->writes, a);
  tsl_map_init(&s->views, a);
  tsl_stmt_visitor v = {.stmt = acc_stmt, .block = acc_block, .expr = acc_expr,
                        .user_data = s};
  tsl_stmt_visit(st, &v);
}

/* A buffer one writes and the other accesses, or NULL. */
static const tsl_buffer *conflict(const access_set *x, const access_set *y) {
  const void *k;
  for (uint32_t pos = 0; tsl_map_next(&x->writes, &pos, &k, NULL);)
    if (tsl_map_find(&y->reads, k, NULL) || tsl_map_find(&y->writes, k, NULL))
      return k;
  for (uint32_t pos = 0; tsl_map_next(&y->writes, &pos, &k, NULL);)
    if (tsl_map_find(&x->reads, k, NULL))
      return k;
  return NULL;
}

/* ---- merge ----------------------------------------------------------------- */

static const char *loop_name(const tsl_stmt *l) { return l->u.loop.loop_var->name; }

/* "loop 'i' (over block 'B')" for messages about nests. */
static const char *nest_name(tsl_arena *a, const tsl_stmt *l) {
  char buf[600];
  const char *b = sch_first_block_name(l);
  snprintf(buf, sizeof buf, b ? "loop '%s' (over block '%s')" : "loop '%s'", loop_name(l), b);
  return tsl_arena_strdup(a, buf);
}



int sch_apply_merge(sch_call *c) {
  tsl_arena *a = c->arena;
  const tsl_sch_value *list = &c->args[0];
  uint32_t n = list->n;
  if (n < 2)
    return sch_fail(c, TSL_EINVALID, "merge needs at least two loops, got %u", n);
  sch_path *ps = TSL_NEW_ARRAY(a, sch_path, n);
  for (uint32_t i = 0; i < n; i++) {
    int rc = sch_loop_path(c, list->u.items[i].u.rv, &ps[i]);
    if (rc)
      return rc;
    if (ps[i].func != ps[0].func)
      return sch_fail(c, TSL_EINVALID,
                      "loops '%s' and '%s' are in different functions",
                      loop_name(sch_path_target(&ps[0])),
                      loop_name(sch_path_target(&ps[i])));
    for (uint32_t j = 0; j < i; j++)
      if (sch_path_target(&ps[j]) == sch_path_target(&ps[i]))
        return sch_fail(c, TSL_EINVALID, "loop '%s' is given twice",
                        loop_name(sch_path_target(&ps[i])));
  }
  /* the deepest statement above all of them */
  uint32_t lca = sch_paths_common_level(ps, n);
  for (uint32_t i = 0; i < n; i++)
    if (lca + 1 >= ps[i].depth)
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' contains the other loops; merge takes loops "
                      "of separate nests",
                      loop_name(sch_path_target(&ps[i])));
  const tsl_stmt *seq = ps[0].stmts[lca];
  uint32_t depth = ps[0].depth - lca - 1;
  for (uint32_t i = 0; i < n; i++) {
    const sch_path *p = &ps[i];
    const char *ln = loop_name(sch_path_target(p));
    for (uint32_t k = lca + 1; k < p->depth; k++) {
      const tsl_stmt *s = p->stmts[k];
      if (s->kind == TSL_STMT_BLOCK_REALIZE || seq->kind == TSL_STMT_BLOCK_REALIZE)
        return sch_fail(c, TSL_EINVALID,
                        "the loops are not under the same block scope "
                        "(block '%s' lies between loop '%s' and the others)",
                        (s->kind == TSL_STMT_BLOCK_REALIZE ? s : seq)->u.realize.block->name,
                        ln);
      if (s->kind != TSL_STMT_FOR) {
        const tsl_stmt *outer = p->stmts[k - 1];
        if (outer->kind == TSL_STMT_FOR)
          return sch_fail(c, TSL_EINVALID,
                          "loop '%s' is not the only child of loop '%s'; the "
                          "loops from each given loop up to where the nests "
                          "meet must form single-child chains",
                          loop_name(p->stmts[k + 1 < p->depth ? k + 1 : k]),
                          loop_name(outer));
        return sch_fail(c, TSL_EUNSUPPORTED,
                        "loop '%s' lies under an if or let statement below "
                        "where the nests meet; merge takes nests that are items "
                        "of one sequence",
                        ln);
      }
    }
    if (seq->kind != TSL_STMT_SEQ)
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "the nests of the loops meet at an if or a block's init; "
                      "merge takes nests that are items of one sequence");
    if (p->depth - lca - 1 != depth)
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' is %u loop%s deep below where the nests meet, "
                      "loop '%s' %u; merged loops must have the same nesting "
                      "depth",
                      loop_name(sch_path_target(&ps[0])), depth, depth == 1 ? "" : "s",
                      ln, p->depth - lca - 1);
    for (uint32_t k = lca + 1; k < p->depth; k++) {
      const tsl_stmt *l = p->stmts[k];
      if (l->u.loop.annotations.n || l->u.loop.for_kind == TSL_FOR_THREAD_BINDING)
        return sch_fail(c, TSL_EINVALID,
                        "loop '%s' has %s; only loops without annotations or "
                        "thread bindings can be merged",
                        loop_name(l),
                        l->u.loop.annotations.n ? "annotations" : "a thread binding");
      int64_t v;
      if (!tsl_expr_is_const_int(sch_simplify(c, l->u.loop.min), &v) || v != 0)
        return sch_fail(c, TSL_EINVALID,
                        "loop '%s' does not start at 0; only loops starting at "
                        "0 can be merged",
                        loop_name(l));
      const tsl_stmt *l0 = ps[0].stmts[k];
      if (i > 0 && !tsl_analyzer_equal(c->sch->an, l->u.loop.extent, l0->u.loop.extent))
        return sch_fail(c, TSL_EINVALID,
                        "%s has extent %s, %s extent %s; merged loops must "
                        "have the same extent at each level",
                        nest_name(a, l0), cmp_expr_str(c, l0->u.loop.extent),
                        nest_name(a, l), cmp_expr_str(c, l->u.loop.extent));
    }
  }
  /* what the merged nests access, and what they move past */
  uint32_t *pos = TSL_NEW_ARRAY(a, uint32_t, n);
  uint8_t *is_nest = TSL_NEW_ARRAY(a, uint8_t, seq->u.seq.n);
  access_set *acc = TSL_NEW_ARRAY(a, access_set, n);
  for (uint32_t i = 0; i < n; i++) {
    pos[i] = ps[i].index[lca + 1];
    is_nest[pos[i]] = 1;
    access_of(a, seq->u.seq.stmts[pos[i]], &acc[i]);
  }
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = i + 1; j < n; j++) {
      const tsl_buffer *b = conflict(&acc[i], &acc[j]);
      if (b)
        return sch_fail(c, TSL_EINVALID,
                        "the nests of %s and %s both access buffer '%s' and "
                        "one of them writes it; merging would interleave "
                        "dependent work",
                        nest_name(a, sch_path_target(&ps[i])),
                        nest_name(a, sch_path_target(&ps[j])), b->name);
    }
  uint32_t at = pos[n - 1];
  for (uint32_t i = 0; i + 1 < n; i++) {
    uint32_t lo = pos[i] < at ? pos[i] : at, hi = pos[i] < at ? at : pos[i];
    for (uint32_t k = lo + 1; k < hi; k++) {
      if (is_nest[k])
        continue;
      access_set x;
      access_of(a, seq->u.seq.stmts[k], &x);
      const tsl_buffer *b = conflict(&acc[i], &x);
      if (b)
        return sch_fail(c, TSL_EINVALID,
                        "the nest of %s would move past a statement that also "
                        "accesses buffer '%s' (and one of them writes it)",
                        nest_name(a, sch_path_target(&ps[i])), b->name);
    }
  }
  /* the merged nest: variables `<name>_m` of the first nest */
  const tsl_var **mv = TSL_NEW_ARRAY(a, const tsl_var *, depth);
  for (uint32_t k = 0; k < depth; k++) {
    const tsl_var *v = ps[0].stmts[lca + 1 + k]->u.loop.loop_var;
    char nm[300];
    snprintf(nm, sizeof nm, "%s_m", v->name);
    mv[k] = sch_new_var(c, nm, v->dtype);
  }
  const tsl_stmt **bodies = TSL_NEW_ARRAY(a, const tsl_stmt *, n);
  for (uint32_t i = 0; i < n; i++) {
    tsl_map vars;
    tsl_map_init(&vars, a);
    for (uint32_t k = 0; k < depth; k++) {
      const tsl_var *v = ps[i].stmts[lca + 1 + k]->u.loop.loop_var;
      const tsl_expr *e = tsl_expr_var(mv[k]);
      tsl_map_put(&vars, v,
                  (void *)(tsl_dtype_eq(v->dtype, mv[k]->dtype) ? e : tsl_expr_cast(a, v->dtype, e)));
    }
    bodies[i] = tsl_stmt_substitute_map(a, sch_path_target(&ps[i])->u.loop.body, &vars);
  }
  const tsl_stmt *merged = tsl_stmt_seq(a, n, bodies);
  for (uint32_t k = depth; k-- > 0;) {
    const tsl_stmt *l0 = ps[0].stmts[lca + 1 + k];
    merged = tsl_stmt_for(a, mv[k], tsl_expr_int(a, mv[k]->dtype, 0), l0->u.loop.extent,
                          TSL_FOR_SERIAL, NULL, (tsl_attrs){0, NULL}, merged);
  }
  const tsl_stmt **items = TSL_NEW_ARRAY(a, const tsl_stmt *, seq->u.seq.n);
  uint32_t m = 0;
  for (uint32_t k = 0; k < seq->u.seq.n; k++) {
    if (k == at)
      items[m++] = merged;
    else if (!is_nest[k])
      items[m++] = seq->u.seq.stmts[k];
  }
  sch_commit(c, ps[0].func, sch_path_rebuild(a, &ps[0], lca, tsl_stmt_seq(a, m, items)));
  sch_out_loop(c, ps[0].func->name, mv[depth - 1]);
  return TSL_OK;
}
