/*
 * Block access-region inference (tsl_block_infer_regions).
 *
 * Walks the block's init and body without entering nested blocks: loads
 * are reads, stores are writes, and a nested block contributes its own
 * declared regions with its iteration variables replaced by their bindings.
 * Let variables are substituted by their values; indices that use loops
 * inside the block are relaxed over those loops (tsl_analyzer_relax). Each
 * buffer gets one region covering all its accesses; where no bound can be
 * computed the region falls back to the whole dimension, as TVM does (also
 * for indices TVM's interval evaluator gives up on: calls, float
 * constants, loads of floats or at indices that use inner loops).
 * Accesses through the block's own match_buffer views map to their source.
 * The walk is a tsl_stmt_visit visitor: scopes (loops, lets, allocations)
 * open in its pre-order callback and close in its post-order one.
 * Raw uses of a buffer's storage are opaque accesses of the whole buffer,
 * as in TVM: `T.tvm_access_ptr(.., A.data, .., mask)` reads and/or writes A
 * by its mask, any other `A.data` both reads and writes it.
 */
#include "tessel/analysis.h"
#include "tessel/visit.h"

#include <string.h>

typedef struct racc {
  const tsl_buffer *buf;
  tsl_range *ranges; /* ndim entries */
} racc;

typedef struct rctx {
  tsl_arena *arena;   /* results */
  tsl_arena *scratch; /* temporaries */
  const tsl_block *block;
  tsl_analyzer *an;
  tsl_vec loop_vars;  /* const tsl_var *, enclosing loops inside the block */
  tsl_vec loop_doms;  /* tsl_range, their domains */
  tsl_map lets;       /* let var -> value (earlier lets substituted) */
  tsl_vec let_scopes; /* tsl_map_binding, one per enclosing let */
  tsl_vec excluded;   /* const tsl_buffer *: allocated inside */
  tsl_vec reads, writes, opaques; /* racc */
} rctx;

static tsl_analyzer *analyzer(rctx *c) {
  if (!c->an)
    c->an = tsl_analyzer_new(tsl_arena_ctx(c->arena));
  return c->an;
}

static const tsl_expr *simplify(rctx *c, const tsl_expr *e) {
  tsl_analyzer *an = analyzer(c);
  return an ? tsl_simplify(an, c->arena, e) : e;
}

/* ---- substitution of lets and nested-block iteration variables ---- */

static const tsl_expr *subst(rctx *c, tsl_map *vars, const tsl_expr *e) {
  tsl_mutator m = tsl_mutator_make(c->arena);
  m.vars = vars;
  return tsl_mutate_expr(&m, e);
}

static const tsl_expr *subst_lets(rctx *c, const tsl_expr *e) {
  return c->lets.n ? subst(c, &c->lets, e) : e;
}

static int uses_loops(const rctx *c, const tsl_expr *e) {
  for (uint32_t i = 0; i < c->loop_vars.len; i++)
    if (tsl_expr_uses_var(e, TSL_VEC_AT(&c->loop_vars, const tsl_var *, i)))
      return 1;
  return 0;
}

static int is_excluded(const rctx *c, const tsl_buffer *b) {
  for (uint32_t i = 0; i < c->excluded.len; i++)
    if (TSL_VEC_AT(&c->excluded, const tsl_buffer *, i) == b)
      return 1;
  return 0;
}

static tsl_range full_dim(rctx *c, const tsl_buffer *b, uint32_t d) {
  tsl_range r;
  r.min = tsl_expr_int(c->arena, b->shape[d]->dtype, 0);
  r.extent = b->shape[d];
  return r;
}

/* Does `e` hold a node TVM's interval evaluator cannot bound (it answers
 * "everything", so the access covers the whole dimension)? A call, a
 * float constant, a load of a non-integer buffer or one at an index that
 * uses a loop inside the block. */
typedef struct opaque_ctx {
  const rctx *c;
  int found;
} opaque_ctx;

