/*
 * Host tensors for the interpreter: allocation, element access, seeded
 * random contents, checksums, and the argument lists of a prim_func
 * (tsl_func_make_args). Also the numeric-kind helpers shared with the
 * interpreter (interp_internal.h).
 *
 * Random contents are counter based: element k of a tensor filled with
 * (seed, stream) is splitmix64's finaliser applied to key + (k + 1) * gamma,
 * where key mixes seed and stream. So a value depends only on (seed, stream,
 * k): identical on every run and machine, and independent of fill order.
 */
#include "interp_internal.h"

#include <stdlib.h>

int tsli_kind_of(tsl_dtype t) {
  if (t.lanes != 1)
    return TSLI_NONE;
  switch (t.code) {
  case TSL_DT_INT:
    switch (t.bits) {
    case 8:
      return TSLI_I8;
    case 16:
      return TSLI_I16;
    case 32:
      return TSLI_I32;
    case 64:
      return TSLI_I64;
    }
    break;
  case TSL_DT_UINT:
    switch (t.bits) {
    case 1:
      return TSLI_BOOL;
    case 8:
      return TSLI_U8;
    case 16:
      return TSLI_U16;
    case 32:
      return TSLI_U32;
    case 64:
      return TSLI_U64;
    }
    break;
  case TSL_DT_FLOAT:
    switch (t.bits) {
    case 16:
      return TSLI_F16;
    case 32:
      return TSLI_F32;
    case 64:
      return TSLI_F64;
    }
    break;
  case TSL_DT_BFLOAT:
    if (t.bits == 16)
      return TSLI_BF16;
    break;
  }
  return TSLI_NONE;
}

int64_t tsli_f2i(double v, int k) {
  if (k == TSLI_BOOL)
    return v != 0;
  if (v != v)
    return 0;
  double t = trunc(v);
  switch (k) {
  case TSLI_I64:
    if (t >= 0x1p63)
      return INT64_MAX;
    if (t < -0x1p63)
      return INT64_MIN;
    return (int64_t)t;
  case TSLI_U64:
    if (t <= 0)
      return 0;
    if (t >= 0x1p64)
      return (int64_t)UINT64_MAX;
    return (int64_t)(uint64_t)t;
  default: {
    static const double lo[] = {-128, -32768, -2147483648.0, 0, 0, 0, 0};
    static const double hi[] = {127, 32767, 2147483647.0, 0,
                                255, 65535, 4294967295.0};
    if (k < TSLI_I8 || k > TSLI_U32)
      return 0;
    if (t < lo[k])
      t = lo[k];
    if (t > hi[k])
      t = hi[k];
    return (int64_t)t;
  }
  }
}

/* ---- tensors ----------------------------------------------------------- */

int tsl_tensor_alloc(tsl_tensor *t, tsl_dtype dtype, int32_t ndim,
                     const int64_t *shape, tsl_diag *diag) {
  char dn[32];
  if (!t)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_tensor_alloc: NULL tensor");
  memset(t, 0, sizeof *t);
  int k = tsli_kind_of(dtype);
  if (k == TSLI_NONE)
    return tsl_diag_set(
        diag, TSL_EUNSUPPORTED,
        "cannot allocate a tensor of dtype %s: host tensors "
        "hold scalar int, uint, float, bfloat16 or bool elements",
        tsl_dtype_str(dtype, dn));
  if (ndim < 0 || ndim > TSL_MAX_NDIM)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "cannot allocate a tensor with %d dimensions (0 to %d "
                        "are allowed)",
                        (int)ndim, TSL_MAX_NDIM);
  if (ndim > 0 && !shape)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_tensor_alloc: NULL shape");
  size_t esize = tsli_kind_bytes(k);
  uint64_t numel = 1;
  for (int32_t d = 0; d < ndim; d++) {
    if (shape[d] < 0)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "cannot allocate a tensor with negative dimension "
                          "%lld (dimension %d)",
                          (long long)shape[d], (int)d);
    if (shape[d] != 0 &&
        numel > ((uint64_t)1 << 62) / (uint64_t)shape[d] / esize)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "cannot allocate a tensor that large: the element "
                          "count overflows (dimension %d is %lld)",
                          (int)d, (long long)shape[d]);
    numel *= (uint64_t)shape[d];
  }
  size_t bytes = (size_t)numel * esize;
  void *data = calloc(bytes ? bytes : 1, 1);
  if (!data)
    return tsl_diag_set(diag, TSL_ENOMEM,
                        "out of memory allocating a %s tensor of %zu bytes",
                        tsl_dtype_str(dtype, dn), bytes);
  t->data = data;
  t->dtype = dtype;
  t->ndim = ndim;
  for (int32_t d = 0; d < ndim; d++)
    t->shape[d] = shape[d];
  return TSL_OK;
}

void tsl_tensor_free(tsl_tensor *t) {
  if (!t)
    return;
  free(t->data);
  t->data = NULL;
  t->ndim = 0;
}

