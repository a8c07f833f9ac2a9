/*
 * Affine iterator maps, after TVM v0.19's arith/iter_affine_map.cc:
 * DetectIterMap (a rewriter from index expressions to sums of splits of
 * fused iterator marks, with bound constraints from a predicate, padding of
 * non-dividing splits and the no-overlap / surjective / bijective checks),
 * InverseAffineIterMap (back-propagation of output values through the
 * split/fuse DAG) and NormalizeIterMapToExpr. The order in which splits are
 * matched and the shapes of the expressions built (constant folding as in
 * TVM's operators, no further simplification) follow TVM, so that what a
 * primitive prints matches TVM. Marks and splits are identified by address.
 */
#include "analysis_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- growable pointer lists (arena) ---- */

typedef struct im_list {
  const void **p;
  uint32_t n, cap;
} im_list;

static void list_push(tsl_arena *a, im_list *l, const void *x) {
  if (l->n == l->cap) {
    uint32_t nc = l->cap ? l->cap * 2 : 8;
    const void **np = TSL_NEW_ARRAY(a, const void *, nc);
    if (l->n)
      memcpy(np, l->p, l->n * sizeof *np);
    l->p = np;
    l->cap = nc;
  }
  l->p[l->n++] = x;
}

/* ---- rewriter state ---- */

typedef struct pad_info {
  const tsl_iter_mark *mark;   /* the original mark */
  const tsl_expr *factor;      /* lcm of the divisors seen in round one */
  const tsl_expr *left_pad;
  const tsl_expr *right_pad;
  const tsl_iter_mark *padded; /* round two: the padded mark, or NULL */
} pad_info;

typedef struct fuse_entry {
  const tsl_iter_sum *flattened;
  const tsl_iter_mark *mark;
  const tsl_expr *offset;
} fuse_entry;

typedef struct flat_entry {
  const tsl_iter_sum *structured, *flattened;
} flat_entry;

/* A rewritten expression: a plain expression, a split or a sum. */
typedef struct imv {
  const tsl_expr *e;
  const tsl_iter_split *sp;
  const tsl_iter_sum *sum;
} imv;

typedef struct im {
  tsl_analyzer *an;
  tsl_arena *a;
  tsl_iter_map_level level;
  int n_err;
  tsl_strbuf err; /* the first error */
  uint32_t n_in;
  const tsl_var *const *in_vars;
  imv *in_vals;
  im_list input_marks;
  im_list pads;  /* pad_info* */
  im_list fuses; /* fuse_entry* */
  im_list flats; /* flat_entry* */
  im_list constrained; /* flattened sums of constrained iterators */
  int update_padding, requires_padding;
  const tsl_expr *padding_pred;
  const char *fuse_why; /* why the last try_fuse failed, or NULL */
  int fuse_why_whole;   /* ... in a sentence that names the sum */
  /* index constants made so far, direct-mapped by value and dtype: the
   * rewriter folds scales and extents into the same few constants again
   * and again */
  const tsl_expr *consts[64];
} im;

static void im_err(im *r, const char *fmt, ...) TSL_PRINTF(2, 3);
static void im_err(im *r, const char *fmt, ...) {
  if (r->n_err++)
    return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tsl_strbuf_append(&r->err, buf);
}

/* Printed expression for messages (arena string). */
static const char *estr(im *r, const tsl_expr *e) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsla_fmt_expr(&sb, e);
  const char *s = tsl_arena_strdup(r->a, sb.data ? sb.data : "");
  tsl_strbuf_free(&sb);
  return s;
}

/* ---- expressions built as TVM's operators build them ---- */

static int cval(const tsl_expr *e, int64_t *v) { return tsla_is_const(e, v); }
static int is_c(const tsl_expr *e, int64_t c) {
  int64_t v;
  return e && cval(e, &v) && v == c;
}
static const tsl_expr *cst(im *r, tsl_dtype t, int64_t v) {
  if (t.code != TSL_DT_INT || t.lanes != 1 || (t.bits != 32 && t.bits != 64))
    return tsl_expr_int(r->a, t, tsla_wrap(t, v));
  int wide = t.bits == 64;
  if (!wide)
    v = (int32_t)(uint32_t)(uint64_t)v; /* wraps as tsla_wrap */
  uint32_t h = (uint32_t)(((uint64_t)v * 2 + (uint64_t)wide) * 0x9E3779B97F4A7C15ull >> 58);
  const tsl_expr *e = r->consts[h];
  if (!e || e->u.int_value != v || e->dtype.bits != t.bits)
    e = r->consts[h] = tsl_expr_int(r->a, t, v);
  return e;
}
static const tsl_expr *zero(im *r, tsl_dtype t) { return cst(r, t, 0); }
static const tsl_expr *one(im *r, tsl_dtype t) { return cst(r, t, 1); }

