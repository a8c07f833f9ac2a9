/*
 * compute_inline and reverse_compute_inline, as TVM v0.19's
 * compute_inline.cc.
 * compute_inline: a complete block whose body is one store `B[f(v)] = g(v)`,
 * f its iter vars in order or a bijective affine map of them, disappears;
 * every load B[idx] in the scope becomes g(f^-1(idx)).
 * reverse_compute_inline: a complete consumer `D[h(u)] = k(u, B[f(u)])`
 * reading its single producer's buffer at one affine index list f folds
 * into the producer `B[p] = g`: the producer stores k(u, g) into D[h(u)]
 * with u = f^-1(p) (tessel/analysis.h iterator maps), under a T.where where
 * that inverse covers more than the consumer's domain. Blocks whose
 * accesses change get their regions inferred again; B's allocation goes.
 */
#include "compute_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- rewriting loads of one buffer --------------------------------------- */

/* A mutator replacing each load of `buf` by `value` with the index vars
 * bound to the load's indices; blocks accessing `buf` whose contents
 * change get their regions inferred again. */
typedef struct inliner {
  tsl_mutator m;
  const tsl_buffer *buf;
  uint32_t n_idx;
  const tsl_var *const *idx_vars; /* compute_inline: the producer's */
  const tsl_expr *value;
  tsl_map at; /* index var -> the index of the load being replaced */
} inliner;

static const tsl_expr *inline_load(tsl_mutator *m, const tsl_expr *e) {
  inliner *in = (inliner *)m;
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (r->kind != TSL_EXPR_LOAD || r->u.buffer != in->buf)
    return r;
  for (uint32_t k = 0; k < in->n_idx; k++)
    tsl_map_put(&in->at, in->idx_vars[k], (void *)r->args[k]);
  return tsl_expr_substitute_map(m->arena, in->value, &in->at);
}

/* The regions of `nb` inferred again from its contents. */
static int reinfer(tsl_arena *a, tsl_block *nb, tsl_diag *d) {
  tsl_buffer_region *rd, *wr;
  uint32_t nr, nw;
  int rc = tsl_block_infer_regions(a, nb, &rd, &nr, &wr, &nw, d);
  if (!rc) {
    nb->reads = rd;
    nb->n_reads = nr;
    nb->writes = wr;
    nb->n_writes = nw;
  }
  return rc;
}

static const tsl_stmt *inline_block(tsl_mutator *m, const tsl_stmt *s) {
  inliner *in = (inliner *)m;
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (s->kind != TSL_STMT_BLOCK_REALIZE || r->u.realize.block == s->u.realize.block)
    return r;
  const tsl_block *b = s->u.realize.block;
  if (!sch_regions_have(b->reads, b->n_reads, in->buf) &&
      !sch_regions_have(b->writes, b->n_writes, in->buf))
    return r;
  tsl_block *nb = tsl_block_clone(m->arena, r->u.realize.block);
  tsl_diag d;
  if (reinfer(m->arena, nb, &d)) {
    tsl_mutator_fail(m, TSL_EUNSUPPORTED, "cannot infer the regions of a block that read '%s'",
                     in->buf->name);
    return s;
  }
  return sch_with_block(m->arena, r, nb);
}

static void inliner_init(sch_call *c, inliner *in, const tsl_buffer *buf, uint32_t n_idx,
                         const tsl_var *const *idx_vars, const tsl_expr *value) {
  memset(in, 0, sizeof *in);
  in->m = tsl_mutator_make(c->arena);
  in->m.expr = inline_load;
  in->m.stmt = inline_block;
  in->buf = buf;
  in->n_idx = n_idx;
  in->idx_vars = idx_vars;
  in->value = value;
  tsl_map_init(&in->at, c->arena);
}

/* ---- shared steps -------------------------------------------------------- */

static int is_const(const tsl_expr *e, int64_t want) {
  int64_t v;
  return e && tsl_expr_is_const_int(e, &v) && v == want;
}

/* A constant true condition (bool or int). */
static int is_true(const tsl_expr *e) {
  return e->kind == TSL_EXPR_INT_IMM && e->dtype.lanes == 1 && e->u.int_value;
}

