/*
 * tsl_func_specialize, tsl_func_free_names and tsl_module_with_func
 * (tessel/analysis.h): size variables and scalar parameters bound to
 * constants, as TVM's PrimFunc.specialize with constant values. Every
 * expression the binding changes is folded by the simplifier where it is
 * integer arithmetic, so a shape `m * 2` with m = 32 becomes the constant
 * 64 that the schedule rules and the lowering need.
 */
#include "analysis_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The function's free names: its scalar parameters, then the variables of
 * its parameter buffers' shapes, strides and offsets that are not
 * parameters, in first-appearance order, each with its FREE_* kinds. */
enum { FREE_PARAM = 1, FREE_SIZE = 2 };

typedef struct free_names {
  tsl_map seen;   /* const tsl_var * -> index + 1 */
  tsl_vec vars;   /* const tsl_var * */
  tsl_vec kinds;  /* int: FREE_* bits */
  int kind;       /* what the expressions being visited give */
} free_names;

static void add_free(free_names *fn, const tsl_var *v, int kind) {
  intptr_t at = tsl_map_get_int(&fn->seen, v, 0);
  if (at) {
    TSL_VEC_AT(&fn->kinds, int, (uint32_t)(at - 1)) |= kind;
    return;
  }
  tsl_map_put(&fn->seen, v, (void *)(intptr_t)(fn->vars.len + 1));
  TSL_VEC_PUSH(&fn->vars, const tsl_var *, v);
  TSL_VEC_PUSH(&fn->kinds, int, kind);
}

static int collect_var(const tsl_expr *e, void *ud) {
  free_names *fn = ud;
  if (e->kind == TSL_EXPR_VAR)
    add_free(fn, e->u.var, fn->kind);
  return 0;
}

static void collect_free(tsl_arena *a, const tsl_func *f, free_names *fn) {
  tsl_map_init(&fn->seen, a);
  tsl_vec_init(&fn->vars, sizeof(const tsl_var *), a);
  tsl_vec_init(&fn->kinds, sizeof(int), a);
  for (uint32_t i = 0; i < f->n_params; i++)
    if (!f->params[i].buffer && f->params[i].var)
      add_free(fn, f->params[i].var, FREE_PARAM);
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_buffer *b = f->params[i].buffer;
    for (uint32_t d = 0; b && d < b->ndim; d++) {
      fn->kind = FREE_SIZE;
      tsl_expr_visit(b->shape[d], collect_var, fn);
      fn->kind = 0;
      if (b->strides)
        tsl_expr_visit(b->strides[d], collect_var, fn);
    }
    if (b && b->elem_offset)
      tsl_expr_visit(b->elem_offset, collect_var, fn);
  }
}

static void join_names(const free_names *fn, char *buf, size_t cap) {
  size_t used = 0;
  if (cap)
    buf[0] = '\0';
  for (uint32_t i = 0; i < fn->vars.len && used + 1 < cap; i++) {
    const tsl_var *v = TSL_VEC_AT(&fn->vars, const tsl_var *, i);
    int n = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", v->name);
    used += n > 0 ? (size_t)n : 0;
  }
}

uint32_t tsl_func_free_names(const tsl_func *f, char *buf, size_t cap) {
  free_names fn;
  collect_free(NULL, f, &fn); /* on the heap */
  join_names(&fn, buf, cap);
  uint32_t n = fn.vars.len;
  tsl_map_free(&fn.seen);
  tsl_vec_free(&fn.vars);
  tsl_vec_free(&fn.kinds);
  return n;
}

/* The constant `text` stands for, in the dtype of `v`; NULL with what
 * would be valid in *why when it is not one. A size (a variable of a
 * shape, parameter or not) must be a positive integer. */
