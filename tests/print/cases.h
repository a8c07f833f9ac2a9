/*
 * tests/print/cases.h — IR modules built with the ir.h builders, shared by
 * the printer golden test (test_print.c) and the print/parse round-trip test
 * (test_print_roundtrip.c). Each case returns a module in `a`.
 */
#ifndef TESSEL_TESTS_PRINT_CASES_H
#define TESSEL_TESTS_PRINT_CASES_H

#include "build_ir.h"

#include <math.h>

static inline tsl_module *bare_module(tsl_arena *a, const tsl_func *f) {
  const tsl_func *fs[1] = {f};
  return b_module(a, NULL, 1, 1, fs);
}
/* C = A x B^T with a reduction init, a root alloc, module form. */
static tsl_module *case_matmul(tsl_arena *a) {
  const tsl_buffer *A = b_buf(a, "A", TSL_FLOAT32, NULL, 2, 128, 128);
  const tsl_buffer *B = b_buf(a, "B", TSL_FLOAT32, NULL, 2, 128, 128);
  const tsl_buffer *C = b_buf(a, "C", TSL_FLOAT32, NULL, 2, 128, 128);
  const tsl_buffer *D = b_buf(a, "D", TSL_FLOAT32, NULL, 2, 128, 128);
  const tsl_var *i = tsl_var_new(a, "i", TSL_INT32);
  const tsl_var *j = tsl_var_new(a, "j", TSL_INT32);
  const tsl_var *k = tsl_var_new(a, "k", TSL_INT32);
  const tsl_var *vi = tsl_var_new(a, "vi", TSL_INT32);
  const tsl_var *vj = tsl_var_new(a, "vj", TSL_INT32);
  const tsl_var *vk = tsl_var_new(a, "vk", TSL_INT32);
  tsl_block *blk = b_block(a, "C");
  b_iter(a, blk, vi, TSL_ITER_SPATIAL, b_i(a, 0), b_i(a, 128));
  b_iter(a, blk, vj, TSL_ITER_SPATIAL, b_i(a, 0), b_i(a, 128));
  b_iter(a, blk, vk, TSL_ITER_REDUCE, b_i(a, 0), b_i(a, 128));
  E one = b_i(a, 1);
  b_reads(a, blk, 2, b_region(a, A, 2, b_v(vi), one, b_v(vk), one),
          b_region(a, B, 2, b_v(vj), one, b_v(vk), one));
  b_writes(a, blk, 1, b_region(a, C, 2, b_v(vi), one, b_v(vj), one));
  blk->init = b_store(a, C, b_f32(a, 0), 2, b_v(vi), b_v(vj));
  E prod = b_mul(a, b_load(a, A, 2, b_v(vi), b_v(vk)),
                 b_load(a, B, 2, b_v(vj), b_v(vk)));
  blk->body = b_store(a, C, b_add(a, b_load(a, C, 2, b_v(vi), b_v(vj)), prod),
                      2, b_v(vi), b_v(vj));
  S r = b_realize(a, blk, NULL, b_v(i), b_v(j), b_v(k));
  S loops = b_for(a, i, b_i(a, 0), b_i(a, 128),
                  b_for(a, j, b_i(a, 0), b_i(a, 128),
                        b_for(a, k, b_i(a, 0), b_i(a, 128), r)));
  tsl_param ps[3] = {b_bparam(a, A), b_bparam(a, B), b_bparam(a, C)};
  const tsl_buffer *allocs[1] = {D};
  tsl_func *f = b_func(a, "main", 3, ps, loops, 1, allocs);
  f->attrs = b_std_attrs(a, "main");
  const tsl_func *fs[1] = {f};
  return b_module(a, "Module", 0, 1, fs);
}

/* Two functions in one module, separated by a blank line. */
static tsl_module *case_two_funcs(tsl_arena *a) {
  const tsl_buffer *A = b_buf(a, "A", TSL_INT8, NULL, 1, 16);
  const tsl_var *i = tsl_var_new(a, "i", TSL_INT32);
  S body = b_for(a, i, b_i(a, 0), b_i(a, 16),
                 b_store(a, A, tsl_expr_int(a, TSL_INT8, 3), 1, b_v(i)));
  tsl_param ps[1] = {b_bparam(a, A)};
  tsl_func *f1 = b_func(a, "f", 1, ps, body, 0, NULL);
  tsl_func *f2 = b_func(a, "g", 1, ps, body, 0, NULL);
  const tsl_func *fs[2] = {f1, f2};
  return b_module(a, NULL, 0, 2, fs);
}

