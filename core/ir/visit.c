/*
 * Pre-order visitors and variable substitution.
 */
#include "tessel/visit.h"

#include <string.h>

int tsl_expr_visit(const tsl_expr *e, tsl_expr_fn fn, void *ud) {
  int r = fn(e, ud);
  if (r)
    return r;
  for (uint32_t i = 0; i < e->n_args; i++)
    if ((r = tsl_expr_visit(e->args[i], fn, ud)))
      return r;
  return 0;
}

#define VISIT_EXPR(e, owner)                                                   \
  do {                                                                         \
    if (v->expr && (e) && (r = v->expr((e), (owner), v->user_data)))           \
      return r;                                                                \
  } while (0)

static int visit_region(const tsl_buffer_region *reg, const tsl_stmt *owner,
                        const tsl_stmt_visitor *v) {
  int r;
  for (uint32_t d = 0; d < reg->ndim; d++) {
    VISIT_EXPR(reg->ranges[d].min, owner);
    VISIT_EXPR(reg->ranges[d].extent, owner);
  }
  return 0;
}

int tsl_stmt_visit(const tsl_stmt *s, const tsl_stmt_visitor *v) {
  int r;
  if (v->stmt && (r = v->stmt(s, v->user_data)))
    return r;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    VISIT_EXPR(s->u.loop.min, s);
    VISIT_EXPR(s->u.loop.extent, s);
    if ((r = tsl_stmt_visit(s->u.loop.body, v)))
      return r;
    break;
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < s->u.realize.n_iter_values; i++)
      VISIT_EXPR(s->u.realize.iter_values[i], s);
    VISIT_EXPR(s->u.realize.predicate, s);
    if (v->block && (r = v->block(b, s, v->user_data)))
      return r;
    for (uint32_t i = 0; i < b->n_iter_vars; i++) {
      VISIT_EXPR(b->iter_vars[i].dom.min, s);
      VISIT_EXPR(b->iter_vars[i].dom.extent, s);
    }
    for (uint32_t i = 0; i < b->n_reads; i++)
      if ((r = visit_region(&b->reads[i], s, v)))
        return r;
    for (uint32_t i = 0; i < b->n_writes; i++)
      if ((r = visit_region(&b->writes[i], s, v)))
        return r;
    for (uint32_t i = 0; i < b->n_match_buffers; i++)
      if ((r = visit_region(&b->match_buffers[i].source, s, v)))
        return r;
    if (b->init && (r = tsl_stmt_visit(b->init, v)))
      return r;
    if ((r = tsl_stmt_visit(b->body, v)))
      return r;
    break;
  }
  case TSL_STMT_STORE:
    for (uint32_t i = 0; i < s->u.store.n_indices; i++)
      VISIT_EXPR(s->u.store.indices[i], s);
    VISIT_EXPR(s->u.store.value, s);
    break;
  case TSL_STMT_IF:
    VISIT_EXPR(s->u.branch.cond, s);
    if ((r = tsl_stmt_visit(s->u.branch.then_case, v)))
      return r;
    if (s->u.branch.else_case && (r = tsl_stmt_visit(s->u.branch.else_case, v)))
      return r;
    break;
  case TSL_STMT_LET:
    VISIT_EXPR(s->u.let.value, s);
    if ((r = tsl_stmt_visit(s->u.let.body, v)))
      return r;
    break;
  case TSL_STMT_EVALUATE:
    VISIT_EXPR(s->u.evaluate.value, s);
    break;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if ((r = tsl_stmt_visit(s->u.seq.stmts[i], v)))
        return r;
    break;
  case TSL_STMT_ALLOCATE:
    if ((r = tsl_stmt_visit(s->u.alloc.body, v)))
      return r;
    break;
  case TSL_STMT_KIND_COUNT:
    break;
  }
  if (v->stmt_post && (r = v->stmt_post(s, v->user_data)))
    return r;
  return 0;
}

/* ---- substitution ---- */

