/*
 * Helpers shared by the lowering tests: loading a program (and optionally
 * running a schedule script on it), the structural rules of lower.h checked
 * on a lowered function, and running a lowered function in the interpreter
 * against a reference program on the same random inputs.
 */
#ifndef TESSEL_TESTS_LOWER_UTIL_H
#define TESSEL_TESTS_LOWER_UTIL_H

#include "tap.h"
#include "tessel/tessel.h"
#include "tessel/lower.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_files.h"

static inline char *lu_slurp(const char *path) {
  char *s = NULL;
  size_t n;
  tsl_diag d = {0};
  return tsl_read_file(path, &s, &n, &d) == TSL_OK ? s : NULL;
}

/* ---- structural rules --------------------------------------------------- */

typedef struct lu_check {
  const tsl_lowered_func *lf;
  const tsl_buffer *scope[256]; /* allocations in scope */
  int n_scope;
  /* distinct allocated buffers (an unrolled loop repeats its ALLOCATE) */
  const tsl_buffer *allocated[256];
  int n_alloc;
  int vector; /* vector nodes seen */
  char why[512];
} lu_check;

static inline int lu_fail(lu_check *c, const char *msg, const char *name) {
  if (!c->why[0])
    snprintf(c->why, sizeof c->why, "%s%s%s", msg, name ? ": " : "", name ? name : "");
  return 1;
}

static inline int lu_buffer_ok(lu_check *c, const tsl_buffer *b) {
  if (b->ndim != 1 || b->strides || b->elem_offset)
    return lu_fail(c, "buffer not flat", b->name);
  for (uint32_t i = 0; i < c->lf->n_params; i++)
    if (c->lf->params[i].buffer == b)
      return 0;
  for (int i = 0; i < c->n_scope; i++)
    if (c->scope[i] == b)
      return 0;
  return lu_fail(c, "buffer used outside its allocation", b->name);
}

static inline int lu_lanes(const tsl_expr *e) { return e->dtype.lanes ? e->dtype.lanes : 1; }

static inline int lu_expr_fn(const tsl_expr *e, void *ud) {
  lu_check *c = ud;
  if (lu_lanes(e) > 1)
    c->vector = 1;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_LOAD:
    if (e->n_args != 1)
      return lu_fail(c, "load with more than one index", e->u.buffer->name);
    if (lu_lanes(e->args[0]) != lu_lanes(e))
      return lu_fail(c, "load lanes differ from its index lanes", e->u.buffer->name);
    return lu_buffer_ok(c, e->u.buffer);
  case TSL_EXPR_RAMP:
  case TSL_EXPR_BROADCAST:
    if (lu_lanes(e->args[0]) != 1)
      return lu_fail(c, "ramp/broadcast of a vector", NULL);
    return 0;
  case TSL_EXPR_SELECT:
  case TSL_EXPR_IF_THEN_ELSE:
    if (lu_lanes(e->args[1]) != lu_lanes(e) || lu_lanes(e->args[2]) != lu_lanes(e) ||
        (lu_lanes(e->args[0]) != 1 && lu_lanes(e->args[0]) != lu_lanes(e)))
      return lu_fail(c, "select operands with different lanes", NULL);
    return 0;
  default:
    if (e->kind >= TSL_EXPR_ADD && e->kind <= TSL_EXPR_OR)
      if (lu_lanes(e->args[0]) != lu_lanes(e) || lu_lanes(e->args[1]) != lu_lanes(e))
        return lu_fail(c, "binary operands with different lanes", NULL);
    return 0;
  }
}

static inline int lu_stmt(lu_check *c, const tsl_stmt *s);

static inline int lu_e(lu_check *c, const tsl_expr *e) {
  return e ? tsl_expr_visit(e, lu_expr_fn, c) : 0;
}