static int is_index_type(tsl_dtype t) {
  return t.code == TSL_DT_INT && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

/* x op y with TVM's constant folding (TryConstFold): both constant, or an
 * identity operand. */
static const tsl_expr *fold(im *r, tsl_expr_kind k, const tsl_expr *x,
                            const tsl_expr *y) {
  int64_t a = 0, b = 0;
  int ca = cval(x, &a), cb = cval(y, &b);
  tsl_dtype t = x->dtype;
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  int is_bool = tsl_dtype_is_bool(x->dtype) || k >= TSL_EXPR_EQ;
  if (ca && !cb && !is_bool && !tsl_dtype_eq(x->dtype, y->dtype)) {
    x = cst(r, y->dtype, a);
    t = y->dtype;
  } else if (cb && !ca && !is_bool && !tsl_dtype_eq(x->dtype, y->dtype)) {
    y = cst(r, x->dtype, b);
  } else if (ca && cb && !is_bool && !tsl_dtype_eq(x->dtype, y->dtype) &&
             y->dtype.bits > x->dtype.bits) {
    t = y->dtype;
  }
  switch (k) {
  case TSL_EXPR_ADD:
    if (ca && cb)
      return cst(r, t, (int64_t)(ua + ub));
    if (ca && a == 0)
      return y;
    if (cb && b == 0)
      return x;
    break;
  case TSL_EXPR_SUB:
    if (ca && cb)
      return cst(r, t, (int64_t)(ua - ub));
    if (cb && b == 0)
      return x;
    break;
  case TSL_EXPR_MUL:
    if (ca && cb)
      return cst(r, t, (int64_t)(ua * ub));
    if (ca && (a == 1 || a == 0))
      return a == 1 ? y : x;
    if (cb && (b == 1 || b == 0))
      return b == 1 ? x : y;
    break;
  case TSL_EXPR_DIV:
    if (ca && cb && b != 0)
      return cst(r, t, b == -1 ? (int64_t)(0 - ua) : a / b);
    if ((ca && a == 0) || (cb && b == 1))
      return x;
    break;
  case TSL_EXPR_FLOORDIV:
    if (ca && cb && b != 0)
      return cst(r, t, b == -1 ? (int64_t)(0 - ua) : tsla_floordiv(a, b));
    if ((ca && a == 0) || (cb && b == 1))
      return x;
    break;
  case TSL_EXPR_FLOORMOD:
    if (ca && cb && b != 0)
      return cst(r, t, b == -1 ? 0 : tsla_floormod(a, b));
    if (ca && a == 0)
      return x;
    if (cb && b == 1)
      return zero(r, t);
    break;
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX:
    if (ca && cb)
      return cst(r, t, (k == TSL_EXPR_MIN) == (a < b) ? a : b);
    break;
  case TSL_EXPR_EQ: if (ca && cb) return tsl_expr_bool(r->a, a == b); break;
  case TSL_EXPR_NE: if (ca && cb) return tsl_expr_bool(r->a, a != b); break;
  case TSL_EXPR_LT: if (ca && cb) return tsl_expr_bool(r->a, a < b); break;
  case TSL_EXPR_LE: if (ca && cb) return tsl_expr_bool(r->a, a <= b); break;
  case TSL_EXPR_GE: if (ca && cb) return tsl_expr_bool(r->a, a >= b); break;
  case TSL_EXPR_AND:
    if (ca)
      return a ? y : x;
    if (cb)
      return b ? x : y;
    break;
  case TSL_EXPR_OR:
    if (ca)
      return a ? x : y;
    if (cb)
      return b ? y : x;
    break;
  default:
    break;
  }
  return tsl_expr_binary(r->a, k, x, y);
}

static const tsl_expr *neg(im *r, const tsl_expr *x) {
  return fold(r, TSL_EXPR_SUB, zero(r, x->dtype), x);
}

static const tsl_expr *simp(im *r, const tsl_expr *e) {
  return tsl_simplify(r->an, r->a, e);
}

static const tsl_expr *ceildiv(im *r, const tsl_expr *x, const tsl_expr *y) {
  const tsl_expr *n =
      fold(r, TSL_EXPR_SUB, fold(r, TSL_EXPR_ADD, x, y), one(r, x->dtype));
  return fold(r, TSL_EXPR_FLOORDIV, n, y);
}

/* ---- analyzer queries ---- */

static int prove_eq(im *r, const tsl_expr *x, const tsl_expr *y) {
  int64_t a, b;
  if (cval(x, &a) && cval(y, &b))
    return a == b;
  return tsl_analyzer_equal(r->an, x, y);
}

static int prove(im *r, const tsl_expr *cond) {
  int64_t v;
  if (cval(cond, &v))
    return v != 0;
  return tsl_analyzer_can_prove(r->an, cond);
}

static int prove_ge0(im *r, const tsl_expr *e) {
  int64_t v;
  if (cval(e, &v))
    return v >= 0;
  return prove(r, tsl_expr_binary(r->a, TSL_EXPR_GE, e, zero(r, e->dtype)));
}

static int prove_lt0(im *r, const tsl_expr *e) {
  int64_t v;
  if (cval(e, &v))
    return v < 0;
  return prove(r, tsl_expr_binary(r->a, TSL_EXPR_LT, e, zero(r, e->dtype)));
}

static int divisible(im *r, const tsl_expr *x, const tsl_expr *y) {
  int64_t a, b;
  int cb = cval(y, &b);
  if (cb && b == 0)
    return 0;
  if (cval(x, &a) && cb)
    return b == -1 || a % b == 0;
  return prove_eq(r, x, y) ||
         prove(r, tsl_expr_binary(r->a, TSL_EXPR_EQ,
                                  tsl_expr_binary(r->a, TSL_EXPR_FLOORMOD, x, y),
                                  zero(r, x->dtype)));
}

/* ---- nodes ---- */

static tsl_dtype mark_dt(const tsl_iter_mark *m) { return m->extent->dtype; }
static tsl_dtype split_dt(const tsl_iter_split *s) {
  return s->lower_factor->dtype;
}

static const tsl_iter_mark *new_mark(im *r, const tsl_var *v,
                                     const tsl_expr *vmin,
                                     const tsl_iter_sum *sum,
                                     const tsl_iter_split *sp,
                                     const tsl_expr *extent) {
  tsl_iter_mark *m = TSL_NEW(r->a, tsl_iter_mark);
  m->var = v;
  m->var_min = vmin;
  m->sum = sum;
  m->split = sp;
  m->extent = extent;
  m->unpadded = NULL;
  return m;
}

static const tsl_iter_split *new_split(im *r, const tsl_iter_mark *m,
                                       const tsl_expr *lf,
                                       const tsl_expr *ext,
                                       const tsl_expr *scale) {
  tsl_iter_split *s = TSL_NEW(r->a, tsl_iter_split);
  s->source = m;
  s->lower_factor = lf;
  s->extent = ext;
  s->scale = scale;
  return s;
}

/* IterSplitExpr(mark, scale): the whole mark. */
static const tsl_iter_split *mark_split(im *r, const tsl_iter_mark *m,
                                        const tsl_expr *scale) {
  return new_split(r, m, one(r, mark_dt(m)), m->extent,
                   scale ? scale : one(r, mark_dt(m)));
}

static const tsl_iter_split *with_scale(im *r, const tsl_iter_split *s,
                                        const tsl_expr *scale) {
  return new_split(r, s->source, s->lower_factor, s->extent, scale);
}

static const tsl_iter_sum *new_sum(im *r, uint32_t n,
                                   const tsl_iter_split *const *args,
                                   const tsl_expr *base) {
  tsl_iter_sum *s = TSL_NEW(r->a, tsl_iter_sum);
  const tsl_iter_split **c = TSL_NEW_ARRAY(r->a, const tsl_iter_split *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++)
    c[i] = args[i];
  s->n = n;
  s->args = c;
  s->base = base;
  return s;
}

static const tsl_iter_sum *sum_with_base(im *r, const tsl_iter_sum *s,
                                         const tsl_expr *base) {
  return new_sum(r, s->n, s->args, base);
}

static int same(const tsl_expr *x, const tsl_expr *y) {
  return x == y || tsla_expr_same(x, y);
}

static int split_equal(const tsl_iter_split *x, const tsl_iter_split *y,
                       int check_scale) {
  return x->source == y->source && same(x->lower_factor, y->lower_factor) &&
         (!check_scale || same(x->scale, y->scale)) && same(x->extent, y->extent);
}

static int sum_equal(const tsl_iter_sum *x, const tsl_iter_sum *y) {
  if (x->n != y->n || !same(x->base, y->base))
    return 0;
  for (uint32_t i = 0; i < x->n; i++)
    if (!split_equal(x->args[i], y->args[i], 1))
      return 0;
  return 1;
}

/* Structural equality of marks (TVM keys its padding tables so): a mark
 * built again in round two (a split's mark) finds round one's padding. */
static int mark_same(const tsl_iter_mark *x, const tsl_iter_mark *y);
static int split_same(const tsl_iter_split *x, const tsl_iter_split *y) {
  return mark_same(x->source, y->source) && same(x->lower_factor, y->lower_factor) &&
         same(x->scale, y->scale) && same(x->extent, y->extent);
}
static int mark_same(const tsl_iter_mark *x, const tsl_iter_mark *y) {
  if (x == y)
    return 1;
  if (!same(x->extent, y->extent) || x->var != y->var || !x->sum != !y->sum ||
      !x->split != !y->split)
    return 0;
  if (x->var)
    return x->var_min == y->var_min ||
           (x->var_min && y->var_min && same(x->var_min, y->var_min));
  if (x->split)
    return split_same(x->split, y->split);
  if (x->sum->n != y->sum->n || !same(x->sum->base, y->sum->base))
    return 0;
  for (uint32_t i = 0; i < x->sum->n; i++)
    if (!split_same(x->sum->args[i], y->sum->args[i]))
      return 0;
  return 1;
}

static imv ev(const tsl_expr *e) {
  imv v = {e, NULL, NULL};
  return v;
}
static imv vsplit(const tsl_iter_split *s) {
  imv v = {NULL, s, NULL};
  return v;
}
static imv vsum(const tsl_iter_sum *s) {
  imv v = {NULL, NULL, s};
  return v;
}
static int is_iter(imv v) { return v.sp || v.sum; }

static const tsl_iter_sum *to_sum(im *r, imv v) {
  if (v.sum)
    return v.sum;
  if (v.sp)
    return new_sum(r, 1, &v.sp, zero(r, split_dt(v.sp)));
  return new_sum(r, 0, NULL, v.e);
}

/* ---- NormalizeIterMapToExpr ---- */

static const tsl_expr *split_expr(im *r, const tsl_iter_split *s);

static const tsl_expr *sum_expr(im *r, const tsl_iter_sum *s) {
  const tsl_expr *res = zero(r, s->base->dtype);
  for (uint32_t i = 0; i < s->n; i++)
    res = fold(r, TSL_EXPR_ADD, res, split_expr(r, s->args[i]));
  return fold(r, TSL_EXPR_ADD, res, s->base);
}

static const tsl_expr *mark_source_expr(im *r, const tsl_iter_mark *m) {
  if (m->var)
    return m->var_min ? fold(r, TSL_EXPR_SUB, tsl_expr_var(m->var), m->var_min)
                      : tsl_expr_var(m->var);
  if (m->sum)
    return sum_expr(r, m->sum);
  return split_expr(r, m->split);
}

static const tsl_expr *split_expr(im *r, const tsl_iter_split *s) {
  const tsl_expr *src = mark_source_expr(r, s->source);
  const tsl_expr *mext = s->source->extent;
  if (prove_eq(r, s->extent, mext) && is_c(s->lower_factor, 1))
    return fold(r, TSL_EXPR_MUL, src, s->scale);
  if (prove_eq(r, mext, fold(r, TSL_EXPR_MUL, s->lower_factor, s->extent))) {
    if (is_c(s->extent, 1) && !is_c(mext, 1))
      return zero(r, s->extent->dtype);
    return fold(r, TSL_EXPR_MUL, fold(r, TSL_EXPR_FLOORDIV, src, s->lower_factor),
                s->scale);
  }
  const tsl_expr *m = fold(r, TSL_EXPR_FLOORMOD, src,
                           fold(r, TSL_EXPR_MUL, s->lower_factor, s->extent));
  return fold(r, TSL_EXPR_MUL, fold(r, TSL_EXPR_FLOORDIV, m, s->lower_factor),
              s->scale);
}

/* ---- product normal form ---- */

static void unpack_mul(const tsl_expr *e, const tsl_expr **out, uint32_t *n,
                       uint32_t cap) {
  if (e->kind == TSL_EXPR_MUL) {
    unpack_mul(e->args[0], out, n, cap);
    unpack_mul(e->args[1], out, n, cap);
  } else if (*n < cap) {
    out[(*n)++] = e;
  }
}

static uint32_t mul_size(const tsl_expr *e) {
  const tsl_expr *f[64];
  uint32_t n = 0;
  unpack_mul(e, f, &n, 64);
  return n;
}

/* TVM's MulAndNormalize: symbolic factors first, the constant last. */
static const tsl_expr *mul_norm(im *r, const tsl_expr *x, const tsl_expr *y) {
  const tsl_expr *f[64];
  uint32_t n = 0;
  unpack_mul(x, f, &n, 64);
  unpack_mul(y, f, &n, 64);
  int64_t c = 1, v;
  const tsl_expr *res = one(r, x->dtype);
  for (uint32_t i = 0; i < n; i++) {
    if (cval(f[i], &v))
      c = (int64_t)((uint64_t)c * (uint64_t)v);
    else
      res = fold(r, TSL_EXPR_MUL, res, f[i]);
  }
  if (c != 1)
    res = fold(r, TSL_EXPR_MUL, res, cst(r, res->dtype, c));
  return res;
}

/* ---- searching the splits of a sum ---- */

static int find_base(im *r, const tsl_iter_sum *e, const char *skip,
                     const tsl_iter_mark *match, int rbegin) {
  (void)r;
  if (rbegin < 0)
    rbegin = (int)e->n - 1;
  int base = -1;
  int64_t minc = 0, v;
  for (int i = rbegin; i >= 0; i--) {
    if (skip[i] || (match && e->args[i]->source != match))
      continue;
    if (!cval(e->args[i]->scale, &v))
      continue;
    if (base == -1 || v < minc) {
      minc = v;
      base = i;
    } else if (v == minc && is_c(e->args[i]->extent, 1) &&
               !is_c(e->args[base]->extent, 1)) {
      base = i;
    }
  }
  uint32_t minr = 0;
  for (int i = rbegin; i >= 0; i--) {
    if (skip[i] || (match && e->args[i]->source != match))
      continue;
    uint32_t rs = mul_size(e->args[i]->scale);
    if (base == -1 || rs < minr) {
      minr = rs;
      base = i;
    }
  }
  return base;
}

static int first_unit_extent(const tsl_iter_sum *e) {
  for (uint32_t i = 0; i < e->n; i++)
    if (is_c(e->args[i]->extent, 1))
      return (int)i;
  return (int)e->n;
}

static int find_exact_scale(im *r, const tsl_iter_sum *e, const char *skip,
                            const tsl_expr *expected,
                            const tsl_iter_mark *match, int rbegin,
                            int first_unit) {
  if (rbegin < 0)
    rbegin = (int)e->n - 1;
  int matched = -1;
  for (int j = rbegin; j >= 0; j--) {
    if (skip[j] || (match && e->args[j]->source != match))
      continue;
    if (prove_eq(r, e->args[j]->scale, expected)) {
      if (is_c(e->args[j]->extent, 1))
        return j;
      if (matched == -1)
        matched = j;
      if (j <= first_unit)
        return matched;
    }
  }
  return matched;
}

static int find_smaller_closest(im *r, const tsl_iter_sum *e, const char *skip,
                                const tsl_expr *expected,
                                const tsl_expr **out_scale) {
  int matched = -1;
  const tsl_expr *ms = NULL;
  for (int j = (int)e->n - 1; j >= 0; j--) {
    if (skip[j])
      continue;
    const tsl_expr *cur = e->args[j]->scale;
    if (prove_ge0(r, fold(r, TSL_EXPR_SUB, expected, cur)) && prove_ge0(r, cur)) {
      if (matched == -1 || prove_lt0(r, fold(r, TSL_EXPR_SUB, ms, cur))) {
        matched = j;
        ms = cur;
      }
    }
  }
  *out_scale = ms;
  return matched;
}

/* ((x // (c*s)) % m) * s*t + ((x // c) % s) * t  =>  (x // c) % (m*s) * t:
 * merge consecutive splits of one mark; NULL when no mark repeats. */
static const tsl_iter_sum *try_combine(im *r, const tsl_iter_sum *e) {
  if (e->n <= 1)
    return NULL;
  uint32_t n = e->n;
  uint32_t *hits = TSL_NEW_ARRAY(r->a, uint32_t, n);
  int overlap = 0;
  for (uint32_t i = 0; i < n; i++) {
    hits[i] = 0;
    for (uint32_t j = 0; j < n; j++)
      if (e->args[j]->source == e->args[i]->source)
        hits[i]++;
    overlap |= hits[i] > 1;
  }
  if (!overlap)
    return NULL;
  char *visited = TSL_NEW_ARRAY(r->a, char, n);
  const tsl_iter_split **rev = TSL_NEW_ARRAY(r->a, const tsl_iter_split *, n);
  uint32_t nrev = 0;
  int first_unit = first_unit_extent(e);
  for (int rend = (int)n - 1; rend >= 0;) {
    if (visited[rend]) {
      rend--;
      continue;
    }
    if (hits[rend] == 1) {
      rev[nrev++] = e->args[rend];
      visited[rend] = 1;
      rend--;
      continue;
    }
    int mi = find_base(r, e, visited, e->args[rend]->source, rend);
    if (mi < 0) { /* cannot happen: args[rend] itself qualifies */
      rend--;
      continue;
    }
    visited[mi] = 1;
    const tsl_iter_split *rhs = e->args[mi];
    for (;;) {
      const tsl_expr *lhs_scale = mul_norm(r, rhs->extent, rhs->scale);
      mi = find_exact_scale(r, e, visited, lhs_scale, rhs->source, rend, first_unit);
      if (mi == -1)
        break;
      const tsl_iter_split *lhs = e->args[mi];
      const tsl_expr *lhs_lf = mul_norm(r, rhs->lower_factor, rhs->extent);
      if (!prove_eq(r, lhs->lower_factor, lhs_lf))
        break;
      visited[mi] = 1;
      rhs = new_split(r, rhs->source, rhs->lower_factor,
                      mul_norm(r, lhs->extent, rhs->extent), rhs->scale);
    }
    rev[nrev++] = rhs;
  }
  const tsl_iter_split **args = TSL_NEW_ARRAY(r->a, const tsl_iter_split *, nrev ? nrev : 1);
  for (uint32_t i = 0; i < nrev; i++)
    args[i] = rev[nrev - 1 - i];
  return new_sum(r, nrev, args, e->base);
}

static fuse_entry *fuse_find(im *r, const tsl_iter_sum *flat) {
  for (uint32_t i = 0; i < r->fuses.n; i++) {
    fuse_entry *f = (fuse_entry *)r->fuses.p[i];
    if (sum_equal(f->flattened, flat))
      return f;
  }
  return NULL;
}

static flat_entry *flat_find(im *r, const tsl_iter_sum *structured) {
  for (uint32_t i = 0; i < r->flats.n; i++) {
    flat_entry *f = (flat_entry *)r->flats.p[i];
    if (sum_equal(f->structured, structured))
      return f;
  }
  return NULL;
}

static const tsl_iter_sum *fuse_fail(im *r, const char *fmt, ...) TSL_PRINTF(2, 3);
static const tsl_iter_sum *fuse_fail(im *r, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  r->fuse_why = tsl_arena_strdup(r->a, buf);
  r->fuse_why_whole = buf[0] == '`';
  return NULL;
}

/* sum = x1*c1 + ... + xn*cn + base = y*cn + base with y a fused mark of
 * x1..xn (scales multiply up by extents; a NO_CHECK/SURJECTIVE map may
 * leave gaps). Returns the sum of one split, or NULL with r->fuse_why. */
static const tsl_iter_sum *try_fuse(im *r, const tsl_iter_sum *e,
                                    tsl_iter_map_level level, int early_skip) {
  r->fuse_why = NULL;
  const tsl_iter_sum *comb = try_combine(r, e);
  if (comb) {
    e = comb;
    if (e->n <= 1 && early_skip)
      return e;
  }
  uint32_t n = e->n;
  char *visited = TSL_NEW_ARRAY(r->a, char, n ? n : 1);
  int base_index = find_base(r, e, visited, NULL, -1);
  if (base_index == -1)
    return fuse_fail(r, "it has no iterator");
  tsl_dtype dt = e->base->dtype;
  const tsl_expr *base_scale = e->args[base_index]->scale;
  const tsl_iter_split **flat = TSL_NEW_ARRAY(r->a, const tsl_iter_split *, n);
  const tsl_iter_split **grouped = TSL_NEW_ARRAY(r->a, const tsl_iter_split *, n);
  uint32_t nflat = 0, ngroup = 0;
  const tsl_expr *extra_base = zero(r, dt), *tail = zero(r, dt);
  const tsl_expr *expected = base_scale;
  int first_unit = first_unit_extent(e);
  const tsl_iter_split *last = NULL; /* the term matched last */
  for (uint32_t i = 0; i < n;) {
    const tsl_expr *matched_scale = NULL;
    int exact = 0;
    int mp = i == 0 ? base_index
                    : find_exact_scale(r, e, visited, expected, NULL, -1, first_unit);
    if (mp != -1) {
      matched_scale = expected;
      exact = 1;
    }
    int gaps = level != TSL_ITER_MAP_BIJECTIVE && is_c(base_scale, 1);
    if (mp == -1 && gaps)
      mp = find_smaller_closest(r, e, visited, expected, &matched_scale);
    if (mp == -1)
      return fuse_fail(r, "%s has extent %s, so the next term must have scale %s%s, "
                          "and none has",
                       estr(r, split_expr(r, last)), estr(r, last->extent),
                       gaps ? "0 to " : "", estr(r, expected));
    const tsl_iter_sum *ctm = NULL;
    for (uint32_t k = 0; k < r->constrained.n; k++) {
      const tsl_iter_sum *c = r->constrained.p[k];
      if (c->n && split_equal(e->args[mp], c->args[c->n - 1], 0) &&
          (!ctm || ctm->n < c->n))
        ctm = c;
    }
    if (ctm) {
      for (int it = (int)ctm->n - 1; it >= 0; it--) {
        uint32_t k = 0;
        for (; k < n; k++)
          if (!visited[k] && split_equal(e->args[k], ctm->args[it], 0) &&
              prove_eq(r, fold(r, TSL_EXPR_MUL, ctm->args[it]->scale, matched_scale),
                       e->args[k]->scale))
            break;
        if (k == n)
          return fuse_fail(r, "`%s` uses only part of `%s`, which the predicate bounds; "
                              "it must use all of it or none",
                           estr(r, sum_expr(r, sum_with_base(r, e, zero(r, dt)))),
                           estr(r, sum_expr(r, ctm)));
        visited[k] = 1;
        flat[nflat++] = e->args[k];
      }
      fuse_entry *fe = fuse_find(r, ctm);
      if (!fe)
        return fuse_fail(r, "the bounded sum %s was not fused", estr(r, sum_expr(r, ctm)));
      grouped[ngroup++] =
          mark_split(r, fe->mark, fold(r, TSL_EXPR_FLOORDIV, matched_scale, base_scale));
      extra_base = fold(r, TSL_EXPR_ADD, extra_base,
                        fold(r, TSL_EXPR_MUL, fe->offset, matched_scale));
      if (!exact)
        tail = fold(r, TSL_EXPR_ADD, tail, fold(r, TSL_EXPR_SUB, expected, matched_scale));
      expected = mul_norm(r, fe->mark->extent, matched_scale);
      last = mark_split(r, fe->mark, matched_scale);
      i += ctm->n;
    } else {
      visited[mp] = 1;
      const tsl_iter_split *arg = with_scale(
          r, e->args[mp], simp(r, fold(r, TSL_EXPR_FLOORDIV, e->args[mp]->scale, base_scale)));
      flat[nflat++] = arg;
      grouped[ngroup++] = arg;
      if (!exact)
        tail = fold(r, TSL_EXPR_ADD, tail, fold(r, TSL_EXPR_SUB, expected, matched_scale));
      expected = mul_norm(r, e->args[mp]->extent, matched_scale);
      last = e->args[mp];
      i++;
    }
  }
  const tsl_iter_split **fr = TSL_NEW_ARRAY(r->a, const tsl_iter_split *, nflat ? nflat : 1);
  const tsl_iter_split **gr = TSL_NEW_ARRAY(r->a, const tsl_iter_split *, ngroup ? ngroup : 1);
  for (uint32_t k = 0; k < nflat; k++)
    fr[k] = flat[nflat - 1 - k];
  for (uint32_t k = 0; k < ngroup; k++)
    gr[k] = grouped[ngroup - 1 - k];
  const tsl_iter_sum *flattened = new_sum(r, nflat, fr, zero(r, dt));
  const tsl_iter_sum *structured = new_sum(r, ngroup, gr, zero(r, dt));
  fuse_entry *fe = fuse_find(r, flattened);
  if (fe) {
    if (!prove_eq(r, extra_base, fold(r, TSL_EXPR_MUL, fe->offset, base_scale)))
      return fuse_fail(r, "its offset from the predicate's lower bound differs from "
                          "another use's");
    const tsl_iter_split *s = mark_split(r, fe->mark, base_scale);
    return new_sum(r, 1, &s, fold(r, TSL_EXPR_ADD, e->base, extra_base));
  }
  const tsl_iter_mark *mark =
      new_mark(r, NULL, NULL, structured, NULL,
               fold(r, TSL_EXPR_ADD, fold(r, TSL_EXPR_DIV, expected, base_scale), tail));
  fe = TSL_NEW(r->a, fuse_entry);
  fe->flattened = flattened;
  fe->mark = mark;
  fe->offset = extra_base;
  list_push(r->a, &r->fuses, fe);
  flat_entry *fl = TSL_NEW(r->a, flat_entry);
  fl->structured = structured;
  fl->flattened = flattened;
  list_push(r->a, &r->flats, fl);
  const tsl_iter_split *s = mark_split(r, mark, base_scale);
  return new_sum(r, 1, &s, fold(r, TSL_EXPR_ADD, e->base, extra_base));
}

/* ---- padding of non-dividing splits ---- */

static pad_info *pad_find(im *r, const tsl_iter_mark *m) {
  for (uint32_t i = 0; i < r->pads.n; i++) {
    pad_info *p = (pad_info *)r->pads.p[i];
    if (mark_same(p->mark, m))
      return p;
  }
  return NULL;
}

static void fsplit(const tsl_expr *e, const tsl_expr **sym, int64_t *c) {
  int64_t v;
  if (cval(e, &v)) {
    *sym = NULL;
    *c = v;
  } else if (e->kind == TSL_EXPR_MUL && cval(e->args[1], &v)) {
    *sym = e->args[0];
    *c = v;
  } else if (e->kind == TSL_EXPR_MUL && cval(e->args[0], &v)) {
    *sym = e->args[1];
    *c = v;
  } else {
    *sym = e;
    *c = 1;
  }
}

static const tsl_expr *approx_lcm(im *r, const tsl_expr *x, const tsl_expr *y) {
  const tsl_expr *s1, *s2;
  int64_t c1, c2;
  fsplit(x, &s1, &c1);
  fsplit(y, &s2, &c2);
  tsl_dtype t = x->dtype;
  int64_t g = tsla_gcd(c1, c2);
  const tsl_expr *lcm = cst(r, t, g ? c1 / g * c2 : 0);
  if (!s1)
    s1 = one(r, t);
  if (!s2)
    s2 = one(r, t);
  if (prove_eq(r, s1, s2) ||
      prove_eq(r, fold(r, TSL_EXPR_FLOORMOD, s1, s2), zero(r, t)))
    return fold(r, TSL_EXPR_MUL, s1, lcm);
  if (prove_eq(r, fold(r, TSL_EXPR_FLOORMOD, s2, s1), zero(r, t)))
    return fold(r, TSL_EXPR_MUL, s2, lcm);
  return fold(r, TSL_EXPR_MUL, fold(r, TSL_EXPR_MUL, s1, s2), lcm);
}

static const char *mark_desc(im *r, const tsl_iter_mark *m);

/* (split + base) padded so that `divisor` divides it: round one collects
 * the divisors per mark, round two replaces the mark by its padded form.
 * Returns the split (NULL on error) and the left padding of this use. */
static const tsl_iter_split *pad_dividend(im *r, const tsl_iter_split *split,
                                          const tsl_expr *base,
                                          const tsl_expr *divisor,
                                          const tsl_expr **left_pad_out) {
  tsl_dtype t = split_dt(split);
  const tsl_expr *left_pad = simp(r, fold(r, TSL_EXPR_FLOORMOD, base, divisor));
  const tsl_expr *right_edge = fold(r, TSL_EXPR_ADD, left_pad, split->extent);
  const tsl_expr *right_pad =
      divisible(r, right_edge, divisor)
          ? zero(r, t)
          : simp(r, fold(r, TSL_EXPR_FLOORMOD, neg(r, right_edge), divisor));
  const tsl_iter_mark *mark = split->source;
  *left_pad_out = left_pad;
  if (r->update_padding) {
    pad_info *info = pad_find(r, mark);
    if (!info) {
      info = TSL_NEW(r->a, pad_info);
      info->mark = mark;
      info->factor = one(r, t);
      info->left_pad = zero(r, t);
      info->right_pad = zero(r, t);
      list_push(r->a, &r->pads, info);
    }
    info->factor = approx_lcm(r, info->factor,
                              fold(r, TSL_EXPR_MUL, divisor, split->lower_factor));
    if (is_c(left_pad, 0) && is_c(right_pad, 0)) {
      *left_pad_out = zero(r, t);
      return split;
    }
    r->requires_padding = 1;
    const tsl_expr *mlp = fold(r, TSL_EXPR_MUL, left_pad, split->lower_factor);
    info->left_pad = fold(r, TSL_EXPR_MAX, info->left_pad, mlp);
    const tsl_expr *ext = simp(r, fold(r, TSL_EXPR_ADD,
                                       fold(r, TSL_EXPR_ADD, left_pad, split->extent),
                                       right_pad));
    return new_split(r, split->source, split->lower_factor, ext, split->scale);
  }
  pad_info *info = pad_find(r, mark);
  if (!info || (is_c(info->left_pad, 0) && divisible(r, mark->extent, info->factor))) {
    /* unpadded: the callers take (split + base) to start at a multiple of
     * the divisor; TVM goes on when it does not ((c + 8) % 6 became c) */
    if (!prove_eq(r, left_pad, zero(r, t))) {
      im_err(r, "dividing %s by %s needs %s padded on the left by %s%s",
             estr(r, fold(r, TSL_EXPR_ADD, split_expr(r, split), base)), estr(r, divisor),
             mark_desc(r, mark), estr(r, fold(r, TSL_EXPR_MUL, left_pad, split->lower_factor)),
             r->level == TSL_ITER_MAP_BIJECTIVE
                 ? ", which a bijective map cannot take"
                 : "");
      return NULL;
    }
    return split;
  }
  if (!divisible(r, info->factor, split->lower_factor) ||
      !divisible(r, info->factor, divisor)) {
    im_err(r, "the padding factor %s is not divisible by %s and %s",
           estr(r, info->factor), estr(r, split->lower_factor), estr(r, divisor));
    return NULL;
  }
  /* every use sees the mark shifted by its left padding: this use's offset
   * must agree with it modulo the divisor (TVM checks the first use only,
   * and only that the padding is a multiple of the lower factor) */
  const tsl_expr *mlp = info->left_pad;
  if (!divisible(r, mlp, split->lower_factor)) {
    im_err(r, "incompatible left padding on %s: the iterator is left padded with %s",
           estr(r, split_expr(r, split)), estr(r, mlp));
    return NULL;
  }
  const tsl_expr *use_pad = left_pad;
  left_pad = fold(r, TSL_EXPR_FLOORDIV, mlp, split->lower_factor);
  *left_pad_out = left_pad;
  if (!prove_eq(r, simp(r, fold(r, TSL_EXPR_FLOORMOD, fold(r, TSL_EXPR_SUB, left_pad, use_pad),
                                divisor)),
                zero(r, t))) {
    im_err(r, "dividing %s by %s needs %s padded on the left by %s (modulo %s), but "
              "another index pads it by %s",
           estr(r, fold(r, TSL_EXPR_ADD, split_expr(r, split), base)), estr(r, divisor),
           mark_desc(r, mark), estr(r, fold(r, TSL_EXPR_MUL, use_pad, split->lower_factor)),
           estr(r, fold(r, TSL_EXPR_MUL, divisor, split->lower_factor)), estr(r, mlp));
    return NULL;
  }
  if (!info->padded) {
    const tsl_expr *redge = fold(r, TSL_EXPR_ADD, mark->extent, mlp);
    const tsl_expr *mrp =
        divisible(r, redge, info->factor)
            ? zero(r, t)
            : fold(r, TSL_EXPR_FLOORMOD, neg(r, redge), info->factor);
    const tsl_expr *pext = simp(r, fold(r, TSL_EXPR_ADD, redge, mrp));
    info->right_pad = mrp;
    const tsl_iter_split *whole = mark_split(r, mark, NULL);
    tsl_iter_mark *pm =
        (tsl_iter_mark *)new_mark(r, NULL, NULL, new_sum(r, 1, &whole, mlp), NULL, pext);
    pm->unpadded = mark;
    info->padded = pm;
    const tsl_expr *src = sum_expr(r, info->padded->sum);
    const tsl_expr *f = info->factor;
    const tsl_expr *z = zero(r, t);
    const tsl_expr *lp = fold(
        r, TSL_EXPR_AND, fold(r, TSL_EXPR_NE, mlp, z),
        fold(r, TSL_EXPR_AND,
             fold(r, TSL_EXPR_EQ, fold(r, TSL_EXPR_FLOORDIV, src, f), z),
             fold(r, TSL_EXPR_LT, fold(r, TSL_EXPR_FLOORMOD, src, f), mlp)));
    const tsl_expr *rp = fold(
        r, TSL_EXPR_AND, fold(r, TSL_EXPR_NE, mrp, z),
        fold(r, TSL_EXPR_AND,
             fold(r, TSL_EXPR_EQ, fold(r, TSL_EXPR_FLOORDIV, src, f),
                  fold(r, TSL_EXPR_FLOORDIV, redge, f)),
             fold(r, TSL_EXPR_GE, fold(r, TSL_EXPR_FLOORMOD, src, f),
                  fold(r, TSL_EXPR_FLOORMOD, redge, f))));
    r->padding_pred =
        fold(r, TSL_EXPR_OR, r->padding_pred, fold(r, TSL_EXPR_OR, lp, rp));
  }
  return new_split(r, info->padded, split->lower_factor,
                   fold(r, TSL_EXPR_FLOORDIV, info->padded->extent, split->lower_factor),
                   split->scale);
}

/* ---- floordiv / floormod by a constant ---- */

static imv none_v(void) {
  imv v = {NULL, NULL, NULL};
  return v;
}
static int is_none(imv v) { return !v.e && !v.sp && !v.sum; }

static imv split_floordiv(im *r, const tsl_iter_split *lhs, const tsl_expr *base,
                          const tsl_expr *rhs) {
  if (is_c(rhs, 1))
    return is_c(base, 0) ? vsplit(lhs) : vsum(new_sum(r, 1, &lhs, base));
  if (!is_c(lhs->scale, 1)) {
    if (divisible(r, lhs->scale, rhs) && is_c(base, 0)) {
      return vsplit(with_scale(r, lhs, fold(r, TSL_EXPR_FLOORDIV, lhs->scale, rhs)));
    } else if (divisible(r, lhs->scale, rhs) && divisible(r, base, rhs)) {
      const tsl_iter_split *s =
          with_scale(r, lhs, fold(r, TSL_EXPR_FLOORDIV, lhs->scale, rhs));
      return vsum(new_sum(r, 1, &s, fold(r, TSL_EXPR_FLOORDIV, base, rhs)));
    } else if (divisible(r, rhs, lhs->scale) && is_c(base, 0)) {
      rhs = fold(r, TSL_EXPR_FLOORDIV, rhs, lhs->scale);
      lhs = with_scale(r, lhs, one(r, rhs->dtype));
    } else if (divisible(r, rhs, lhs->scale) && divisible(r, base, lhs->scale)) {
      base = fold(r, TSL_EXPR_FLOORDIV, base, lhs->scale);
      rhs = fold(r, TSL_EXPR_FLOORDIV, rhs, lhs->scale);
      lhs = with_scale(r, lhs, one(r, rhs->dtype));
    } else {
      im_err(r, "the scale %s of the dividend and the divisor %s do not divide "
                "each other",
             estr(r, lhs->scale), estr(r, rhs));
      return none_v();
    }
  }
  const tsl_expr *left_pad;
  const tsl_iter_split *p = pad_dividend(r, lhs, base, rhs, &left_pad);
  if (!p)
    return none_v();
  const tsl_iter_split *ns;
  if (divisible(r, p->extent, rhs)) {
    ns = new_split(r, p->source, fold(r, TSL_EXPR_MUL, p->lower_factor, rhs),
                   simp(r, fold(r, TSL_EXPR_FLOORDIV, p->extent, rhs)), p->scale);
  } else if (is_c(p->lower_factor, 1) && prove_eq(r, p->extent, p->source->extent)) {
    ns = new_split(r, p->source, rhs, simp(r, ceildiv(r, p->extent, rhs)), p->scale);
  } else {
    ns = new_split(r, new_mark(r, NULL, NULL, NULL, p, p->extent), rhs,
                   simp(r, ceildiv(r, p->extent, rhs)), one(r, rhs->dtype));
  }
  const tsl_expr *nb =
      simp(r, fold(r, TSL_EXPR_FLOORDIV, fold(r, TSL_EXPR_SUB, base, left_pad), rhs));
  return is_c(nb, 0) ? vsplit(ns) : vsum(new_sum(r, 1, &ns, nb));
}

static imv split_floormod(im *r, const tsl_iter_split *lhs, const tsl_expr *base,
                          const tsl_expr *rhs) {
  tsl_dtype t = split_dt(lhs);
  if (is_c(rhs, 1))
    return ev(zero(r, t));
  if (!is_c(lhs->scale, 1)) {
    if (divisible(r, lhs->scale, rhs) && divisible(r, base, rhs)) {
      return ev(zero(r, t));
    } else if (divisible(r, rhs, lhs->scale) && is_c(base, 0)) {
      rhs = fold(r, TSL_EXPR_FLOORDIV, rhs, lhs->scale);
    } else if (divisible(r, rhs, lhs->scale) && divisible(r, base, lhs->scale)) {
      rhs = fold(r, TSL_EXPR_FLOORDIV, rhs, lhs->scale);
      base = fold(r, TSL_EXPR_FLOORDIV, base, lhs->scale);
    } else {
      im_err(r, "the scale %s of the dividend and the modulus %s do not divide "
                "each other",
             estr(r, lhs->scale), estr(r, rhs));
      return none_v();
    }
  }
  /* (source // lower_factor) % extent % rhs is (source // lower_factor) %
   * rhs only when rhs divides the extent or the split never wraps (it is
   * the top of its mark); TVM assumes it always ((x % 4) % 8 became x % 8) */
  if (!divisible(r, lhs->extent, rhs) &&
      !prove(r, fold(r, TSL_EXPR_GE, fold(r, TSL_EXPR_MUL, lhs->lower_factor, lhs->extent),
                     lhs->source->extent))) {
    if (is_c(base, 0) && prove(r, fold(r, TSL_EXPR_GE, rhs, lhs->extent)))
      return vsplit(lhs); /* below the modulus: the split itself */
    im_err(r, "%s wraps at %s, which the modulus %s does not divide",
           estr(r, split_expr(r, with_scale(r, lhs, one(r, t)))), estr(r, lhs->extent),
           estr(r, rhs));
    return none_v();
  }
  const tsl_expr *left_pad;
  const tsl_iter_split *p = pad_dividend(r, lhs, base, rhs, &left_pad);
  if (!p)
    return none_v();
  return vsplit(new_split(r, p->source, p->lower_factor, rhs, p->scale));
}

static const tsl_iter_sum *preprocess_dividend(im *r, imv a,
                                               const tsl_expr *orig) {
  if (a.sp)
    return new_sum(r, 1, &a.sp, zero(r, split_dt(a.sp)));
  if (a.sum->n == 0)
    return NULL;
  if (a.sum->n == 1)
    return a.sum;
  const tsl_iter_sum *f = try_fuse(r, a.sum, r->level, 1);
  if (!f) {
    im_err(r, "the dividend %s is not a single fused iterator: %s", estr(r, orig),
           r->fuse_why);
    return NULL;
  }
  return f;
}

/* ---- the rewriter ---- */

static imv mutate(im *r, const tsl_expr *e);

static int try_fold(im *r, tsl_expr_kind k, imv a, imv b, tsl_dtype t,
                    imv *out) {
  int64_t x = 0, y = 0;
  int ca = a.e && cval(a.e, &x), cb = b.e && cval(b.e, &y);
  if (ca && cb) {
    if ((k == TSL_EXPR_FLOORDIV || k == TSL_EXPR_FLOORMOD) && y == 0)
      return 0;
    *out = ev(fold(r, k, a.e, b.e));
    return 1;
  }
  switch (k) {
  case TSL_EXPR_ADD:
    if (ca && x == 0) { *out = b; return 1; }
    if (cb && y == 0) { *out = a; return 1; }
    break;
  case TSL_EXPR_SUB:
    if (cb && y == 0) { *out = a; return 1; }
    break;
  case TSL_EXPR_MUL:
    if (ca && (x == 1 || x == 0)) { *out = x == 1 ? b : a; return 1; }
    if (cb && (y == 1 || y == 0)) { *out = y == 1 ? a : b; return 1; }
    break;
  case TSL_EXPR_FLOORDIV:
    if ((ca && x == 0) || (cb && y == 1)) { *out = a; return 1; }
    break;
  case TSL_EXPR_FLOORMOD:
    if (ca && x == 0) { *out = a; return 1; }
    if (cb && y == 1) { *out = ev(zero(r, t)); return 1; }
    break;
  default:
    break;
  }
  return 0;
}

static const tsl_iter_sum *add_split(im *r, const tsl_iter_sum *lhs,
                                     const tsl_iter_split *rhs, int sign) {
  for (uint32_t i = 0; i < lhs->n; i++) {
    const tsl_iter_split *lv = lhs->args[i];
    if (lv->source == rhs->source && same(lv->lower_factor, rhs->lower_factor) &&
        same(lv->extent, rhs->extent)) {
      const tsl_iter_split **args =
          TSL_NEW_ARRAY(r->a, const tsl_iter_split *, lhs->n);
      memcpy(args, lhs->args, lhs->n * sizeof *args);
      args[i] = with_scale(r, rhs, fold(r, sign > 0 ? TSL_EXPR_ADD : TSL_EXPR_SUB,
                                        lv->scale, rhs->scale));
      return new_sum(r, lhs->n, args, lhs->base);
    }
  }
  const tsl_iter_split **args = TSL_NEW_ARRAY(r->a, const tsl_iter_split *, lhs->n + 1);
  if (lhs->n)
    memcpy(args, lhs->args, lhs->n * sizeof *args);
  args[lhs->n] = sign > 0 ? rhs : with_scale(r, rhs, neg(r, rhs->scale));
  return new_sum(r, lhs->n + 1, args, lhs->base);
}

static const tsl_iter_sum *add_sum(im *r, const tsl_iter_sum *lhs,
                                   const tsl_iter_sum *rhs, int sign) {
  for (uint32_t i = 0; i < rhs->n; i++)
    lhs = add_split(r, lhs, rhs->args[i], sign);
  return sum_with_base(r, lhs, fold(r, sign > 0 ? TSL_EXPR_ADD : TSL_EXPR_SUB,
                                    lhs->base, rhs->base));
}

static imv mutate_generic(im *r, const tsl_expr *e) {
  if (!e->n_args)
    return ev(e);
  const tsl_expr **args = TSL_NEW_ARRAY(r->a, const tsl_expr *, e->n_args);
  int changed = 0;
  for (uint32_t i = 0; i < e->n_args; i++) {
    imv v = mutate(r, e->args[i]);
    if (is_iter(v)) {
      im_err(r, "%s is not an affine expression of the iterators (only +, "
                "-, and *, // and %% by non-iterators are)",
             estr(r, e));
      args[i] = e->args[i];
    } else {
      args[i] = v.e;
      changed |= v.e != e->args[i];
    }
  }
  return ev(changed ? tsl_expr_with_args(r->a, e, e->n_args, args) : e);
}

static imv mutate_binary(im *r, const tsl_expr *e) {
  tsl_expr_kind k = (tsl_expr_kind)e->kind;
  imv a = mutate(r, e->args[0]), b = mutate(r, e->args[1]), out;
  if (try_fold(r, k, a, b, e->dtype, &out))
    return out;
  if (!is_iter(a) && !is_iter(b))
    return ev(a.e == e->args[0] && b.e == e->args[1]
                  ? e
                  : tsl_expr_binary(r->a, k, a.e, b.e));
  switch (k) {
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB: {
    int sign = k == TSL_EXPR_ADD ? 1 : -1;
    const tsl_iter_sum *s = to_sum(r, a);
    if (!is_iter(b))
      return vsum(sum_with_base(r, s, fold(r, k, s->base, b.e)));
    if (b.sum)
      return vsum(add_sum(r, s, b.sum, sign));
    return vsum(add_split(r, s, b.sp, sign));
  }
  case TSL_EXPR_MUL: {
    if (is_iter(a) && is_iter(b)) {
      im_err(r, "%s multiplies two iterators", estr(r, e));
      return ev(e);
    }
    if (!is_iter(a)) {
      imv t = a;
      a = b;
      b = t;
    }
    if (a.sp)
      return vsplit(with_scale(r, a.sp, fold(r, TSL_EXPR_MUL, a.sp->scale, b.e)));
    const tsl_iter_split **args =
        TSL_NEW_ARRAY(r->a, const tsl_iter_split *, a.sum->n ? a.sum->n : 1);
    for (uint32_t i = 0; i < a.sum->n; i++)
      args[i] = with_scale(r, a.sum->args[i],
                           fold(r, TSL_EXPR_MUL, a.sum->args[i]->scale, b.e));
    return vsum(new_sum(r, a.sum->n, args, fold(r, TSL_EXPR_MUL, a.sum->base, b.e)));
  }
  default: { /* FLOORDIV, FLOORMOD */
    if (is_iter(b)) {
      im_err(r, "%s divides by an iterator", estr(r, e));
      return ev(e);
    }
    const tsl_iter_sum *pre = preprocess_dividend(r, a, e->args[0]);
    if (!pre)
      return ev(e);
    imv res = k == TSL_EXPR_FLOORDIV
                  ? split_floordiv(r, pre->args[0], pre->base, b.e)
                  : split_floormod(r, pre->args[0], pre->base, b.e);
    return is_none(res) ? ev(e) : res;
  }
  }
}

static imv mutate(im *r, const tsl_expr *e) {
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_VAR:
    for (uint32_t k = 0; k < r->n_in; k++)
      if (r->in_vars[k] == e->u.var)
        return r->in_vals[k];
    return ev(e);
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
  case TSL_EXPR_MUL:
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD:
    if (is_index_type(e->dtype))
      return mutate_binary(r, e);
    return mutate_generic(r, e);
  default:
    return mutate_generic(r, e);
  }
}

