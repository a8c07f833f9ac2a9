/*
 * Helpers of the loop primitives: block-binding simplification after a
 * loop variable was replaced, thread ranks.
 */
#include "loops_internal.h"

#include <string.h>

/* ---- binding simplification -------------------------------------------- */

/* TVM's IterMapSimplifyBlockBinding: the bindings of every block under the
 * rewritten loop are detected as an iterator map of the loops around them
 * (under the block's predicate) and written back in the map's normal form
 * (tsl_iter_sum_to_expr, flattened); where they are no such map they
 * stay as they are. The normal form keeps a fused sum
 * under its division, as TVM prints it: (f_0 * 2 + f_1) // 256 rather
 * than f_0 // 128. */
typedef struct walk {
  tsl_mutator m; /* first: the hooks get the mutator */
  sch_call *c;
  tsl_analyzer *an; /* no bindings, as TVM's */
  int preserve;
  uint32_t from;   /* the level below the scope block, for sch_binding_affine_seed */
  uint32_t nested; /* blocks entered: their blocks have another scope */
  tsl_vec vars; /* const tsl_var *: the loops around, outermost first */
  tsl_vec doms; /* tsl_range */
} walk;

/* The bindings as an iterator map of the loops around them, or 0. */
static int detect(walk *w, uint32_t n, const tsl_expr *const *vals,
                  const tsl_expr *pred, tsl_iter_map *map) {
  return w->vars.len &&
         tsl_iter_map_detect(w->an, w->c->arena, n, vals, w->vars.len,
                             TSL_VEC_DATA(&w->vars, const tsl_var *),
                             TSL_VEC_DATA(&w->doms, tsl_range), pred,
                             TSL_ITER_MAP_SURJECTIVE, !w->preserve, map,
                             NULL) == TSL_OK;
}

/* Whether the normal form of `sum` is already what flattening gives: a
 * loop's split takes its low part (x % 8), its high part (x // 8) or all of
 * it, and a fused mark's split is all of it, unscaled, and its sum such a
 * sum in turn (i_0 * 8 + i_1 * 4 + i_2 as the whole of a fused mark).
 * Otherwise it nests the sum, ((i_0 * 2 + i_1) * 4 + i_2) // 8, or splits a
 * loop in the middle as x % 256 // 16, which the simplifier writes
 * x // 16 % 16. */
static int prints_flat(const tsl_iter_sum *sum) {
  for (uint32_t k = 0; k < sum->n; k++) {
    const tsl_iter_split *s = sum->args[k];
    int64_t lf, ext, src, scale, top;
    if (!tsl_expr_is_const_int(s->lower_factor, &lf) ||
        !tsl_expr_is_const_int(s->extent, &ext) ||
        !tsl_expr_is_const_int(s->source->extent, &src))
      return 0;
    if (!s->source->sum) {
      if (lf != 1 && (__builtin_mul_overflow(lf, ext, &top) || top != src))
        return 0;
      continue;
    }
    if (lf != 1 || ext != src || !tsl_expr_is_const_int(s->scale, &scale) || scale != 1 ||
        !prints_flat(s->source->sum))
      return 0;
  }
  return 1;
}

/* The simplified bindings, or NULL where they stay; *map gets their iterator
 * map (map->n 0 when there is none). */
