/*
 * tests/plugin/x86/amx_emu.c — AMX in software, for testing the AMX tensor
 * intrinsics on CPUs without it (TESSEL_AMX_EMULATE=<this library>: the
 * llvm target calls tessel_amx_emu_<op> where it would emit llvm.x86.<op>;
 * targets/llvm/amx.c). Written from the Intel SDM's description of each
 * instruction: per thread, eight tiles of up to 16 rows of 64 bytes and the
 * palette-1 configuration that gives each its rows and bytes per row. Tile
 * numbers come as int (the llvm target widens LLVM's i8 immediates).
 * What would fault on the hardware (a tile used unconfigured, shapes that do
 * not fit, a bad configuration) prints what and aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tiles {
  int configured;
  uint16_t colsb[8];
  uint8_t rows[8];
  uint8_t data[8][16][64];
} tiles;

/* The project compiles with hidden visibility; these are looked up. */
#define EMU __attribute__((visibility("default")))

static __thread tiles st;

static void fault(const char *what, const char *detail) {
  fprintf(stderr, "amx_emu: %s: %s (the hardware would fault)\n", what, detail);
  abort();
}

static void check_tile(const char *op, int t) {
  if (!st.configured)
    fault(op, "the tiles are not configured (no ldtilecfg on this thread)");
  if (t < 0 || t > 7)
    fault(op, "tile number out of 0-7");
  if (!st.rows[t])
    fault(op, "a tile the configuration leaves empty");
}

EMU void tessel_amx_emu_ldtilecfg(const void *cfg) {
  const uint8_t *c = cfg;
  memset(&st, 0, sizeof st);
  if (c[0] == 0)
    return; /* palette 0: the init state */
  if (c[0] != 1)
    fault("ldtilecfg", "palette other than 0 or 1");
  for (int i = 1; i < 64; i++) /* start_row, reserved, tiles 8-15 */
    if (c[i] && !(i >= 16 && i < 32) && !(i >= 48 && i < 56))
      fault("ldtilecfg", "start_row, a reserved byte or a tile beyond 8 not zero");
  for (int t = 0; t < 8; t++) {
    uint16_t colsb = (uint16_t)(c[16 + 2 * t] | c[17 + 2 * t] << 8);
    uint8_t rows = c[48 + t];
    if (colsb > 64 || rows > 16 || (!colsb) != (!rows))
      fault("ldtilecfg", "a tile of more than 16 rows or 64 bytes a row, or half-empty");
    st.colsb[t] = colsb;
    st.rows[t] = rows;
  }
  st.configured = 1;
}

EMU void tessel_amx_emu_sttilecfg(void *cfg) {
  uint8_t *c = cfg;
  memset(c, 0, 64);
  if (!st.configured)
    return;
  c[0] = 1;
  for (int t = 0; t < 8; t++) {
    c[16 + 2 * t] = (uint8_t)st.colsb[t];
    c[17 + 2 * t] = (uint8_t)(st.colsb[t] >> 8);
    c[48 + t] = st.rows[t];
  }
}

EMU void tessel_amx_emu_tilerelease(void) { memset(&st, 0, sizeof st); }

EMU void tessel_amx_emu_tileloadd64(int t, const void *base, int64_t stride) {
  check_tile("tileloadd64", t);
  memset(st.data[t], 0, sizeof st.data[t]);
  for (int r = 0; r < st.rows[t]; r++)
    memcpy(st.data[t][r], (const uint8_t *)base + r * stride, st.colsb[t]);
}

EMU void tessel_amx_emu_tileloaddt164(int t, const void *base, int64_t stride) {
  tessel_amx_emu_tileloadd64(t, base, stride);
}

EMU void tessel_amx_emu_tilestored64(int t, void *base, int64_t stride) {
  check_tile("tilestored64", t);
  for (int r = 0; r < st.rows[t]; r++)
    memcpy((uint8_t *)base + r * stride, st.data[t][r], st.colsb[t]);
}

EMU void tessel_amx_emu_tilezero(int t) {
  check_tile("tilezero", t);
  memset(st.data[t], 0, sizeof st.data[t]);
}

/* The shapes a dot product needs: A's rows = C's, B's bytes per row = C's,
 * A's 4-byte groups = B's rows. Returns K, the 4-byte groups of A. */
static int dot_shapes(const char *op, int c, int a, int b) {
  check_tile(op, c);
  check_tile(op, a);
  check_tile(op, b);
  if (st.rows[a] != st.rows[c] || st.colsb[b] != st.colsb[c] || st.colsb[a] / 4 != st.rows[b] ||
      st.colsb[a] % 4 || st.colsb[c] % 4)
    fault(op, "tile shapes that do not fit");
  return st.colsb[a] / 4;
}

/* int8 dot products: signedness of A and of B. */
static void dot_int8(const char *op, int c, int a, int b, int a_signed, int b_signed) {
  int kk = dot_shapes(op, c, a, b);
  for (int m = 0; m < st.rows[c]; m++)
    for (int n = 0; n < st.colsb[c] / 4; n++) {
      uint32_t acc;
      memcpy(&acc, &st.data[c][m][4 * n], 4);
      for (int k = 0; k < kk; k++)
        for (int j = 0; j < 4; j++) {
          uint8_t x = st.data[a][m][4 * k + j], y = st.data[b][k][4 * n + j];
          int32_t xv = a_signed ? (int8_t)x : x, yv = b_signed ? (int8_t)y : y;
          acc += (uint32_t)(xv * yv);
        }
      memcpy(&st.data[c][m][4 * n], &acc, 4);
    }
}

EMU void tessel_amx_emu_tdpbusd(int c, int a, int b) { dot_int8("tdpbusd", c, a, b, 0, 1); }
EMU void tessel_amx_emu_tdpbssd(int c, int a, int b) { dot_int8("tdpbssd", c, a, b, 1, 1); }
EMU void tessel_amx_emu_tdpbsud(int c, int a, int b) { dot_int8("tdpbsud", c, a, b, 1, 0); }
EMU void tessel_amx_emu_tdpbuud(int c, int a, int b) { dot_int8("tdpbuud", c, a, b, 0, 0); }

/* bfloat16 bits to float32, denormals as zero (DAZ). */
static float bf16(const uint8_t *p) {
  uint32_t bits = (uint32_t)(p[0] | p[1] << 8) << 16;
  if (!(bits & 0x7f800000))
    bits &= 0x80000000;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static float flush(float f) { /* FTZ */
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if (!(bits & 0x7f800000))
    bits &= 0x80000000;
  memcpy(&f, &bits, 4);
  return f;
}

/* Each step adds the odd pair's product, then the even pair's, to C, each
 * with one float32 rounding (products of bfloat16 values are exact), as
 * VDPBF16PS does. The hardware may sum within TDPBF16PS in another order;
 * that changes float32 rounding only, which the check against the
 * interpreter tolerates, not which elements meet. */
EMU void tessel_amx_emu_tdpbf16ps(int c, int a, int b) {
  int kk = dot_shapes("tdpbf16ps", c, a, b);
  for (int m = 0; m < st.rows[c]; m++)
    for (int n = 0; n < st.colsb[c] / 4; n++) {
      float acc;
      memcpy(&acc, &st.data[c][m][4 * n], 4);
      for (int k = 0; k < kk; k++) {
        const uint8_t *x = st.data[a][m] + 4 * k, *y = st.data[b][k] + 4 * n;
        acc = flush(acc + bf16(x + 2) * bf16(y + 2));
        acc = flush(acc + bf16(x) * bf16(y));
      }
      memcpy(&st.data[c][m][4 * n], &acc, 4);
    }
}