/* The first iter var of `b` that `e` uses, or NULL. */
static const tsl_var *uses_iter(const tsl_block *b, const tsl_expr *e) {
  for (uint32_t k = 0; k < b->n_iter_vars; k++)
    if (tsl_expr_uses_var(e, b->iter_vars[k].var))
      return b->iter_vars[k].var;
  return NULL;
}

static void iter_domains(sch_call *c, const tsl_block *b, const tsl_var ***vars,
                         tsl_range **doms) {
  uint32_t n = b->n_iter_vars;
  *vars = TSL_NEW_ARRAY(c->arena, const tsl_var *, n ? n : 1);
  *doms = TSL_NEW_ARRAY(c->arena, tsl_range, n ? n : 1);
  for (uint32_t k = 0; k < n; k++) {
    (*vars)[k] = b->iter_vars[k].var;
    (*doms)[k] = b->iter_vars[k].dom;
  }
}

static const char *index_str(sch_call *c, const tsl_buffer *buf, uint32_t n,
                             const tsl_expr *const *idx) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_printf(&sb, "%s[", buf->name);
  for (uint32_t i = 0; i < n; i++)
    tsl_strbuf_printf(&sb, "%s%s", i ? ", " : "", cmp_expr_str(c, idx[i]));
  tsl_strbuf_append(&sb, "]");
  const char *r = tsl_arena_strdup(c->arena, sb.data);
  tsl_strbuf_free(&sb);
  return r;
}

typedef struct viewer_scan {
  const tsl_buffer *buf;
  const tsl_block *found;
} viewer_scan;

static int scan_viewer(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  viewer_scan *vs = ud;
  for (uint32_t k = 0; k < b->n_match_buffers; k++)
    if (b->match_buffers[k].source.buffer == vs->buf) {
      vs->found = b;
      return 1;
    }
  return 0;
}

/* TVM's opaque-access check: no block of the scope may view `buf` through
 * T.match_buffer (the view would outlive the buffer). */
static int check_not_viewed(sch_call *c, const cmp_scope *s,
                            const tsl_buffer *buf) {
  viewer_scan vs = {buf, NULL};
  tsl_stmt_visitor v = {0};
  v.block = scan_viewer;
  v.user_data = &vs;
  tsl_stmt_visit(s->block->body, &v);
  if (s->block->init)
    tsl_stmt_visit(s->block->init, &v);
  if (vs.found)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' views '%s' through T.match_buffer; a buffer "
                    "that another block views as a region cannot be inlined",
                    vs.found->name, buf->name);
  /* TVM's OpaqueAccessError: the buffer's storage used directly */
  if (tsl_stmt_uses_buffer_data(s->block->body, buf))
    return sch_fail(c, TSL_EINVALID,
                    "'%s' is accessed opaquely in its scope (through %s.data, "
                    "e.g. in T.tvm_access_ptr); only a buffer accessed by loads "
                    "and stores alone can be inlined",
                    buf->name, buf->name);
  return TSL_OK;
}

/* Find the scope block again (by name) after a commit, and install it
 * with `buf` dropped from its allocations. */
