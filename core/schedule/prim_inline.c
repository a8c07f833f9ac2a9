/*
 * compute_inline and reverse_compute_inline (TVM semantics).
 * compute_inline: a block whose body is `B[v0, v1, ...] = f(v0, v1, ...)`
 * (distinct plain iter vars as indices) disappears, every load of B in its
 * scope becomes f at the load's indices, and B's allocation goes.
 * reverse_compute_inline: a consumer `D[...] = g(B[v0, v1, ...])` reading
 * its single producer's buffer at distinct plain iter vars folds into the
 * producer, which then stores g(f) into D directly. Blocks whose accesses
 * change get their read/write regions inferred again, as TVM does.
 */
#include "compute_internal.h"

/* ---- rewriting loads of one buffer --------------------------------------- */

typedef struct rw_ctx {
  sch_call *c;
  const tsl_buffer *buf;
  /* compute_inline: the producer's index vars and stored value */
  uint32_t n_idx;
  const tsl_var *const *idx_vars;
  const tsl_expr *value;
  const tsl_expr *const *load_idx; /* during one substitution */
  int failed;
} rw_ctx;

static const tsl_expr *idx_subst(const tsl_var *v, void *ud) {
  const rw_ctx *r = ud;
  for (uint32_t k = 0; k < r->n_idx; k++)
    if (r->idx_vars[k] == v)
      return r->load_idx[k];
  return NULL;
}

static const tsl_expr *rw_expr(rw_ctx *r, const tsl_expr *e) {
  if (!e || !e->n_args)
    return e;
  const tsl_expr **args = TSL_NEW_ARRAY(r->c->arena, const tsl_expr *, e->n_args);
  int changed = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = rw_expr(r, e->args[i]);
    changed |= args[i] != e->args[i];
  }
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == r->buf) {
    r->load_idx = args;
    return tsl_expr_substitute(r->c->arena, r->value, idx_subst, r);
  }
  return changed ? tsl_expr_with_args(r->c->arena, e, e->n_args, args) : e;
}

static const tsl_expr **rw_exprs(rw_ctx *r, uint32_t n,
                                 const tsl_expr *const *es, int *changed) {
  const tsl_expr **out = TSL_NEW_ARRAY(r->c->arena, const tsl_expr *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    out[i] = rw_expr(r, es[i]);
    *changed |= out[i] != es[i];
  }
  return out;
}

static const tsl_stmt *rw_stmt(rw_ctx *r, const tsl_stmt *s);

static const tsl_block *rw_block(rw_ctx *r, const tsl_block *b) {
  const tsl_stmt *body = rw_stmt(r, b->body);
  const tsl_stmt *init = b->init ? rw_stmt(r, b->init) : NULL;
  if (body == b->body && init == b->init)
    return b;
  tsl_block *nb = tsl_block_clone(r->c->arena, b);
  nb->body = body;
  nb->init = init;
  if (sch_regions_have(b->reads, b->n_reads, r->buf) ||
      sch_regions_have(b->writes, b->n_writes, r->buf)) {
    tsl_buffer_region *rd, *wr;
    uint32_t nr, nw;
    tsl_diag d;
    if (tsl_block_infer_regions(r->c->arena, nb, &rd, &nr, &wr, &nw, &d)) {
      r->failed = 1;
      return b;
    }
    nb->reads = rd;
    nb->n_reads = nr;
    nb->writes = wr;
    nb->n_writes = nw;
  }
  return nb;
}

