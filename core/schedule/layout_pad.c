/*
 * The padding plan of transform_layout, as TVM's TransformLayoutPlanner:
 * every store to the buffer is collected with the loops its indices depend
 * on and whether those loops traverse the buffer row-major. Then, in TVM's
 * order of preference:
 *   - no store (an input): a block asserting the pad value in the padding
 *     with T.assume, first in the scope;
 *   - row-major producer loops whose bodies store nothing else and hold no
 *     block but the store's own, which indexes the buffer by its spatial
 *     iterators (any other block would bind an iterator to the padded
 *     loops, outside its domain), each loop the whole body of the one
 *     around it: each nest
 *     is replaced by loops over the new shape whose store writes
 *     if_then_else(padding, pad value, value), the innermost block getting
 *     new iterators `v_axisK` when the store indexes it by its spatial
 *     iterators in order;
 *   - otherwise a block `buffer_<name>_padding` after the last write,
 *     storing the pad value where the padding predicate holds.
 */
#include "layout_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct dep {
  uint32_t lo, hi; /* range of active-loop depths an expression uses */
} dep;

typedef struct lay_write {
  const tsl_stmt *store;
  const tsl_stmt *realize; /* the innermost block realize, or NULL */
  uint32_t n_inner_realizes; /* block realizes between loops[0] and the store */
  uint32_t n_loops;
  const tsl_stmt **loops; /* the loops the indices depend on, outer first */
  int row_major;
} lay_write;

typedef struct planner {
  sch_call *c;
  const lay_pad *in;
  tsl_vec loops;    /* const tsl_stmt *: the active FORs */
  tsl_vec realizes; /* const tsl_stmt *: the active realizes */
  tsl_vec loop_realizes; /* uint32_t: realizes.len when each active FOR began */
  tsl_map depth;    /* var -> dep * */
  tsl_map binding;  /* var -> const tsl_expr *: let / iterator values */
  tsl_vec writes;   /* lay_write */
} planner;

typedef struct dep_acc {
  const tsl_map *depth;
  int found;
  dep d;
} dep_acc;

static int dep_var(const tsl_expr *e, void *ud) {
  dep_acc *a = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  const dep *d = tsl_map_get(a->depth, e->u.var);
  if (!d)
    return 0;
  if (!a->found)
    a->d = *d;
  else {
    a->d.lo = d->lo < a->d.lo ? d->lo : a->d.lo;
    a->d.hi = d->hi > a->d.hi ? d->hi : a->d.hi;
  }
  a->found = 1;
  return 0;
}

static int dep_of(const tsl_expr *e, dep_acc *acc) {
  tsl_expr_visit(e, dep_var, acc);
  return acc->found;
}

static const tsl_expr *binding_fn(const tsl_var *v, void *ud) {
  return tsl_map_get(ud, v);
}

/* A let variable or block iterator bound to `value`. */
static void bind_def(planner *p, const tsl_var *v, const tsl_expr *value) {
  dep_acc acc = {&p->depth, 0, {0, 0}};
  if (!dep_of(value, &acc))
    return;
  dep *d = TSL_NEW(p->c->arena, dep);
  *d = acc.d;
  tsl_map_put(&p->depth, v, d);
  tsl_map_put(&p->binding, v,
              (void *)tsl_expr_substitute(p->c->arena, value, binding_fn, &p->binding));
}

static void unbind_def(planner *p, const tsl_var *v) {
  tsl_map_del(&p->depth, v);
  tsl_map_del(&p->binding, v);
}

static int is_zero_const(const tsl_expr *e) {
  int64_t v;
  return tsl_expr_is_const_int(e, &v) && v == 0;
}