static int opaque_node(const tsl_expr *e, void *ud) {
  opaque_ctx *o = ud;
  if (e->kind == TSL_EXPR_CALL || e->kind == TSL_EXPR_FLOAT_IMM ||
      e->kind == TSL_EXPR_STR_IMM)
    o->found = 1;
  if (e->kind == TSL_EXPR_LOAD) {
    if (!tsl_dtype_is_int(e->dtype))
      o->found = 1;
    for (uint32_t i = 0; i < e->n_args && !o->found; i++)
      o->found = uses_loops(o->c, e->args[i]);
  }
  return o->found;
}

static int interval_opaque(const rctx *c, const tsl_expr *e) {
  opaque_ctx o = {c, 0};
  tsl_expr_visit(e, opaque_node, &o);
  return o.found;
}

/* Range covered by [min, min + extent) when inner loops vary. Returns 0
 * when no bound was found. */
static int relax_range(rctx *c, tsl_range in, tsl_range *out) {
  if (interval_opaque(c, in.min) || interval_opaque(c, in.extent))
    return 0;
  if (!uses_loops(c, in.min) && !uses_loops(c, in.extent)) {
    *out = in;
    return 1;
  }
  tsl_analyzer *an = analyzer(c);
  if (!an)
    return 0;
  tsl_range r1;
  if (tsl_analyzer_relax(an, c->arena, in.min, c->loop_vars.len, c->loop_vars.data,
                         c->loop_doms.data, &r1))
    return 0;
  int64_t one_ext;
  if (tsl_expr_is_const_int(in.extent, &one_ext) && one_ext == 1) {
    *out = r1;
    return 1;
  }
  if (!uses_loops(c, in.extent)) {
    const tsl_expr *e = tsl_expr_binary(
        c->arena, TSL_EXPR_SUB, tsl_expr_binary(c->arena, TSL_EXPR_ADD, r1.extent, in.extent),
        tsl_expr_int(c->arena, in.extent->dtype, 1));
    out->min = r1.min;
    out->extent = simplify(c, e);
    return 1;
  }
  const tsl_expr *last = tsl_expr_binary(
      c->arena, TSL_EXPR_SUB, tsl_expr_binary(c->arena, TSL_EXPR_ADD, in.min, in.extent),
      tsl_expr_int(c->arena, in.min->dtype, 1));
  tsl_range r2;
  if (tsl_analyzer_relax(an, c->arena, last, c->loop_vars.len, c->loop_vars.data,
                         c->loop_doms.data, &r2))
    return 0;
  const tsl_expr *hi = tsl_expr_binary(c->arena, TSL_EXPR_ADD, r2.min, r2.extent);
  out->min = r1.min;
  out->extent = simplify(c, tsl_expr_binary(c->arena, TSL_EXPR_SUB, hi, r1.min));
  return 1;
}

/* ---- union of ranges ---- */

static int same_expr(const tsl_expr *a, const tsl_expr *b) {
  if (a == b)
    return 1;
  if (!a || !b || a->kind != b->kind || !tsl_dtype_eq(a->dtype, b->dtype) ||
      a->n_args != b->n_args)
    return 0;
  switch (a->kind) {
  case TSL_EXPR_INT_IMM: return a->u.int_value == b->u.int_value;
  case TSL_EXPR_FLOAT_IMM: return a->u.float_value == b->u.float_value;
  case TSL_EXPR_VAR: return a->u.var == b->u.var;
  case TSL_EXPR_LOAD: if (a->u.buffer != b->u.buffer) return 0; break;
  case TSL_EXPR_BUFFER_DATA: return a->u.buffer == b->u.buffer;
  case TSL_EXPR_CALL:
  case TSL_EXPR_BUILTIN: if (a->intrin != b->intrin) return 0; break;
  case TSL_EXPR_STR_IMM:
  case TSL_EXPR_CALL_EXTERN: if (a->u.str_value != b->u.str_value) return 0; break;
  default: break;
  }
  for (uint32_t i = 0; i < a->n_args; i++)
    if (!same_expr(a->args[i], b->args[i]))
      return 0;
  return 1;
}