/* Loop kinds, annotations, non-zero mins, grid chain breaking. */
static tsl_module *case_loops(tsl_arena *a) {
  tsl_ctx *ctx = tsl_arena_ctx(a);
  const tsl_buffer *A = b_buf(a, "A", TSL_FLOAT32, NULL, 1, 1024);
  const tsl_var *v[12];
  const char *names[12] = {"i0", "i1", "i2", "i3", "i4", "i5",
                           "i6", "i7", "i8", "i9", "i10", "i11"};
  for (int k = 0; k < 12; k++)
    v[k] = tsl_var_new(a, names[k], TSL_INT32);
  tsl_attrs none = {0, NULL};
  tsl_attr ann_items[2] = {
      b_attr(a, "pragma_unroll", b_av_int(TSL_INT32, 1)),
      b_attr(a, "pragma_auto", b_av_int(TSL_INT64, 16))};
  tsl_attrs ann = tsl_attrs_make(a, 2, ann_items);
  S st = b_store(a, A, b_f32(a, 1), 1, b_v(v[1]));
  S l_vec = tsl_stmt_for(a, v[1], b_i(a, 0), b_i(a, 4), TSL_FOR_VECTORIZED, NULL,
                         none, st);
  S l_unr = tsl_stmt_for(a, v[2], b_i(a, 0), b_i(a, 4), TSL_FOR_UNROLLED, NULL,
                         none, l_vec);
  S l_par = tsl_stmt_for(a, v[3], b_i(a, 2), b_i(a, 8), TSL_FOR_PARALLEL, NULL,
                         none, l_unr);
  S l_thr = tsl_stmt_for(a, v[4], b_i(a, 0), b_i(a, 128),
                         TSL_FOR_THREAD_BINDING, tsl_intern(ctx, "threadIdx.x"),
                         none, l_par);
  S l_ann = tsl_stmt_for(a, v[5], b_i(a, 0), b_i(a, 128), TSL_FOR_SERIAL, NULL,
                         ann, l_thr);
  S l_min = b_for(a, v[6], b_i(a, 2), b_i(a, 8), l_ann);
  /* grid chain: i7, i8 perfectly nested; i9 extent uses i8 -> breaks */
  S l9 = b_for(a, v[9], b_i(a, 0), b_v(v[8]), l_min);
  S l8 = b_for(a, v[8], b_i(a, 0), b_i(a, 16), l9);
  S l7 = b_for(a, v[7], b_i(a, 0), b_i(a, 16), l8);
  /* a loop over a var min, and a thread binding with min */
  S l11 = tsl_stmt_for(a, v[11], b_i(a, 1), b_i(a, 31), TSL_FOR_THREAD_BINDING,
                       tsl_intern(ctx, "blockIdx.x"), ann,
                       b_store(a, A, b_f32(a, 2), 1, b_v(v[11])));
  S l10 = b_for(a, v[10], b_v(v[7]), b_i(a, 4), l11);
  S body = b_seq(a, 2, l7, b_for(a, v[7], b_i(a, 0), b_i(a, 4), l10));
  tsl_param ps[1] = {b_bparam(a, A)};
  return bare_module(a, b_func(a, "main", 1, ps, body, 0, NULL));
}

/* Axis forms: remap vs spatial/reduce/scan/opaque, dom with min, T.where,
 * slices in regions, block allocs with scopes, block_attr, match_buffer. */
