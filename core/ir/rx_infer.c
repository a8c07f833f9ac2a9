/*
 * Struct info of Relax calls: operators (elementwise with NumPy
 * broadcasting, matmul) and destination-passing calls checked against the
 * prim_func they call. Shared by the parser (which locates the errors) and
 * by the builders passes use (relax_build.h), so nothing here knows the
 * parser: a failure is a message and the operand it concerns (rx_err).
 */
#include "rx_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tsl_rx_sinfo *rx_sinfo_new(tsl_arena *a, uint32_t kind) {
  tsl_rx_sinfo *s = TSL_NEW(a, tsl_rx_sinfo);
  s->kind = kind;
  s->ndim = -1;
  s->dtype = TSL_VOID;
  return s;
}

const tsl_rx_sinfo *rx_tuple_sinfo(tsl_arena *a, uint32_t n, const tsl_rx_expr *const *fields) {
  tsl_rx_sinfo *s = rx_sinfo_new(a, TSL_RX_SINFO_TUPLE);
  const tsl_rx_sinfo **f = TSL_NEW_ARRAY(a, const tsl_rx_sinfo *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++)
    f[i] = fields[i]->sinfo;
  s->n_fields = n;
  s->fields = f;
  return s;
}

int rx_dim_equal(const tsl_expr *a, const tsl_expr *b) {
  int64_t x, y;
  if (tsl_expr_is_const_int(a, &x) && tsl_expr_is_const_int(b, &y))
    return x == y;
  return tsl_expr_equal(a, b);
}

/* ---- messages ------------------------------------------------------------- */

/* Texts printed for a message, freed when it is formatted. */
typedef struct texts {
  char *items[8];
  int n;
} texts;

static const char *keep(texts *t, char *s) {
  if (t->n < 8)
    t->items[t->n++] = s;
  return s ? s : "?";
}

static const char *sinfo_text(texts *t, const tsl_rx_sinfo *s) {
  return keep(t, tsl_rx_sinfo_print(s));
}

static const char *dim_text(texts *t, const tsl_expr *d) {
  int64_t v;
  if (tsl_expr_is_const_int(d, &v)) {
    char *r = malloc(24);
    if (r)
      snprintf(r, 24, "%lld", (long long)v);
    return keep(t, r);
  }
  if (d->kind == TSL_EXPR_VAR)
    return d->u.var->name;
  return keep(t, tsl_print_expr(d));
}

static void fail(rx_err *err, texts *t, int at, const char *hint, const char *fmt, ...)
    TSL_PRINTF(5, 6);
void rx_err_set(rx_err *err, int at, const char *hint, const char *fmt, va_list ap) {
  if (err->failed)
    return;
  err->failed = 1;
  err->at = at;
  snprintf(err->hint, sizeof err->hint, "%s", hint ? hint : "");
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

static void fail(rx_err *err, texts *t, int at, const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rx_err_set(err, at, hint, fmt, ap);
  va_end(ap);
  for (int i = 0; i < t->n; i++)
    free(t->items[i]);
  t->n = 0;
}

static void release(texts *t) {
  for (int i = 0; i < t->n; i++)
    free(t->items[i]);
  t->n = 0;
}

/* ---- operators ------------------------------------------------------------- */

static int is_void(tsl_dtype t) { return tsl_dtype_is_void(t); }

static int dtype_equal(tsl_dtype a, tsl_dtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

static int tensor(const tsl_rx_sinfo *s) { return s->kind == TSL_RX_SINFO_TENSOR; }

/* NumPy broadcasting of two known shapes into out (max rank dims). */
static void broadcast(tsl_arena *ar, rx_err *err, const char *op, const tsl_rx_sinfo *a,
                      const tsl_rx_sinfo *b, tsl_rx_sinfo *out) {
  if (a->ndim < 0 || b->ndim < 0)
    return;
  int32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
  out->ndim = n;
  if (!a->shape || !b->shape)
    return;
  const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, n ? n : 1);
  int known = 1;
  for (int32_t i = 0; i < n; i++) {
    int32_t ia = i - (n - a->ndim), ib = i - (n - b->ndim);
    const tsl_expr *x = ia >= 0 ? a->shape[ia] : NULL, *y = ib >= 0 ? b->shape[ib] : NULL;
    int64_t v, u;
    if (!x || (y && tsl_expr_is_const_int(x, &v) && v == 1))
      d[i] = y;
    else if (!y || (tsl_expr_is_const_int(y, &v) && v == 1) || rx_dim_equal(x, y))
      d[i] = x;
    else if (tsl_expr_is_const_int(x, &v) && tsl_expr_is_const_int(y, &u)) {
      texts t = {0};
      fail(err, &t, RX_AT_CALL,
           "NumPy broadcasting: aligned from the last dimension, each pair equal or one of "
           "them 1",
           "R.%s: shapes %s and %s do not broadcast (dimension %d: %s and %s)", op,
           sinfo_text(&t, a), sinfo_text(&t, b), (int)i, dim_text(&t, x), dim_text(&t, y));
      return;
    } else
      known = 0; /* a symbolic size against another size: decided when the model runs */
  }
  out->shape = known ? d : NULL;
}

static void dtypes_agree(rx_err *err, const char *op, const tsl_rx_sinfo *a,
                         const tsl_rx_sinfo *b, tsl_rx_sinfo *out) {
  out->dtype = is_void(a->dtype) ? b->dtype : a->dtype;
  if (!is_void(a->dtype) && !is_void(b->dtype) && !dtype_equal(a->dtype, b->dtype)) {
    texts t = {0};
    fail(err, &t, RX_AT_CALL, "convert one operand with R.astype first",
         "R.%s: operands of different dtypes: %s and %s", op, sinfo_text(&t, a),
         sinfo_text(&t, b));
  }
}

/* [1, k] for a vector [k] (first operand of matmul), [k, 1] for the second. */
static tsl_rx_sinfo as_matrix(tsl_arena *ar, const tsl_rx_sinfo *v, int first) {
  tsl_rx_sinfo r = *v;
  const tsl_expr *one = tsl_expr_int(ar, TSL_INT64, 1);
  const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, 2);
  d[first ? 0 : 1] = one;
  d[first ? 1 : 0] = v->shape ? v->shape[0] : one;
  r.ndim = 2;
  r.shape = v->shape ? d : NULL;
  return r;
}

