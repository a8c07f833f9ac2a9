/*
 * tsl_iter_map_detect: do integer index expressions form an iterator map
 * of the given loop iterators (TVM's DetectIterMap)? Each index is
 * rewritten into a sum of splits `(mark // lower) % extent * scale` of
 * iterator marks (an input iterator, or a fused sum of splits such as
 * `i * 4 + j`), plus a base that uses no input iterator. The predicate's
 * conjuncts `lo <= sum < hi` shrink fused marks, so a binding must use a
 * constrained sum whole. The indices form a map when, for every mark, the
 * splits taken of it do not overlap and tile a divisor of its extent
 * (surjective), or tile it exactly with every iterator used (bijective).
 * Scales and lower factors are constants; extents may be symbolic.
 */
#include "analysis_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct im_mark im_mark;

typedef struct im_split {
  im_mark *mark;
  int64_t lower;          /* lower factor */
  const tsl_expr *extent; /* number of values */
  int64_t scale;
  int padded; /* taken of the mark padded to pad_extent */
} im_split;

typedef struct im_sum {
  uint32_t n;
  im_split *args;
  const tsl_expr *base; /* uses no input iterator */
} im_sum;

struct im_mark {
  int input;              /* an input iterator; else a fused sum */
  im_sum src;             /* fused: its splits, scales relative */
  const tsl_expr *extent;
  int64_t pad_extent;     /* > 0: a non-dividing split padded it to this */
  int visited;
  uint32_t n_splits, cap_splits;
  im_split *splits; /* splits taken of this mark by the indices */
};

/* A fused sum seen before, keyed by its flattened splits. */
typedef struct im_fused {
  im_sum flat;    /* in chain order, scales relative to the base scale */
  im_mark *mark;
  const tsl_expr *offset; /* a predicate's lower bound moved into the base */
  int constrained;
  const tsl_expr *src; /* constrained: the bounded expression */
} im_fused;

typedef struct im_ctx {
  tsl_analyzer *an;
  tsl_arena *a;
  tsl_dtype dt;
  uint32_t level;
  uint32_t n_in;
  const tsl_var **in_vars;
  const tsl_expr **in_min;
  im_mark **in_marks;
  uint32_t n_fused, cap_fused;
  im_fused *fused;
  uint32_t n_visited, cap_visited;
  im_mark **visited;
  const tsl_expr *cur; /* the index or bound being rewritten */
  char err[400];
} im_ctx;

/* ---- small helpers ------------------------------------------------------- */

