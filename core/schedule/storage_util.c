/*
 * Helpers of the storage primitives: storage-scope validation (the scopes
 * TVM's StorageScope accepts), buffers moved to another scope, and a
 * rewriter replacing buffers in loads, stores, regions, match buffers and
 * alloc buffers, optionally inserting a new stage into a SEQ.
 */
#include "storage_util.h"

#include <stdio.h>
#include <string.h>

/* ---- scopes ---------------------------------------------------------------- */

static const char *const scope_ranks[] = {
    "global",          "shared",          "warp",
    "local",           "wmma.matrix_a",   "wmma.matrix_b",
    "wmma.accumulator", "texture",        "m16n8k8.matrixA",
    "m16n8k8.matrixB", "m16n8k8.matrixC", "metal.simdgroup",
};

int sto_scope_valid(const char *scope) {
  for (size_t i = 0; i < sizeof scope_ranks / sizeof scope_ranks[0]; i++) {
    size_t n = strlen(scope_ranks[i]);
    if (strncmp(scope, scope_ranks[i], n) == 0 &&
        (scope[n] == 0 || (scope[n] == '.' && scope[n + 1] != 0)))
      return 1;
  }
  return 0;
}

const char *sto_scope_list(void) {
  return "global, shared, shared.dyn, local, warp, wmma.matrix_a, "
         "wmma.matrix_b, wmma.accumulator, texture, m16n8k8.matrixA/B/C, "
         "metal.simdgroup, each optionally with a '.tag' suffix";
}

const tsl_buffer *sto_buffer_with_scope(sch_call *c, const tsl_buffer *b,
                                        const char *scope,
                                        const tsl_expr *const *shape) {
  char name[512];
  snprintf(name, sizeof name, "%s_%s", b->name, scope);
  const tsl_buffer *r =
      shape ? tsl_buffer_new(c->arena, name, b->dtype, b->ndim, shape, NULL, NULL,
                             scope, b->align, b->offset_factor)
            : tsl_buffer_new(c->arena, name, b->dtype, b->ndim, b->shape, b->strides,
                             b->elem_offset, scope, b->align, b->offset_factor);
  /* the axis separators stay, as TVM's WithScope keeps them */
  return b->n_axis_separators ? tsl_buffer_with_axis_separators(
                                    c->arena, r, b->n_axis_separators, b->axis_separators)
                              : r;
}

int sto_check_index(sch_call *c, const tsl_block *b, int64_t index,
                    int is_write, const char *param) {
  uint32_t n = is_write ? b->n_writes : b->n_reads;
  if (index >= 0 && index < (int64_t)n)
    return TSL_OK;
  if (n == 0)
    return sch_fail(c, TSL_EINVALID,
                    "%s %lld is out of range: block '%s' %s no buffer", param,
                    (long long)index, b->name,
                    is_write ? "writes" : "reads");
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  const tsl_buffer_region *r = is_write ? b->writes : b->reads;
  for (uint32_t i = 0; i < n; i++)
    tsl_strbuf_printf(&sb, "%s%u: '%s'", i ? ", " : "", i, r[i].buffer->name);
  sch_fail(c, TSL_EINVALID,
           "%s %lld is out of range: block '%s' %s %u buffer%s (%s), valid "
           "indices are 0..%u",
           param, (long long)index, b->name, is_write ? "writes" : "reads", n,
           n == 1 ? "" : "s", sb.data, n - 1);
  tsl_strbuf_free(&sb);
  return TSL_EINVALID;
}

int sto_alloc_site(const sch_path *p, const tsl_buffer *b) {
  for (uint32_t k = p->depth; k-- > 0;) {
    const tsl_stmt *s = p->stmts[k];
    if (s->kind != TSL_STMT_BLOCK_REALIZE)
      continue;
    const tsl_block *blk = s->u.realize.block;
    for (uint32_t i = 0; i < blk->n_alloc_buffers; i++)
      if (blk->alloc_buffers[i] == b)
        return (int)k;
  }
  return -1;
}

int sto_is_param(const tsl_func *f, const tsl_buffer *b) {
  for (uint32_t i = 0; i < f->n_params; i++)
    if (f->params[i].buffer == b)
      return 1;
  return 0;
}

/* ---- the rewriter ------------------------------------------------------------ */

void sto_rw_init(sto_rw *rw, sch_call *c, const tsl_buffer *from,
                 const tsl_buffer *to) {
  memset(rw, 0, sizeof *rw);
  rw->c = c;
  rw->cap = 8;
  rw->from = TSL_NEW_ARRAY(c->arena, const tsl_buffer *, rw->cap);
  rw->to = TSL_NEW_ARRAY(c->arena, const tsl_buffer *, rw->cap);
  rw->from[0] = from;
  rw->to[0] = to;
  rw->n = 1;
}