/* b - a as a constant, when it can be shown. */
static int const_diff(rctx *c, const tsl_expr *a, const tsl_expr *b, int64_t *d) {
  int64_t x, y;
  if (same_expr(a, b)) {
    *d = 0;
    return 1;
  }
  if (tsl_expr_is_const_int(a, &x) && tsl_expr_is_const_int(b, &y))
    return !__builtin_sub_overflow(y, x, d);
  if (b->kind == TSL_EXPR_ADD && same_expr(b->args[0], a) && tsl_expr_is_const_int(b->args[1], &y)) {
    *d = y;
    return 1;
  }
  if (a->kind == TSL_EXPR_ADD && same_expr(a->args[0], b) && tsl_expr_is_const_int(a->args[1], &x) &&
      x != INT64_MIN) {
    *d = -x;
    return 1;
  }
  if (b->kind == TSL_EXPR_SUB && same_expr(b->args[0], a) && tsl_expr_is_const_int(b->args[1], &y) &&
      y != INT64_MIN) {
    *d = -y;
    return 1;
  }
  if (a->kind == TSL_EXPR_SUB && same_expr(a->args[0], b) && tsl_expr_is_const_int(a->args[1], &x)) {
    *d = x;
    return 1;
  }
  if (!tsl_dtype_eq(a->dtype, b->dtype))
    return 0;
  const tsl_expr *s = simplify(c, tsl_expr_binary(c->arena, TSL_EXPR_SUB, b, a));
  return tsl_expr_is_const_int(s, d);
}

static tsl_range union_range(rctx *c, const tsl_buffer *buf, uint32_t dim, tsl_range r1,
                             tsl_range r2) {
  if (same_expr(r1.min, r2.min) && same_expr(r1.extent, r2.extent))
    return r1;
  int64_t d, e1, e2;
  if (tsl_expr_is_const_int(r1.extent, &e1) && tsl_expr_is_const_int(r2.extent, &e2) &&
      const_diff(c, r1.min, r2.min, &d)) {
    int64_t lo = d < 0 ? d : 0, end2, hi, ext;
    if (!__builtin_add_overflow(d, e2, &end2)) {
      hi = e1 > end2 ? e1 : end2;
      if (!__builtin_sub_overflow(hi, lo, &ext)) {
        tsl_range r;
        r.min = d < 0 ? r2.min : r1.min;
        r.extent = tsl_expr_int(c->arena, r1.extent->dtype, ext);
        return r;
      }
    }
  }
  return full_dim(c, buf, dim);
}

/* ---- recording accesses ---- */

enum { ACC_READ = 0, ACC_WRITE = 1, ACC_OPAQUE = 2 };

static void record(rctx *c, int write, const tsl_buffer *buf, tsl_range *ranges) {
  /* a view made by this block's match_buffer: map to its source */
  for (uint32_t i = 0; i < c->block->n_match_buffers; i++) {
    const tsl_match_buffer *m = &c->block->match_buffers[i];
    if (m->buffer != buf)
      continue;
    const tsl_buffer_region *src = &m->source;
    if (src->ndim < buf->ndim)
      break;
    uint32_t lead = src->ndim - buf->ndim;
    tsl_range *rs = tsl_arena_alloc(c->scratch, sizeof *rs * (src->ndim ? src->ndim : 1));
    for (uint32_t d = 0; d < src->ndim; d++) {
      if (d < lead) {
        rs[d] = src->ranges[d];
      } else {
        tsl_range r = ranges[d - lead];
        const tsl_expr *mn = r.min;
        if (!tsl_dtype_eq(mn->dtype, src->ranges[d].min->dtype))
          mn = tsl_expr_cast(c->arena, src->ranges[d].min->dtype, mn);
        rs[d].min = simplify(c, tsl_expr_binary(c->arena, TSL_EXPR_ADD, src->ranges[d].min, mn));
        rs[d].extent = r.extent;
      }
    }
    buf = src->buffer;
    ranges = rs;
    break;
  }
  if (is_excluded(c, buf))
    return;
  tsl_vec *list = write == ACC_OPAQUE ? &c->opaques : write ? &c->writes : &c->reads;
  for (uint32_t i = 0; i < list->len; i++) {
    racc *a = &TSL_VEC_AT(list, racc, i);
    if (a->buf != buf)
      continue;
    for (uint32_t d = 0; d < buf->ndim; d++)
      a->ranges[d] = union_range(c, buf, d, a->ranges[d], ranges[d]);
    return;
  }
  racc *a = tsl_vec_push(list);
  a->buf = buf;
  a->ranges = tsl_arena_alloc(c->scratch, sizeof *a->ranges * (buf->ndim ? buf->ndim : 1));
  memcpy(a->ranges, ranges, sizeof *a->ranges * buf->ndim);
}