static inline int lu_stmt(lu_check *c, const tsl_stmt *s) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    if (lu_lanes(s->u.loop.extent) != 1)
      return lu_fail(c, "vector loop bound", NULL);
    return lu_e(c, s->u.loop.min) || lu_e(c, s->u.loop.extent) || lu_stmt(c, s->u.loop.body);
  case TSL_STMT_BLOCK_REALIZE:
    return lu_fail(c, "block left in the lowered program", s->u.realize.block->name);
  case TSL_STMT_STORE:
    if (s->u.store.n_indices != 1)
      return lu_fail(c, "store with more than one index", s->u.store.buffer->name);
    if (lu_lanes(s->u.store.indices[0]) != lu_lanes(s->u.store.value))
      return lu_fail(c, "store value lanes differ from its index lanes", s->u.store.buffer->name);
    return lu_buffer_ok(c, s->u.store.buffer) || lu_e(c, s->u.store.indices[0]) ||
           lu_e(c, s->u.store.value);
  case TSL_STMT_IF:
    return lu_e(c, s->u.branch.cond) || lu_stmt(c, s->u.branch.then_case) ||
           (s->u.branch.else_case && lu_stmt(c, s->u.branch.else_case));
  case TSL_STMT_LET:
    return lu_e(c, s->u.let.value) || lu_stmt(c, s->u.let.body);
  case TSL_STMT_EVALUATE:
    return lu_e(c, s->u.evaluate.value);
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if (lu_stmt(c, s->u.seq.stmts[i]))
        return 1;
    return 0;
  case TSL_STMT_ALLOCATE: {
    if (c->n_scope == 256)
      return lu_fail(c, "too many nested allocations", NULL);
    const tsl_buffer *b = s->u.alloc.buffer;
    if (b->ndim != 1)
      return lu_fail(c, "allocation not flat", b->name);
    c->scope[c->n_scope++] = b;
    /* promote.c's register buffers are not allocations of the source */
    size_t nl = strlen(b->name);
    int seen = nl > 4 && !strcmp(b->name + nl - 4, ".reg") && b->scope &&
               !strcmp(b->scope, "local");
    for (int i = 0; i < c->n_alloc; i++)
      seen |= c->allocated[i] == b;
    if (!seen && c->n_alloc < 256)
      c->allocated[c->n_alloc++] = b;
    int r = lu_stmt(c, s->u.alloc.body);
    c->n_scope--;
    return r;
  }
  default:
    return lu_fail(c, "unknown statement", NULL);
  }
}

/* Buffers allocated by blocks of f that some statement accesses. */
typedef struct lu_allocs {
  const tsl_buffer *bufs[256];
  int n;
  int used[256];
} lu_allocs;

static inline int lu_src_block(const tsl_block *b, const tsl_stmt *r, void *ud) {
  (void)r;
  lu_allocs *a = ud;
  for (uint32_t i = 0; i < b->n_alloc_buffers && a->n < 256; i++)
    a->bufs[a->n++] = b->alloc_buffers[i];
  return 0;
}

static inline void lu_mark(lu_allocs *a, const tsl_buffer *b) {
  for (int i = 0; i < a->n; i++)
    if (a->bufs[i] == b)
      a->used[i] = 1;
}

static inline int lu_src_expr_fn(const tsl_expr *e, void *ud) {
  if (e->kind == TSL_EXPR_LOAD)
    lu_mark(ud, e->u.buffer);
  return 0;
}

static inline int lu_src_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, lu_src_expr_fn, ud);
}

static inline int lu_src_stmt(const tsl_stmt *s, void *ud) {
  if (s->kind == TSL_STMT_STORE)
    lu_mark(ud, s->u.store.buffer);
  return 0;
}

/* Match buffers alias alloc buffers too: a view's source counts as used. */
static inline int lu_src_match(const tsl_block *b, const tsl_stmt *r, void *ud) {
  lu_src_block(b, r, ud);
  for (uint32_t i = 0; i < b->n_match_buffers; i++)
    lu_mark(ud, b->match_buffers[i].source.buffer);
  return 0;
}

/* 1 when the lowered function has vector code. */
static inline int lu_has_vector(const tsl_lowered_func *lf) {
  lu_check c;
  memset(&c, 0, sizeof c);
  c.lf = lf;
  lu_stmt(&c, lf->body);
  return c.vector;
}

