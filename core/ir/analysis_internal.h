/*
 * analysis_internal.h — interfaces shared by the analysis files: the term
 * order of canonical forms, integer polynomials (the affine canonical
 * form), interval bounds, and a small expression formatter for
 * diagnostics. Not installed; names use the tsla_ prefix.
 */
#ifndef TESSEL_ANALYSIS_INTERNAL_H
#define TESSEL_ANALYSIS_INTERNAL_H

#include "tessel/analysis.h"
#include "tessel/visit.h"

#include <stdint.h>

/* ---- term order --------------------------------------------------------
 * Canonical forms order their terms by a structural key that never looks at
 * addresses or ids. Variables (and buffers of loads) are keyed by `var_rank`
 * / `buf_rank` when given and nonnegative (structural equality passes the
 * binding position), else by name; remaining ties keep first-appearance
 * order. */
typedef struct tsla_order {
  int64_t (*var_rank)(const tsl_var *v, void *user_data);    /* <0: none */
  int64_t (*buf_rank)(const tsl_buffer *b, void *user_data); /* <0: none */
  void *user_data;
} tsla_order;

/* <0, 0, >0: key order of two expressions (0 = same key). */
int tsla_cmp_expr(const tsla_order *o, const tsl_expr *a, const tsl_expr *b);
/* Structural identity: same tree, vars and buffers by address. */
int tsla_expr_same(const tsl_expr *a, const tsl_expr *b);

/* ---- integer arithmetic helpers ---------------------------------------- */

/* Is `t` a scalar integer type handled by the canonical form (signed int
 * of 8..64 bits)? */
int tsla_is_sint(tsl_dtype t);
/* `v` wrapped to the width of `t` (sign- or zero-extended to 64 bits). */
int64_t tsla_wrap(tsl_dtype t, int64_t v);
int64_t tsla_floordiv(int64_t a, int64_t b); /* b != 0 */
int64_t tsla_floormod(int64_t a, int64_t b); /* b != 0 */
int64_t tsla_gcd(int64_t a, int64_t b);      /* >= 0 */

/* Saturating arithmetic on interval bounds: INT64_MIN is -inf, INT64_MAX
 * +inf. */
#define TSLA_NEG_INF INT64_MIN
#define TSLA_POS_INF INT64_MAX
int64_t tsla_sat_add(int64_t a, int64_t b);
int64_t tsla_sat_mul(int64_t a, int64_t b);

typedef struct tsla_ival {
  int64_t lo, hi;
} tsla_ival;

/* ---- polynomials -------------------------------------------------------
 * c + sum coef_k * (atom_k1 * atom_k2 * ...): atoms are variables or opaque
 * non-affine subterms. Terms are merged and ordered (by |coef| descending,
 * then key); atoms of a monomial are ordered by key. Values wrap to the
 * width of `dt`. Polys are immutable, allocated in a scratch arena. */
typedef struct tsla_term {
  int64_t coef;
  uint32_t n_atoms;
  const tsl_expr *const *atoms;
} tsla_term;

typedef struct tsla_poly {
  tsl_dtype dt;
  int64_t c;
  uint32_t n;
  const tsla_term *t;
} tsla_poly;

enum { TSLA_MAX_TERMS = 64, TSLA_MAX_DEGREE = 8, TSLA_MAX_EXPAND = 256 };

const tsla_poly *tsla_poly_const(tsl_arena *s, tsl_dtype dt, int64_t c);
const tsla_poly *tsla_poly_atom(tsl_arena *s, tsl_dtype dt, const tsl_expr *a);
/* Build from raw terms (copied): merges like terms, drops zeros, sorts. */
const tsla_poly *tsla_poly_make(tsl_arena *s, const tsla_order *o,
                                tsl_dtype dt, int64_t c, uint32_t n,
                                const tsla_term *terms);
/* p + k*q */
const tsla_poly *tsla_poly_add(tsl_arena *s, const tsla_order *o,
                               const tsla_poly *p, const tsla_poly *q,
                               int64_t k);
const tsla_poly *tsla_poly_scale(tsl_arena *s, const tsla_order *o,
                                 const tsla_poly *p, int64_t k);
/* p * q, or NULL when the expansion would exceed the size caps. */
const tsla_poly *tsla_poly_mul(tsl_arena *s, const tsla_order *o,
                               const tsla_poly *p, const tsla_poly *q);
int tsla_poly_is_const(const tsla_poly *p, int64_t *c);
/* Expression for `p`, built in `out`. */
const tsl_expr *tsla_poly_to_expr(tsl_arena *out, const tsla_poly *p);
/* Expression for one monomial (product of atoms, coefficient 1). */
const tsl_expr *tsla_mono_to_expr(tsl_arena *out, tsl_dtype dt,
                                  const tsla_term *t);

/* ---- analyzer internals ------------------------------------------------ */

typedef struct tsla_binding {
  const tsl_var *var;
  int has_range;
  tsla_ival range;       /* constant bounds, inclusive (may be infinite) */
  const tsl_expr *value; /* bind_value (or a bind of extent 1), or NULL */
  /* the range as bound, kept for symbolic interval evaluation (TVM's
   * int_set): [min, min + extent); NULL when none or a value is bound */
  const tsl_expr *min, *extent;
} tsla_binding;