static void access(rctx *c, int write, const tsl_buffer *buf, uint32_t n,
                   const tsl_expr *const *idx) {
  if (n != buf->ndim || is_excluded(c, buf))
    return;
  tsl_range *rs = tsl_arena_alloc(c->scratch, sizeof *rs * (n ? n : 1));
  for (uint32_t d = 0; d < n; d++) {
    const tsl_expr *e = subst_lets(c, idx[d]);
    tsl_range in;
    int64_t stride = 0;
    if (e->kind == TSL_EXPR_RAMP) {
      if (!tsl_expr_is_const_int(e->args[1], &stride) || stride < 0) {
        rs[d] = full_dim(c, buf, d);
        continue;
      }
      in.min = e->args[0];
      int64_t span;
      if (__builtin_mul_overflow((int64_t)(e->dtype.lanes - 1), stride, &span) ||
          span == INT64_MAX) {
        rs[d] = full_dim(c, buf, d);
        continue;
      }
      in.extent = tsl_expr_int(c->arena, e->args[0]->dtype, span + 1);
    } else if (e->dtype.lanes > 1) {
      rs[d] = full_dim(c, buf, d);
      continue;
    } else {
      in.min = e;
      in.extent = tsl_expr_int(c->arena, e->dtype, 1);
    }
    if (!relax_range(c, in, &rs[d]))
      rs[d] = full_dim(c, buf, d);
  }
  record(c, write, buf, rs);
}

/* ---- the walk ---- */

/* The whole of `buf`, as an access of kind `kind`. */
static void whole(rctx *c, int kind, const tsl_buffer *buf) {
  if (is_excluded(c, buf))
    return;
  tsl_range *rs = tsl_arena_alloc(c->scratch, sizeof *rs * (buf->ndim ? buf->ndim : 1));
  for (uint32_t d = 0; d < buf->ndim; d++)
    rs[d] = full_dim(c, buf, d);
  record(c, kind, buf, rs);
}

static void visit_expr(rctx *c, const tsl_expr *e) {
  if (!e)
    return;
  int64_t mask;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_LOAD:
    access(c, ACC_READ, e->u.buffer, e->n_args, e->args);
    break;
  case TSL_EXPR_BUFFER_DATA:
    whole(c, ACC_OPAQUE, e->u.buffer);
    return;
  case TSL_EXPR_BUILTIN:
    if (e->intrin == TSL_BUILTIN_TVM_ACCESS_PTR && e->n_args == 5 &&
        e->args[1]->kind == TSL_EXPR_BUFFER_DATA && tsl_expr_is_const_int(e->args[4], &mask)) {
      const tsl_buffer *b = e->args[1]->u.buffer;
      if ((mask & 3) == 3)
        whole(c, ACC_OPAQUE, b);
      else if (mask & 1)
        whole(c, ACC_READ, b);
      else if (mask & 2)
        whole(c, ACC_WRITE, b);
      return; /* as TVM: the other operands are not visited */
    }
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    visit_expr(c, e->args[i]);
}

