/* Arithmetic peaks from chains of independent instructions. */
#include "peak.h"
#include "../bench_util.h"

#include <immintrin.h>
#include <pthread.h>

/* R independent accumulators (named, so that they stay in registers):
 * 12 for the 16 registers of AVX2, 24 for the 32 of AVX-512 where the
 * latency x units can exceed 12 (vdpbf16ps on Zen 5). Each kernel
 * defines T, SET1 and OP first. */
#define R12(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11)
#define R24(M) R12(M) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23)
#define DECL(i) T a##i = SET1(i);
#define STEP(i) a##i = OP(a##i, x, y);
#define SUM(i) s += a##i;
#define CHAIN_BODY(R, STEP)                                                                \
  R(DECL) for (long i = 0; i < iters; i++) { R(STEP) }                                     \
  T s = SET1(0);                                                                           \
  R(SUM) return (double)s[0];

#define T __m256
#define SET1 _mm256_set1_ps
#define OP _mm256_fmadd_ps
__attribute__((target("avx2,fma"))) static double fma_avx2(long iters) {
  T x = SET1(1.0000001f), y = SET1(0.9999999f);
  CHAIN_BODY(R12, STEP)
}
#undef T
#undef SET1
#undef OP

#define T __m512
#define SET1 _mm512_set1_ps
#define OP _mm512_fmadd_ps
__attribute__((target("avx512f"))) static double fma_avx512(long iters) {
  T x = SET1(1.0000001f), y = SET1(0.9999999f);
  CHAIN_BODY(R24, STEP)
}
#undef OP
#define OP _mm512_dpbf16_ps
__attribute__((target("avx512f,avx512bf16"))) static double dot_bf16(long iters) {
  __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80), y = x;
  CHAIN_BODY(R24, STEP)
}
#undef T
#undef SET1
#undef OP

/* The integer dot products in assembly: GCC 12 copies their accumulators
 * through the stack inside the loop when written with the intrinsics. */
#define T __m512i
#define SET1 _mm512_set1_epi32
#define ASTEP(i) __asm__("vpdpbusd %1, %1, %0" : "+v"(a##i) : "v"(x));
__attribute__((target("avx512f,avx512vnni"))) static double dot_vnni512(long iters) {
  T x = _mm512_set1_epi8(1);
  CHAIN_BODY(R24, ASTEP)
}
#undef T
#undef SET1
#undef ASTEP

#define T __m256i
#define SET1 _mm256_set1_epi32
#define ASTEP(i) __asm__("%{vex%} vpdpbusd %1, %1, %0" : "+x"(a##i) : "x"(x));
__attribute__((target("avxvnni"))) static double dot_avxvnni(long iters) {
  T x = _mm256_set1_epi8(1);
  CHAIN_BODY(R12, ASTEP)
}
#undef T
#undef SET1
#undef ASTEP

/* AVX2 without VNNI: the sequence of dot_16x4_avx2, vpmaddubsw into int16
 * pairs, vpmaddwd with ones into int32, vpaddd into the accumulator. */
#define T __m256i
#define SET1 _mm256_set1_epi32
#define ASTEP(i)                                                                           \
  {                                                                                        \
    T t;                                                                                   \
    __asm__("vpmaddubsw %2, %2, %1\n\tvpmaddwd %3, %1, %1\n\tvpaddd %1, %0, %0"             \
            : "+x"(a##i), "=&x"(t)                                                         \
            : "x"(x), "x"(ones));                                                          \
  }
__attribute__((target("avx2"))) static double dot_avx2(long iters) {
  T x = _mm256_set1_epi8(1), ones = _mm256_set1_epi16(1);
  CHAIN_BODY(R12, ASTEP)
}
#undef T
#undef SET1
#undef ASTEP

/* The kernel of a kind on this CPU and its operations per call of the
 * loop body. */
static double (*kernel_of(bench_peak_kind kind, double *ops))(long) {
  int avx512 = __builtin_cpu_supports("avx512f");
  switch (kind) {
  case PEAK_FMA_F32:
    *ops = avx512 ? 24 * 2.0 * 16 : 12 * 2.0 * 8;
    return avx512 ? fma_avx512 : fma_avx2;
  case PEAK_DOT_INT8:
    if (avx512 && __builtin_cpu_supports("avx512vnni")) {
      *ops = 24 * 2.0 * 64;
      return dot_vnni512;
    }
    if (__builtin_cpu_supports("avxvnni")) {
      *ops = 12 * 2.0 * 32;
      return dot_avxvnni;
    }
    if (__builtin_cpu_supports("avx2")) {
      *ops = 12 * 2.0 * 32;
      return dot_avx2;
    }
    return NULL;
  case PEAK_DOT_BF16:
    *ops = 24 * 2.0 * 32;
    return avx512 && __builtin_cpu_supports("avx512bf16") ? dot_bf16 : NULL;
  }
  return NULL;
}

const char *bench_peak_name(bench_peak_kind kind) {
  double ops;
  double (*k)(long) = kernel_of(kind, &ops);
  if (k == fma_avx512)
    return "AVX-512 vfmadd";
  if (k == fma_avx2)
    return "AVX2 vfmadd";
  if (k == dot_vnni512)
    return "AVX-512 vpdpbusd";
  if (k == dot_avxvnni)
    return "AVX-VNNI vpdpbusd (256 bits)";
  if (k == dot_avx2)
    return "AVX2 vpmaddubsw + vpmaddwd + vpaddd";
  if (k == dot_bf16)
    return "AVX-512 vdpbf16ps";
  return "none on this CPU";
}

typedef struct job {
  double (*kernel)(long);
  long iters;
  double seconds, sink;
} job;

static void *run_job(void *p) {
  job *j = p;
  double t0 = bench_now();
  j->sink = j->kernel(j->iters);
  j->seconds = bench_now() - t0;
  return NULL;
}

double bench_peak(bench_peak_kind kind, int threads) {
  double ops = 0, s[5];
  double (*k)(long) = kernel_of(kind, &ops);
  if (!k || threads < 1 || threads > 64)
    return 0;
  for (int r = 0; r < 5; r++) {
    pthread_t t[64];
    job j[64];
    for (int i = 0; i < threads; i++) {
      j[i] = (job){k, 50000000, 0, 0};
      pthread_create(&t[i], NULL, run_job, &j[i]);
    }
    s[r] = 0;
    for (int i = 0; i < threads; i++) {
      pthread_join(t[i], NULL);
      s[r] += ops * (double)j[i].iters / j[i].seconds * 1e-9;
    }
  }
  return bench_median(s, 5);
}
