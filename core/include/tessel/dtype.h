/*
 * tessel/dtype.h — scalar and vector element types, DLPack style.
 *
 * A dtype is (code, bits, lanes) with DLPack's codes. TensorIR spellings:
 *   "float16" "float32" "float64" "bfloat16" "int8" "int16" "int32" "int64"
 *   "uint8" "uint16" "uint32" "uint64" "bool" "handle", vectors "float32x4".
 * bool is (UINT, 1, 1) as in TVM; "void" (the type of a call that returns
 * nothing) is (HANDLE, 0, 0).
 */
#ifndef TESSEL_DTYPE_H
#define TESSEL_DTYPE_H

#include "tessel/base.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  TSL_DT_INT = 0,
  TSL_DT_UINT = 1,
  TSL_DT_FLOAT = 2,
  TSL_DT_HANDLE = 3,
  TSL_DT_BFLOAT = 4
};

typedef struct tsl_dtype {
  uint8_t code;   /* TSL_DT_* */
  uint8_t bits;   /* 1 (bool), 8, 16, 32, 64 */
  uint16_t lanes; /* 1 for scalars */
} tsl_dtype;

#define TSL_DTYPE(c, b, l) ((tsl_dtype){(uint8_t)(c), (uint8_t)(b), (uint16_t)(l)})
#define TSL_BOOL TSL_DTYPE(TSL_DT_UINT, 1, 1)
#define TSL_INT8 TSL_DTYPE(TSL_DT_INT, 8, 1)
#define TSL_INT16 TSL_DTYPE(TSL_DT_INT, 16, 1)
#define TSL_INT32 TSL_DTYPE(TSL_DT_INT, 32, 1)
#define TSL_INT64 TSL_DTYPE(TSL_DT_INT, 64, 1)
#define TSL_UINT8 TSL_DTYPE(TSL_DT_UINT, 8, 1)
#define TSL_FLOAT16 TSL_DTYPE(TSL_DT_FLOAT, 16, 1)
#define TSL_FLOAT32 TSL_DTYPE(TSL_DT_FLOAT, 32, 1)
#define TSL_FLOAT64 TSL_DTYPE(TSL_DT_FLOAT, 64, 1)
#define TSL_BFLOAT16 TSL_DTYPE(TSL_DT_BFLOAT, 16, 1)
#define TSL_HANDLE TSL_DTYPE(TSL_DT_HANDLE, 64, 1)
#define TSL_VOID TSL_DTYPE(TSL_DT_HANDLE, 0, 0)

static inline int tsl_dtype_eq(tsl_dtype a, tsl_dtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
static inline int tsl_dtype_is_bool(tsl_dtype t) {
  return t.code == TSL_DT_UINT && t.bits == 1;
}
/* int or uint, bool excluded */
static inline int tsl_dtype_is_int(tsl_dtype t) {
  return (t.code == TSL_DT_INT || t.code == TSL_DT_UINT) && t.bits > 1;
}
/* float or bfloat */
static inline int tsl_dtype_is_float(tsl_dtype t) {
  return t.code == TSL_DT_FLOAT || t.code == TSL_DT_BFLOAT;
}
static inline int tsl_dtype_is_void(tsl_dtype t) {
  return t.code == TSL_DT_HANDLE && t.bits == 0;
}
static inline tsl_dtype tsl_dtype_scalar(tsl_dtype t) {
  t.lanes = 1;
  return t;
}
/* Bytes of one element (all lanes); bool takes one byte per lane. */
static inline size_t tsl_dtype_bytes(tsl_dtype t) {
  size_t b = t.bits < 8 ? 1 : (size_t)t.bits / 8;
  return b * (t.lanes ? t.lanes : 1);
}

/* Parse a dtype name of exactly `n` bytes ("float32", "int8x4", "bool",
 * "void"). Returns 1 on success, 0 for an unknown name. */
TSL_API int tsl_dtype_parse(const char *s, size_t n, tsl_dtype *out);
/* Canonical name into `buf` (at least 32 bytes); returns buf. */
TSL_API const char *tsl_dtype_str(tsl_dtype t, char *buf);
/* The comma-separated list of valid names, for error messages. */
TSL_API const char *tsl_dtype_valid_names(void);

/* float16 / bfloat16 <-> float conversions, round to nearest even. */
TSL_API uint16_t tsl_f32_to_f16(float f);
TSL_API float tsl_f16_to_f32(uint16_t h);
TSL_API uint16_t tsl_f32_to_bf16(float f);
TSL_API float tsl_bf16_to_f32(uint16_t h);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_DTYPE_H */
