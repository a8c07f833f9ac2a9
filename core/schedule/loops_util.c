/*
 * Helpers of the loop primitives: block-binding simplification after a
 * loop variable was replaced, thread ranks.
 */
#include "loops_internal.h"

#include <string.h>

/* ---- binding simplification -------------------------------------------- */

/* A statement-only mutator: loops bind their ranges in the analyzer for
 * their scope; a realize gets its iter values simplified and its block body
 * walked (not its init). */
typedef struct walk {
  tsl_mutator m; /* first: the hooks get the mutator */
  sch_call *c;
  int preserve;
  tsl_map unit; /* extent-1 loop var -> its min */
} walk;

static void enter_loop(walk *w, const tsl_stmt *loop) {
  tsl_analyzer_bind(w->c->sch->an, loop->u.loop.loop_var, loop->u.loop.min,
                    loop->u.loop.extent);
  int64_t ext;
  if (tsl_expr_is_const_int(loop->u.loop.extent, &ext) && ext == 1)
    tsl_map_put(&w->unit, loop->u.loop.loop_var, (void *)loop->u.loop.min);
}

static void leave_loop(walk *w, const tsl_stmt *loop) {
  tsl_analyzer_unbind(w->c->sch->an, loop->u.loop.loop_var);
  tsl_map_del(&w->unit, loop->u.loop.loop_var);
}

/* The simplified iter values, or NULL when none changes. */
static const tsl_expr **simplify_values(walk *w, const tsl_stmt *s) {
  uint32_t n = s->u.realize.n_iter_values;
  const tsl_expr **vals = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_expr *v = s->u.realize.iter_values[i], *nv = v;
    if (!w->preserve)
      nv = tsl_expr_substitute_map(w->c->arena, v, &w->unit);
    nv = sch_simplify(w->c, nv);
    if (nv != v && !vals)
      vals = tsl_arena_dup(w->c->arena, s->u.realize.iter_values, sizeof *vals * n);
    if (vals)
      vals[i] = nv;
  }
  return vals;
}

static const tsl_stmt *simplify_stmt(tsl_mutator *m, const tsl_stmt *s) {
  walk *w = (walk *)m;
  if (s->kind == TSL_STMT_FOR) {
    enter_loop(w, s);
    const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
    leave_loop(w, s);
    return r;
  }
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return tsl_mutate_stmt_children(m, s);
  const tsl_expr **vals = simplify_values(w, s);
  const tsl_block *b = s->u.realize.block;
  const tsl_stmt *body = tsl_mutate_stmt(m, b->body);
  if (body != b->body) {
    tsl_block *nb = tsl_block_clone(m->arena, b);
    nb->body = body;
    b = nb;
  }
  if (!vals && b == s->u.realize.block)
    return s;
  return tsl_stmt_block_realize(m->arena, s->u.realize.n_iter_values,
                                vals ? vals : s->u.realize.iter_values,
                                s->u.realize.predicate, b);
}

const tsl_stmt *loops_simplify_bindings(sch_call *c, const sch_path *p,
                                        uint32_t level, const tsl_stmt *s,
                                        int preserve_unit_iters) {
  walk w;
  memset(&w, 0, sizeof w);
  w.m = tsl_mutator_make(c->arena);
  w.m.stmt = simplify_stmt;
  w.m.expr = tsl_mutate_expr_keep;
  w.c = c;
  w.preserve = preserve_unit_iters;
  tsl_map_init(&w.unit, c->arena);
  uint32_t scope = sch_path_scope_level(p, level);
  for (uint32_t k = scope + 1; k < level; k++)
    if (p->stmts[k]->kind == TSL_STMT_FOR)
      enter_loop(&w, p->stmts[k]);
  const tsl_stmt *r = tsl_mutate_stmt(&w.m, s);
  for (uint32_t k = scope + 1; k < level; k++)
    if (p->stmts[k]->kind == TSL_STMT_FOR)
      tsl_analyzer_unbind(c->sch->an, p->stmts[k]->u.loop.loop_var);
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
