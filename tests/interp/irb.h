/*
 * tests/interp/irb.h — terse IR construction for the interpreter tests
 * (the ir.h builders plus blocks and functions). One global arena per test
 * program keeps the test code short.
 */
#ifndef TESSEL_TESTS_INTERP_IRB_H
#define TESSEL_TESTS_INTERP_IRB_H

#include "tessel/interp.h"
#include "tessel/ir.h"

#include <stdarg.h>
#include <string.h>

static tsl_ctx *irb_ctx __attribute__((unused));
static tsl_arena *A __attribute__((unused));

static inline void irb_init(void) {
  irb_ctx = tsl_ctx_new();
  A = tsl_arena_new(irb_ctx);
}
static inline void irb_done(void) {
  tsl_arena_free(A);
  tsl_ctx_free(irb_ctx);
}

#define I(v) tsl_expr_i32(A, (v))
#define I64C(v) tsl_expr_int(A, TSL_INT64, (v))
#define F32(v) tsl_expr_float(A, TSL_FLOAT32, (v))
#define V(var) tsl_expr_var(var)
#define BIN(k, x, y) tsl_expr_binary(A, TSL_EXPR_##k, (x), (y))
#define ADD(x, y) BIN(ADD, x, y)
#define SUB(x, y) BIN(SUB, x, y)
#define MUL(x, y) BIN(MUL, x, y)
#define LT(x, y) BIN(LT, x, y)
#define CAST(t, x) tsl_expr_cast(A, (t), (x))
#define TRUE_ tsl_expr_bool(A, 1)

static inline const tsl_var *var(const char *name) {
  return tsl_var_new(A, name, TSL_INT32);
}

/* A buffer with constant dims (the varargs are ints). */
static inline const tsl_buffer *buf(const char *name, tsl_dtype t, int nd,
                                    ...) {
  const tsl_expr *shape[16];
  va_list ap;
  va_start(ap, nd);
  for (int i = 0; i < nd; i++)
    shape[i] = I(va_arg(ap, int));
  va_end(ap);
  return tsl_buffer_new(A, name, t, (uint32_t)nd, shape, NULL, NULL, NULL, 0,
                        0);
}

/* A buffer whose dims are given expressions. */
static inline const tsl_buffer *bufx(const char *name, tsl_dtype t, int nd,
                                     ...) {
  const tsl_expr *shape[16];
  va_list ap;
  va_start(ap, nd);
  for (int i = 0; i < nd; i++)
    shape[i] = va_arg(ap, const tsl_expr *);
  va_end(ap);
  return tsl_buffer_new(A, name, t, (uint32_t)nd, shape, NULL, NULL, NULL, 0,
                        0);
}

static inline const tsl_expr *ld(const tsl_buffer *b, int n, ...) {
  const tsl_expr *idx[16];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    idx[i] = va_arg(ap, const tsl_expr *);
  va_end(ap);
  return tsl_expr_load(A, b, (uint32_t)n, idx);
}

static inline const tsl_stmt *store(const tsl_buffer *b, const tsl_expr *v,
                                    int n, ...) {
  const tsl_expr *idx[16];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    idx[i] = va_arg(ap, const tsl_expr *);
  va_end(ap);
  return tsl_stmt_store(A, b, v, (uint32_t)n, idx);
}

static inline const tsl_stmt *loopk(const tsl_var *v, const tsl_expr *ext,
                                    tsl_for_kind kind, const char *tag,
                                    const tsl_stmt *body) {
  tsl_attrs none = {0, NULL};
  return tsl_stmt_for(A, v, I(0), ext, kind,
                      tag ? tsl_intern(irb_ctx, tag) : NULL, none, body);
}
static inline const tsl_stmt *loop(const tsl_var *v, int ext,
                                   const tsl_stmt *body) {
  return loopk(v, I(ext), TSL_FOR_SERIAL, NULL, body);
}

static inline const tsl_stmt *seq(int n, ...) {
  const tsl_stmt *s[32];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    s[i] = va_arg(ap, const tsl_stmt *);
  va_end(ap);
  return tsl_stmt_seq(A, (uint32_t)n, s);
}

/* An iter var description for blk(). */
typedef struct itv {
  const tsl_var *var;
  const tsl_expr *min, *ext;
  int reduce;
  const tsl_expr *value;
} itv;

static inline itv S(const tsl_var *v, int ext, const tsl_expr *value) {
  itv r = {v, I(0), I(ext), 0, value};
  return r;
}
static inline itv R(const tsl_var *v, int ext, const tsl_expr *value) {
  itv r = {v, I(0), I(ext), 1, value};
  return r;
}

typedef struct blkopt {
  const tsl_stmt *init;
  const tsl_expr *pred;
  uint32_t n_alloc;
  const tsl_buffer *const *allocs;
  uint32_t n_match;
  const tsl_match_buffer *matches;
} blkopt;

/* A block realize. */
static inline const tsl_stmt *blk(const char *name, int n, const itv *iv,
                                  const tsl_stmt *body, blkopt opt) {
  tsl_block *b = TSL_NEW(A, tsl_block);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(A, tsl_iter_var, n + 1);
  const tsl_expr **vals = TSL_NEW_ARRAY(A, const tsl_expr *, n + 1);
  for (int i = 0; i < n; i++) {
    ivs[i].var = iv[i].var;
    ivs[i].dom.min = iv[i].min;
    ivs[i].dom.extent = iv[i].ext;
    ivs[i].iter_type = iv[i].reduce ? TSL_ITER_REDUCE : TSL_ITER_SPATIAL;
    vals[i] = iv[i].value;
  }
  b->name = tsl_intern(irb_ctx, name);
  b->n_iter_vars = (uint32_t)n;
  b->iter_vars = ivs;
  b->init = opt.init;
  b->body = body;
  b->n_alloc_buffers = opt.n_alloc;
  b->alloc_buffers = opt.allocs;
  b->n_match_buffers = opt.n_match;
  b->match_buffers = opt.matches;
  return tsl_stmt_block_realize(A, (uint32_t)n, vals, opt.pred, b);
}
static const blkopt NOOPT __attribute__((unused)) = {0};

/* A function whose params are buffers (NULL-terminated list, then a body);
 * the body is wrapped in the root block with `root_allocs`. */
static inline const tsl_func *func(const char *name, uint32_t np,
                                   const tsl_param *params,
                                   const tsl_stmt *body, uint32_t n_root_alloc,
                                   const tsl_buffer *const *root_allocs) {
  tsl_func *f = TSL_NEW(A, tsl_func);
  f->name = tsl_intern(irb_ctx, name);
  f->n_params = np;
  f->params = tsl_arena_dup(A, params, sizeof *params * (np ? np : 1));
  blkopt o = {0};
  o.n_alloc = n_root_alloc;
  o.allocs = root_allocs;
  f->body = blk("root", 0, NULL, body, o);
  return f;
}

static inline tsl_param bparam(const tsl_buffer *b) {
  tsl_param p = {tsl_var_new(A, b->name, TSL_HANDLE), b};
  return p;
}
static inline tsl_param sparam(const tsl_var *v) {
  tsl_param p = {v, NULL};
  return p;
}

/* Run f on args; returns the status. */
static inline int run(const tsl_func *f, tsl_arg *args, tsl_diag *d) {
  memset(d, 0, sizeof *d);
  return tsl_interp_run(f, args, f->n_params, d);
}

static inline int contains(const char *hay, const char *needle) {
  return hay && needle && strstr(hay, needle) != NULL;
}

#endif
