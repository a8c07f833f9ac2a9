/*
 * bench/auto/dnnl_ref.h — oneDNN (Debian's libdnnl-dev, a benchmark-only
 * dependency) as the anchor of the int8 and bfloat16 workloads of
 * `./tessel bench auto --only lowp`: a matmul or a convolution primitive
 * with its inputs filled and laid out once, in the layouts oneDNN picks for
 * itself (format `any`, reordered before any timed call), so that each
 * timed call is the primitive alone, as the tuned kernel's is.
 */
#ifndef TESSEL_BENCH_DNNL_REF_H
#define TESSEL_BENCH_DNNL_REF_H

#include <stddef.h>

typedef struct dnnl_ref dnnl_ref;

/* The element types: u8 x s8 -> s32, or bf16 x bf16 -> f32. */
typedef enum dnnl_ref_types { DNNL_REF_INT8, DNNL_REF_BF16 } dnnl_ref_types;

/* C[m, n] = sum_k A[m, k] * B[k, n]. NULL with the reason in err. */
dnnl_ref *dnnl_ref_matmul(int m, int n, int k, dnnl_ref_types types, char *err, size_t n_err);

/* A batch-1 2-D convolution, c -> oc channels of h x w, a kh x kw kernel,
 * stride 1, `pad` on every side. */
dnnl_ref *dnnl_ref_conv(int c, int h, int w, int oc, int kh, int kw, int pad,
                        dnnl_ref_types types, char *err, size_t n_err);

/* One call of the primitive, waited for: 0, or -1. */
int dnnl_ref_call(dnnl_ref *r);

/* The implementation oneDNN chose (e.g. "brg:avx512_core_vnni"). */
const char *dnnl_ref_impl(const dnnl_ref *r);

void dnnl_ref_free(dnnl_ref *r);

/* The threads of every later call (oneDNN's OpenMP runtime). */
void dnnl_ref_set_threads(int threads);

#endif