static const tsl_iter_sum *rewrite(im *r, const tsl_expr *e) {
  const tsl_iter_sum *s = to_sum(r, mutate(r, e));
  if (s->n < 1)
    return s;
  const tsl_iter_sum *f = try_fuse(r, s, r->level, 1);
  if (f)
    return f;
  if (r->fuse_why_whole)
    im_err(r, "%s", r->fuse_why);
  else
    im_err(r, "%s is not a fused sum of the iterators: %s", estr(r, e), r->fuse_why);
  return s;
}

/* ---- bound constraints from the predicate ---- */

typedef struct iter_constraint {
  const tsl_expr *iter;
  const tsl_expr *lower; /* inclusive, or NULL */
  const tsl_expr *upper; /* exclusive, or NULL */
  uint32_t size;
} iter_constraint;

static void rewrite_constraint(im *r, const iter_constraint *c) {
  const tsl_iter_sum *e = to_sum(r, mutate(r, c->iter));
  const tsl_expr *lo = c->lower, *hi = c->upper;
  const tsl_expr *base = e->base;
  if (!is_c(base, 0)) {
    e = sum_with_base(r, e, zero(r, base->dtype));
    if (lo)
      lo = fold(r, TSL_EXPR_SUB, lo, base);
    if (hi)
      hi = fold(r, TSL_EXPR_SUB, hi, base);
  }
  const tsl_iter_sum *opt = try_fuse(r, e, r->level, 0);
  if (!opt) {
    im_err(r, "the constraint on %s does not bound a fused iterator: %s", estr(r, c->iter),
           r->fuse_why);
    return;
  }
  if (opt->n != 1 || !is_c(opt->args[0]->scale, 1) || !opt->args[0]->source->sum) {
    im_err(r, "the constraint on %s does not bound a fused iterator%s%s", estr(r, c->iter),
           opt->n == 1 ? ": its terms share the factor " : "",
           opt->n == 1 ? estr(r, opt->args[0]->scale) : "");
    return;
  }
  const tsl_iter_sum *structured = opt->args[0]->source->sum;
  flat_entry *fl = flat_find(r, structured);
  fuse_entry *fe = fl ? fuse_find(r, fl->flattened) : NULL;
  if (!fe) {
    im_err(r, "the constraint on %s does not bound a fused iterator",
           estr(r, c->iter));
    return;
  }
  const tsl_iter_sum *flattened = fl->flattened;
  const tsl_iter_mark *mark = fe->mark;
  tsl_dtype t = mark_dt(mark);
  const tsl_expr *imin = fe->offset;
  const tsl_expr *imax = fold(r, TSL_EXPR_ADD, imin, mark->extent);
  const tsl_expr *delta = zero(r, t);
  if (lo) {
    const tsl_expr *m = fold(r, TSL_EXPR_MAX, lo, imin);
    delta = fold(r, TSL_EXPR_SUB, m, imin);
    imin = m;
  }
  if (hi) {
    if (prove(r, fold(r, TSL_EXPR_LE, hi, imax)))
      imax = hi;
    else
      imax = fold(r, TSL_EXPR_MIN, hi, imax);
  }
  const tsl_iter_sum *src = mark->sum;
  if (!is_c(delta, 0)) {
    src = sum_with_base(r, structured, fold(r, TSL_EXPR_SUB, structured->base, delta));
    fl->structured = src;
  }
  fe->mark = new_mark(r, NULL, NULL, src, NULL, fold(r, TSL_EXPR_SUB, imax, imin));
  fe->offset = imin;
  list_push(r->a, &r->constrained, flattened);
}

