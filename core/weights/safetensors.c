/*
 * The .safetensors format: an unsigned 64-bit little-endian header length
 * N, N bytes of JSON (an object: per tensor name {"dtype", "shape",
 * "data_offsets": [begin, end]} with offsets relative to the data, and an
 * optional "__metadata__" object of strings), then the data. Read through
 * jansson with duplicate keys refused; the data ranges must tile the data
 * exactly (sorted by begin: each begins where the one before ends, holds
 * exactly its shape's bytes, and the last ends at the end of the file), as
 * the safetensors reference implementation checks.
 */
#include "weights_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The reference implementation's limit on N. */
#define ST_MAX_HEADER 100000000ull

/* dtypes of the safetensors specification that tessel does not hold */
static const char *const st_other[] = {"F8_E4M3", "F8_E5M2", "F8_E8M0", "F6_E2M3",
                                       "F6_E3M2", "F4",      "C64",     NULL};

typedef struct st_entry {
  const char *name; /* the JSON key (lives as long as the JSON) */
  const wt_dtype_row *row;
  uint32_t ndim;
  json_t *shape; /* checked: ndim integers >= 0 */
  uint64_t begin, end, nbytes;
  uint32_t order; /* in the header */
} st_entry;

/* A non-negative JSON integer, or -1. */
static int64_t json_nonneg(const json_t *v) {
  return json_is_integer(v) && json_integer_value(v) >= 0 ? (int64_t)json_integer_value(v) : -1;
}

static int parse_entry(const char *name, json_t *v, st_entry *e, const wt_where *file,
                       tsl_diag *diag) {
  wt_where at = *file;
  at.tensor = name;
  e->name = name;
  if (!json_is_object(v))
    return wt_fail(diag, TSL_EPARSE, &at,
                   "expected an object {\"dtype\": ..., \"shape\": [...], \"data_offsets\": "
                   "[begin, end]}");
  json_t *dt = json_object_get(v, "dtype"), *sh = json_object_get(v, "shape"),
         *off = json_object_get(v, "data_offsets");
  if (!json_is_string(dt))
    return wt_fail(diag, TSL_EPARSE, &at, "\"dtype\" is %s; valid: a string, one of %s",
                   dt ? "not a string" : "missing", wt_st_names());
  const char *ds = json_string_value(dt);
  size_t dn = json_string_length(dt);
  if (!(e->row = wt_dtype_by_st_name(ds, dn))) {
    for (int i = 0; st_other[i]; i++)
      if (strlen(st_other[i]) == dn && !memcmp(st_other[i], ds, dn))
        return wt_fail(diag, TSL_EUNSUPPORTED, &at,
                       "dtype \"%s\" is not supported here; valid: %s", ds, wt_st_names());
    return wt_fail(diag, TSL_EPARSE, &at, "unknown dtype \"%.64s\"; valid: %s", ds,
                   wt_st_names());
  }
  if (!json_is_array(sh))
    return wt_fail(diag, TSL_EPARSE, &at,
                   "\"shape\" is %s; valid: an array of integers >= 0 ([] for a scalar)",
                   sh ? "not an array" : "missing");
  if (json_array_size(sh) > TSL_WEIGHTS_MAX_NDIM)
    return wt_fail(diag, TSL_EINVALID, &at, "\"shape\" has %zu dims; valid: at most %d",
                   json_array_size(sh), TSL_WEIGHTS_MAX_NDIM);
  e->ndim = (uint32_t)json_array_size(sh);
  e->shape = sh;
  int64_t dims[TSL_WEIGHTS_MAX_NDIM];
  for (uint32_t i = 0; i < e->ndim; i++)
    if ((dims[i] = json_nonneg(json_array_get(sh, i))) < 0)
      return wt_fail(diag, TSL_EPARSE, &at,
                     "\"shape\"[%u] is not an integer >= 0; valid: an array of integers >= 0",
                     i);
  int64_t b = -1, en = -1;
  if (json_is_array(off) && json_array_size(off) == 2) {
    b = json_nonneg(json_array_get(off, 0));
    en = json_nonneg(json_array_get(off, 1));
  }
  if (b < 0 || en < 0 || b > en)
    return wt_fail(diag, TSL_EPARSE, &at,
                   "\"data_offsets\" is %s; valid: [begin, end], integers with 0 <= begin "
                   "<= end",
                   off ? "not [begin, end] with 0 <= begin <= end" : "missing");
  e->begin = (uint64_t)b;
  e->end = (uint64_t)en;
  char sb[256];
  uint64_t numel;
  if (wt_sizes(e->ndim, dims, e->row->size, &numel, &e->nbytes))
    return wt_fail(diag, TSL_EINVALID, &at,
                   "shape %s: its size in bytes overflows (the product of the non-zero dims "
                   "times %u bytes must be below 2^63)",
                   wt_shape_str(e->ndim, dims, sb, sizeof sb), e->row->size);
  return TSL_OK;
}