static void matmul(tsl_arena *ar, rx_err *err, const tsl_rx_sinfo *a, const tsl_rx_sinfo *b,
                   tsl_rx_sinfo *out) {
  dtypes_agree(err, "matmul", a, b, out);
  if (err->failed || a->ndim < 0 || b->ndim < 0)
    return;
  texts t = {0};
  if (a->ndim < 1 || b->ndim < 1) {
    fail(err, &t, RX_AT_CALL, "both operands have at least one dimension: [..., m, k] x "
         "[..., k, n], a vector as [k]", "R.matmul: %s x %s", sinfo_text(&t, a),
         sinfo_text(&t, b));
    return;
  }
  if (a->ndim == 1 || b->ndim == 1) {
    /* NumPy: a vector operand is [1, k] (first) or [k, 1] (second), and
     * that dimension is dropped from the result */
    tsl_rx_sinfo pa = a->ndim == 1 ? as_matrix(ar, a, 1) : *a;
    tsl_rx_sinfo pb = b->ndim == 1 ? as_matrix(ar, b, 0) : *b;
    tsl_rx_sinfo full = *out;
    matmul(ar, err, &pa, &pb, &full);
    if (err->failed)
      return;
    int32_t drop = (a->ndim == 1) + (b->ndim == 1), n = full.ndim;
    *out = full;
    out->ndim = n - drop;
    if (full.shape) {
      const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, n);
      int32_t k = 0;
      for (int32_t i = 0; i < n; i++)
        if (!((a->ndim == 1 && i == n - 2) || (b->ndim == 1 && i == n - 1)))
          d[k++] = full.shape[i];
      out->shape = d;
    }
    return;
  }
  int64_t ka, kb;
  if (a->shape && b->shape && tsl_expr_is_const_int(a->shape[a->ndim - 1], &ka) &&
      tsl_expr_is_const_int(b->shape[b->ndim - 2], &kb) && ka != kb) {
    fail(err, &t, RX_AT_CALL, "[..., m, k] x [..., k, n]: the reduced dimensions are equal",
         "R.matmul: %s x %s: k is %s and %s", sinfo_text(&t, a), sinfo_text(&t, b),
         dim_text(&t, a->shape[a->ndim - 1]), dim_text(&t, b->shape[b->ndim - 2]));
    return;
  }
  /* batch dimensions broadcast; then m and n */
  tsl_rx_sinfo ba = *a, bb = *b, batch = *out;
  ba.ndim -= 2;
  bb.ndim -= 2;
  batch.shape = NULL;
  broadcast(ar, err, "matmul", &ba, &bb, &batch);
  out->ndim = batch.ndim + 2;
  if (!err->failed && a->shape && b->shape && (batch.shape || !batch.ndim)) {
    const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, out->ndim);
    for (int32_t i = 0; i < batch.ndim; i++)
      d[i] = batch.shape[i];
    d[batch.ndim] = a->shape[a->ndim - 2];
    d[batch.ndim + 1] = b->shape[b->ndim - 1];
    out->shape = d;
  }
}

