/*
 * Structural hashing that agrees with equal.c: the same traversal order,
 * variables and buffers replaced by their binding rank, every expression
 * hashed in its canonical form (simplified under the constant bounds of the
 * loops and block iter vars around it, terms ordered by rank). Names of vars and buffers are left out; block names, function
 * names (module level) and annotations are in; "global_symbol" is out.
 */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

enum { H_MAX_EXPR_DEPTH = 4096, H_MAX_STMT_DEPTH = 2000 };

typedef struct hctx {
  tsl_map rank; /* var/buffer -> binding rank */
  int64_t next_rank;
  tsl_ctx *ctx;
  tsl_arena *scratch;
  tsl_analyzer *an;
  int sdepth;
} hctx;

static uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  return fmix64(h ^ (fmix64(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

static uint64_t hstr(uint64_t h, const char *s) {
  uint64_t f = 0xcbf29ce484222325ULL;
  if (s)
    for (; *s; s++)
      f = (f ^ (unsigned char)*s) * 0x100000001b3ULL;
  else
    f = 0x5a5a5a5a;
  return mix(h, f);
}

static uint64_t hdtype(uint64_t h, tsl_dtype t) {
  return mix(h, (uint64_t)t.code | (uint64_t)t.bits << 8 | (uint64_t)t.lanes << 16);
}

static int64_t h_rank(const tsl_var *v, void *ud) {
  return tsl_map_get_int(&((hctx *)ud)->rank, v, -1);
}

static int64_t h_buf_rank(const tsl_buffer *b, void *ud) {
  return tsl_map_get_int(&((hctx *)ud)->rank, b, -1);
}

static int h_init(hctx *hc) {
  memset(hc, 0, sizeof *hc);
  tsl_map_init(&hc->rank, NULL);
  hc->ctx = tsl_ctx_new();
  if (!hc->ctx)
    return 0;
  hc->scratch = tsl_arena_new(hc->ctx);
  hc->an = tsl_analyzer_new(hc->ctx);
  if (!hc->an)
    return 0;
  tsla_order o = {h_rank, h_buf_rank, hc};
  tsla_analyzer_set_order(hc->an, &o);
  return 1;
}

static void h_free(hctx *hc) {
  tsl_map_free(&hc->rank);
  tsl_analyzer_free(hc->an);
  tsl_arena_free(hc->scratch);
  tsl_ctx_free(hc->ctx);
}

static void h_def(hctx *hc, const void *p) {
  tsl_map_put(&hc->rank, p, TSL_MAP_INT(hc->next_rank++));
}

/* ---- expressions ---- */

static uint64_t h_buffer_use(hctx *hc, uint64_t h, const tsl_buffer *b) {
  intptr_t r = tsl_map_get_int(&hc->rank, b, -1);
  if (r >= 0)
    return mix(h, (uint64_t)r);
  /* free buffer: equality pairs free buffers by their fields */
  h = hdtype(mix(h, 0xb0f), b->dtype);
  return mix(h, b->ndim);
}

static uint64_t h_expr_raw(hctx *hc, uint64_t h, const tsl_expr *e, int depth) {
  if (depth > H_MAX_EXPR_DEPTH)
    return mix(h, 0xdeeb);
  h = mix(h, e->kind);
  h = hdtype(h, e->dtype);
  h = mix(h, (uint64_t)e->n_args << 16 | e->intrin);
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    return mix(h, (uint64_t)e->u.int_value);
  case TSL_EXPR_FLOAT_IMM: {
    uint64_t bits;
    memcpy(&bits, &e->u.float_value, 8);
    return mix(h, bits);
  }
  case TSL_EXPR_STR_IMM:
    return hstr(h, e->u.str_value);
  case TSL_EXPR_VAR: {
    intptr_t r = tsl_map_get_int(&hc->rank, e->u.var, -1);
    return r >= 0 ? mix(h, (uint64_t)r) : hstr(mix(h, 0xf4ee), e->u.var->name);
  }
  case TSL_EXPR_LOAD:
  case TSL_EXPR_BUFFER_DATA:
    h = h_buffer_use(hc, h, e->u.buffer);
    break;
  case TSL_EXPR_CALL_EXTERN:
    h = hstr(h, e->u.str_value);
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    h = h_expr_raw(hc, h, e->args[i], depth + 1);
  return h;
}

static uint64_t h_expr(hctx *hc, uint64_t h, const tsl_expr *e) {
  if (!e)
    return mix(h, 0x0e);
  return h_expr_raw(hc, h, tsl_simplify(hc->an, hc->scratch, e), 0);
}

/* ---- buffers and regions ---- */

typedef struct first_uses {
  hctx *hc;
  uint32_t n;
} first_uses;

static int collect_unranked(const tsl_expr *e, void *ud) {
  first_uses *fu = ud;
  if (e->kind != TSL_EXPR_VAR || tsl_map_find(&fu->hc->rank, e->u.var, NULL))
    return 0;
  if (fu->n == 64) /* same cap as equal.c */
    return 1;
  fu->n++;
  h_def(fu->hc, e->u.var);
  return 0;
}

/* mirrors equal.c's bind_first_uses (source order, first occurrence) */
static void h_bind_first_uses(hctx *hc, const tsl_expr *e) {
  first_uses fu = {hc, 0};
  if (e)
    tsl_expr_visit(e, collect_unranked, &fu);
}

static int is_zero(const tsl_expr *e) {
  int64_t v;
  return !e || (tsl_expr_is_const_int(e, &v) && v == 0);
}

static uint64_t h_def_buffer(hctx *hc, uint64_t h, const tsl_buffer *b) {
  if (!b)
    return mix(h, 0xb0);
  h = hdtype(mix(h, 0xbf), b->dtype);
  h = mix(h, b->ndim);
  for (uint32_t d = 0; d < b->ndim; d++) {
    h_bind_first_uses(hc, b->shape[d]);
    h = h_expr(hc, h, b->shape[d]);
  }
  h = mix(h, b->strides != NULL);
  if (b->strides)
    for (uint32_t d = 0; d < b->ndim; d++) {
      h_bind_first_uses(hc, b->strides[d]);
      h = h_expr(hc, h, b->strides[d]);
    }
  if (!is_zero(b->elem_offset)) {
    h_bind_first_uses(hc, b->elem_offset);
    h = h_expr(hc, h, b->elem_offset);
  }
  h = hstr(h, b->scope ? b->scope : "global");
  h = mix(h, (uint64_t)(uint32_t)(b->align ? b->align : 64) << 32 | (uint32_t)(b->offset_factor ? b->offset_factor : 1));
  h = mix(h, b->n_axis_separators);
  for (uint32_t i = 0; i < b->n_axis_separators; i++)
    h = mix(h, (uint32_t)b->axis_separators[i]);
  h_def(hc, b);
  return h;
}

static uint64_t h_region(hctx *hc, uint64_t h, const tsl_buffer_region *r) {
  h = h_buffer_use(hc, h, r->buffer);
  h = mix(h, r->ndim);
  for (uint32_t d = 0; d < r->ndim; d++) {
    h = h_expr(hc, h, r->ranges[d].min);
    h = h_expr(hc, h, r->ranges[d].extent);
  }
  return h;
}

/* ---- annotations ---- */

static uint64_t h_attrs(hctx *hc, uint64_t h, tsl_attrs a, int skip_gs,
                        int depth);

static uint64_t h_attr_value(hctx *hc, uint64_t h, const tsl_attr_value *v0,
                             int depth) {
  if (depth > 64)
    return mix(h, 0xdead);
  /* as equal.c's norm_attr: expressions folding to literals are literals */
  tsl_attr_value nv = *v0;
  const tsl_attr_value *v = &nv;
  if (v0->kind == TSL_ATTR_EXPR && v0->u.expr) {
    const tsl_expr *c = tsl_simplify(hc->an, hc->scratch, v0->u.expr);
    if (c->kind == TSL_EXPR_INT_IMM && c->dtype.lanes == 1) {
      nv.kind = tsl_dtype_is_bool(c->dtype) ? TSL_ATTR_BOOL : TSL_ATTR_INT;
      nv.dtype = c->dtype;
      nv.u.i = c->u.int_value;
    } else if (c->kind == TSL_EXPR_FLOAT_IMM && c->dtype.lanes == 1) {
      nv.kind = TSL_ATTR_FLOAT;
      nv.dtype = c->dtype;
      nv.u.f = c->u.float_value;
    } else if (c->kind == TSL_EXPR_STR_IMM) {
      nv.kind = TSL_ATTR_STR;
      nv.u.s = c->u.str_value;
    }
  }
  h = mix(h, v->kind);
  switch (v->kind) {
  case TSL_ATTR_INT:
    return hdtype(mix(h, (uint64_t)v->u.i), v->dtype);
  case TSL_ATTR_BOOL:
    return mix(h, (uint64_t)v->u.i);
  case TSL_ATTR_FLOAT: {
    uint64_t bits;
    memcpy(&bits, &v->u.f, 8);
    return hdtype(mix(h, bits), v->dtype);
  }
  case TSL_ATTR_STR:
    return hstr(h, v->u.s);
  case TSL_ATTR_LIST:
    h = mix(h, v->n);
    for (uint32_t i = 0; i < v->n; i++)
      h = h_attr_value(hc, h, &v->u.items[i], depth + 1);
    return h;
  case TSL_ATTR_DICT:
    return h_attrs(hc, h, v->u.dict, 0, depth + 1);
  default:
    return h_expr(hc, h, v->u.expr);
  }
}

static uint64_t h_attrs(hctx *hc, uint64_t h, tsl_attrs a, int skip_gs,
                        int depth) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < a.n; i++) {
    if (skip_gs && a.items[i].key && strcmp(a.items[i].key, "global_symbol") == 0)
      continue;
    h = hstr(h, a.items[i].key);
    h = h_attr_value(hc, h, &a.items[i].value, depth + 1);
    n++;
  }
  return mix(h, n);
}

/* ---- statements ---- */

static uint64_t h_stmt(hctx *hc, uint64_t h, const tsl_stmt *s);

static uint64_t h_opt_stmt(hctx *hc, uint64_t h, const tsl_stmt *s) {
  return s ? h_stmt(hc, mix(h, 1), s) : mix(h, 0);
}

static uint64_t h_block(hctx *hc, uint64_t h, const tsl_stmt *r) {
  const tsl_block *b = r->u.realize.block;
  h = mix(h, r->u.realize.n_iter_values);
  for (uint32_t i = 0; i < r->u.realize.n_iter_values; i++)
    h = h_expr(hc, h, r->u.realize.iter_values[i]);
  h = h_expr(hc, h, r->u.realize.predicate);
  h = hstr(h, b->name);
  h = mix(h, b->n_iter_vars);
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    h = h_expr(hc, h, iv->dom.min);
    h = h_expr(hc, h, iv->dom.extent);
    h = mix(h, iv->iter_type);
    if (iv->var) {
      h = hdtype(h, iv->var->dtype);
      h_def(hc, iv->var);
    }
  }
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    tsl_analyzer_bind_bounds(hc->an, b->iter_vars[i].var, b->iter_vars[i].dom.min,
                             b->iter_vars[i].dom.extent);
  h = mix(h, b->n_alloc_buffers);
  for (uint32_t i = 0; i < b->n_alloc_buffers; i++)
    h = h_def_buffer(hc, h, b->alloc_buffers[i]);
  h = mix(h, b->n_match_buffers);
  for (uint32_t i = 0; i < b->n_match_buffers; i++) {
    h = h_region(hc, h, &b->match_buffers[i].source);
    h = h_def_buffer(hc, h, b->match_buffers[i].buffer);
  }
  h = mix(h, b->n_reads);
  for (uint32_t i = 0; i < b->n_reads; i++)
    h = h_region(hc, h, &b->reads[i]);
  h = mix(h, b->n_writes);
  for (uint32_t i = 0; i < b->n_writes; i++)
    h = h_region(hc, h, &b->writes[i]);
  h = h_attrs(hc, h, b->annotations, 0, 0);
  h = h_opt_stmt(hc, h, b->init);
  h = h_opt_stmt(hc, h, b->body);
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    tsl_analyzer_unbind(hc->an, b->iter_vars[i].var);
  return h;
}

