/*
 * Helpers of the loop primitives: loop rebuilding, block-binding
 * simplification after a loop variable was replaced, thread ranks.
 */
#include "loops_internal.h"

#include <string.h>

#define WALK_MAX_DEPTH 512

const tsl_stmt *loops_with_body(tsl_arena *a, const tsl_stmt *loop,
                                const tsl_stmt *body) {
  return tsl_stmt_for(a, loop->u.loop.loop_var, loop->u.loop.min,
                      loop->u.loop.extent, (tsl_for_kind)loop->u.loop.for_kind,
                      loop->u.loop.thread_tag, loop->u.loop.annotations, body);
}

/* ---- binding simplification -------------------------------------------- */

typedef struct walk {
  sch_call *c;
  int preserve;
  uint32_t n_unit;
  const tsl_var *unit[WALK_MAX_DEPTH];
  const tsl_expr *unit_min[WALK_MAX_DEPTH];
  uint32_t n_bound;
  const tsl_var *bound[WALK_MAX_DEPTH];
} walk;

static const tsl_expr *unit_subst(const tsl_var *v, void *ud) {
  walk *w = ud;
  for (uint32_t i = 0; i < w->n_unit; i++)
    if (w->unit[i] == v)
      return w->unit_min[i];
  return NULL;
}

/* Enter a loop: bind its range; remember it when it has extent 1. */
static void enter_loop(walk *w, const tsl_stmt *loop) {
  tsl_analyzer_bind_bounds(w->c->sch->an, loop->u.loop.loop_var, loop->u.loop.min,
                    loop->u.loop.extent);
  if (w->n_bound < WALK_MAX_DEPTH)
    w->bound[w->n_bound++] = loop->u.loop.loop_var;
  int64_t ext;
  if (tsl_expr_is_const_int(loop->u.loop.extent, &ext) && ext == 1 &&
      w->n_unit < WALK_MAX_DEPTH) {
    w->unit[w->n_unit] = loop->u.loop.loop_var;
    w->unit_min[w->n_unit++] = loop->u.loop.min;
  }
}

static const tsl_stmt *simplify_stmt(walk *w, const tsl_stmt *s,
                                     uint32_t depth);

static const tsl_stmt *simplify_realize(walk *w, const tsl_stmt *s,
                                        uint32_t depth) {
  tsl_arena *a = w->c->arena;
  uint32_t n = s->u.realize.n_iter_values;
  const tsl_expr **vals = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_expr *v = s->u.realize.iter_values[i], *nv = v;
    if (!w->preserve && w->n_unit)
      nv = tsl_expr_substitute(a, v, unit_subst, w);
    nv = sch_simplify(w->c, nv);
    if (nv != v) {
      if (!vals) {
        vals = TSL_NEW_ARRAY(a, const tsl_expr *, n);
        memcpy(vals, s->u.realize.iter_values, sizeof *vals * n);
      }
      vals[i] = nv;
    }
  }
  const tsl_block *b = s->u.realize.block;
  const tsl_stmt *body = simplify_stmt(w, b->body, depth + 1);
  if (body != b->body) {
    tsl_block *nb = tsl_block_clone(a, b);
    nb->body = body;
    b = nb;
  }
  if (!vals && b == s->u.realize.block)
    return s;
  return tsl_stmt_block_realize(a, n, vals ? vals : s->u.realize.iter_values,
                                s->u.realize.predicate, b);
}

static const tsl_stmt *simplify_stmt(walk *w, const tsl_stmt *s,
                                     uint32_t depth) {
  tsl_arena *a = w->c->arena;
  if (depth > WALK_MAX_DEPTH)
    return s;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    uint32_t nu = w->n_unit, nb = w->n_bound;
    enter_loop(w, s);
    const tsl_stmt *body = simplify_stmt(w, s->u.loop.body, depth + 1);
    tsl_analyzer_unbind(w->c->sch->an, s->u.loop.loop_var);
    w->n_unit = nu;
    w->n_bound = nb;
    return body == s->u.loop.body ? s : loops_with_body(a, s, body);
  }
  case TSL_STMT_BLOCK_REALIZE: return simplify_realize(w, s, depth);
  case TSL_STMT_SEQ: {
    const tsl_stmt **items = NULL;
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      const tsl_stmt *x = simplify_stmt(w, s->u.seq.stmts[i], depth + 1);
      if (x != s->u.seq.stmts[i] && !items) {
        items = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n);
        memcpy(items, s->u.seq.stmts, sizeof *items * s->u.seq.n);
      }
      if (items)
        items[i] = x;
    }
    return items ? tsl_stmt_seq(a, s->u.seq.n, items) : s;
  }
  case TSL_STMT_IF: {
    const tsl_stmt *t = simplify_stmt(w, s->u.branch.then_case, depth + 1);
    const tsl_stmt *e = s->u.branch.else_case
                            ? simplify_stmt(w, s->u.branch.else_case, depth + 1)
                            : NULL;
    if (t == s->u.branch.then_case && e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, s->u.branch.cond, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_stmt *body = simplify_stmt(w, s->u.let.body, depth + 1);
    return body == s->u.let.body
               ? s
               : tsl_stmt_let(a, s->u.let.var, s->u.let.value, body);
  }
  default: return s;
  }
}

const tsl_stmt *loops_simplify_bindings(sch_call *c, const sch_path *p,
                                        uint32_t level, const tsl_stmt *s,
                                        int preserve_unit_iters) {
  walk *w = TSL_NEW(c->arena, walk);
  memset(w, 0, sizeof *w);
  w->c = c;
  w->preserve = preserve_unit_iters;
  uint32_t scope = sch_path_scope_level(p, level);
  for (uint32_t k = scope + 1; k < level; k++)
    if (p->stmts[k]->kind == TSL_STMT_FOR)
      enter_loop(w, p->stmts[k]);
  const tsl_stmt *r = simplify_stmt(w, s, 0);
  for (uint32_t i = 0; i < w->n_bound; i++)
    tsl_analyzer_unbind(c->sch->an, w->bound[i]);
  return r;
}

/* ---- checks -------------------------------------------------------------- */

int loops_thread_rank(const char *tag) {
  static const char *const names[3][4] = {
      {"blockIdx.x", "blockIdx.y", "blockIdx.z", NULL},
      {"threadIdx.x", "threadIdx.y", "threadIdx.z", NULL},
      {"vthread", "vthread.x", "vthread.y", "vthread.z"}};
  for (int r = 0; r < 3; r++)
    for (int i = 0; i < 4; i++)
      if (names[r][i] && strcmp(names[r][i], tag) == 0)
        return r;
  return -1;
}