/* ---- operators of 1.5: attributes ------------------------------------------ */

static const tsl_expr *c64(tsl_arena *ar, int64_t v) { return tsl_expr_int(ar, TSL_INT64, v); }

/* `axis` of a rank-`ndim` tensor, negative from the end; -1 when out of
 * range (a message in err). */
static int32_t norm_axis(rx_err *err, const char *op, int64_t axis, int32_t ndim) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim) {
    texts t = {0};
    fail(err, &t, RX_AT_CALL, "an axis from -ndim to ndim - 1", "R.%s: axis %lld is out of "
         "range for a tensor of %d dimensions", op, (long long)axis, (int)ndim);
    return -1;
  }
  return (int32_t)a;
}

static void set_dims(tsl_arena *ar, tsl_rx_sinfo *out, int32_t n, const tsl_expr *const *d) {
  out->ndim = n;
  out->shape = n ? tsl_arena_dup(ar, d, (size_t)n * sizeof *d) : TSL_NEW_ARRAY(ar, const tsl_expr *, 1);
}

/* The product of known dimensions, or -1 when one is symbolic. */
static int64_t numel_of(const tsl_rx_sinfo *s) {
  int64_t n = 1, v;
  if (s->ndim < 0)
    return -1;
  for (int32_t d = 0; d < s->ndim; d++) {
    if (!s->shape || !tsl_expr_is_const_int(s->shape[d], &v) || __builtin_mul_overflow(n, v, &n))
      return -1;
  }
  return n;
}

/* The size -1 stands for when `a` is reshaped to the n sizes d (d[infer]
 * the -1): the symbolic sizes the data and the shape share cancel, and
 * the rest of the data's sizes must be constants; -1 when it cannot be
 * told ([n, 4, 6] to [n, -1]: 24). */
static int64_t inferred_size(const tsl_rx_sinfo *a, uint32_t n, const tsl_expr *const *d,
                             int infer) {
  if (a->ndim < 0 || a->ndim > 64 || !a->shape)
    return -1;
  int used[64] = {0};
  int64_t in = 1, out = 1, v;
  for (uint32_t i = 0; i < n; i++) {
    if ((int)i == infer)
      continue;
    if (tsl_expr_is_const_int(d[i], &v)) {
      if (__builtin_mul_overflow(out, v, &out))
        return -1;
      continue;
    }
    int32_t k = 0;
    while (k < a->ndim && (used[k] || !rx_dim_equal(a->shape[k], d[i])))
      k++;
    if (k == a->ndim)
      return -1;
    used[k] = 1;
  }
  for (int32_t k = 0; k < a->ndim; k++)
    if (!used[k] &&
        (!tsl_expr_is_const_int(a->shape[k], &v) || __builtin_mul_overflow(in, v, &in)))
      return -1;
  return out > 0 && in % out == 0 ? in / out : -1;
}