static tsl_module *case_blocks(tsl_arena *a) {
  tsl_ctx *ctx = tsl_arena_ctx(a);
  const tsl_buffer *A = b_buf(a, "A", TSL_FLOAT32, NULL, 2, 64, 64);
  const tsl_buffer *B = b_buf(a, "B", TSL_FLOAT32, NULL, 1, 64);
  const tsl_buffer *Sh = b_buf(a, "A_shared", TSL_FLOAT32, "shared", 2, 16, 16);
  const tsl_buffer *L = b_buf(a, "acc", TSL_INT32, "local", 1, 4);
  const tsl_var *io = tsl_var_new(a, "io", TSL_INT32);
  const tsl_var *ii = tsl_var_new(a, "ii", TSL_INT32);
  const tsl_var *j = tsl_var_new(a, "j", TSL_INT32);
  const tsl_var *vi = tsl_var_new(a, "vi", TSL_INT32);
  const tsl_var *vj = tsl_var_new(a, "vj", TSL_INT32);
  const tsl_var *vs = tsl_var_new(a, "vs", TSL_INT32);
  const tsl_var *vo = tsl_var_new(a, "vo", TSL_INT32);
  E one = b_i(a, 1);

  /* block "X": vi = spatial(64, io * 16 + ii); vj = reduce((2, 62), j)... */
  tsl_block *x = b_block(a, "X");
  b_iter(a, x, vi, TSL_ITER_SPATIAL, b_i(a, 0), b_i(a, 64));
  b_iter(a, x, vj, TSL_ITER_REDUCE, b_i(a, 2), b_i(a, 60));
  b_iter(a, x, vs, TSL_ITER_SCAN, b_i(a, 0), b_i(a, 4));
  b_iter(a, x, vo, TSL_ITER_OPAQUE, b_i(a, 0), b_i(a, 4));
  E vi16 = b_mul(a, tsl_expr_binary(a, TSL_EXPR_FLOORDIV, b_v(vi), b_i(a, 16)),
                 b_i(a, 16));
  b_reads(a, x, 2, b_region(a, A, 2, vi16, b_i(a, 16), b_i(a, 0), b_i(a, 64)),
          b_region(a, B, 1, b_v(vj), one));
  b_writes(a, x, 1, b_region(a, B, 1, b_v(vi), one));
  b_allocs(a, x, 2, Sh, L);
  tsl_attr ba[1] = {b_attr(a, "meta_schedule.tiling_structure",
                           b_av_str(a, "SSRSRS"))};
  x->annotations = tsl_attrs_make(a, 1, ba);
  const tsl_buffer *sub = b_buf(a, "A_sub", TSL_FLOAT32, NULL, 1, 16);
  tsl_match_buffer *mb = TSL_NEW(a, tsl_match_buffer);
  mb->buffer = sub;
  mb->source = b_region(a, A, 2, b_v(vi), one, b_i(a, 0), b_i(a, 16));
  x->match_buffers = mb;
  x->n_match_buffers = 1;
  x->body = b_store(a, B, b_load(a, sub, 1, b_v(vj)), 1, b_v(vi));
  E bind_i = b_add(a, b_mul(a, b_v(io), b_i(a, 16)), b_v(ii));
  E pred = b_bin(a, TSL_EXPR_LT, bind_i, b_i(a, 60));
  S r = b_realize(a, x, pred, bind_i, b_v(j), b_i(a, 0), b_i(a, 1));
  S loops = b_for(a, io, b_i(a, 0), b_i(a, 4),
                  b_for(a, ii, b_i(a, 0), b_i(a, 16),
                        b_for(a, j, b_i(a, 0), b_i(a, 60), r)));

  /* block "Y": remap impossible because dom extent differs from loop extent
   * (8 vs 64) and one iter var only -> spatial form. */
  tsl_block *y = b_block(a, "Y");
  const tsl_var *vy = tsl_var_new(a, "vy", TSL_INT32);
  const tsl_var *vz = tsl_var_new(a, "vz", TSL_INT32);
  const tsl_var *yi = tsl_var_new(a, "yi", TSL_INT32);
  const tsl_var *yj = tsl_var_new(a, "yj", TSL_INT32);
  b_iter(a, y, vy, TSL_ITER_SPATIAL, b_i(a, 0), b_i(a, 8));
  b_iter(a, y, vz, TSL_ITER_SPATIAL, b_i(a, 0), b_i(a, 64));
  b_reads(a, y, 0);
  b_writes(a, y, 1, b_region(a, A, 2, b_v(vy), one, b_v(vz), one));
  y->body = b_store(a, A, b_f32(a, 0.5), 2, b_v(vy), b_v(vz));
  S ry = b_realize(a, y, NULL, b_v(yi), b_v(yj));
  S ly = b_for(a, yi, b_i(a, 0), b_i(a, 64),
               b_for(a, yj, b_i(a, 0), b_i(a, 64), ry));

  /* block "Z": no iter vars at all */
  tsl_block *z = b_block(a, "Z");
  b_reads(a, z, 1, b_region(a, A, 2, b_i(a, 0), b_i(a, 64), b_v(j), b_i(a, 2)));
  b_writes(a, z, 0);
  z->body = tsl_stmt_evaluate(a, b_i(a, 0));
  S rz = b_realize(a, z, NULL);
  S lz = b_for(a, j, b_i(a, 0), b_i(a, 4), rz);
  (void)ctx;

  tsl_param ps[2] = {b_bparam(a, A), b_bparam(a, B)};
  return bare_module(a, b_func(a, "main", 2, ps, b_seq(a, 3, loops, ly, lz), 0,
                               NULL));
}