static const tsl_stmt *rw_stmt(rw_ctx *r, const tsl_stmt *s) {
  tsl_arena *a = r->c->arena;
  int ch = 0;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_expr *mn = rw_expr(r, s->u.loop.min);
    const tsl_expr *ex = rw_expr(r, s->u.loop.extent);
    const tsl_stmt *body = rw_stmt(r, s->u.loop.body);
    if (mn == s->u.loop.min && ex == s->u.loop.extent && body == s->u.loop.body)
      return s;
    return tsl_stmt_for(a, s->u.loop.loop_var, mn, ex,
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, body);
  }
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_expr **vals = rw_exprs(r, s->u.realize.n_iter_values,
                                     s->u.realize.iter_values, &ch);
    const tsl_expr *pred = rw_expr(r, s->u.realize.predicate);
    const tsl_block *b = rw_block(r, s->u.realize.block);
    if (!ch && pred == s->u.realize.predicate && b == s->u.realize.block)
      return s;
    return tsl_stmt_block_realize(a, s->u.realize.n_iter_values, vals, pred, b);
  }
  case TSL_STMT_STORE: {
    const tsl_expr *v = rw_expr(r, s->u.store.value);
    const tsl_expr **idx =
        rw_exprs(r, s->u.store.n_indices, s->u.store.indices, &ch);
    if (!ch && v == s->u.store.value)
      return s;
    return tsl_stmt_store(a, s->u.store.buffer, v, s->u.store.n_indices, idx);
  }
  case TSL_STMT_IF: {
    const tsl_expr *cond = rw_expr(r, s->u.branch.cond);
    const tsl_stmt *t = rw_stmt(r, s->u.branch.then_case);
    const tsl_stmt *e =
        s->u.branch.else_case ? rw_stmt(r, s->u.branch.else_case) : NULL;
    if (cond == s->u.branch.cond && t == s->u.branch.then_case &&
        e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, cond, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_expr *v = rw_expr(r, s->u.let.value);
    const tsl_stmt *body = rw_stmt(r, s->u.let.body);
    if (v == s->u.let.value && body == s->u.let.body)
      return s;
    return tsl_stmt_let(a, s->u.let.var, v, body);
  }
  case TSL_STMT_EVALUATE: {
    const tsl_expr *v = rw_expr(r, s->u.evaluate.value);
    return v == s->u.evaluate.value ? s : tsl_stmt_evaluate(a, v);
  }
  case TSL_STMT_SEQ: {
    const tsl_stmt **items = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n);
    for (uint32_t i = 0; i < s->u.seq.n; i++) {
      items[i] = rw_stmt(r, s->u.seq.stmts[i]);
      ch |= items[i] != s->u.seq.stmts[i];
    }
    return ch ? tsl_stmt_seq(a, s->u.seq.n, items) : s;
  }
  default: return s;
  }
}

/* ---- shared steps -------------------------------------------------------- */

static int loads_buffer(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_LOAD && e->u.buffer == ud;
}

/* Distinct plain variables as indices; 0 when not. */
static int distinct_vars(uint32_t n, const tsl_expr *const *idx) {
  for (uint32_t i = 0; i < n; i++) {
    if (idx[i]->kind != TSL_EXPR_VAR)
      return 0;
    for (uint32_t j = 0; j < i; j++)
      if (idx[j]->u.var == idx[i]->u.var)
        return 0;
  }
  return 1;
}

typedef struct var_check {
  uint32_t n;
  const tsl_expr *const *allowed;
  const tsl_var *bad;
} var_check;

static int var_outside(const tsl_expr *e, void *ud) {
  var_check *vc = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < vc->n; i++)
    if (vc->allowed[i]->u.var == e->u.var)
      return 0;
  vc->bad = e->u.var;
  return 1;
}

/* Find the scope block again (by name) after a commit, and install it
 * with `buf` dropped from its allocations. */
static int drop_alloc(sch_call *c, const tsl_func *func, tsl_str scope_name,
                      const tsl_buffer *buf, rw_ctx *rw) {
  const tsl_func *f = sch_func(c->sch, func->name);
  sch_path sp;
  if (!f || sch_find_block(f, scope_name, &sp) != 1)
    return sch_fail(c, TSL_EINVALID, "the scope block '%s' vanished",
                    scope_name);
  const tsl_stmt *realize = sch_path_target(&sp);
  const tsl_block *sb = realize->u.realize.block;
  tsl_block *nb = tsl_block_clone(c->arena, sb);
  if (rw) {
    nb->body = rw_stmt(rw, sb->body);
    nb->init = sb->init ? rw_stmt(rw, sb->init) : NULL;
    if (rw->failed)
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "cannot infer the regions of a block that read '%s'",
                      buf->name);
  }
  const tsl_buffer **al =
      TSL_NEW_ARRAY(c->arena, const tsl_buffer *, sb->n_alloc_buffers + 1);
  uint32_t n = 0;
  for (uint32_t i = 0; i < sb->n_alloc_buffers; i++)
    if (sb->alloc_buffers[i] != buf)
      al[n++] = sb->alloc_buffers[i];
  nb->alloc_buffers = al;
  nb->n_alloc_buffers = n;
  sch_commit(c, f,
             sch_path_rebuild(c->arena, &sp, sp.depth - 1,
                              sch_with_block(c->arena, realize, nb)));
  return TSL_OK;
}

