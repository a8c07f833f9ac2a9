/*
 * bench/auto/peak.h — the machine's arithmetic peaks, measured in the run
 * that quotes them: independent chains of one instruction per thread, the
 * accumulators held in registers: 12 of the 16 vector registers of AVX2,
 * 24 of the 32 of AVX-512 (on Zen 5, 12 chains of vdpbf16ps reached only
 * 0.94 of what a tuned kernel then ran at).
 */
#ifndef TESSEL_BENCH_PEAK_H
#define TESSEL_BENCH_PEAK_H

typedef enum bench_peak_kind {
  PEAK_FMA_F32,   /* vfmadd, AVX-512 where the CPU has it, else AVX2: 2 flops a lane */
  PEAK_DOT_INT8,  /* vpdpbusd (AVX-512 VNNI, else AVX-VNNI on 256 bits), else AVX2's
                     vpmaddubsw + vpmaddwd + vpaddd: 2 ops a byte pair */
  PEAK_DOT_BF16,  /* vdpbf16ps (AVX-512 BF16): 2 flops a bfloat16 pair */
} bench_peak_kind;

/* Operations per second of `threads` threads, median of 5 rounds, in
 * GOPS; 0 where the CPU lacks the instruction. */
double bench_peak(bench_peak_kind kind, int threads);

/* The instruction measured, for the report ("AVX-512 vpdpbusd", ...). */
const char *bench_peak_name(bench_peak_kind kind);

#endif