static void record_store(planner *p, const tsl_stmt *s) {
  const tsl_buffer *old = p->in->old_buf;
  dep_acc acc = {&p->depth, 0, {0, 0}};
  for (uint32_t i = 0; i < s->u.store.n_indices; i++)
    dep_of(s->u.store.indices[i], &acc);
  lay_write w = {s, NULL, 0, 0, NULL, 0};
  const tsl_stmt **active = TSL_VEC_DATA(&p->loops, const tsl_stmt *);
  if (acc.found) {
    w.n_loops = acc.d.hi - acc.d.lo + 1;
    w.loops = tsl_arena_dup(p->c->arena, active + acc.d.lo, sizeof *w.loops * w.n_loops);
    w.n_inner_realizes =
        p->realizes.len - TSL_VEC_AT(&p->loop_realizes, uint32_t, acc.d.lo);
  }
  if (p->realizes.len)
    w.realize = TSL_VEC_LAST(&p->realizes, const tsl_stmt *);
  w.row_major = w.n_loops && w.n_loops == old->ndim && w.n_loops == s->u.store.n_indices;
  for (uint32_t i = 0; w.row_major && i < w.n_loops; i++) {
    const tsl_stmt *l = w.loops[i];
    const tsl_expr *idx = tsl_expr_substitute(p->c->arena, s->u.store.indices[i],
                                              binding_fn, &p->binding);
    w.row_major = idx->kind == TSL_EXPR_VAR && idx->u.var == l->u.loop.loop_var &&
                  is_zero_const(l->u.loop.min) &&
                  tsl_expr_equal(l->u.loop.extent, old->shape[i]) &&
                  l->u.loop.for_kind == TSL_FOR_SERIAL;
  }
  *(lay_write *)tsl_vec_push(&p->writes) = w;
}

static int plan_stmt(const tsl_stmt *s, void *ud) {
  planner *p = ud;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    dep *d = TSL_NEW(p->c->arena, dep);
    d->lo = d->hi = p->loops.len;
    tsl_map_put(&p->depth, s->u.loop.loop_var, d);
    TSL_VEC_PUSH(&p->loops, const tsl_stmt *, s);
    TSL_VEC_PUSH(&p->loop_realizes, uint32_t, p->realizes.len);
    break;
  }
  case TSL_STMT_LET:
    bind_def(p, s->u.let.var, s->u.let.value);
    break;
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < b->n_iter_vars; i++)
      bind_def(p, b->iter_vars[i].var, s->u.realize.iter_values[i]);
    TSL_VEC_PUSH(&p->realizes, const tsl_stmt *, s);
    break;
  }
  case TSL_STMT_STORE:
    if (s->u.store.buffer == p->in->old_buf)
      record_store(p, s);
    break;
  default:
    break;
  }
  return 0;
}

static int plan_stmt_post(const tsl_stmt *s, void *ud) {
  planner *p = ud;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    p->loops.len--;
    p->loop_realizes.len--;
    tsl_map_del(&p->depth, s->u.loop.loop_var);
    break;
  case TSL_STMT_LET:
    unbind_def(p, s->u.let.var);
    break;
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < b->n_iter_vars; i++)
      unbind_def(p, b->iter_vars[i].var);
    p->realizes.len--;
    break;
  }
  default:
    break;
  }
  return 0;
}

/* ---- the padded producer (ReplacementPlan) ---- */

typedef struct repl {
  tsl_mutator m; /* first member */
  sch_call *c;
  const lay_pad *in;
  const lay_write *w;
  tsl_map remap;             /* old loop vars / block iterators -> exprs */
  const tsl_expr **new_idx;  /* the indices of the replaced stores */
  const tsl_expr *pred;      /* the padding over new_idx */
  tsl_iter_var *ivs;         /* the innermost block's new iterators, or NULL */
  const tsl_expr **ivals;
  uint32_t n_ivs;
  int all_replaced;
} repl;

/* `e` over the inverse's parameters, with `to` substituted. */
static const tsl_expr *over(repl *r, const tsl_expr *e, const tsl_expr *const *to) {
  tsl_map m;
  tsl_map_init(&m, r->c->arena);
  for (uint32_t k = 0; k < r->in->inv.n_in; k++)
    tsl_map_put(&m, r->in->inv.in[k], (void *)to[k]);
  return tsl_expr_substitute(r->c->arena, e, binding_fn, &m);
}

