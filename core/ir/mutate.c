/*
 * The mutator (tessel/visit.h): default rebuilding of every node kind,
 * sharing unchanged subtrees, with statement removal propagating upwards.
 */
#include "tessel/visit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The recursion calls these static versions: a call to a TSL_API name goes
 * through the PLT, which costs a jump per node visited. The public names
 * are wrappers at the end of the file. */
static const tsl_expr *mutate_expr(tsl_mutator *m, const tsl_expr *e);
static const tsl_expr *expr_children(tsl_mutator *m, const tsl_expr *e);
static const tsl_stmt *mutate_stmt(tsl_mutator *m, const tsl_stmt *s);
static const tsl_stmt *stmt_children(tsl_mutator *m, const tsl_stmt *s);
static const tsl_block *block_children(tsl_mutator *m, const tsl_block *b);
static tsl_buffer_region mutate_region(tsl_mutator *m, const tsl_buffer_region *r);

tsl_mutator tsl_mutator_make(tsl_arena *arena) {
  tsl_mutator m;
  memset(&m, 0, sizeof m);
  m.arena = arena;
  return m;
}

int tsl_mutator_fail(tsl_mutator *m, int status, const char *fmt, ...) {
  if (m->status)
    return status;
  m->status = status;
  if (m->diag) {
    char buf[sizeof m->diag->text];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tsl_diag_set(m->diag, status, "%s", buf);
  }
  return status;
}

/* ---- expressions ---- */

const tsl_expr *tsl_mutate_expr_keep(tsl_mutator *m, const tsl_expr *e) {
  (void)m;
  return e;
}

static const tsl_expr *mutate_expr(tsl_mutator *m, const tsl_expr *e) {
  return m->expr ? m->expr(m, e) : expr_children(m, e);
}

const tsl_buffer *tsl_mutate_buffer(tsl_mutator *m, const tsl_buffer *b) {
  const tsl_buffer *r = m->buffer ? m->buffer(m, b) : NULL;
  if (!r && m->buffers)
    r = tsl_map_get(m->buffers, b);
  return r ? r : b;
}

/* tsl_mutate_buffer without the call when nothing can replace buffers. */
static inline const tsl_buffer *mutate_buffer(tsl_mutator *m, const tsl_buffer *b) {
  return m->buffer || m->buffers ? tsl_mutate_buffer(m, b) : b;
}

static const tsl_expr *mutate_var(tsl_mutator *m, const tsl_expr *e) {
  const tsl_expr *r = m->var ? m->var(m, e->u.var) : NULL;
  if (!r && m->vars && m->vars->n)
    r = tsl_map_get(m->vars, e->u.var);
  return r ? r : e;
}

static const tsl_expr *expr_children(tsl_mutator *m, const tsl_expr *e) {
  if (e->kind == TSL_EXPR_VAR)
    return mutate_var(m, e);
  const tsl_buffer *buf = e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_BUFFER_DATA
                              ? mutate_buffer(m, e->u.buffer)
                              : NULL;
  if (e->n_args == 0 && (!buf || buf == e->u.buffer))
    return e;
  const tsl_expr *stack[8];
  const tsl_expr **args = e->n_args <= 8 ? stack
                                         : TSL_NEW_ARRAY(m->arena, const tsl_expr *, e->n_args);
  int changed = buf && buf != e->u.buffer;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = mutate_expr(m, e->args[i]);
    changed |= args[i] != e->args[i];
  }
  if (!changed)
    return e;
  if (buf && buf != e->u.buffer) {
    tsl_expr proto = *e; /* keeps the dtype: vector loads have lanes */
    proto.u.buffer = buf;
    return tsl_expr_with_args(m->arena, &proto, e->n_args, args);
  }
  return tsl_expr_with_args(m->arena, e, e->n_args, args);
}

/* Mutate n expressions; returns `xs` itself when none changed, else the
 * new list (in `stack`, room for 8, when it fits: the node builders copy
 * it). */