static const tsl_expr *parse_value(tsl_arena *a, const tsl_var *v, int kinds, const char *text,
                                   const char **why) {
  char *end = NULL;
  errno = 0;
  if (tsl_dtype_is_float(v->dtype)) {
    double x = strtod(text, &end);
    if (!*text || *end || errno == ERANGE || !isfinite(x)) {
      *why = "a finite number";
      return NULL;
    }
    return tsl_expr_float(a, v->dtype, x);
  }
  if (!tsl_dtype_is_int(v->dtype) && !tsl_dtype_is_bool(v->dtype)) {
    *why = "nothing: only integer and float variables can be bound";
    return NULL;
  }
  long long x = strtoll(text, &end, 10);
  int bits = v->dtype.bits, is_uint = v->dtype.code == TSL_DT_UINT;
  long long lo = is_uint ? 0 : bits >= 64 ? INT64_MIN : -(1LL << (bits - 1));
  long long hi = bits >= 64 || (is_uint && bits == 63) ? INT64_MAX
                 : is_uint                            ? (1LL << bits) - 1
                                                      : (1LL << (bits - 1)) - 1;
  if (kinds & FREE_SIZE)
    lo = 1;
  if (!*text || *end || errno == ERANGE || x < lo || x > hi) {
    *why = kinds & FREE_SIZE           ? "a positive integer (a size)"
           : tsl_dtype_is_bool(v->dtype) ? "0 or 1"
                                         : "an integer in the range of its dtype";
    return NULL;
  }
  return tsl_expr_int(a, v->dtype, x);
}

typedef struct spec {
  tsl_mutator m; /* first: the hooks get the spec */
  tsl_map bound; /* const tsl_var * -> const tsl_expr * */
  tsl_map memo;  /* const tsl_buffer * -> const tsl_buffer * (itself: unchanged) */
  tsl_analyzer *an;
} spec;

static int opaque(const tsl_expr *e, void *ud) {
  (void)ud;
  return e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_CALL ||
         e->kind == TSL_EXPR_BUFFER_DATA;
}

/* The default (uses of bound variables replaced through `vars`), then
 * integer arithmetic that changed folded. */
static const tsl_expr *spec_expr(tsl_mutator *m, const tsl_expr *e) {
  spec *s = (spec *)m;
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (r == e || !tsl_dtype_is_int(r->dtype) || r->dtype.lanes > 1 ||
      tsl_expr_visit(r, opaque, NULL))
    return r;
  return tsl_simplify(s->an, m->arena, r);
}

static const tsl_expr *spec_one(spec *s, const tsl_expr *e, int *changed) {
  if (!e)
    return NULL;
  const tsl_expr *r = tsl_mutate_expr(&s->m, e);
  *changed |= r != e;
  return r;
}

/* A buffer whose shape, strides or offset use a bound variable, rebuilt
 * (once: every use of it gets the same new buffer). */
static const tsl_buffer *spec_buffer(tsl_mutator *m, const tsl_buffer *b) {
  spec *s = (spec *)m;
  const tsl_buffer *done = tsl_map_get(&s->memo, b);
  if (done)
    return done == b ? NULL : done;
  int changed = 0;
  const tsl_expr **shape = TSL_NEW_ARRAY(m->arena, const tsl_expr *, b->ndim + 1);
  const tsl_expr **strides =
      b->strides ? TSL_NEW_ARRAY(m->arena, const tsl_expr *, b->ndim + 1) : NULL;
  for (uint32_t d = 0; d < b->ndim; d++) {
    shape[d] = spec_one(s, b->shape[d], &changed);
    if (strides)
      strides[d] = spec_one(s, b->strides[d], &changed);
  }
  const tsl_expr *offset = spec_one(s, b->elem_offset, &changed);
  const tsl_buffer *nb = b;
  if (changed) {
    nb = tsl_buffer_new(m->arena, b->name, b->dtype, b->ndim, shape, strides, offset,
                        b->scope, b->align, b->offset_factor);
    if (b->n_axis_separators)
      nb = tsl_buffer_with_axis_separators(m->arena, nb, b->n_axis_separators,
                                           b->axis_separators);
  }
  tsl_map_put(&s->memo, b, (void *)nb);
  return nb == b ? NULL : nb;
}