static int by_offset(const void *a, const void *b) {
  const st_entry *x = *(const st_entry *const *)a, *y = *(const st_entry *const *)b;
  if (x->begin != y->begin)
    return x->begin < y->begin ? -1 : 1;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Each range holds its tensor's bytes inside the data; sorted, the ranges
 * tile [0, dlen) without gap or overlap. */
static void dims_of(const st_entry *e, int64_t *dims) {
  for (uint32_t i = 0; i < e->ndim; i++)
    dims[i] = (int64_t)json_integer_value(json_array_get(e->shape, i));
}

static int check_ranges(st_entry *e, uint32_t n, uint64_t dlen, const wt_where *file,
                        tsl_diag *diag) {
  int64_t dims[TSL_WEIGHTS_MAX_NDIM];
  char sb[256], db[32];
  for (uint32_t i = 0; i < n; i++) {
    wt_where at = *file;
    at.tensor = e[i].name;
    if (e[i].end > dlen)
      return wt_fail(diag, TSL_EINVALID, &at,
                     "data_offsets [%llu, %llu] go beyond the data (%llu bytes after the "
                     "header); valid: end <= %llu",
                     (unsigned long long)e[i].begin, (unsigned long long)e[i].end,
                     (unsigned long long)dlen, (unsigned long long)dlen);
    dims_of(&e[i], dims);
    if (e[i].end - e[i].begin != e[i].nbytes)
      return wt_fail(diag, TSL_EINVALID, &at,
                     "data_offsets [%llu, %llu] hold %llu bytes; shape %s of %s needs "
                     "exactly %llu",
                     (unsigned long long)e[i].begin, (unsigned long long)e[i].end,
                     (unsigned long long)(e[i].end - e[i].begin),
                     wt_shape_str(e[i].ndim, dims, sb, sizeof sb),
                     tsl_dtype_str(e[i].row->dtype, db), (unsigned long long)e[i].nbytes);
  }
  st_entry **s = malloc((n ? n : 1) * sizeof *s);
  if (!s)
    return wt_fail(diag, TSL_ENOMEM, file, "out of memory");
  for (uint32_t i = 0; i < n; i++)
    s[i] = &e[i];
  qsort(s, n, sizeof *s, by_offset);
  uint64_t at_byte = 0;
  int rc = TSL_OK;
  for (uint32_t i = 0; i < n && !rc; i++) {
    wt_where at = *file;
    at.tensor = s[i]->name;
    if (s[i]->begin < at_byte)
      rc = wt_fail(diag, TSL_EINVALID, &at,
                   "data_offsets [%llu, %llu] overlap those of tensor '%s' [%llu, %llu]; "
                   "valid: each tensor's bytes apart",
                   (unsigned long long)s[i]->begin, (unsigned long long)s[i]->end,
                   s[i - 1]->name, (unsigned long long)s[i - 1]->begin,
                   (unsigned long long)s[i - 1]->end);
    else if (s[i]->begin > at_byte)
      rc = wt_fail(diag, TSL_EINVALID, &at,
                   "data_offsets [%llu, %llu] leave bytes [%llu, %llu) of the data to no "
                   "tensor; valid: each tensor begins where the one before ends",
                   (unsigned long long)s[i]->begin, (unsigned long long)s[i]->end,
                   (unsigned long long)at_byte, (unsigned long long)s[i]->begin);
    at_byte = s[i]->end;
  }
  free(s);
  if (!rc && at_byte != dlen)
    rc = wt_fail(diag, TSL_EINVALID, file,
                 "the data has %llu bytes after the header, the tensors use %llu; valid: "
                 "no bytes after the last tensor",
                 (unsigned long long)dlen, (unsigned long long)at_byte);
  return rc;
}

static int read_metadata(tsl_weights *w, json_t *m, const wt_where *at, tsl_diag *diag) {
  if (!json_is_object(m))
    return wt_fail(diag, TSL_EPARSE, at,
                   "\"__metadata__\" is not an object; valid: {\"key\": \"value\", ...}");
  const char *k;
  json_t *v;
  json_object_foreach(m, k, v) {
    if (!json_is_string(v))
      return wt_fail(diag, TSL_EPARSE, at,
                     "\"__metadata__\": the value of \"%.200s\" is not a string; valid: "
                     "string values only",
                     k);
    tsl_diag d = {0};
    if (!*k || tsl_weights_meta_set(w, k, json_string_value(v), &d))
      return wt_fail(diag, TSL_EPARSE, at,
                     "\"__metadata__\": the key \"%.200s\" is empty or its value holds a NUL; "
                     "valid: non-empty keys, strings without NUL",
                     k);
  }
  return TSL_OK;
}

int wt_st_read(tsl_weights *w, const uint8_t *p, size_t n, const char *path,
               tsl_diag *diag) {
  wt_where at = {path, NULL, NULL};
  if (n < 8)
    return wt_fail(diag, TSL_EPARSE, &at,
                   "truncated: %zu bytes, shorter than the 8-byte header length; valid: a "
                   ".safetensors file",
                   n);
  uint64_t hlen = 0;
  for (int i = 7; i >= 0; i--)
    hlen = hlen << 8 | p[i];
  if (hlen > n - 8)
    return wt_fail(diag, TSL_EPARSE, &at,
                   "the header length %llu goes beyond the file (%zu bytes: at most %zu); "
                   "valid: a .safetensors file (8-byte little-endian length, JSON, data)",
                   (unsigned long long)hlen, n, n - 8);
  if (hlen > ST_MAX_HEADER)
    return wt_fail(diag, TSL_EUNSUPPORTED, &at,
                   "the header length %llu is above the limit of safetensors (%llu bytes)",
                   (unsigned long long)hlen, ST_MAX_HEADER);
  if (hlen < 2 || p[8] != '{')
    return wt_fail(diag, TSL_EPARSE, &at,
                   "the header does not start with '{'; valid: a JSON object after the "
                   "8-byte length");
  json_error_t je;
  json_t *root = json_loadb((const char *)p + 8, (size_t)hlen, JSON_REJECT_DUPLICATES, &je);
  if (!root)
    return json_error_code(&je) == json_error_duplicate_key
               ? wt_fail(diag, TSL_EINVALID, &at,
                         "the JSON header names a key twice: %s (header line %d, column "
                         "%d); valid: each tensor name once",
                         je.text, je.line, je.column)
               : wt_fail(diag, TSL_EPARSE, &at,
                         "the JSON header does not parse: %s (header line %d, column %d)",
                         je.text, je.line, je.column);
  int rc = TSL_OK;
  size_t cap = json_object_size(root);
  st_entry *e = cap ? malloc(cap * sizeof *e) : NULL;
  uint32_t ne = 0;
  if (cap && !e)
    rc = wt_fail(diag, TSL_ENOMEM, &at, "out of memory");
  const char *key;
  json_t *val;
  json_object_foreach(root, key, val) {
    if (rc)
      break;
    if (!strcmp(key, "__metadata__"))
      rc = read_metadata(w, val, &at, diag);
    else if (!(rc = parse_entry(key, val, &e[ne], &at, diag)))
      e[ne].order = ne, ne++;
  }
  const uint8_t *data = p + 8 + hlen;
  if (!rc)
    rc = check_ranges(e, ne, n - 8 - hlen, &at, diag);
  for (uint32_t i = 0; i < ne && !rc; i++) {
    tsl_weight *t;
    int64_t dims[TSL_WEIGHTS_MAX_NDIM];
    dims_of(&e[i], dims);
    rc = wt_add_alloc(w, e[i].name, e[i].row->dtype, e[i].ndim, dims, &at, &t, diag);
    if (!rc)
      memcpy(t->data, data + e[i].begin, (size_t)e[i].nbytes);
  }
  free(e);
  json_decref(root);
  return rc;
}

/* ---- writing ------------------------------------------------------------------------ */

static json_t *header_json(const tsl_weights *w, const wt_where *at, tsl_diag *diag) {
  json_t *root = json_object();
  uint32_t nm = tsl_weights_meta_count(w);
  if (nm) {
    json_t *m = json_object();
    for (uint32_t i = 0; i < nm; i++) {
      const char *k, *v;
      tsl_weights_meta_at(w, i, &k, &v);
      json_object_set_new(m, k, json_string(v));
    }
    json_object_set_new(root, "__metadata__", m);
  }
  uint64_t off = 0;
  for (uint32_t i = 0; i < tsl_weights_count(w); i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    const wt_dtype_row *row = wt_dtype_row_of(t->dtype);
    if (!strcmp(t->name, "__metadata__")) {
      wt_where here = *at;
      here.tensor = t->name;
      wt_fail(diag, TSL_EINVALID, &here,
              "the name is safetensors' metadata key; valid: any other name");
      json_decref(root);
      return NULL;
    }
    json_t *shape = json_array();
    for (uint32_t d = 0; d < t->ndim; d++)
      json_array_append_new(shape, json_integer((json_int_t)t->shape[d]));
    json_t *ent = json_object();
    json_object_set_new(ent, "dtype", json_string(row->st_name));
    json_object_set_new(ent, "shape", shape);
    json_object_set_new(ent, "data_offsets",
                        json_pack("[I, I]", (json_int_t)off, (json_int_t)(off + t->nbytes)));
    json_object_set_new(root, t->name, ent);
    off += t->nbytes;
  }
  return root;
}

int wt_st_save(const tsl_weights *w, const char *path, tsl_diag *diag) {
  wt_where at = {path, NULL, NULL};
  json_t *root = header_json(w, &at, diag);
  if (!root)
    return TSL_EINVALID;
  char *text = json_dumps(root, JSON_COMPACT);
  json_decref(root);
  if (!text)
    return wt_fail(diag, TSL_ENOMEM, &at, "out of memory");
  /* spaces to a multiple of 8, so that the data starts 8-aligned */
  size_t len = strlen(text), padded = (len + 7) & ~(size_t)7;
  uint8_t lenb[8];
  for (int i = 0; i < 8; i++)
    lenb[i] = (uint8_t)((uint64_t)padded >> (8 * i));
  char tmp[4200];
  FILE *f;
  int rc = wt_tmp_open(path, tmp, sizeof tmp, &f, diag);
  if (rc) {
    free(text);
    return rc;
  }
  rc = wt_write(f, lenb, 8, path, diag);
  if (!rc)
    rc = wt_write(f, text, len, path, diag);
  if (!rc && padded > len)
    rc = wt_write(f, "        ", padded - len, path, diag);
  for (uint32_t i = 0; i < tsl_weights_count(w) && !rc; i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    rc = wt_write(f, t->data, (size_t)t->nbytes, path, diag);
  }
  free(text);
  int rc2 = wt_tmp_finish(f, tmp, path, rc == TSL_OK, diag);
  return rc ? rc : rc2;
}