/* T.axis.remap over thread-bound loops. */
static tsl_module *case_remap(tsl_arena *a) {
  tsl_ctx *ctx = tsl_arena_ctx(a);
  const tsl_buffer *A = b_buf(a, "A", TSL_FLOAT32, NULL, 2, 32, 8);
  const tsl_var *bx = tsl_var_new(a, "bx", TSL_INT32);
  const tsl_var *tx = tsl_var_new(a, "tx", TSL_INT32);
  const tsl_var *v0 = tsl_var_new(a, "v0", TSL_INT32);
  const tsl_var *v1 = tsl_var_new(a, "v1", TSL_INT32);
  tsl_attrs none = {0, NULL};
  tsl_block *blk = b_block(a, "B");
  b_iter(a, blk, v0, TSL_ITER_SPATIAL, b_i(a, 0), b_i(a, 32));
  b_iter(a, blk, v1, TSL_ITER_REDUCE, b_i(a, 0), b_i(a, 8));
  b_reads(a, blk, 0);
  b_writes(a, blk, 1, b_region(a, A, 2, b_v(v0), b_i(a, 1), b_v(v1), b_i(a, 1)));
  blk->body = b_store(a, A, b_f32(a, 0), 2, b_v(v0), b_v(v1));
  S r = b_realize(a, blk, NULL, b_v(bx), b_v(tx));
  S body = tsl_stmt_for(
      a, bx, b_i(a, 0), b_i(a, 32), TSL_FOR_THREAD_BINDING,
      tsl_intern(ctx, "blockIdx.x"), none,
      tsl_stmt_for(a, tx, b_i(a, 0), b_i(a, 8), TSL_FOR_THREAD_BINDING,
                   tsl_intern(ctx, "threadIdx.x"), none, r));
  tsl_param ps[1] = {b_bparam(a, A)};
  return bare_module(a, b_func(a, "main", 1, ps, body, 0, NULL));
}