static const tsl_expr *const *mutate_exprs(tsl_mutator *m, uint32_t n,
                                           const tsl_expr *const *xs,
                                           const tsl_expr **stack) {
  const tsl_expr **out = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_expr *x = mutate_expr(m, xs[i]);
    if (x != xs[i] && !out) {
      out = n <= 8 ? stack : TSL_NEW_ARRAY(m->arena, const tsl_expr *, n);
      memcpy(out, xs, sizeof *out * i);
    }
    if (out)
      out[i] = x;
  }
  return out ? out : xs;
}

static tsl_buffer_region mutate_region(tsl_mutator *m, const tsl_buffer_region *r) {
  tsl_buffer_region out = *r;
  out.buffer = mutate_buffer(m, r->buffer);
  tsl_range *rs = NULL;
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_expr *mn = mutate_expr(m, r->ranges[d].min);
    const tsl_expr *ext = mutate_expr(m, r->ranges[d].extent);
    if ((mn != r->ranges[d].min || ext != r->ranges[d].extent) && !rs) {
      rs = TSL_NEW_ARRAY(m->arena, tsl_range, r->ndim);
      memcpy(rs, r->ranges, sizeof *rs * d);
    }
    if (rs)
      rs[d] = (tsl_range){mn, ext};
  }
  if (rs)
    out.ranges = rs;
  return out;
}

/* Mutate a region list; returns `regs` itself when none changed. */
static const tsl_buffer_region *mutate_regions(tsl_mutator *m, uint32_t n,
                                               const tsl_buffer_region *regs) {
  tsl_buffer_region *out = NULL;
  for (uint32_t i = 0; i < n; i++) {
    tsl_buffer_region r = mutate_region(m, &regs[i]);
    if ((r.buffer != regs[i].buffer || r.ranges != regs[i].ranges) && !out) {
      out = TSL_NEW_ARRAY(m->arena, tsl_buffer_region, n);
      memcpy(out, regs, sizeof *out * i);
    }
    if (out)
      out[i] = r;
  }
  return out ? out : regs;
}

/* ---- statements ---- */

static const tsl_stmt *mutate_stmt(tsl_mutator *m, const tsl_stmt *s) {
  return m->stmt ? m->stmt(m, s) : stmt_children(m, s);
}

static const tsl_var *mutate_def(tsl_mutator *m, const tsl_var *v) {
  if (!m->def)
    return v;
  const tsl_var *nv = m->def(m, v);
  if (!nv)
    nv = v;
  if (nv != v && m->vars)
    tsl_map_put(m->vars, v, (void *)nv->ref);
  return nv;
}

static const tsl_block *block_children(tsl_mutator *m, const tsl_block *b) {
  int changed = 0;
  tsl_iter_var *ivs = NULL;
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    tsl_iter_var iv = b->iter_vars[i];
    iv.var = mutate_def(m, iv.var);
    iv.dom.min = mutate_expr(m, iv.dom.min);
    iv.dom.extent = mutate_expr(m, iv.dom.extent);
    if ((iv.var != b->iter_vars[i].var || iv.dom.min != b->iter_vars[i].dom.min ||
         iv.dom.extent != b->iter_vars[i].dom.extent) && !ivs) {
      ivs = TSL_NEW_ARRAY(m->arena, tsl_iter_var, b->n_iter_vars);
      memcpy(ivs, b->iter_vars, sizeof *ivs * i);
    }
    if (ivs)
      ivs[i] = iv;
  }
  const tsl_buffer_region *reads = mutate_regions(m, b->n_reads, b->reads);
  const tsl_buffer_region *writes = mutate_regions(m, b->n_writes, b->writes);
  const tsl_buffer **allocs = NULL;
  for (uint32_t i = 0; i < b->n_alloc_buffers; i++) {
    const tsl_buffer *nb = mutate_buffer(m, b->alloc_buffers[i]);
    if (nb != b->alloc_buffers[i] && !allocs) {
      allocs = TSL_NEW_ARRAY(m->arena, const tsl_buffer *, b->n_alloc_buffers);
      memcpy(allocs, b->alloc_buffers, sizeof *allocs * i);
    }
    if (allocs)
      allocs[i] = nb;
  }
  tsl_match_buffer *mbs = NULL;
  for (uint32_t i = 0; i < b->n_match_buffers; i++) {
    tsl_match_buffer mb = b->match_buffers[i];
    mb.buffer = mutate_buffer(m, mb.buffer);
    mb.source = mutate_region(m, &b->match_buffers[i].source);
    if ((mb.buffer != b->match_buffers[i].buffer ||
         mb.source.buffer != b->match_buffers[i].source.buffer ||
         mb.source.ranges != b->match_buffers[i].source.ranges) && !mbs) {
      mbs = TSL_NEW_ARRAY(m->arena, tsl_match_buffer, b->n_match_buffers);
      memcpy(mbs, b->match_buffers, sizeof *mbs * i);
    }
    if (mbs)
      mbs[i] = mb;
  }
  const tsl_stmt *init = b->init ? mutate_stmt(m, b->init) : NULL;
  const tsl_stmt *body = mutate_stmt(m, b->body);
  if (!body)
    return NULL;
  changed = ivs || reads != b->reads || writes != b->writes || allocs || mbs ||
            init != b->init || body != b->body;
  if (!changed)
    return b;
  tsl_block *nb = tsl_block_clone(m->arena, b);
  if (ivs)
    nb->iter_vars = ivs;
  nb->reads = reads;
  nb->writes = writes;
  if (allocs)
    nb->alloc_buffers = allocs;
  if (mbs)
    nb->match_buffers = mbs;
  nb->init = init;
  nb->body = body;
  return nb;
}