static int fail(im_ctx *x, const char *fmt, ...) TSL_PRINTF(2, 3);
static int fail(im_ctx *x, const char *fmt, ...) {
  if (!x->err[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, sizeof x->err, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static const char *show(im_ctx *x, const tsl_expr *e) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsla_fmt_expr(&sb, e);
  const char *r = tsl_arena_strdup(x->a, sb.data ? sb.data : "?");
  tsl_strbuf_free(&sb);
  return r;
}

static const tsl_expr *cint(im_ctx *x, int64_t v) {
  return tsl_expr_int(x->a, x->dt, v);
}

static const tsl_expr *simp(im_ctx *x, const tsl_expr *e) {
  return tsl_simplify(x->an, x->a, e);
}

static const tsl_expr *bin(im_ctx *x, tsl_expr_kind k, const tsl_expr *l,
                           const tsl_expr *r) {
  if (l->dtype.code != r->dtype.code || l->dtype.bits != r->dtype.bits)
    r = tsl_expr_cast(x->a, l->dtype, r);
  return simp(x, tsl_expr_binary(x->a, k, l, r));
}

static int is_const(im_ctx *x, const tsl_expr *e, int64_t *v) {
  return tsl_expr_is_const_int(e, v) ||
         tsl_expr_is_const_int(simp(x, e), v);
}

static int equal(im_ctx *x, const tsl_expr *a, const tsl_expr *b) {
  return tsl_analyzer_equal(x->an, a, b);
}

static int prove(im_ctx *x, tsl_expr_kind k, const tsl_expr *a,
                 const tsl_expr *b) {
  if (a->dtype.code != b->dtype.code || a->dtype.bits != b->dtype.bits)
    b = tsl_expr_cast(x->a, a->dtype, b);
  return tsl_analyzer_can_prove(x->an, tsl_expr_binary(x->a, k, a, b));
}

/* 1 when `e` is provably a multiple of c > 0. */
static int divisible(im_ctx *x, const tsl_expr *e, int64_t c) {
  int64_t v;
  if (c == 1)
    return 1;
  if (is_const(x, e, &v))
    return tsla_floormod(v, c) == 0;
  return is_const(x, bin(x, TSL_EXPR_FLOORMOD, e, cint(x, c)), &v) && v == 0;
}

static int uses_input(im_ctx *x, const tsl_expr *e) {
  for (uint32_t i = 0; i < x->n_in; i++)
    if (tsl_expr_uses_var(e, x->in_vars[i]))
      return 1;
  return 0;
}

static im_sum sum_const(const tsl_expr *base) {
  im_sum s = {0, NULL, base};
  return s;
}

static im_split *split_array(im_ctx *x, uint32_t n) {
  return TSL_NEW_ARRAY(x->a, im_split, n ? n : 1);
}

static int same_split(const im_split *p, const im_split *q, im_ctx *x) {
  return p->mark == q->mark && p->lower == q->lower && p->padded == q->padded &&
         (p->extent == q->extent || equal(x, p->extent, q->extent));
}

/* ---- rewriting expressions into sums of splits --------------------------- */

static void add_split(im_ctx *x, im_sum *s, im_split sp, int64_t sign) {
  for (uint32_t i = 0; i < s->n; i++)
    if (same_split(&s->args[i], &sp, x)) {
      s->args[i].scale += sign * sp.scale;
      if (s->args[i].scale == 0) {
        memmove(&s->args[i], &s->args[i + 1], sizeof *s->args * (s->n - i - 1));
        s->n--;
      }
      return;
    }
  s->args[s->n] = sp;
  s->args[s->n++].scale = sign * sp.scale;
}

static im_sum merge(im_ctx *x, const im_sum *a, const im_sum *b, int64_t sign) {
  im_sum s = {0, split_array(x, a->n + b->n), NULL};
  for (uint32_t i = 0; i < a->n; i++)
    add_split(x, &s, a->args[i], 1);
  for (uint32_t i = 0; i < b->n; i++)
    add_split(x, &s, b->args[i], sign);
  s.base = bin(x, sign > 0 ? TSL_EXPR_ADD : TSL_EXPR_SUB, a->base, b->base);
  return s;
}

static im_sum scaled(im_ctx *x, const im_sum *a, int64_t k) {
  im_sum s = {0, split_array(x, a->n), bin(x, TSL_EXPR_MUL, a->base, cint(x, k))};
  if (k == 0)
    return s;
  for (uint32_t i = 0; i < a->n; i++) {
    s.args[i] = a->args[i];
    s.args[i].scale *= k;
  }
  s.n = a->n;
  return s;
}

static int fuse(im_ctx *x, const im_sum *s, int is_constraint, im_sum *out,
                im_fused **entry);

/* (sp + base) // c and (sp + base) % c, c > 1 */
static int split_divmod(im_ctx *x, im_split sp, const tsl_expr *base,
                        int64_t c, int is_mod, const tsl_expr *src,
                        im_sum *out) {
  int64_t sc = sp.scale;
  if (sc < 0)
    return fail(x, "`%s` divides a decreasing iterator", show(x, src));
  if (sc % c == 0) { /* sc*it is a multiple of c */
    if (is_mod) {
      if (!divisible(x, base, c))
        return fail(x, "`%s`: the offset is not a multiple of %lld", show(x, src),
                    (long long)c);
      *out = sum_const(cint(x, 0));
      return 0;
    }
    sp.scale = sc / c;
    *out = (im_sum){1, split_array(x, 1), bin(x, TSL_EXPR_FLOORDIV, base, cint(x, c))};
    out->args[0] = sp;
    return 0;
  }
  if (c % sc != 0)
    return fail(x, "`%s`: the coefficient %lld and the divisor %lld do not "
                   "divide one another",
                show(x, src), (long long)sc, (long long)c);
  if (!divisible(x, base, c))
    return fail(x, "`%s`: the offset is not a multiple of %lld", show(x, src),
                (long long)c);
  int64_t cc = c / sc; /* (sc*it + base) op c == (it op cc) (* sc) (+ base/c) */
  int64_t e;
  const tsl_expr *nbase = is_mod ? cint(x, 0) : bin(x, TSL_EXPR_FLOORDIV, base, cint(x, c));
  im_split r = sp;
  if (divisible(x, sp.extent, cc)) {
    if (is_mod) {
      r.extent = cint(x, cc);
    } else {
      r.lower = sp.lower * cc;
      r.extent = bin(x, TSL_EXPR_FLOORDIV, sp.extent, cint(x, cc));
      r.scale = 1;
    }
  } else if (prove(x, TSL_EXPR_LE, sp.extent, cint(x, cc))) {
    if (!is_mod) {
      *out = sum_const(nbase);
      return 0;
    }
  } else if (sp.lower == 1 && !sp.padded && is_const(x, sp.extent, &e) &&
             equal(x, sp.extent, sp.mark->extent) && !sp.mark->pad_extent) {
    /* a non-dividing split of a whole iterator: padded, and then the only
     * split allowed of it (checked with the mark) */
    int64_t n = (e + cc - 1) / cc;
    sp.mark->pad_extent = n * cc;
    r.padded = 1;
    if (is_mod) {
      r.extent = cint(x, cc);
    } else {
      r.lower = cc;
      r.extent = cint(x, n);
      r.scale = 1;
    }
  } else {
    return fail(x, "`%s`: the iterator's extent %s is not a multiple of %lld",
                show(x, src), show(x, sp.extent), (long long)cc);
  }
  *out = (im_sum){1, split_array(x, 1), nbase};
  out->args[0] = r;
  return 0;
}

static int rewrite(im_ctx *x, const tsl_expr *e, im_sum *out) {
  if (!uses_input(x, e)) {
    *out = sum_const(e);
    return 0;
  }
  if (!tsl_dtype_is_int(e->dtype) || e->dtype.lanes != 1)
    return fail(x, "`%s` is not a scalar integer expression", show(x, e));
  im_sum l, r;
  int64_t k;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_VAR:
    for (uint32_t i = 0; i < x->n_in; i++)
      if (x->in_vars[i] == e->u.var) {
        im_mark *m = x->in_marks[i];
        *out = (im_sum){1, split_array(x, 1), x->in_min[i]};
        out->args[0] = (im_split){m, 1, m->extent, 1, 0};
        return 0;
      }
    break;
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
    if (rewrite(x, e->args[0], &l) || rewrite(x, e->args[1], &r))
      return -1;
    *out = merge(x, &l, &r, e->kind == TSL_EXPR_ADD ? 1 : -1);
    return 0;
  case TSL_EXPR_NEG:
    if (rewrite(x, e->args[0], &l))
      return -1;
    *out = scaled(x, &l, -1);
    return 0;
  case TSL_EXPR_MUL:
    if (rewrite(x, e->args[0], &l) || rewrite(x, e->args[1], &r))
      return -1;
    if (r.n == 0 && is_const(x, r.base, &k)) {
      *out = scaled(x, &l, k);
      return 0;
    }
    if (l.n == 0 && is_const(x, l.base, &k)) {
      *out = scaled(x, &r, k);
      return 0;
    }
    return fail(x, "`%s` multiplies an iterator by a non-constant", show(x, e));
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD: {
    if (uses_input(x, e->args[1]) || !is_const(x, e->args[1], &k) || k <= 0)
      return fail(x, "`%s` divides by something other than a positive constant",
                  show(x, e));
    if (rewrite(x, e->args[0], &l))
      return -1;
    int is_mod = e->kind == TSL_EXPR_FLOORMOD;
    if (k == 1) {
      *out = is_mod ? sum_const(cint(x, 0)) : l;
      return 0;
    }
    if (l.n == 0) {
      *out = sum_const(e);
      return 0;
    }
    if (l.n > 1) {
      im_sum f;
      if (fuse(x, &l, 0, &f, NULL))
        return fail(x, "`%s` is not one fused iterator", show(x, e->args[0]));
      l = f;
    }
    return split_divmod(x, l.args[0], l.base, k, is_mod, e, out);
  }
  case TSL_EXPR_CAST:
    if (tsl_dtype_is_int(e->args[0]->dtype))
      return rewrite(x, e->args[0], out);
    break;
  default: break;
  }
  return fail(x, "`%s` is not an affine expression of the iterators", show(x, e));
}

/* ---- fusing a sum into one iterator ------------------------------------- */

/* Merge splits of one mark with consecutive lower factors and scales:
 * (x // 4) * 4 + x % 4 -> x. */
static im_sum combine_same_source(im_ctx *x, const im_sum *s) {
  im_sum r = {s->n, split_array(x, s->n), s->base};
  memcpy(r.args, s->args, sizeof *r.args * s->n);
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t i = 0; i < r.n && !changed; i++)
      for (uint32_t j = 0; j < r.n && !changed; j++) {
        im_split *lo = &r.args[i], *hi = &r.args[j];
        int64_t e;
        if (i == j || lo->mark != hi->mark || lo->padded != hi->padded ||
            !is_const(x, lo->extent, &e) ||
            hi->lower != lo->lower * e || hi->scale != lo->scale * e)
          continue;
        lo->extent = bin(x, TSL_EXPR_MUL, hi->extent, lo->extent);
        memmove(hi, hi + 1, sizeof *hi * (r.n - j - 1));
        r.n--;
        changed = 1;
      }
  }
  return r;
}

