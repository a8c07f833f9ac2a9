/*
 * Reference interpreter: programs built with the ir.h builders, compared
 * with plain C implementations (bit-exact where the accumulation order is
 * the same) or with hand-computed values.
 */
#include "irb.h"
#include "tap.h"

#include <math.h>
#include <stdint.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float *fdata(tsl_arg *a) { return (float *)a->tensor.data; }

/* ---- matmul -----------------------------------------------------------------
 */

/* C[i, j] = sum_k A[i, k] * B[k, j] with T.init; `k_outer` puts the
 * reduction loop outside the spatial ones. */
static const tsl_func *matmul(int n, int k_outer) {
  const tsl_buffer *a = buf("A", TSL_FLOAT32, 2, n, n);
  const tsl_buffer *b = buf("B", TSL_FLOAT32, 2, n, n);
  const tsl_buffer *c = buf("C", TSL_FLOAT32, 2, n, n);
  const tsl_var *i = var("i"), *j = var("j"), *k = var("k");
  const tsl_var *vi = var("vi"), *vj = var("vj"), *vk = var("vk");
  itv iv[3] = {S(vi, n, V(i)), S(vj, n, V(j)), R(vk, n, V(k))};
  blkopt o = {0};
  o.init = store(c, F32(0.0), 2, V(vi), V(vj));
  const tsl_stmt *body =
      store(c,
            ADD(ld(c, 2, V(vi), V(vj)),
                MUL(ld(a, 2, V(vi), V(vk)), ld(b, 2, V(vk), V(vj)))),
            2, V(vi), V(vj));
  const tsl_stmt *bl = blk("C", 3, iv, body, o);
  const tsl_stmt *nest = k_outer ? loop(k, n, loop(i, n, loop(j, n, bl)))
                                 : loop(i, n, loop(j, n, loop(k, n, bl)));
  tsl_param ps[3] = {bparam(a), bparam(b), bparam(c)};
  return func("matmul", 3, ps, nest, 0, NULL);
}

static void test_matmul(void) {
  const int n = 128;
  for (int k_outer = 0; k_outer < 2; k_outer++) {
    const tsl_func *f = matmul(n, k_outer);
    tsl_arg args[3];
    tsl_diag d = {0};
    int r = tsl_func_make_args(f, NULL, 0, 42, args, &d);
    is_int(r, 0, "matmul: make_args");
    float *ref = calloc((size_t)n * n, sizeof *ref);
    const float *a = fdata(&args[0]), *b = fdata(&args[1]);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        float acc = 0.0f;
        for (int k = 0; k < n; k++)
          acc = acc + a[i * n + k] * b[k * n + j];
        ref[i * n + j] = acc;
      }
    ok(fdata(&args[2])[0] != ref[0], "matmul: C starts with random contents");
    double t0 = now_s();
    r = run(f, args, &d);
    double t1 = now_s();
    if (!ok(r == 0, "matmul %s: runs", k_outer ? "k-outer" : "k-inner"))
      tap_diag("%s", d.text);
    ok(memcmp(ref, fdata(&args[2]), sizeof(float) * n * n) == 0,
       "matmul %s: bit-exact with a C triple loop",
       k_outer ? "k-outer" : "k-inner");
    tap_diag("matmul 128x128x128 (%s): %.3f s", k_outer ? "k-outer" : "k-inner",
             t1 - t0);
    ok(tsl_func_param_is_output(f, 2) == 1 &&
           tsl_func_param_is_output(f, 0) == 0 &&
           tsl_func_param_is_output(f, 1) == 0 &&
           tsl_func_param_is_output(f, 3) == 0,
       "param_is_output: C is the only output");
    free(ref);
    tsl_args_free(args, 3);
  }
}

/* ---- relu -------------------------------------------------------------------
 */

static void test_relu(void) {
  const tsl_buffer *a = buf("A", TSL_FLOAT32, 2, 8, 16);
  const tsl_buffer *b = buf("B", TSL_FLOAT32, 2, 8, 16);
  const tsl_var *i = var("i"), *j = var("j"), *vi = var("vi"), *vj = var("vj");
  itv iv[2] = {S(vi, 8, V(i)), S(vj, 16, V(j))};
  const tsl_stmt *body =
      store(b, BIN(MAX, ld(a, 2, V(vi), V(vj)), F32(0.0)), 2, V(vi), V(vj));
  tsl_param ps[2] = {bparam(a), bparam(b)};
  const tsl_func *f =
      func("relu", 2, ps,
           loop(i, 8, loop(j, 16, blk("relu", 2, iv, body, NOOPT))), 0, NULL);
  tsl_arg args[2];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 7, args, &d);
  is_int(run(f, args, &d), 0, "relu: runs");
  int good = 1, negs = 0;
  for (int k = 0; k < 128; k++) {
    float x = fdata(&args[0])[k];
    negs += x < 0;
    good &= fdata(&args[1])[k] == (x > 0 ? x : 0.0f);
  }
  ok(good, "relu: B = max(A, 0) everywhere");
  ok(negs > 10 && negs < 118,
     "relu: random inputs have both signs (%d negative)", negs);
  tsl_args_free(args, 2);
}

/* ---- softmax: max, exp, sum, divide with an intermediate buffer
 * -------------- */

static void test_softmax(void) {
  const int NR = 4, Cn = 16;
  const tsl_buffer *a = buf("A", TSL_FLOAT32, 2, NR, Cn);
  const tsl_buffer *out = buf("O", TSL_FLOAT32, 2, NR, Cn);
  const tsl_buffer *mx = buf("mx", TSL_FLOAT32, 1, NR);
  const tsl_buffer *ex = buf("ex", TSL_FLOAT32, 2, NR, Cn);
  const tsl_buffer *sm = buf("sm", TSL_FLOAT32, 1, NR);
  const tsl_var *i0 = var("i0"), *k0 = var("k0"), *v0 = var("v0"),
                *r0 = var("r0");
  const tsl_var *i1 = var("i1"), *k1 = var("k1"), *v1 = var("v1"),
                *s1 = var("s1");
  const tsl_var *i2 = var("i2"), *k2 = var("k2"), *v2 = var("v2"),
                *r2 = var("r2");
  const tsl_var *i3 = var("i3"), *k3 = var("k3"), *v3 = var("v3"),
                *s3 = var("s3");
  blkopt o0 = {0}, o2 = {0};
  o0.init = store(mx, F32(-3.4028234663852886e+38), 1, V(v0));
  itv iv0[2] = {S(v0, NR, V(i0)), R(r0, Cn, V(k0))};
  const tsl_stmt *b0 = blk(
      "max", 2, iv0,
      store(mx, BIN(MAX, ld(mx, 1, V(v0)), ld(a, 2, V(v0), V(r0))), 1, V(v0)),
      o0);
  itv iv1[2] = {S(v1, NR, V(i1)), S(s1, Cn, V(k1))};
  const tsl_expr *diff = SUB(ld(a, 2, V(v1), V(s1)), ld(mx, 1, V(v1)));
  const tsl_stmt *b1 =
      blk("exp", 2, iv1,
          store(ex, tsl_expr_call(A, TSL_INTRIN_EXP, TSL_FLOAT32, 1, &diff), 2,
                V(v1), V(s1)),
          NOOPT);
  o2.init = store(sm, F32(0.0), 1, V(v2));
  itv iv2[2] = {S(v2, NR, V(i2)), R(r2, Cn, V(k2))};
  const tsl_stmt *b2 = blk(
      "sum", 2, iv2,
      store(sm, ADD(ld(sm, 1, V(v2)), ld(ex, 2, V(v2), V(r2))), 1, V(v2)), o2);
  itv iv3[2] = {S(v3, NR, V(i3)), S(s3, Cn, V(k3))};
  const tsl_stmt *b3 =
      blk("div", 2, iv3,
          store(out, BIN(DIV, ld(ex, 2, V(v3), V(s3)), ld(sm, 1, V(v3))), 2,
                V(v3), V(s3)),
          NOOPT);
  const tsl_stmt *body =
      seq(4, loop(i0, NR, loop(k0, Cn, b0)), loop(i1, NR, loop(k1, Cn, b1)),
          loop(i2, NR, loop(k2, Cn, b2)), loop(i3, NR, loop(k3, Cn, b3)));
  const tsl_buffer *allocs[3] = {mx, ex, sm};
  tsl_param ps[2] = {bparam(a), bparam(out)};
  const tsl_func *f = func("softmax", 2, ps, body, 3, allocs);
  tsl_arg args[2];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 3, args, &d);
  int r = run(f, args, &d);
  if (!ok(r == 0, "softmax: runs"))
    tap_diag("%s", d.text);
  const float *x = fdata(&args[0]), *y = fdata(&args[1]);
  int exact = 1;
  double rowsum = 0;
  for (int i = 0; i < NR; i++) {
    float m = -3.4028234663852886e+38f, s = 0.0f, e[16];
    for (int k = 0; k < Cn; k++)
      m = m > x[i * Cn + k] ? m : x[i * Cn + k];
    for (int k = 0; k < Cn; k++)
      e[k] = (float)exp((double)(x[i * Cn + k] - m));
    for (int k = 0; k < Cn; k++)
      s = s + e[k];
    for (int k = 0; k < Cn; k++) {
      exact &= y[i * Cn + k] == e[k] / s;
      if (i == 0)
        rowsum += y[k];
    }
  }
  ok(exact, "softmax: bit-exact with the C reference");
  ok(fabs(rowsum - 1.0) < 1e-5, "softmax: a row sums to 1 (%.7f)", rowsum);
  ok(tsl_func_param_is_output(f, 1) && !tsl_func_param_is_output(f, 0),
     "softmax: O is the output, A is not");
  tsl_args_free(args, 2);
}

