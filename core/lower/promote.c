/*
 * Loop-invariant accesses promoted to registers, the last lowering pass
 * (after unroll.c; README.md, "Promotion rule").
 *
 * For each loop, outermost first, a buffer whose every access inside the
 * loop is a vector at an index the loop does not change (an accumulator
 * over a reduction loop) gets a small "local" buffer, `<name>.reg`, that holds
 * those elements for the duration of the loop: loaded before it, used
 * inside it, stored after it. Targets keep such a buffer, indexed by
 * constants only, in registers. LLVM's LICM does the same only where alias
 * analysis proves the accesses distinct, which fails once an index has
 * more terms than BasicAA decomposes (six GEPs).
 *
 * A buffer is promoted at a loop only when that is exact:
 *   - the loop is serial (or an unroll / vectorize loop left a loop) with a
 *     constant extent >= 2, and its body has no EVALUATE, extern call,
 *     builtin, block, parallel or thread-bound loop;
 *   - the buffer is a "global"-scope buffer allocated outside the loop,
 *     stored inside it, never reached through its data pointer there;
 *   - every access to it inside the loop runs on every iteration (not
 *     under an IF, an if_then_else / select branch, the right side of
 *     and / or, or a loop whose extent is not a constant >= 1);
 *   - every index is a RAMP with a constant positive stride over
 *     variables defined outside the loop, without loads;
 *   - any two accesses are the same elements (same base, stride, lanes) or
 *     provably disjoint ones (their bases differ by a constant that puts
 *     the element ranges apart);
 *   - all that the loop holds fits PR_MAX_REGS registers.
 */
#include "lower_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one loop may hold: PR_MAX_REGS registers of PR_REG_BYTES (each
 * element group takes whole registers), half of AVX2's sixteen 32-byte
 * registers. More accumulators than the register file holds are spilled and
 * reloaded around every use, which is slower than the memory accesses they
 * replace (28 promoted <8 x float> accumulators ran a stem conv2d candidate
 * at half speed on AVX2). */
#define PR_MAX_REGS 8
#define PR_REG_BYTES 32
#define PR_MAX_SLOW 512 /* simplifier comparisons per buffer and loop */

typedef struct pr_access {
  const tsl_buffer *buf;
  const void *node; /* the LOAD expression or STORE statement */
  const tsl_expr *index;
  int store, cond;
} pr_access;

/* One group of elements: the ramp of an access. */
typedef struct pr_class {
  const tsl_expr *index;     /* an original index of the group */
  const tsl_expr *var_part;  /* its base without the constant term */
  int64_t konst, stride;
  uint16_t lanes;
  int loaded, stored;
} pr_class;

typedef struct pr_walk {
  tsl_map defined;   /* vars bound inside the loop */
  tsl_map allocated; /* buffers allocated inside the loop */
  tsl_map data_used; /* buffers whose data pointer is used */
  tsl_vec accesses;  /* pr_access */
  int opaque;
} pr_walk;

typedef struct pr_pass {
  tsl_mutator m;
  lw_ctx *c;
  tsl_analyzer *an;
  tsl_map own; /* the register buffers this pass made */
} pr_pass;

static void walk_expr(pr_walk *w, const tsl_expr *e, int cond);

static void record(pr_walk *w, const tsl_buffer *b, const void *node, const tsl_expr *index,
                   int store, int cond) {
  pr_access *a = tsl_vec_push(&w->accesses);
  *a = (pr_access){b, node, index, store, cond};
}