/* TVM's DefineBlockUpdates: when the store indexes the innermost block by
 * consecutive spatial iterators, those become iterators over the new
 * shape, `v_axisK` bound to the new loops. */
static void block_updates(repl *r, const tsl_expr *const *loop_refs,
                          const tsl_expr *const *shape) {
  const lay_write *w = r->w;
  if (!w->realize)
    return;
  const tsl_stmt *rz = w->realize;
  const tsl_block *b = rz->u.realize.block;
  uint32_t n_idx = w->store->u.store.n_indices, n_it = b->n_iter_vars;
  const tsl_expr *const *old = w->store->u.store.indices;
  if (!n_idx || n_it < n_idx)
    return;
  uint32_t start = 0;
  for (; start < n_it - n_idx; start++)
    if (old[0]->kind == TSL_EXPR_VAR && old[0]->u.var == b->iter_vars[start].var)
      break;
  for (uint32_t i = 0; i < n_idx; i++)
    if (old[i]->kind != TSL_EXPR_VAR || old[i]->u.var != b->iter_vars[start + i].var ||
        b->iter_vars[start + i].iter_type != TSL_ITER_SPATIAL)
      return;
  tsl_arena *a = r->c->arena;
  const lay_map *inv = &r->in->inv;
  uint32_t n_new = inv->n_in;
  r->n_ivs = n_it - n_idx + n_new;
  r->ivs = TSL_NEW_ARRAY(a, tsl_iter_var, r->n_ivs);
  r->ivals = TSL_NEW_ARRAY(a, const tsl_expr *, r->n_ivs);
  const tsl_expr **vrefs = TSL_NEW_ARRAY(a, const tsl_expr *, n_new + 1);
  uint32_t k = 0;
  for (uint32_t i = 0; i < start; i++, k++) {
    r->ivs[k] = b->iter_vars[i];
    r->ivals[k] = rz->u.realize.iter_values[i];
  }
  for (uint32_t i = 0; i < n_new; i++, k++) {
    char name[160];
    snprintf(name, sizeof name, "v_%s", inv->in[i]->name);
    const tsl_var *v = sch_new_var(r->c, name, inv->in[i]->dtype);
    vrefs[i] = v->ref;
    r->ivs[k] = (tsl_iter_var){v, {tsl_expr_int(a, shape[i]->dtype, 0), shape[i]},
                               TSL_ITER_SPATIAL};
    r->ivals[k] = loop_refs[i];
  }
  for (uint32_t i = start + n_idx; i < n_it; i++, k++) {
    r->ivs[k] = b->iter_vars[i];
    r->ivals[k] = rz->u.realize.iter_values[i];
  }
  for (uint32_t i = 0; i < n_idx; i++)
    tsl_map_put(&r->remap, old[i]->u.var, (void *)over(r, inv->out[i], vrefs));
  r->pred = over(r, r->in->padding, vrefs);
  r->new_idx = vrefs;
}

static const tsl_stmt *repl_stmt(tsl_mutator *m, const tsl_stmt *s) {
  repl *r = (repl *)m;
  if (s->kind == TSL_STMT_STORE) {
    const tsl_stmt *ws = r->w->store;
    int same = s->u.store.buffer == ws->u.store.buffer;
    for (uint32_t i = 0; same && i < ws->u.store.n_indices; i++)
      same = tsl_expr_equal(s->u.store.indices[i], ws->u.store.indices[i]);
    if (!same) {
      r->all_replaced = 0;
      return tsl_mutate_stmt_children(m, s);
    }
    tsl_arena *a = m->arena;
    const tsl_expr *pad = lay_map_apply(r->c, &r->in->pad, r->new_idx)[0];
    const tsl_stmt *ns = tsl_stmt_store(
        a, r->in->new_buf, tsl_expr_if_then_else(a, r->pred, pad, s->u.store.value),
        r->in->new_buf->ndim, r->new_idx);
    return tsl_mutate_stmt_children(m, ns);
  }
  const tsl_stmt *out = tsl_mutate_stmt_children(m, s);
  if (s == r->w->realize && r->ivs && out) {
    tsl_block *nb = tsl_block_clone(m->arena, out->u.realize.block);
    nb->n_iter_vars = r->n_ivs;
    nb->iter_vars = r->ivs;
    out = tsl_stmt_block_realize(m->arena, r->n_ivs, r->ivals, out->u.realize.predicate, nb);
  }
  return out;
}