/* Symbolic shapes, scalar params, explicit root, func_attr value kinds. */
static tsl_module *case_symbolic(tsl_arena *a) {
  const tsl_var *m = tsl_var_new(a, "m", TSL_INT64);
  const tsl_var *n = tsl_var_new(a, "n", TSL_INT32);
  const tsl_var *k = tsl_var_new(a, "k", TSL_INT32); /* scalar param */
  E shapeA[2] = {tsl_expr_int(a, TSL_INT64, 1), b_v(m)};
  const tsl_buffer *A = tsl_buffer_new(a, "A", TSL_FLOAT32, 2, shapeA, NULL,
                                       NULL, NULL, 0, 0);
  E shapeB[2] = {b_v(n), b_v(k)};
  const tsl_buffer *B = tsl_buffer_new(a, "B", TSL_INT32, 2, shapeB, NULL, NULL,
                                       NULL, 0, 0);
  E shapeC[1] = {b_i(a, 8)};
  E strC[1] = {b_i(a, 2)};
  const tsl_buffer *C = tsl_buffer_new(a, "C", TSL_FLOAT16, 1, shapeC, strC,
                                       b_i(a, 4), "global", 64, 8);
  const tsl_var *i = tsl_var_new(a, "i", TSL_INT64);
  S body = b_for(a, i, tsl_expr_int(a, TSL_INT64, 0), b_v(m),
                 b_store(a, A, b_f32(a, 0), 2, tsl_expr_int(a, TSL_INT64, 0),
                         b_v(i)));
  /* explicit root: give it reads/writes and an annotation */
  tsl_block *root = b_block(a, "root");
  b_reads(a, root, 0);
  b_writes(a, root, 1,
           b_region(a, A, 2, tsl_expr_int(a, TSL_INT64, 0),
                    tsl_expr_int(a, TSL_INT64, 1), tsl_expr_int(a, TSL_INT64, 0),
                    b_v(m)));
  tsl_attr ra[1] = {b_attr(a, "note", b_av_str(a, "x"))};
  root->annotations = tsl_attrs_make(a, 1, ra);
  root->body = body;
  tsl_func *f = TSL_NEW(a, tsl_func);
  f->name = tsl_intern(tsl_arena_ctx(a), "sym");
  tsl_param ps[4] = {b_bparam(a, A), b_bparam(a, B), {k, NULL},
                     {tsl_var_new(a, "c", TSL_HANDLE), C}};
  f->n_params = 4;
  f->params = tsl_arena_dup(a, ps, sizeof ps);
  f->body = tsl_stmt_block_realize(a, 0, NULL, NULL, root);

  /* func_attr with every kind of value */
  tsl_attr_value list_items[3] = {b_av_int(TSL_INT32, 1), b_av_str(a, "two"),
                                  b_av_bool(0)};
  tsl_attr_value lst;
  memset(&lst, 0, sizeof lst);
  lst.kind = TSL_ATTR_LIST;
  lst.n = 3;
  lst.u.items = tsl_arena_dup(a, list_items, sizeof list_items);
  tsl_attr inner[1] = {b_attr(a, "k", b_av_int(TSL_INT32, -3))};
  tsl_attr_value dict;
  memset(&dict, 0, sizeof dict);
  dict.kind = TSL_ATTR_DICT;
  dict.u.dict = tsl_attrs_make(a, 1, inner);
  tsl_attr_value fl;
  memset(&fl, 0, sizeof fl);
  fl.kind = TSL_ATTR_FLOAT;
  fl.dtype = TSL_FLOAT32;
  fl.u.f = 2.0;
  tsl_attr_value fl64 = fl;
  fl64.dtype = TSL_FLOAT64;
  fl64.u.f = 0.25;
  tsl_attr_value ex;
  memset(&ex, 0, sizeof ex);
  ex.kind = TSL_ATTR_EXPR;
  ex.u.expr = tsl_expr_call_extern(a, TSL_INT32,
                                   tsl_intern(tsl_arena_ctx(a), "cfg"), 0, NULL);
  tsl_attr fa[9] = {
      b_attr(a, "global_symbol", b_av_str(a, "sym\"q\\")),
      b_attr(a, "i", b_av_int(TSL_INT32, 7)),
      b_attr(a, "i64", b_av_int(TSL_INT64, 1LL << 40)),
      b_attr(a, "f", fl),
      b_attr(a, "f64", fl64),
      b_attr(a, "b", b_av_bool(1)),
      b_attr(a, "l", lst),
      b_attr(a, "d", dict),
      b_attr(a, "e", ex),
  };
  f->attrs = tsl_attrs_make(a, 9, fa);
  return bare_module(a, f);
}

/* if/else, nested if in else, let (tail and non-tail), evaluate, extern. */
static tsl_module *case_stmts(tsl_arena *a, const tsl_stmt **body_out) {
  tsl_ctx *ctx = tsl_arena_ctx(a);
  const tsl_buffer *A = b_buf(a, "A", TSL_FLOAT32, NULL, 1, 16);
  const tsl_var *i = tsl_var_new(a, "i", TSL_INT32);
  const tsl_var *x = tsl_var_new(a, "x", TSL_INT32);
  const tsl_var *y = tsl_var_new(a, "y", TSL_FLOAT32);
  E iv = b_v(i);
  S inner_if = tsl_stmt_if(a, b_bin(a, TSL_EXPR_EQ, iv, b_i(a, 3)),
                           b_store(a, A, b_f32(a, 3), 1, iv), NULL);
  S ifs = tsl_stmt_if(a, b_bin(a, TSL_EXPR_LT, iv, b_i(a, 2)),
                      b_store(a, A, b_f32(a, 1), 1, iv), inner_if);
  E ext_args[2] = {b_v(x), b_f32(a, 1.5)};
  S ev = tsl_stmt_evaluate(
      a, tsl_expr_call_extern(a, TSL_FLOAT32, tsl_intern(ctx, "my_fn"), 2,
                              ext_args));
  S let_tail = tsl_stmt_let(a, y, tsl_expr_cast(a, TSL_FLOAT32, b_v(x)),
                            b_store(a, A, b_v(y), 1, b_v(x)));
  S let_x = tsl_stmt_let(a, x, b_add(a, iv, b_i(a, 1)), b_seq(a, 2, ev, let_tail));
  /* a let that is not the last statement of its list */
  const tsl_var *z = tsl_var_new(a, "z", TSL_INT32);
  S let_mid = tsl_stmt_let(a, z, b_i(a, 5), b_store(a, A, b_f32(a, 0), 1, b_v(z)));
  S body = b_for(a, i, b_i(a, 0), b_i(a, 16),
                 b_seq(a, 3, ifs, let_mid, let_x));
  if (body_out)
    *body_out = body;
  tsl_param ps[1] = {b_bparam(a, A)};
  return bare_module(a, b_func(a, "main", 1, ps, body, 0, NULL));
}

