/*
 * tessel/interp.h — the reference interpreter, host tensors, seeded random
 * inputs and checksums.
 *
 * The interpreter runs any prim_func of the supported subset on host memory
 * and is the correctness oracle for schedules and generated code. It follows
 * TensorIR semantics: a block runs its init when every reduction iteration
 * variable is at the start of its domain, T.where predicates guard the block,
 * alloc_buffers are zero-filled at block entry, match_buffers alias regions.
 * Arithmetic is exact to the dtype: float32/float16/bfloat16 results are
 * computed in double and rounded to the dtype after every operation; ints
 * wrap to their width; // and % use floor semantics; / on ints truncates.
 * Vector dtypes (lanes > 1) are rejected with TSL_EUNSUPPORTED. Loops of
 * every kind (parallel, vectorized, unrolled, thread_binding) run serially,
 * in order; so a GPU-bound program is interpreted one thread at a time.
 * The race oracle (tsl_interp_opts.loop_order) runs the iterations of
 * parallel, vectorized and thread-bound loops shuffled or reversed instead,
 * so a loop whose iterations are not independent gives other results.
 *
 * Runs are deterministic: the same function, inputs and seed give the same
 * bits on every run and machine.
 */
#ifndef TESSEL_INTERP_H
#define TESSEL_INTERP_H

#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSL_MAX_NDIM 16

/* A dense row-major host tensor. `data` is owned by whoever allocated it;
 * tsl_tensor_alloc'ed tensors are freed with tsl_tensor_free. */
typedef struct tsl_tensor {
  void *data;
  tsl_dtype dtype;
  int32_t ndim;
  int64_t shape[TSL_MAX_NDIM];
} tsl_tensor;

/* Allocate a zeroed tensor; returns TSL_ENOMEM or TSL_EINVALID (ndim or
 * size out of range) with a message. */
TSL_API int tsl_tensor_alloc(tsl_tensor *t, tsl_dtype dtype, int32_t ndim,
                             const int64_t *shape, tsl_diag *diag);
TSL_API void tsl_tensor_free(tsl_tensor *t);
TSL_API int64_t tsl_tensor_numel(const tsl_tensor *t);
/* Element k as a double (any dtype). */
TSL_API double tsl_tensor_get(const tsl_tensor *t, int64_t k);
/* Store a double into element k, converting (rounding/wrapping) to dtype. */
TSL_API void tsl_tensor_set(tsl_tensor *t, int64_t k, double v);

/* Fill with seeded pseudo-random values: floats uniform in [-1, 1), signed
 * ints in [-8, 8), unsigned ints in [0, 16), bools 0/1. `stream` separates
 * tensors filled with the same seed (use the parameter index). */
TSL_API void tsl_tensor_fill_random(tsl_tensor *t, uint64_t seed,
                                    uint64_t stream);

/* Checksum of a tensor's contents: the sum of its elements as doubles and a
 * 64-bit FNV-1a hash of its bytes. */
typedef struct tsl_checksum {
  double sum;
  uint64_t hash;
} tsl_checksum;
TSL_API tsl_checksum tsl_tensor_checksum(const tsl_tensor *t);

/* One argument of a function call: a tensor for a buffer parameter, a
 * scalar for a scalar parameter. */
typedef struct tsl_arg {
  uint32_t is_scalar;
  tsl_tensor tensor; /* buffer params */
  int64_t int_value; /* scalar int params */
  double float_value; /* scalar float params */
} tsl_arg;

/* Values for symbolic shape variables and scalar parameters by name, used
 * by tsl_func_make_args. */
typedef struct tsl_binding {
  const char *name;
  int64_t value;
} tsl_binding;

/* Allocate arguments for `f`: one tensor per buffer parameter with its
 * shape (symbolic dims taken from `binds`), filled with random values from
 * `seed` (parameter index as stream); scalar parameters from `binds`.
 * `args` must hold f->n_params entries. On error (a symbolic dimension or
 * scalar without a binding, a non-positive dimension) returns TSL_EINVALID
 * with a message naming the variable and how to bind it. */
TSL_API int tsl_func_make_args(const tsl_func *f, const tsl_binding *binds,
                               uint32_t n_binds, uint64_t seed, tsl_arg *args,
                               tsl_diag *diag);
TSL_API void tsl_args_free(tsl_arg *args, uint32_t n);

/* Run `f` on `args` (f->n_params entries). Symbolic shape variables are
 * bound from the tensors' shapes; a shape that contradicts the buffer's
 * declared shape is an error. Out-of-bounds accesses are reported as
 * TSL_ERUNTIME naming the buffer, the indices and the block, never as a
 * crash. */