static uint64_t h_stmt(hctx *hc, uint64_t h, const tsl_stmt *s) {
  h = mix(h, 0x5700 + s->kind);
  if (++hc->sdepth > H_MAX_STMT_DEPTH) {
    hc->sdepth--;
    return h;
  }
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    h = h_expr(hc, h, s->u.loop.min);
    h = h_expr(hc, h, s->u.loop.extent);
    h = mix(h, s->u.loop.for_kind);
    h = hstr(h, s->u.loop.thread_tag);
    h = h_attrs(hc, h, s->u.loop.annotations, 0, 0);
    if (s->u.loop.loop_var) {
      h = hdtype(h, s->u.loop.loop_var->dtype);
      h_def(hc, s->u.loop.loop_var);
      tsl_analyzer_bind_bounds(hc->an, s->u.loop.loop_var, s->u.loop.min,
                               s->u.loop.extent);
    }
    h = h_opt_stmt(hc, h, s->u.loop.body);
    tsl_analyzer_unbind(hc->an, s->u.loop.loop_var);
    break;
  case TSL_STMT_BLOCK_REALIZE:
    h = h_block(hc, h, s);
    break;
  case TSL_STMT_STORE:
    h = h_buffer_use(hc, h, s->u.store.buffer);
    h = mix(h, s->u.store.n_indices);
    for (uint32_t i = 0; i < s->u.store.n_indices; i++)
      h = h_expr(hc, h, s->u.store.indices[i]);
    h = h_expr(hc, h, s->u.store.value);
    break;
  case TSL_STMT_IF:
    h = h_expr(hc, h, s->u.branch.cond);
    h = h_opt_stmt(hc, h, s->u.branch.then_case);
    h = h_opt_stmt(hc, h, s->u.branch.else_case);
    break;
  case TSL_STMT_LET:
    h = h_expr(hc, h, s->u.let.value);
    if (s->u.let.var) {
      h = hdtype(h, s->u.let.var->dtype);
      h_def(hc, s->u.let.var);
    }
    h = h_opt_stmt(hc, h, s->u.let.body);
    break;
  case TSL_STMT_EVALUATE:
    h = h_expr(hc, h, s->u.evaluate.value);
    break;
  case TSL_STMT_SEQ:
    h = mix(h, s->u.seq.n);
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      h = h_stmt(hc, h, s->u.seq.stmts[i]);
    break;
  case TSL_STMT_ALLOCATE:
    h = h_def_buffer(hc, h, s->u.alloc.buffer);
    h = h_opt_stmt(hc, h, s->u.alloc.body);
    break;
  case TSL_STMT_KIND_COUNT:
    break;
  }
  hc->sdepth--;
  return h;
}

