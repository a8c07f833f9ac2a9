/* Arena, interning, dtype names and half-precision conversions. */
#include "tap.h"
#include "tessel/tessel.h"

#include <math.h>

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  ok(ctx != NULL, "context created");
  tsl_str a = tsl_intern(ctx, "hello");
  tsl_str b = tsl_intern_n(ctx, "hello world", 5);
  ok(a == b, "interned strings with equal text share one pointer");
  ok(a != tsl_intern(ctx, "hell"), "different text, different pointer");
  for (int i = 0; i < 5000; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "s%d", i);
    tsl_intern(ctx, buf);
  }
  ok(tsl_intern(ctx, "hello") == a, "interning survives table growth");

  tsl_arena *ar = tsl_arena_new(ctx);
  int all_zero = 1, aligned = 1;
  for (int i = 1; i < 2000; i++) {
    unsigned char *p = tsl_arena_alloc(ar, (size_t)(i % 97) + 1);
    aligned &= ((uintptr_t)p % 16) == 0;
    for (int k = 0; k < (i % 97) + 1; k++)
      all_zero &= p[k] == 0;
    memset(p, 0xab, (size_t)(i % 97) + 1);
  }
  void *big = tsl_arena_alloc(ar, 1 << 20);
  ok(big != NULL && ((unsigned char *)big)[12345] == 0, "large allocation zeroed");
  ok(all_zero, "arena memory is zeroed");
  ok(aligned, "arena memory is 16-byte aligned");

  const char *names[] = {"float16", "float32", "float64", "bfloat16", "int8",
                         "int16", "int32", "int64", "uint8", "bool",
                         "float32x4", "int8x64"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    tsl_dtype t;
    char buf[32];
    int parsed = tsl_dtype_parse(names[i], strlen(names[i]), &t);
    ok(parsed && strcmp(tsl_dtype_str(t, buf), names[i]) == 0,
       "dtype %s round-trips", names[i]);
  }
  tsl_dtype t;
  ok(!tsl_dtype_parse("float33", 7, &t), "float33 rejected");
  ok(!tsl_dtype_parse("float32x0", 9, &t), "float32x0 rejected");
  ok(!tsl_dtype_parse("int", 3, &t), "int rejected");

  int f16_ok = 1;
  for (uint32_t h = 0; h < 0x10000; h++) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
      continue; /* nan payloads */
    f16_ok &= tsl_f32_to_f16(tsl_f16_to_f32((uint16_t)h)) == h;
  }
  ok(f16_ok, "every float16 survives f16 -> f32 -> f16");
  ok(tsl_f32_to_f16(1.0f + 1.0f / 2048) == 0x3c00, "f16 ties round to even (down)");
  ok(tsl_f32_to_f16(1.0f + 3.0f / 2048) == 0x3c02, "f16 ties round to even (up)");
  ok(tsl_f32_to_f16(65520.0f) == 0x7c00, "f16 overflow becomes inf");
  ok(tsl_f16_to_f32(0x0001) == ldexpf(1.0f, -24), "smallest f16 subnormal");
  ok(tsl_bf16_to_f32(tsl_f32_to_bf16(3.140625f)) == 3.140625f, "bf16 exact value");
  ok(tsl_f32_to_bf16(1.0f + ldexpf(1.0f, -8)) == 0x3f80, "bf16 tie rounds to even");

  tsl_diag d = {0};
  int rc = tsl_diag_set(&d, TSL_EINVALID, "x=%d", 42);
  tsl_diag_append(&d, " y=%s", "z");
  ok(rc == TSL_EINVALID && strcmp(d.text, "x=42 y=z") == 0, "diag set/append");

  tsl_arena_free(ar);
  tsl_ctx_free(ctx);
  return tap_done();
}