static int uses_input(im *r, const tsl_expr *e);
typedef struct use_ctx {
  const im *r;
} use_ctx;
static int use_fn(const tsl_expr *e, void *ud) {
  const im *r = ((use_ctx *)ud)->r;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t k = 0; k < r->n_in; k++)
    if (r->in_vars[k] == e->u.var)
      return 1;
  return 0;
}
static int uses_input(im *r, const tsl_expr *e) {
  use_ctx u = {r};
  return tsl_expr_visit(e, use_fn, &u);
}

static int count_fn(const tsl_expr *e, void *ud) {
  (void)e;
  ++*(uint32_t *)ud;
  return 0;
}

static void extract_parts(im *r, const tsl_expr *part, int sign,
                          const tsl_expr **lhs, const tsl_expr **rhs) {
  if (part->kind == TSL_EXPR_ADD) {
    extract_parts(r, part->args[0], sign, lhs, rhs);
    extract_parts(r, part->args[1], sign, lhs, rhs);
  } else if (part->kind == TSL_EXPR_SUB) {
    extract_parts(r, part->args[0], sign, lhs, rhs);
    extract_parts(r, part->args[1], !sign, lhs, rhs);
  } else if (uses_input(r, part)) {
    *lhs = fold(r, sign ? TSL_EXPR_ADD : TSL_EXPR_SUB, *lhs, part);
  } else {
    *rhs = fold(r, sign ? TSL_EXPR_SUB : TSL_EXPR_ADD, *rhs, part);
  }
}