const tsl_expr *tsl_expr_substitute(tsl_arena *a, const tsl_expr *e,
                                    tsl_subst_fn fn, void *ud) {
  if (e->kind == TSL_EXPR_VAR) {
    const tsl_expr *r = fn(e->u.var, ud);
    return r ? r : e;
  }
  if (e->n_args == 0)
    return e;
  const tsl_expr *stack_args[8];
  const tsl_expr **args =
      e->n_args <= 8 ? stack_args : TSL_NEW_ARRAY(a, const tsl_expr *, e->n_args);
  int changed = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = tsl_expr_substitute(a, e->args[i], fn, ud);
    changed |= args[i] != e->args[i];
  }
  return changed ? tsl_expr_with_args(a, e, e->n_args, args) : e;
}

static const tsl_expr **subst_array(tsl_arena *a, uint32_t n,
                                    const tsl_expr *const *xs, tsl_subst_fn fn,
                                    void *ud, int *changed) {
  const tsl_expr **out = TSL_NEW_ARRAY(a, const tsl_expr *, n);
  for (uint32_t i = 0; i < n; i++) {
    out[i] = tsl_expr_substitute(a, xs[i], fn, ud);
    *changed |= out[i] != xs[i];
  }
  return out;
}

static tsl_buffer_region *subst_regions(tsl_arena *a, uint32_t n,
                                        const tsl_buffer_region *regs,
                                        tsl_subst_fn fn, void *ud,
                                        int *changed) {
  tsl_buffer_region *out = TSL_NEW_ARRAY(a, tsl_buffer_region, n);
  for (uint32_t i = 0; i < n; i++) {
    out[i] = regs[i];
    tsl_range *rs = TSL_NEW_ARRAY(a, tsl_range, regs[i].ndim);
    for (uint32_t d = 0; d < regs[i].ndim; d++) {
      rs[d].min = tsl_expr_substitute(a, regs[i].ranges[d].min, fn, ud);
      rs[d].extent = tsl_expr_substitute(a, regs[i].ranges[d].extent, fn, ud);
      *changed |= rs[d].min != regs[i].ranges[d].min ||
                  rs[d].extent != regs[i].ranges[d].extent;
    }
    out[i].ranges = rs;
  }
  return out;
}

