/*
 * The collection of named tensors (tessel/weights.h): tensors in order in
 * a growable array of pointers (a tensor never moves), found by name
 * through the one hash map keyed by a 64-bit hash of the name (a lookup
 * changes nothing, so readers may share a collection; two names of one
 * hash, never seen in practice, fall back to a scan); metadata pairs; the
 * dtype table every format reads; sizes and messages.
 */
#include "weights_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/container.h"

struct tsl_weights {
  tsl_map by_name; /* name_key(name) -> the first tensor of that key */
  tsl_vec items;  /* tsl_weight * in order */
  tsl_vec meta;   /* char * pairs: key, value, key, value ... */
};

/* ---- dtypes ----------------------------------------------------------------- */

static const wt_dtype_row rows[] = {
    {TSL_DTYPE(TSL_DT_FLOAT, 16, 1), 'f', 2, "F16"},
    {TSL_DTYPE(TSL_DT_BFLOAT, 16, 1), '\0', 2, "BF16"},
    {TSL_DTYPE(TSL_DT_FLOAT, 32, 1), 'f', 4, "F32"},
    {TSL_DTYPE(TSL_DT_FLOAT, 64, 1), 'f', 8, "F64"},
    {TSL_DTYPE(TSL_DT_INT, 8, 1), 'i', 1, "I8"},
    {TSL_DTYPE(TSL_DT_INT, 16, 1), 'i', 2, "I16"},
    {TSL_DTYPE(TSL_DT_INT, 32, 1), 'i', 4, "I32"},
    {TSL_DTYPE(TSL_DT_INT, 64, 1), 'i', 8, "I64"},
    {TSL_DTYPE(TSL_DT_UINT, 8, 1), 'u', 1, "U8"},
    {TSL_DTYPE(TSL_DT_UINT, 16, 1), 'u', 2, "U16"},
    {TSL_DTYPE(TSL_DT_UINT, 32, 1), 'u', 4, "U32"},
    {TSL_DTYPE(TSL_DT_UINT, 64, 1), 'u', 8, "U64"},
    {TSL_DTYPE(TSL_DT_UINT, 1, 1), 'b', 1, "BOOL"},
};
#define N_ROWS (sizeof rows / sizeof rows[0])

const wt_dtype_row *wt_dtype_row_of(tsl_dtype dt) {
  for (size_t i = 0; i < N_ROWS; i++)
    if (tsl_dtype_eq(rows[i].dtype, dt))
      return &rows[i];
  return NULL;
}

const wt_dtype_row *wt_dtype_by_st_name(const char *s, size_t n) {
  for (size_t i = 0; i < N_ROWS; i++)
    if (strlen(rows[i].st_name) == n && !memcmp(rows[i].st_name, s, n))
      return &rows[i];
  return NULL;
}

const wt_dtype_row *wt_dtype_by_npy(char kind, unsigned size) {
  for (size_t i = 0; i < N_ROWS; i++)
    if (rows[i].npy_kind && rows[i].npy_kind == kind && rows[i].size == size)
      return &rows[i];
  return NULL;
}

const char *wt_st_names(void) {
  return "F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, BOOL";
}

const char *wt_npy_descrs(void) {
  return "'<f2', '<f4', '<f8', '|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', "
         "'<u8', '|b1'";
}

/* ---- sizes, text, messages -------------------------------------------------------- */

int wt_sizes(uint32_t ndim, const int64_t *shape, size_t elem, uint64_t *numel,
             uint64_t *nbytes) {
  uint64_t nz = elem, n = 1;
  int zero = 0;
  for (uint32_t i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return -1;
    if (shape[i] == 0) {
      zero = 1;
      continue;
    }
    if ((uint64_t)shape[i] > (uint64_t)INT64_MAX / nz)
      return -2;
    nz *= (uint64_t)shape[i];
    n *= (uint64_t)shape[i];
  }
  *numel = zero ? 0 : n;
  *nbytes = zero ? 0 : nz;
  return 0;
}

const char *wt_shape_str(uint32_t ndim, const int64_t *shape, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = '\0';
  k += (size_t)snprintf(buf, cap, "[");
  for (uint32_t i = 0; i < ndim && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (k < cap)
    k += (size_t)snprintf(buf + k, cap - k, "]");
  if (k >= cap && cap > 4)
    memcpy(buf + cap - 4, "...", 4);
  return buf;
}

int wt_utf8_ok(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    unsigned c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!len || i + len > n || (len == 2 && c < 0xc2) || (len == 4 && c > 0xf4))
      return 0;
    for (size_t k = 1; k < len; k++)
      if ((p[i + k] & 0xc0) != 0x80)
        return 0;
    if (len == 3) {
      unsigned cp = ((c & 0xfu) << 12) | ((p[i + 1] & 0x3fu) << 6) | (p[i + 2] & 0x3fu);
      if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    }
    if (len == 4) {
      unsigned cp = ((c & 7u) << 18) | ((p[i + 1] & 0x3fu) << 12);
      if (cp < 0x10000 || cp > 0x10ffff)
        return 0;
    }
    if (c == 0)
      return 0;
    i += len;
  }
  return 1;
}

