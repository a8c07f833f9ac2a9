/*
 * Host tensors: allocation, element access with conversion, seeded random
 * contents (deterministic, stream-separated, in range) and checksums.
 */
#include "irb.h"
#include "tap.h"

#include <math.h>

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 14695981039346656037ull; /* FNV-1a 64 offset basis */
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull; /* FNV 64 prime */
  }
  return h;
}

static void test_alloc(void) {
  tsl_tensor t;
  tsl_diag d = {0};
  int64_t shape[2] = {3, 5};
  is_int(tsl_tensor_alloc(&t, TSL_FLOAT32, 2, shape, &d), 0,
         "alloc float32 (3, 5)");
  is_int(tsl_tensor_numel(&t), 15, "numel");
  int zero = 1;
  for (int k = 0; k < 15; k++)
    zero &= tsl_tensor_get(&t, k) == 0.0;
  ok(zero, "allocated tensors are zeroed");
  tsl_tensor_set(&t, 4, 0.1);
  ok(tsl_tensor_get(&t, 4) == (double)0.1f, "set rounds to float32");
  ok(isnan(tsl_tensor_get(&t, 15)) && isnan(tsl_tensor_get(&t, -1)),
     "get out of range is NaN");
  tsl_tensor_set(&t, 99, 1.0); /* ignored, no crash */
  tsl_tensor_free(&t);
  ok(t.data == NULL, "free clears data");
  tsl_tensor_free(&t); /* double free is harmless */

  int64_t neg[1] = {-2};
  is_int(tsl_tensor_alloc(&t, TSL_FLOAT32, 1, neg, &d), TSL_EINVALID,
         "negative dim rejected");
  ok(contains(d.text, "negative"), "negative dim message");
  int64_t huge[2] = {INT64_MAX / 2, 8};
  is_int(tsl_tensor_alloc(&t, TSL_FLOAT32, 2, huge, &d), TSL_EINVALID,
         "overflowing size rejected");
  is_int(tsl_tensor_alloc(&t, TSL_FLOAT32, 17, shape, &d), TSL_EINVALID,
         "17 dims rejected");
  is_int(tsl_tensor_alloc(&t, TSL_DTYPE(TSL_DT_FLOAT, 32, 4), 1, shape, &d),
         TSL_EUNSUPPORTED, "vector dtype rejected");
  ok(contains(d.text, "float32x4"), "vector dtype message names it");
  is_int(tsl_tensor_alloc(&t, TSL_INT32, 0, NULL, &d), 0, "0-d tensor");
  is_int(tsl_tensor_numel(&t), 1, "0-d tensor has one element");
  tsl_tensor_free(&t);

  /* conversions on set */
  int64_t one[1] = {4};
  tsl_tensor_alloc(&t, TSL_INT8, 1, one, &d);
  tsl_tensor_set(&t, 0, 300.0);
  tsl_tensor_set(&t, 1, -2.9);
  tsl_tensor_set(&t, 2, NAN);
  ok(tsl_tensor_get(&t, 0) == 127 && tsl_tensor_get(&t, 1) == -2 &&
         tsl_tensor_get(&t, 2) == 0,
     "int8 set saturates, truncates, NaN -> 0");
  tsl_tensor_free(&t);
  tsl_tensor_alloc(&t, TSL_FLOAT16, 1, one, &d);
  tsl_tensor_set(&t, 0, 1.0 + 0x1p-11);
  tsl_tensor_set(&t, 1, 0.1);
  ok(tsl_tensor_get(&t, 0) == 1.0 && fabs(tsl_tensor_get(&t, 1) - 0.1) < 1e-4 &&
         tsl_tensor_get(&t, 1) != 0.1,
     "float16 set rounds");
  tsl_tensor_free(&t);
}