/* ---- predicates: non-divisible split
 * ------------------------------------------ */

static const tsl_func *split_func(int with_pred) {
  const tsl_buffer *a = buf("A", TSL_FLOAT32, 1, 14);
  const tsl_buffer *b = buf("B", TSL_FLOAT32, 1, 14);
  const tsl_var *io = var("io"), *ii = var("ii"), *vi = var("vi");
  const tsl_expr *idx = ADD(MUL(V(io), I(4)), V(ii));
  itv iv[1] = {S(vi, 14, idx)};
  blkopt o = {0};
  if (with_pred)
    o.pred = LT(idx, I(14));
  const tsl_stmt *body = store(b, MUL(ld(a, 1, V(vi)), F32(2.0)), 1, V(vi));
  tsl_param ps[2] = {bparam(a), bparam(b)};
  return func("split", 2, ps,
              loop(io, 4, loop(ii, 4, blk("B", 1, iv, body, o))), 0, NULL);
}

static void test_predicate(void) {
  tsl_arg args[2];
  tsl_diag d;
  const tsl_func *f = split_func(1);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  int r = run(f, args, &d);
  if (!ok(r == 0, "T.where: non-divisible split runs"))
    tap_diag("%s", d.text);
  int good = 1;
  for (int k = 0; k < 14; k++)
    good &= fdata(&args[1])[k] == 2.0f * fdata(&args[0])[k];
  ok(good, "T.where: all 14 elements computed");
  tsl_args_free(args, 2);

  f = split_func(0);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  r = run(f, args, &d);
  is_int(r, TSL_ERUNTIME, "without T.where the iter value leaves its domain");
  ok(contains(d.text, "'vi'") && contains(d.text, "14") &&
         contains(d.text, "[0, 14)") && contains(d.text, "block 'B'"),
     "domain error names the var, value, domain and block");
  tap_diag("%s", d.text);
  tsl_args_free(args, 2);
}

/* ---- alloc buffers
 * ---------------------------------------------------------------- */

static void test_alloc(void) {
  /* a block-local accumulator is zero-filled on every execution */
  const tsl_buffer *a = buf("A", TSL_INT32, 1, 8);
  const tsl_buffer *c = buf("C", TSL_INT32, 1, 8);
  const tsl_buffer *acc = buf("acc", TSL_INT32, 1, 1);
  const tsl_var *i = var("i"), *vi = var("vi");
  itv iv[1] = {S(vi, 8, V(i))};
  blkopt o = {0};
  const tsl_buffer *al[1] = {acc};
  o.n_alloc = 1;
  o.allocs = al;
  const tsl_stmt *body =
      seq(2, store(acc, ADD(ld(acc, 1, I(0)), ld(a, 1, V(vi))), 1, I(0)),
          store(c, ADD(ld(acc, 1, I(0)), I(100)), 1, V(vi)));
  tsl_param ps[2] = {bparam(a), bparam(c)};
  const tsl_func *f =
      func("local_acc", 2, ps, loop(i, 8, blk("C", 1, iv, body, o)), 0, NULL);
  tsl_arg args[2];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 5, args, &d);
  int r = run(f, args, &d);
  if (!ok(r == 0, "alloc: block-local buffer runs"))
    tap_diag("%s", d.text);
  int good = 1;
  for (int k = 0; k < 8; k++)
    good &= ((int32_t *)args[1].tensor.data)[k] ==
            ((int32_t *)args[0].tensor.data)[k] + 100;
  ok(good, "alloc: buffer is zero-filled on each block execution");
  tsl_args_free(args, 2);

  /* using an alloc buffer outside its block is a compile error */
  const tsl_var *j = var("j");
  const tsl_stmt *body2 =
      seq(2, loop(i, 8, blk("C", 1, iv, store(acc, I(1), 1, I(0)), o)),
          loop(j, 8, store(c, ld(acc, 1, I(0)), 1, V(j))));
  const tsl_func *f2 = func("escape", 2, ps, body2, 0, NULL);
  tsl_func_make_args(f2, NULL, 0, 5, args, &d);
  r = run(f2, args, &d);
  is_int(r, TSL_EINVALID,
         "alloc: reading a block's buffer outside it is rejected");
  ok(contains(d.text, "'acc'") && contains(d.text, "not defined"),
     "alloc: the error names the buffer");
  tsl_args_free(args, 2);
}

/* ---- strided and offset buffers
 * ----------------------------------------------------- */

static void test_strides(void) {
  /* T has shape (4, 8) but row stride 4, so rows overlap: T[0, 4] is
   * T[1, 0]; elem_offset 3 shifts everything. */
  const tsl_expr *shape[2] = {I(4), I(8)};
  const tsl_expr *strides[2] = {I(4), I(1)};
  const tsl_buffer *t =
      tsl_buffer_new(A, "T", TSL_INT32, 2, shape, strides, I(3), NULL, 0, 0);
  const tsl_buffer *o = buf("O", TSL_INT32, 1, 4);
  const tsl_stmt *body = seq(5, store(t, I(11), 2, I(1), I(0)),
                             store(o, ld(t, 2, I(0), I(4)), 1, I(0)),
                             store(t, I(22), 2, I(3), I(7)),
                             store(o, ld(t, 2, I(3), I(7)), 1, I(1)),
                             store(o, ld(t, 2, I(2), I(3)), 1, I(2)));
  const tsl_buffer *al[1] = {t};
  tsl_param ps[1] = {bparam(o)};
  const tsl_func *f = func("strided", 1, ps, body, 1, al);
  tsl_arg args[1];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 5, args, &d);
  int r = run(f, args, &d);
  if (!ok(r == 0, "strides: overlapping strided alloc runs"))
    tap_diag("%s", d.text);
  int32_t *out = args[0].tensor.data;
  is_int(out[0], 11, "strides: T[0, 4] aliases T[1, 0] with row stride 4");
  is_int(out[1], 22,
         "strides: last element T[3, 7] (offset 3 + 19) is addressable");
  is_int(out[2], 0, "strides: untouched element reads zero");
  tsl_args_free(args, 1);

  /* padded rows: stride 10 > 8 leaves gaps, nothing overlaps */
  const tsl_expr *strides2[2] = {I(10), I(1)};
  const tsl_buffer *p =
      tsl_buffer_new(A, "P", TSL_INT32, 2, shape, strides2, NULL, NULL, 0, 0);
  const tsl_buffer *o2 = buf("O", TSL_INT32, 2, 4, 8);
  const tsl_var *i = var("i"), *j = var("j"), *i2 = var("i2"), *j2 = var("j2");
  const tsl_stmt *body2 = seq(
      2,
      loop(i, 4,
           loop(j, 8, store(p, ADD(MUL(V(i), I(8)), V(j)), 2, V(i), V(j)))),
      loop(i2, 4,
           loop(j2, 8, store(o2, ld(p, 2, V(i2), V(j2)), 2, V(i2), V(j2)))));
  const tsl_buffer *al2[1] = {p};
  tsl_param ps2[1] = {bparam(o2)};
  f = func("padded", 1, ps2, body2, 1, al2);
  tsl_func_make_args(f, NULL, 0, 5, args, &d);
  r = run(f, args, &d);
  int good = r == 0;
  for (int k = 0; k < 32; k++)
    good &= ((int32_t *)args[0].tensor.data)[k] == k;
  ok(good, "strides: padded row stride keeps every element");
  tsl_args_free(args, 1);

  /* a parameter declaring non-dense strides is rejected */
  const tsl_buffer *q =
      tsl_buffer_new(A, "Q", TSL_INT32, 2, shape, strides2, NULL, NULL, 0, 0);
  tsl_param ps3[1] = {bparam(q)};
  f = func("pstride", 1, ps3, tsl_stmt_evaluate(A, I(0)), 0, NULL);
  tsl_func_make_args(f, NULL, 0, 5, args, &d);
  r = run(f, args, &d);
  is_int(r, TSL_EINVALID,
         "strides: a param with non-dense strides is rejected");
  ok(contains(d.text, "stride 10") && contains(d.text, "dense"),
     "strides: message explains");
  tsl_args_free(args, 1);
}