static int flat_equal(im_ctx *x, const im_sum *p, const im_sum *q) {
  if (p->n != q->n)
    return 0;
  for (uint32_t i = 0; i < p->n; i++)
    if (p->args[i].scale != q->args[i].scale ||
        !same_split(&p->args[i], &q->args[i], x))
      return 0;
  return 1;
}

static im_mark *new_mark(im_ctx *x, const tsl_expr *extent) {
  im_mark *m = TSL_NEW(x->a, im_mark);
  memset(m, 0, sizeof *m);
  m->extent = extent;
  return m;
}

/* Rewrite a sum of several splits as one split (scale = the smallest
 * scale) of a fused mark: its splits must chain, each scale the previous
 * scale times the previous extent (surjective maps with a unit base scale
 * may also overlap: `i * 3 + j`, j < 4). A split that ends a constrained
 * sum (from the predicate) takes the whole constrained sum with it. */
static int fuse(im_ctx *x, const im_sum *s0, int is_constraint, im_sum *out,
                im_fused **entry) {
  im_sum s = combine_same_source(x, s0);
  if (s.n == 0)
    return fail(x, "no iterator left to fuse");
  int64_t base_scale = 0;
  for (uint32_t i = 0; i < s.n; i++) {
    if (s.args[i].scale <= 0 && s.n > 1)
      return fail(x, "a sum with a negative coefficient is not one iterator");
    if (!base_scale || s.args[i].scale < base_scale)
      base_scale = s.args[i].scale;
  }
  uint8_t *used = TSL_NEW_ARRAY(x->a, uint8_t, s.n);
  memset(used, 0, s.n);
  im_sum flat = {0, split_array(x, s.n), NULL};
  im_sum grouped = {0, split_array(x, s.n), NULL};
  int64_t expected = base_scale, tail = 0;
  const tsl_expr *last_ext = NULL; /* symbolic extent of the last split */
  int64_t last_scale = 0;
  const tsl_expr *extra = cint(x, 0);
  for (uint32_t done = 0; done < s.n;) {
    if (last_ext)
      return fail(x, "an iterator above one of symbolic extent %s",
                  show(x, last_ext));
    int64_t matched = expected;
    int j = -1;
    for (uint32_t i = 0; i < s.n; i++)
      if (!used[i] && s.args[i].scale == expected) {
        int64_t e;
        if (j < 0 || (is_const(x, s.args[i].extent, &e) && e == 1))
          j = (int)i;
      }
    if (j < 0 && x->level == TSL_ITER_MAP_SURJECTIVE && base_scale == 1) {
      for (uint32_t i = 0; i < s.n; i++)
        if (!used[i] && s.args[i].scale > 0 && s.args[i].scale <= expected &&
            (j < 0 || s.args[i].scale > s.args[j].scale))
          j = (int)i;
      if (j >= 0) {
        matched = s.args[j].scale;
        tail += expected - matched;
      }
    }
    if (j < 0)
      return fail(x, "the coefficients do not chain into one iterator "
                     "(expected one of %lld)",
                  (long long)expected);
    /* the longest constrained sum that ends with this split */
    im_fused *cf = NULL;
    for (uint32_t f = 0; f < x->n_fused; f++) {
      im_fused *F = &x->fused[f];
      if (F->constrained && F->flat.n &&
          same_split(&F->flat.args[F->flat.n - 1], &s.args[j], x) &&
          (!cf || F->flat.n > cf->flat.n))
        cf = F;
    }
    const tsl_expr *ext;
    if (cf) {
      for (uint32_t q = cf->flat.n; q-- > 0;) {
        const im_split *want = &cf->flat.args[q];
        uint32_t k = 0;
        for (; k < s.n; k++)
          if (!used[k] && same_split(&s.args[k], want, x) &&
              s.args[k].scale == want->scale * matched)
            break;
        if (k == s.n)
          return fail(x, "`%s` uses only part of `%s`, which the predicate "
                         "bounds; it must use all of it or none",
                      x->cur ? show(x, x->cur) : "?", show(x, cf->src));
        used[k] = 1;
        done++;
        flat.args[flat.n] = s.args[k];
        flat.args[flat.n++].scale = s.args[k].scale / base_scale;
      }
      grouped.args[grouped.n++] =
          (im_split){cf->mark, 1, cf->mark->extent, matched / base_scale, 0};
      extra = bin(x, TSL_EXPR_ADD, extra,
                  bin(x, TSL_EXPR_MUL, cf->offset, cint(x, matched)));
      ext = cf->mark->extent;
    } else {
      used[j] = 1;
      done++;
      im_split sp = s.args[j];
      sp.scale = sp.scale / base_scale;
      flat.args[flat.n++] = sp;
      grouped.args[grouped.n++] = sp;
      ext = s.args[j].extent;
    }
    int64_t e;
    last_scale = matched;
    if (is_const(x, ext, &e)) {
      expected = e * matched;
    } else {
      last_ext = ext;
    }
  }
  /* flat / grouped were filled inner to outer; store them outer first */
  for (uint32_t i = 0; i < flat.n / 2; i++) {
    im_split t = flat.args[i];
    flat.args[i] = flat.args[flat.n - 1 - i];
    flat.args[flat.n - 1 - i] = t;
  }
  for (uint32_t i = 0; i < grouped.n / 2; i++) {
    im_split t = grouped.args[i];
    grouped.args[i] = grouped.args[grouped.n - 1 - i];
    grouped.args[grouped.n - 1 - i] = t;
  }
  flat.base = grouped.base = cint(x, 0);
  const tsl_expr *nbase = bin(x, TSL_EXPR_ADD, s.base, extra);
  if (entry)
    *entry = NULL;
  if (grouped.n == 1 && !is_constraint) {
    /* one iterator already: no fused mark needed */
    *out = (im_sum){1, split_array(x, 1), nbase};
    out->args[0] = grouped.args[0];
    out->args[0].scale *= base_scale;
    return 0;
  }
  for (uint32_t f = 0; f < x->n_fused; f++)
    if (flat_equal(x, &x->fused[f].flat, &flat)) {
      im_fused *F = &x->fused[f];
      if (!equal(x, extra, bin(x, TSL_EXPR_MUL, F->offset, cint(x, base_scale))))
        return fail(x, "a bounded sum is used with two different offsets");
      *out = (im_sum){1, split_array(x, 1), nbase};
      out->args[0] = (im_split){F->mark, 1, F->mark->extent, base_scale, 0};
      if (entry)
        *entry = F;
      return 0;
    }
  const tsl_expr *mext =
      last_ext ? bin(x, TSL_EXPR_MUL, last_ext, cint(x, last_scale / base_scale))
               : cint(x, expected / base_scale);
  if (tail)
    mext = bin(x, TSL_EXPR_ADD, mext, cint(x, tail));
  im_mark *m = new_mark(x, mext);
  m->src = grouped;
  if (x->n_fused == x->cap_fused) {
    uint32_t nc = x->cap_fused ? x->cap_fused * 2 : 8;
    im_fused *nf = TSL_NEW_ARRAY(x->a, im_fused, nc);
    if (x->n_fused)
      memcpy(nf, x->fused, sizeof *nf * x->n_fused);
    x->fused = nf;
    x->cap_fused = nc;
  }
  im_fused *F = &x->fused[x->n_fused++];
  F->flat = flat;
  F->mark = m;
  F->offset = base_scale == 1 ? extra : bin(x, TSL_EXPR_FLOORDIV, extra, cint(x, base_scale));
  F->constrained = 0;
  F->src = NULL;
  *out = (im_sum){1, split_array(x, 1), nbase};
  out->args[0] = (im_split){m, 1, m->extent, base_scale, 0};
  if (entry)
    *entry = F;
  return 0;
}