int tsl_func_specialize(tsl_arena *a, const tsl_func *f, uint32_t n,
                        const char *const *names, const char *const *values,
                        const tsl_func **out, tsl_diag *diag) {
  if (out)
    *out = NULL;
  if (!a || !f || !out || (n && (!names || !values)))
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_func_specialize: NULL argument");
  free_names fn;
  collect_free(a, f, &fn);
  char valid[512];
  join_names(&fn, valid, sizeof valid);
  spec s;
  memset(&s, 0, sizeof s);
  s.m = tsl_mutator_make(a);
  s.m.expr = spec_expr;
  s.m.buffer = spec_buffer;
  s.m.vars = &s.bound;
  s.m.diag = diag;
  tsl_map_init(&s.bound, a);
  tsl_map_init(&s.memo, a);
  for (uint32_t k = 0; k < n; k++) {
    int found = -1;
    for (uint32_t i = 0; i < fn.vars.len && found < 0; i++)
      if (!strcmp(TSL_VEC_AT(&fn.vars, const tsl_var *, i)->name, names[k]))
        found = (int)i;
    if (found < 0)
      return tsl_diag_set(diag, TSL_ENOTFOUND,
                          "'%.100s' is not a symbolic size or scalar parameter of '%s'; "
                          "valid: %s",
                          names[k], f->name, fn.vars.len ? valid : "none (nothing to bind)");
    const tsl_var *v = TSL_VEC_AT(&fn.vars, const tsl_var *, (uint32_t)found);
    int kinds = TSL_VEC_AT(&fn.kinds, int, (uint32_t)found);
    if (tsl_map_find(&s.bound, v, NULL))
      return tsl_diag_set(diag, TSL_EINVALID, "'%s' is bound twice; valid: one value each",
                          v->name);
    const char *why = NULL;
    const tsl_expr *c = parse_value(a, v, kinds, values[k], &why);
    char dt[32];
    if (!c)
      return tsl_diag_set(diag, TSL_EINVALID, "'%s' (%s %s) got '%.100s'; valid: %s",
                          v->name, tsl_dtype_str(v->dtype, dt),
                          kinds & FREE_SIZE    ? "size"
                          : kinds & FREE_PARAM ? "scalar parameter"
                                               : "variable",
                          values[k], why);
    tsl_map_put(&s.bound, v, (void *)c);
  }
  if (!n) {
    *out = f;
    return TSL_OK;
  }
  s.an = tsl_analyzer_new(tsl_arena_ctx(a));
  if (!s.an)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  const tsl_func *g = tsl_mutate_func(&s.m, f);
  tsl_analyzer_free(s.an);
  if (s.m.status)
    return s.m.status;
  /* bound scalar parameters leave the signature */
  tsl_param *params = TSL_NEW_ARRAY(a, tsl_param, g->n_params + 1);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < g->n_params; i++)
    if (g->params[i].buffer || !tsl_map_find(&s.bound, g->params[i].var, NULL))
      params[kept++] = g->params[i];
  tsl_func *nf = tsl_arena_dup(a, g, sizeof *g);
  nf->params = params;
  nf->n_params = kept;
  *out = nf;
  return TSL_OK;
}

const tsl_module *tsl_module_with_func(tsl_arena *a, const tsl_module *m, const tsl_func *f) {
  int found = 0;
  for (uint32_t i = 0; i < m->n_funcs; i++)
    found |= !strcmp(m->funcs[i]->name, f->name);
  if (!found)
    return m;
  const tsl_func **funcs = TSL_NEW_ARRAY(a, const tsl_func *, m->n_funcs);
  for (uint32_t i = 0; i < m->n_funcs; i++)
    funcs[i] = !strcmp(m->funcs[i]->name, f->name) ? f : m->funcs[i];
  tsl_module *nm = tsl_arena_dup(a, m, sizeof *m);
  nm->funcs = funcs;
  return nm;
}
