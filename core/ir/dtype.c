/*
 * Dtype names and half-precision conversions.
 */
#include "tessel/dtype.h"

#include <stdio.h>
#include <string.h>

static const struct {
  const char *name;
  uint8_t code, bits;
} base_types[] = {
    {"bool", TSL_DT_UINT, 1},      {"int8", TSL_DT_INT, 8},
    {"int16", TSL_DT_INT, 16},     {"int32", TSL_DT_INT, 32},
    {"int64", TSL_DT_INT, 64},     {"uint8", TSL_DT_UINT, 8},
    {"uint16", TSL_DT_UINT, 16},   {"uint32", TSL_DT_UINT, 32},
    {"uint64", TSL_DT_UINT, 64},   {"float16", TSL_DT_FLOAT, 16},
    {"float32", TSL_DT_FLOAT, 32}, {"float64", TSL_DT_FLOAT, 64},
    {"bfloat16", TSL_DT_BFLOAT, 16}, {"handle", TSL_DT_HANDLE, 64},
};

int tsl_dtype_parse(const char *s, size_t n, tsl_dtype *out) {
  if (n == 4 && memcmp(s, "void", 4) == 0) {
    *out = TSL_VOID;
    return 1;
  }
  for (size_t i = 0; i < sizeof base_types / sizeof base_types[0]; i++) {
    size_t bn = strlen(base_types[i].name);
    if (n < bn || memcmp(s, base_types[i].name, bn) != 0)
      continue;
    unsigned long lanes = 1;
    if (n > bn) {
      if (s[bn] != 'x' || n == bn + 1 || n - bn > 6)
        continue;
      lanes = 0;
      for (size_t k = bn + 1; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
          return 0;
        lanes = lanes * 10 + (unsigned long)(s[k] - '0');
      }
      if (lanes < 1 || lanes > 65535 || s[bn + 1] == '0')
        return 0;
    }
    *out = TSL_DTYPE(base_types[i].code, base_types[i].bits, lanes);
    return 1;
  }
  return 0;
}

const char *tsl_dtype_str(tsl_dtype t, char *buf) {
  if (tsl_dtype_is_void(t)) {
    strcpy(buf, "void");
    return buf;
  }
  const char *name = NULL;
  for (size_t i = 0; i < sizeof base_types / sizeof base_types[0]; i++)
    if (base_types[i].code == t.code && base_types[i].bits == t.bits)
      name = base_types[i].name;
  if (!name) {
    snprintf(buf, 32, "dtype(%u,%u)", t.code, t.bits);
  } else if (t.lanes > 1) {
    snprintf(buf, 32, "%sx%u", name, t.lanes);
  } else {
    snprintf(buf, 32, "%s", name);
  }
  return buf;
}

const char *tsl_dtype_valid_names(void) {
  return "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
         "float16, float32, float64, bfloat16, handle, or a vector form such "
         "as float32x4";
}

typedef union {
  float f;
  uint32_t u;
} f32bits;

uint16_t tsl_f32_to_f16(float f) {
  f32bits v = {.f = f};
  uint32_t x = v.u;
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) /* inf or nan */
    return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  int32_t e = (int32_t)exp - 127 + 15;
  if (e >= 31)
    return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10)
      return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | ((uint32_t)e << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
    half++; /* may carry into the exponent, which is correct rounding */
  return (uint16_t)half;
}

float tsl_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  f32bits v;
  if (exp == 0) {
    if (mant == 0) {
      v.u = sign;
      return v.f;
    }
    /* subnormal: normalise */
    int e = -1;
    do {
      e++;
      mant <<= 1;
    } while (!(mant & 0x400u));
    v.u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    return v.f;
  }
  if (exp == 31) {
    v.u = sign | 0x7f800000u | (mant << 13);
    return v.f;
  }
  v.u = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  return v.f;
}

uint16_t tsl_f32_to_bf16(float f) {
  f32bits v = {.f = f};
  if ((v.u & 0x7f800000u) == 0x7f800000u && (v.u & 0x7fffffu))
    return (uint16_t)((v.u >> 16) | 0x40u); /* quiet nan */
  uint32_t rounding = 0x7fffu + ((v.u >> 16) & 1u);
  return (uint16_t)((v.u + rounding) >> 16);
}

float tsl_bf16_to_f32(uint16_t h) {
  f32bits v = {.u = (uint32_t)h << 16};
  return v.f;
}