static int drop_alloc(sch_call *c, const tsl_func *func, tsl_str scope_name,
                      const tsl_buffer *buf, inliner *in) {
  const tsl_func *f = sch_func(c->sch, func->name);
  sch_path sp;
  if (!f || sch_find_block(f, scope_name, &sp) != 1)
    return sch_fail(c, TSL_EINVALID, "the scope block '%s' vanished",
                    scope_name);
  const tsl_stmt *realize = sch_path_target(&sp);
  const tsl_block *sb = realize->u.realize.block;
  tsl_block *nb = tsl_block_clone(c->arena, sb);
  if (in) {
    in->m.diag = c->diag;
    nb->body = tsl_mutate_stmt(&in->m, sb->body);
    nb->init = sb->init ? tsl_mutate_stmt(&in->m, sb->init) : NULL;
    if (in->m.status)
      return in->m.status;
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

static int infer_regions(sch_call *c, tsl_block *nb, const char *name) {
  tsl_diag d;
  if (reinfer(c->arena, nb, &d))
    return sch_fail(c, TSL_EUNSUPPORTED,
                    "cannot infer the regions of block '%s' after inlining: %s",
                    name, d.text);
  return TSL_OK;
}

/* ---- compute_inline ------------------------------------------------------ */

/* The stored value as a function of index variables *vars (one per store
 * index): the iter vars themselves when the store indices are the iter
 * vars in order (or 0 for unit iters), else fresh placeholders through the
 * inverse of the bijective index map (TVM's two paths). */
static int inline_value(sch_call *c, const tsl_block *b, const tsl_stmt *st,
                        const tsl_var ***vars, const tsl_expr **value) {
  uint32_t n = st->u.store.n_indices;
  const tsl_expr *const *idx = st->u.store.indices;
  const tsl_var **iv = TSL_NEW_ARRAY(c->arena, const tsl_var *, n ? n : 1);
  int trivial = n == b->n_iter_vars;
  for (uint32_t i = 0; i < n && trivial; i++) {
    const tsl_iter_var *it = &b->iter_vars[i];
    iv[i] = it->var;
    trivial = (idx[i]->kind == TSL_EXPR_VAR && idx[i]->u.var == it->var) ||
              (is_const(idx[i], 0) && is_const(it->dom.min, 0) &&
               is_const(it->dom.extent, 1));
  }
  if (trivial) {
    *vars = iv;
    *value = st->u.store.value;
    return TSL_OK;
  }
  const tsl_var **iters;
  tsl_range *doms;
  iter_domains(c, b, &iters, &doms);
  tsl_analyzer *an = tsl_analyzer_new(tsl_arena_ctx(c->arena));
  tsl_iter_map map;
  tsl_diag *d = TSL_NEW(c->arena, tsl_diag);
  int rc = tsl_iter_map_detect(an, c->arena, n, idx, b->n_iter_vars, iters, doms,
                               NULL, TSL_ITER_MAP_BIJECTIVE, 0, &map, d);
  tsl_analyzer_free(an);
  if (rc)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' stores %s, whose indices must be its iter "
                    "vars or a bijective affine map of them so that each "
                    "load of '%s' can be solved for them: %s",
                    b->name, index_str(c, st->u.store.buffer, n, idx),
                    st->u.store.buffer->name, d->text);
  const tsl_expr **ph = TSL_NEW_ARRAY(c->arena, const tsl_expr *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    char name[24];
    snprintf(name, sizeof name, "ph_%u", i);
    iv[i] = tsl_var_new(c->arena, name, idx[i]->dtype);
    ph[i] = tsl_expr_var(iv[i]);
  }
  uint32_t nv;
  const tsl_var **inv_vars;
  const tsl_expr **inv_vals;
  rc = tsl_iter_map_inverse(c->arena, map.n, map.indices, ph, &nv, &inv_vars,
                            &inv_vals, d);
  if (rc)
    return sch_fail(c, TSL_EINVALID, "block '%s' stores %s, which cannot be "
                                     "inverted: %s",
                    b->name, index_str(c, st->u.store.buffer, n, idx), d->text);
  tsl_map m;
  tsl_map_init(&m, c->arena);
  for (uint32_t k = 0; k < nv; k++)
    tsl_map_put(&m, inv_vars[k], (void *)inv_vals[k]);
  for (uint32_t k = 0; k < b->n_iter_vars; k++) {
    int64_t mn;
    if (tsl_expr_is_const_int(b->iter_vars[k].dom.min, &mn) &&
        is_const(b->iter_vars[k].dom.extent, 1))
      tsl_map_put(&m, b->iter_vars[k].var, (void *)b->iter_vars[k].dom.min);
  }
  *value = tsl_expr_substitute_map(c->arena, st->u.store.value, &m);
  const tsl_var *left = uses_iter(b, *value);
  if (left)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' stores a value that uses iter var '%s', which "
                    "its store indices %s do not determine",
                    b->name, left->name,
                    index_str(c, st->u.store.buffer, n, idx));
  *vars = iv;
  return TSL_OK;
}

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
  if (st->kind != TSL_STMT_STORE || st->u.store.buffer != buf)
    return sch_fail(c, TSL_EINVALID,
                    "the body of block '%s' must be a single store "
                    "'%s[...] = ...', not a %s",
                    b->name, buf->name,
                    st->kind == TSL_STMT_STORE ? "store into another buffer"
                                               : tsl_stmt_kind_name((tsl_stmt_kind)st->kind));
  const tsl_var **iv = NULL;
  const tsl_expr *value = NULL;
  rc = inline_value(c, b, st, &iv, &value);
  if (!rc)
    rc = check_not_viewed(c, &s, buf);
  if (rc)
    return rc;
  const tsl_stmt *body;
  rc = cmp_remove_leaf(c, bp, s.level, &body);
  if (rc)
    return rc;
  sch_commit(c, bp->func, body);
  inliner in;
  inliner_init(c, &in, buf, st->u.store.n_indices, iv, value);
  return drop_alloc(c, bp->func, s.block->name, buf, &in);
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