static void add_pair(sto_rw *rw, const tsl_buffer *from, const tsl_buffer *to) {
  if (rw->n == rw->cap) {
    uint32_t nc = rw->cap * 2;
    const tsl_buffer **f = TSL_NEW_ARRAY(rw->c->arena, const tsl_buffer *, nc);
    const tsl_buffer **t = TSL_NEW_ARRAY(rw->c->arena, const tsl_buffer *, nc);
    memcpy(f, rw->from, sizeof *f * rw->n);
    memcpy(t, rw->to, sizeof *t * rw->n);
    rw->from = f;
    rw->to = t;
    rw->cap = nc;
  }
  rw->from[rw->n] = from;
  rw->to[rw->n] = to;
  rw->n++;
}

static int lookup(const sto_rw *rw, const tsl_buffer *b) {
  for (uint32_t i = 0; i < rw->n; i++)
    if (rw->from[i] == b)
      return (int)i;
  return -1;
}

/* Index `e` of dimension `d` of mapped buffer number `k`, shifted. */
static const tsl_expr *shift(sto_rw *rw, int k, uint32_t d, const tsl_expr *e) {
  int64_t v;
  if (k != 0 || !rw->offset ||
      (tsl_expr_is_const_int(rw->offset[d], &v) && v == 0))
    return e;
  const tsl_expr *off = rw->offset[d];
  if (off->dtype.bits != e->dtype.bits)
    off = tsl_expr_cast(rw->c->arena, e->dtype, off);
  return sch_simplify(rw->c, tsl_expr_binary(rw->c->arena, TSL_EXPR_SUB, e, off));
}

static const tsl_expr *rw_expr(sto_rw *rw, const tsl_expr *e) {
  if (e->kind == TSL_EXPR_BUFFER_DATA) { /* an opaque use: the new storage */
    int k = lookup(rw, e->u.buffer);
    return k >= 0 ? tsl_expr_buffer_data(rw->c->arena, rw->to[k]) : e;
  }
  if (e->n_args == 0 && e->kind != TSL_EXPR_LOAD)
    return e;
  const tsl_expr **args = TSL_NEW_ARRAY(rw->c->arena, const tsl_expr *, e->n_args);
  int changed = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    args[i] = rw_expr(rw, e->args[i]);
    changed |= args[i] != e->args[i];
  }
  if (e->kind == TSL_EXPR_LOAD) {
    int k = lookup(rw, e->u.buffer);
    if (k >= 0) {
      for (uint32_t i = 0; i < e->n_args; i++)
        args[i] = shift(rw, k, i, args[i]);
      return tsl_expr_load(rw->c->arena, rw->to[k], e->n_args, args);
    }
  }
  return changed ? tsl_expr_with_args(rw->c->arena, e, e->n_args, args) : e;
}

static tsl_buffer_region rw_region(sto_rw *rw, const tsl_buffer_region *r,
                                   int *changed) {
  /* bounds may load a replaced buffer too (A[B[i], j]) */
  int k = lookup(rw, r->buffer), ch = k >= 0;
  tsl_buffer_region out = *r;
  tsl_range *rs = TSL_NEW_ARRAY(rw->c->arena, tsl_range, r->ndim + 1);
  for (uint32_t d = 0; d < r->ndim; d++) {
    rs[d].min = rw_expr(rw, r->ranges[d].min);
    rs[d].extent = rw_expr(rw, r->ranges[d].extent);
    ch |= rs[d].min != r->ranges[d].min || rs[d].extent != r->ranges[d].extent;
    if (k >= 0)
      rs[d].min = shift(rw, k, d, rs[d].min);
  }
  if (!ch)
    return *r;
  if (k >= 0)
    out.buffer = rw->to[k];
  out.ranges = rs;
  *changed = 1;
  return out;
}

static const tsl_buffer_region *rw_regions(sto_rw *rw, uint32_t n,
                                           const tsl_buffer_region *rs,
                                           int *changed) {
  int ch = 0;
  tsl_buffer_region *out = TSL_NEW_ARRAY(rw->c->arena, tsl_buffer_region, n);
  for (uint32_t i = 0; i < n; i++)
    out[i] = rw_region(rw, &rs[i], &ch);
  *changed |= ch;
  return ch ? out : rs;
}