/* 0 and an empty `why` when every rule holds. */
static inline int lu_check_rules(const tsl_lowered_func *lf, char *why, size_t cap) {
  lu_check c;
  memset(&c, 0, sizeof c);
  c.lf = lf;
  for (uint32_t i = 0; i < lf->n_params; i++)
    if (lf->params[i].buffer && lf->params[i].buffer->ndim != 1)
      lu_fail(&c, "parameter not flat", lf->params[i].buffer->name);
  if (!c.why[0])
    lu_stmt(&c, lf->body);
  if (!c.why[0]) {
    lu_allocs a;
    memset(&a, 0, sizeof a);
    tsl_stmt_visitor v = {lu_src_stmt, lu_src_match, lu_src_expr, NULL, &a};
    tsl_stmt_visit(lf->source->body, &v);
    int want = 0;
    for (int i = 0; i < a.n; i++)
      want += a.used[i];
    if (want != c.n_alloc)
      snprintf(c.why, sizeof c.why, "%d allocations, %d used alloc_buffers in the source",
               c.n_alloc, want);
  }
  snprintf(why, cap, "%s", c.why);
  return c.why[0] != 0;
}


/* ---- devectorizing (to run vector code in the scalar interpreter) ------ */

typedef struct lu_dv {
  tsl_arena *a;
  const tsl_var *vars[64];      /* vector let vars */
  const tsl_var *lane_vars[64][64];
  int n_vars;
  int bad;
} lu_dv;

/* Lane `l` of vector expression e (scalar e returned as is). */
static const tsl_expr *lu_lane(lu_dv *d, const tsl_expr *e, int l) {
  tsl_arena *a = d->a;
  if (e->dtype.lanes <= 1)
    return e;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_RAMP: {
    const tsl_expr *off = tsl_expr_binary(a, TSL_EXPR_MUL, e->args[1],
                                          tsl_expr_int(a, e->args[1]->dtype, l));
    return tsl_expr_binary(a, TSL_EXPR_ADD, e->args[0], off);
  }
  case TSL_EXPR_BROADCAST:
    return e->args[0];
  case TSL_EXPR_VAR:
    for (int i = 0; i < d->n_vars; i++)
      if (d->vars[i] == e->u.var)
        return tsl_expr_var(d->lane_vars[i][l]);
    d->bad = 1;
    return e;
  default: {
    const tsl_expr *args[8];
    if (e->n_args > 8) {
      d->bad = 1;
      return e;
    }
    for (uint32_t i = 0; i < e->n_args; i++)
      args[i] = lu_lane(d, e->args[i], l);
    tsl_expr p;
    memcpy(&p, e, sizeof p);
    p.dtype.lanes = 1;
    return tsl_expr_with_args(a, &p, e->n_args, args);
  }
  }
}

static const tsl_stmt *lu_devec(lu_dv *d, const tsl_stmt *s) {
  tsl_arena *a = d->a;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return tsl_stmt_for(a, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent,
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, lu_devec(d, s->u.loop.body));
  case TSL_STMT_STORE: {
    const tsl_expr *ix = s->u.store.indices[0];
    int n = ix->dtype.lanes;
    if (n <= 1)
      return s;
    const tsl_stmt *xs[64];
    for (int l = 0; l < n && l < 64; l++) {
      const tsl_expr *il = lu_lane(d, ix, l);
      xs[l] = tsl_stmt_store(a, s->u.store.buffer, lu_lane(d, s->u.store.value, l), 1, &il);
    }
    return tsl_stmt_seq(a, (uint32_t)n, xs);
  }
  case TSL_STMT_IF:
    return tsl_stmt_if(a, s->u.branch.cond, lu_devec(d, s->u.branch.then_case),
                       s->u.branch.else_case ? lu_devec(d, s->u.branch.else_case) : NULL);
  case TSL_STMT_LET: {
    const tsl_var *v = s->u.let.var;
    int n = v->dtype.lanes;
    if (n <= 1)
      return tsl_stmt_let(a, v, s->u.let.value, lu_devec(d, s->u.let.body));
    if (d->n_vars == 64 || n > 64) {
      d->bad = 1;
      return s;
    }
    int k = d->n_vars++;
    d->vars[k] = v;
    for (int l = 0; l < n; l++)
      d->lane_vars[k][l] = tsl_var_new(a, v->name, tsl_dtype_scalar(v->dtype));
    const tsl_stmt *body = lu_devec(d, s->u.let.body);
    for (int l = n; l-- > 0;)
      body = tsl_stmt_let(a, d->lane_vars[k][l], lu_lane(d, s->u.let.value, l), body);
    return body;
  }
  case TSL_STMT_SEQ: {
    const tsl_stmt **xs = TSL_NEW_ARRAY(a, const tsl_stmt *, s->u.seq.n + 1);
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      xs[i] = lu_devec(d, s->u.seq.stmts[i]);
    return tsl_stmt_seq(a, s->u.seq.n, xs);
  }
  case TSL_STMT_ALLOCATE:
    return tsl_stmt_allocate(a, s->u.alloc.buffer, lu_devec(d, s->u.alloc.body));
  default:
    return s;
  }
}