static void infer_attr_op(tsl_arena *ar, tsl_rx_op op, const tsl_rx_expr *const *args,
                          tsl_attrs attrs, tsl_rx_sinfo *out, rx_err *err) {
  const char *name = tsl_rx_op_name(op);
  const tsl_rx_sinfo *a = args[0]->sinfo;
  texts t = {0};
  *out = *a;
  switch (op) {
  case TSL_RX_OP_ASTYPE: {
    const tsl_attr_value *v = tsl_attrs_get(attrs, "dtype");
    if (!v || v->kind != TSL_ATTR_STR || !tsl_dtype_parse(v->u.s, strlen(v->u.s), &out->dtype))
      fail(err, &t, RX_AT_CALL, "R.astype(x, \"float16\")", "R.astype needs a dtype");
    return;
  }
  case TSL_RX_OP_GELU: case TSL_RX_OP_SILU:
    return;
  case TSL_RX_OP_PERMUTE_DIMS: {
    if (a->ndim < 0)
      return;
    int64_t axes[64];
    int32_t n = tsl_rx_attr_ints(attrs, "axes", axes, 64);
    if (n < 0) { /* reversed */
      n = a->ndim;
      for (int32_t i = 0; i < n; i++)
        axes[i] = n - 1 - i;
    }
    int seen[64] = {0};
    if (n != a->ndim) {
      fail(err, &t, RX_AT_CALL, "one axis per dimension, each once", "R.permute_dims: %d axes "
           "for a tensor of %d dimensions", (int)n, (int)a->ndim);
      return;
    }
    const tsl_expr *d[64];
    for (int32_t i = 0; i < n; i++) {
      int32_t x = norm_axis(err, name, axes[i], a->ndim);
      if (x < 0)
        return;
      if (seen[x]++) {
        fail(err, &t, RX_AT_CALL, "one axis per dimension, each once", "R.permute_dims: axis "
             "%lld twice", (long long)axes[i]);
        return;
      }
      d[i] = a->shape ? a->shape[x] : NULL;
    }
    if (a->shape)
      set_dims(ar, out, n, d);
    return;
  }
  case TSL_RX_OP_RESHAPE: {
    const tsl_attr_value *v = tsl_attrs_get(attrs, "shape");
    if (!v || v->kind != TSL_ATTR_LIST || v->n > 64) {
      fail(err, &t, RX_AT_CALL, "R.reshape(x, R.shape([1, 784]))", "R.reshape needs a shape");
      return;
    }
    const tsl_expr *d[64];
    int infer = -1;
    int64_t known = 1, x;
    int all = 1;
    for (uint32_t i = 0; i < v->n; i++) {
      d[i] = v->u.items[i].u.expr;
      if (tsl_expr_is_const_int(d[i], &x) && x == -1) {
        if (infer >= 0) {
          fail(err, &t, RX_AT_CALL, "at most one -1", "R.reshape: -1 twice");
          return;
        }
        infer = (int)i;
      } else if (tsl_expr_is_const_int(d[i], &x)) {
        if (x < 0 || __builtin_mul_overflow(known, x, &known)) {
          fail(err, &t, RX_AT_CALL, "sizes of at least 0 (one may be -1), at most 2^63 "
               "elements", "R.reshape: size %lld at %u is negative or the element count "
               "overflows", (long long)x, i);
          return;
        }
      } else {
        all = 0;
      }
    }
    int64_t total = numel_of(a);
    if (infer >= 0) {
      int64_t size = inferred_size(a, v->n, d, infer);
      if (size < 0) {
        fail(err, &t, RX_AT_CALL, "-1 stands for the size that keeps the element count",
             "R.reshape: -1 cannot be inferred from %s", sinfo_text(&t, a));
        return;
      }
      d[infer] = c64(ar, size);
    } else if (all && total >= 0 && total != known) {
      fail(err, &t, RX_AT_CALL, "a shape of as many elements", "R.reshape: %s has %lld "
           "elements, the new shape %lld", sinfo_text(&t, a), (long long)total,
           (long long)known);
      return;
    }
    set_dims(ar, out, (int32_t)v->n, d);
    return;
  }
  case TSL_RX_OP_FLATTEN: {
    if (a->ndim < 0)
      return;
    int64_t total = numel_of(a);
    const tsl_expr *d[1] = {total >= 0 ? c64(ar, total) : NULL};
    out->ndim = 1;
    if (total >= 0)
      set_dims(ar, out, 1, d);
    else
      out->shape = NULL;
    return;
  }
  case TSL_RX_OP_SUM: case TSL_RX_OP_MEAN: case TSL_RX_OP_MAX: {
    if (a->ndim < 0)
      return;
    int64_t axes[64];
    int32_t n = tsl_rx_attr_ints(attrs, "axis", axes, 64);
    int keep = (int)tsl_rx_attr_int(attrs, "keepdims", 0);
    int reduced[64] = {0};
    for (int32_t i = 0; i < n; i++) {
      int32_t x = norm_axis(err, name, axes[i], a->ndim);
      if (x < 0)
        return;
      reduced[x] = 1;
    }
    const tsl_expr *d[64];
    int32_t k = 0;
    for (int32_t i = 0; i < a->ndim; i++) {
      int r = n < 0 || reduced[i];
      if (r && keep)
        d[k++] = c64(ar, 1);
      else if (!r)
        d[k++] = a->shape ? a->shape[i] : NULL;
    }
    out->ndim = k;
    if (a->shape)
      set_dims(ar, out, k, d);
    return;
  }
  case TSL_RX_OP_SOFTMAX:
    if (a->ndim >= 0)
      norm_axis(err, name, tsl_rx_attr_int(attrs, "axis", -1), a->ndim);
    return;
  default:
    return;
  }
}

/* R.concat((a, b, ...), axis): same rank and dtype, dimensions equal but
 * on the axis, which adds up. */