/* Name collisions and sanitizing. */
static tsl_module *case_names(tsl_arena *a) {
  /* two params named A; a loop var shadowing an outer loop var of the same
   * name; a var named like a buffer; bad identifiers; keywords; T. */
  const tsl_buffer *A1 = b_buf(a, "A", TSL_FLOAT32, NULL, 1, 8);
  const tsl_buffer *A2 = b_buf(a, "A", TSL_FLOAT32, NULL, 1, 8);
  const tsl_buffer *Tb = b_buf(a, "T", TSL_FLOAT32, NULL, 1, 8);
  const tsl_buffer *dot = b_buf(a, "x.y", TSL_FLOAT32, NULL, 1, 8);
  const tsl_var *i_out = tsl_var_new(a, "i", TSL_INT32);
  const tsl_var *i_in = tsl_var_new(a, "i", TSL_INT32);
  const tsl_var *lam = tsl_var_new(a, "lambda", TSL_INT32);
  const tsl_var *va = tsl_var_new(a, "A", TSL_INT32);
  const tsl_var *dig = tsl_var_new(a, "0k", TSL_INT32);
  const tsl_var *i1 = tsl_var_new(a, "i_1", TSL_INT32);
  S st = b_store(a, A2,
                 b_add(a, b_load(a, A1, 1, b_v(i_out)),
                       b_load(a, Tb, 1, b_v(i_in))),
                 1, b_v(va));
  st = b_seq(a, 2, st, b_store(a, dot, b_f32(a, 0), 1, b_add(a, b_v(lam), b_v(dig))));
  S body = b_for(
      a, i_out, b_i(a, 0), b_i(a, 8),
      b_seq(a, 2, b_store(a, A1, b_f32(a, 1), 1, b_v(i_out)),
            b_for(a, i_in, b_i(a, 0), b_i(a, 8),
                  b_for(a, i1, b_i(a, 0), b_i(a, 2),
                        b_for(a, lam, b_i(a, 0), b_i(a, 2),
                              b_for(a, va, b_i(a, 0), b_i(a, 2),
                                    b_for(a, dig, b_i(a, 0), b_i(a, 2),
                                          b_seq(a, 2, st,
                                                b_store(a, A1, b_f32(a, 2), 1,
                                                        b_v(i1))))))))));
  /* a sibling loop reusing the name "i" (a third var) prints plainly */
  const tsl_var *i_sib = tsl_var_new(a, "i", TSL_INT32);
  body = b_seq(a, 2, body,
               b_for(a, i_sib, b_i(a, 0), b_i(a, 8),
                     b_store(a, A2, b_f32(a, 0), 1, b_v(i_sib))));
  tsl_param ps[4] = {b_bparam(a, A1), b_bparam(a, A2), b_bparam(a, Tb),
                     b_bparam(a, dot)};
  return bare_module(a, b_func(a, "main", 4, ps, body, 0, NULL));
}

/* Handle parameters: var_ prefix when named like the buffer. */
static tsl_module *case_handles(tsl_arena *a) {
  /* handle param named like its buffer gets var_ prefix; a distinct
   * handle name is kept */
  const tsl_var *s = tsl_var_new(a, "s", TSL_INT32);
  E sh[1] = {b_v(s)};
  const tsl_buffer *X = tsl_buffer_new(a, "X", TSL_FLOAT32, 1, sh, NULL, NULL,
                                       NULL, 0, 0);
  const tsl_buffer *Y = tsl_buffer_new(a, "Y", TSL_FLOAT32, 1, sh, NULL, NULL,
                                       NULL, 0, 0);
  tsl_param hp[2] = {b_bparam(a, X), {tsl_var_new(a, "y", TSL_HANDLE), Y}};
  return bare_module(a, b_func(a, "f", 2, hp, tsl_stmt_evaluate(a, b_i(a, 0)),
                                      0, NULL));
}