/* ---- functions and modules ---- */

static uint64_t h_func(hctx *hc, uint64_t h, const tsl_func *f) {
  tsl_map_clear(&hc->rank);
  hc->next_rank = 0;
  h = mix(h, f->n_params);
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_param *p = &f->params[i];
    if (p->var) {
      h = hdtype(h, p->var->dtype);
      h_def(hc, p->var);
    }
    h = h_def_buffer(hc, h, p->buffer);
  }
  h = h_opt_stmt(hc, h, f->body);
  return h_attrs(hc, h, f->attrs, 1, 0);
}

uint64_t tsl_func_hash(const tsl_func *f) {
  if (!f)
    return 0;
  hctx hc;
  uint64_t h = 0;
  if (h_init(&hc))
    h = h_func(&hc, 0x7e55e1, f);
  h_free(&hc);
  return h;
}

static int name_cmp(const void *a, const void *b) {
  const tsl_func *x = *(const tsl_func *const *)a, *y = *(const tsl_func *const *)b;
  return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

uint64_t tsl_module_hash(const tsl_module *m) {
  if (!m)
    return 0;
  hctx hc;
  uint64_t h = mix(0x7e55e1, m->n_funcs);
  if (!h_init(&hc)) {
    h_free(&hc);
    return 0;
  }
  /* functions are matched by name: hash them in name order */
  const tsl_func **fs = TSL_NEW_ARRAY(hc.scratch, const tsl_func *, m->n_funcs + 1);
  memcpy(fs, m->funcs, sizeof *fs * m->n_funcs);
  qsort(fs, m->n_funcs, sizeof *fs, name_cmp);
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    if (m->n_funcs > 1) /* a lone function is compared whatever its name */
      h = hstr(h, fs[i]->name);
    h = h_func(&hc, h, fs[i]);
  }
  h_free(&hc);
  return h;
}