static const tsl_expr *repl_var(tsl_mutator *m, const tsl_var *v) {
  return tsl_map_get(&((repl *)m)->remap, v);
}

/* The loop nest over the new shape replacing w's dependent loops, or NULL
 * when their body stores anything but the buffer at w's indices. */
static const tsl_stmt *replace_nest(sch_call *c, const lay_pad *in, const lay_write *w) {
  tsl_arena *a = c->arena;
  const lay_map *inv = &in->inv;
  const tsl_expr *const *shape = in->new_buf->shape;
  repl r;
  memset(&r, 0, sizeof r);
  r.m = tsl_mutator_make(a);
  r.m.stmt = repl_stmt;
  r.m.var = repl_var;
  r.c = c;
  r.in = in;
  r.w = w;
  r.all_replaced = 1;
  tsl_map_init(&r.remap, a);
  const tsl_var **lv = TSL_NEW_ARRAY(a, const tsl_var *, inv->n_in + 1);
  const tsl_expr **lrefs = TSL_NEW_ARRAY(a, const tsl_expr *, inv->n_in + 1);
  for (uint32_t k = 0; k < inv->n_in; k++) {
    lv[k] = sch_new_var(c, inv->in[k]->name, inv->in[k]->dtype);
    lrefs[k] = lv[k]->ref;
  }
  for (uint32_t i = 0; i < w->n_loops; i++)
    tsl_map_put(&r.remap, w->loops[i]->u.loop.loop_var, (void *)over(&r, inv->out[i], lrefs));
  r.new_idx = lrefs;
  r.pred = over(&r, in->padding, lrefs);
  block_updates(&r, lrefs, shape);
  /* the new loops run over the padded shape: no block between them and the
   * store may bind an iterator to the old loops (it would leave its
   * domain), and the store's own block must index by its iterators, which
   * become iterators over the new shape */
  if (w->n_inner_realizes > 1 || (w->n_inner_realizes == 1 && !r.ivs))
    return NULL;
  /* the nest is this store's alone: each dependent loop is the whole body
   * of the one around it (a sibling, such as the init nest
   * decompose_reduction leaves beside the update, would be dropped) */
  for (uint32_t i = 0; i + 1 < w->n_loops; i++)
    if (w->loops[i]->u.loop.body != w->loops[i + 1])
      return NULL;
  for (uint32_t k = 0; k < r.n_ivs; k++)
    for (uint32_t i = 0; i < w->n_loops; i++)
      if (tsl_expr_uses_var(r.ivals[k], w->loops[i]->u.loop.loop_var))
        return NULL;
  const tsl_stmt *body = tsl_mutate_stmt(&r.m, w->loops[w->n_loops - 1]->u.loop.body);
  if (!r.all_replaced || !body)
    return NULL;
  for (uint32_t k = inv->n_in; k-- > 0;)
    body = tsl_stmt_for(a, lv[k], tsl_expr_int(a, shape[k]->dtype, 0), shape[k],
                        TSL_FOR_SERIAL, NULL, (tsl_attrs){0, NULL}, body);
  return body;
}

/* ---- blocks over the new shape (EpiloguePlan, ProloguePlan) ---- */

/* Loops over the new buffer's shape around a block whose iterators
 * `v_<axis>` index it point-wise. */
