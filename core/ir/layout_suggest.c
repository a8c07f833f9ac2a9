/*
 * The layout a buffer would best be stored in for one of its reads (TVM's
 * SuggestIndexMap): the flattened index, detected as an iterator map over
 * the enclosing loops, split by the pieces each loop contributes, the
 * pieces ordered as the loops nest. See analysis.h.
 */
#include "tessel/analysis.h"

#include <stdio.h>
#include <stdlib.h>

#include "tessel/visit.h"

#define SUGGEST_MAX 64

typedef struct piece {
  const tsl_var *loop; /* the input iterator */
  int64_t lower_factor, extent;
} piece;

typedef struct collect {
  piece p[SUGGEST_MAX];
  uint32_t n;
  int failed;
} collect;

static void collect_sum(collect *c, const tsl_iter_sum *s);

static void collect_split(collect *c, const tsl_iter_split *sp) {
  const tsl_iter_mark *m = sp->source;
  int64_t lf, ext;
  if (m->var) {
    if (!tsl_expr_is_const_int(sp->lower_factor, &lf) ||
        !tsl_expr_is_const_int(sp->extent, &ext) || c->n == SUGGEST_MAX) {
      c->failed = 1;
      return;
    }
    c->p[c->n++] = (piece){m->var, lf, ext};
  } else if (m->sum) {
    collect_sum(c, m->sum);
  } else {
    c->failed = 1; /* a padded or split mark: no suggestion */
  }
}

static void collect_sum(collect *c, const tsl_iter_sum *s) {
  for (uint32_t i = 0; i < s->n && !c->failed; i++)
    collect_split(c, s->args[i]);
}

/* sum over k of strides[k] * idx[k] (row-major strides from the shape when
 * the buffer has none) */
static const tsl_expr *flatten(tsl_arena *a, const tsl_buffer *b, tsl_dtype dt,
                               const tsl_expr *const *idx) {
  const tsl_expr *flat = tsl_expr_int(a, dt, 0);
  const tsl_expr *stride = tsl_expr_int(a, dt, 1);
  const tsl_expr *strides[SUGGEST_MAX];
  for (int k = (int)b->ndim - 1; k >= 0; k--) {
    strides[k] = b->strides ? b->strides[k] : stride;
    stride = tsl_expr_binary(a, TSL_EXPR_MUL, stride, b->shape[k]);
  }
  for (uint32_t k = 0; k < b->ndim; k++)
    flat = tsl_expr_binary(a, TSL_EXPR_ADD, flat,
                           tsl_expr_binary(a, TSL_EXPR_MUL, strides[k], idx[k]));
  return flat;
}

static uint32_t loop_pos(const tsl_stmt *const *loops, uint32_t n, const tsl_var *v) {
  for (uint32_t i = 0; i < n; i++)
    if (loops[i]->u.loop.loop_var == v)
      return i;
  return n;
}

int tsl_suggest_index_map(tsl_analyzer *an, tsl_arena *a, const tsl_buffer *buf,
                          const tsl_expr *const *indices, uint32_t n_loops,
                          const tsl_stmt *const *loops, const tsl_expr *predicate,
                          tsl_suggested_map *out, tsl_diag *diag) {
  if (buf->ndim == 0 || buf->ndim > SUGGEST_MAX || n_loops > SUGGEST_MAX)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "buffer '%s': %u dimensions, %u loops",
                        buf->name, buf->ndim, n_loops);
  tsl_dtype dt = buf->shape[0]->dtype;
  const tsl_var *iters[SUGGEST_MAX];
  tsl_range doms[SUGGEST_MAX];
  for (uint32_t i = 0; i < n_loops; i++) {
    iters[i] = loops[i]->u.loop.loop_var;
    doms[i] = (tsl_range){loops[i]->u.loop.min, loops[i]->u.loop.extent};
  }
  const tsl_expr *flat = tsl_simplify(an, a, flatten(a, buf, dt, indices));
  tsl_iter_map map;
  tsl_diag sub = {0};
  if (tsl_iter_map_detect(an, a, 1, &flat, n_loops, iters, doms, predicate,
                          TSL_ITER_MAP_SURJECTIVE, 1, &map, &sub))
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "buffer '%s': its flattened index is not an iterator map: %s",
                        buf->name, sub.text);
  collect c = {.n = 0};
  collect_sum(&c, map.indices[0]);
  if (c.failed || c.n == 0)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "buffer '%s': its index has no split of a loop with constant factors",
                        buf->name);
  /* the pieces in loop order (outer first), a loop's by lower factor
   * (larger first); stable, as std::sort over distinct keys */
  uint32_t order[SUGGEST_MAX];
  for (uint32_t i = 0; i < c.n; i++)
    order[i] = i;
  for (uint32_t i = 1; i < c.n; i++)
    for (uint32_t j = i; j > 0; j--) {
      const piece *x = &c.p[order[j - 1]], *y = &c.p[order[j]];
      uint32_t px = loop_pos(loops, n_loops, x->loop), py = loop_pos(loops, n_loops, y->loop);
      if (px < py || (px == py && x->lower_factor >= y->lower_factor))
        break;
      uint32_t t = order[j - 1];
      order[j - 1] = order[j];
      order[j] = t;
    }
  /* the map: i0, i1, ... flattened, split by the pieces' extents from the
   * innermost, reordered */
  const tsl_var **params = tsl_arena_alloc(a, sizeof *params * buf->ndim);
  const tsl_expr *pidx[SUGGEST_MAX];
  for (uint32_t k = 0; k < buf->ndim; k++) {
    char name[16];
    snprintf(name, sizeof name, "i%u", k);
    params[k] = tsl_var_new(a, name, dt);
    pidx[k] = tsl_expr_var(params[k]);
    tsl_analyzer_bind(an, params[k], tsl_expr_int(a, dt, 0), buf->shape[k]);
  }
  const tsl_expr *index = flatten(a, buf, dt, pidx);
  const tsl_expr *split[SUGGEST_MAX];
  for (int i = (int)c.n - 1; i >= 0; i--) {
    index = tsl_simplify(an, a, index);
    const tsl_expr *ext = tsl_expr_int(a, dt, c.p[i].extent);
    split[i] = tsl_simplify(an, a, tsl_expr_binary(a, TSL_EXPR_FLOORMOD, index, ext));
    index = tsl_expr_binary(a, TSL_EXPR_FLOORDIV, index, ext);
  }
  const tsl_expr **results = tsl_arena_alloc(a, sizeof *results * c.n);
  for (uint32_t i = 0; i < c.n; i++)
    results[i] = split[order[i]];
  for (uint32_t k = 0; k < buf->ndim; k++)
    tsl_analyzer_unbind(an, params[k]);
  out->n_params = buf->ndim;
  out->params = params;
  out->n_results = c.n;
  out->results = results;
  return TSL_OK;
}