TSL_API int tsl_interp_run(const tsl_func *f, tsl_arg *args, uint32_t n_args,
                           tsl_diag *diag);

/* The order the iterations of parallel, vectorized and thread-bound loops
 * run in (tsl_interp_opts.loop_order). Such a loop promises independent
 * iterations; a loop that breaks the promise (a race: iterations that write
 * what others read or write) gives different results in another order.
 * SHUFFLED draws a fresh permutation from order_seed at every entry to the
 * loop. ALL is for tsl_interp_check_equivalent_opts only: the transformed
 * program runs in each of the three orders, each compared with the
 * reference. Exception: a thread-bound loop that feeds a reduce iterator of
 * a block under it (a cross-thread reduction, which TVM lowers to an
 * all-reduce) always runs in order, as the serial reduction it stands for:
 * its block's init belongs to the reduce iterators' first values. */
enum {
  TSL_INTERP_ORDER_NATURAL = 0,
  TSL_INTERP_ORDER_SHUFFLED = 1,
  TSL_INTERP_ORDER_REVERSED = 2,
  TSL_INTERP_ORDER_ALL = 3
};

/* Options of the interpreter's *_opts entry points. Fields are only
 * appended (each marked with the ABI version that added it); a NULL opts
 * or a zeroed struct means the defaults. */
typedef struct tsl_interp_opts {
  uint32_t struct_size; /* sizeof(tsl_interp_opts) */
  uint32_t loop_order;  /* TSL_INTERP_ORDER_*, default NATURAL (1.0) */
  uint64_t order_seed;  /* the SHUFFLED permutations (1.0) */
} tsl_interp_opts;

/* tsl_interp_run with options (NULL: as tsl_interp_run). ALL runs in the
 * natural order. */
TSL_API int tsl_interp_run_opts(const tsl_func *f, tsl_arg *args,
                                uint32_t n_args, const tsl_interp_opts *opts,
                                tsl_diag *diag);

/* Result of tsl_interp_check_equivalent. */
typedef struct tsl_equiv_report {
  int64_t n_checked;    /* elements compared */
  int64_t n_mismatched; /* elements outside the tolerance */
  double max_abs_err;   /* largest |ref - got| seen */
  int32_t got_failed;   /* 1: `got` failed at run time (e.g. an access out
                           of bounds), which is a mismatch too */
} tsl_equiv_report;

/* Run `ref` and `got` (same parameter list: e.g. a program before and after
 * scheduling) on identical seeded random arguments (see tsl_func_make_args)
 * and compare every buffer parameter afterwards. Integers must match
 * exactly; floats within |ref - got| <= tol * max(1, |ref|), tol = 1e-4 for
 * float32, 5e-2 for float16, 2.5e-1 for bfloat16, 1e-9 for float64: a
 * schedule may reorder a reduction, and 16-bit accumulators round at every
 * step, so their sums drift by many ulps. Returns TSL_OK when
 * everything matches; TSL_EINVALID on a mismatch with the first differing
 * element in the diag ("buffer C differs at [3, 4]: expected .., got .."),
 * or when `got` fails at run time (report->got_failed, the diag says why);
 * any other status is an error of the setup or of `ref`'s run. `report` (may be NULL) gets the counts. */
TSL_API int tsl_interp_check_equivalent(const tsl_func *ref,
                                        const tsl_func *got,
                                        const tsl_binding *binds,
                                        uint32_t n_binds, uint64_t seed,
                                        tsl_equiv_report *report,
                                        tsl_diag *diag);

/* tsl_interp_check_equivalent with `got` run under opts->loop_order (the
 * reference always runs in the natural order); NULL opts: the natural
 * order. With ALL, `got` runs natural, then shuffled, then reversed, and
 * the first order that differs is reported; the diag then ends with the
 * order, e.g. "(loop iterations of parallel, vectorized and thread-bound
 * loops shuffled, seed 7: a loop whose iterations are not independent)". */
TSL_API int tsl_interp_check_equivalent_opts(
    const tsl_func *ref, const tsl_func *got, const tsl_binding *binds,
    uint32_t n_binds, uint64_t seed, const tsl_interp_opts *opts,
    tsl_equiv_report *report, tsl_diag *diag);

/* The relative tolerance of tsl_interp_check_equivalent for `t` (0 for
 * integers and bools). Runners comparing compiled outputs use it too. */
TSL_API double tsl_equiv_tolerance(tsl_dtype t);

/* 1 when parameter `k` of `f` is written somewhere in the body (an output):
 * stored to, or handed to an intrinsic that may write it (T.tvm_access_ptr
 * with the write bit of its mask, or its bare `.data`). */
TSL_API int tsl_func_param_is_output(const tsl_func *f, uint32_t k);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_INTERP_H */