static void walk_expr(pr_walk *w, const tsl_expr *e, int cond) {
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_LOAD:
    record(w, e->u.buffer, e, e->n_args == 1 ? e->args[0] : NULL, 0, cond);
    break;
  case TSL_EXPR_BUFFER_DATA:
    tsl_map_put(&w->data_used, e->u.buffer, TSL_MAP_INT(1));
    return;
  case TSL_EXPR_CALL_EXTERN:
  case TSL_EXPR_BUILTIN:
    w->opaque = 1;
    return;
  case TSL_EXPR_IF_THEN_ELSE:
  case TSL_EXPR_SELECT:
  case TSL_EXPR_AND:
  case TSL_EXPR_OR:
    walk_expr(w, e->args[0], cond);
    for (uint32_t i = 1; i < e->n_args; i++)
      walk_expr(w, e->args[i], 1);
    return;
  default:
    break;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    walk_expr(w, e->args[i], cond);
}

static void walk_stmt(pr_walk *w, const tsl_stmt *s, int cond) {
  int64_t ext;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    if (s->u.loop.for_kind == TSL_FOR_PARALLEL || s->u.loop.for_kind == TSL_FOR_THREAD_BINDING)
      w->opaque = 1;
    walk_expr(w, s->u.loop.min, cond);
    walk_expr(w, s->u.loop.extent, cond);
    tsl_map_put(&w->defined, s->u.loop.loop_var, TSL_MAP_INT(1));
    walk_stmt(w, s->u.loop.body,
              cond || !tsl_expr_is_const_int(s->u.loop.extent, &ext) || ext < 1);
    return;
  case TSL_STMT_STORE:
    walk_expr(w, s->u.store.value, cond);
    for (uint32_t i = 0; i < s->u.store.n_indices; i++)
      walk_expr(w, s->u.store.indices[i], cond);
    record(w, s->u.store.buffer, s, s->u.store.n_indices == 1 ? s->u.store.indices[0] : NULL, 1,
           cond);
    return;
  case TSL_STMT_IF:
    walk_expr(w, s->u.branch.cond, cond);
    walk_stmt(w, s->u.branch.then_case, 1);
    if (s->u.branch.else_case)
      walk_stmt(w, s->u.branch.else_case, 1);
    return;
  case TSL_STMT_LET:
    walk_expr(w, s->u.let.value, cond);
    tsl_map_put(&w->defined, s->u.let.var, TSL_MAP_INT(1));
    walk_stmt(w, s->u.let.body, cond);
    return;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      walk_stmt(w, s->u.seq.stmts[i], cond);
    return;
  case TSL_STMT_ALLOCATE:
    tsl_map_put(&w->allocated, s->u.alloc.buffer, TSL_MAP_INT(1));
    walk_stmt(w, s->u.alloc.body, cond);
    return;
  default: /* EVALUATE, BLOCK_REALIZE */
    w->opaque = 1;
    return;
  }
}

static int variant_fn(const tsl_expr *e, void *ud) {
  const tsl_map *defined = ud;
  return e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_BUFFER_DATA ||
         e->kind == TSL_EXPR_CALL_EXTERN || e->kind == TSL_EXPR_BUILTIN ||
         (e->kind == TSL_EXPR_VAR && tsl_map_get(defined, e->u.var));
}

/* Splits a scalar integer index into its non-constant part and constant. */
static const tsl_expr *split_const(const tsl_expr *e, int64_t *konst) {
  int64_t c;
  *konst = 0;
  for (;;) {
    if (tsl_expr_is_const_int(e, &c)) {
      *konst += c;
      return NULL;
    }
    if (e->kind == TSL_EXPR_ADD && tsl_expr_is_const_int(e->args[1], &c))
      e = e->args[0];
    else if (e->kind == TSL_EXPR_ADD && tsl_expr_is_const_int(e->args[0], &c))
      e = e->args[1];
    else if (e->kind == TSL_EXPR_SUB && tsl_expr_is_const_int(e->args[1], &c))
      c = -c, e = e->args[0];
    else
      return e;
    *konst += c;
  }
}

/* The element group of `index` as base, stride and lanes; 0 when the index
 * is not a ramp with a constant positive stride. */
