/*
 * tests/cuda/emu/mma_ptx.h — the warp-level tensor-core helpers of
 * targets/cuda/codegen_mma.c (PTX ldmatrix and mma.sync m16n8k16 on a GPU)
 * for the emulator, with the hardware's register layouts, so that a wrong
 * layout computes wrong values here as it would on a GPU. The lanes of a
 * warp exchange their operands through a slot per thread between two
 * barriers of the warp (every lane of the warp makes the same calls; other
 * warps are not waited for, so a missing block barrier still shows).
 */
#include <string.h>

static inline unsigned tsl_emu_tid(void) {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/* ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16: lanes 8j..8j+7 give
 * the addresses of the 8 rows of matrix j; register j of lane l gets row
 * l / 4, elements 2 (l % 4) and 2 (l % 4) + 1 of matrix j (transposed:
 * column l / 4, rows 2 (l % 4) and 2 (l % 4) + 1). */
template <int N, bool T> static void tsl_ldmatrix(void *dst, const void *src) {
  static const unsigned short *rows[1024];
  const unsigned tid = tsl_emu_tid(), lane = tid % 32, warp = tid - lane;
  rows[tid] = (const unsigned short *)src;
  tsl_emu_warp_barrier();
  unsigned short got[2 * N];
  for (int j = 0; j < N; j++)
    for (int e = 0; e < 2; e++)
      got[2 * j + e] = T ? rows[warp + 8 * j + 2 * (lane % 4) + e][lane / 4]
                         : rows[warp + 8 * j + lane / 4][2 * (lane % 4) + e];
  tsl_emu_warp_barrier();
  memcpy(dst, got, sizeof got);
}

/* mma.sync.aligned.m16n8k16.row.col: D = A B + C, lane l = 4 g + t holding
 * A[g + 8 (i / 2 % 2)][2 t + i % 2 + 8 (i / 4)] (i < 8),
 * B[2 t + i % 2 + 8 (i / 2)][g] and C[g + 8 (i / 2)][2 t + i % 2] (i < 4);
 * products and sums in float. */
template <class TC, class TA> static void tsl_emu_mma(TC *c, const TA *a, const TA *b) {
  struct lane_regs {
    TA a[8], b[4];
    TC c[4];
  };
  static lane_regs regs[1024];
  const unsigned tid = tsl_emu_tid(), lane = tid % 32, warp = tid - lane;
  memcpy(regs[tid].a, a, sizeof regs[tid].a);
  memcpy(regs[tid].b, b, sizeof regs[tid].b);
  memcpy(regs[tid].c, c, sizeof regs[tid].c);
  tsl_emu_warp_barrier();
  float d[4];
  for (int i = 0; i < 4; i++) {
    const int row = lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
    float s = (float)regs[warp + 4 * (row % 8) + col / 2].c[col % 2 + 2 * (row / 8)];
    for (int k = 0; k < 16; k++) {
      const lane_regs &ra = regs[warp + 4 * (row % 8) + (k % 8) / 2],
                      &rb = regs[warp + 4 * col + (k % 8) / 2];
      s += (float)ra.a[k % 2 + 2 * (row / 8) + 4 * (k / 8)] * (float)rb.b[k % 2 + 2 * (k / 8)];
    }
    d[i] = s;
  }
  tsl_emu_warp_barrier();
  for (int i = 0; i < 4; i++)
    c[i] = (TC)d[i];
}

static void tsl_mma_m16n8k16(float *c, const half *a, const half *b) { tsl_emu_mma(c, a, b); }
static void tsl_mma_m16n8k16(half *c, const half *a, const half *b) { tsl_emu_mma(c, a, b); }
static void tsl_mma_m16n8k16(float *c, const __nv_bfloat16 *a, const __nv_bfloat16 *b) {
  tsl_emu_mma(c, a, b);
}