static const tsl_stmt *mutate_seq(tsl_mutator *m, const tsl_stmt *s) {
  uint32_t n = s->u.seq.n;
  const tsl_stmt *stack[16], **out = NULL; /* tsl_stmt_seq copies */
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_stmt *x = mutate_stmt(m, s->u.seq.stmts[i]);
    if (x != s->u.seq.stmts[i] && !out) {
      out = n <= 16 ? stack : TSL_NEW_ARRAY(m->arena, const tsl_stmt *, n);
      memcpy(out, s->u.seq.stmts, sizeof *out * i);
      k = i;
    }
    if (out) {
      if (x)
        out[k++] = x;
    } else {
      k++;
    }
  }
  if (!out)
    return s;
  return k ? tsl_stmt_seq(m->arena, k, out) : NULL;
}

static const tsl_stmt *stmt_children(tsl_mutator *m, const tsl_stmt *s) {
  tsl_arena *a = m->arena;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_var *v = mutate_def(m, s->u.loop.loop_var);
    const tsl_expr *mn = mutate_expr(m, s->u.loop.min);
    const tsl_expr *ext = mutate_expr(m, s->u.loop.extent);
    const tsl_stmt *body = mutate_stmt(m, s->u.loop.body);
    if (!body)
      return NULL;
    if (v == s->u.loop.loop_var && mn == s->u.loop.min &&
        ext == s->u.loop.extent && body == s->u.loop.body)
      return s;
    return tsl_stmt_for(a, v, mn, ext, (tsl_for_kind)s->u.loop.for_kind,
                        s->u.loop.thread_tag, s->u.loop.annotations, body);
  }
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_expr *stack[8];
    const tsl_expr *const *vals =
        mutate_exprs(m, s->u.realize.n_iter_values, s->u.realize.iter_values, stack);
    const tsl_expr *pred = mutate_expr(m, s->u.realize.predicate);
    const tsl_block *b = block_children(m, s->u.realize.block);
    if (!b)
      return NULL;
    if (vals == s->u.realize.iter_values && pred == s->u.realize.predicate &&
        b == s->u.realize.block)
      return s;
    return tsl_stmt_block_realize(a, s->u.realize.n_iter_values, vals, pred, b);
  }
  case TSL_STMT_STORE: {
    const tsl_buffer *buf = mutate_buffer(m, s->u.store.buffer);
    const tsl_expr *stack[8];
    const tsl_expr *const *idx =
        mutate_exprs(m, s->u.store.n_indices, s->u.store.indices, stack);
    const tsl_expr *val = mutate_expr(m, s->u.store.value);
    if (buf == s->u.store.buffer && idx == s->u.store.indices &&
        val == s->u.store.value)
      return s;
    return tsl_stmt_store(a, buf, val, s->u.store.n_indices, idx);
  }
  case TSL_STMT_IF: {
    const tsl_expr *c = mutate_expr(m, s->u.branch.cond);
    const tsl_stmt *t = mutate_stmt(m, s->u.branch.then_case);
    const tsl_stmt *e = s->u.branch.else_case
                            ? mutate_stmt(m, s->u.branch.else_case)
                            : NULL;
    if (!t && !e)
      return NULL;
    if (!t)
      return tsl_stmt_if(a, tsl_expr_unary(a, TSL_EXPR_NOT, c), e, NULL);
    if (c == s->u.branch.cond && t == s->u.branch.then_case &&
        e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, c, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_expr *val = mutate_expr(m, s->u.let.value);
    const tsl_var *v = mutate_def(m, s->u.let.var);
    const tsl_stmt *body = mutate_stmt(m, s->u.let.body);
    if (!body)
      return NULL;
    if (v == s->u.let.var && val == s->u.let.value && body == s->u.let.body)
      return s;
    return tsl_stmt_let(a, v, val, body);
  }
  case TSL_STMT_EVALUATE: {
    const tsl_expr *val = mutate_expr(m, s->u.evaluate.value);
    return val == s->u.evaluate.value ? s : tsl_stmt_evaluate(a, val);
  }
  case TSL_STMT_SEQ:
    return mutate_seq(m, s);
  case TSL_STMT_ALLOCATE: {
    const tsl_buffer *buf = mutate_buffer(m, s->u.alloc.buffer);
    const tsl_stmt *body = mutate_stmt(m, s->u.alloc.body);
    if (!body)
      return NULL;
    if (buf == s->u.alloc.buffer && body == s->u.alloc.body)
      return s;
    return tsl_stmt_allocate(a, buf, body);
  }
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return s;
}