/* ---- match_buffer views
 * --------------------------------------------------------------- */

static void test_match_buffer(void) {
  /* for io: block "tile" views A[io*2 : io*2+2, 2:6] as Asub (2, 4) and
   * writes Asub[i, j] = i * 10 + j through it. */
  const tsl_buffer *a = buf("A", TSL_INT32, 2, 8, 8);
  const tsl_buffer *sub = buf("Asub", TSL_INT32, 2, 2, 4);
  const tsl_var *io = var("io"), *vo = var("vo"), *i = var("i"), *j = var("j");
  tsl_range *rg = TSL_NEW_ARRAY(A, tsl_range, 2);
  rg[0].min = MUL(V(vo), I(2));
  rg[0].extent = I(2);
  rg[1].min = I(2);
  rg[1].extent = I(4);
  tsl_match_buffer *mb = TSL_NEW(A, tsl_match_buffer);
  mb->buffer = sub;
  mb->source.buffer = a;
  mb->source.ndim = 2;
  mb->source.ranges = rg;
  blkopt o = {0};
  o.n_match = 1;
  o.matches = mb;
  itv iv[1] = {S(vo, 4, V(io))};
  const tsl_stmt *body = loop(
      i, 2, loop(j, 4, store(sub, ADD(MUL(V(i), I(10)), V(j)), 2, V(i), V(j))));
  tsl_param ps[1] = {bparam(a)};
  const tsl_func *f =
      func("tiles", 1, ps, loop(io, 4, blk("tile", 1, iv, body, o)), 0, NULL);
  tsl_arg args[1];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 5, args, &d);
  memset(args[0].tensor.data, 0, 64 * 4);
  int r = run(f, args, &d);
  if (!ok(r == 0, "match_buffer: tiled view runs"))
    tap_diag("%s", d.text);
  const int32_t *x = args[0].tensor.data;
  int good = 1;
  for (int rr = 0; rr < 8; rr++)
    for (int cc = 0; cc < 8; cc++) {
      int want = cc >= 2 && cc < 6 ? (rr % 2) * 10 + (cc - 2) : 0;
      good &= x[rr * 8 + cc] == want;
    }
  ok(good,
     "match_buffer: writes land in the viewed region with the source strides");
  ok(tsl_func_param_is_output(f, 0),
     "param_is_output: writes through a view count");
  tsl_args_free(args, 1);

  /* symbolic shape and stride vars of a match buffer are bound from the
   * region; a leading extent-1 range is dropped (row view A[vr, 0:8]). */
  const tsl_var *m = var("m"), *s0 = var("s0"), *eo = var("eo");
  const tsl_expr *sshape[1] = {V(m)}, *sstr[1] = {V(s0)};
  const tsl_buffer *row =
      tsl_buffer_new(A, "row", TSL_INT32, 1, sshape, sstr, V(eo), NULL, 0, 0);
  const tsl_buffer *o2 = buf("O", TSL_INT32, 2, 8, 3);
  const tsl_var *r0 = var("r0"), *vr = var("vr");
  tsl_range *rg2 = TSL_NEW_ARRAY(A, tsl_range, 2);
  rg2[0].min = V(vr);
  rg2[0].extent = I(1);
  rg2[1].min = I(0);
  rg2[1].extent = I(8);
  tsl_match_buffer *mb2 = TSL_NEW(A, tsl_match_buffer);
  mb2->buffer = row;
  mb2->source.buffer = a;
  mb2->source.ndim = 2;
  mb2->source.ranges = rg2;
  blkopt o2p = {0};
  o2p.n_match = 1;
  o2p.matches = mb2;
  itv iv2[1] = {S(vr, 8, V(r0))};
  const tsl_stmt *body2 =
      seq(3, store(o2, V(m), 2, V(vr), I(0)), store(o2, V(s0), 2, V(vr), I(1)),
          store(o2, ADD(V(eo), ld(row, 1, I(7))), 2, V(vr), I(2)));
  tsl_param ps2[2] = {bparam(a), bparam(o2)};
  f = func("rows", 2, ps2, loop(r0, 8, blk("row", 1, iv2, body2, o2p)), 0,
           NULL);
  tsl_arg args2[2];
  tsl_func_make_args(f, NULL, 0, 5, args2, &d);
  for (int k = 0; k < 64; k++)
    ((int32_t *)args2[0].tensor.data)[k] = 1000 * k;
  r = run(f, args2, &d);
  if (!ok(r == 0, "match_buffer: symbolic shape/stride/offset view runs"))
    tap_diag("%s", d.text);
  const int32_t *y = args2[1].tensor.data;
  good = 1;
  for (int k = 0; k < 8; k++)
    good &= y[k * 3] == 8 && y[k * 3 + 1] == 1 &&
            y[k * 3 + 2] == k * 8 + 1000 * (k * 8 + 7);
  ok(good, "match_buffer: m = 8, s0 = 1, elem_offset = 8 * row bound from the "
           "region");
  tsl_args_free(args2, 2);

  /* a region outside the source is a run-time error */
  rg[1].min = I(6); /* 6:10 of an 8-wide buffer */
  f = func("tiles_oob", 1, ps, loop(io, 4, blk("tile", 1, iv, body, o)), 0,
           NULL);
  tsl_func_make_args(f, NULL, 0, 5, args, &d);
  r = run(f, args, &d);
  is_int(r, TSL_ERUNTIME, "match_buffer: out-of-range region is an error");
  ok(contains(d.text, "A[0:2, 6:10]") && contains(d.text, "(8, 8)") &&
         contains(d.text, "'Asub'"),
     "match_buffer: message shows the region and the shape");
  tap_diag("%s", d.text);
  tsl_args_free(args, 1);

  /* declared constant shape that disagrees with the region */
  rg[1].min = I(2);
  rg[1].extent = I(3);
  f = func("tiles_bad", 1, ps, loop(io, 4, blk("tile", 1, iv, body, o)), 0,
           NULL);
  tsl_func_make_args(f, NULL, 0, 5, args, &d);
  r = run(f, args, &d);
  is_int(r, TSL_ERUNTIME, "match_buffer: extent mismatch is an error");
  ok(contains(d.text, "extent 4") && contains(d.text, "has 3"),
     "match_buffer: extent message");
  tsl_args_free(args, 1);
}

