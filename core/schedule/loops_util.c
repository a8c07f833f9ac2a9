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

/* TVM's IterMapSimplifyBlockBinding: the bindings of every block under the
 * rewritten loop are detected as an iterator map of the loops around them
 * (under the block's predicate) and written back in the map's normal form
 * (tsl_iter_sum_to_expr, flattened); where they are no such map they
 * stay as they are. The normal form keeps a fused sum
 * under its division, as TVM prints it: (f_0 * 2 + f_1) // 256 rather
 * than f_0 // 128. */
typedef struct walk {
  sch_call *c;
  tsl_analyzer *an; /* no bindings, as TVM's */
  int preserve;
  uint32_t n;
  const tsl_var *vars[WALK_MAX_DEPTH];
  tsl_range doms[WALK_MAX_DEPTH];
} walk;

static const tsl_stmt *simplify_stmt(walk *w, const tsl_stmt *s,
                                     uint32_t depth);

/* The bindings as an iterator map of the loops around them, or 0. */
static int detect(walk *w, uint32_t n, const tsl_expr *const *vals,
                  const tsl_expr *pred, tsl_iter_map *map) {
  return w->n && tsl_iter_map_detect(w->an, w->c->arena, n, vals, w->n, w->vars,
                                     w->doms, pred, TSL_ITER_MAP_SURJECTIVE,
                                     !w->preserve, map, NULL) == TSL_OK;
}

static const tsl_stmt *simplify_realize(walk *w, const tsl_stmt *s,
                                        uint32_t depth) {
  tsl_arena *a = w->c->arena;
  uint32_t n = s->u.realize.n_iter_values;
  const tsl_expr *pred = s->u.realize.predicate;
  const tsl_expr **vals = NULL;
  tsl_iter_map map;
  if (n && detect(w, n, s->u.realize.iter_values, pred, &map)) {
    vals = TSL_NEW_ARRAY(a, const tsl_expr *, n);
    const tsl_expr **flat = TSL_NEW_ARRAY(a, const tsl_expr *, n);
    int changed = 0;
    for (uint32_t i = 0; i < n; i++) {
      vals[i] = tsl_iter_sum_to_expr(w->an, a, map.indices[i]);
      /* our maps nest fused sums ((i_0 * 2 + i_1) * 4 + i_2) where TVM's
       * are flat; exact algebra without bounds flattens them, kept when
       * the result is still an iterator map (it may also reduce a fused
       * sum under a modulus, (f_0 * 64 + f_1) % 32 -> f_1 % 32, which
       * would split f_1 apart from the fused sum) */
      flat[i] = tsl_simplify(w->an, a, vals[i]);
      changed |= flat[i] != vals[i];
    }
    tsl_iter_map again;
    if (changed && detect(w, n, flat, pred, &again))
      vals = flat;
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
                                pred, b);
}

static void push_loop(walk *w, const tsl_stmt *loop) {
  if (w->n == WALK_MAX_DEPTH)
    return;
  w->vars[w->n] = loop->u.loop.loop_var;
  w->doms[w->n].min = loop->u.loop.min;
  w->doms[w->n++].extent = loop->u.loop.extent;
}

static const tsl_stmt *simplify_stmt(walk *w, const tsl_stmt *s,
                                     uint32_t depth) {
  tsl_arena *a = w->c->arena;
  if (depth > WALK_MAX_DEPTH)
    return s;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    uint32_t n = w->n;
    push_loop(w, s);
    const tsl_stmt *body = simplify_stmt(w, s->u.loop.body, depth + 1);
    w->n = n;
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
  w->an = tsl_analyzer_new(c->sch->ctx);
  w->preserve = preserve_unit_iters;
  uint32_t scope = sch_path_scope_level(p, level);
  for (uint32_t k = scope + 1; k < level; k++)
    if (p->stmts[k]->kind == TSL_STMT_FOR)
      push_loop(w, p->stmts[k]);
  const tsl_stmt *r = simplify_stmt(w, s, 0);
  tsl_analyzer_free(w->an);
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