/* TVM's MatchBoundConstraints: peel `rest && (a < b)` (then <=, >, >=)
 * off the predicate; a bound on one iterator narrows mins/exts[k]. */
static int match_constraints(im *r, const tsl_expr *pred, const tsl_expr **mins,
                             const tsl_expr **exts, iter_constraint **out,
                             uint32_t *n_out) {
  static const tsl_expr_kind order[4] = {TSL_EXPR_LT, TSL_EXPR_LE, TSL_EXPR_GT,
                                         TSL_EXPR_GE};
  im_list found = {0};
  for (;;) {
    const tsl_expr *cmp = NULL, *rest = NULL;
    for (int o = 0; o < 4 && !cmp; o++) {
      if (pred->kind == TSL_EXPR_AND) {
        if (pred->args[1]->kind == order[o]) {
          cmp = pred->args[1];
          rest = pred->args[0];
        } else if (pred->args[0]->kind == order[o]) {
          cmp = pred->args[0];
          rest = pred->args[1];
        }
      } else if (pred->kind == order[o]) {
        cmp = pred;
      }
    }
    if (!cmp)
      return 0;
    tsl_expr_kind k = (tsl_expr_kind)cmp->kind;
    int greater = k == TSL_EXPR_GT || k == TSL_EXPR_GE;
    int equal = k == TSL_EXPR_LE || k == TSL_EXPR_GE;
    const tsl_expr *lhs = cmp->args[0], *rhs = cmp->args[1];
    if (lhs->dtype.code != TSL_DT_INT && lhs->dtype.code != TSL_DT_UINT)
      return 0;
    if (rhs->dtype.code != TSL_DT_INT && rhs->dtype.code != TSL_DT_UINT)
      return 0;
    int ul = uses_input(r, lhs), ur = uses_input(r, rhs);
    if (ul || ur) {
      int64_t v;
      int bound_left;
      if (cval(lhs, &v) || !ul) {
        bound_left = 1;
      } else if (cval(rhs, &v) || !ur) {
        bound_left = 0;
      } else {
        bound_left = 0;
        const tsl_expr *parts = fold(r, TSL_EXPR_SUB, lhs, rhs);
        lhs = zero(r, lhs->dtype);
        rhs = zero(r, rhs->dtype);
        extract_parts(r, parts, 1, &lhs, &rhs);
        tsl_analyzer *fresh = tsl_analyzer_new(tsl_arena_ctx(r->a));
        lhs = tsl_simplify(fresh, r->a, lhs);
        rhs = tsl_simplify(fresh, r->a, rhs);
        tsl_analyzer_free(fresh);
      }
      const tsl_expr *lo = NULL, *hi = NULL, *iter;
      const tsl_expr *c1 = one(r, lhs->dtype);
      if (greater) {
        if (bound_left) {
          hi = equal ? fold(r, TSL_EXPR_ADD, lhs, c1) : lhs;
          iter = rhs;
        } else {
          lo = equal ? rhs : fold(r, TSL_EXPR_ADD, rhs, c1);
          iter = lhs;
        }
      } else {
        if (bound_left) {
          lo = equal ? lhs : fold(r, TSL_EXPR_ADD, lhs, c1);
          iter = rhs;
        } else {
          hi = equal ? fold(r, TSL_EXPR_ADD, rhs, c1) : rhs;
          iter = lhs;
        }
      }
      int single = -1;
      if (iter->kind == TSL_EXPR_VAR)
        for (uint32_t q = 0; q < r->n_in; q++)
          if (r->in_vars[q] == iter->u.var)
            single = (int)q;
      if (single >= 0) {
        const tsl_expr *mn = mins[single];
        const tsl_expr *mx = fold(r, TSL_EXPR_ADD, mins[single], exts[single]);
        if (lo)
          mn = fold(r, TSL_EXPR_MAX, mn, lo);
        if (hi)
          mx = fold(r, TSL_EXPR_MIN, mx, hi);
        mins[single] = mn;
        exts[single] = is_c(mn, 0) ? mx : fold(r, TSL_EXPR_SUB, mx, mn);
      } else {
        iter_constraint *ic = TSL_NEW(r->a, iter_constraint);
        ic->iter = iter;
        ic->lower = lo;
        ic->upper = hi;
        tsl_expr_visit(iter, count_fn, &ic->size);
        list_push(r->a, &found, ic);
      }
    }
    if (!rest)
      break;
    pred = rest;
  }
  *out = TSL_NEW_ARRAY(r->a, iter_constraint, found.n ? found.n : 1);
  *n_out = found.n;
  for (uint32_t i = 0; i < found.n; i++)
    (*out)[i] = *(const iter_constraint *)found.p[i];
  return 1;
}