/* ---- scalar arithmetic: one store per case into an output of the dtype
 * ------------- */

/* Evaluate the scalar expression `e` by storing it into O[0] of dtype
 * `t`; returns the stored element as a double (NAN on failure). */
static double eval1(const tsl_expr *e, tsl_dtype t, int *status, tsl_diag *d) {
  const tsl_buffer *o = buf("O", t, 1, 1);
  tsl_param ps[1] = {bparam(o)};
  const tsl_func *f = func("scalar", 1, ps, store(o, e, 1, I(0)), 0, NULL);
  tsl_arg args[1];
  tsl_diag dd;
  if (!d)
    d = &dd;
  tsl_func_make_args(f, NULL, 0, 0, args, d);
  int r = run(f, args, d);
  if (status)
    *status = r;
  double v = r ? NAN : tsl_tensor_get(&args[0].tensor, 0);
  tsl_args_free(args, 1);
  return v;
}

static const tsl_expr *ci(tsl_dtype t, int64_t v) {
  return tsl_expr_int(A, t, v);
}
static const tsl_expr *cf(tsl_dtype t, double v) {
  return tsl_expr_float(A, t, v);
}

static void test_int_wrap(void) {
  tsl_dtype i8 = TSL_INT8, u8 = TSL_UINT8, i32 = TSL_INT32, i64 = TSL_INT64;
  is_int(eval1(ADD(ci(i8, 127), ci(i8, 1)), i8, NULL, NULL), -128,
         "int8: 127 + 1 wraps to -128");
  is_int(eval1(SUB(ci(u8, 0), ci(u8, 1)), u8, NULL, NULL), 255,
         "uint8: 0 - 1 wraps to 255");
  is_int(eval1(MUL(ci(i8, 16), ci(i8, 16)), i8, NULL, NULL), 0,
         "int8: 16 * 16 wraps to 0");
  is_int(eval1(MUL(ci(i8, 12), ci(i8, 11)), i8, NULL, NULL), -124,
         "int8: 12 * 11 = 132 wraps to -124");
  is_int(eval1(ADD(ci(i32, 2147483647), ci(i32, 1)), i32, NULL, NULL),
         -2147483648LL, "int32: INT32_MAX + 1 wraps");
  /* wrap happens after every op: (100 + 100) // 2 in int8 is -28 */
  is_int(eval1(BIN(FLOORDIV, ADD(ci(i8, 100), ci(i8, 100)), ci(i8, 2)), i8,
               NULL, NULL),
         -28, "int8: intermediate results wrap before the next op");
  is_int(eval1(tsl_expr_unary(A, TSL_EXPR_NEG, ci(i8, -128)), i8, NULL, NULL),
         -128, "int8: -(-128) wraps to -128");
  const tsl_expr *big = ci(i64, INT64_MAX);
  int st;
  double v = eval1(ADD(big, ci(i64, 1)), i64, &st, NULL);
  ok(st == 0 && v == -0x1p63, "int64: INT64_MAX + 1 wraps without UB");
  tsl_dtype u64 = TSL_DTYPE(TSL_DT_UINT, 64, 1);
  v = eval1(BIN(FLOORDIV, ci(u64, -1), ci(u64, 2)), u64, &st, NULL);
  ok(st == 0 && v == 0x1p63, "uint64: (2^64 - 1) // 2 is computed unsigned");
  is_int(eval1(BIN(LT, ci(u64, -1), ci(u64, 1)), TSL_BOOL, NULL, NULL), 0,
         "uint64: 2^64 - 1 < 1 is false (unsigned comparison)");
}

static void test_div_mod(void) {
  tsl_dtype i32 = TSL_INT32, i64 = TSL_INT64;
  struct {
    int kind;
    int a, b, want;
    const char *what;
  } cases[] = {
      {TSL_EXPR_FLOORDIV, -7, 2, -4, "-7 // 2"},
      {TSL_EXPR_FLOORMOD, -7, 2, 1, "-7 % 2"},
      {TSL_EXPR_FLOORDIV, 7, -2, -4, "7 // -2"},
      {TSL_EXPR_FLOORMOD, 7, -2, -1, "7 % -2"},
      {TSL_EXPR_FLOORDIV, -7, -2, 3, "-7 // -2"},
      {TSL_EXPR_FLOORMOD, -7, -2, -1, "-7 % -2"},
      {TSL_EXPR_FLOORDIV, 6, 3, 2, "6 // 3"},
      {TSL_EXPR_FLOORMOD, -6, 3, 0, "-6 % 3"},
      {TSL_EXPR_DIV, -7, 2, -3, "truncdiv(-7, 2)"},
      {TSL_EXPR_MOD, -7, 2, -1, "truncmod(-7, 2)"},
      {TSL_EXPR_DIV, 7, -2, -3, "truncdiv(7, -2)"},
      {TSL_EXPR_MOD, 7, -2, 1, "truncmod(7, -2)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    is_int(eval1(tsl_expr_binary(A, (tsl_expr_kind)cases[k].kind,
                                 ci(i32, cases[k].a), ci(i32, cases[k].b)),
                 i32, NULL, NULL),
           cases[k].want, "int: %s == %d", cases[k].what, cases[k].want);
  int st;
  double v = eval1(BIN(DIV, ci(i64, INT64_MIN), ci(i64, -1)), i64, &st, NULL);
  ok(st == 0 && v == -0x1p63, "int64: INT64_MIN / -1 does not trap (wraps)");
  v = eval1(BIN(FLOORMOD, ci(i64, INT64_MIN), ci(i64, -1)), i64, &st, NULL);
  ok(st == 0 && v == 0, "int64: INT64_MIN %% -1 is 0");
  /* floats: // floors, % is floor-mod, / is true division */
  tsl_dtype f32 = TSL_FLOAT32;
  ok(eval1(BIN(FLOORDIV, cf(f32, -7.5), cf(f32, 2)), f32, NULL, NULL) == -4.0,
     "float: -7.5 // 2 = -4");
  ok(eval1(BIN(FLOORMOD, cf(f32, -7.5), cf(f32, 2)), f32, NULL, NULL) == 0.5,
     "float: -7.5 %% 2 = 0.5");
  ok(eval1(BIN(DIV, cf(f32, 1), cf(f32, 3)), f32, NULL, NULL) ==
         (double)(1.0f / 3.0f),
     "float32: 1 / 3 rounded to float32");
  ok(isinf(eval1(BIN(DIV, cf(f32, 1), cf(f32, 0)), f32, NULL, NULL)),
     "float: division by zero gives inf, not an error");

  /* integer division by zero: an error with the expression and the block */
  const tsl_buffer *a = buf("A", TSL_INT32, 1, 4);
  const tsl_buffer *o = buf("O", TSL_INT32, 1, 4);
  const tsl_var *i = var("i"), *vi = var("vi");
  itv iv[1] = {S(vi, 4, V(i))};
  const tsl_stmt *body = store(
      o, BIN(FLOORDIV, I(12), SUB(ld(a, 1, V(vi)), ld(a, 1, V(vi)))), 1, V(vi));
  tsl_param ps[2] = {bparam(a), bparam(o)};
  const tsl_func *f =
      func("divz", 2, ps, loop(i, 4, blk("D", 1, iv, body, NOOPT)), 0, NULL);
  tsl_arg args[2];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 0, args, &d);
  int r = run(f, args, &d);
  is_int(r, TSL_ERUNTIME, "int division by zero is a run-time error");
  ok(contains(d.text, "division by zero") && contains(d.text, "block 'D'") &&
         contains(d.text, "12 // (A[vi] - A[vi])"),
     "division by zero message shows the expression and the block");
  tap_diag("%s", d.text);
  tsl_args_free(args, 2);
}