static const tsl_expr **simplify_values(walk *w, const tsl_stmt *s, tsl_iter_map *out) {
  tsl_arena *a = w->c->arena;
  uint32_t n = s->u.realize.n_iter_values;
  const tsl_expr *pred = s->u.realize.predicate;
  tsl_iter_map map;
  out->n = 0;
  if (!n || !detect(w, n, s->u.realize.iter_values, pred, &map))
    return NULL;
  *out = map;
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, n);
  const tsl_expr **flat = TSL_NEW_ARRAY(a, const tsl_expr *, n);
  int changed = 0, nested = 0;
  for (uint32_t i = 0; i < n; i++) {
    vals[i] = tsl_iter_sum_to_expr(w->an, a, map.indices[i]);
    nested |= !prints_flat(map.indices[i]);
  }
  if (!nested)
    return vals; /* already flat (what flattening would give back) */
  for (uint32_t i = 0; i < n; i++) {
    /* our maps nest fused sums ((i_0 * 2 + i_1) * 4 + i_2) where TVM's
     * are flat; exact algebra without bounds flattens them, kept when
     * the result is still an iterator map (it may also reduce a fused
     * sum under a modulus, (f_0 * 64 + f_1) % 32 -> f_1 % 32, which
     * would split f_1 apart from the fused sum) */
    flat[i] = tsl_simplify(w->an, a, vals[i]);
    /* ... but never one that drops a loop: (f_0 * 3 + f_1) % 3 is not
     * f_1 % 3 to primitives that ask which loops a binding touches
     * (rfactor keeps a reduction iterator that does not touch the factored
     * loop), as TVM's form keeps the fused sum */
    for (uint32_t k = 0; k < w->vars.len && flat[i] != vals[i]; k++) {
      const tsl_var *v = TSL_VEC_AT(&w->vars, const tsl_var *, k);
      if (tsl_expr_uses_var(vals[i], v) && !tsl_expr_uses_var(flat[i], v))
        flat[i] = vals[i];
    }
    changed |= flat[i] != vals[i];
  }
  tsl_iter_map again;
  if (!changed || !detect(w, n, flat, pred, &again))
    return vals;
  *out = again;
  return flat;
}

static void push_loop(walk *w, const tsl_stmt *loop) {
  TSL_VEC_PUSH(&w->vars, const tsl_var *, loop->u.loop.loop_var);
  TSL_VEC_PUSH(&w->doms, tsl_range,
               ((tsl_range){loop->u.loop.min, loop->u.loop.extent}));
}

/* A statement-only mutator: loops push their ranges for their scope; a
 * realize gets its bindings simplified and its block body walked (not its
 * init). */
static const tsl_stmt *simplify_stmt(tsl_mutator *m, const tsl_stmt *s) {
  walk *w = (walk *)m;
  if (s->kind == TSL_STMT_FOR) {
    uint32_t n = w->vars.len;
    push_loop(w, s);
    const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
    w->vars.len = w->doms.len = n;
    return r;
  }
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return tsl_mutate_stmt_children(m, s);
  tsl_iter_map map;
  const tsl_expr **vals = simplify_values(w, s, &map);
  const tsl_block *b = s->u.realize.block;
  if (map.n && w->preserve && !w->nested)
    sch_binding_affine_seed(w->c, b, vals ? vals : s->u.realize.iter_values,
                            s->u.realize.predicate, w->from, w->vars.len,
                            TSL_VEC_DATA(&w->vars, const tsl_var *),
                            TSL_VEC_DATA(&w->doms, tsl_range), &map);
  w->nested++;
  const tsl_stmt *body = tsl_mutate_stmt(m, b->body);
  w->nested--;
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
  walk w = {.m = tsl_mutator_make(c->arena), .c = c,
            .an = tsl_analyzer_new(c->sch->ctx),
            .preserve = preserve_unit_iters};
  w.m.stmt = simplify_stmt;
  w.m.expr = tsl_mutate_expr_keep;
  tsl_vec_init(&w.vars, sizeof(const tsl_var *), c->arena);
  tsl_vec_init(&w.doms, sizeof(tsl_range), c->arena);
  uint32_t scope = sch_path_scope_level(p, level);
  w.from = scope + 1;
  for (uint32_t k = scope + 1; k < level; k++)
    if (p->stmts[k]->kind == TSL_STMT_FOR)
      push_loop(&w, p->stmts[k]);
  const tsl_stmt *r = tsl_mutate_stmt(&w.m, s);
  tsl_analyzer_free(w.an);
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