enum {
  TSLA_MAX_DEPTH = 1000,     /* simplifier recursion cap */
  TSLA_BOUND_DEPTH = 64,     /* bound recursion cap (deeper: unknown) */
  TSLA_BUDGET = 4000000,     /* work units per top-level call */
  TSLA_SCRATCH_KEEP = 48 * 1024 /* scratch bytes kept between top-level calls */
};

struct tsl_analyzer {
  tsl_ctx *ctx;
  tsl_map index;  /* var -> position in binds (heap) */
  tsl_vec binds;  /* tsla_binding (heap) */
  tsla_order order; /* zeroed: by name */
  tsl_arena *out;     /* result nodes of the current call */
  tsl_arena *scratch; /* polys of the current call */
  int nest;           /* public-call nesting */
  int depth;
  int failed; /* depth or budget exceeded: the call returns its input */
  int64_t budget;
};

/* Set (or with NULL reset to by-name) the term order used by tsl_simplify. */
void tsla_analyzer_set_order(tsl_analyzer *an, const tsla_order *o);
/* Bracket a public entry point: sets the output arena, scratch and limits
 * on the outermost call. */
void tsla_enter(tsl_analyzer *an, tsl_arena *out);
void tsla_leave(tsl_analyzer *an);
/* Simplify `e` / canonical polynomial of `e` in type `dt` (inside
 * tsla_enter/leave). */
const tsl_expr *tsla_simp(tsl_analyzer *an, const tsl_expr *e);
const tsla_poly *tsla_to_poly(tsl_analyzer *an, const tsl_expr *e,
                              tsl_dtype dt);
const tsla_poly *tsla_poly_of_simplified(tsl_analyzer *an, const tsl_expr *e);
/* floordiv(x, c) / floormod(x, c) for c > 0 (divmod.c) */
const tsla_poly *tsla_floordiv_c(tsl_analyzer *an, const tsla_poly *x, int64_t c);
const tsla_poly *tsla_floormod_c(tsl_analyzer *an, const tsla_poly *x, int64_t c);
/* c*floordiv(X, c) + floormod(X, c) -> X and relatives */
const tsla_poly *tsla_recombine(tsl_analyzer *an, const tsla_poly *p);
/* p / g for g dividing every coefficient and the constant */
const tsla_poly *tsla_poly_div_exact(tsl_analyzer *an, const tsla_poly *p,
                                     int64_t g);
/* Bounds of an integer expression / polynomial under the analyzer's
 * bindings (never fails; unknown is infinite). */
tsla_ival tsla_bound_expr(tsl_analyzer *an, const tsl_expr *e, int depth);
tsla_ival tsla_bound_poly(tsl_analyzer *an, const tsla_poly *p, int depth);
/* Constant range of a bound variable; 0 when nothing is known. */
int tsla_analyzer_var_range(tsl_analyzer *an, const tsl_var *v, tsla_ival *r);
/* The binding of `v`, or NULL when it was never bound. */
static inline tsla_binding *tsla_find_binding(tsl_analyzer *an, const tsl_var *v) {
  intptr_t i = tsl_map_get_int(&an->index, v, -1);
  return i < 0 ? NULL : &TSL_VEC_AT(&an->binds, tsla_binding, i);
}
/* Bound value of a variable, or NULL. */
const tsl_expr *tsla_analyzer_var_value(tsl_analyzer *an, const tsl_var *v);
/* The symbolic range a variable was bound to (min and extent as given),
 * or 0 when it has none (unbound, or bound to a value). */
int tsla_analyzer_var_sym_range(tsl_analyzer *an, const tsl_var *v,
                                tsl_range *r);
/* floordiv / floormod by a non-constant divisor (divmod.c): the terms of
 * x that are multiples of the monomial divisor d split off, as TVM's
 * rewrite rules `floordiv(x * y + z, y) -> x + floordiv(z, y)` and
 * `floormod(x * y + z, y) -> floormod(z, y)` (any y != 0). NULL when
 * nothing splits off. */
const tsla_poly *tsla_divmod_sym(tsl_analyzer *an, tsl_expr_kind k,
                                 const tsla_poly *x, const tsla_poly *d);

/* ---- diagnostics formatter -------------------------------------------- */

/* Append the one-line TVMScript of `e` (tsl_print_expr), "None" for NULL. */
void tsla_fmt_expr(tsl_strbuf *sb, const tsl_expr *e);

/* Small builders shared by the simplifier files: results go to an->out. */
static inline const tsl_expr *tsla_from(tsl_analyzer *an, const tsla_poly *p) {
  return tsla_poly_to_expr(an->out, p);
}
static inline const tsl_expr *tsla_cint(tsl_analyzer *an, tsl_dtype t, int64_t v) {
  return tsl_expr_int(an->out, t, tsla_wrap(t, v));
}
static inline int tsla_is_const(const tsl_expr *e, int64_t *v) {
  if (e->kind != TSL_EXPR_INT_IMM || e->dtype.lanes != 1)
    return 0;
  *v = e->u.int_value;
  return 1;
}
static inline const tsl_expr *tsla_bin(tsl_analyzer *an, tsl_expr_kind k,
                                       const tsl_expr *a, const tsl_expr *b) {
  return tsl_expr_binary(an->out, k, a, b);
}

#endif /* TESSEL_ANALYSIS_INTERNAL_H */