typedef struct shape_nest {
  uint32_t n;
  const tsl_var **lv;     /* the loops */
  const tsl_expr **lrefs; /* ... as expressions (the iterators' bindings) */
  const tsl_expr **vrefs; /* the iterators as expressions */
  tsl_iter_var *ivs;
  tsl_range *point;       /* the point vrefs of the new buffer */
  tsl_map to_loops, to_iters; /* the inverse's parameters -> lrefs / vrefs */
} shape_nest;

static void nest_init(sch_call *c, const lay_pad *in, shape_nest *sn) {
  tsl_arena *a = c->arena;
  const tsl_buffer *nb = in->new_buf;
  const lay_map *inv = &in->inv;
  uint32_t n = sn->n = inv->n_in;
  sn->lv = TSL_NEW_ARRAY(a, const tsl_var *, n + 1);
  sn->lrefs = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  sn->vrefs = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  sn->ivs = TSL_NEW_ARRAY(a, tsl_iter_var, n + 1);
  sn->point = TSL_NEW_ARRAY(a, tsl_range, n + 1);
  tsl_map_init(&sn->to_loops, a);
  tsl_map_init(&sn->to_iters, a);
  for (uint32_t k = 0; k < n; k++) {
    char name[160];
    sn->lv[k] = sch_new_var(c, inv->in[k]->name, inv->in[k]->dtype);
    sn->lrefs[k] = sn->lv[k]->ref;
    snprintf(name, sizeof name, "v_%s", inv->in[k]->name);
    const tsl_var *v = sch_new_var(c, name, inv->in[k]->dtype);
    sn->vrefs[k] = v->ref;
    sn->ivs[k] = (tsl_iter_var){v, {tsl_expr_int(a, nb->shape[k]->dtype, 0), nb->shape[k]},
                                TSL_ITER_SPATIAL};
    sn->point[k] = (tsl_range){sn->vrefs[k], tsl_expr_int(a, sn->vrefs[k]->dtype, 1)};
    tsl_map_put(&sn->to_loops, inv->in[k], (void *)sn->lrefs[k]);
    tsl_map_put(&sn->to_iters, inv->in[k], (void *)sn->vrefs[k]);
  }
}

/* A block `buffer_<name>_<suffix>` with the nest's iterators and `body`,
 * realized under `pred` inside the nest's loops. */
static const tsl_stmt *nest_block(sch_call *c, const lay_pad *in, const shape_nest *sn,
                                  const char *suffix, const tsl_stmt *body, int writes,
                                  const tsl_expr *pred) {
  tsl_arena *a = c->arena;
  const tsl_buffer *nb = in->new_buf;
  tsl_block *b = TSL_NEW(a, tsl_block);
  char name[300];
  snprintf(name, sizeof name, "buffer_%s_%s", nb->name, suffix);
  b->name = sch_fresh_block_name(c, in->func, name);
  b->n_iter_vars = sn->n;
  b->iter_vars = sn->ivs;
  tsl_buffer_region *r = TSL_NEW(a, tsl_buffer_region);
  *r = (tsl_buffer_region){nb, sn->n, sn->point};
  if (writes) {
    b->n_writes = 1;
    b->writes = r;
  } else {
    b->n_reads = 1;
    b->reads = r;
  }
  b->body = body;
  const tsl_stmt *s = tsl_stmt_block_realize(a, sn->n, sn->lrefs, pred, b);
  for (uint32_t k = sn->n; k-- > 0;)
    s = tsl_stmt_for(a, sn->lv[k], tsl_expr_int(a, nb->shape[k]->dtype, 0), nb->shape[k],
                     TSL_FOR_SERIAL, NULL, (tsl_attrs){0, NULL}, s);
  return s;
}

/* EpiloguePlan: the pad value stored where the padding predicate holds. */
static const tsl_stmt *padding_block(sch_call *c, const lay_pad *in) {
  shape_nest sn;
  nest_init(c, in, &sn);
  const tsl_expr *pad = lay_map_apply(c, &in->pad, sn.vrefs)[0];
  const tsl_stmt *store = tsl_stmt_store(c->arena, in->new_buf, pad, sn.n, sn.vrefs);
  return nest_block(c, in, &sn, "padding", store, 1,
                    tsl_expr_substitute(c->arena, in->padding, binding_fn, &sn.to_loops));
}