/* Two constrained iterators' flattened forms either nest or are disjoint. */
static int check_constraints(im *r) {
  for (uint32_t i = 0; i < r->constrained.n; i++) {
    const tsl_iter_sum *x = r->constrained.p[i];
    for (uint32_t j = i + 1; j < r->constrained.n; j++) {
      const tsl_iter_sum *y = r->constrained.p[j];
      int state = 0;
      for (uint32_t a = 0; a < x->n; a++) {
        int found = 0;
        for (uint32_t b = 0; b < y->n && !found; b++)
          found = split_equal(x->args[a], y->args[b], 1);
        if (state == 0)
          state = found ? 1 : -1;
        else if ((state == -1 && found) || (state == 1 && !found))
          return 0;
      }
    }
  }
  return 1;
}

/* ---- the independence checks ---- */

typedef struct mark_splits {
  const tsl_iter_mark *mark;
  im_list splits;
} mark_splits;

typedef struct collector {
  im_list marks; /* mark_splits*, visit order */
} collector;

static mark_splits *coll_find(collector *c, const tsl_iter_mark *m) {
  for (uint32_t i = 0; i < c->marks.n; i++) {
    mark_splits *ms = (mark_splits *)c->marks.p[i];
    if (ms->mark == m)
      return ms;
  }
  return NULL;
}