static void nested_regions(rctx *c, const tsl_stmt *realize, int write) {
  const tsl_block *b = realize->u.realize.block;
  tsl_map binds; /* the nested block's iteration variables -> bindings */
  tsl_map_init(&binds, c->scratch);
  for (uint32_t i = 0; i < b->n_iter_vars && i < realize->u.realize.n_iter_values; i++)
    tsl_map_put(&binds, b->iter_vars[i].var, (void *)realize->u.realize.iter_values[i]);
  uint32_t n = write ? b->n_writes : b->n_reads;
  const tsl_buffer_region *regs = write ? b->writes : b->reads;
  for (uint32_t k = 0; k < n; k++) {
    const tsl_buffer_region *r = &regs[k];
    if (is_excluded(c, r->buffer) || r->ndim != r->buffer->ndim)
      continue;
    int own = 0;
    for (uint32_t a = 0; a < b->n_alloc_buffers; a++)
      own |= b->alloc_buffers[a] == r->buffer;
    if (own)
      continue;
    tsl_range *rs = tsl_arena_alloc(c->scratch, sizeof *rs * (r->ndim ? r->ndim : 1));
    for (uint32_t d = 0; d < r->ndim; d++) {
      tsl_range in;
      in.min = subst_lets(c, subst(c, &binds, r->ranges[d].min));
      in.extent = subst_lets(c, subst(c, &binds, r->ranges[d].extent));
      if (!relax_range(c, in, &rs[d]))
        rs[d] = full_dim(c, r->buffer, d);
    }
    record(c, write, r->buffer, rs);
  }
}

/* A statement's own expressions are visited before the scope it opens;
 * nested blocks contribute their declared regions and are not entered. */
static int visit_stmt(const tsl_stmt *s, void *ud) {
  rctx *c = ud;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    visit_expr(c, s->u.loop.min);
    visit_expr(c, s->u.loop.extent);
    TSL_VEC_PUSH(&c->loop_vars, const tsl_var *, s->u.loop.loop_var);
    TSL_VEC_PUSH(&c->loop_doms, tsl_range,
                 ((tsl_range){subst_lets(c, s->u.loop.min), subst_lets(c, s->u.loop.extent)}));
    return 0;
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < s->u.realize.n_iter_values; i++)
      visit_expr(c, s->u.realize.iter_values[i]);
    visit_expr(c, s->u.realize.predicate);
    uint32_t saved = c->excluded.len;
    tsl_vec_append(&c->excluded, b->alloc_buffers, b->n_alloc_buffers);
    nested_regions(c, s, 0);
    nested_regions(c, s, 1);
    c->excluded.len = saved;
    return TSL_VISIT_SKIP;
  }
  case TSL_STMT_STORE:
    access(c, 1, s->u.store.buffer, s->u.store.n_indices, s->u.store.indices);
    visit_expr(c, s->u.store.value);
    for (uint32_t i = 0; i < s->u.store.n_indices; i++)
      visit_expr(c, s->u.store.indices[i]);
    return TSL_VISIT_SKIP;
  case TSL_STMT_LET: {
    visit_expr(c, s->u.let.value);
    const tsl_expr *v = subst_lets(c, s->u.let.value);
    TSL_VEC_PUSH(&c->let_scopes, tsl_map_binding, tsl_map_bind(&c->lets, s->u.let.var, (void *)v));
    return 0;
  }
  case TSL_STMT_ALLOCATE:
    /* a buffer allocated inside is local: no region of the block */
    TSL_VEC_PUSH(&c->excluded, const tsl_buffer *, s->u.alloc.buffer);
    return 0;
  default:
    return 0;
  }
}

static int visit_post(const tsl_stmt *s, void *ud) {
  rctx *c = ud;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    c->loop_vars.len--;
    c->loop_doms.len--;
    break;
  case TSL_STMT_LET:
    tsl_map_unbind(&c->lets, &TSL_VEC_LAST(&c->let_scopes, tsl_map_binding));
    c->let_scopes.len--;
    break;
  case TSL_STMT_ALLOCATE:
    c->excluded.len--;
    break;
  default:
    break;
  }
  return 0;
}

