/*
 * tests/print/build_ir.h — terse IR construction helpers for the printer
 * tests (header-only; every helper takes the arena explicitly).
 */
#ifndef TESSEL_TESTS_PRINT_BUILD_IR_H
#define TESSEL_TESTS_PRINT_BUILD_IR_H

#include "tessel/ir.h"

#include <stdarg.h>
#include <string.h>

typedef const tsl_expr *E;
typedef const tsl_stmt *S;

static inline E b_i(tsl_arena *a, int64_t v) { return tsl_expr_i32(a, v); }
static inline E b_f32(tsl_arena *a, double v) {
  return tsl_expr_float(a, TSL_FLOAT32, v);
}
static inline E b_bin(tsl_arena *a, tsl_expr_kind k, E x, E y) {
  return tsl_expr_binary(a, k, x, y);
}
static inline E b_add(tsl_arena *a, E x, E y) { return b_bin(a, TSL_EXPR_ADD, x, y); }
static inline E b_sub(tsl_arena *a, E x, E y) { return b_bin(a, TSL_EXPR_SUB, x, y); }
static inline E b_mul(tsl_arena *a, E x, E y) { return b_bin(a, TSL_EXPR_MUL, x, y); }
static inline E b_v(const tsl_var *v) { return tsl_expr_var(v); }

/* n indices given as varargs (E). */
static inline E b_load(tsl_arena *a, const tsl_buffer *b, uint32_t n, ...) {
  E idx[8];
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++)
    idx[i] = va_arg(ap, E);
  va_end(ap);
  return tsl_expr_load(a, b, n, idx);
}

static inline S b_store(tsl_arena *a, const tsl_buffer *b, E value, uint32_t n,
                        ...) {
  E idx[8];
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++)
    idx[i] = va_arg(ap, E);
  va_end(ap);
  return tsl_stmt_store(a, b, value, n, idx);
}

/* A buffer with constant int32 shape; dims as varargs (int). */
static inline const tsl_buffer *b_buf(tsl_arena *a, const char *name,
                                      tsl_dtype t, const char *scope,
                                      uint32_t ndim, ...) {
  E shape[8];
  va_list ap;
  va_start(ap, ndim);
  for (uint32_t i = 0; i < ndim; i++)
    shape[i] = b_i(a, va_arg(ap, int));
  va_end(ap);
  return tsl_buffer_new(a, name, t, ndim, shape, NULL, NULL, scope, 0, 0);
}

/* A region: pairs (min, extent) as varargs (E, E) per dim. */
static inline tsl_buffer_region b_region(tsl_arena *a, const tsl_buffer *b,
                                         uint32_t ndim, ...) {
  tsl_range *r = TSL_NEW_ARRAY(a, tsl_range, ndim ? ndim : 1);
  va_list ap;
  va_start(ap, ndim);
  for (uint32_t i = 0; i < ndim; i++) {
    r[i].min = va_arg(ap, E);
    r[i].extent = va_arg(ap, E);
  }
  va_end(ap);
  tsl_buffer_region reg = {b, ndim, r};
  return reg;
}

static inline S b_for(tsl_arena *a, const tsl_var *v, E min, E ext, S body) {
  tsl_attrs none = {0, NULL};
  return tsl_stmt_for(a, v, min, ext, TSL_FOR_SERIAL, NULL, none, body);
}

static inline S b_seq(tsl_arena *a, uint32_t n, ...) {
  S s[16];
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++)
    s[i] = va_arg(ap, S);
  va_end(ap);
  return tsl_stmt_seq(a, n, s);
}

/* A block under construction: fill the fields, then b_realize(). */
static inline tsl_block *b_block(tsl_arena *a, const char *name) {
  tsl_block *b = TSL_NEW(a, tsl_block);
  b->name = tsl_intern(tsl_arena_ctx(a), name);
  return b;
}

static inline void b_iter(tsl_arena *a, tsl_block *b, const tsl_var *v,
                          uint32_t type, E min, E ext) {
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, b->n_iter_vars + 1);
  if (b->n_iter_vars)
    memcpy(ivs, b->iter_vars, sizeof *ivs * b->n_iter_vars);
  ivs[b->n_iter_vars].var = v;
  ivs[b->n_iter_vars].dom.min = min;
  ivs[b->n_iter_vars].dom.extent = ext;
  ivs[b->n_iter_vars].iter_type = type;
  b->iter_vars = ivs;
  b->n_iter_vars++;
}