static mark_splits *coll_visit(im *r, collector *c, const tsl_iter_mark *m);

static void coll_split(im *r, collector *c, const tsl_iter_split *s) {
  mark_splits *ms = coll_visit(r, c, s->source);
  list_push(r->a, &ms->splits, s);
}

static mark_splits *coll_visit(im *r, collector *c, const tsl_iter_mark *m) {
  mark_splits *ms = coll_find(c, m);
  if (ms)
    return ms;
  ms = TSL_NEW(r->a, mark_splits);
  ms->mark = m;
  list_push(r->a, &c->marks, ms);
  if (m->sum)
    for (uint32_t i = 0; i < m->sum->n; i++)
      coll_split(r, c, m->sum->args[i]);
  return ms;
}

static uint32_t search_skip(im *r, const im_list *splits, const char *used,
                            const tsl_expr *expected) {
  uint32_t n = splits->n, res = n;
  for (uint32_t i = 0; i < n; i++) {
    if (used[i])
      continue;
    const tsl_iter_split *s = splits->p[i];
    if (!divisible(r, s->lower_factor, expected))
      return n;
    if (res == n ||
        divisible(r, ((const tsl_iter_split *)splits->p[res])->lower_factor,
                  s->lower_factor))
      res = i;
  }
  return res;
}

/* "iterator 'v'" or "the fused iterator <expr>" for messages. */
static const char *mark_desc(im *r, const tsl_iter_mark *m) {
  char buf[512];
  while (m->sum && m->sum->n == 1 && is_c(m->sum->base, 0) &&
         is_c(m->sum->args[0]->lower_factor, 1) && is_c(m->sum->args[0]->scale, 1) &&
         same(m->sum->args[0]->extent, m->extent) &&
         same(m->sum->args[0]->source->extent, m->extent))
    m = m->sum->args[0]->source; /* a wrapper of one whole mark */
  if (m->unpadded)
    snprintf(buf, sizeof buf, "%s (padded to %s)", mark_desc(r, m->unpadded),
             estr(r, m->extent));
  else if (m->var)
    snprintf(buf, sizeof buf, "iterator '%s'", m->var->name);
  else
    snprintf(buf, sizeof buf, "the fused iterator %s", estr(r, mark_source_expr(r, m)));
  return tsl_arena_strdup(r->a, buf);
}

/* TVM's TryNormalizeSplits: the splits of `m` chain up from lower factor 1
 * without overlap (and, by level, cover it). */
static int normalize_splits(im *r, const tsl_iter_mark *m, const im_list *splits,
                            tsl_iter_map_level level) {
  uint32_t n = splits->n;
  char *used = TSL_NEW_ARRAY(r->a, char, n ? n : 1);
  const tsl_expr *expected = one(r, mark_dt(m));
  for (uint32_t i = 0; i < n; i++) {
    uint32_t j = 0;
    for (; j < n; j++)
      if (!used[j] &&
          prove_eq(r, ((const tsl_iter_split *)splits->p[j])->lower_factor, expected))
        break;
    if (j == n) {
      if (level != TSL_ITER_MAP_BIJECTIVE)
        j = search_skip(r, splits, used, expected);
      if (j == n) {
        im_err(r, "the indices use %s %s", mark_desc(r, m),
               i == 0 ? "only in parts above its lowest (they do not tell all "
                        "its values apart)"
                      : "in overlapping or non-adjacent parts");
        return 0;
      }
    }
    used[j] = 1;
    const tsl_iter_split *s = splits->p[j];
    expected = fold(r, TSL_EXPR_MUL, s->lower_factor, s->extent);
  }
  const tsl_iter_mark *origin = m->unpadded;
  int full = prove_eq(r, expected, m->extent);
  int divides = full || divisible(r, m->extent, expected);
  if (level == TSL_ITER_MAP_BIJECTIVE) {
    if (origin) {
      im_err(r, "a bijective map cannot pad an iterator");
      return 0;
    }
    if (!full) {
      im_err(r, "the indices do not cover all of %s", mark_desc(r, m));
      return 0;
    }
  } else if (!origin) {
    if (!divides) {
      im_err(r, "the extent %s of %s is not a multiple of %s, the span of the parts the "
                "indices use",
             estr(r, m->extent), mark_desc(r, m), estr(r, expected));
      return 0;
    }
  } else if (level == TSL_ITER_MAP_SURJECTIVE) {
    const tsl_expr *before = origin->extent;
    const tsl_expr *ge = fold(r, TSL_EXPR_GE, before, expected);
    if (full) {
      if (n != 1) {
        im_err(r, "the indices cover %s in %u parts, which depend on each other through "
                  "the padding; a padded iterator may be covered by one part only",
               mark_desc(r, m), n);
        return 0;
      }
      if (prove_eq(r, ((const tsl_iter_split *)splits->p[0])->extent, expected) &&
          !prove(r, ge)) {
        im_err(r, "an index takes all %s values of %s, but the iterator has only %s",
               estr(r, expected), mark_desc(r, m), estr(r, before));
        return 0;
      }
    } else if (divides) {
      if (!prove(r, ge)) {
        im_err(r, "%s has %s values before padding, fewer than the %s that the indices "
                  "use",
               mark_desc(r, m), estr(r, before), estr(r, expected));
        return 0;
      }
    } else {
      im_err(r, "the extent %s of %s is not a multiple of %s, the span of the parts the "
                "indices use",
             estr(r, m->extent), mark_desc(r, m), estr(r, expected));
      return 0;
    }
  }
  return n > 0;
}

static int check_mapping(im *r, uint32_t n, const tsl_iter_sum *const *idx,
                         tsl_iter_map_level level) {
  collector c = {{0}};
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < idx[i]->n; k++)
      coll_split(r, &c, idx[i]->args[k]);
  for (uint32_t i = 0; i < c.marks.n; i++) {
    const mark_splits *ms = c.marks.p[i];
    if (!normalize_splits(r, ms->mark, &ms->splits, level))
      return 0;
  }
  if (level == TSL_ITER_MAP_BIJECTIVE)
    for (uint32_t i = 0; i < r->input_marks.n; i++) {
      const tsl_iter_mark *m = r->input_marks.p[i];
      if (!coll_find(&c, m) && !is_c(m->extent, 1)) {
        im_err(r, "the indices do not use %s", mark_desc(r, m));
        return 0;
      }
    }
  return 1;
}

/* ---- DetectIterMap ---- */

static int detect_fail(im *r, tsl_diag *diag, const char *summary) {
  if (r->err.len) /* the first reason says more than the summary */
    tsl_diag_set(diag, TSL_EUNSUPPORTED, "%s", r->err.data);
  else
    tsl_diag_set(diag, TSL_EUNSUPPORTED, "%s", summary);
  tsl_strbuf_free(&r->err);
  return TSL_EUNSUPPORTED;
}