int wt_fail(tsl_diag *diag, int status, const wt_where *at, const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tsl_diag_set(diag, status, "%s: error: %s%.512s%s%s%.512s%s%s",
                      at && at->path ? at->path : "weights",
                      at && at->member ? "member '" : "",
                      at && at->member ? at->member : "", at && at->member ? "': " : "",
                      at && at->tensor ? "tensor '" : "",
                      at && at->tensor ? at->tensor : "", at && at->tensor ? "': " : "",
                      msg);
}

/* ---- the collection ------------------------------------------------------------ */

/* FNV-1a of the name, odd so that it is never a NULL key. */
static const void *name_key(const char *name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    h = (h ^ *c) * 0x100000001b3ull;
  return TSL_MAP_KEY((uintptr_t)(h | 1));
}

tsl_weights *tsl_weights_new(void) {
  tsl_weights *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  tsl_map_init(&w->by_name, NULL);
  tsl_vec_init(&w->items, sizeof(tsl_weight *), NULL);
  tsl_vec_init(&w->meta, sizeof(char *), NULL);
  return w;
}

void tsl_weights_free(tsl_weights *w) {
  if (!w)
    return;
  for (uint32_t i = 0; i < w->items.len; i++) {
    tsl_weight *t = TSL_VEC_AT(&w->items, tsl_weight *, i);
    free(t->data);
    free(t);
  }
  for (uint32_t i = 0; i < w->meta.len; i++)
    free(TSL_VEC_AT(&w->meta, char *, i));
  tsl_vec_free(&w->items);
  tsl_vec_free(&w->meta);
  tsl_map_free(&w->by_name);
  free(w);
}

uint32_t tsl_weights_count(const tsl_weights *w) { return w ? w->items.len : 0; }

const tsl_weight *tsl_weights_at(const tsl_weights *w, uint32_t i) {
  return w && i < w->items.len ? TSL_VEC_AT(&w->items, tsl_weight *, i) : NULL;
}

const tsl_weight *tsl_weights_find(const tsl_weights *w, const char *name) {
  if (!w || !name)
    return NULL;
  const tsl_weight *t = tsl_map_get(&w->by_name, name_key(name));
  if (!t || !strcmp(t->name, name))
    return t;
  for (uint32_t i = 0; i < w->items.len; i++) /* another name of the same hash */
    if (!strcmp(TSL_VEC_AT(&w->items, tsl_weight *, i)->name, name))
      return TSL_VEC_AT(&w->items, tsl_weight *, i);
  return NULL;
}