/* ---- the predicate -------------------------------------------------------- */

typedef struct im_bound {
  const tsl_expr *iter;
  const tsl_expr *lo, *hi; /* lo <= iter < hi; NULL: none */
  uint32_t size;
} im_bound;

static uint32_t expr_size(const tsl_expr *e) {
  uint32_t n = 1;
  for (uint32_t i = 0; i < e->n_args; i++)
    n += expr_size(e->args[i]);
  return n;
}

/* Split the predicate into bounds on iterator expressions. */
static int collect_bounds(im_ctx *x, const tsl_expr *p, im_bound **out,
                          uint32_t *n, uint32_t *cap) {
  int64_t v;
  if (p->kind == TSL_EXPR_AND)
    return collect_bounds(x, p->args[0], out, n, cap) ||
           collect_bounds(x, p->args[1], out, n, cap);
  if (p->kind == TSL_EXPR_INT_IMM && tsl_expr_is_const_int(p, &v) && v)
    return 0;
  if (!uses_input(x, p))
    return 0;
  int k = p->kind;
  if (k != TSL_EXPR_LT && k != TSL_EXPR_LE && k != TSL_EXPR_GT &&
      k != TSL_EXPR_GE)
    return fail(x, "the predicate `%s` is not a bound on the iterators",
                show(x, p));
  const tsl_expr *l = p->args[0], *r = p->args[1];
  if (!tsl_dtype_is_int(l->dtype) || !tsl_dtype_is_int(r->dtype))
    return fail(x, "the predicate `%s` is not a bound on the iterators",
                show(x, p));
  /* normalize to iter < bound / iter <= bound / bound < iter ... */
  const tsl_expr *iter, *bound;
  int bound_left;
  if (!uses_input(x, l)) {
    bound_left = 1;
    bound = l;
    iter = r;
  } else if (!uses_input(x, r)) {
    bound_left = 0;
    bound = r;
    iter = l;
  } else {
    bound_left = 0;
    iter = bin(x, TSL_EXPR_SUB, l, r);
    bound = cint(x, 0);
  }
  int greater = k == TSL_EXPR_GT || k == TSL_EXPR_GE;
  int eq = k == TSL_EXPR_LE || k == TSL_EXPR_GE;
  const tsl_expr *lo = NULL, *hi = NULL;
  const tsl_expr *one = tsl_expr_int(x->a, bound->dtype, 1);
  if (greater == bound_left) /* iter < bound (or bound > iter) */
    hi = eq ? bin(x, TSL_EXPR_ADD, bound, one) : bound;
  else
    lo = eq ? bound : bin(x, TSL_EXPR_ADD, bound, one);
  if (*n == *cap) {
    uint32_t nc = *cap ? *cap * 2 : 8;
    im_bound *nb = TSL_NEW_ARRAY(x->a, im_bound, nc);
    if (*n)
      memcpy(nb, *out, sizeof *nb * *n);
    *out = nb;
    *cap = nc;
  }
  (*out)[(*n)++] = (im_bound){iter, lo, hi, expr_size(iter)};
  return 0;
}