static const tsl_rx_sinfo *infer_concat(tsl_arena *ar, const tsl_rx_expr *tuple, tsl_attrs attrs,
                                        rx_err *err) {
  texts t = {0};
  const tsl_rx_sinfo *ts = tuple->sinfo; /* a tuple written in place, or a value of one */
  if (ts->kind != TSL_RX_SINFO_TUPLE || !ts->n_fields) {
    fail(err, &t, 0, "R.concat((a, b), axis=0)", "R.concat takes a tuple of tensors");
    return NULL;
  }
  const tsl_rx_sinfo *f = ts->fields[0];
  tsl_rx_sinfo *out = rx_sinfo_new(ar, TSL_RX_SINFO_TENSOR);
  for (uint32_t i = 0; i < ts->n_fields; i++)
    if (ts->fields[i]->kind != TSL_RX_SINFO_TENSOR) {
      fail(err, &t, 0, "a tuple of tensors", "R.concat: field %u is %s", i,
           sinfo_text(&t, ts->fields[i]));
      return NULL;
    }
  out->dtype = f->dtype;
  if (f->ndim < 0)
    return out;
  int32_t axis = norm_axis(err, "concat", tsl_rx_attr_int(attrs, "axis", 0), f->ndim);
  if (axis < 0)
    return NULL;
  const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, f->ndim);
  int known = f->shape != NULL;
  int64_t sum = 0, v;
  for (uint32_t i = 0; i < ts->n_fields; i++) {
    const tsl_rx_sinfo *s = ts->fields[i];
    if (s->ndim != f->ndim || !tsl_dtype_eq(s->dtype, f->dtype)) {
      fail(err, &t, 0, "tensors of one rank and dtype", "R.concat: %s and %s",
           sinfo_text(&t, f), sinfo_text(&t, s));
      return NULL;
    }
    for (int32_t k = 0; known && s->shape && k < f->ndim; k++) {
      int64_t x, y;
      if (k != axis && tsl_expr_is_const_int(s->shape[k], &x) &&
          tsl_expr_is_const_int(f->shape[k], &y) && x != y) {
        fail(err, &t, 0, "dimensions equal but on the axis", "R.concat: %s and %s differ in "
             "dimension %d", sinfo_text(&t, f), sinfo_text(&t, s), (int)k);
        return NULL;
      }
    }
    if (!s->shape || !tsl_expr_is_const_int(s->shape[axis], &v))
      known = 0;
    else
      sum += v;
  }
  out->ndim = f->ndim;
  if (known) {
    for (int32_t k = 0; k < f->ndim; k++)
      d[k] = k == axis ? c64(ar, sum) : f->shape[k];
    out->shape = d;
  }
  return out;
}

/* Does `x` broadcast to `to` (NumPy's rule, the data's dims aligned with
 * the target's last ones, each 1 or the same)? */
static int broadcasts_to(const tsl_rx_sinfo *x, int32_t n, const tsl_expr *const *to) {
  if (x->ndim > n)
    return 0;
  for (int32_t i = 0; i < x->ndim; i++) {
    const tsl_expr *d = x->shape[i], *t = to[n - x->ndim + i];
    int64_t v;
    if (!(tsl_expr_is_const_int(d, &v) && v == 1) && !rx_dim_equal(d, t))
      return 0;
  }
  return 1;
}

/* R.where (three operands broadcast, the condition bool), R.take (data
 * indexed along an axis by an integer tensor) and R.broadcast_to, 1.8. */