/* The one buffer `b` reads that a block of the scope writes. */
static int single_read(sch_call *c, const cmp_scope *s, const tsl_block *b,
                       const tsl_buffer **out) {
  const tsl_buffer *buf = NULL;
  for (uint32_t r = 0; r < b->n_reads; r++) {
    const tsl_buffer *rb = b->reads[r].buffer;
    if (rb == buf || !cmp_writers(s, rb))
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
  *out = buf;
  return TSL_OK;
}

/* The single producer of `buf` among the scope's blocks: a complete leaf
 * block, not an output block; the consumer is its only reader. */
static int single_producer(sch_call *c, const cmp_scope *s, const tsl_block *b,
                           const tsl_buffer *buf, uint32_t *out) {
  uint32_t pi = s->n, n = 0;
  for (uint32_t k = 0; k < s->n; k++)
    if (k != s->self &&
        sch_regions_have(cmp_kid(s, k)->writes, cmp_kid(s, k)->n_writes, buf)) {
      pi = k;
      n++;
    }
  if (n != 1)
    return sch_fail(c, TSL_EINVALID,
                    "buffer '%s' that block '%s' reads has %u writers; it "
                    "needs exactly one producer",
                    buf->name, b->name, n);
  const tsl_block *pb = cmp_kid(s, pi);
  if (pb->init)
    return sch_fail(c, TSL_EINVALID,
                    "the producer block '%s' is a reduction (it has a "
                    "T.init()); a consumer can be inlined only into a "
                    "complete block",
                    pb->name);
  tsl_diag *saved = c->diag;
  c->diag = NULL;
  int rc = cmp_check_complete(c, s, pi);
  c->diag = saved;
  if (rc) {
    rc = cmp_check_complete(c, s, pi);
    tsl_diag_append(c->diag, "; block '%s' can be inlined only into a "
                             "complete producer",
                    b->name);
    return rc;
  }
  for (uint32_t k = 0; k < s->n; k++)
    if (k != s->self && k != pi &&
        sch_regions_have(cmp_kid(s, k)->reads, cmp_kid(s, k)->n_reads, buf))
      return sch_fail(c, TSL_EINVALID,
                      "block '%s' also reads '%s'; block '%s' can be inlined "
                      "into its producer only when it is the only reader",
                      cmp_kid(s, k)->name, buf->name, b->name);
  for (uint32_t w = 0; w < pb->n_writes; w++)
    if (!cmp_buffer_allocated(s->block, pb->writes[w].buffer))
      return sch_fail(c, TSL_EINVALID,
                      "the producer block '%s' writes '%s', which its scope "
                      "does not allocate (an output of the function); a "
                      "consumer cannot be inlined into an output block",
                      pb->name, pb->writes[w].buffer->name);
  *out = pi;
  return TSL_OK;
}

typedef struct rev_plan {
  const tsl_block *pb;      /* the producer */
  const tsl_stmt *pstore;   /* its store into the buffer */
  const tsl_expr *pcond;    /* the condition of its IF body, or NULL */
  tsl_map sub;              /* consumer iter var -> expr of producer vars */
} rev_plan;

/* TVM's ReverseComputeInliner::BodyPatternAllowInline: the consumer's load
 * indices form an affine map of its iter vars, solved at the producer's
 * store indices, and every consumer iter var is determined and covered. */
static int reverse_pattern(sch_call *c, const tsl_stmt *crealize,
                           const tsl_block *b, const tsl_block *pb,
                           const tsl_buffer *buf, rev_plan *plan) {
  const tsl_expr *cpred = crealize->u.realize.predicate;
  if (cpred && !is_true(cpred))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' has a T.where predicate; only a consumer "
                    "without one can be inlined into its producer",
                    b->name);
  const tsl_stmt *cs = b->body;
  if (cs->kind != TSL_STMT_STORE)
    return sch_fail(c, TSL_EINVALID,
                    "the body of block '%s' must be a single store, not a %s",
                    b->name, tsl_stmt_kind_name((tsl_stmt_kind)cs->kind));
  load_scan ls = {buf, NULL, 0};
  for (uint32_t i = 0; i < cs->u.store.n_indices; i++)
    tsl_expr_visit(cs->u.store.indices[i], scan_load, &ls);
  tsl_expr_visit(cs->u.store.value, scan_load, &ls);
  if (!ls.first)
    return sch_fail(c, TSL_EINVALID,
                    "the store of block '%s' does not load '%s'", b->name,
                    buf->name);
  if (ls.mismatch)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' loads '%s' at different indices; it must "
                    "load it at one index list",
                    b->name, buf->name);
  const tsl_stmt *ps = pb->body;
  plan->pb = pb;
  plan->pcond = NULL;
  if (ps->kind == TSL_STMT_IF && !ps->u.branch.else_case) {
    plan->pcond = ps->u.branch.cond;
    ps = ps->u.branch.then_case;
  }
  if (ps->kind != TSL_STMT_STORE || ps->u.store.buffer != buf)
    return sch_fail(c, TSL_EINVALID,
                    "the body of the producer block '%s' must be a single "
                    "store into '%s' (optionally under an if without else)",
                    pb->name, buf->name);
  plan->pstore = ps;
  tsl_map_init(&plan->sub, c->arena);
  for (uint32_t k = 0; k < b->n_iter_vars; k++) {
    const tsl_iter_var *it = &b->iter_vars[k];
    int64_t mn;
    if (tsl_expr_is_const_int(it->dom.min, &mn) && is_const(it->dom.extent, 1))
      tsl_map_put(&plan->sub, it->var, (void *)it->dom.min);
  }
  const tsl_var **iters;
  tsl_range *doms;
  iter_domains(c, b, &iters, &doms);
  tsl_analyzer *an = tsl_analyzer_new(tsl_arena_ctx(c->arena));
  tsl_iter_map map;
  tsl_diag *d = TSL_NEW(c->arena, tsl_diag);
  const tsl_expr *ld = ls.first;
  int rc = tsl_iter_map_detect(an, c->arena, ld->n_args, ld->args,
                               b->n_iter_vars, iters, doms, NULL,
                               TSL_ITER_MAP_NO_CHECK, 0, &map, d);
  tsl_analyzer_free(an);
  if (rc)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' loads %s, whose indices must be an affine "
                    "map of its iter vars to be solved for them: %s",
                    b->name, index_str(c, buf, ld->n_args, ld->args), d->text);
  uint32_t nv;
  const tsl_var **vars;
  const tsl_expr **vals;
  rc = tsl_iter_map_inverse(c->arena, map.n, map.indices, ps->u.store.indices,
                            &nv, &vars, &vals, d);
  if (rc)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' loads %s, which cannot be solved for its "
                    "iter vars: %s",
                    b->name, index_str(c, buf, ld->n_args, ld->args), d->text);
  for (uint32_t k = 0; k < nv; k++)
    tsl_map_put(&plan->sub, vars[k], (void *)vals[k]);
  /* CheckConsumerCovered: each consumer iter var is determined, and the
   * producer's iterations reach both ends of its domain (proven, where TVM
   * only refuses what it can prove uncovered) */
  const tsl_var **pvars;
  tsl_range *pdoms;
  iter_domains(c, pb, &pvars, &pdoms);
  an = tsl_analyzer_new(tsl_arena_ctx(c->arena));
  rc = TSL_OK;
  for (uint32_t k = 0; k < b->n_iter_vars && !rc; k++) {
    const tsl_iter_var *it = &b->iter_vars[k];
    const tsl_expr *e = tsl_map_get(&plan->sub, it->var);
    if (!e) {
      rc = sch_fail(c, TSL_EINVALID,
                    "iter var '%s' of block '%s' does not occur in its load "
                    "%s, so the producer '%s' cannot compute its iterations",
                    it->var->name, b->name,
                    index_str(c, buf, ld->n_args, ld->args), pb->name);
      break;
    }
    tsl_range r;
    int covered = 0, relaxed = 0;
    tsl_arena *a = c->arena;
    if (tsl_analyzer_relax(an, a, e, pb->n_iter_vars, pvars, pdoms, &r) == TSL_OK) {
      relaxed = 1;
      const tsl_expr *lo = tsl_expr_binary(a, TSL_EXPR_LE, r.min, it->dom.min);
      const tsl_expr *hi = tsl_expr_binary(
          a, TSL_EXPR_GE, tsl_expr_binary(a, TSL_EXPR_ADD, r.min, r.extent),
          tsl_expr_binary(a, TSL_EXPR_ADD, it->dom.min, it->dom.extent));
      covered = tsl_analyzer_can_prove(an, lo) && tsl_analyzer_can_prove(an, hi);
    }
    if (covered)
      continue;
    const char *dom = cmp_expr_str(
        c, sch_simplify(c, tsl_expr_binary(a, TSL_EXPR_ADD, it->dom.min, it->dom.extent)));
    const char *got =
        relaxed ? cmp_expr_str(c, sch_simplify(c, tsl_expr_binary(a, TSL_EXPR_ADD, r.min,
                                                                    r.extent)))
                : NULL;
    rc = sch_fail(c, TSL_EINVALID,
                  "the producer block '%s' does not cover block '%s': over "
                  "the producer's iterations, iter var '%s' of '%s' = %s "
                  "takes the values [%s, %s), not all of [%s, %s)",
                  pb->name, b->name, it->var->name, b->name,
                  cmp_expr_str(c, sch_simplify(c, e)),
                  relaxed ? cmp_expr_str(c, sch_simplify(c, r.min)) : "?",
                  relaxed ? got : "?", cmp_expr_str(c, it->dom.min), dom);
  }
  tsl_analyzer_free(an);
  return rc;
}