static int cmp_bound(const void *a, const void *b) {
  const im_bound *p = a, *q = b;
  return p->size < q->size ? -1 : p->size > q->size;
}

/* A bound on a sum: its fused mark shrinks to [lo, hi) - base. */
static int apply_bound(im_ctx *x, const im_bound *b) {
  im_sum s, f;
  x->cur = b->iter;
  if (rewrite(x, b->iter, &s))
    return -1;
  if (s.n == 0)
    return 0;
  const tsl_expr *base = s.base;
  s.base = cint(x, 0);
  im_fused *F = NULL;
  if (fuse(x, &s, 1, &f, &F) || !F || f.args[0].scale != 1)
    return fail(x, "the predicate bound on `%s` is not a bound on one iterator",
                show(x, b->iter));
  im_mark *m = F->mark;
  const tsl_expr *mn = F->offset;
  const tsl_expr *mx = bin(x, TSL_EXPR_ADD, mn, m->extent);
  if (b->lo) {
    const tsl_expr *lo = bin(x, TSL_EXPR_SUB, b->lo, base);
    if (!prove(x, TSL_EXPR_LE, lo, mn))
      mn = prove(x, TSL_EXPR_GE, lo, mn) ? lo : bin(x, TSL_EXPR_MAX, lo, mn);
  }
  if (b->hi) {
    const tsl_expr *hi = bin(x, TSL_EXPR_SUB, b->hi, base);
    if (prove(x, TSL_EXPR_LE, hi, mx))
      mx = hi;
    else if (!prove(x, TSL_EXPR_GE, hi, mx))
      mx = bin(x, TSL_EXPR_MIN, hi, mx);
  }
  m->extent = bin(x, TSL_EXPR_SUB, mx, mn);
  F->offset = mn;
  F->constrained = 1;
  F->src = b->iter;
  return 0;
}