static const tsl_rx_sinfo *infer_gather(tsl_arena *ar, tsl_rx_op op,
                                        const tsl_rx_expr *const *args, tsl_attrs attrs,
                                        rx_err *err) {
  const char *name = tsl_rx_op_name(op);
  uint32_t n = (uint32_t)rx_op_arity(op);
  tsl_rx_sinfo *out = rx_sinfo_new(ar, TSL_RX_SINFO_TENSOR);
  texts t = {0};
  for (uint32_t i = 0; i < n; i++) {
    if (args[i]->sinfo->kind == TSL_RX_SINFO_OBJECT)
      return out; /* an unbound weight: nothing to infer */
    if (!tensor(args[i]->sinfo) || args[i]->sinfo->ndim < 0) {
      fail(err, &t, (int)i, "a tensor of known rank", "R.%s: operand %u is %s, not a tensor "
           "of known rank", name, i, sinfo_text(&t, args[i]->sinfo));
      return NULL;
    }
  }
  const tsl_rx_sinfo *x = args[0]->sinfo;
  if (op == TSL_RX_OP_WHERE) {
    if (!is_void(x->dtype) && !tsl_dtype_is_bool(x->dtype)) {
      fail(err, &t, 0, "a bool condition (R.astype(c, \"bool\"))", "R.where: the condition "
           "is %s, not bool", sinfo_text(&t, x));
      return NULL;
    }
    tsl_rx_sinfo *values = rx_sinfo_new(ar, TSL_RX_SINFO_TENSOR);
    dtypes_agree(err, name, args[1]->sinfo, args[2]->sinfo, values);
    if (!err->failed)
      broadcast(ar, err, name, args[1]->sinfo, args[2]->sinfo, values);
    if (!err->failed && values->shape)
      broadcast(ar, err, name, x, values, out);
    out->dtype = values->dtype;
    if (!values->shape)
      out->ndim = values->ndim > x->ndim ? values->ndim : x->ndim;
    return err->failed ? NULL : out;
  }
  if (op == TSL_RX_OP_BROADCAST_TO) {
    const tsl_attr_value *v = tsl_attrs_get(attrs, "shape");
    if (!v || v->kind != TSL_ATTR_LIST || v->n > 64) {
      fail(err, &t, RX_AT_CALL, "R.broadcast_to(x, R.shape([4, 3]))", "R.broadcast_to needs "
           "a shape of at most 64 dimensions");
      return NULL;
    }
    const tsl_expr **d = TSL_NEW_ARRAY(ar, const tsl_expr *, v->n + 1);
    for (uint32_t i = 0; i < v->n; i++)
      d[i] = v->u.items[i].u.expr;
    if (x->shape && !broadcasts_to(x, (int32_t)v->n, d)) {
      char to[256] = "(";
      for (uint32_t i = 0; i < v->n; i++)
        snprintf(to + strlen(to), sizeof to - strlen(to), "%s%s", i ? ", " : "",
                 dim_text(&t, d[i]));
      snprintf(to + strlen(to), sizeof to - strlen(to), v->n == 1 ? ",)" : ")");
      fail(err, &t, RX_AT_CALL, "NumPy broadcasting: each dimension of the data 1 or the "
           "target's, aligned from the last", "R.broadcast_to: %s does not broadcast to %s",
           sinfo_text(&t, x), to);
      return NULL;
    }
    out->dtype = x->dtype;
    set_dims(ar, out, (int32_t)v->n, d);
    return out;
  }
  /* TAKE */
  const tsl_rx_sinfo *idx = args[1]->sinfo;
  if (!is_void(idx->dtype) && idx->dtype.code != TSL_DT_INT && idx->dtype.code != TSL_DT_UINT) {
    fail(err, &t, 1, "integer indices (int64 or int32)", "R.take: the indices are %s",
         sinfo_text(&t, idx));
    return NULL;
  }
  if (!tsl_attrs_get(attrs, "axis")) {
    fail(err, &t, RX_AT_CALL, "axis=0 (tessel needs the axis: TVM's default flattens the "
         "data first)", "R.take needs an axis");
    return NULL;
  }
  int32_t axis = norm_axis(err, name, tsl_rx_attr_int(attrs, "axis", 0), x->ndim);
  if (axis < 0 || x->ndim + idx->ndim - 1 > 64)
    return NULL;
  int64_t size;
  if (x->shape && tsl_expr_is_const_int(x->shape[axis], &size) && size == 0) {
    fail(err, &t, 0, "data with at least one element along the axis", "R.take: axis %d of %s "
         "has no element to take", (int)axis, sinfo_text(&t, x));
    return NULL;
  }
  out->dtype = x->dtype;
  out->ndim = x->ndim + idx->ndim - 1;
  if (x->shape && idx->shape) {
    const tsl_expr *d[64];
    int32_t m = 0;
    for (int32_t i = 0; i < axis; i++)
      d[m++] = x->shape[i];
    for (int32_t i = 0; i < idx->ndim; i++)
      d[m++] = idx->shape[i];
    for (int32_t i = axis + 1; i < x->ndim; i++)
      d[m++] = x->shape[i];
    set_dims(ar, out, m, d);
  }
  return out;
}