/* IF conditions and evaluated values (the other statements' expressions
 * are visited by visit_stmt). */
static int visit_owned(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  if (owner->kind == TSL_STMT_IF || owner->kind == TSL_STMT_EVALUATE)
    visit_expr(ud, e);
  return 0;
}

static void put(rctx *c, tsl_buffer_region *r, const racc *a) {
  r->buffer = a->buf;
  r->ndim = a->buf->ndim;
  r->ranges = tsl_arena_dup(c->arena, a->ranges, sizeof *a->ranges * (a->buf->ndim ? a->buf->ndim : 1));
}

/* The accesses in `acc` except those of buffers in `skip` (and, always, of
 * opaquely accessed buffers), then the opaque accesses. */
static tsl_buffer_region *finish(rctx *c, const racc *acc, uint32_t n, uint32_t *out_n,
                                 const racc *skip, uint32_t nskip) {
  tsl_buffer_region *r = tsl_arena_alloc(c->arena, sizeof *r * (n + c->opaques.len ? n + c->opaques.len : 1));
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    int skipped = 0;
    for (uint32_t j = 0; j < nskip; j++)
      skipped |= skip[j].buf == acc[i].buf;
    for (uint32_t j = 0; j < c->opaques.len; j++)
      skipped |= TSL_VEC_AT(&c->opaques, racc, j).buf == acc[i].buf;
    if (skipped)
      continue;
    put(c, &r[k++], &acc[i]);
  }
  for (uint32_t j = 0; j < c->opaques.len; j++)
    put(c, &r[k++], &TSL_VEC_AT(&c->opaques, racc, j));
  *out_n = k;
  return k ? r : NULL;
}

int tsl_block_infer_regions(tsl_arena *arena, const tsl_block *block,
                            tsl_buffer_region **reads, uint32_t *n_reads,
                            tsl_buffer_region **writes, uint32_t *n_writes,
                            tsl_diag *diag) {
  *reads = *writes = NULL;
  *n_reads = *n_writes = 0;
  if (!arena || !block)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_block_infer_regions: NULL argument");
  rctx c;
  memset(&c, 0, sizeof c);
  c.arena = arena;
  c.scratch = tsl_arena_new(tsl_arena_ctx(arena));
  c.block = block;
  tsl_vec_init(&c.loop_vars, sizeof(const tsl_var *), c.scratch);
  tsl_vec_init(&c.loop_doms, sizeof(tsl_range), c.scratch);
  tsl_map_init(&c.lets, c.scratch);
  tsl_vec_init(&c.let_scopes, sizeof(tsl_map_binding), c.scratch);
  tsl_vec_init(&c.excluded, sizeof(const tsl_buffer *), c.scratch);
  tsl_vec_init(&c.reads, sizeof(racc), c.scratch);
  tsl_vec_init(&c.writes, sizeof(racc), c.scratch);
  tsl_vec_init(&c.opaques, sizeof(racc), c.scratch);
  tsl_vec_append(&c.excluded, block->alloc_buffers, block->n_alloc_buffers);
  tsl_stmt_visitor v = {.stmt = visit_stmt, .expr = visit_owned, .stmt_post = visit_post,
                        .user_data = &c};
  if (block->init)
    tsl_stmt_visit(block->init, &v);
  if (block->body)
    tsl_stmt_visit(block->body, &v);
  const racc *w = c.writes.data, *r = c.reads.data;
  *writes = finish(&c, w, c.writes.len, n_writes, NULL, 0);
  *reads = finish(&c, r, c.reads.len, n_reads, block->init ? w : NULL,
                  block->init ? c.writes.len : 0);
  if (c.an)
    tsl_analyzer_free(c.an);
  tsl_arena_free(c.scratch);
  return TSL_OK;
}