int64_t tsl_tensor_numel(const tsl_tensor *t) {
  if (!t || t->ndim < 0 || t->ndim > TSL_MAX_NDIM)
    return 0;
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

double tsl_tensor_get(const tsl_tensor *t, int64_t k) {
  int kind = t ? tsli_kind_of(t->dtype) : TSLI_NONE;
  if (kind == TSLI_NONE || !t->data || k < 0 || k >= tsl_tensor_numel(t))
    return NAN;
  if (tsli_is_float(kind))
    return tsli_read_f(t->data, k, kind);
  return tsli_i2f(tsli_read_i(t->data, k, kind), kind);
}

void tsl_tensor_set(tsl_tensor *t, int64_t k, double v) {
  int kind = t ? tsli_kind_of(t->dtype) : TSLI_NONE;
  if (kind == TSLI_NONE || !t->data || k < 0 || k >= tsl_tensor_numel(t))
    return;
  if (tsli_is_float(kind))
    tsli_write_f(t->data, k, kind, tsli_round(v, kind));
  else
    tsli_write_i(t->data, k, kind, tsli_f2i(v, kind));
}

/* ---- random contents ---------------------------------------------------- */

#define GOLDEN 0x9e3779b97f4a7c15ull

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void tsl_tensor_fill_random(tsl_tensor *t, uint64_t seed, uint64_t stream) {
  int kind = t ? tsli_kind_of(t->dtype) : TSLI_NONE;
  if (kind == TSLI_NONE || !t->data)
    return;
  uint64_t key = mix64(seed + GOLDEN) ^
                 mix64((stream ^ 0x6a09e667f3bcc909ull) + 2 * GOLDEN);
  key = mix64(key);
  int64_t n = tsl_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = mix64(key + (uint64_t)(i + 1) * GOLDEN);
    switch (kind) {
    /* Floats: k / 2^(p-1) - 1 with p the dtype's significand bits, so every
     * value is exact in the dtype and lies in [-1, 1). */
    case TSLI_F64:
      tsli_write_f(t->data, i, kind, (double)(r >> 11) * 0x1p-52 - 1.0);
      break;
    case TSLI_F32:
      tsli_write_f(t->data, i, kind, (double)(r >> 40) * 0x1p-23 - 1.0);
      break;
    case TSLI_F16:
      tsli_write_f(t->data, i, kind, (double)(r >> 53) * 0x1p-10 - 1.0);
      break;
    case TSLI_BF16:
      tsli_write_f(t->data, i, kind, (double)(r >> 56) * 0x1p-7 - 1.0);
      break;
    case TSLI_BOOL:
      tsli_write_i(t->data, i, kind, (int64_t)(r >> 63));
      break;
    case TSLI_I8:
    case TSLI_I16:
    case TSLI_I32:
    case TSLI_I64:
      tsli_write_i(t->data, i, kind, (int64_t)(r >> 60) - 8);
      break;
    default: /* unsigned */
      tsli_write_i(t->data, i, kind, (int64_t)(r >> 60));
      break;
    }
  }
}

/* The element's bits as an integer, so that hashing its bytes from the
 * least significant up gives the same hash on every host. */