/* TVM's OpaqueAccessError: a buffer whose storage is used directly. */
static int opaque_access(sch_call *c, const tsl_buffer *buf) {
  return sch_fail(c, TSL_EINVALID,
                  "'%s' is accessed opaquely in its scope (through %s.data, "
                  "e.g. in T.tvm_access_ptr); only a buffer accessed by loads "
                  "and stores alone can be inlined",
                  buf->name, buf->name);
}

/* ---- compute_inline ------------------------------------------------------ */

int cmp_compute_inline(sch_call *c, const sch_path *bp) {
  const tsl_block *b = sch_path_block(bp);
  cmp_scope s;
  cmp_scope_of(c, bp, &s);
  if (b->init)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' has a T.init() (a reduction); only a block "
                    "computing each element once can be inlined",
                    b->name);
  if (b->n_writes != 1)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' writes %u buffers; only a block writing "
                    "exactly one buffer can be inlined",
                    b->name, b->n_writes);
  const tsl_buffer *buf = b->writes[0].buffer;
  int rc = cmp_check_stage_pipeline(c, &s);
  if (rc)
    return rc;
  if (cmp_is_output(&s, b))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' writes '%s', which its scope does not "
                    "allocate (an output of the function); an output block "
                    "cannot be inlined",
                    b->name, buf->name);
  rc = cmp_check_complete(c, &s, s.self);
  if (rc)
    return rc;
  const tsl_stmt *st = b->body;
  if (st->kind != TSL_STMT_STORE || st->u.store.buffer != buf ||
      !distinct_vars(st->u.store.n_indices, st->u.store.indices) ||
      tsl_expr_visit(st->u.store.value, loads_buffer, (void *)buf))
    return sch_fail(c, TSL_EINVALID,
                    "the body of block '%s' must be a single store "
                    "'%s[v0, v1, ...] = f(v0, v1, ...)' with distinct iter "
                    "vars as indices",
                    b->name, buf->name);
  var_check vc = {st->u.store.n_indices, st->u.store.indices, NULL};
  if (tsl_expr_visit(st->u.store.value, var_outside, &vc))
    return sch_fail(c, TSL_EINVALID,
                    "the value block '%s' stores uses '%s', which is not one "
                    "of the store's indices",
                    b->name, vc.bad->name);
  const tsl_var **iv = TSL_NEW_ARRAY(c->arena, const tsl_var *,
                                     st->u.store.n_indices + 1);
  for (uint32_t i = 0; i < st->u.store.n_indices; i++)
    iv[i] = st->u.store.indices[i]->u.var;
  if (tsl_stmt_uses_buffer_data(s.block->body, buf))
    return opaque_access(c, buf);
  const tsl_stmt *body;
  rc = cmp_remove_leaf(c, bp, s.level, &body);
  if (rc)
    return rc;
  sch_commit(c, bp->func, body);
  rw_ctx rw = {c, buf, st->u.store.n_indices, iv, st->u.store.value, NULL, 0};
  return drop_alloc(c, bp->func, s.block->name, buf, &rw);
}

int sch_apply_compute_inline(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  return rc ? rc : cmp_compute_inline(c, &p);
}

/* ---- reverse_compute_inline ---------------------------------------------- */

typedef struct load_scan {
  const tsl_buffer *buf;
  const tsl_expr *first;
  int mismatch;
} load_scan;

static int scan_load(const tsl_expr *e, void *ud) {
  load_scan *ls = ud;
  if (e->kind != TSL_EXPR_LOAD || e->u.buffer != ls->buf)
    return 0;
  if (!ls->first)
    ls->first = e;
  else if (!tsl_expr_equal(ls->first, e))
    ls->mismatch = 1;
  return 0;
}