static void test_random(void) {
  static const tsl_dtype types[] = {TSL_FLOAT32, TSL_FLOAT16, TSL_BFLOAT16,
                                    TSL_FLOAT64, TSL_INT8,    TSL_INT32,
                                    TSL_UINT8,   TSL_BOOL,    TSL_INT64};
  tsl_diag d = {0};
  int64_t shape[2] = {37, 29};
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    char dn[32];
    tsl_dtype_str(types[ti], dn);
    tsl_tensor a, b, c;
    tsl_tensor_alloc(&a, types[ti], 2, shape, &d);
    tsl_tensor_alloc(&b, types[ti], 2, shape, &d);
    tsl_tensor_alloc(&c, types[ti], 2, shape, &d);
    tsl_tensor_fill_random(&a, 1234, 0);
    tsl_tensor_fill_random(&b, 1234, 0);
    tsl_tensor_fill_random(&c, 1234, 1);
    tsl_checksum ca = tsl_tensor_checksum(&a), cb = tsl_tensor_checksum(&b),
                 cc = tsl_tensor_checksum(&c);
    ok(ca.hash == cb.hash && ca.sum == cb.sum,
       "%s: same seed and stream, same checksum", dn);
    ok(ca.hash != cc.hash, "%s: another stream gives other data", dn);
    double lo = 1e9, hi = -1e9;
    int64_t n = tsl_tensor_numel(&a);
    int distinct = 0;
    for (int64_t k = 0; k < n; k++) {
      double v = tsl_tensor_get(&a, k);
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
      distinct += k > 0 && v != tsl_tensor_get(&a, k - 1);
    }
    double wlo, whi;
    if (tsl_dtype_is_float(types[ti])) {
      wlo = -1.0;
      whi = 1.0;
      ok(lo >= wlo && hi < whi && lo < -0.9 && hi > 0.9,
         "%s: values in [-1, 1) [%g, %g]", dn, lo, hi);
    } else if (tsl_dtype_is_bool(types[ti])) {
      ok(lo == 0 && hi == 1, "%s: values 0 and 1", dn);
    } else if (types[ti].code == TSL_DT_UINT) {
      ok(lo == 0 && hi == 15, "%s: values in [0, 16)", dn);
    } else {
      ok(lo == -8 && hi == 7, "%s: values in [-8, 8)", dn);
    }
    ok(distinct > n / 3, "%s: values vary (%d changes)", dn, distinct);
    /* checksum = independent sum and FNV-1a of the bytes (little-endian host)
     */
    double sum = 0;
    for (int64_t k = 0; k < n; k++)
      sum += tsl_tensor_get(&a, k);
    size_t es = tsl_dtype_bytes(types[ti]);
    ok(ca.sum == sum && ca.hash == fnv1a(a.data, (size_t)n * es),
       "%s: checksum = sum + FNV-1a", dn);
    tsl_tensor_free(&a);
    tsl_tensor_free(&b);
    tsl_tensor_free(&c);
  }

  /* pinned values: the generator must not change between builds/machines */
  tsl_tensor t;
  int64_t four[1] = {4};
  tsl_tensor_alloc(&t, TSL_INT32, 1, four, &d);
  tsl_tensor_fill_random(&t, 0, 0);
  const int32_t *iv = t.data;
  ok(iv[0] == 6 && iv[1] == -4 && iv[2] == 3 && iv[3] == -1,
     "int32, seed 0: 6 -4 3 -1, as on every machine (%d %d %d %d)", iv[0], iv[1], iv[2], iv[3]);
  tsl_checksum c0 = tsl_tensor_checksum(&t);
  tsl_tensor_fill_random(&t, 1, 0);
  tsl_checksum c1 = tsl_tensor_checksum(&t);
  ok(c0.hash != c1.hash, "different seeds give different data");
  tsl_tensor_free(&t);
  tsl_tensor_alloc(&t, TSL_FLOAT32, 1, four, &d);
  tsl_tensor_fill_random(&t, 7, 0);
  const float *fv = t.data;
  ok(fv[0] == -0.112599492f && fv[1] == -0.448624849f && fv[2] == -0.71630156f &&
         fv[3] == -0.593038559f,
     "float32, seed 7: the same four values on every machine (%.9g %.9g %.9g %.9g)", fv[0],
     fv[1], fv[2], fv[3]);
  tsl_tensor_free(&t);

  /* a prefix of a larger tensor holds the same values (counter based) */
  tsl_tensor s, l;
  int64_t small[1] = {10}, large[1] = {1000};
  tsl_tensor_alloc(&s, TSL_FLOAT32, 1, small, &d);
  tsl_tensor_alloc(&l, TSL_FLOAT32, 1, large, &d);
  tsl_tensor_fill_random(&s, 5, 2);
  tsl_tensor_fill_random(&l, 5, 2);
  ok(memcmp(s.data, l.data, 40) == 0,
     "element k depends only on (seed, stream, k)");
  tsl_tensor_free(&s);
  tsl_tensor_free(&l);
}

static void test_make_args(void) {
  irb_init();
  const tsl_buffer *a = buf("A", TSL_FLOAT32, 2, 4, 4);
  const tsl_buffer *b = buf("B", TSL_FLOAT32, 2, 4, 4);
  tsl_param ps[2] = {bparam(a), bparam(b)};
  const tsl_func *f = func("f", 2, ps, tsl_stmt_evaluate(A, I(0)), 0, NULL);
  tsl_arg x[2], y[2];
  tsl_diag d = {0};
  tsl_func_make_args(f, NULL, 0, 77, x, &d);
  tsl_func_make_args(f, NULL, 0, 77, y, &d);
  ok(tsl_tensor_checksum(&x[0].tensor).hash ==
         tsl_tensor_checksum(&y[0].tensor).hash,
     "make_args: same seed, same inputs");
  ok(tsl_tensor_checksum(&x[0].tensor).hash !=
         tsl_tensor_checksum(&x[1].tensor).hash,
     "make_args: parameters get different streams");
  tsl_tensor ref;
  int64_t sh[2] = {4, 4};
  tsl_tensor_alloc(&ref, TSL_FLOAT32, 2, sh, &d);
  tsl_tensor_fill_random(&ref, 77, 1);
  ok(memcmp(ref.data, x[1].tensor.data, 64) == 0,
     "make_args: stream = parameter index");
  tsl_tensor_free(&ref);
  tsl_args_free(x, 2);
  tsl_args_free(y, 2);

  /* a non-positive symbolic dim */
  const tsl_var *m = var("m");
  const tsl_buffer *c = bufx("C", TSL_FLOAT32, 1, SUB(V(m), I(4)));
  tsl_param pc[1] = {bparam(c)};
  f = func("g", 1, pc, tsl_stmt_evaluate(A, I(0)), 0, NULL);
  tsl_binding bd[1] = {{"m", 4}};
  int r = tsl_func_make_args(f, bd, 1, 1, x, &d);
  ok(r == TSL_EINVALID && contains(d.text, "m - 4 = 0") &&
         contains(d.text, "positive"),
     "make_args: non-positive dimension is rejected");
  tap_diag("%s", d.text);
  irb_done();
}

int main(void) {
  test_alloc();
  test_random();
  test_make_args();
  return tap_done();
}