static void test_float_rounding(void) {
  tsl_dtype f16 = TSL_FLOAT16, bf16 = TSL_BFLOAT16, f32 = TSL_FLOAT32,
            f64 = TSL_FLOAT64;
  ok(eval1(ADD(cf(f16, 1.0), cf(f16, 0x1p-11)), f16, NULL, NULL) == 1.0,
     "float16: 1 + 2^-11 rounds to even (1)");
  ok(eval1(ADD(cf(f16, 1.0), cf(f16, 0x1.8p-11)), f16, NULL, NULL) ==
         1.0 + 0x1p-10,
     "float16: 1 + 1.5 * 2^-11 rounds up");
  ok(eval1(ADD(cf(f16, 2048), cf(f16, 1)), f16, NULL, NULL) == 2048.0,
     "float16: 2048 + 1 = 2048");
  ok(isinf(eval1(MUL(cf(f16, 300), cf(f16, 300)), f16, NULL, NULL)),
     "float16: 300 * 300 overflows to inf");
  /* rounding after every op: (2048 + 1) - 2048 is 0 in float16 */
  ok(eval1(SUB(ADD(cf(f16, 2048), cf(f16, 1)), cf(f16, 2048)), f16, NULL,
           NULL) == 0.0,
     "float16: intermediate result is rounded before the next op");
  ok(eval1(ADD(cf(bf16, 1.0), cf(bf16, 0x1p-8)), bf16, NULL, NULL) == 1.0,
     "bfloat16: 1 + 2^-8 = 1");
  ok(eval1(ADD(cf(bf16, 256), cf(bf16, 1)), bf16, NULL, NULL) == 256.0,
     "bfloat16: 256 + 1 = 256");
  ok(eval1(ADD(cf(bf16, 256), cf(bf16, 2)), bf16, NULL, NULL) == 258.0,
     "bfloat16: 256 + 2 = 258");
  ok(eval1(ADD(cf(f32, 16777216), cf(f32, 1)), f32, NULL, NULL) == 16777216.0,
     "float32: 2^24 + 1 = 2^24");
  ok(eval1(ADD(cf(f64, 16777216), cf(f64, 1)), f64, NULL, NULL) == 16777217.0,
     "float64: 2^24 + 1 is exact");
  ok(eval1(cf(f32, 0.1), f64, NULL, NULL) == (double)0.1f,
     "float32 constant is rounded to float32");
}

static void test_casts(void) {
  tsl_dtype f32 = TSL_FLOAT32, i8 = TSL_INT8, u8 = TSL_UINT8, i32 = TSL_INT32;
  is_int(eval1(CAST(i32, cf(f32, -2.7)), i32, NULL, NULL), -2,
         "cast: float -2.7 -> int32 truncates to -2");
  is_int(eval1(CAST(i32, cf(f32, 2.7)), i32, NULL, NULL), 2,
         "cast: float 2.7 -> int32 truncates to 2");
  is_int(eval1(CAST(i8, cf(f32, 300.5)), i8, NULL, NULL), 127,
         "cast: 300.5 -> int8 saturates to 127");
  is_int(eval1(CAST(u8, cf(f32, -1.0)), u8, NULL, NULL), 0,
         "cast: -1.0 -> uint8 saturates to 0");
  is_int(eval1(CAST(i32, cf(f32, NAN)), i32, NULL, NULL), 0,
         "cast: NaN -> int32 is 0");
  is_int(eval1(CAST(i32, cf(f32, 1e30)), i32, NULL, NULL), 2147483647,
         "cast: 1e30 -> int32 saturates");
  is_int(eval1(CAST(i8, ci(i32, 200)), i8, NULL, NULL), -56,
         "cast: int32 200 -> int8 wraps to -56");
  is_int(eval1(CAST(u8, ci(i32, -1)), u8, NULL, NULL), 255,
         "cast: int32 -1 -> uint8 wraps to 255");
  is_int(eval1(CAST(TSL_BOOL, cf(f32, 0.5)), TSL_BOOL, NULL, NULL), 1,
         "cast: 0.5 -> bool is True");
  is_int(eval1(CAST(TSL_BOOL, ci(i32, 0)), TSL_BOOL, NULL, NULL), 0,
         "cast: 0 -> bool is False");
  ok(eval1(CAST(f32, ci(i32, 16777217)), f32, NULL, NULL) == 16777216.0,
     "cast: int32 16777217 -> float32 rounds");
  ok(eval1(CAST(TSL_FLOAT16, cf(f32, 65520)), TSL_FLOAT16, NULL, NULL) ==
         INFINITY,
     "cast: 65520 -> float16 rounds to inf");
  /* storing converts the value to the buffer dtype */
  is_int(eval1(cf(f32, 3.9), i32, NULL, NULL), 3,
         "store: float value into int32 buffer truncates");
  ok(eval1(ci(i32, 7), f32, NULL, NULL) == 7.0,
     "store: int value into float32 buffer converts");
}

