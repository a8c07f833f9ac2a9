/*
 * Group 2 of the per-store features (TVM's group2::Feature): for each
 * buffer one store reads or writes, the region its loops touch, strides,
 * reuse and the bytes and cache lines that follow.
 */
#include "feature_internal.h"

#include <stdlib.h>
#include <string.h>

enum { ACC_READ, ACC_WRITE, ACC_READ_WRITE };
enum { REUSE_LOOP, REUSE_SERIAL, REUSE_NONE };

typedef struct access {
  const tsl_buffer *buf;
  int type;
  tsl_vec indices;        /* const tsl_expr *const *: one index tuple per access */
  int64_t *loop_numel;    /* elements touched under loop i */
  int64_t *access_shape;  /* under the outermost loop */
  int64_t num_continuous_bytes, min_stride, innermost_stride, prod_non_strided;
  int reuse_type;
  double reuse_dis_iter, reuse_dis_bytes;
  int64_t reuse_ct;
  double bytes, unique_bytes, lines, unique_lines, stride;
} access;

typedef struct accesses {
  tsl_arena *a;
  uint32_t n_loops;
  tsl_vec list; /* access */
} accesses;

static access *find_or_add(accesses *s, const tsl_buffer *b, int type) {
  access *xs = TSL_VEC_DATA(&s->list, access);
  for (uint32_t i = 0; i < s->list.len; i++)
    if (xs[i].buf == b)
      return &xs[i];
  access *x = tsl_vec_push(&s->list);
  memset(x, 0, sizeof *x);
  x->buf = b;
  x->type = type;
  tsl_vec_init(&x->indices, sizeof(const tsl_expr *const *), s->a);
  x->loop_numel = TSL_NEW_ARRAY(s->a, int64_t, s->n_loops + 1);
  x->access_shape = TSL_NEW_ARRAY(s->a, int64_t, b->ndim + 1);
  return x;
}

/* TVM's Init: the store's index is the write; a load of the written buffer
 * makes it read-write (its index not kept), other loads are reads. */
static int collect_load(const tsl_expr *e, void *ud) {
  if (e->kind != TSL_EXPR_LOAD)
    return 0;
  accesses *s = ud;
  access *xs = TSL_VEC_DATA(&s->list, access);
  access *x = NULL;
  for (uint32_t i = 0; i < s->list.len && !x; i++)
    if (xs[i].buf == e->u.buffer)
      x = &xs[i];
  if (!x)
    x = find_or_add(s, e->u.buffer, ACC_READ);
  else if (x->type == ACC_WRITE)
    x->type = ACC_READ_WRITE;
  if (x->type != ACC_READ_WRITE && e->n_args == e->u.buffer->ndim)
    TSL_VEC_PUSH(&x->indices, const tsl_expr *const *, e->args);
  return 0;
}

int64_t fs_dim(tsl_analyzer *an, const tsl_expr *dim) {
  int64_t v, lo, hi;
  if (tsl_expr_is_const_int(dim, &v))
    return v;
  tsl_analyzer_const_bound(an, dim, &lo, &hi);
  return hi >= 0 && hi < INT64_MAX ? hi : 1;
}

/* TVM's RelaxAndUnion under the analyzer's current bindings. */
static int64_t relax_union(tsl_analyzer *an, const access *x, int64_t *shape) {
  int64_t numel = 1;
  const tsl_expr *const *const *idx = TSL_VEC_DATA(&x->indices, const tsl_expr *const *);
  if (!x->indices.len)
    return 1;
  for (uint32_t d = 0; d < x->buf->ndim; d++) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t j = 0; j < x->indices.len; j++) {
      int64_t l, h;
      if (!tsl_analyzer_const_bound(an, idx[j][d], &l, &h)) { /* unbounded: the dimension */
        l = 0;
        h = fs_dim(an, x->buf->shape[d]) - 1;
      }
      lo = l < lo ? l : lo;
      hi = h > hi ? h : hi;
    }
    shape[d] = hi - lo + 1;
    numel *= shape[d];
  }
  return numel;
}

/* TVM's CoefficientExtractor: the coefficient of `var` in one index, as
 * its visitor reads it (2 marks "seen alone", turned into 1). */