const tsl_rx_sinfo *rx_infer_op(tsl_arena *ar, tsl_rx_op op, uint32_t n,
                                const tsl_rx_expr *const *args, tsl_attrs attrs, rx_err *err) {
  const char *name = tsl_rx_op_name(op);
  tsl_rx_sinfo *out = rx_sinfo_new(ar, TSL_RX_SINFO_TENSOR);
  texts t = {0};
  if ((int)n != rx_op_arity(op)) {
    fail(err, &t, RX_AT_CALL, NULL, "R.%s takes %d operand%s, not %u", name, rx_op_arity(op),
         rx_op_arity(op) == 1 ? "" : "s", n);
    return NULL;
  }
  if (op == TSL_RX_OP_CONCAT)
    return infer_concat(ar, args[0], attrs, err);
  if (op == TSL_RX_OP_WHERE || op == TSL_RX_OP_TAKE || op == TSL_RX_OP_BROADCAST_TO)
    return infer_gather(ar, op, args, attrs, err);
  if (op >= TSL_RX_OP_CONV2D && !tsl_rx_op_elementwise(op)) {
    for (uint32_t i = 0; i < n; i++)
      if (args[i]->sinfo->kind == TSL_RX_SINFO_OBJECT)
        return out; /* an unbound weight: nothing to infer */
    return rx_infer_nn(ar, op, args, attrs, err);
  }
  for (uint32_t i = 0; i < n; i++)
    if (args[i]->sinfo->kind != TSL_RX_SINFO_OBJECT && !tensor(args[i]->sinfo)) {
      fail(err, &t, (int)i, "operators take tensors", "R.%s: operand %u is %s, not a tensor",
           name, i, sinfo_text(&t, args[i]->sinfo));
      return NULL;
    }
  const tsl_rx_sinfo *a = args[0]->sinfo, *b = n > 1 ? args[1]->sinfo : NULL;
  if (!tensor(a) || (b && !tensor(b)))
    return out; /* an unbound weight: nothing to infer */
  switch (op) {
  case TSL_RX_OP_ADD: case TSL_RX_OP_SUBTRACT: case TSL_RX_OP_MULTIPLY: case TSL_RX_OP_DIVIDE:
  case TSL_RX_OP_POWER: case TSL_RX_OP_MAXIMUM: case TSL_RX_OP_MINIMUM:
    dtypes_agree(err, name, a, b, out);
    if (!err->failed)
      broadcast(ar, err, name, a, b, out);
    break;
  case TSL_RX_OP_MATMUL:
    matmul(ar, err, a, b, out);
    break;
  case TSL_RX_OP_ASTYPE: case TSL_RX_OP_GELU: case TSL_RX_OP_SILU: case TSL_RX_OP_PERMUTE_DIMS:
  case TSL_RX_OP_RESHAPE: case TSL_RX_OP_FLATTEN: case TSL_RX_OP_SUM: case TSL_RX_OP_MEAN:
  case TSL_RX_OP_MAX: case TSL_RX_OP_SOFTMAX:
    infer_attr_op(ar, op, args, attrs, out, err);
    break;
  default: /* elementwise unary */
    *out = *a;
    break;
  }
  release(&t);
  return err->failed ? NULL : out;
}

/* ---- destination-passing calls ---------------------------------------------- */

/* A prim_func's buffers in parameter order (every parameter a buffer). */
static int buffers_of(const tsl_func *f, const tsl_buffer **out) {
  for (uint32_t i = 0; i < f->n_params; i++) {
    if (!f->params[i].buffer)
      return -1;
    out[i] = f->params[i].buffer;
  }
  return (int)f->n_params;
}

typedef struct binder {
  tsl_vec vars; /* const tsl_var * of the prim_func's sizes */
  tsl_vec vals; /* const tsl_expr * bound to them */
} binder;

/* Does tensor `s` fit buffer `b`, binding the buffer's size variables? */
static const char *fits(binder *bd, const tsl_buffer *b, const tsl_rx_sinfo *s, int *dim) {
  *dim = -1;
  if (!is_void(s->dtype) && !dtype_equal(s->dtype, b->dtype))
    return "dtype";
  if (s->ndim >= 0 && (uint32_t)s->ndim != b->ndim)
    return "rank";
  for (uint32_t d = 0; s->shape && d < b->ndim; d++) {
    const tsl_expr *want = b->shape[d], *have = s->shape[d];
    int64_t x;
    *dim = (int)d;
    if (tsl_expr_is_const_int(want, &x)) {
      int64_t y;
      if (tsl_expr_is_const_int(have, &y) && x != y)
        return "shape";
      continue;
    }
    if (want->kind != TSL_EXPR_VAR)
      continue; /* an expression of sizes: not checked */
    uint32_t k = 0;
    while (k < bd->vars.len && TSL_VEC_DATA(&bd->vars, const tsl_var *)[k] != want->u.var)
      k++;
    if (k == bd->vars.len) {
      TSL_VEC_PUSH(&bd->vars, const tsl_var *, want->u.var);
      TSL_VEC_PUSH(&bd->vals, const tsl_expr *, have);
    } else if (!rx_dim_equal(TSL_VEC_DATA(&bd->vals, const tsl_expr *)[k], have)) {
      return "shape";
    }
  }
  return NULL;
}

