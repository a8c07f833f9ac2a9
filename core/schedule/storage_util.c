/*
 * Helpers of the storage primitives: storage-scope validation (the scopes
 * TVM's StorageScope accepts), buffers moved to another scope, and a
 * tsl_mutator replacing buffers in the blocks it rewrites (loads, stores,
 * regions, match buffers, alloc buffers), optionally inserting a new stage
 * into a SEQ.
 */
#include "storage_util.h"

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
  size_t len = strlen(sch_name_join(name, sizeof name, b->name, "_", -1));
  sch_name_join(name + len, sizeof name - len, scope, NULL, -1);
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

/* Index `e` of dimension `d` of the primary buffer, shifted by the offset. */
static const tsl_expr *shift(sto_rw *rw, uint32_t d, const tsl_expr *e) {
  int64_t v;
  if (tsl_expr_is_const_int(rw->offset[d], &v) && v == 0)
    return e;
  const tsl_expr *off = rw->offset[d];
  if (off->dtype.bits != e->dtype.bits)
    off = tsl_expr_cast(rw->c->arena, e->dtype, off);
  return sch_simplify(rw->c, tsl_expr_binary(rw->c->arena, TSL_EXPR_SUB, e, off));
}

static const tsl_expr **shift_all(sto_rw *rw, uint32_t n, const tsl_expr *const *idx) {
  const tsl_expr **out = TSL_NEW_ARRAY(rw->c->arena, const tsl_expr *, n + 1);
  for (uint32_t d = 0; d < n; d++)
    out[d] = shift(rw, d, idx[d]);
  return out;
}

static tsl_buffer_region shift_region(sto_rw *rw, tsl_buffer_region r) {
  tsl_range *rs = TSL_NEW_ARRAY(rw->c->arena, tsl_range, r.ndim + 1);
  for (uint32_t d = 0; d < r.ndim; d++)
    rs[d] = (tsl_range){shift(rw, d, r.ranges[d].min), r.ranges[d].extent};
  r.ranges = rs;
  return r;
}

static const tsl_buffer *rw_buffer(tsl_mutator *m, const tsl_buffer *b) {
  sto_rw *rw = (sto_rw *)m;
  return rw->active ? tsl_map_get(&rw->bufs, b) : NULL;
}

static const tsl_expr *rw_expr(tsl_mutator *m, const tsl_expr *e) {
  sto_rw *rw = (sto_rw *)m;
  if (!rw->active)
    return e;
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (e->kind != TSL_EXPR_LOAD || e->u.buffer != rw->from || !rw->offset)
    return r;
  return tsl_expr_with_args(m->arena, r, r->n_args, shift_all(rw, r->n_args, r->args));
}

/* set_scope: a match buffer whose source region changes moves to the
 * scope too (and its uses follow). */
static void rescope(sto_rw *rw, const tsl_block *b) {
  for (uint32_t i = 0; rw->rescope_matches && i < b->n_match_buffers; i++) {
    const tsl_match_buffer *mb = &b->match_buffers[i];
    tsl_buffer_region r = tsl_mutate_region(&rw->m, &mb->source);
    if (r.buffer != mb->source.buffer || r.ranges != mb->source.ranges)
      tsl_map_put(&rw->bufs, mb->buffer,
                  (void *)sto_buffer_with_scope(rw->c, mb->buffer, rw->rescope_matches, NULL));
  }
}

/* Regions of `nb` (the rewritten `b`) that were of the primary buffer,
 * their minimums shifted. */
static const tsl_buffer_region *shift_regions(sto_rw *rw, uint32_t n,
                                              const tsl_buffer_region *old,
                                              const tsl_buffer_region *cur) {
  tsl_buffer_region *out = NULL;
  for (uint32_t i = 0; i < n; i++) {
    if (old[i].buffer != rw->from)
      continue;
    if (!out)
      out = tsl_arena_dup(rw->c->arena, cur, sizeof *cur * n);
    out[i] = shift_region(rw, cur[i]);
  }
  return out ? out : cur;
}