/* Every expression form the printer writes, stored into typed buffers. */
static tsl_module *case_exprs(tsl_arena *a) {
  tsl_ctx *ctx = tsl_arena_ctx(a);
  const tsl_buffer *F = b_buf(a, "F", TSL_FLOAT32, NULL, 1, 64);
  const tsl_buffer *I = b_buf(a, "I", TSL_INT32, NULL, 1, 64);
  const tsl_buffer *L = b_buf(a, "L", TSL_INT64, NULL, 1, 4);
  const tsl_buffer *C8 = b_buf(a, "C8", TSL_INT8, NULL, 1, 4);
  const tsl_buffer *U8 = b_buf(a, "U8", TSL_UINT8, NULL, 1, 4);
  const tsl_buffer *H = b_buf(a, "H", TSL_FLOAT16, NULL, 1, 4);
  const tsl_buffer *Bb = b_buf(a, "Bb", TSL_BOOL, NULL, 1, 4);
#define LD(buf, k) b_load(a, buf, 1, b_i(a, k))
#define ST(buf, k, v) b_store(a, buf, v, 1, b_i(a, k))
#define BIN(k, l, r) b_bin(a, TSL_EXPR_##k, l, r)
#define NEG(x) tsl_expr_unary(a, TSL_EXPR_NEG, x)
#define NOT(x) tsl_expr_unary(a, TSL_EXPR_NOT, x)
  E f0 = LD(F, 0), f1 = LD(F, 1), f2 = LD(F, 2);
  E i0 = LD(I, 0), i1 = LD(I, 1), i2 = LD(I, 2), i3 = LD(I, 3);
  E pow_args[2] = {f1, b_f32(a, 2)};
  E exp_args[1] = {f0};
  E ext_args[2] = {f0, b_i(a, 1)};
  S st[32];
  int n = 0;
  st[n++] = ST(F, 0, BIN(SUB, f1, BIN(SUB, f2, f1)));
  st[n++] = ST(F, 1, BIN(DIV, f0, BIN(MUL, f1, f2)));
  st[n++] = ST(F, 2, NEG(BIN(ADD, f0, f1)));
  st[n++] = ST(F, 3, tsl_expr_select(a, BIN(LT, i0, i1), f0, f1));
  st[n++] = ST(F, 4, tsl_expr_if_then_else(a, BIN(EQ, BIN(LT, i0, i1),
                                                  BIN(LT, i2, i3)),
                                          f0, b_f32(a, INFINITY)));
  st[n++] = ST(F, 5, BIN(ADD, tsl_expr_cast(a, TSL_FLOAT32, i0),
                         b_f32(a, -INFINITY)));
  st[n++] = ST(F, 6, BIN(ADD, BIN(MUL, tsl_expr_call(a, TSL_INTRIN_EXP,
                                                     TSL_FLOAT32, 1, exp_args),
                                  tsl_expr_call(a, TSL_INTRIN_POW, TSL_FLOAT32,
                                                2, pow_args)),
                         b_f32(a, NAN)));
  st[n++] = ST(F, 7, tsl_expr_call_extern(a, TSL_FLOAT32,
                                          tsl_intern(ctx, "ext"), 2, ext_args));
  st[n++] = ST(F, 8, BIN(ADD, BIN(ADD, b_f32(a, -0.0), b_f32(a, 1e-05)),
                         b_f32(a, 3.4028234663852886e+38)));
  st[n++] = ST(F, 9, BIN(MUL, NEG(f0), NEG(BIN(ADD, f1, b_f32(a, 0.5)))));
  st[n++] = ST(F, 10, BIN(MUL, b_f32(a, -NAN), f0));
  st[n++] = ST(I, 0, BIN(ADD, BIN(DIV, i1, i2), BIN(MOD, i1, BIN(ADD, i2, i3))));
  st[n++] = ST(I, 1, BIN(FLOORMOD, BIN(FLOORDIV, i0, BIN(MUL, i1, i2)), i3));
  st[n++] = ST(I, 2, BIN(SUB, BIN(SUB, BIN(MIN, i0, b_i(a, -1)), BIN(MAX, i1, i2)),
                         b_i(a, -4)));
  st[n++] = ST(I, 3, tsl_expr_select(
                         a, BIN(OR, NOT(BIN(AND, BIN(LT, i0, b_i(a, 1)),
                                               BIN(GT, i1, b_i(a, 2)))),
                                BIN(NE, i2, b_i(a, 3))),
                         b_i(a, 1), b_i(a, 0)));
  st[n++] = ST(I, 4, BIN(SUB, BIN(MUL, b_i(a, -2), i0), BIN(SUB, i1, i2)));
  st[n++] = ST(L, 0, BIN(ADD, LD(L, 1), tsl_expr_int(a, TSL_INT64, 5)));
  st[n++] = ST(C8, 0, BIN(ADD, LD(C8, 1), tsl_expr_int(a, TSL_INT8, -3)));
  st[n++] = ST(U8, 0, tsl_expr_int(a, TSL_UINT8, 255));
  st[n++] = ST(H, 0, BIN(MUL, LD(H, 1), tsl_expr_float(a, TSL_FLOAT16, 0.5)));
  st[n++] = ST(Bb, 0, tsl_expr_bool(a, 1));
  st[n++] = ST(Bb, 1, BIN(AND, LD(Bb, 0), BIN(AND, LD(Bb, 1), NOT(LD(Bb, 2)))));
  st[n++] = ST(Bb, 2, BIN(EQ, LD(Bb, 0), BIN(LE, i0, i1)));
  E ramp = tsl_expr_ramp(a, b_i(a, 16), b_i(a, 1), 4);
  st[n++] = tsl_stmt_store(a, F, tsl_expr_broadcast(a, b_f32(a, 0.25), 4), 1,
                           &ramp);
  st[n++] = tsl_stmt_evaluate(a, tsl_expr_call_extern(
                                     a, TSL_INT32, tsl_intern(ctx, "side_effect"),
                                     0, NULL));
#undef LD
#undef ST
#undef BIN
#undef NEG
#undef NOT
  tsl_param ps[7] = {b_bparam(a, F),  b_bparam(a, I), b_bparam(a, L),
                     b_bparam(a, C8), b_bparam(a, U8), b_bparam(a, H),
                     b_bparam(a, Bb)};
  return bare_module(a, b_func(a, "main", 7, ps, tsl_stmt_seq(a, (uint32_t)n, st),
                               0, NULL));
}