const tsl_stmt *tsl_stmt_substitute(tsl_arena *a, const tsl_stmt *s,
                                    tsl_subst_fn fn, void *ud) {
  int changed = 0;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_expr *mn = tsl_expr_substitute(a, s->u.loop.min, fn, ud);
    const tsl_expr *ext = tsl_expr_substitute(a, s->u.loop.extent, fn, ud);
    const tsl_stmt *body = tsl_stmt_substitute(a, s->u.loop.body, fn, ud);
    if (mn == s->u.loop.min && ext == s->u.loop.extent && body == s->u.loop.body)
      return s;
    return tsl_stmt_for(a, s->u.loop.loop_var, mn, ext,
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, body);
  }
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    const tsl_expr **vals = subst_array(a, s->u.realize.n_iter_values,
                                        s->u.realize.iter_values, fn, ud, &changed);
    const tsl_expr *pred = tsl_expr_substitute(a, s->u.realize.predicate, fn, ud);
    changed |= pred != s->u.realize.predicate;
    tsl_block *nb = tsl_block_clone(a, b);
    tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, b->n_iter_vars);
    for (uint32_t i = 0; i < b->n_iter_vars; i++) {
      ivs[i] = b->iter_vars[i];
      ivs[i].dom.min = tsl_expr_substitute(a, b->iter_vars[i].dom.min, fn, ud);
      ivs[i].dom.extent = tsl_expr_substitute(a, b->iter_vars[i].dom.extent, fn, ud);
      changed |= ivs[i].dom.min != b->iter_vars[i].dom.min ||
                 ivs[i].dom.extent != b->iter_vars[i].dom.extent;
    }
    nb->iter_vars = ivs;
    nb->reads = subst_regions(a, b->n_reads, b->reads, fn, ud, &changed);
    nb->writes = subst_regions(a, b->n_writes, b->writes, fn, ud, &changed);
    if (b->n_match_buffers) {
      tsl_match_buffer *mbs = TSL_NEW_ARRAY(a, tsl_match_buffer, b->n_match_buffers);
      for (uint32_t i = 0; i < b->n_match_buffers; i++) {
        mbs[i] = b->match_buffers[i];
        mbs[i].source = *subst_regions(a, 1, &b->match_buffers[i].source, fn,
                                       ud, &changed);
      }
      nb->match_buffers = mbs;
    }
    nb->init = b->init ? tsl_stmt_substitute(a, b->init, fn, ud) : NULL;
    nb->body = tsl_stmt_substitute(a, b->body, fn, ud);
    changed |= nb->init != b->init || nb->body != b->body;
    if (!changed)
      return s;
    return tsl_stmt_block_realize(a, s->u.realize.n_iter_values, vals, pred, nb);
  }
  case TSL_STMT_STORE: {
    const tsl_expr **idx = subst_array(a, s->u.store.n_indices,
                                       s->u.store.indices, fn, ud, &changed);
    const tsl_expr *val = tsl_expr_substitute(a, s->u.store.value, fn, ud);
    if (!changed && val == s->u.store.value)
      return s;
    return tsl_stmt_store(a, s->u.store.buffer, val, s->u.store.n_indices, idx);
  }
  case TSL_STMT_IF: {
    const tsl_expr *c = tsl_expr_substitute(a, s->u.branch.cond, fn, ud);
    const tsl_stmt *t = tsl_stmt_substitute(a, s->u.branch.then_case, fn, ud);
    const tsl_stmt *e = s->u.branch.else_case
                            ? tsl_stmt_substitute(a, s->u.branch.else_case, fn, ud)
                            : NULL;
    if (c == s->u.branch.cond && t == s->u.branch.then_case &&
        e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, c, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_expr *val = tsl_expr_substitute(a, s->u.let.value, fn, ud);
    const tsl_stmt *body = tsl_stmt_substitute(a, s->u.let.body, fn, ud);
    if (val == s->u.let.value && body == s->u.let.body)
      return s;
    return tsl_stmt_let(a, s->u.let.var, val, body);
  }
  case TSL_STMT_EVALUATE: {
    const tsl_expr *val = tsl_expr_substitute(a, s->u.evaluate.value, fn, ud);
    return val == s->u.evaluate.value ? s : tsl_stmt_evaluate(a, val);
  }
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n);
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      xs[i] = tsl_stmt_substitute(a, s->u.seq.stmts[i], fn, ud);
      changed |= xs[i] != s->u.seq.stmts[i];
    }
    return changed ? tsl_stmt_seq(a, s->u.seq.n, xs) : s;
  }
  case TSL_STMT_ALLOCATE: {
    const tsl_stmt *body = tsl_stmt_substitute(a, s->u.alloc.body, fn, ud);
    return body == s->u.alloc.body ? s
                                   : tsl_stmt_allocate(a, s->u.alloc.buffer, body);
  }
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return s;
}

static int uses_var_fn(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_VAR && e->u.var == (const tsl_var *)ud;
}

int tsl_expr_uses_var(const tsl_expr *e, const tsl_var *v) {
  return tsl_expr_visit(e, uses_var_fn, (void *)v);
}

/* ---- opaque uses of a buffer's storage ---- */

static int data_fn(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_BUFFER_DATA && e->u.buffer == ud;
}

static int data_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, data_fn, ud);
}

int tsl_stmt_uses_buffer_data(const tsl_stmt *s, const tsl_buffer *buf) {
  tsl_stmt_visitor v;
  memset(&v, 0, sizeof v);
  v.expr = data_expr;
  v.user_data = (void *)(uintptr_t)buf;
  return s && tsl_stmt_visit(s, &v) != 0;
}