static const tsl_expr *const *rw_exprs(sto_rw *rw, uint32_t n,
                                       const tsl_expr *const *xs,
                                       int *changed) {
  int ch = 0;
  const tsl_expr **out = TSL_NEW_ARRAY(rw->c->arena, const tsl_expr *, n);
  for (uint32_t i = 0; i < n; i++) {
    out[i] = rw_expr(rw, xs[i]);
    ch |= out[i] != xs[i];
  }
  *changed |= ch;
  return ch ? out : xs;
}

const tsl_block *sto_rw_block(sto_rw *rw, const tsl_block *b) {
  int changed = 0;
  tsl_block *nb = tsl_block_clone(rw->c->arena, b);
  if (b->n_alloc_buffers) {
    const tsl_buffer **al =
        TSL_NEW_ARRAY(rw->c->arena, const tsl_buffer *, b->n_alloc_buffers);
    for (uint32_t i = 0; i < b->n_alloc_buffers; i++) {
      int k = lookup(rw, b->alloc_buffers[i]);
      al[i] = k >= 0 ? rw->to[k] : b->alloc_buffers[i];
      changed |= k >= 0;
    }
    nb->alloc_buffers = al;
  }
  if (b->n_match_buffers) {
    tsl_match_buffer *mb =
        TSL_NEW_ARRAY(rw->c->arena, tsl_match_buffer, b->n_match_buffers);
    for (uint32_t i = 0; i < b->n_match_buffers; i++) {
      int ch = 0;
      mb[i] = b->match_buffers[i];
      mb[i].source = rw_region(rw, &b->match_buffers[i].source, &ch);
      if (ch && rw->rescope_matches) {
        mb[i].buffer = sto_buffer_with_scope(rw->c, mb[i].buffer,
                                             rw->rescope_matches, NULL);
        add_pair(rw, b->match_buffers[i].buffer, mb[i].buffer);
      }
      changed |= ch;
    }
    nb->match_buffers = mb;
  }
  nb->reads = rw_regions(rw, b->n_reads, b->reads, &changed);
  nb->writes = rw_regions(rw, b->n_writes, b->writes, &changed);
  nb->init = b->init ? sto_rw_stmt(rw, b->init, 1) : NULL;
  nb->body = sto_rw_stmt(rw, b->body, 1);
  changed |= nb->init != b->init || nb->body != b->body;
  return changed ? nb : b;
}

const tsl_stmt *sto_insert(tsl_arena *a, const tsl_stmt *body, uint32_t pos,
                           const tsl_stmt *stage) {
  if (body->kind == TSL_STMT_SEQ) {
    uint32_t n = body->u.seq.n;
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, n + 1);
    if (pos > n)
      pos = n;
    for (uint32_t i = 0, k = 0; i <= n; i++)
      xs[i] = i == pos ? stage : body->u.seq.stmts[k++];
    return tsl_stmt_seq(a, n + 1, xs);
  }
  const tsl_stmt *xs[2] = {pos == 0 ? stage : body, pos == 0 ? body : stage};
  return tsl_stmt_seq(a, 2, xs);
}