/* A buffer and the symbolic variable of its shape share a name. */
static tsl_module *case_shared_names(tsl_arena *a) {
  const tsl_var *n = tsl_var_new(a, "n", TSL_INT32);
  E shape[1] = {b_v(n)};
  const tsl_buffer *A = tsl_buffer_new(a, "n", TSL_FLOAT32, 1, shape, NULL, NULL,
                                       NULL, 0, 0);
  const tsl_var *i = tsl_var_new(a, "i", TSL_INT32);
  S body = b_for(a, i, b_i(a, 0), b_v(n),
                 b_store(a, A, b_f32(a, 1), 1,
                         tsl_expr_binary(a, TSL_EXPR_MIN, b_v(i), b_v(n))));
  tsl_param ps[1] = {{tsl_var_new(a, "a", TSL_HANDLE), A}};
  return bare_module(a, b_func(a, "main", 1, ps, body, 0, NULL));
}

typedef struct print_case {
  const char *name;
  tsl_module *(*build)(tsl_arena *a);
} print_case;

static inline tsl_module *case_stmts_mod(tsl_arena *a) { return case_stmts(a, NULL); }

static const print_case print_cases[] = {
    {"matmul", case_matmul},   {"two_funcs", case_two_funcs},
    {"loops", case_loops},     {"blocks", case_blocks},
    {"remap", case_remap},     {"symbolic", case_symbolic},
    {"stmts", case_stmts_mod}, {"names", case_names},
    {"handles", case_handles}, {"exprs", case_exprs},
    {"shared_names", case_shared_names},
};

#endif /* TESSEL_TESTS_PRINT_CASES_H */