typedef struct map_ctx {
  uint32_t n;
  const tsl_var *const *from;
  const tsl_expr *const *to;
} map_ctx;

static const tsl_expr *map_vars(const tsl_var *v, void *ud) {
  const map_ctx *m = ud;
  for (uint32_t i = 0; i < m->n; i++)
    if (m->from[i] == v)
      return m->to[i];
  return NULL;
}

int cmp_reverse_compute_inline(sch_call *c, const sch_path *bp) {
  const tsl_block *b = sch_path_block(bp);
  cmp_scope s;
  cmp_scope_of(c, bp, &s);
  if (b->init)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' has a T.init() (a reduction); a reduction "
                    "cannot be inlined into its producer",
                    b->name);
  int rc = cmp_check_stage_pipeline(c, &s);
  if (!rc)
    rc = cmp_check_complete(c, &s, s.self);
  if (rc)
    return rc;
  /* the one buffer it reads that a block of the scope writes */
  const tsl_buffer *buf = NULL;
  for (uint32_t r = 0; r < b->n_reads; r++) {
    const tsl_buffer *rb = b->reads[r].buffer;
    if (rb == buf || !cmp_writers(&s, rb))
      continue;
    if (buf)
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' reads two buffers produced in its scope "
                      "('%s' and '%s'); it must read exactly one",
                      b->name, buf->name, rb->name);
    buf = rb;
  }
  if (!buf)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' reads no buffer produced in its scope, so it "
                    "has no producer to be inlined into",
                    b->name);
  if (tsl_stmt_uses_buffer_data(s.block->body, buf))
    return opaque_access(c, buf);
  uint32_t pi = s.n;
  for (uint32_t k = 0; k < s.n; k++)
    if (k != s.self &&
        sch_regions_have(cmp_kid(&s, k)->writes, cmp_kid(&s, k)->n_writes, buf))
      pi = k;
  if (cmp_writers(&s, buf) != 1 || pi == s.n)
    return sch_fail(c, TSL_EINVALID,
                    "buffer '%s' that block '%s' reads has %u writers; it "
                    "needs exactly one producer",
                    buf->name, b->name, cmp_writers(&s, buf));
  const tsl_block *pb = cmp_kid(&s, pi);
  for (uint32_t k = 0; k < s.n; k++)
    if (k != s.self && k != pi &&
        sch_regions_have(cmp_kid(&s, k)->reads, cmp_kid(&s, k)->n_reads, buf))
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' also reads '%s'; block '%s' can be inlined "
                      "into its producer only when it is the only reader",
                      cmp_kid(&s, k)->name, buf->name, b->name);
  if (!cmp_buffer_allocated(s.block, buf))
    return sch_fail(c, TSL_EINVALID,
                    "'%s' is not allocated in the scope (an output of the "
                    "function); it must stay written",
                    buf->name);
  if (pb->init)
    return sch_fail(c, TSL_EINVALID,
                    "the producer block '%s' is a reduction (it has a "
                    "T.init()); a consumer cannot be inlined into a reduction",
                    pb->name);
  for (uint32_t k = 0; k < pb->n_iter_vars; k++)
    if (pb->iter_vars[k].iter_type != TSL_ITER_SPATIAL)
      return sch_fail(c, TSL_EINVALID,
                      "the producer block '%s' is not a complete block "
                      "(iter var '%s' is not spatial)",
                      pb->name, pb->iter_vars[k].var->name);
  if (pb->n_writes != 1 || sch_regions_have(pb->reads, pb->n_reads, buf))
    return sch_fail(c, TSL_EINVALID,
                    "the producer block '%s' must write only '%s' and not "
                    "read it",
                    pb->name, buf->name);
  const tsl_stmt *ps = pb->body, *cs = b->body;
  if (ps->kind != TSL_STMT_STORE || ps->u.store.buffer != buf)
    return sch_fail(c, TSL_EINVALID,
                    "the body of the producer block '%s' must be a single "
                    "store into '%s'",
                    pb->name, buf->name);
  if (cs->kind != TSL_STMT_STORE)
    return sch_fail(c, TSL_EINVALID,
                    "the body of block '%s' must be a single store", b->name);
  const tsl_stmt *crealize = sch_path_target(bp);
  const tsl_expr *cpred = crealize->u.realize.predicate;
  if (cpred && !(cpred->kind == TSL_EXPR_INT_IMM && cpred->u.int_value))
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "block '%s' has a T.where predicate; inlining a "
                    "predicated consumer is not supported",
                    b->name);
  load_scan ls = {buf, NULL, 0};
  tsl_expr_visit(cs->u.store.value, scan_load, &ls);
  for (uint32_t i = 0; i < cs->u.store.n_indices; i++)
    tsl_expr_visit(cs->u.store.indices[i], scan_load, &ls);
  if (!ls.first || ls.mismatch || !distinct_vars(ls.first->n_args, ls.first->args))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' must read '%s' at one index list of distinct "
                    "iter vars ('%s[v0, v1, ...]')",
                    b->name, buf->name, buf->name);
  var_check vc = {ls.first->n_args, ls.first->args, NULL};
  int bad = tsl_expr_visit(cs->u.store.value, var_outside, &vc);
  for (uint32_t i = 0; i < cs->u.store.n_indices && !bad; i++)
    bad = tsl_expr_visit(cs->u.store.indices[i], var_outside, &vc);
  if (bad)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' uses '%s', which is not an index of its load "
                    "of '%s'; every variable it uses must be",
                    b->name, vc.bad->name, buf->name);
  /* consumer var at load position d -> producer store index d */
  uint32_t nd = ls.first->n_args;
  const tsl_var **from = TSL_NEW_ARRAY(c->arena, const tsl_var *, nd + 1);
  for (uint32_t d = 0; d < nd; d++)
    from[d] = ls.first->args[d]->u.var;
  map_ctx mc = {nd, from, ps->u.store.indices};
  const tsl_expr *val =
      tsl_expr_substitute(c->arena, cs->u.store.value, map_vars, &mc);
  const tsl_expr **idx = TSL_NEW_ARRAY(c->arena, const tsl_expr *,
                                       cs->u.store.n_indices + 1);
  for (uint32_t i = 0; i < cs->u.store.n_indices; i++)
    idx[i] = sch_simplify(
        c, tsl_expr_substitute(c->arena, cs->u.store.indices[i], map_vars, &mc));
  /* loads of buf become the producer's value (its indices are the
   * producer's own store indices now) */
  rw_ctx rw = {c, buf, 0, NULL, ps->u.store.value, NULL, 0};
  val = rw_expr(&rw, val);
  tsl_block *nb = tsl_block_clone(c->arena, pb);
  nb->body = tsl_stmt_store(c->arena, cs->u.store.buffer, val,
                            cs->u.store.n_indices, idx);
  tsl_buffer_region *rd, *wr;
  uint32_t nr, nw;
  tsl_diag d;
  if (tsl_block_infer_regions(c->arena, nb, &rd, &nr, &wr, &nw, &d))
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "cannot infer the regions of block '%s' after inlining: %s",
                    pb->name, d.text);
  nb->reads = rd;
  nb->n_reads = nr;
  nb->writes = wr;
  nb->n_writes = nw;
  const sch_path *pp = &s.kids[pi];
  sch_commit(c, bp->func,
             sch_path_rebuild(c->arena, pp, pp->depth - 1,
                              sch_with_block(c->arena, sch_path_target(pp), nb)));
  /* remove the consumer, then the buffer's allocation */
  const tsl_func *f = sch_func(c->sch, bp->func->name);
  sch_path cp;
  if (!f || sch_find_block(f, b->name, &cp) != 1)
    return sch_fail(c, TSL_EINVALID, "block '%s' vanished", b->name);
  const tsl_stmt *body;
  rc = cmp_remove_leaf(c, &cp, sch_path_scope_level(&cp, cp.depth - 1), &body);
  if (rc)
    return rc;
  sch_commit(c, f, body);
  return drop_alloc(c, bp->func, s.block->name, buf, NULL);
}

int sch_apply_reverse_compute_inline(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  return rc ? rc : cmp_reverse_compute_inline(c, &p);
}