static int shape_of(const tsl_expr *index, pr_class *k) {
  memset(k, 0, sizeof *k);
  k->index = index;
  if (index->kind != TSL_EXPR_RAMP || index->dtype.lanes < 2 ||
      !tsl_expr_is_const_int(index->args[1], &k->stride) || k->stride <= 0 ||
      index->args[0]->dtype.lanes != 1)
    return 0;
  const tsl_expr *base = index->args[0];
  k->lanes = index->dtype.lanes;
  if (base->dtype.code != TSL_DT_INT && base->dtype.code != TSL_DT_UINT)
    return 0;
  k->var_part = split_const(base, &k->konst);
  return 1;
}

/* The constant difference a.base - b.base into *d; 0 when not constant. */
static int base_diff(pr_pass *p, const pr_class *a, const pr_class *b, int *slow, int64_t *d) {
  if (a->var_part && b->var_part ? tsl_expr_equal(a->var_part, b->var_part)
                                 : a->var_part == b->var_part) {
    *d = a->konst - b->konst;
    return 1;
  }
  if (++*slow > PR_MAX_SLOW)
    return 0;
  const tsl_expr *diff = tsl_simplify(
      p->an, p->c->arena,
      lw_index_op(p->c->arena, TSL_EXPR_SUB, a->index->args[0], b->index->args[0]));
  return tsl_expr_is_const_int(diff, d);
}

/* The classes of buffer b's accesses inside the loop, or 0 when b cannot
 * be promoted there. `which` receives each access's class (-1: other
 * buffer). */
static int classify(pr_pass *p, const pr_walk *w, const tsl_buffer *b, tsl_vec *classes,
                    int *which, int *regs) {
  int stored = 0, slow = 0;
  int64_t bytes = tsl_dtype_bytes(b->dtype);
  const pr_access *acc = TSL_VEC_DATA(&w->accesses, pr_access);
  for (uint32_t i = 0; i < w->accesses.len; i++) {
    which[i] = -1;
    if (acc[i].buf != b)
      continue;
    pr_class k;
    if (acc[i].cond || !acc[i].index || !shape_of(acc[i].index, &k) ||
        tsl_expr_visit(acc[i].index, variant_fn, (void *)&w->defined))
      return 0;
    stored |= acc[i].store;
    int found = -1;
    pr_class *ks = TSL_VEC_DATA(classes, pr_class);
    for (uint32_t j = 0; j < classes->len; j++) {
      int64_t d;
      if (!base_diff(p, &k, &ks[j], &slow, &d))
        return 0;
      if (d == 0 && k.stride == ks[j].stride && k.lanes == ks[j].lanes) {
        found = (int)j;
        break;
      }
      /* element ranges [0, span_j] of class j and [d, d + span_k] */
      int64_t span_j = ks[j].stride * (ks[j].lanes - 1), span_k = k.stride * (k.lanes - 1);
      if (!(d > span_j || d + span_k < 0))
        return 0;
    }
    if (found < 0) {
      if ((*regs += (int)((k.lanes * bytes + PR_REG_BYTES - 1) / PR_REG_BYTES)) > PR_MAX_REGS)
        return 0;
      found = (int)classes->len;
      TSL_VEC_PUSH(classes, pr_class, k);
    }
    pr_class *kj = &TSL_VEC_AT(classes, pr_class, found);
    kj->loaded |= !acc[i].store;
    kj->stored |= acc[i].store;
    which[i] = found;
  }
  return stored;
}

static int scope_global(const tsl_buffer *b) {
  return !b->scope || !strcmp(b->scope, "global");
}

/* ---- the rewrite inside the loop --------------------------------------- */

/* Where an access goes: its element group's place in the register buffer. */
typedef struct pr_slot {
  const tsl_buffer *reg;
  const tsl_expr *index;
} pr_slot;

typedef struct pr_rewrite {
  tsl_mutator m;
  tsl_map slots; /* access node (LOAD or STORE) -> pr_slot * */
} pr_rewrite;

