/*
 * The ONNX reader: element types, and tensors decoded from raw_data, the
 * typed repeated fields or external data files beside the model.
 */
#include "onnx_internal.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char ox_dtypes_supported[] =
    "float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, bool";

int ox_dtype(int32_t t, tsl_dtype *out) {
  switch (t) {
  case 1: *out = TSL_FLOAT32; return 1;
  case 2: *out = TSL_UINT8; return 1;
  case 3: *out = TSL_INT8; return 1;
  case 5: *out = TSL_INT16; return 1;
  case 6: *out = TSL_INT32; return 1;
  case 7: *out = TSL_INT64; return 1;
  case 9: *out = TSL_BOOL; return 1;
  case 10: *out = TSL_FLOAT16; return 1;
  case 11: *out = TSL_FLOAT64; return 1;
  case 16: *out = TSL_BFLOAT16; return 1;
  default: return 0;
  }
}

const char *ox_dtype_name(int32_t t) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING",
      "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4"};
  return t >= 0 && t < (int32_t)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

static const char *external(const Onnx__TensorProto *t, const char *key) {
  for (size_t i = 0; i < t->n_external_data; i++)
    if (t->external_data[i]->key && !strcmp(t->external_data[i]->key, key))
      return t->external_data[i]->value;
  return NULL;
}

/* external data: `location` (a file under dir), `offset`, `length` */
static int read_external(const Onnx__TensorProto *t, const char *dir, const char *what,
                         uint64_t nbytes, void *out, tsl_diag *diag) {
  const char *loc = external(t, "location"), *off = external(t, "offset"),
             *len = external(t, "length");
  if (!loc || !*loc)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: external data without a location", what);
  if (!dir)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "%s: external data ('%s') needs the model's "
                        "folder; import the model from its file", what, loc);
  if (loc[0] == '/' || strstr(loc, ".."))
    return tsl_diag_set(diag, TSL_EINVALID, "%s: external data location '%s' is outside the "
                        "model's folder; a relative path without '..' is valid", what, loc);
  char *end = NULL;
  unsigned long long o = off ? strtoull(off, &end, 10) : 0;
  if (off && (!*off || *end))
    return tsl_diag_set(diag, TSL_EINVALID, "%s: external data offset '%s' is not a number",
                        what, off);
  if (len && (strtoull(len, &end, 10) != nbytes || *end))
    return tsl_diag_set(diag, TSL_EINVALID, "%s: external data length %s, but the tensor "
                        "has %llu bytes", what, len, (unsigned long long)nbytes);
  char path[4096];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, loc) >= sizeof path)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: external data path too long", what);
  FILE *f = fopen(path, "rb");
  if (!f)
    return tsl_diag_set(diag, TSL_EIO, "%s: cannot open external data %s", what, path);
  if (!out) { /* only the checks */
    fclose(f);
    return tsl_diag_set(diag, TSL_EIO, "%s: cannot read external data %s", what, path);
  }
  int ok = o <= LONG_MAX && fseek(f, (long)o, SEEK_SET) == 0 &&
           fread(out, 1, (size_t)nbytes, f) == nbytes;
  fclose(f);
  return ok ? TSL_OK
            : tsl_diag_set(diag, TSL_EINVALID, "%s: external data %s has no %llu bytes at "
                           "offset %llu", what, path, (unsigned long long)nbytes, o);
}

/* The element count of dims, or -1 when a dim is negative or the count
 * (times 8 bytes) would not fit int64. */
static int64_t element_count(const int64_t *dims, size_t n) {
  int64_t count = 1;
  for (size_t d = 0; d < n; d++) {
    if (dims[d] < 0)
      return -1;
    if (dims[d] && count > INT64_MAX / 8 / dims[d])
      return -1;
    count *= dims[d];
  }
  return count;
}

static int64_t external_size(const char *dir, const Onnx__TensorProto *t) {
  const char *loc = external(t, "location");
  char path[4096];
  if (!dir || !loc || (size_t)snprintf(path, sizeof path, "%s/%s", dir, loc) >= sizeof path)
    return -1;
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  int64_t n = fseek(f, 0, SEEK_END) == 0 ? (int64_t)ftell(f) : -1;
  fclose(f);
  return n;
}