int tsl_iter_map_detect(tsl_analyzer *an, tsl_arena *arena, uint32_t n_indices,
                        const tsl_expr *const *indices, uint32_t n_iters,
                        const tsl_var *const *iters, const tsl_range *doms,
                        const tsl_expr *predicate, tsl_iter_map_level level,
                        int simplify_trivial, tsl_iter_map *out,
                        tsl_diag *diag) {
  im r;
  memset(&r, 0, sizeof r);
  tsl_strbuf_init(&r.err);
  tsl_analyzer *own = an ? NULL : tsl_analyzer_new(tsl_arena_ctx(arena));
  r.an = an ? an : own;
  r.a = arena;
  r.level = level;
  r.n_in = n_iters;
  r.in_vars = iters;
  r.in_vals = TSL_NEW_ARRAY(arena, imv, n_iters ? n_iters : 1);
  r.padding_pred = tsl_expr_bool(arena, 0);
  memset(out, 0, sizeof *out);
  int rc = TSL_OK;
  const tsl_expr **mins = TSL_NEW_ARRAY(arena, const tsl_expr *, n_iters ? n_iters : 1);
  const tsl_expr **exts = TSL_NEW_ARRAY(arena, const tsl_expr *, n_iters ? n_iters : 1);
  for (uint32_t k = 0; k < n_iters; k++) {
    mins[k] = doms[k].min;
    exts[k] = doms[k].extent;
    if (uses_input(&r, mins[k]) || uses_input(&r, exts[k])) {
      rc = detect_fail(&r, diag, "the domain of an iterator uses another iterator");
      goto done;
    }
  }
  iter_constraint *cons = NULL;
  uint32_t n_cons = 0;
  int64_t pv;
  if (predicate && !(cval(predicate, &pv) && pv) &&
      !match_constraints(&r, predicate, mins, exts, &cons, &n_cons)) {
    rc = detect_fail(&r, diag, "the predicate is not a conjunction of bounds on the iterators");
    goto done;
  }
  for (uint32_t i = 1; i < n_cons; i++) /* stable, by size */
    for (uint32_t j = i; j > 0 && cons[j - 1].size > cons[j].size; j--) {
      iter_constraint t = cons[j];
      cons[j] = cons[j - 1];
      cons[j - 1] = t;
    }
  for (uint32_t k = 0; k < n_iters; k++) {
    if (simplify_trivial && is_c(exts[k], 1)) {
      r.in_vals[k] = vsum(new_sum(&r, 0, NULL, mins[k]));
    } else if (is_c(mins[k], 0)) {
      const tsl_iter_mark *m = new_mark(&r, iters[k], NULL, NULL, NULL, exts[k]);
      r.in_vals[k] = vsplit(mark_split(&r, m, NULL));
      list_push(arena, &r.input_marks, m);
    } else {
      const tsl_iter_mark *m = new_mark(&r, iters[k], mins[k], NULL, NULL, exts[k]);
      const tsl_iter_split *s = mark_split(&r, m, NULL);
      r.in_vals[k] = vsum(new_sum(&r, 1, &s, mins[k]));
      list_push(arena, &r.input_marks, m);
    }
  }
  for (uint32_t i = 0; i < n_cons; i++) {
    rewrite_constraint(&r, &cons[i]);
    if (r.n_err) {
      rc = detect_fail(&r, diag, "the predicate's bounds are not on fused iterators");
      goto done;
    }
  }
  if (!check_constraints(&r)) {
    rc = detect_fail(&r, diag, "the predicate's bounds overlap");
    goto done;
  }
  const tsl_iter_sum **res =
      TSL_NEW_ARRAY(arena, const tsl_iter_sum *, n_indices ? n_indices : 1);
  int allow_padding = level != TSL_ITER_MAP_BIJECTIVE;
  if (allow_padding) {
    r.update_padding = 1;
    for (uint32_t i = 0; i < n_indices; i++) {
      res[i] = rewrite(&r, indices[i]);
      if (r.n_err) {
        rc = detect_fail(&r, diag, "an index is not an affine map of the iterators");
        goto done;
      }
    }
    r.update_padding = 0;
  }
  if (!allow_padding || r.requires_padding) {
    for (uint32_t i = 0; i < n_indices; i++) {
      res[i] = rewrite(&r, indices[i]);
      if (r.n_err) {
        rc = detect_fail(&r, diag, "an index is not an affine map of the iterators");
        goto done;
      }
    }
  }
  if (!check_mapping(&r, n_indices, res, level)) {
    rc = detect_fail(&r, diag, level == TSL_ITER_MAP_BIJECTIVE
                                   ? "the indices are not a bijective map of the iterators"
                                   : "the indices are not independent");
    goto done;
  }
  out->n = n_indices;
  out->indices = res;
  out->padding_predicate = r.padding_pred;
  tsl_strbuf_free(&r.err);
done:
  if (own)
    tsl_analyzer_free(own);
  return rc;
}

/* ---- InverseAffineIterMap ---- */

typedef struct inv_node {
  const void *node; /* a tsl_iter_sum or tsl_iter_split */
  int is_sum;
  const tsl_expr *val;
} inv_node;

typedef struct inv_ctx {
  im *r;
  im_list order; /* inv_node*, post-DFS */
  int bad;
} inv_ctx;

static inv_node *inv_find(inv_ctx *c, const void *node) {
  for (uint32_t i = 0; i < c->order.n; i++) {
    inv_node *x = (inv_node *)c->order.p[i];
    if (x->node == node)
      return x;
  }
  return NULL;
}

static void inv_visit(inv_ctx *c, const void *node, int is_sum) {
  if (inv_find(c, node))
    return;
  if (is_sum) {
    const tsl_iter_sum *s = node;
    for (uint32_t i = 0; i < s->n; i++)
      inv_visit(c, s->args[i], 0);
  } else {
    const tsl_iter_split *sp = node;
    if (sp->source->sum)
      inv_visit(c, sp->source->sum, 1);
    else if (sp->source->split)
      c->bad = 1;
  }
  inv_node *x = TSL_NEW(c->r->a, inv_node);
  x->node = node;
  x->is_sum = is_sum;
  list_push(c->r->a, &c->order, x);
}

int tsl_iter_map_inverse(tsl_arena *arena, uint32_t n,
                         const tsl_iter_sum *const *sums,
                         const tsl_expr *const *outputs, uint32_t *n_vars,
                         const tsl_var ***vars, const tsl_expr ***values,
                         tsl_diag *diag) {
  im r;
  memset(&r, 0, sizeof r);
  r.a = arena;
  r.an = tsl_analyzer_new(tsl_arena_ctx(arena));
  inv_ctx c = {&r, {0}, 0};
  int rc = TSL_OK;
  for (uint32_t i = 0; i < n; i++)
    inv_visit(&c, sums[i], 1);
  if (c.bad) {
    rc = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                      "the map divides a padded iterator; it has no inverse");
    goto done;
  }
  for (uint32_t i = 0; i < c.order.n; i++)
    ((inv_node *)c.order.p[i])->val = tsl_expr_i32(arena, 0);
  for (uint32_t i = 0; i < n; i++)
    inv_find(&c, sums[i])->val = outputs[i];
  im_list ivars = {0}, ivals = {0};
  for (uint32_t q = c.order.n; q-- > 0;) {
    inv_node *x = (inv_node *)c.order.p[q];
    if (x->is_sum) {
      const tsl_iter_sum *s = x->node;
      const tsl_expr *input = fold(&r, TSL_EXPR_SUB, x->val, s->base);
      if (s->n == 1) {
        const tsl_iter_split *a = s->args[0];
        if (!is_c(a->scale, 1) && !is_c(a->scale, -1)) {
          rc = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                            "an index scales an iterator by %s; only 1 or -1 "
                            "can be inverted",
                            estr(&r, a->scale));
          goto done;
        }
        inv_node *y = inv_find(&c, a);
        y->val = fold(&r, TSL_EXPR_MUL, fold(&r, TSL_EXPR_ADD, y->val, input), a->scale);
        continue;
      }
      if (s->n) {
        const tsl_expr *expected = s->args[s->n - 1]->scale;
        for (uint32_t i = s->n; i > 0; i--) {
          if (!prove_eq(&r, s->args[i - 1]->scale, expected)) {
            rc = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                              "the splits of a fused index do not multiply up "
                              "(scale %s where %s is needed); it has no inverse",
                              estr(&r, s->args[i - 1]->scale), estr(&r, expected));
            goto done;
          }
          expected = fold(&r, TSL_EXPR_MUL, expected, s->args[i - 1]->extent);
        }
      }
      for (uint32_t i = s->n; i > 0; i--) {
        const tsl_iter_split *a = s->args[i - 1];
        const tsl_expr *prop = fold(&r, TSL_EXPR_FLOORDIV, input, a->scale);
        if (i > 1)
          prop = fold(&r, TSL_EXPR_FLOORMOD, prop, a->extent);
        inv_node *y = inv_find(&c, a);
        y->val = fold(&r, TSL_EXPR_ADD, y->val, prop);
      }
    } else {
      const tsl_iter_split *sp = x->node;
      const tsl_expr *input = fold(&r, TSL_EXPR_MUL, x->val, sp->lower_factor);
      const tsl_iter_mark *m = sp->source;
      if (m->sum) {
        inv_node *y = inv_find(&c, m->sum);
        y->val = fold(&r, TSL_EXPR_ADD, y->val, input);
        continue;
      }
      uint32_t k = 0;
      while (k < ivars.n && ivars.p[k] != m)
        k++;
      if (k < ivars.n) {
        ivals.p[k] = fold(&r, TSL_EXPR_ADD, ivals.p[k], input);
      } else {
        list_push(arena, &ivars, m);
        list_push(arena, &ivals, input);
      }
    }
  }
  *n_vars = ivars.n;
  *vars = TSL_NEW_ARRAY(arena, const tsl_var *, ivars.n ? ivars.n : 1);
  *values = TSL_NEW_ARRAY(arena, const tsl_expr *, ivars.n ? ivars.n : 1);
  for (uint32_t k = 0; k < ivars.n; k++) {
    const tsl_iter_mark *m = ivars.p[k];
    (*vars)[k] = m->var;
    (*values)[k] = m->var_min ? fold(&r, TSL_EXPR_ADD, ivals.p[k], m->var_min)
                              : ivals.p[k];
  }
done:
  tsl_analyzer_free(r.an);
  return rc;
}

/* ---- NormalizeIterMapToExpr ---- */

const tsl_expr *tsl_iter_sum_to_expr(tsl_analyzer *an, tsl_arena *arena,
                                     const tsl_iter_sum *sum) {
  im r;
  memset(&r, 0, sizeof r);
  r.a = arena;
  r.an = an ? an : tsl_analyzer_new(tsl_arena_ctx(arena));
  const tsl_expr *e = sum_expr(&r, sum);
  if (!an)
    tsl_analyzer_free(r.an);
  return e;
}

const tsl_expr *tsl_iter_split_to_expr(tsl_analyzer *an, tsl_arena *arena,
                                       const tsl_iter_split *split) {
  im r;
  memset(&r, 0, sizeof r);
  r.a = arena;
  r.an = an ? an : tsl_analyzer_new(tsl_arena_ctx(arena));
  const tsl_expr *e = split_expr(&r, split);
  if (!an)
    tsl_analyzer_free(r.an);
  return e;
}

int tsl_iter_sum_as_line(const tsl_iter_sum *s, const tsl_expr **base,
                         int64_t *scale, const tsl_expr **extent) {
  *base = s->base;
  *scale = 0;
  *extent = NULL;
  if (s->n == 0)
    return 1;
  if (s->n > 1 || !tsl_expr_is_const_int(s->args[0]->scale, scale))
    return 0;
  *extent = s->args[0]->extent;
  return 1;
}