static const tsl_expr *rw_expr(tsl_mutator *m, const tsl_expr *e) {
  pr_rewrite *r = (pr_rewrite *)m;
  if (e->kind == TSL_EXPR_LOAD) {
    const pr_slot *sl = tsl_map_get(&r->slots, e);
    if (sl)
      return tsl_expr_load(m->arena, sl->reg, 1, &sl->index);
  }
  return tsl_mutate_expr_children(m, e);
}

static const tsl_stmt *rw_stmt(tsl_mutator *m, const tsl_stmt *s) {
  pr_rewrite *r = (pr_rewrite *)m;
  if (s->kind == TSL_STMT_STORE) {
    const pr_slot *sl = tsl_map_get(&r->slots, s);
    if (sl)
      return tsl_stmt_store(m->arena, sl->reg, tsl_mutate_expr(m, s->u.store.value), 1,
                            &sl->index);
  }
  return tsl_mutate_stmt_children(m, s);
}

/* ---- promotion at one loop --------------------------------------------- */

static int loop_ok(const tsl_stmt *s) {
  int64_t ext;
  uint32_t k = s->u.loop.for_kind;
  return (k == TSL_FOR_SERIAL || k == TSL_FOR_UNROLLED || k == TSL_FOR_VECTORIZED) &&
         tsl_expr_is_const_int(s->u.loop.extent, &ext) && ext >= 2;
}

/* The loop with its promotable buffers in registers, the rest of the pass
 * applied inside; NULL when no buffer is promoted at this loop. */