/* Two constrained sums are nested or disjoint. */
static int check_constraints(im_ctx *x) {
  for (uint32_t i = 0; i < x->n_fused; i++)
    for (uint32_t j = i + 1; j < x->n_fused; j++) {
      const im_fused *p = &x->fused[i], *q = &x->fused[j];
      if (!p->constrained || !q->constrained)
        continue;
      const im_fused *sm = p->flat.n <= q->flat.n ? p : q;
      const im_fused *lg = sm == p ? q : p;
      int state = 0;
      for (uint32_t a = 0; a < sm->flat.n; a++) {
        int found = 0;
        for (uint32_t b = 0; b < lg->flat.n && !found; b++)
          found = same_split(&sm->flat.args[a], &lg->flat.args[b], x) &&
                  sm->flat.args[a].scale == lg->flat.args[b].scale;
        if (!state)
          state = found ? 1 : -1;
        else if ((state < 0 && found) || (state > 0 && !found))
          return fail(x, "the predicate bounds two overlapping sums of "
                         "iterators");
      }
    }
  return 0;
}

/* ---- the mapping check ----------------------------------------------------- */

static void push_split(im_ctx *x, im_mark *m, im_split sp) {
  if (m->n_splits == m->cap_splits) {
    uint32_t nc = m->cap_splits ? m->cap_splits * 2 : 4;
    im_split *ns = split_array(x, nc);
    if (m->n_splits)
      memcpy(ns, m->splits, sizeof *ns * m->n_splits);
    m->splits = ns;
    m->cap_splits = nc;
  }
  m->splits[m->n_splits++] = sp;
}

static void visit_mark(im_ctx *x, im_mark *m) {
  if (m->visited)
    return;
  m->visited = 1;
  if (x->n_visited == x->cap_visited) {
    uint32_t nc = x->cap_visited ? x->cap_visited * 2 : 8;
    im_mark **nv = TSL_NEW_ARRAY(x->a, im_mark *, nc);
    if (x->n_visited)
      memcpy(nv, x->visited, sizeof *nv * x->n_visited);
    x->visited = nv;
    x->cap_visited = nc;
  }
  x->visited[x->n_visited++] = m;
  for (uint32_t i = 0; i < m->src.n; i++) {
    push_split(x, m->src.args[i].mark, m->src.args[i]);
    visit_mark(x, m->src.args[i].mark);
  }
}