int wt_add_alloc(tsl_weights *w, const char *name, tsl_dtype dtype, uint32_t ndim,
                 const int64_t *shape, const wt_where *at, tsl_weight **out,
                 tsl_diag *diag) {
  wt_where here = at ? *at : (wt_where){"tsl_weights_add", NULL, NULL};
  here.tensor = name;
  if (!name || !*name) {
    here.tensor = NULL;
    return wt_fail(diag, TSL_EINVALID, &here,
                   "a tensor has %s name; valid: a non-empty UTF-8 name", name ? "an empty" : "no");
  }
  size_t name_len = strlen(name);
  if (!wt_utf8_ok(name, name_len))
    return wt_fail(diag, TSL_EINVALID, &here, "the name is not valid UTF-8");
  const wt_dtype_row *row = wt_dtype_row_of(dtype);
  if (!row) {
    char b[32];
    return wt_fail(diag, TSL_EUNSUPPORTED, &here,
                   "dtype %s cannot be stored; valid: float16, bfloat16, float32, float64, "
                   "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool",
                   tsl_dtype_str(dtype, b));
  }
  if (ndim > TSL_WEIGHTS_MAX_NDIM)
    return wt_fail(diag, TSL_EINVALID, &here, "%u dims; valid: at most %d", ndim,
                   TSL_WEIGHTS_MAX_NDIM);
  if (ndim && !shape)
    return wt_fail(diag, TSL_EINVALID, &here, "%u dims but no shape given", ndim);
  uint64_t numel, nbytes;
  char sb[256];
  int s = wt_sizes(ndim, shape, row->size, &numel, &nbytes);
  if (s == -1)
    return wt_fail(diag, TSL_EINVALID, &here, "shape %s has a negative dim; valid: dims >= 0",
                   wt_shape_str(ndim, shape, sb, sizeof sb));
  if (s == -2)
    return wt_fail(diag, TSL_EINVALID, &here,
                   "shape %s: its size in bytes overflows (the product of the non-zero "
                   "dims times %u bytes must be below 2^63)",
                   wt_shape_str(ndim, shape, sb, sizeof sb), row->size);
  const void *key = name_key(name);
  if (tsl_weights_find(w, name))
    return wt_fail(diag, TSL_EINVALID, &here,
                   "the name appears twice; valid: each tensor name once");
  if (nbytes > SIZE_MAX - 64)
    return wt_fail(diag, TSL_ENOMEM, &here, "out of memory for %llu bytes",
                   (unsigned long long)nbytes);
  tsl_weight *t = calloc(1, sizeof *t + (size_t)ndim * sizeof(int64_t) + name_len + 1);
  void *data = NULL;
  size_t alloc = ((size_t)nbytes + 63) & ~(size_t)63;
  if (!t || posix_memalign(&data, 64, alloc ? alloc : 64) != 0) {
    free(t);
    return wt_fail(diag, TSL_ENOMEM, &here, "out of memory for %llu bytes",
                   (unsigned long long)nbytes);
  }
  int64_t *dims = (int64_t *)(t + 1);
  char *nm = (char *)(dims + ndim);
  if (ndim)
    memcpy(dims, shape, ndim * sizeof(int64_t));
  memcpy(nm, name, name_len + 1);
  *t = (tsl_weight){sizeof(tsl_weight), ndim, nm, dims, data, numel, nbytes, row->dtype, 0};
  TSL_VEC_PUSH(&w->items, tsl_weight *, t);
  if (!tsl_map_find(&w->by_name, key, NULL))
    tsl_map_put(&w->by_name, key, t);
  if (out)
    *out = t;
  return TSL_OK;
}

int tsl_weights_add(tsl_weights *w, const char *name, tsl_dtype dtype, uint32_t ndim,
                    const int64_t *shape, const void *data, const tsl_weight **out,
                    tsl_diag *diag) {
  if (!w)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_weights_add: error: no collection");
  tsl_weight *t;
  int rc = wt_add_alloc(w, name, dtype, ndim, shape, NULL, &t, diag);
  if (rc)
    return rc;
  if (data)
    memcpy(t->data, data, (size_t)t->nbytes);
  else
    memset(t->data, 0, (size_t)t->nbytes);
  if (out)
    *out = t;
  return TSL_OK;
}

/* ---- metadata -------------------------------------------------------------------- */

uint32_t tsl_weights_meta_count(const tsl_weights *w) { return w ? w->meta.len / 2 : 0; }

int tsl_weights_meta_at(const tsl_weights *w, uint32_t i, const char **key,
                        const char **value) {
  if (!w || i >= w->meta.len / 2)
    return TSL_ENOTFOUND;
  if (key)
    *key = TSL_VEC_AT(&w->meta, char *, 2 * i);
  if (value)
    *value = TSL_VEC_AT(&w->meta, char *, 2 * i + 1);
  return TSL_OK;
}

int tsl_weights_meta_set(tsl_weights *w, const char *key, const char *value,
                         tsl_diag *diag) {
  if (!w)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_weights_meta_set: error: no collection");
  if (!key || !*key || !wt_utf8_ok(key, strlen(key)))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "tsl_weights_meta_set: error: the key is %s; valid: a non-empty "
                        "UTF-8 string",
                        !key ? "NULL" : !*key ? "empty" : "not valid UTF-8");
  if (!value || !wt_utf8_ok(value, strlen(value)))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "tsl_weights_meta_set: error: the value of '%s' is %s; valid: a "
                        "UTF-8 string",
                        key, !value ? "NULL" : "not valid UTF-8");
  char *v = strdup(value);
  if (!v)
    return tsl_diag_set(diag, TSL_ENOMEM, "tsl_weights_meta_set: out of memory");
  for (uint32_t i = 0; i < w->meta.len; i += 2) {
    if (!strcmp(TSL_VEC_AT(&w->meta, char *, i), key)) {
      free(TSL_VEC_AT(&w->meta, char *, i + 1));
      TSL_VEC_AT(&w->meta, char *, i + 1) = v;
      return TSL_OK;
    }
  }
  char *k = strdup(key);
  if (!k) {
    free(v);
    return tsl_diag_set(diag, TSL_ENOMEM, "tsl_weights_meta_set: out of memory");
  }
  TSL_VEC_PUSH(&w->meta, char *, k);
  TSL_VEC_PUSH(&w->meta, char *, v);
  return TSL_OK;
}
