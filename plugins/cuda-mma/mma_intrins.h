/*
 * plugins/cuda-mma/mma_intrins.h — the warp-level tensor-core intrinsics
 * (PTX mma.sync m16n8k16 fed by ldmatrix) as data: one table row per
 * intrinsic, one text generator per family (ldmatrix, mma, fill, store).
 *
 * Every tile is 16x16 and lives in a "warp" buffer of shape (32, 8): row
 * t is lane t of the warp, column l its l-th register element. Element
 * (i, j) of a 16x16 tile is at (TVM's shared_16x16_to_ldmatrix_32x8_layout)
 *   thread_id = 4 * (i % 8) + j % 8 // 2
 *   local_id  = 4 * (j // 8) + i // 8 * 2 + j % 2
 * and lane t's element l is tile element (the inverse,
 * ldmatrix_32x8_to_shared_16x16_layout)
 *   row = 8 * (l % 4 // 2) + t // 4
 *   col = 8 * (l // 4) + t % 4 * 2 + l % 2.
 *
 * TVM's get_mma_intrin_group(load_scope, store_scope, in_dtype, out_dtype,
 * trans_a, trans_b, not_use_mma_store_intrinic=True, store_to_smem_dtype)
 * returns five names; with in = f16 (bf16: tessel's), out = f32 / f16,
 * _dyn for load_scope "shared.dyn", store scope with "." as "_":
 *   "init"    mma_fill_16x16_<out>
 *   "load_a"  mma_ldmatrix_<in>_a[_trans][_dyn]        (_trans: trans_a)
 *   "load_b"  mma_ldmatrix_<in>_b[_trans][_dyn]        (_trans: trans_b)
 *   "compute" mma_<in><in><out>[_trans_a][_trans_b]
 *   "store"   mma_store_16x16_<st>_<store_scope>_[simple_]
 *             (<st> = store_to_smem_dtype or out; simple_ unless
 *             not_use_mma_store_intrinic is False)
 */
#ifndef TESSEL_CUDA_MMA_INTRINS_H
#define TESSEL_CUDA_MMA_INTRINS_H

#include <stddef.h>
#include <stdint.h>

typedef struct mma_intrin mma_intrin;

/* Writes the TVMScript module of `w` (description `<name>_desc`,
 * implementation `<name>_impl`) into out[cap]; 0, or -1 when it does not
 * fit. */
typedef int (*mma_gen_fn)(const mma_intrin *w, char *out, size_t cap);

struct mma_intrin {
  const char *name;      /* TVM v0.19's name (bf16: tessel's), e.g. "mma_ldmatrix_f16_a" */
  mma_gen_fn gen;        /* the family's generator */
  const char *dtype;     /* ldmatrix: element; mma: inputs'; fill, store: accumulator's */
  const char *out_dtype; /* mma: the accumulator's */
  const char *scope;     /* ldmatrix: where the tile comes from; store: where it goes */
  int is_b;              /* ldmatrix: operand B (else A) */
  int trans_a, trans_b;  /* ldmatrix: the tile is transposed (trans_a for A, trans_b for
                          * B); mma: A is [k, m], B is [n, k] */
  int simple;            /* store: element-wise stores, not T.mma_store */
  const char *summary;   /* one line for `tessel plugins` */
};

/* The table, in registration order. */
const mma_intrin *mma_intrins(uint32_t *n);

#endif