const tsl_stmt *sto_rw_stmt(sto_rw *rw, const tsl_stmt *s, int active) {
  tsl_arena *a = rw->c->arena;
  int ch = 0;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: {
    const tsl_expr *mn = active ? rw_expr(rw, s->u.loop.min) : s->u.loop.min;
    const tsl_expr *ext =
        active ? rw_expr(rw, s->u.loop.extent) : s->u.loop.extent;
    const tsl_stmt *body = sto_rw_stmt(rw, s->u.loop.body, active);
    if (mn == s->u.loop.min && ext == s->u.loop.extent && body == s->u.loop.body)
      return s;
    return tsl_stmt_for(a, s->u.loop.loop_var, mn, ext,
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, body);
  }
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    int mode = active ? STO_REWRITE : rw->block_mode(b, rw->ud);
    const tsl_block *nb = b;
    if (mode == STO_REWRITE) {
      nb = sto_rw_block(rw, b);
    } else if (mode == STO_RECURSE) {
      const tsl_stmt *init = b->init ? sto_rw_stmt(rw, b->init, 0) : NULL;
      const tsl_stmt *body = sto_rw_stmt(rw, b->body, 0);
      if (init != b->init || body != b->body) {
        tsl_block *cb = tsl_block_clone(a, b);
        cb->init = init;
        cb->body = body;
        nb = cb;
      }
    }
    const tsl_expr *const *vals = s->u.realize.iter_values;
    const tsl_expr *pred = s->u.realize.predicate;
    if (active) {
      vals = rw_exprs(rw, s->u.realize.n_iter_values, vals, &ch);
      pred = rw_expr(rw, pred);
    }
    if (nb == b && !ch && pred == s->u.realize.predicate)
      return s;
    return tsl_stmt_block_realize(a, s->u.realize.n_iter_values, vals, pred, nb);
  }
  case TSL_STMT_STORE: {
    if (!active)
      return s;
    const tsl_expr *val = rw_expr(rw, s->u.store.value);
    const tsl_expr *const *idx =
        rw_exprs(rw, s->u.store.n_indices, s->u.store.indices, &ch);
    int k = lookup(rw, s->u.store.buffer);
    if (k >= 0) {
      const tsl_expr **ni =
          TSL_NEW_ARRAY(a, const tsl_expr *, s->u.store.n_indices);
      for (uint32_t i = 0; i < s->u.store.n_indices; i++)
        ni[i] = shift(rw, k, i, idx[i]);
      return tsl_stmt_store(a, rw->to[k], val, s->u.store.n_indices, ni);
    }
    if (!ch && val == s->u.store.value)
      return s;
    return tsl_stmt_store(a, s->u.store.buffer, val, s->u.store.n_indices, idx);
  }
  case TSL_STMT_IF: {
    const tsl_expr *cond =
        active ? rw_expr(rw, s->u.branch.cond) : s->u.branch.cond;
    const tsl_stmt *t = sto_rw_stmt(rw, s->u.branch.then_case, active);
    const tsl_stmt *e = s->u.branch.else_case
                            ? sto_rw_stmt(rw, s->u.branch.else_case, active)
                            : NULL;
    if (cond == s->u.branch.cond && t == s->u.branch.then_case &&
        e == s->u.branch.else_case)
      return s;
    return tsl_stmt_if(a, cond, t, e);
  }
  case TSL_STMT_LET: {
    const tsl_expr *val = active ? rw_expr(rw, s->u.let.value) : s->u.let.value;
    const tsl_stmt *body = sto_rw_stmt(rw, s->u.let.body, active);
    if (val == s->u.let.value && body == s->u.let.body)
      return s;
    return tsl_stmt_let(a, s->u.let.var, val, body);
  }
  case TSL_STMT_EVALUATE: {
    if (!active)
      return s;
    const tsl_expr *val = rw_expr(rw, s->u.evaluate.value);
    return val == s->u.evaluate.value ? s : tsl_stmt_evaluate(a, val);
  }
  case TSL_STMT_SEQ: {
    uint32_t n = s->u.seq.n;
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, n);
    for (uint32_t i = 0; i < n; i++) {
      xs[i] = sto_rw_stmt(rw, s->u.seq.stmts[i], active);
      ch |= xs[i] != s->u.seq.stmts[i];
    }
    const tsl_stmt *out = ch ? tsl_stmt_seq(a, n, xs) : s;
    if (s == rw->loc_seq && rw->stage && !rw->inserted) {
      rw->inserted = 1;
      out = sto_insert(a, out, rw->loc_pos, rw->stage);
    }
    return out;
  }
  case TSL_STMT_ALLOCATE: /* lowered programs: see core/lower */
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return s;
}

/* ---- stage placement --------------------------------------------------------- */

const tsl_stmt *sto_place_in(tsl_arena *a, sto_place *pl, const tsl_stmt *s,
                             const tsl_stmt *r) {
  if (!pl->seq || s != pl->seq || pl->done || !r)
    return r;
  pl->done = 1;
  return sto_insert(a, r, pl->pos, pl->stage);
}

const tsl_stmt *sto_place_finish(tsl_arena *a, sto_place *pl,
                                 const tsl_stmt *body) {
  if (pl->seq)
    return pl->done ? body : NULL;
  pl->done = 1;
  return sto_insert(a, body, pl->pos, pl->stage);
}

static int storage_rank(const char *scope) {
  if (!strncmp(scope, "global", 6))
    return 0;
  if (!strncmp(scope, "shared", 6))
    return 1;
  if (!strncmp(scope, "warp", 4))
    return 2;
  return 3; /* local, wmma.*, m16n8k8.*, texture, metal.simdgroup */
}

int sto_relax_under_thread(const char *scope, const char *thread_tag) {
  if (!thread_tag)
    return 0;
  int rank = storage_rank(scope);
  if (rank == 0)
    return 0;
  int trank = !strncmp(thread_tag, "blockIdx.", 9)    ? 0
              : !strncmp(thread_tag, "threadIdx.", 10) ? 1
              : !strncmp(thread_tag, "vthread", 7)     ? 1
                                                       : -1;
  if (trank < 0)
    return 0;
  if (rank == 2)
    return !strcmp(thread_tag, "threadIdx.x");
  return rank <= trank;
}