/* ProloguePlan (an input): T.assume(not padding or A[v...] == pad) over the
 * new shape. */
static const tsl_stmt *assumption_block(sch_call *c, const lay_pad *in) {
  tsl_arena *a = c->arena;
  shape_nest sn;
  nest_init(c, in, &sn);
  const tsl_expr *pad = lay_map_apply(c, &in->pad, sn.vrefs)[0];
  const tsl_expr *padding = tsl_expr_substitute(a, in->padding, binding_fn, &sn.to_iters);
  const tsl_expr *ld = tsl_expr_load(a, in->new_buf, sn.n, sn.vrefs);
  if (!tsl_dtype_eq(pad->dtype, ld->dtype))
    pad = tsl_expr_cast(a, ld->dtype, pad);
  const tsl_expr *cond = tsl_expr_binary(a, TSL_EXPR_OR, tsl_expr_unary(a, TSL_EXPR_NOT, padding),
                                         tsl_expr_binary(a, TSL_EXPR_EQ, ld, pad));
  const tsl_stmt *body =
      tsl_stmt_evaluate(a, tsl_expr_builtin(a, TSL_BUILTIN_ASSUME, TSL_BOOL, 1, &cond));
  return nest_block(c, in, &sn, "assumption", body, 0, tsl_expr_bool(a, 1));
}

int lay_pad_plan(sch_call *c, const tsl_stmt *init, const tsl_stmt *body,
                 const lay_pad *in, lay_plan *out) {
  memset(out, 0, sizeof *out);
  tsl_map_init(&out->replace, c->arena);
  planner p;
  memset(&p, 0, sizeof p);
  p.c = c;
  p.in = in;
  tsl_vec_init(&p.loops, sizeof(const tsl_stmt *), c->arena);
  tsl_vec_init(&p.realizes, sizeof(const tsl_stmt *), c->arena);
  tsl_vec_init(&p.loop_realizes, sizeof(uint32_t), c->arena);
  tsl_vec_init(&p.writes, sizeof(lay_write), c->arena);
  tsl_map_init(&p.depth, c->arena);
  tsl_map_init(&p.binding, c->arena);
  tsl_stmt_visitor v = {0};
  v.stmt = plan_stmt;
  v.stmt_post = plan_stmt_post;
  v.user_data = &p;
  if (init)
    tsl_stmt_visit(init, &v);
  tsl_stmt_visit(body, &v);
  const lay_write *ws = TSL_VEC_DATA(&p.writes, lay_write);
  if (!p.writes.len) {
    /* an input: TVM asserts the pad value with T.assume, first in the
     * scope (the caller fills the padding) */
    out->kind = LAY_PLAN_PROLOGUE;
    out->prologue = assumption_block(c, in);
    return TSL_OK;
  }
  for (uint32_t i = 0; i < p.writes.len; i++) {
    if (!ws[i].n_loops || !ws[i].row_major)
      continue;
    const tsl_stmt *nest = replace_nest(c, in, &ws[i]);
    if (nest)
      tsl_map_put(&out->replace, ws[i].loops[0], (void *)nest);
  }
  if (out->replace.n) {
    out->kind = LAY_PLAN_REPLACE;
    return TSL_OK;
  }
  const lay_write *last = &ws[p.writes.len - 1];
  out->after = last->n_loops ? last->loops[0] : last->realize;
  if (!out->after)
    return sch_fail(c, TSL_EUNSUPPORTED, "buffer '%s' is written outside any block or "
                    "loop; the padding cannot be filled after it", in->old_buf->name);
  out->kind = LAY_PLAN_EPILOGUE;
  out->epilogue = padding_block(c, in);
  return TSL_OK;
}