static const tsl_block *shifted(sto_rw *rw, const tsl_block *b, const tsl_block *nb) {
  if (!rw->offset || nb == b)
    return nb;
  const tsl_buffer_region *rd = shift_regions(rw, b->n_reads, b->reads, nb->reads);
  const tsl_buffer_region *wr = shift_regions(rw, b->n_writes, b->writes, nb->writes);
  tsl_match_buffer *mbs = NULL;
  for (uint32_t i = 0; i < b->n_match_buffers; i++) {
    if (b->match_buffers[i].source.buffer != rw->from)
      continue;
    if (!mbs)
      mbs = tsl_arena_dup(rw->c->arena, nb->match_buffers, sizeof *mbs * nb->n_match_buffers);
    mbs[i].source = shift_region(rw, mbs[i].source);
  }
  if (rd == nb->reads && wr == nb->writes && !mbs)
    return nb;
  tsl_block *cb = tsl_block_clone(rw->c->arena, nb);
  cb->reads = rd;
  cb->writes = wr;
  if (mbs)
    cb->match_buffers = mbs;
  return cb;
}

const tsl_block *sto_rw_block(sto_rw *rw, const tsl_block *b) {
  int was = rw->active;
  rw->active = 1;
  rescope(rw, b);
  const tsl_block *nb = shifted(rw, b, tsl_mutate_block_children(&rw->m, b));
  rw->active = was;
  return nb;
}

static const tsl_stmt *rw_realize(sto_rw *rw, const tsl_stmt *s) {
  tsl_arena *a = rw->c->arena;
  const tsl_block *b = s->u.realize.block, *nb;
  if (rw->active) { /* a nested block: its bindings are rewritten too */
    rescope(rw, b);
    const tsl_stmt *r = tsl_mutate_stmt_children(&rw->m, s);
    nb = shifted(rw, b, r->u.realize.block);
    return nb == r->u.realize.block ? r : sch_with_block(a, r, nb);
  }
  int mode = rw->block_mode ? rw->block_mode(b, rw->ud) : STO_REWRITE;
  if (mode == STO_SKIP)
    return s;
  if (mode == STO_REWRITE) {
    nb = sto_rw_block(rw, b);
  } else {
    const tsl_stmt *init = b->init ? tsl_mutate_stmt(&rw->m, b->init) : NULL;
    const tsl_stmt *body = tsl_mutate_stmt(&rw->m, b->body);
    tsl_block *cb = init == b->init && body == b->body ? NULL : tsl_block_clone(a, b);
    if (cb) {
      cb->init = init;
      cb->body = body;
    }
    nb = cb ? cb : b;
  }
  return nb == b ? s : sch_with_block(a, s, nb);
}

static const tsl_stmt *rw_stmt(tsl_mutator *m, const tsl_stmt *s) {
  sto_rw *rw = (sto_rw *)m;
  if (s->kind == TSL_STMT_BLOCK_REALIZE)
    return rw_realize(rw, s);
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (rw->active && rw->offset && s->kind == TSL_STMT_STORE && s->u.store.buffer == rw->from)
    r = tsl_stmt_store(m->arena, r->u.store.buffer, r->u.store.value, r->u.store.n_indices,
                       shift_all(rw, r->u.store.n_indices, r->u.store.indices));
  return sto_place_in(m->arena, &rw->place, s, r);
}

void sto_rw_init(sto_rw *rw, sch_call *c, const tsl_buffer *from,
                 const tsl_buffer *to) {
  memset(rw, 0, sizeof *rw);
  rw->m = tsl_mutator_make(c->arena);
  rw->m.stmt = rw_stmt;
  rw->m.expr = rw_expr;
  rw->m.buffer = rw_buffer;
  rw->c = c;
  tsl_map_init(&rw->bufs, c->arena);
  tsl_map_put(&rw->bufs, from, (void *)to);
  rw->from = from;
}

const tsl_stmt *sto_rw_stmt(sto_rw *rw, const tsl_stmt *s) {
  rw->active = 0;
  return tsl_mutate_stmt(&rw->m, s);
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