static const tsl_stmt *promote_at(pr_pass *p, const tsl_stmt *loop) {
  tsl_arena *a = p->c->arena;
  pr_walk w;
  memset(&w, 0, sizeof w);
  tsl_map_init(&w.defined, NULL);
  tsl_map_init(&w.allocated, NULL);
  tsl_map_init(&w.data_used, NULL);
  tsl_vec_init(&w.accesses, sizeof(pr_access), NULL);
  tsl_map_put(&w.defined, loop->u.loop.loop_var, TSL_MAP_INT(1));
  walk_stmt(&w, loop->u.loop.body, 0);

  const tsl_stmt *out = NULL;
  pr_rewrite r;
  memset(&r, 0, sizeof r);
  r.m = tsl_mutator_make(a);
  r.m.expr = rw_expr;
  r.m.stmt = rw_stmt;
  tsl_map_init(&r.slots, NULL);
  tsl_map tried;
  tsl_map_init(&tried, NULL);
  tsl_vec pre, post, regs; /* the loads before the loop, the stores after it */
  tsl_vec_init(&pre, sizeof(const tsl_stmt *), NULL);
  tsl_vec_init(&post, sizeof(const tsl_stmt *), NULL);
  tsl_vec_init(&regs, sizeof(const tsl_buffer *), NULL);
  int *which = calloc(w.accesses.len ? w.accesses.len : 1, sizeof *which);
  const pr_access *acc = TSL_VEC_DATA(&w.accesses, pr_access);
  int regs_used = 0;
  for (uint32_t i = 0; which && i < w.accesses.len && !w.opaque; i++) {
    const tsl_buffer *b = acc[i].buf;
    if (tsl_map_get(&tried, b))
      continue;
    tsl_map_put(&tried, b, TSL_MAP_INT(1));
    if (!scope_global(b) || b->dtype.lanes != 1 || tsl_map_get(&p->own, b) ||
        tsl_map_get(&w.allocated, b) || tsl_map_get(&w.data_used, b))
      continue;
    tsl_vec classes;
    tsl_vec_init(&classes, sizeof(pr_class), NULL);
    int regs_b = regs_used;
    if (!classify(p, &w, b, &classes, which, &regs_b)) {
      tsl_vec_free(&classes);
      continue;
    }
    regs_used = regs_b;
    const pr_class *ks = TSL_VEC_DATA(&classes, pr_class);
    int64_t n = 0;
    for (uint32_t j = 0; j < classes.len; j++)
      n += ks[j].lanes;
    char name[160];
    snprintf(name, sizeof name, "%s.reg", b->name ? b->name : "buf");
    const tsl_expr *size = tsl_expr_i32(a, n);
    const tsl_buffer *reg = tsl_buffer_new(a, tsl_arena_strdup(a, name), b->dtype, 1, &size,
                                           NULL, NULL, "local", 0, 0);
    tsl_map_put(&p->own, reg, TSL_MAP_INT(1));
    TSL_VEC_PUSH(&regs, const tsl_buffer *, reg);
    pr_slot *slots = TSL_NEW_ARRAY(a, pr_slot, classes.len);
    for (uint32_t j = 0, off = 0; j < classes.len; off += ks[j].lanes, j++) {
      const tsl_expr *ri = tsl_expr_ramp(a, tsl_expr_i32(a, off), tsl_expr_i32(a, 1), ks[j].lanes);
      const tsl_expr *src = ks[j].index;
      slots[j] = (pr_slot){reg, ri};
      if (ks[j].loaded)
        TSL_VEC_PUSH(&pre, const tsl_stmt *,
                     tsl_stmt_store(a, reg, tsl_expr_load(a, b, 1, &src), 1, &ri));
      if (ks[j].stored)
        TSL_VEC_PUSH(&post, const tsl_stmt *,
                     tsl_stmt_store(a, b, tsl_expr_load(a, reg, 1, &ri), 1, &src));
    }
    for (uint32_t k = 0; k < w.accesses.len; k++)
      if (which[k] >= 0)
        tsl_map_put(&r.slots, acc[k].node, &slots[which[k]]);
    tsl_vec_free(&classes);
  }
  if (regs.len) {
    const tsl_stmt *body = tsl_mutate_stmt(&r.m, loop->u.loop.body);
    const tsl_stmt *l2 = tsl_stmt_for(a, loop->u.loop.loop_var, loop->u.loop.min,
                                      loop->u.loop.extent, loop->u.loop.for_kind,
                                      loop->u.loop.thread_tag, loop->u.loop.annotations, body);
    l2 = tsl_mutate_stmt_children(&p->m, l2);
    TSL_VEC_PUSH(&pre, const tsl_stmt *, l2);
    tsl_vec_append(&pre, post.data, post.len);
    out = tsl_stmt_seq(a, pre.len, TSL_VEC_DATA(&pre, const tsl_stmt *));
    for (uint32_t j = regs.len; j-- > 0;)
      out = tsl_stmt_allocate(a, TSL_VEC_AT(&regs, const tsl_buffer *, j), out);
  }
  free(which);
  tsl_vec_free(&pre);
  tsl_vec_free(&post);
  tsl_vec_free(&regs);
  tsl_map_free(&tried);
  tsl_map_free(&r.slots);
  tsl_map_free(&w.defined);
  tsl_map_free(&w.allocated);
  tsl_map_free(&w.data_used);
  tsl_vec_free(&w.accesses);
  return out;
}

static const tsl_stmt *pr_stmt(tsl_mutator *m, const tsl_stmt *s) {
  pr_pass *p = (pr_pass *)m;
  if (s->kind == TSL_STMT_FOR && loop_ok(s)) {
    const tsl_stmt *r = promote_at(p, s);
    if (r)
      return r;
  }
  return tsl_mutate_stmt_children(m, s);
}

const tsl_stmt *lw_promote(lw_ctx *c, const tsl_stmt *body) {
  pr_pass p;
  memset(&p, 0, sizeof p);
  p.m = tsl_mutator_make(c->arena);
  p.m.stmt = pr_stmt;
  p.m.expr = tsl_mutate_expr_keep;
  p.c = c;
  p.an = tsl_analyzer_new(c->tctx);
  tsl_map_init(&p.own, NULL);
  const tsl_stmt *out = tsl_mutate_stmt(&p.m, body);
  tsl_map_free(&p.own);
  tsl_analyzer_free(p.an);
  return out;
}