static uint64_t elem_bits(const unsigned char *p, size_t es) {
  switch (es) {
  case 1:
    return *p;
  case 2: {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

tsl_checksum tsl_tensor_checksum(const tsl_tensor *t) {
  tsl_checksum c = {0.0, 0xcbf29ce484222325ull};
  int kind = t ? tsli_kind_of(t->dtype) : TSLI_NONE;
  if (kind == TSLI_NONE || !t->data)
    return c;
  int64_t n = tsl_tensor_numel(t);
  size_t es = tsli_kind_bytes(kind);
  const unsigned char *p = t->data;
  for (int64_t i = 0; i < n; i++) {
    c.sum += tsli_is_float(kind) ? tsli_read_f(p, i, kind)
                                 : tsli_i2f(tsli_read_i(p, i, kind), kind);
    uint64_t bits = elem_bits(p + (size_t)i * es, es);
    for (size_t b = 0; b < es; b++) {
      c.hash ^= (bits >> (8 * b)) & 0xffu;
      c.hash *= 0x100000001b3ull;
    }
  }
  return c;
}

/* ---- argument lists ------------------------------------------------------ */

static const tsl_binding *find_binding(const tsl_binding *binds, uint32_t n,
                                       const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (binds[i].name && name && strcmp(binds[i].name, name) == 0)
      return &binds[i];
  return NULL;
}

/* Value of a declared dimension from the bindings (ints only). */
static int eval_dim(const tsl_expr *e, const tsl_buffer *b,
                    const tsl_binding *binds, uint32_t nb, int depth,
                    int64_t *out, tsl_diag *diag) {
  if (depth > 64)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "shape of buffer '%s' is nested too deeply", b->name);
  int64_t x = 0, y = 0;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    *out = e->u.int_value;
    return TSL_OK;
  case TSL_EXPR_VAR: {
    const tsl_binding *bd = find_binding(binds, nb, e->u.var->name);
    if (!bd)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "symbolic shape variable '%s' of buffer '%s' has no "
                          "value; bind it, e.g. --set %s=64",
                          e->u.var->name, b->name, e->u.var->name);
    *out = bd->value;
    return TSL_OK;
  }
  case TSL_EXPR_CAST:
    return eval_dim(e->args[0], b, binds, nb, depth + 1, out, diag);
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
  case TSL_EXPR_MUL:
  case TSL_EXPR_DIV:
  case TSL_EXPR_MOD:
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD:
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX: {
    int r = eval_dim(e->args[0], b, binds, nb, depth + 1, &x, diag);
    if (!r)
      r = eval_dim(e->args[1], b, binds, nb, depth + 1, &y, diag);
    if (r)
      return r;
    int is_div = e->kind == TSL_EXPR_DIV || e->kind == TSL_EXPR_MOD ||
                 e->kind == TSL_EXPR_FLOORDIV || e->kind == TSL_EXPR_FLOORMOD;
    if (is_div && (y == 0 || (x == INT64_MIN && y == -1)))
      return tsl_diag_set(diag, TSL_EINVALID,
                          "shape of buffer '%s' divides %lld by %lld", b->name,
                          (long long)x, (long long)y);
    switch ((tsl_expr_kind)e->kind) {
    case TSL_EXPR_ADD:
      *out = (int64_t)((uint64_t)x + (uint64_t)y);
      break;
    case TSL_EXPR_SUB:
      *out = (int64_t)((uint64_t)x - (uint64_t)y);
      break;
    case TSL_EXPR_MUL:
      *out = (int64_t)((uint64_t)x * (uint64_t)y);
      break;
    case TSL_EXPR_DIV:
      *out = x / y;
      break;
    case TSL_EXPR_MOD:
      *out = x % y;
      break;
    case TSL_EXPR_FLOORDIV:
      *out = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
      break;
    case TSL_EXPR_FLOORMOD: {
      int64_t r2 = x % y;
      *out = (r2 != 0 && ((r2 < 0) != (y < 0))) ? r2 + y : r2;
      break;
    }
    case TSL_EXPR_MIN:
      *out = x < y ? x : y;
      break;
    default:
      *out = x > y ? x : y;
      break;
    }
    return TSL_OK;
  }
  default: {
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    tsli_fmt_expr(&sb, e);
    int r = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                         "cannot compute dimension '%s' of buffer '%s' from "
                         "the bindings: only integer arithmetic on symbolic "
                         "variables is supported in shapes",
                         sb.data ? sb.data : "?", b->name);
    tsl_strbuf_free(&sb);
    return r;
  }
  }
}

int tsl_func_make_args(const tsl_func *f, const tsl_binding *binds,
                       uint32_t n_binds, uint64_t seed, tsl_arg *args,
                       tsl_diag *diag) {
  if (!f || (!args && f->n_params))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "tsl_func_make_args: NULL argument");
  if (n_binds && !binds)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_func_make_args: NULL binds");
  memset(args, 0, sizeof *args * f->n_params);
  for (uint32_t p = 0; p < f->n_params; p++) {
    const tsl_param *pa = &f->params[p];
    int r = TSL_OK;
    if (!pa->buffer) {
      const char *name = pa->var->name;
      const tsl_binding *bd = find_binding(binds, n_binds, name);
      if (!bd) {
        r = tsl_diag_set(diag, TSL_EINVALID,
                         "scalar parameter '%s' of function '%s' has no value; "
                         "bind it, e.g. --set %s=1",
                         name, f->name, name);
      } else {
        args[p].is_scalar = 1;
        args[p].int_value = bd->value;
        args[p].float_value = (double)bd->value;
      }
    } else {
      const tsl_buffer *b = pa->buffer;
      int64_t shape[TSL_MAX_NDIM];
      if (b->ndim > TSL_MAX_NDIM)
        r = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                         "buffer '%s' has %u dimensions; at most %d are "
                         "supported",
                         b->name, b->ndim, TSL_MAX_NDIM);
      for (uint32_t d = 0; !r && d < b->ndim; d++) {
        r = eval_dim(b->shape[d], b, binds, n_binds, 0, &shape[d], diag);
        if (!r && shape[d] <= 0) {
          tsl_strbuf sb;
          tsl_strbuf_init(&sb);
          tsli_fmt_expr(&sb, b->shape[d]);
          r = tsl_diag_set(diag, TSL_EINVALID,
                           "dimension %u of buffer '%s' is %s = %lld; "
                           "dimensions must be positive",
                           d, b->name, sb.data ? sb.data : "?",
                           (long long)shape[d]);
          tsl_strbuf_free(&sb);
        }
      }
      if (!r)
        r = tsl_tensor_alloc(&args[p].tensor, b->dtype, (int32_t)b->ndim, shape,
                             diag);
      if (!r)
        tsl_tensor_fill_random(&args[p].tensor, seed, p);
    }
    if (r) {
      tsl_args_free(args, p);
      memset(args, 0, sizeof *args * f->n_params);
      return r;
    }
  }
  return TSL_OK;
}

void tsl_args_free(tsl_arg *args, uint32_t n) {
  if (!args)
    return;
  for (uint32_t i = 0; i < n; i++)
    if (!args[i].is_scalar)
      tsl_tensor_free(&args[i].tensor);
}