/* The prim_func's buffers against the tensors passed and the outputs. */
static void check_against(const tsl_func *f, const char *callname,
                          const tsl_rx_expr *args, uint32_t n_out,
                          const tsl_rx_sinfo *const *outs, rx_err *err) {
  texts t = {0};
  const tsl_buffer **bufs = malloc((f->n_params + 1) * sizeof *bufs);
  int nb = bufs ? buffers_of(f, bufs) : -1;
  uint32_t n_in = args->n_args;
  if (nb < 0)
    fail(err, &t, RX_AT_CALLEE, "call prim_funcs whose parameters are all buffers",
         "%s: '%s' has scalar parameters", callname, f->name);
  else if (n_in + n_out != (uint32_t)nb)
    fail(err, &t, RX_AT_CALL, "a destination-passing call gives the inputs, then the outputs "
         "(out_sinfo), one tensor per buffer parameter",
         "%s: '%s' takes %d buffers; given %u input%s and %u output%s", callname, f->name, nb,
         n_in, n_in == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s");
  binder bd;
  tsl_vec_init(&bd.vars, sizeof(const tsl_var *), NULL);
  tsl_vec_init(&bd.vals, sizeof(const tsl_expr *), NULL);
  for (uint32_t i = 0; !err->failed && i < n_in + n_out; i++) {
    const tsl_rx_sinfo *s = i < n_in ? args->args[i]->sinfo : outs[i - n_in];
    int dim;
    const char *why = tensor(s) ? fits(&bd, bufs[i], s, &dim) : NULL;
    if (!why)
      continue;
    tsl_rx_sinfo want = {TSL_RX_SINFO_TENSOR, (int32_t)bufs[i]->ndim, bufs[i]->dtype,
                         bufs[i]->shape, 0, NULL};
    char dimbuf[32] = "";
    if (dim >= 0 && !strcmp(why, "shape"))
      snprintf(dimbuf, sizeof dimbuf, ", dimension %d", dim);
    fail(err, &t, i < n_in ? RX_AT_ARG(i) : RX_AT_CALL,
         "each tensor matches its buffer: same dtype, rank and sizes (the prim_func's "
         "symbolic sizes bound once)",
         "%s: %s %u of '%s' is %s, but its buffer '%s' is %s (%s%s)", callname,
         i < n_in ? "input" : "output", i < n_in ? i : i - n_in, f->name, sinfo_text(&t, s),
         bufs[i]->name, sinfo_text(&t, &want), why, dimbuf);
  }
  tsl_vec_free(&bd.vars);
  tsl_vec_free(&bd.vals);
  free(bufs);
  release(&t);
}

const tsl_rx_sinfo *rx_infer_dps(tsl_arena *ar, const tsl_module *tir, tsl_rx_op op,
                                 const tsl_rx_expr *callee, const tsl_rx_expr *args,
                                 uint32_t n_out, const tsl_rx_sinfo *const *outs, rx_err *err) {
  const char *callname = op == TSL_RX_OP_CALL_TIR ? "R.call_tir" : "R.call_dps_packed";
  texts t = {0};
  if (args->kind != TSL_RX_EXPR_TUPLE) {
    fail(err, &t, RX_AT_ARGS, "the inputs are a tuple: (x, w)", "%s: the inputs are not a "
         "tuple", callname);
    return NULL;
  }
  for (uint32_t i = 0; i < args->n_args; i++)
    if (args->args[i]->sinfo->kind != TSL_RX_SINFO_OBJECT && !tensor(args->args[i]->sinfo)) {
      fail(err, &t, RX_AT_ARG(i), "the inputs of a destination-passing call are tensors",
           "input %u is %s, not a tensor", i, sinfo_text(&t, args->args[i]->sinfo));
      return NULL;
    }
  for (uint32_t i = 0; i < n_out; i++)
    if (!tensor(outs[i])) {
      fail(err, &t, RX_AT_CALL, "the outputs of a destination-passing call are tensors",
           "out_sinfo must be R.Tensor(...)");
      return NULL;
    }
  if (!n_out) {
    fail(err, &t, RX_AT_CALL, "give the outputs' struct info (out_sinfo=)",
         "%s without outputs", callname);
    return NULL;
  }
  const tsl_func *f = NULL;
  if (callee->kind == TSL_RX_EXPR_GLOBAL || callee->kind == TSL_RX_EXPR_EXTERN)
    f = tsl_module_find(tir, callee->name);
  if (!f && callee->kind == TSL_RX_EXPR_GLOBAL) {
    fail(err, &t, RX_AT_CALLEE, "destination-passing calls call prim_funcs (or library "
         "functions by name)", "'%s' is a Relax function, not a prim_func", callee->name);
    return NULL;
  }
  if (f)
    check_against(f, callname, args, n_out, outs, err);
  if (err->failed)
    return NULL;
  if (n_out == 1)
    return outs[0];
  tsl_rx_sinfo *s = rx_sinfo_new(ar, TSL_RX_SINFO_TUPLE);
  s->n_fields = n_out;
  s->fields = outs;
  return s;
}
