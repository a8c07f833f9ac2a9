/*
 * tests/parse/parse_util.h — helpers shared by the parser tests: parse a
 * string, find blocks and loops by name, look through SEQ and LET.
 */
#ifndef TESSEL_TESTS_PARSE_UTIL_H
#define TESSEL_TESTS_PARSE_UTIL_H

#include "tap.h"
#include "tessel/analysis.h"
#include "tessel/script.h"
#include "tessel/visit.h"

#include <string.h>

typedef struct tctx {
  tsl_ctx *ctx;
  tsl_arena *arena;
  tsl_diag diag;
  int rc;
} tctx;

static tctx T_;

static inline void t_init(void) {
  T_.ctx = tsl_ctx_new();
  T_.arena = tsl_arena_new(T_.ctx);
}

static inline void t_fini(void) {
  tsl_arena_free(T_.arena);
  tsl_ctx_free(T_.ctx);
}

/* Parse `src`; on failure print the diagnostic and return NULL. */
static inline const tsl_module *parse(const char *name, const char *src) {
  const tsl_module *m = NULL;
  memset(&T_.diag, 0, sizeof T_.diag);
  T_.rc = tsl_parse(T_.arena, name, src, strlen(src), &m, &T_.diag);
  if (T_.rc != TSL_OK)
    tap_diag("parse of %s failed (%d):\n%s", name, T_.rc, T_.diag.text);
  return m;
}

/* Parse expecting failure; returns the diag text ("" when it parsed). */
static inline const char *parse_err(const char *src) {
  const tsl_module *m = NULL;
  memset(&T_.diag, 0, sizeof T_.diag);
  T_.rc = tsl_parse(T_.arena, "t.py", src, strlen(src), &m, &T_.diag);
  return T_.rc == TSL_OK ? "" : T_.diag.text;
}

static inline const tsl_block *root_of(const tsl_func *f) {
  return f && f->body && f->body->kind == TSL_STMT_BLOCK_REALIZE ? f->body->u.realize.block
                                                                  : NULL;
}

typedef struct find_ctx {
  const char *name;
  const tsl_stmt *found;
  int kind; /* 0 block realize by block name, 1 loop by var name */
} find_ctx;

static inline int find_cb(const tsl_stmt *s, void *ud) {
  find_ctx *f = ud;
  if (f->kind == 0 && s->kind == TSL_STMT_BLOCK_REALIZE &&
      strcmp(s->u.realize.block->name, f->name) == 0) {
    f->found = s;
    return 1;
  }
  if (f->kind == 1 && s->kind == TSL_STMT_FOR && strcmp(s->u.loop.loop_var->name, f->name) == 0) {
    f->found = s;
    return 1;
  }
  return 0;
}

/* The realize of the block called `name` anywhere in f. */
static inline const tsl_stmt *find_realize(const tsl_func *f, const char *name) {
  if (!f)
    return NULL;
  find_ctx fc = {name, NULL, 0};
  tsl_stmt_visitor v = {0};
  v.stmt = find_cb;
  v.user_data = &fc;
  tsl_stmt_visit(f->body, &v);
  return fc.found;
}

static inline const tsl_block *find_block(const tsl_func *f, const char *name) {
  const tsl_stmt *s = find_realize(f, name);
  return s ? s->u.realize.block : NULL;
}

static inline const tsl_stmt *find_loop(const tsl_func *f, const char *var) {
  if (!f)
    return NULL;
  find_ctx fc = {var, NULL, 1};
  tsl_stmt_visitor v = {0};
  v.stmt = find_cb;
  v.user_data = &fc;
  tsl_stmt_visit(f->body, &v);
  return fc.found;
}

/* The k-th statement of a SEQ (or the statement itself for k == 0). */
static inline const tsl_stmt *nth(const tsl_stmt *s, uint32_t k) {
  if (!s)
    return NULL;
  if (s->kind == TSL_STMT_SEQ)
    return k < s->u.seq.n ? s->u.seq.stmts[k] : NULL;
  return k == 0 ? s : NULL;
}

static inline uint32_t count_stmts(const tsl_stmt *s) {
  return !s ? 0 : s->kind == TSL_STMT_SEQ ? s->u.seq.n : 1;
}

static inline int is_const_int(const tsl_expr *e, int64_t v) {
  int64_t x;
  return e && tsl_expr_is_const_int(e, &x) && x == v;
}

static inline int is_var(const tsl_expr *e, const char *name) {
  return e && e->kind == TSL_EXPR_VAR && strcmp(e->u.var->name, name) == 0;
}

static inline int dt_is(tsl_dtype t, const char *name) {
  char buf[32];
  return strcmp(tsl_dtype_str(t, buf), name) == 0;
}

/* Region `r` of buffer `buf` has point/extent dims: each dim d matches
 * (min is var names[d] or const mins[d]) — checked by the caller. */
static inline const tsl_buffer_region *region_of(const tsl_buffer_region *rs, uint32_t n,
                                                 const char *buf) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(rs[i].buffer->name, buf) == 0)
      return &rs[i];
  return NULL;
}

#endif