static const char *mark_name(im_ctx *x, const im_mark *m) {
  for (uint32_t i = 0; i < x->n_in; i++)
    if (x->in_marks[i] == m)
      return x->in_vars[i]->name;
  return "a fused iterator";
}

/* The splits of one mark do not overlap and tile (a divisor of) it. */
static int check_mark(im_ctx *x, im_mark *m) {
  uint32_t n = m->n_splits;
  int padded = 0;
  for (uint32_t k = 0; k < n; k++)
    padded |= m->splits[k].padded;
  const tsl_expr *mext = padded ? cint(x, m->pad_extent) : m->extent;
  uint8_t *used = TSL_NEW_ARRAY(x->a, uint8_t, n ? n : 1);
  memset(used, 0, n ? n : 1);
  int64_t expected = 1;
  const tsl_expr *exp_sym = NULL;
  for (uint32_t it = 0; it < n; it++) {
    if (exp_sym)
      return fail(x, "iterator '%s' is used twice", mark_name(x, m));
    uint32_t j = n;
    for (uint32_t k = 0; k < n && j == n; k++)
      if (!used[k] && m->splits[k].lower == expected)
        j = k;
    if (j == n) {
      if (x->level == TSL_ITER_MAP_BIJECTIVE)
        return fail(x, "iterator '%s' is not covered exactly", mark_name(x, m));
      for (uint32_t k = 0; k < n; k++) {
        if (used[k])
          continue;
        if (m->splits[k].lower % expected)
          return fail(x, "iterator '%s' is used in overlapping parts",
                      mark_name(x, m));
        if (j == n || m->splits[k].lower < m->splits[j].lower)
          j = k;
      }
    }
    used[j] = 1;
    int64_t e;
    if (is_const(x, m->splits[j].extent, &e))
      expected = m->splits[j].lower * e;
    else
      exp_sym = bin(x, TSL_EXPR_MUL, m->splits[j].extent,
                    cint(x, m->splits[j].lower));
  }
  const tsl_expr *tot = exp_sym ? exp_sym : cint(x, expected);
  int full = equal(x, tot, mext);
  int divides = full || (!exp_sym && divisible(x, mext, expected));
  int64_t unpadded = 0;
  if (x->level == TSL_ITER_MAP_BIJECTIVE) {
    if (padded || !full)
      return fail(x, "iterator '%s' is not covered exactly", mark_name(x, m));
  } else if (!padded) {
    if (!divides)
      return fail(x, "the parts of iterator '%s' do not tile a divisor of "
                     "its extent %s",
                  mark_name(x, m), show(x, m->extent));
  } else {
    if (n != 1)
      return fail(x, "iterator '%s' is split unevenly and used more than once",
                  mark_name(x, m));
    is_const(x, m->extent, &unpadded);
    if (!full && !(divides && expected <= unpadded))
      return fail(x, "iterator '%s' is split unevenly", mark_name(x, m));
  }
  return 0;
}

/* ---- entry point ------------------------------------------------------------ */