static inline void b_reads(tsl_arena *a, tsl_block *b, uint32_t n, ...) {
  tsl_buffer_region *r = TSL_NEW_ARRAY(a, tsl_buffer_region, n ? n : 1);
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++)
    r[i] = va_arg(ap, tsl_buffer_region);
  va_end(ap);
  b->reads = r;
  b->n_reads = n;
}

static inline void b_writes(tsl_arena *a, tsl_block *b, uint32_t n, ...) {
  tsl_buffer_region *r = TSL_NEW_ARRAY(a, tsl_buffer_region, n ? n : 1);
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++)
    r[i] = va_arg(ap, tsl_buffer_region);
  va_end(ap);
  b->writes = r;
  b->n_writes = n;
}

static inline void b_allocs(tsl_arena *a, tsl_block *b, uint32_t n, ...) {
  const tsl_buffer **bs = TSL_NEW_ARRAY(a, const tsl_buffer *, n ? n : 1);
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++)
    bs[i] = va_arg(ap, const tsl_buffer *);
  va_end(ap);
  b->alloc_buffers = bs;
  b->n_alloc_buffers = n;
}

/* Realize with iter values as varargs (E), predicate NULL = true. */
static inline S b_realize(tsl_arena *a, const tsl_block *b, E pred, ...) {
  E vals[16];
  va_list ap;
  va_start(ap, pred);
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    vals[i] = va_arg(ap, E);
  va_end(ap);
  return tsl_stmt_block_realize(a, b->n_iter_vars, vals, pred, b);
}

/* A function whose root block holds `allocs` and `body`. */
static inline tsl_func *b_func(tsl_arena *a, const char *name, uint32_t n_params,
                               const tsl_param *params, S body,
                               uint32_t n_allocs,
                               const tsl_buffer *const *allocs) {
  tsl_block *root = b_block(a, "root");
  root->body = body;
  root->n_alloc_buffers = n_allocs;
  root->alloc_buffers =
      n_allocs ? tsl_arena_dup(a, allocs, sizeof *allocs * n_allocs) : NULL;
  tsl_func *f = TSL_NEW(a, tsl_func);
  f->name = tsl_intern(tsl_arena_ctx(a), name);
  f->n_params = n_params;
  f->params = tsl_arena_dup(a, params, sizeof *params * (n_params ? n_params : 1));
  f->body = tsl_stmt_block_realize(a, 0, NULL, NULL, root);
  return f;
}

static inline tsl_param b_bparam(tsl_arena *a, const tsl_buffer *b) {
  tsl_param p = {tsl_var_new(a, b->name, TSL_HANDLE), b};
  return p;
}

static inline tsl_attr_value b_av_str(tsl_arena *a, const char *s) {
  tsl_attr_value v;
  memset(&v, 0, sizeof v);
  v.kind = TSL_ATTR_STR;
  v.u.s = tsl_intern(tsl_arena_ctx(a), s);
  return v;
}

static inline tsl_attr_value b_av_bool(int b) {
  tsl_attr_value v;
  memset(&v, 0, sizeof v);
  v.kind = TSL_ATTR_BOOL;
  v.dtype = TSL_BOOL;
  v.u.i = b;
  return v;
}

static inline tsl_attr_value b_av_int(tsl_dtype t, int64_t i) {
  tsl_attr_value v;
  memset(&v, 0, sizeof v);
  v.kind = TSL_ATTR_INT;
  v.dtype = t;
  v.u.i = i;
  return v;
}

static inline tsl_attr b_attr(tsl_arena *a, const char *key, tsl_attr_value v) {
  tsl_attr at = {tsl_intern(tsl_arena_ctx(a), key), v};
  return at;
}

/* The usual {"global_symbol": name, "tir.noalias": T.bool(True)}. */
static inline tsl_attrs b_std_attrs(tsl_arena *a, const char *name) {
  tsl_attr items[2] = {b_attr(a, "tir.noalias", b_av_bool(1)),
                       b_attr(a, "global_symbol", b_av_str(a, name))};
  return tsl_attrs_make(a, 2, items);
}

static inline tsl_module *b_module(tsl_arena *a, const char *name, int bare,
                                   uint32_t n, const tsl_func *const *funcs) {
  tsl_module *m = TSL_NEW(a, tsl_module);
  m->arena = a;
  m->name = name ? tsl_intern(tsl_arena_ctx(a), name) : NULL;
  m->is_bare_func = (uint32_t)bare;
  m->n_funcs = n;
  m->funcs = tsl_arena_dup(a, funcs, sizeof *funcs * (n ? n : 1));
  return m;
}

#endif /* TESSEL_TESTS_PRINT_BUILD_IR_H */