/* The producer's realize after inlining: its store replaced and, where the
 * inverse covers more than the consumer's domain, a T.where (TVM's
 * BuildInlinedConsumerPredicate). */
static const tsl_stmt *reverse_realize(sch_call *c, const tsl_stmt *prealize,
                                       const tsl_block *b, const tsl_buffer *buf,
                                       rev_plan *plan) {
  tsl_arena *a = c->arena;
  const tsl_block *pb = plan->pb;
  const tsl_stmt *cs = b->body;
  uint32_t n = cs->u.store.n_indices;
  const tsl_expr **idx = TSL_NEW_ARRAY(a, const tsl_expr *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++)
    idx[i] = tsl_expr_substitute_map(a, cs->u.store.indices[i], &plan->sub);
  const tsl_expr *val = tsl_expr_substitute_map(a, cs->u.store.value, &plan->sub);
  /* loads of the buffer -> the producer's right-hand side */
  inliner in;
  inliner_init(c, &in, buf, 0, NULL, plan->pstore->u.store.value);
  val = tsl_mutate_expr(&in.m, val);
  const tsl_stmt *store = tsl_stmt_store(a, cs->u.store.buffer, val, n, idx);
  const tsl_stmt *body = plan->pcond ? tsl_stmt_if(a, plan->pcond, store, NULL) : store;
  const tsl_expr *pred = prealize->u.realize.predicate;
  /* the consumer's iter vars inside their domains, at the inverse; bounds
   * the producer's domains imply are dropped first (symbolic extents) */
  const tsl_expr *inb = NULL;
  tsl_analyzer *an = tsl_analyzer_new(tsl_arena_ctx(a));
  for (uint32_t k = 0; k < pb->n_iter_vars; k++)
    tsl_analyzer_bind(an, pb->iter_vars[k].var, pb->iter_vars[k].dom.min,
                      pb->iter_vars[k].dom.extent);
  const tsl_var **pvars;
  tsl_range *pdoms;
  iter_domains(c, pb, &pvars, &pdoms);
  for (uint32_t k = 0; k < b->n_iter_vars; k++) {
    const tsl_iter_var *it = &b->iter_vars[k];
    const tsl_expr *v = tsl_map_get(&plan->sub, it->var);
    const tsl_expr *end = tsl_simplify(
        an, a, tsl_expr_binary(a, TSL_EXPR_ADD, it->dom.min, it->dom.extent));
    int need_lo = 1, need_hi = 1;
    tsl_range r;
    if (tsl_analyzer_relax(an, a, v, pb->n_iter_vars, pvars, pdoms, &r) == TSL_OK) {
      need_lo = !tsl_analyzer_can_prove(
          an, tsl_expr_binary(a, TSL_EXPR_LE, it->dom.min, r.min));
      need_hi = !tsl_analyzer_can_prove(
          an, tsl_expr_binary(a, TSL_EXPR_LE,
                              tsl_expr_binary(a, TSL_EXPR_ADD, r.min, r.extent), end));
    }
    const tsl_expr *lo = tsl_expr_binary(a, TSL_EXPR_GE, v, it->dom.min);
    const tsl_expr *hi = tsl_expr_binary(a, TSL_EXPR_LT, v, end);
    const tsl_expr *ck = need_lo && need_hi ? tsl_expr_binary(a, TSL_EXPR_AND, lo, hi)
                         : need_lo          ? lo
                         : need_hi          ? hi
                                            : NULL;
    if (ck)
      inb = inb ? tsl_expr_binary(a, TSL_EXPR_AND, inb, ck) : ck;
  }
  const tsl_expr *q = inb ? tsl_simplify(an, a, inb) : NULL;
  if (q && !is_true(q)) {
    if (plan->pcond) {
      const tsl_expr *ifp = tsl_simplify(an, a, plan->pcond);
      if (!tsl_expr_equal(q, ifp)) {
        q = tsl_simplify(an, a, tsl_expr_binary(a, TSL_EXPR_AND, q, plan->pcond));
        body = store;
      }
    }
    const tsl_expr *outer =
        tsl_simplify_predicate(an, a, sch_subst_bindings(c, prealize, q));
    /* TVM replaces the producer's predicate; we keep both (it may guard
     * the producer's own reads) */
    if (!pred || is_true(pred) || tsl_expr_equal(pred, outer))
      pred = outer;
    else
      pred = tsl_simplify_predicate(an, a,
                                    tsl_expr_binary(a, TSL_EXPR_AND, pred, outer));
  }
  tsl_analyzer_free(an);
  tsl_block *nb = tsl_block_clone(a, pb);
  nb->body = body;
  if (infer_regions(c, nb, pb->name))
    return NULL;
  return tsl_stmt_block_realize(a, prealize->u.realize.n_iter_values,
                                prealize->u.realize.iter_values, pred, nb);
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
  const tsl_buffer *buf = NULL;
  if (!rc)
    rc = single_read(c, &s, b, &buf);
  if (!rc)
    rc = cmp_check_complete(c, &s, s.self);
  uint32_t pi = 0;
  if (!rc)
    rc = single_producer(c, &s, b, buf, &pi);
  if (rc)
    return rc;
  if (!cmp_buffer_allocated(s.block, buf))
    return sch_fail(c, TSL_EINVALID,
                    "'%s' is not allocated in the scope (an output of the "
                    "function); it must stay written",
                    buf->name);
  const sch_path *pp = &s.kids[pi];
  const tsl_block *pb = cmp_kid(&s, pi);
  rev_plan plan;
  rc = reverse_pattern(c, sch_path_target(bp), b, pb, buf, &plan);
  if (!rc)
    rc = check_not_viewed(c, &s, buf);
  if (rc)
    return rc;
  const tsl_stmt *nr = reverse_realize(c, sch_path_target(pp), b, buf, &plan);
  if (!nr)
    return TSL_EUNSUPPORTED;
  sch_commit(c, bp->func, sch_path_rebuild(c->arena, pp, pp->depth - 1, nr));
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