int ox_tensor_read(const Onnx__TensorProto *t, const char *name, const char *dir,
                   const char *what, tsl_weights *w, const tsl_weight **out, tsl_diag *diag) {
  tsl_dtype dt;
  if (!ox_dtype(t->data_type, &dt))
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "%s: element type %d (%s) is not supported; "
                        "supported: %s", what, (int)t->data_type, ox_dtype_name(t->data_type),
                        ox_dtypes_supported);
  if (t->n_dims > TSL_WEIGHTS_MAX_NDIM)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "%s: %zu dimensions (at most %d)", what,
                        t->n_dims, TSL_WEIGHTS_MAX_NDIM);
  int64_t n = element_count(t->dims, t->n_dims);
  if (n < 0)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: a negative dimension, or more elements than "
                        "fit in memory", what);
  uint64_t nb = (uint64_t)n * (dt.bits == 1 ? 1 : dt.bits / 8);
  int ext = t->has_data_location && t->data_location == 1;
  int is_float = tsl_dtype_eq(dt, TSL_FLOAT32), is_double = tsl_dtype_eq(dt, TSL_FLOAT64);
  int is_i64 = tsl_dtype_eq(dt, TSL_INT64);
  size_t have = is_float ? t->n_float_data : is_double ? t->n_double_data
                : is_i64 ? t->n_int64_data : t->n_int32_data;
  /* the data is there before anything is allocated for it */
  if (ext) {
    int64_t size = dir ? external_size(dir, t) : -1;
    if (dir && size >= 0 && (uint64_t)size < nb)
      return tsl_diag_set(diag, TSL_EINVALID, "%s: external data of %lld bytes for a tensor "
                          "of %llu", what, (long long)size, (unsigned long long)nb);
    if (size < 0) /* read_external says why */
      return read_external(t, dir, what, nb, NULL, diag);
  } else if (t->has_raw_data ? t->raw_data.len != nb : have != (uint64_t)n) {
    return tsl_diag_set(diag, TSL_EINVALID, "%s: %llu %s stored, the shape needs %llu", what,
                        (unsigned long long)(t->has_raw_data ? t->raw_data.len : have),
                        t->has_raw_data ? "bytes of raw_data" : "values",
                        (unsigned long long)(t->has_raw_data ? nb : (uint64_t)n));
  }
  const tsl_weight *wt = NULL;
  tsl_diag ad = {0};
  int rc = tsl_weights_add(w, name, dt, (uint32_t)t->n_dims, t->dims, NULL, &wt, &ad);
  if (rc)
    return tsl_diag_set(diag, rc, "%s: %s", what, ad.text);
  unsigned char *dst = wt->data;
  if (ext) {
    rc = read_external(t, dir, what, nb, dst, diag);
  } else if (!nb) { /* an empty tensor: no data to copy (its fields may be NULL) */
  } else if (t->has_raw_data) {
    memcpy(dst, t->raw_data.data, nb);
  } else if (is_float) {
    memcpy(dst, t->float_data, nb);
  } else if (is_double) {
    memcpy(dst, t->double_data, nb);
  } else if (is_i64) {
    memcpy(dst, t->int64_data, nb);
  } else {
    /* int32_data holds int32, int16, int8, uint8, bool and the 16-bit
     * floats' bit patterns */
    for (int64_t k = 0; k < n; k++) {
      int32_t v = t->int32_data[k];
      if (dt.bits == 32) {
        memcpy(dst + 4 * k, &v, 4);
      } else if (dt.bits == 16) {
        uint16_t h = (uint16_t)v;
        memcpy(dst + 2 * k, &h, 2);
      } else {
        dst[k] = (unsigned char)v;
      }
    }
  }
  if (rc) /* the zero-filled tensor stays: the import fails and frees w */
    return rc;
  if (out)
    *out = wt;
  return TSL_OK;
}