static void test_intrinsics(void) {
  tsl_dtype f32 = TSL_FLOAT32, f64 = TSL_FLOAT64, i32 = TSL_INT32;
#define CALL1(id, t, x)                                                        \
  tsl_expr_call(A, TSL_INTRIN_##id, (t), 1, (const tsl_expr *[]){(x)})
#define CALL2(id, t, x, y)                                                     \
  tsl_expr_call(A, TSL_INTRIN_##id, (t), 2, (const tsl_expr *[]){(x), (y)})
  /* libm at run time on both sides (GCC folds exp(1.0) with MPFR, correctly
   * rounded, which glibc's exp need not be) */
  static volatile double one = 1.0, half = 0.5, x03 = 0.3;
  ok(eval1(CALL1(EXP, f32, cf(f32, 1)), f32, NULL, NULL) ==
         (double)(float)exp(one),
     "exp(1) in float32");
  ok(eval1(CALL1(SIGMOID, f64, cf(f64, 0.5)), f64, NULL, NULL) ==
         1.0 / (1.0 + exp(-half)),
     "sigmoid(x) = 1 / (1 + exp(-x))");
  ok(eval1(CALL1(RSQRT, f32, cf(f32, 4)), f32, NULL, NULL) == 0.5,
     "rsqrt(4) = 0.5");
  /* T.round is llvm.round / roundf in TVM's code generators: ties away
   * from zero; T.nearbyint rounds ties to even */
  ok(eval1(CALL1(ROUND, f32, cf(f32, 2.5)), f32, NULL, NULL) == 3.0,
     "round(2.5) = 3 (ties away from zero)");
  ok(eval1(CALL1(ROUND, f32, cf(f32, 3.5)), f32, NULL, NULL) == 4.0,
     "round(3.5) = 4");
  ok(eval1(CALL1(ROUND, f32, cf(f32, -2.5)), f32, NULL, NULL) == -3.0,
     "round(-2.5) = -3");
  ok(eval1(CALL1(NEARBYINT, f32, cf(f32, 2.5)), f32, NULL, NULL) == 2.0,
     "nearbyint(2.5) = 2 (ties to even)");
  ok(eval1(CALL1(NEARBYINT, f32, cf(f32, -3.5)), f32, NULL, NULL) == -4.0,
     "nearbyint(-3.5) = -4");
  ok(eval1(CALL1(FLOOR, f32, cf(f32, -1.5)), f32, NULL, NULL) == -2.0,
     "floor(-1.5) = -2");
  ok(eval1(CALL1(CEIL, f32, cf(f32, -1.5)), f32, NULL, NULL) == -1.0,
     "ceil(-1.5) = -1");
  ok(eval1(CALL1(TRUNC, f32, cf(f32, -1.5)), f32, NULL, NULL) == -1.0,
     "trunc(-1.5) = -1");
  ok(eval1(CALL2(POW, f32, cf(f32, 2), cf(f32, 10)), f32, NULL, NULL) == 1024.0,
     "pow(2, 10)");
  ok(eval1(CALL2(FMOD, f32, cf(f32, -7), cf(f32, 3)), f32, NULL, NULL) == -1.0,
     "fmod(-7, 3) = -1");
  ok(eval1(CALL1(TANH, f64, cf(f64, 0.3)), f64, NULL, NULL) == tanh(x03),
     "tanh");
  ok(eval1(CALL1(LOG, f32, cf(f32, -1)), f32, NULL, NULL) !=
         eval1(CALL1(LOG, f32, cf(f32, -1)), f32, NULL, NULL),
     "log(-1) is NaN");
  is_int(eval1(CALL1(ABS, i32, ci(i32, -5)), i32, NULL, NULL), 5,
         "abs on int32");
  is_int(eval1(CALL1(ISNAN, TSL_BOOL, CALL1(SQRT, f32, cf(f32, -1))), TSL_BOOL,
               NULL, NULL),
         1, "isnan(sqrt(-1))");
  is_int(eval1(CALL1(ISNAN, TSL_BOOL, cf(f32, 1)), TSL_BOOL, NULL, NULL), 0,
         "isnan(1) is False");
  ok(eval1(CALL1(EXP, TSL_FLOAT16, cf(TSL_FLOAT16, 1)), TSL_FLOAT16, NULL,
           NULL) == 2.71875,
     "exp(1) rounded to float16 is 2.71875");
  /* call_extern: a small table of libm names */
  const tsl_expr *x = cf(f32, 2);
  ok(eval1(tsl_expr_call_extern(A, f32, tsl_intern(irb_ctx, "sqrtf"), 1, &x),
           f32, NULL, NULL) == (double)sqrtf(2.0f),
     "call_extern(\"sqrtf\")");
  const tsl_expr *h = cf(f32, 2.5);
  ok(eval1(tsl_expr_call_extern(A, f32, tsl_intern(irb_ctx, "roundf"), 1, &h),
           f32, NULL, NULL) == 3.0,
     "call_extern(\"roundf\") rounds half away from zero");
  int st;
  tsl_diag d;
  eval1(tsl_expr_call_extern(A, f32, tsl_intern(irb_ctx, "my_kernel"), 1, &x),
        f32, &st, &d);
  is_int(st, TSL_EUNSUPPORTED,
         "call_extern of an unknown function is unsupported");
  ok(contains(d.text, "'my_kernel'") && contains(d.text, "expf") == 0 &&
         contains(d.text, "sqrt"),
     "unknown extern: message names it and lists supported names");
  eval1(tsl_expr_call(A, TSL_INTRIN_POW, f32, 1, &x), f32, &st, &d);
  is_int(st, TSL_EINVALID, "intrinsic with the wrong arity is rejected");
  ok(contains(d.text, "T.pow takes 2 arguments, got 1"), "arity message");
#undef CALL1
#undef CALL2
}

static void test_select_ifte_let(void) {
  /* O[i] = if_then_else(i < 4, A[i], -1) over i in [0, 6) with A of 4
   * elements: only the chosen arm is evaluated, so no out-of-bounds. */
  const tsl_buffer *a = buf("A", TSL_INT32, 1, 4);
  const tsl_buffer *o = buf("O", TSL_INT32, 1, 6);
  const tsl_var *i = var("i");
  const tsl_expr *cond = LT(V(i), I(4));
  tsl_param ps[2] = {bparam(a), bparam(o)};
  const tsl_func *f =
      func("ifte", 2, ps,
           loop(i, 6,
                store(o, tsl_expr_if_then_else(A, cond, ld(a, 1, V(i)), I(-1)),
                      1, V(i))),
           0, NULL);
  tsl_arg args[2];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 9, args, &d);
  int r = run(f, args, &d);
  const int32_t *x = args[0].tensor.data, *y = args[1].tensor.data;
  ok(r == 0 && y[0] == x[0] && y[3] == x[3] && y[4] == -1 && y[5] == -1,
     "if_then_else evaluates only the chosen arm");
  tsl_args_free(args, 2);
  f = func(
      "select", 2, ps,
      loop(i, 6,
           store(o, tsl_expr_select(A, cond, ld(a, 1, V(i)), I(-1)), 1, V(i))),
      0, NULL);
  tsl_func_make_args(f, NULL, 0, 9, args, &d);
  r = run(f, args, &d);
  is_int(r, TSL_ERUNTIME,
         "Select evaluates both arms (so A[4] is out of bounds)");
  tsl_args_free(args, 2);

  /* let x = A[i] * 3 in O[i] = x + x; and an IF statement */
  const tsl_var *x_ = tsl_var_new(A, "x", TSL_INT32);
  const tsl_stmt *body = tsl_stmt_let(A, x_, MUL(ld(a, 1, V(i)), I(3)),
                                      store(o, ADD(V(x_), V(x_)), 1, V(i)));
  const tsl_stmt *iff =
      tsl_stmt_if(A, LT(V(i), I(2)), store(o, I(77), 1, V(i)), body);
  f = func("let", 2, ps, loop(i, 4, iff), 0, NULL);
  tsl_func_make_args(f, NULL, 0, 9, args, &d);
  r = run(f, args, &d);
  x = args[0].tensor.data;
  y = args[1].tensor.data;
  ok(r == 0 && y[0] == 77 && y[1] == 77 && y[2] == 6 * x[2] && y[3] == 6 * x[3],
     "let binds a value; if/else picks the branch");
  tsl_args_free(args, 2);

  /* a float let variable */
  const tsl_var *fx = tsl_var_new(A, "fx", TSL_FLOAT32);
  const tsl_buffer *fo = buf("F", TSL_FLOAT32, 1, 1);
  tsl_param ps2[1] = {bparam(fo)};
  f = func("flet", 1, ps2,
           tsl_stmt_let(A, fx, F32(1.5), store(fo, MUL(V(fx), V(fx)), 1, I(0))),
           0, NULL);
  tsl_func_make_args(f, NULL, 0, 9, args, &d);
  r = run(f, args, &d);
  ok(r == 0 && ((float *)args[0].tensor.data)[0] == 2.25f,
     "let with a float32 variable");
  tsl_args_free(args, 1);

  /* short-circuit: (i < 4) and (A[i] > 0) never reads A[4] */
  const tsl_expr *sc = BIN(AND, LT(V(i), I(4)), BIN(GT, ld(a, 1, V(i)), I(0)));
  f = func("and", 2, ps, loop(i, 6, store(o, CAST(TSL_INT32, sc), 1, V(i))), 0,
           NULL);
  tsl_func_make_args(f, NULL, 0, 9, args, &d);
  r = run(f, args, &d);
  x = args[0].tensor.data;
  y = args[1].tensor.data;
  ok(r == 0 && y[4] == 0 && y[0] == (x[0] > 0), "and short-circuits");
  tsl_args_free(args, 2);
}

/* ---- symbolic shapes
 * ---------------------------------------------------------------- */

static void test_symbolic(void) {
  /* B[i] = A[i] + A[m - 1 - i] over m, with A: (m,), B: (m,), C: (m * 2,) */
  const tsl_var *m = var("m");
  const tsl_buffer *a = bufx("A", TSL_FLOAT32, 1, V(m));
  const tsl_buffer *b = bufx("B", TSL_FLOAT32, 1, V(m));
  const tsl_buffer *c = bufx("C", TSL_FLOAT32, 1, MUL(V(m), I(2)));
  const tsl_var *i = var("i");
  const tsl_stmt *body = seq(
      2,
      loopk(i, V(m), TSL_FOR_SERIAL, NULL,
            store(b, ADD(ld(a, 1, V(i)), ld(a, 1, SUB(SUB(V(m), I(1)), V(i)))),
                  1, V(i))),
      store(c, F32(5), 1, SUB(MUL(V(m), I(2)), I(1))));
  tsl_param ps[3] = {bparam(a), bparam(b), bparam(c)};
  const tsl_func *f = func("sym", 3, ps, body, 0, NULL);
  tsl_arg args[3];
  tsl_diag d = {0};
  int r = tsl_func_make_args(f, NULL, 0, 1, args, &d);
  is_int(r, TSL_EINVALID, "make_args: unbound symbolic dim is an error");
  is_str(d.text,
         "symbolic shape variable 'm' of buffer 'A' has no value; bind it, "
         "e.g. --set m=64",
         "make_args: the message says how to bind it");
  tsl_binding bd[1] = {{"m", 10}};
  r = tsl_func_make_args(f, bd, 1, 1, args, &d);
  ok(r == 0 && args[0].tensor.ndim == 1 && args[0].tensor.shape[0] == 10 &&
         args[2].tensor.shape[0] == 20,
     "make_args: m = 10 gives A: (10,), C: (20,)");
  r = run(f, args, &d);
  const float *x = fdata(&args[0]), *y = fdata(&args[1]);
  ok(r == 0 && y[0] == x[0] + x[9] && y[9] == x[9] + x[0] &&
         fdata(&args[2])[19] == 5.0f,
     "symbolic: m bound from the tensors");
  tsl_args_free(args, 3);

  /* tensors that disagree about m */
  int64_t s7[1] = {7}, s8[1] = {8}, s14[1] = {14};
  tsl_tensor_alloc(&args[0].tensor, TSL_FLOAT32, 1, s7, &d);
  tsl_tensor_alloc(&args[1].tensor, TSL_FLOAT32, 1, s8, &d);
  tsl_tensor_alloc(&args[2].tensor, TSL_FLOAT32, 1, s14, &d);
  args[0].is_scalar = args[1].is_scalar = args[2].is_scalar = 0;
  r = run(f, args, &d);
  is_int(r, TSL_EINVALID, "symbolic: contradicting shapes are rejected");
  is_str(d.text,
         "argument 1 'B' of function 'sym': the buffer has shape (m,) = (7,) "
         "but the "
         "tensor given has shape (8,)",
         "symbolic: message names the param, declared and given shapes");
  tsl_tensor_free(&args[1].tensor);
  tsl_tensor_alloc(&args[1].tensor, TSL_FLOAT32, 1, s7, &d);
  tsl_tensor_free(&args[2].tensor);
  tsl_tensor_alloc(&args[2].tensor, TSL_FLOAT32, 1, s7, &d);
  r = run(f, args, &d);
  is_int(r, TSL_EINVALID,
         "symbolic: expression dims are checked after binding");
  ok(contains(d.text, "(m * 2,) = (14,)") && contains(d.text, "(7,)"),
     "symbolic: message evaluates m * 2");
  tap_diag("%s", d.text);
  tsl_args_free(args, 3);

  /* a variable that only appears inside a dim expression cannot be bound */
  const tsl_var *h = var("h");
  const tsl_buffer *hb = bufx("H", TSL_FLOAT32, 1, MUL(V(h), I(2)));
  tsl_param ph[1] = {bparam(hb)};
  f = func("half", 1, ph, tsl_stmt_evaluate(A, I(0)), 0, NULL);
  tsl_binding bh[1] = {{"h", 3}};
  r = tsl_func_make_args(f, bh, 1, 1, args, &d);
  ok(r == 0 && args[0].tensor.shape[0] == 6,
     "make_args evaluates h * 2 from the binding");
  r = run(f, args, &d);
  is_int(r, TSL_EINVALID,
         "run: a var only inside a dim expression is an error");
  ok(contains(d.text, "variable 'h' cannot be bound") &&
         contains(d.text, "'h * 2'") &&
         contains(d.text, "buffer parameter 'H'"),
     "run: the message names the var, the dim and the buffer");
  tsl_args_free(args, 1);
  /* a dim written as a cast of a variable binds the variable */
  const tsl_var *w = tsl_var_new(A, "w", TSL_INT64);
  const tsl_buffer *wb = bufx("W", TSL_INT32, 1, CAST(TSL_INT32, V(w)));
  const tsl_var *q = tsl_var_new(A, "q", TSL_INT64);
  tsl_param pw[1] = {bparam(wb)};
  f = func("castdim", 1, pw,
           loopk(q, V(w), TSL_FOR_SERIAL, NULL,
                 store(wb, CAST(TSL_INT32, V(w)), 1, V(q))),
           0, NULL);
  tsl_binding bw[1] = {{"w", 4}};
  tsl_func_make_args(f, bw, 1, 1, args, &d);
  r = run(f, args, &d);
  ok(r == 0 && ((int32_t *)args[0].tensor.data)[3] == 4,
     "a T.Cast(var) dim binds the var");
  tsl_args_free(args, 1);

  /* scalar parameter n used as a loop bound */
  const tsl_var *n = var("n");
  const tsl_buffer *o = buf("O", TSL_INT32, 1, 8);
  const tsl_var *j = var("j");
  tsl_param ps2[2] = {sparam(n), bparam(o)};
  f = func(
      "scal", 2, ps2,
      loopk(j, V(n), TSL_FOR_SERIAL, NULL, store(o, MUL(V(j), V(n)), 1, V(j))),
      0, NULL);
  r = tsl_func_make_args(f, NULL, 0, 1, args, &d);
  ok(r == TSL_EINVALID && contains(d.text, "scalar parameter 'n'") &&
         contains(d.text, "--set n="),
     "make_args: unbound scalar parameter is an error");
  tsl_binding bn[1] = {{"n", 3}};
  r = tsl_func_make_args(f, bn, 1, 1, args, &d);
  ok(r == 0 && args[0].is_scalar && args[0].int_value == 3,
     "make_args: scalar from binds");
  int32_t before = ((int32_t *)args[1].tensor.data)[5];
  r = run(f, args, &d);
  const int32_t *z = args[1].tensor.data;
  ok(r == 0 && z[0] == 0 && z[1] == 3 && z[2] == 6 && z[5] == before,
     "scalar param n = 3 drives the loop");
  ok(!tsl_func_param_is_output(f, 0) && tsl_func_param_is_output(f, 1),
     "param_is_output: scalars are never outputs");
  tsl_args_free(args, 2);
}

/* ---- errors
 * ---------------------------------------------------------------------------
 */

static void test_errors(void) {
  /* out of bounds: O[i] = A[i + 1] for i in [0, 8) */
  const tsl_buffer *a = buf("A", TSL_FLOAT32, 2, 2, 8);
  const tsl_buffer *o = buf("O", TSL_FLOAT32, 1, 8);
  const tsl_var *i = var("i"), *vi = var("vi");
  itv iv[1] = {S(vi, 8, V(i))};
  const tsl_stmt *body = store(o, ld(a, 2, I(1), ADD(V(vi), I(1))), 1, V(vi));
  tsl_param ps[2] = {bparam(a), bparam(o)};
  const tsl_func *f =
      func("oob", 2, ps, loop(i, 8, blk("shift", 1, iv, body, NOOPT)), 0, NULL);
  tsl_arg args[2];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  int r = run(f, args, &d);
  is_int(r, TSL_ERUNTIME, "out-of-bounds load is a run-time error");
  is_str(d.text,
         "out-of-bounds load from A[1, 8]: index 8 of dimension 1 is outside "
         "[0, 8) for "
         "buffer 'A' of shape (2, 8) (in block 'shift')",
         "out-of-bounds message names buffer, indices, shape and block");
  ok(fdata(&args[1])[6] == fdata(&args[0])[15],
     "elements before the error were computed");
  tsl_args_free(args, 2);

  /* out-of-bounds store with a negative index */
  f = func(
      "oobs", 2, ps,
      loop(i, 8,
           blk("neg", 1, iv, store(o, F32(1), 1, SUB(V(vi), I(1))), NOOPT)),
      0, NULL);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  r = run(f, args, &d);
  ok(r == TSL_ERUNTIME && contains(d.text, "store to O[-1]") &&
         contains(d.text, "block 'neg'"),
     "negative store index is reported");
  tsl_args_free(args, 2);

  /* dtype and rank mismatches */
  f = func("copy", 2, ps,
           loop(i, 8,
                blk("shift", 1, iv, store(o, ld(a, 2, I(0), V(vi)), 1, V(vi)),
                    NOOPT)),
           0, NULL);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  tsl_tensor t16;
  int64_t sh[2] = {2, 8};
  tsl_tensor_alloc(&t16, TSL_FLOAT16, 2, sh, &d);
  tsl_tensor keep = args[0].tensor;
  args[0].tensor = t16;
  r = run(f, args, &d);
  is_int(r, TSL_EINVALID, "dtype mismatch is rejected");
  is_str(d.text,
         "argument 0 'A' of function 'copy': the buffer has dtype float32 but "
         "the tensor "
         "given has dtype float16",
         "dtype mismatch message");
  tsl_tensor_free(&t16);
  tsl_tensor t3;
  int64_t sh3[3] = {2, 8, 1};
  tsl_tensor_alloc(&t3, TSL_FLOAT32, 3, sh3, &d);
  args[0].tensor = t3;
  r = run(f, args, &d);
  is_int(r, TSL_EINVALID, "rank mismatch is rejected");
  is_str(d.text,
         "argument 0 'A' of function 'copy': the buffer has 2 dimensions, "
         "shape (2, 8), but "
         "the tensor given has 3, shape (2, 8, 1)",
         "rank mismatch message");
  tsl_tensor_free(&t3);
  int64_t sh4[2] = {2, 9};
  tsl_tensor_alloc(&t3, TSL_FLOAT32, 2, sh4, &d);
  args[0].tensor = t3;
  r = run(f, args, &d);
  ok(r == TSL_EINVALID &&
         contains(d.text, "shape (2, 8) but the tensor given has shape (2, 9)"),
     "constant shape mismatch message");
  tsl_tensor_free(&t3);
  args[0].tensor = keep;
  args[1].is_scalar = 1;
  r = run(f, args, &d);
  ok(r == TSL_EINVALID && contains(d.text, "must be a tensor"),
     "scalar for a buffer param is rejected");
  args[1].is_scalar = 0;
  memset(&d, 0, sizeof d);
  r = tsl_interp_run(f, args, 1, &d);
  ok(r == TSL_EINVALID &&
         contains(d.text, "takes 2 parameters, but 1 argument was given"),
     "argument count mismatch");
  tsl_args_free(args, 2);

  /* undefined variable */
  const tsl_var *ghost = var("ghost");
  f = func("ghost", 2, ps,
           loop(i, 8, blk("g", 1, iv, store(o, F32(1), 1, V(ghost)), NOOPT)), 0,
           NULL);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  r = run(f, args, &d);
  ok(r == TSL_EINVALID && contains(d.text, "variable 'ghost'") &&
         contains(d.text, "block 'g'") && contains(d.text, "function 'ghost'"),
     "undefined variable is reported with block and function");
  tsl_args_free(args, 2);

  /* vectors are unsupported */
  const tsl_expr *rmp = tsl_expr_ramp(A, I(0), I(1), 4);
  f = func("vec", 2, ps, store(o, F32(1), 1, rmp), 0, NULL);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  r = run(f, args, &d);
  ok(r == TSL_EUNSUPPORTED && contains(d.text, "vector"),
     "vector expressions are unsupported");
  tsl_args_free(args, 2);

  /* absurd nesting does not crash */
  const tsl_expr *deep = I(1);
  for (int k = 0; k < 5000; k++)
    deep = ADD(deep, I(1));
  const tsl_buffer *oi = buf("O", TSL_INT32, 1, 1);
  tsl_param psi[1] = {bparam(oi)};
  f = func("deep", 1, psi, store(oi, deep, 1, I(0)), 0, NULL);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  r = run(f, args, &d);
  ok(r == TSL_EUNSUPPORTED && contains(d.text, "deeper"),
     "very deep expressions are refused cleanly");
  tsl_args_free(args, 1);
  deep = I(1);
  for (int k = 0; k < 1500; k++)
    deep = ADD(deep, I(1));
  f = func("deepok", 1, psi, store(oi, deep, 1, I(0)), 0, NULL);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  r = run(f, args, &d);
  ok(r == 0 && ((int32_t *)args[0].tensor.data)[0] == 1501,
     "1500-deep expression still runs");
  tsl_args_free(args, 1);
}

/* ---- loop kinds and init semantics
 * -------------------------------------------------------- */

static void test_loops_init(void) {
  /* thread_binding / parallel / vectorized / unrolled loops all run in order:
   * O[k] = order of visit */
  const tsl_buffer *o = buf("O", TSL_INT32, 1, 16);
  const tsl_buffer *cnt = buf("cnt", TSL_INT32, 1, 1);
  const tsl_var *bx = var("bx"), *tx = var("tx"), *p = var("p"), *u = var("u");
  const tsl_expr *idx =
      ADD(MUL(ADD(MUL(V(bx), I(2)), V(tx)), I(4)), ADD(MUL(V(p), I(2)), V(u)));
  const tsl_stmt *inner = seq(2, store(o, ld(cnt, 1, I(0)), 1, idx),
                              store(cnt, ADD(ld(cnt, 1, I(0)), I(1)), 1, I(0)));
  const tsl_stmt *nest =
      loopk(bx, I(2), TSL_FOR_THREAD_BINDING, "blockIdx.x",
            loopk(tx, I(2), TSL_FOR_THREAD_BINDING, "threadIdx.x",
                  loopk(p, I(2), TSL_FOR_PARALLEL, NULL,
                        loopk(u, I(2), TSL_FOR_UNROLLED, NULL, inner))));
  const tsl_buffer *al[1] = {cnt};
  tsl_param ps[1] = {bparam(o)};
  const tsl_func *f = func("order", 1, ps, nest, 1, al);
  tsl_arg args[2];
  tsl_diag d;
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  int r = run(f, args, &d);
  int good = r == 0;
  for (int k = 0; k < 16; k++)
    good &= ((int32_t *)args[0].tensor.data)[k] == k;
  ok(good, "GPU-bound and parallel loops run serially in order");
  tsl_args_free(args, 1);

  /* reduce domain [2, 6) with values k + 2: init runs at vk == 2 only.
   * Also a loop with a non-zero min. */
  const tsl_buffer *a = buf("A", TSL_INT32, 1, 8);
  const tsl_buffer *s = buf("S", TSL_INT32, 1, 1);
  const tsl_var *k = var("k"), *vk = var("vk");
  itv iv[1] = {R(vk, 4, ADD(V(k), I(2)))};
  iv[0].min = I(2);
  blkopt opt = {0};
  opt.init = store(s, I(1000), 1, I(0));
  const tsl_stmt *bl =
      blk("sum", 1, iv, store(s, ADD(ld(s, 1, I(0)), ld(a, 1, V(vk))), 1, I(0)),
          opt);
  tsl_attrs none = {0, NULL};
  tsl_param ps2[2] = {bparam(a), bparam(s)};
  f = func("rsum", 2, ps2,
           tsl_stmt_for(A, k, I(0), I(4), TSL_FOR_SERIAL, NULL, none, bl), 0,
           NULL);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  r = run(f, args, &d);
  const int32_t *x = args[0].tensor.data;
  ok(r == 0 && ((int32_t *)args[1].tensor.data)[0] ==
                   1000 + x[2] + x[3] + x[4] + x[5],
     "init runs once, when the reduce var is at its domain min (2)");
  tsl_args_free(args, 2);

  /* a loop with min 3 and extent 2 visits 3 and 4 */
  const tsl_var *q = var("q");
  const tsl_buffer *o8 = buf("O", TSL_INT32, 1, 8);
  tsl_param ps3[1] = {bparam(o8)};
  f = func("lmin", 1, ps3,
           tsl_stmt_for(A, q, I(3), I(2), TSL_FOR_SERIAL, NULL, none,
                        store(o8, I(9), 1, V(q))),
           0, NULL);
  tsl_func_make_args(f, NULL, 0, 1, args, &d);
  memset(args[0].tensor.data, 0, 32);
  r = run(f, args, &d);
  const int32_t *y = args[0].tensor.data;
  ok(r == 0 && y[2] == 0 && y[3] == 9 && y[4] == 9 && y[5] == 0,
     "loop var takes min .. min + extent - 1");
  tsl_args_free(args, 1);
}

int main(void) {
  irb_init();
  test_matmul();
  test_relu();
  test_softmax();
  test_predicate();
  test_alloc();
  test_strides();
  test_match_buffer();
  test_int_wrap();
  test_div_mod();
  test_float_rounding();
  test_casts();
  test_intrinsics();
  test_select_ifte_let();
  test_symbolic();
  test_errors();
  test_loops_init();
  irb_done();
  return tap_done();
}