int tsl_iter_map_detect(tsl_analyzer *an, tsl_arena *arena, uint32_t n_indices,
                        const tsl_expr *const *indices, uint32_t n_iters,
                        const tsl_var *const *iters, const tsl_range *doms,
                        const tsl_expr *predicate, uint32_t level,
                        tsl_iter_index *out, tsl_diag *diag) {
  im_ctx *x = TSL_NEW(arena, im_ctx);
  memset(x, 0, sizeof *x);
  x->an = an;
  x->a = arena;
  x->level = level;
  x->dt = n_indices ? indices[0]->dtype : TSL_INT32;
  x->dt.lanes = 1;
  for (uint32_t i = 0; i < n_iters; i++)
    for (uint32_t k = 0; k < n_iters; k++)
      if (tsl_expr_uses_var(doms[i].min, iters[k]) ||
          tsl_expr_uses_var(doms[i].extent, iters[k]))
        return tsl_diag_set(diag, TSL_EINVALID,
                            "the range of iterator '%s' depends on iterator '%s'",
                            iters[i]->name, iters[k]->name);
  /* the iterators' ranges are known while proving (restored afterwards) */
  tsla_binding *saved = TSL_NEW_ARRAY(arena, tsla_binding, n_iters + 1);
  uint8_t *had = TSL_NEW_ARRAY(arena, uint8_t, n_iters + 1);
  for (uint32_t k = 0; k < n_iters; k++) {
    tsla_pmap_slot *s = tsla_pmap_get(&an->index, iters[k]);
    had[k] = s != NULL;
    if (s)
      saved[k] = an->binds[s->val];
    tsl_analyzer_unbind(an, iters[k]);
    tsl_analyzer_bind(an, iters[k], doms[k].min, doms[k].extent);
  }
  x->n_in = n_iters;
  x->in_vars = TSL_NEW_ARRAY(arena, const tsl_var *, n_iters + 1);
  x->in_min = TSL_NEW_ARRAY(arena, const tsl_expr *, n_iters + 1);
  x->in_marks = TSL_NEW_ARRAY(arena, im_mark *, n_iters + 1);
  for (uint32_t k = 0; k < n_iters; k++) {
    x->in_vars[k] = iters[k];
    x->in_min[k] = doms[k].min;
    x->in_marks[k] = new_mark(x, doms[k].extent);
    x->in_marks[k]->input = 1;
  }
  int rc = 0;
  /* bounds of a single iterator narrow its range; others constrain sums */
  im_bound *bounds = NULL;
  uint32_t nb = 0, cb = 0;
  if (predicate && collect_bounds(x, predicate, &bounds, &nb, &cb))
    rc = -1;
  for (uint32_t i = 0; i < nb && !rc; i++) {
    const tsl_expr *it = bounds[i].iter;
    if (it->kind != TSL_EXPR_VAR)
      continue;
    for (uint32_t k = 0; k < n_iters; k++) {
      if (iters[k] != it->u.var)
        continue;
      const tsl_expr *mn = x->in_min[k];
      const tsl_expr *mx = bin(x, TSL_EXPR_ADD, mn, x->in_marks[k]->extent);
      if (bounds[i].lo)
        mn = prove(x, TSL_EXPR_LE, bounds[i].lo, mn) ? mn
             : prove(x, TSL_EXPR_GE, bounds[i].lo, mn)
                 ? bounds[i].lo
                 : bin(x, TSL_EXPR_MAX, bounds[i].lo, mn);
      if (bounds[i].hi)
        mx = prove(x, TSL_EXPR_GE, bounds[i].hi, mx) ? mx
             : prove(x, TSL_EXPR_LE, bounds[i].hi, mx)
                 ? bounds[i].hi
                 : bin(x, TSL_EXPR_MIN, bounds[i].hi, mx);
      x->in_min[k] = mn;
      x->in_marks[k]->extent = bin(x, TSL_EXPR_SUB, mx, mn);
      bounds[i].iter = NULL;
    }
  }
  if (nb > 1)
    qsort(bounds, nb, sizeof *bounds, cmp_bound);
  for (uint32_t i = 0; i < nb && !rc; i++)
    if (bounds[i].iter)
      rc = apply_bound(x, &bounds[i]);
  if (!rc)
    rc = check_constraints(x);
  im_sum *sums = TSL_NEW_ARRAY(arena, im_sum, n_indices + 1);
  for (uint32_t i = 0; i < n_indices && !rc; i++) {
    x->cur = indices[i];
    if (rewrite(x, indices[i], &sums[i])) {
      rc = -1;
      break;
    }
    if (sums[i].n > 1 || (sums[i].n == 1 && x->n_fused)) {
      im_sum f;
      if (fuse(x, &sums[i], 0, &f, NULL)) {
        rc = fail(x, "`%s` is not one fused iterator", show(x, indices[i]));
        break;
      }
      sums[i] = f;
    }
  }
  for (uint32_t i = 0; i < n_indices && !rc; i++)
    for (uint32_t q = 0; q < sums[i].n; q++) {
      visit_mark(x, sums[i].args[q].mark);
      push_split(x, sums[i].args[q].mark, sums[i].args[q]);
    }
  for (uint32_t i = 0; i < x->n_visited && !rc; i++)
    rc = check_mark(x, x->visited[i]);
  if (!rc && level == TSL_ITER_MAP_BIJECTIVE)
    for (uint32_t k = 0; k < n_iters && !rc; k++) {
      int64_t e;
      if (!x->in_marks[k]->visited &&
          !(is_const(x, x->in_marks[k]->extent, &e) && e == 1))
        rc = fail(x, "iterator '%s' is not used", iters[k]->name);
    }
  if (!rc && out)
    for (uint32_t i = 0; i < n_indices; i++) {
      out[i].base = simp(x, sums[i].base);
      out[i].scale = sums[i].n ? sums[i].args[0].scale : 0;
      out[i].extent = sums[i].n ? sums[i].args[0].extent : cint(x, 1);
    }
  for (uint32_t k = 0; k < n_iters; k++) {
    tsl_analyzer_unbind(an, iters[k]);
    if (had[k]) {
      tsla_pmap_slot *s = tsla_pmap_get(&an->index, iters[k]);
      if (s)
        an->binds[s->val] = saved[k];
    }
  }
  if (rc)
    return tsl_diag_set(diag, TSL_EINVALID, "%s", x->err);
  return TSL_OK;
}