typedef struct coef {
  const tsl_var *var;
  int64_t stride;
  int seen, add, mul;
} coef;

static void coef_visit(coef *c, const tsl_expr *e) {
  if (e->kind == TSL_EXPR_VAR) {
    if (e->u.var == c->var) {
      c->seen = 1;
      c->stride = 2;
    }
    return;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    coef_visit(c, e->args[i]);
  int64_t k;
  if (e->kind == TSL_EXPR_MUL && c->seen && !c->add) {
    if (tsl_expr_is_const_int(e->args[0], &k) || tsl_expr_is_const_int(e->args[1], &k)) {
      c->mul = 1;
      c->stride = k;
    }
  } else if (e->kind == TSL_EXPR_ADD && c->seen && !c->mul) {
    c->add = 1;
    c->stride = 1;
  }
}

static int64_t coefficient(const tsl_expr *e, const tsl_var *v) {
  coef c = {v, 0, 0, 0, 0};
  coef_visit(&c, e);
  return c.seen && !c.mul && !c.add ? 1 : c.seen ? c.stride : 0;
}

/* TVM's GetVarStride: the smallest stride `v` takes through any access. */
static int64_t var_stride(const access *x, const int64_t *buf_stride, const tsl_var *v) {
  int64_t best = INT64_MAX;
  const tsl_expr *const *const *idx = TSL_VEC_DATA(&x->indices, const tsl_expr *const *);
  for (uint32_t j = 0; j < x->indices.len; j++)
    for (uint32_t d = x->buf->ndim; d-- > 0;) {
      int64_t k = coefficient(idx[j][d], v);
      if (k) {
        int64_t s = (k < 0 ? -k : k) * buf_stride[d];
        best = s < best ? s : best;
        break;
      }
    }
  return best == INT64_MAX ? 0 : best;
}

static void set_stride(tsl_analyzer *an, access *x, const fs_nest *nest) {
  uint32_t nd = x->buf->ndim, n = nest->loops.len;
  const tsl_stmt *const *loops = TSL_VEC_DATA(&nest->loops, const tsl_stmt *);
  int64_t shape[64], stride[64];
  for (uint32_t d = 0; d < nd && d < 64; d++)
    shape[d] = fs_dim(an, x->buf->shape[d]);
  if (nd && nd <= 64) {
    stride[nd - 1] = 1;
    for (uint32_t d = nd - 1; d-- > 0;)
      stride[d] = stride[d + 1] * shape[d + 1];
  }
  x->num_continuous_bytes = 1;
  for (uint32_t d = nd; d-- > 0 && d < 64;)
    if (x->access_shape[d] == shape[d]) {
      x->num_continuous_bytes = shape[d] * fs_elem_bytes(x->buf);
      break;
    }
  int64_t i = (int64_t)n - 1, s = 0;
  for (; i >= 0 && nd <= 64; i--) {
    s = var_stride(x, stride, loops[i]->u.loop.loop_var);
    if (s)
      break;
  }
  x->min_stride = s;
  x->innermost_stride = i == (int64_t)n - 1 ? s : 0;
  x->prod_non_strided = 1;
  for (int64_t j = (int64_t)n - 1; j > i; j--) {
    int64_t e;
    if (fs_extent(loops[j], &e))
      x->prod_non_strided *= e;
  }
}

static int uses_var(const tsl_expr *e, void *ud) {
  return e->kind == TSL_EXPR_VAR && e->u.var == ud;
}

static int index_uses(const access *x, const tsl_var *v) {
  const tsl_expr *const *const *idx = TSL_VEC_DATA(&x->indices, const tsl_expr *const *);
  for (uint32_t j = 0; j < x->indices.len; j++)
    for (uint32_t d = 0; d < x->buf->ndim; d++)
      if (tsl_expr_visit(idx[j][d], uses_var, (void *)v))
        return 1;
  return 0;
}

/* Bytes touched under `loop` by every buffer recorded there. */
static double bytes_under(fs_touched *t, const tsl_stmt *loop) {
  tsl_map *bufs = tsl_map_get(&t->loops, loop);
  double total = 0;
  const void *k;
  void *v;
  for (uint32_t pos = 0; bufs && tsl_map_next(bufs, &pos, &k, &v);) {
    const tsl_vec *numels = v;
    int64_t sum = 0;
    for (uint32_t i = 0; i < numels->len; i++)
      sum += TSL_VEC_DATA(numels, int64_t)[i];
    total += (double)sum * (double)fs_elem_bytes(k);
  }
  return total;
}

static tsl_vec *touched_list(fs_touched *t, const tsl_stmt *loop, const tsl_buffer *b) {
  tsl_map *bufs = tsl_map_get(&t->loops, loop);
  if (!bufs) {
    bufs = TSL_NEW(t->arena, tsl_map);
    tsl_map_init(bufs, t->arena);
    tsl_map_put(&t->loops, loop, bufs);
  }
  tsl_vec *v = tsl_map_get(bufs, b);
  if (!v) {
    v = TSL_NEW(t->arena, tsl_vec);
    tsl_vec_init(v, sizeof(int64_t), t->arena);
    tsl_map_put(bufs, b, v);
  }
  return v;
}

static void set_reuse(access *x, const fs_nest *nest, double top_bytes, fs_touched *t) {
  uint32_t n = nest->loops.len;
  const tsl_stmt *const *loops = TSL_VEC_DATA(&nest->loops, const tsl_stmt *);
  x->reuse_type = REUSE_NONE;
  x->reuse_dis_iter = x->reuse_dis_bytes = 0;
  x->reuse_ct = 0;
  for (uint32_t i = n; i-- > 0;) {
    const tsl_stmt *loop = loops[i];
    int64_t e;
    if (!index_uses(x, loop->u.loop.loop_var)) { /* invariant: reused on each iteration */
      x->reuse_type = REUSE_LOOP;
      x->reuse_ct = fs_extent(loop, &e) ? e : 1;
      x->reuse_dis_iter = 1;
      for (uint32_t j = n - 1; j > i; j--)
        if (fs_extent(loops[j], &e))
          x->reuse_dis_iter *= (double)e;
      x->reuse_dis_bytes = i == n - 1 ? top_bytes : bytes_under(t, loops[i + 1]);
      return;
    }
    const tsl_vec *mine = touched_list(t, loop, x->buf);
    if (mine->len >= 2) { /* touched by several stores under this loop */
      int64_t extent = fs_extent(loop, &e) ? e : 1;
      const int64_t *v = TSL_VEC_DATA(mine, int64_t);
      int64_t lo = v[0];
      for (uint32_t k = 1; k < mine->len; k++)
        lo = v[k] < lo ? v[k] : lo;
      x->reuse_type = REUSE_SERIAL;
      x->reuse_ct = (int64_t)mine->len - 1;
      x->reuse_dis_iter = (double)lo / (double)extent;
      x->reuse_dis_bytes = bytes_under(t, loop) / (double)extent;
      return;
    }
  }
}

static void set_feature(access *x, const fs_nest *nest, int64_t line) {
  int64_t eb = fs_elem_bytes(x->buf);
  x->stride = (double)x->innermost_stride;
  x->bytes = (double)eb * (double)nest->prod;
  if (!nest->loops.len) {
    x->unique_bytes = x->lines = x->unique_lines = 1;
  } else {
    x->unique_bytes = (double)x->loop_numel[0] * (double)eb;
    double frac = (double)x->min_stride * (double)eb / (double)line;
    x->lines = (double)nest->prod / (double)x->prod_non_strided * (frac < 1 ? frac : 1);
    x->lines = x->lines > 1 ? x->lines : 1;
    int64_t span = line < x->num_continuous_bytes ? line : x->num_continuous_bytes;
    x->unique_lines = x->unique_bytes / (double)span;
    x->unique_lines = x->unique_lines > 1 ? x->unique_lines : 1;
  }
}

static int by_lines(const void *pa, const void *pb) {
  const access *a = pa, *b = pb;
  if (a->lines != b->lines)
    return a->lines > b->lines ? -1 : 1;
  if (a->bytes != b->bytes)
    return a->bytes > b->bytes ? -1 : 1;
  return strcmp(a->buf->name, b->buf->name);
}

static void export_access(const access *x, double *o) {
  double ct = x->reuse_ct > 0 ? (double)x->reuse_ct : 0.5;
  double v[FS_ACCESS_LEN] = {
      x->type == ACC_READ,        x->type == ACC_WRITE,           x->type == ACC_READ_WRITE,
      fs_slog(x->bytes),          fs_slog(x->unique_bytes),       fs_slog(x->lines),
      fs_slog(x->unique_lines),   x->reuse_type == REUSE_LOOP,    x->reuse_type == REUSE_SERIAL,
      x->reuse_type == REUSE_NONE, fs_slog(x->reuse_dis_iter),    fs_slog(x->reuse_dis_bytes),
      fs_slog((double)x->reuse_ct), fs_slog(x->bytes / ct),       fs_slog(x->unique_bytes / ct),
      fs_slog(x->lines / ct),     fs_slog(x->unique_lines / ct),  fs_slog(x->stride)};
  memcpy(o, v, sizeof v);
}

void fs_buffer_access(tsl_arena *a, tsl_analyzer *an, const tsl_stmt *store,
                      const fs_nest *nest, int64_t cache_line_bytes, int32_t buffers_per_store,
                      fs_touched *touched, int64_t *for_touched_bytes, double *out) {
  uint32_t n = nest->loops.len;
  const tsl_stmt *const *loops = TSL_VEC_DATA(&nest->loops, const tsl_stmt *);
  accesses s = {a, n, {0}};
  tsl_vec_init(&s.list, sizeof(access), a);
  access *w = find_or_add(&s, store->u.store.buffer, ACC_WRITE);
  if (store->u.store.n_indices == store->u.store.buffer->ndim)
    TSL_VEC_PUSH(&w->indices, const tsl_expr *const *, store->u.store.indices);
  tsl_expr_visit(store->u.store.value, collect_load, &s);
  access *xs = TSL_VEC_DATA(&s.list, access);
  uint32_t nx = s.list.len;
  /* regions: every loop at its min, then from the innermost outwards each
   * loop over its range (TVM's SetRegion) */
  for (uint32_t i = 0; i < n; i++)
    tsl_analyzer_bind_value(an, loops[i]->u.loop.loop_var, loops[i]->u.loop.min);
  if (!n)
    for (uint32_t k = 0; k < nx; k++)
      for (uint32_t d = 0; d < xs[k].buf->ndim; d++)
        xs[k].access_shape[d] = 1;
  for (uint32_t i = n; i-- > 0;) {
    tsl_analyzer_bind(an, loops[i]->u.loop.loop_var, loops[i]->u.loop.min,
                      loops[i]->u.loop.extent);
    for_touched_bytes[i] = 0;
    for (uint32_t k = 0; k < nx; k++) {
      int64_t numel = relax_union(an, &xs[k], xs[k].access_shape);
      numel = numel > 0 ? numel : 0;
      xs[k].loop_numel[i] = numel;
      for_touched_bytes[i] += numel * fs_elem_bytes(xs[k].buf);
      TSL_VEC_PUSH(touched_list(touched, loops[i], xs[k].buf), int64_t, numel);
    }
  }
  for (uint32_t i = 0; i < n; i++)
    tsl_analyzer_unbind(an, loops[i]->u.loop.loop_var);
  for (uint32_t k = 0; k < nx; k++)
    set_stride(an, &xs[k], nest);
  /* TVM sums one element per accessed buffer here, not the bytes touched */
  double top_bytes = 0;
  if (n)
    for (uint32_t k = 0; k < nx; k++)
      top_bytes += (double)fs_elem_bytes(xs[k].buf);
  for (uint32_t k = 0; k < nx; k++)
    set_reuse(&xs[k], nest, top_bytes, touched);
  for (uint32_t k = 0; k < nx; k++)
    set_feature(&xs[k], nest, cache_line_bytes);
  qsort(xs, nx, sizeof *xs, by_lines);
  for (int32_t k = 0; k < buffers_per_store; k++) {
    double *o = out + (size_t)k * FS_ACCESS_LEN;
    if ((uint32_t)k < nx)
      export_access(&xs[k], o);
    else
      memset(o, 0, FS_ACCESS_LEN * sizeof *o);
  }
}
