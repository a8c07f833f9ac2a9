/*
 * Analyzer state: variable bindings (constant ranges, symbolic ranges and
 * values), the term
 * order, and the bracketing of public calls (output arena, scratch arena
 * for polynomials, depth and work limits).
 */
#include "arena_internal.h"
#include "base_internal.h"
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

tsl_analyzer *tsl_analyzer_new(tsl_ctx *ctx) {
  if (!ctx)
    return NULL;
  tsl_analyzer *an = calloc(1, sizeof *an);
  if (!an)
    return NULL;
  an->ctx = ctx;
  tsl_map_init(&an->index, NULL);
  tsl_vec_init(&an->binds, sizeof(tsla_binding), NULL);
  return an;
}

void tsl_analyzer_free(tsl_analyzer *an) {
  if (!an)
    return;
  tsl_map_free(&an->index);
  tsl_vec_free(&an->binds);
  tsl_arena_free(an->scratch);
  free(an);
}

void tsla_analyzer_set_order(tsl_analyzer *an, const tsla_order *o) {
  if (o)
    an->order = *o;
  else
    memset(&an->order, 0, sizeof an->order);
}

static tsla_binding *get_binding(tsl_analyzer *an, const tsl_var *v) {
  tsla_binding *b = tsla_find_binding(an, v);
  if (b)
    return b;
  tsl_map_put(&an->index, v, TSL_MAP_INT(an->binds.len));
  b = tsl_vec_push(&an->binds);
  b->var = v;
  return b;
}

int tsla_analyzer_var_range(tsl_analyzer *an, const tsl_var *v,
                            tsla_ival *r) {
  tsla_binding *b = tsla_find_binding(an, v);
  if (!b || !b->has_range)
    return 0;
  *r = b->range;
  return 1;
}

const tsl_expr *tsla_analyzer_var_value(tsl_analyzer *an, const tsl_var *v) {
  tsla_binding *b = tsla_find_binding(an, v);
  return b ? b->value : NULL;
}

void tsla_enter(tsl_analyzer *an, tsl_arena *out) {
  if (an->nest++ == 0) {
    if (!an->scratch)
      an->scratch = tsl_arena_new(an->ctx);
    an->out = out ? out : an->scratch;
    an->failed = 0;
    an->depth = 0;
    an->budget = TSLA_BUDGET;
  }
}

void tsla_leave(tsl_analyzer *an) {
  if (--an->nest == 0) {
    an->out = NULL;
    /* nothing in scratch outlives the call: once it holds more than most
     * of a chunk, empty it, keeping one chunk (emptying after every call
     * cleared and re-made the same few KiB thousands of times a replay) */
    if (an->scratch && tsl_arena_bytes(an->scratch) > TSLA_SCRATCH_KEEP)
      tsl_arena_reset(an->scratch);
  }
}

int tsla_analyzer_var_sym_range(tsl_analyzer *an, const tsl_var *v,
                                tsl_range *r) {
  tsla_binding *b = tsla_find_binding(an, v);
  if (!b || !b->min || b->value)
    return 0;
  r->min = b->min;
  r->extent = b->extent;
  return 1;
}

/* TVM's Analyzer::Bind(var, range): a range of (literal) extent 1 binds
 * the value min; any other range gives constant bounds and keeps the range
 * itself for symbolic interval evaluation. */
static void bind_range(tsl_analyzer *an, const tsl_var *v, const tsl_expr *min,
                       const tsl_expr *extent, int unit) {
  tsla_enter(an, NULL);
  tsla_ival m = tsla_bound_expr(an, min, 0);
  tsla_ival x = tsla_bound_expr(an, extent, 0);
  tsla_leave(an);
  tsla_binding *b = get_binding(an, v);
  b->value = unit && !tsl_expr_uses_var(min, v) ? min : NULL;
  b->min = b->value ? NULL : min;
  b->extent = b->value ? NULL : extent;
  int64_t hi = TSLA_POS_INF;
  if (m.hi != TSLA_POS_INF && x.hi != TSLA_POS_INF)
    hi = tsla_sat_add(m.hi, tsla_sat_add(x.hi, -1));
  b->has_range = 0;
  if (m.lo == TSLA_NEG_INF && hi == TSLA_POS_INF)
    return;
  if (m.lo != TSLA_NEG_INF && hi != TSLA_POS_INF && hi < m.lo)
    return; /* empty range: the variable never takes a value */
  b->has_range = 1;
  b->range.lo = m.lo;
  b->range.hi = hi;
}

void tsl_analyzer_bind(tsl_analyzer *an, const tsl_var *v, const tsl_expr *min,
                       const tsl_expr *extent) {
  if (!an || !v || !min || !extent)
    return;
  int64_t one;
  bind_range(an, v, min, extent, tsl_expr_is_const_int(extent, &one) && one == 1);
}

void tsl_analyzer_bind_bounds(tsl_analyzer *an, const tsl_var *v,
                              const tsl_expr *min, const tsl_expr *extent) {
  if (an && v && min && extent)
    bind_range(an, v, min, extent, 0);
}

/* TVM's MarkGlobalNonNegValue: e = k * v + c >= 0 with k > 0 gives
 * v >= ceil(-c / k). */
void tsl_analyzer_mark_nonneg(tsl_analyzer *an, const tsl_expr *e) {
  if (!an || !e || !tsla_is_sint(e->dtype))
    return;
  tsla_enter(an, NULL);
  const tsla_poly *p = tsla_to_poly(an, e, e->dtype);
  const tsl_var *v = NULL;
  int64_t lo = 0;
  if (!an->failed && p->n == 1 && p->t[0].n_atoms == 1 && p->t[0].coef > 0 &&
      p->t[0].atoms[0]->kind == TSL_EXPR_VAR) {
    v = p->t[0].atoms[0]->u.var;
    int64_t k = p->t[0].coef;
    lo = -tsla_floordiv(p->c, k); /* ceil(-c / k) */
  }
  tsla_leave(an);
  if (!v)
    return;
  tsla_binding *b = get_binding(an, v);
  if (!b->has_range) {
    b->has_range = 1;
    b->range.lo = lo;
    b->range.hi = TSLA_POS_INF;
  } else if (b->range.lo < lo && b->range.hi >= lo) {
    b->range.lo = lo;
  }
}

void tsl_analyzer_bind_value(tsl_analyzer *an, const tsl_var *v,
                             const tsl_expr *value) {
  if (!an || !v)
    return;
  get_binding(an, v)->value = value;
}

void tsl_analyzer_unbind(tsl_analyzer *an, const tsl_var *v) {
  if (!an || !v)
    return;
  tsla_binding *b = tsla_find_binding(an, v);
  if (b) {
    b->has_range = 0;
    b->value = NULL;
    b->min = b->extent = NULL;
  }
}
