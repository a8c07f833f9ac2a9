/*
 * plugins/cuda-wmma/wmma_intrins.h — the WMMA tensor intrinsics as data:
 * one table row per intrinsic, one text generator per family.
 */
#ifndef TESSEL_CUDA_WMMA_INTRINS_H
#define TESSEL_CUDA_WMMA_INTRINS_H

#include <stddef.h>
#include <stdint.h>

typedef struct wmma_intrin wmma_intrin;

/* Writes the TVMScript module of `w` (description `<name>_desc`,
 * implementation `<name>_impl`) into out[cap]; 0, or -1 when it does not
 * fit. */
typedef int (*wmma_gen_fn)(const wmma_intrin *w, char *out, size_t cap);

struct wmma_intrin {
  const char *name;      /* TVM v0.19's name, e.g. "wmma_load_16x16x16_f16_a_shared" */
  wmma_gen_fn gen;       /* the family's generator */
  int m, n, k;           /* the WMMA shape */
  const char *dtype;     /* element type (sync: the inputs') */
  const char *out_dtype; /* sync: the accumulator's */
  const char *scope;     /* load: where the tile comes from; store: where it goes */
  int is_b;              /* load: into wmma.matrix_b (else matrix_a) */
  int trans;             /* load: col_major; sync: B is [n, k] */
  const char *summary;   /* one line for `tessel plugins` */
};

/* The table, in registration order. */
const wmma_intrin *wmma_intrins(uint32_t *n);

#endif