const tsl_func *tsl_mutate_func(tsl_mutator *m, const tsl_func *f) {
  const tsl_stmt *body = mutate_stmt(m, f->body);
  if (!body) {
    /* keep the root block, with a no-op body */
    const tsl_stmt *root = f->body;
    tsl_block *nb = tsl_block_clone(m->arena, root->u.realize.block);
    nb->body = tsl_stmt_evaluate(m->arena, tsl_expr_i32(m->arena, 0));
    nb->init = NULL;
    body = tsl_stmt_block_realize(m->arena, root->u.realize.n_iter_values,
                                  root->u.realize.iter_values,
                                  root->u.realize.predicate, nb);
  }
  tsl_param *params = NULL;
  for (uint32_t i = 0; i < f->n_params; i++) {
    if (!f->params[i].buffer)
      continue;
    const tsl_buffer *nb = tsl_mutate_buffer(m, f->params[i].buffer);
    if (nb != f->params[i].buffer && !params) {
      params = TSL_NEW_ARRAY(m->arena, tsl_param, f->n_params);
      memcpy(params, f->params, sizeof *params * f->n_params);
    }
    if (params)
      params[i].buffer = nb;
  }
  if (body == f->body && !params)
    return f;
  tsl_func *nf = tsl_arena_dup(m->arena, f, sizeof *f);
  nf->body = body;
  if (params)
    nf->params = params;
  return nf;
}

/* ---- the public names ---- */

const tsl_expr *tsl_mutate_expr(tsl_mutator *m, const tsl_expr *e) {
  return mutate_expr(m, e);
}

const tsl_expr *tsl_mutate_expr_children(tsl_mutator *m, const tsl_expr *e) {
  return expr_children(m, e);
}

const tsl_stmt *tsl_mutate_stmt(tsl_mutator *m, const tsl_stmt *s) {
  return mutate_stmt(m, s);
}

const tsl_stmt *tsl_mutate_stmt_children(tsl_mutator *m, const tsl_stmt *s) {
  return stmt_children(m, s);
}

const tsl_block *tsl_mutate_block_children(tsl_mutator *m, const tsl_block *b) {
  return block_children(m, b);
}

tsl_buffer_region tsl_mutate_region(tsl_mutator *m, const tsl_buffer_region *r) {
  return mutate_region(m, r);
}