/* A copy of lf whose vector statements are unrolled into scalar ones
 * (lane by lane), so the interpreter can run it; NULL when it cannot. */
static inline const tsl_lowered_func *lu_devectorize(tsl_arena *a, const tsl_lowered_func *lf) {
  lu_dv d;
  memset(&d, 0, sizeof d);
  d.a = a;
  const tsl_stmt *b = lu_devec(&d, lf->body);
  if (d.bad)
    return NULL;
  tsl_lowered_func *r = TSL_NEW(a, tsl_lowered_func);
  *r = *lf;
  r->body = b;
  return r;
}

/* ---- running ----------------------------------------------------------- */

static inline double lu_tol(tsl_dtype t) {
  if (!tsl_dtype_is_float(t))
    return 0;
  if (t.code == TSL_DT_BFLOAT)
    return 2.5e-1;
  return t.bits == 16 ? 5e-2 : t.bits == 64 ? 1e-9 : 1e-4;
}

/* Run `ref` with tsl_interp_run and `lf` with tsl_interp_run_lowered on the
 * same seeded arguments (made for ref) and compare every buffer. Returns
 * 0 when they agree; else writes why. */
static inline int lu_run_compare(const tsl_func *ref, const tsl_lowered_func *lf,
                          const tsl_binding *binds, uint32_t n_binds, uint64_t seed,
                          char *why, size_t cap, double *max_err) {
  tsl_diag d = {0};
  uint32_t n = ref->n_params;
  tsl_arg *x = calloc(n + 1, sizeof *x), *y = calloc(n + 1, sizeof *y);
  int bad = 1;
  *max_err = 0;
  why[0] = 0;
  if (tsl_func_make_args(ref, binds, n_binds, seed, x, &d) ||
      tsl_func_make_args(ref, binds, n_binds, seed, y, &d)) {
    snprintf(why, cap, "args: %.400s", d.text);
    free(x);
    free(y);
    return 1;
  }
  if (tsl_interp_run(ref, x, n, &d)) {
    snprintf(why, cap, "reference run: %.400s", d.text);
    goto out;
  }
  if (tsl_interp_run_lowered(lf, y, n, &d)) {
    snprintf(why, cap, "lowered run: %.400s", d.text);
    goto out;
  }
  bad = 0;
  for (uint32_t k = 0; k < n && !bad; k++) {
    if (x[k].is_scalar)
      continue;
    double tol = lu_tol(x[k].tensor.dtype);
    int64_t m = tsl_tensor_numel(&x[k].tensor);
    for (int64_t i = 0; i < m; i++) {
      double a = tsl_tensor_get(&x[k].tensor, i), b = tsl_tensor_get(&y[k].tensor, i);
      double e = fabs(a - b);
      if (isnan(a) && isnan(b))
        continue;
      if (!(e <= *max_err))
        *max_err = e;
      if (!(e <= tol * fmax(1.0, fabs(a)))) {
        snprintf(why, cap, "parameter %u differs at flat index %lld: expected %.9g, got %.9g", k,
                 (long long)i, a, b);
        bad = 1;
        break;
      }
    }
  }
out:
  tsl_args_free(x, n);
  tsl_args_free(y, n);
  free(x);
  free(y);
  return bad;
}

#endif /* TESSEL_TESTS_LOWER_UTIL_H */
