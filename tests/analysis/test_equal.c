/*
 * Structural equality and hashing tests on programs built with the ir.h
 * builders: alpha-renaming, canonical index forms, what is and is not
 * compared, the path in `why`, bijectivity, and hash agreement.
 */
#include "tap.h"
#include "tutil.h"

static tsl_ctx *ctx;
static tsl_arena *A;

/* ---- a parameterised program ----------------------------------------- */

typedef struct prog_opts {
  const char *sfx;        /* appended to every var and buffer name */
  int64_t ext_i;          /* extent of loop i (and the n dimension) */
  const char *block_name; /* the update block */
  tsl_dtype a_dtype;      /* dtype of A */
  int64_t b_cols;         /* columns of B (normally 128) */
  const char *d_scope;    /* scope of the alloc'ed D */
  int idx_form;           /* D's store index: 0 vi*128+vj, 1 vj+vi*128, 2 (vi+1)*128+vj-128 */
  int a_index_bug;        /* A[vi, vi] instead of A[vi, vk] */
  int swap_c;             /* C[vj, vi] in the flat block */
  int symbolic;           /* A is (n, 128) with a symbolic n; 2: (n, n') */
  const char *gsym;       /* global_symbol value */
  int64_t noalias;        /* tir.noalias attribute value */
  int64_t unroll;         /* loop annotation on j (0: none) */
  int reuse_loop_var;     /* inner loop j reuses the var of loop i */
  tsl_dtype ext_dtype;    /* dtype of the i extent constant */
  int iter_type_k;        /* iter type of vk */
} prog_opts;

static prog_opts defaults(void) {
  prog_opts o = {"", 128, "update", TSL_FLOAT32, 128, "global", 0, 0, 0, 0,
                 "main", 1, 0, 0, TSL_INT32, TSL_ITER_REDUCE};
  return o;
}

static const tsl_var *V(const prog_opts *o, const char *base, tsl_dtype t) {
  char name[64];
  snprintf(name, sizeof name, "%s%s", base, o->sfx);
  return tsl_var_new(A, name, t);
}

static const tsl_buffer *BUF(const prog_opts *o, const char *base, tsl_dtype t,
                             uint32_t nd, const tsl_expr *const *shape,
                             const char *scope) {
  char name[64];
  snprintf(name, sizeof name, "%s%s", base, o->sfx);
  return tsl_buffer_new(A, name, t, nd, shape, NULL, NULL, scope, 0, 0);
}

#define I32(v) tsl_expr_i32(A, v)
#define EV(v) tsl_expr_var(v)
#define BIN(k, x, y) tsl_expr_binary(A, TSL_EXPR_##k, x, y)

static tsl_buffer_region region(const tsl_buffer *b, uint32_t n,
                                const tsl_expr *const *mins) {
  tsl_range *r = TSL_NEW_ARRAY(A, tsl_range, n);
  for (uint32_t i = 0; i < n; i++) {
    r[i].min = mins[i];
    r[i].extent = I32(1);
  }
  tsl_buffer_region reg = {b, n, r};
  return reg;
}

static tsl_attrs no_attrs(void) {
  tsl_attrs a = {0, NULL};
  return a;
}

static const tsl_stmt *loop(const tsl_var *v, const tsl_expr *ext,
                            const tsl_stmt *body, tsl_attrs ann) {
  return tsl_stmt_for(A, v, I32(0), ext, TSL_FOR_SERIAL, NULL, ann, body);
}

static const tsl_module *build(const prog_opts *o) {
  tsl_ctx *c = tsl_arena_ctx(A);
  /* params */
  const tsl_var *n = V(o, "n", TSL_INT32), *n2 = V(o, "n2", TSL_INT32);
  const tsl_expr *sa[2] = {o->symbolic ? EV(n) : I32(o->ext_i),
                           o->symbolic == 2 ? EV(n2) : o->symbolic ? EV(n) : I32(128)};
  const tsl_expr *sb[2] = {I32(128), I32(o->b_cols)};
  const tsl_expr *sc[2] = {I32(o->ext_i), I32(128)};
  const tsl_buffer *Ab = BUF(o, "A", o->a_dtype, 2, sa, NULL);
  const tsl_buffer *Bb = BUF(o, "B", TSL_FLOAT32, 2, sb, NULL);
  const tsl_buffer *Cb = BUF(o, "C", TSL_FLOAT32, 2, sc, NULL);
  const tsl_expr *sd[1] = {I32(o->ext_i * 128)};
  const tsl_buffer *Db = BUF(o, "D", TSL_FLOAT32, 1, sd, o->d_scope);
  tsl_param *params = TSL_NEW_ARRAY(A, tsl_param, 3);
  params[0].var = V(o, "a", TSL_HANDLE);
  params[0].buffer = Ab;
  params[1].var = V(o, "b", TSL_HANDLE);
  params[1].buffer = Bb;
  params[2].var = V(o, "c", TSL_HANDLE);
  params[2].buffer = Cb;

  /* update block */
  const tsl_var *i = V(o, "i", TSL_INT32), *j = V(o, "j", TSL_INT32),
                *k = V(o, "k", TSL_INT32);
  if (o->reuse_loop_var)
    j = i;
  const tsl_var *vi = V(o, "vi", TSL_INT32), *vj = V(o, "vj", TSL_INT32),
                *vk = V(o, "vk", TSL_INT32);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(A, tsl_iter_var, 3);
  tsl_range d128 = {I32(0), I32(128)}, di = {I32(0), I32(o->ext_i)};
  ivs[0] = (tsl_iter_var){vi, di, TSL_ITER_SPATIAL};
  ivs[1] = (tsl_iter_var){vj, d128, TSL_ITER_SPATIAL};
  ivs[2] = (tsl_iter_var){vk, d128, (uint32_t)o->iter_type_k};
  const tsl_expr *ia[2] = {EV(vi), o->a_index_bug ? EV(vi) : EV(vk)};
  const tsl_expr *ib[2] = {EV(vk), EV(vj)};
  const tsl_expr *ic[2] = {EV(vi), EV(vj)};
  tsl_buffer_region *reads = TSL_NEW_ARRAY(A, tsl_buffer_region, 2);
  reads[0] = region(Ab, 2, ia);
  reads[1] = region(Bb, 2, ib);
  tsl_buffer_region *writes = TSL_NEW_ARRAY(A, tsl_buffer_region, 1);
  writes[0] = region(Cb, 2, ic);
  const tsl_expr *lc = tsl_expr_load(A, Cb, 2, ic);
  const tsl_expr *prod = BIN(MUL, tsl_expr_load(A, Ab, 2, ia), tsl_expr_load(A, Bb, 2, ib));
  tsl_block *ub = TSL_NEW(A, tsl_block);
  ub->name = tsl_intern(c, o->block_name);
  ub->n_iter_vars = 3;
  ub->iter_vars = ivs;
  ub->n_reads = 2;
  ub->reads = reads;
  ub->n_writes = 1;
  ub->writes = writes;
  ub->init = tsl_stmt_store(A, Cb, tsl_expr_float(A, TSL_FLOAT32, 0.0), 2, ic);
  ub->body = tsl_stmt_store(A, Cb, BIN(ADD, lc, prod), 2, ic);
  const tsl_expr *vals[3] = {EV(i), EV(j), EV(k)};
  const tsl_stmt *realize = tsl_stmt_block_realize(A, 3, vals, NULL, ub);
  tsl_attrs jann = no_attrs();
  if (o->unroll) {
    tsl_attr at = {tsl_intern(c, "pragma_auto_unroll_max_step"),
                   {TSL_ATTR_INT, 0, TSL_INT32, {.i = o->unroll}}};
    jann = tsl_attrs_make(A, 1, &at);
  }
  const tsl_stmt *nest =
      loop(i, tsl_expr_int(A, o->ext_dtype, o->ext_i),
           loop(j, I32(128), loop(k, I32(128), realize, no_attrs()), jann),
           no_attrs());

  /* flat block: D[vf] = C[vf // 128, vf % 128] ; then a second store into
   * D with the chosen index form */
  const tsl_var *f = V(o, "f", TSL_INT32), *vf = V(o, "vf", TSL_INT32);
  tsl_iter_var *fiv = TSL_NEW_ARRAY(A, tsl_iter_var, 1);
  fiv[0] = (tsl_iter_var){vf, {I32(0), I32(o->ext_i * 128)}, TSL_ITER_SPATIAL};
  const tsl_expr *q = BIN(FLOORDIV, EV(vf), I32(128)), *r = BIN(FLOORMOD, EV(vf), I32(128));
  const tsl_expr *cidx[2] = {o->swap_c ? r : q, o->swap_c ? q : r};
  const tsl_expr *didx;
  const tsl_expr *qi = q, *ri = r;
  if (o->idx_form == 0)
    didx = BIN(ADD, BIN(MUL, qi, I32(128)), ri);
  else if (o->idx_form == 1)
    didx = BIN(ADD, ri, BIN(MUL, qi, I32(128)));
  else
    didx = BIN(SUB, BIN(ADD, BIN(MUL, BIN(ADD, qi, I32(1)), I32(128)), ri), I32(128));
  tsl_block *fb = TSL_NEW(A, tsl_block);
  fb->name = tsl_intern(c, "flat");
  fb->n_iter_vars = 1;
  fb->iter_vars = fiv;
  tsl_buffer_region *fr = TSL_NEW_ARRAY(A, tsl_buffer_region, 1);
  tsl_range *frr = TSL_NEW_ARRAY(A, tsl_range, 2);
  frr[0] = (tsl_range){q, I32(1)};
  frr[1] = (tsl_range){r, I32(1)};
  fr[0] = (tsl_buffer_region){Cb, 2, frr};
  fb->n_reads = 1;
  fb->reads = fr;
  tsl_buffer_region *fw = TSL_NEW_ARRAY(A, tsl_buffer_region, 1);
  const tsl_expr *fwi[1] = {EV(vf)};
  fw[0] = region(Db, 1, fwi);
  fb->n_writes = 1;
  fb->writes = fw;
  const tsl_stmt *st[2] = {
      tsl_stmt_store(A, Db, tsl_expr_load(A, Cb, 2, cidx), 1, fwi),
      tsl_stmt_store(A, Db, tsl_expr_load(A, Db, 1, &didx), 1, &didx)};
  fb->body = tsl_stmt_seq(A, 2, st);
  const tsl_expr *fvals[1] = {EV(f)};
  const tsl_stmt *flat =
      loop(f, I32(o->ext_i * 128), tsl_stmt_block_realize(A, 1, fvals, NULL, fb),
           no_attrs());

  /* root */
  tsl_block *root = TSL_NEW(A, tsl_block);
  root->name = tsl_intern(c, "root");
  const tsl_buffer **allocs = TSL_NEW_ARRAY(A, const tsl_buffer *, 1);
  allocs[0] = Db;
  root->n_alloc_buffers = 1;
  root->alloc_buffers = allocs;
  const tsl_stmt *body[2] = {nest, flat};
  root->body = tsl_stmt_seq(A, 2, body);
  tsl_func *fn = TSL_NEW(A, tsl_func);
  fn->name = tsl_intern(c, "main");
  fn->n_params = 3;
  fn->params = params;
  tsl_attr fa[2] = {
      {tsl_intern(c, "global_symbol"), {TSL_ATTR_STR, 0, TSL_INT32, {.s = tsl_intern(c, o->gsym)}}},
      {tsl_intern(c, "tir.noalias"), {TSL_ATTR_BOOL, 0, TSL_BOOL, {.i = o->noalias}}}};
  fn->attrs = tsl_attrs_make(A, 2, fa);
  fn->body = tsl_stmt_block_realize(A, 0, NULL, NULL, root);
  tsl_module *m = TSL_NEW(A, tsl_module);
  m->arena = A;
  m->n_funcs = 1;
  const tsl_func **fs = TSL_NEW_ARRAY(A, const tsl_func *, 1);
  fs[0] = fn;
  m->funcs = fs;
  m->is_bare_func = 1;
  return m;
}

/* ---- checks ---- */

static int n_equal_pairs, n_hash_agree;
static int n_unequal_pairs, n_hash_differ;

static void expect_equal(const tsl_module *x, const tsl_module *y, const char *what) {
  char why[1024];
  int eq = tsl_module_equal(x, y, why, sizeof why);
  if (!ok(eq, "equal: %s", what))
    tap_diag("  why: %s", why);
  ok(tsl_module_equal(y, x, NULL, 0), "equal (swapped): %s", what);
  n_equal_pairs++;
  uint64_t hx = tsl_module_hash(x), hy = tsl_module_hash(y);
  if (ok(hx == hy, "hash agrees: %s", what))
    n_hash_agree++;
  ok(tsl_func_hash(x->funcs[0]) == tsl_func_hash(y->funcs[0]), "func hash agrees: %s", what);
}

static void expect_diff(const tsl_module *x, const tsl_module *y, const char *what,
                        const char *want_why) {
  char why[1024];
  int eq = tsl_module_equal(x, y, why, sizeof why);
  ok(!eq, "not equal: %s", what);
  ok(!tsl_module_equal(y, x, NULL, 0), "not equal (swapped): %s", what);
  if (want_why)
    is_str(why, want_why, "why: %s", what);
  n_unequal_pairs++;
  if (tsl_module_hash(x) != tsl_module_hash(y))
    n_hash_differ++;
}

static void test_modules(void) {
  prog_opts o = defaults();
  const tsl_module *base = build(&o);
  expect_equal(base, base, "a module with itself");
  expect_equal(base, build(&o), "two builds");

  prog_opts r = defaults();
  r.sfx = "_renamed";
  expect_equal(base, build(&r), "alpha-renamed vars and buffers");

  prog_opts c1 = defaults();
  c1.idx_form = 1;
  expect_equal(base, build(&c1), "i*128 + j vs j + i*128");
  prog_opts c2 = defaults();
  c2.idx_form = 2;
  c2.sfx = "2";
  expect_equal(build(&c1), build(&c2), "(i + 1)*128 + j - 128 vs j + i*128");

  prog_opts g = defaults();
  g.gsym = "other_name";
  expect_equal(base, build(&g), "global_symbol ignored");

  /* module name and bare-ness are not compared */
  tsl_module *named = tsl_arena_dup(A, build(&r), sizeof(tsl_module));
  named->name = tsl_intern(ctx, "Module");
  named->is_bare_func = 0;
  expect_equal(base, named, "module name / bare func ignored");

  prog_opts s1 = defaults(), s2 = defaults();
  s1.symbolic = s2.symbolic = 1;
  s2.sfx = "_x";
  expect_equal(build(&s1), build(&s2), "symbolic shape vars renamed");

  /* differences, with their paths */
  prog_opts e = defaults();
  e.ext_i = 64;
  expect_diff(base, build(&e), "loop extent",
              "funcs[main].params[0].buffer: shape (128, 128) vs (64, 128)");
  prog_opts e2 = defaults();
  e2.ext_dtype = TSL_INT64;
  expect_diff(base, build(&e2), "extent dtype",
              "funcs[main].body.block[root].body[0].for[i].extent: 128 vs T.int64(128)");
  prog_opts bn = defaults();
  bn.block_name = "upd";
  expect_diff(base, build(&bn), "block name",
              "funcs[main].body.block[root].body[0].for[i].body.for[j].body.for[k]"
              ".body.block[update].name: \"update\" vs \"upd\"");
  prog_opts dt = defaults();
  dt.a_dtype = TSL_FLOAT16;
  expect_diff(base, build(&dt), "buffer dtype",
              "funcs[main].params[0].buffer: dtype float32 vs float16");
  prog_opts bs = defaults();
  bs.b_cols = 64;
  expect_diff(base, build(&bs), "buffer shape",
              "funcs[main].params[1].buffer: shape (128, 128) vs (128, 64)");
  prog_opts sc = defaults();
  sc.d_scope = "shared";
  expect_diff(base, build(&sc), "scope",
              "funcs[main].body.block[root].alloc_buffers[0]: scope \"global\" vs \"shared\"");
  prog_opts na = defaults();
  na.noalias = 0;
  expect_diff(base, build(&na), "function attribute",
              "funcs[main].attrs[\"tir.noalias\"]: True vs False");
  prog_opts un1 = defaults(), un2 = defaults();
  un1.unroll = 4;
  un2.unroll = 8;
  expect_diff(build(&un1), build(&un2), "loop annotation",
              "funcs[main].body.block[root].body[0].for[i].body.for[j].annotations"
              "[\"pragma_auto_unroll_max_step\"]: 4 vs 8");
  expect_diff(base, build(&un1), "annotation present vs absent",
              "funcs[main].body.block[root].body[0].for[i].body.for[j].annotations: "
              "key \"pragma_auto_unroll_max_step\" only in the second");
  prog_opts it = defaults();
  it.iter_type_k = TSL_ITER_SPATIAL;
  expect_diff(base, build(&it), "iter type",
              "funcs[main].body.block[root].body[0].for[i].body.for[j].body.for[k]"
              ".body.block[update].iter_vars[2]: reduce vs spatial");

  /* bijectivity */
  prog_opts bug = defaults();
  bug.a_index_bug = 1;
  expect_diff(base, build(&bug), "A[vi, vk] vs A[vi, vi]",
              "funcs[main].body.block[root].body[0].for[i].body.for[j].body.for[k]"
              ".body.block[update].reads[0].region[1].min: vk vs vi");
  prog_opts sw = defaults();
  sw.swap_c = 1;
  expect_diff(base, build(&sw), "C[vf // 128, vf % 128] vs swapped", NULL);
  prog_opts ru = defaults();
  ru.reuse_loop_var = 1;
  expect_diff(base, build(&ru), "two loop vars vs one reused var",
              "funcs[main].body.block[root].body[0].for[i].body.for[j].body.for[k]"
              ".body.block[update].iter_values[0]: i vs i "
              "(same names, bound to different loops, iterators or buffers)");
  prog_opts s3 = defaults();
  s3.symbolic = 2;
  expect_diff(build(&s1), build(&s3), "shape (n, n) vs (n, m)",
              "funcs[main].params[0].buffer: shape (n, n) vs (n, n2)");
  expect_diff(build(&s3), build(&s1), "shape (n, m) vs (n, n)",
              "funcs[main].params[0].buffer: shape (n, n2) vs (n, n)");

  /* two functions; matched by name, order free */
  tsl_module *two = TSL_NEW(A, tsl_module);
  const tsl_func **fs = TSL_NEW_ARRAY(A, const tsl_func *, 2);
  tsl_func *f2 = tsl_arena_dup(A, build(&e)->funcs[0], sizeof(tsl_func));
  f2->name = tsl_intern(ctx, "second");
  fs[0] = base->funcs[0];
  fs[1] = f2;
  two->n_funcs = 2;
  two->funcs = fs;
  tsl_module *two_rev = TSL_NEW(A, tsl_module);
  const tsl_func **fr = TSL_NEW_ARRAY(A, const tsl_func *, 2);
  fr[0] = f2;
  fr[1] = build(&r)->funcs[0];
  two_rev->n_funcs = 2;
  two_rev->funcs = fr;
  char why[512];
  ok(tsl_module_equal(two, two_rev, why, sizeof why), "functions matched by name");
  ok(tsl_module_hash(two) == tsl_module_hash(two_rev), "module hash ignores function order");
  ok(!tsl_module_equal(two, base, why, sizeof why), "2 functions vs 1");
  is_str(why, "funcs: 2 functions vs 1", "why: function count");
  tsl_module *two_other = TSL_NEW(A, tsl_module);
  const tsl_func **fo = TSL_NEW_ARRAY(A, const tsl_func *, 2);
  tsl_func *f3 = tsl_arena_dup(A, f2, sizeof(tsl_func));
  f3->name = tsl_intern(ctx, "third");
  fo[0] = base->funcs[0];
  fo[1] = f3;
  two_other->n_funcs = 2;
  two_other->funcs = fo;
  ok(!tsl_module_equal(two, two_other, why, sizeof why), "different function names");
  is_str(why, "funcs[second]: missing in the second module", "why: missing function");
  ok(tsl_func_equal(f2, f3, NULL, 0), "tsl_func_equal ignores the function name");
  ok(tsl_func_hash(f2) == tsl_func_hash(f3), "tsl_func_hash ignores the function name");
  ok(tsl_module_hash(two) != tsl_module_hash(two_other), "module hash includes names");

  /* why buffer: truncated safely, NULL allowed */
  char tiny[8];
  ok(!tsl_module_equal(base, build(&e), tiny, sizeof tiny) && strlen(tiny) == 7,
     "why is truncated to its capacity");
  ok(tsl_module_equal(base, base, tiny, sizeof tiny) && tiny[0] == 0,
     "why is emptied on equality");

  is_int(n_hash_agree, n_equal_pairs, "hash agrees on all %d equal pairs", n_equal_pairs);
  ok(n_hash_differ == n_unequal_pairs, "hash differs on %d of %d unequal pairs",
     n_hash_differ, n_unequal_pairs);
}

static void test_exprs(void) {
  tu_env env = {0};
  env.a = A;
  env.dt = TSL_INT32;
  ok(tsl_expr_equal(tu_parse(&env, "i*4 + j"), tu_parse(&env, "j + i*4")),
     "expr: i*4 + j == j + i*4");
  ok(tsl_expr_equal(tu_parse(&env, "(i + 1) * 2"), tu_parse(&env, "i*2 + 2")),
     "expr: (i + 1) * 2 == i*2 + 2");
  ok(tsl_expr_equal(tu_parse(&env, "i < j and j*2 > 3"), tu_parse(&env, "j > i and 3 < 2*j")),
     "expr: canonical comparisons");
  ok(!tsl_expr_equal(tu_parse(&env, "x + y"), tu_parse(&env, "x + x")), "expr: x+y vs x+x");
  ok(!tsl_expr_equal(tu_parse(&env, "i // 4"), tu_parse(&env, "i")),
     "expr: no bounds are assumed");
  /* free vars compare by identity */
  tu_env env2 = {0};
  env2.a = A;
  env2.dt = TSL_INT32;
  ok(!tsl_expr_equal(tu_parse(&env, "i + 1"), tu_parse(&env2, "i + 1")),
     "expr: distinct free vars with one name differ");
  /* dtypes */
  tu_env e64 = {0};
  e64.a = A;
  e64.dt = TSL_INT64;
  ok(!tsl_expr_equal(tu_parse(&env, "3"), tu_parse(&e64, "3")), "expr: int32 vs int64");
  /* floats compare as trees */
  const tsl_var *a = tsl_var_new(A, "a", TSL_FLOAT32), *b = tsl_var_new(A, "b", TSL_FLOAT32),
                *c = tsl_var_new(A, "c", TSL_FLOAT32);
  const tsl_expr *l = BIN(ADD, BIN(ADD, EV(a), EV(b)), EV(c));
  const tsl_expr *rr = BIN(ADD, EV(a), BIN(ADD, EV(b), EV(c)));
  ok(!tsl_expr_equal(l, rr), "expr: float (a+b)+c vs a+(b+c)");
  ok(!tsl_expr_equal(BIN(ADD, EV(a), EV(b)), BIN(ADD, EV(b), EV(a))),
     "expr: float a+b vs b+a");
  ok(tsl_expr_equal(l, BIN(ADD, BIN(ADD, EV(a), EV(b)), EV(c))), "expr: float same tree");
  ok(tsl_expr_equal(tsl_expr_bool(A, 1), tsl_expr_bool(A, 1)), "expr: True == T.bool(True)");
  /* very deep trees: no crash, and hashing terminates */
  const tsl_var *dv = tsl_var_new(A, "d", TSL_INT32);
  const tsl_expr *d1 = EV(dv), *d2 = EV(dv);
  for (int k = 0; k < 50000; k++) {
    d1 = BIN(ADD, d1, I32(k % 7));
    d2 = BIN(ADD, d2, I32(k % 7));
  }
  ok(tsl_expr_equal(d1, d1), "expr: a deep tree equals itself (identity)");
  ok(!tsl_expr_equal(d1, d2), "expr: 50000-deep copies are refused (depth cap)");
  const tsl_expr *m1 = EV(dv), *m2 = EV(dv);
  for (int k = 0; k < 3000; k++) {
    m1 = BIN(ADD, m1, I32(k % 7));
    m2 = BIN(ADD, m2, I32(k % 7));
  }
  ok(tsl_expr_equal(m1, m2), "expr: 3000-deep copies compare equal");
  /* float load with canonicalized index */
  const tsl_expr *shape[1] = {I32(64)};
  const tsl_buffer *X = tsl_buffer_new(A, "X", TSL_FLOAT32, 1, shape, NULL, NULL, NULL, 0, 0);
  const tsl_expr *i1 = tu_parse(&env, "i*4 + j"), *i2 = tu_parse(&env, "j + 4*i");
  ok(tsl_expr_equal(BIN(MUL, tsl_expr_load(A, X, 1, &i1), EV(a)),
                    BIN(MUL, tsl_expr_load(A, X, 1, &i2), EV(a))),
     "expr: float expression with commuted index");
}

static void test_stmts(void) {
  /* for i in range(10): X[i * 2 + 1] = 0  vs renamed / commuted */
  const tsl_expr *shape[1] = {I32(64)};
  const tsl_buffer *X = tsl_buffer_new(A, "X", TSL_FLOAT32, 1, shape, NULL, NULL, NULL, 0, 0);
  const tsl_var *i = tsl_var_new(A, "i", TSL_INT32), *k = tsl_var_new(A, "k", TSL_INT32);
  const tsl_expr *zero = tsl_expr_float(A, TSL_FLOAT32, 0.0);
  const tsl_expr *ix = BIN(ADD, BIN(MUL, EV(i), I32(2)), I32(1));
  const tsl_expr *kx = BIN(ADD, I32(1), BIN(MUL, I32(2), EV(k)));
  const tsl_stmt *s1 = loop(i, I32(10), tsl_stmt_store(A, X, zero, 1, &ix), no_attrs());
  const tsl_stmt *s2 = loop(k, I32(10), tsl_stmt_store(A, X, zero, 1, &kx), no_attrs());
  ok(tsl_stmt_equal(s1, s2), "stmt: renamed loop var, commuted index");
  const tsl_stmt *s3 = loop(k, I32(11), tsl_stmt_store(A, X, zero, 1, &kx), no_attrs());
  ok(!tsl_stmt_equal(s1, s3), "stmt: different extent");
  /* free buffers are paired by their fields */
  const tsl_buffer *Y = tsl_buffer_new(A, "Y", TSL_FLOAT32, 1, shape, NULL, NULL, NULL, 0, 0);
  const tsl_stmt *s4 = loop(k, I32(10), tsl_stmt_store(A, Y, zero, 1, &kx), no_attrs());
  ok(tsl_stmt_equal(s1, s4), "stmt: free buffers with equal fields");
  const tsl_expr *shape2[1] = {I32(32)};
  const tsl_buffer *Z = tsl_buffer_new(A, "Z", TSL_FLOAT32, 1, shape2, NULL, NULL, NULL, 0, 0);
  const tsl_stmt *s5 = loop(k, I32(10), tsl_stmt_store(A, Z, zero, 1, &kx), no_attrs());
  ok(!tsl_stmt_equal(s1, s5), "stmt: free buffers with different shapes");
  /* let: x = i*2 in X[x] = 0 */
  const tsl_var *x = tsl_var_new(A, "x", TSL_INT32), *y = tsl_var_new(A, "y", TSL_INT32);
  const tsl_expr *xe = EV(x), *ye = EV(y);
  const tsl_stmt *l1 = tsl_stmt_let(A, x, BIN(MUL, EV(i), I32(2)),
                                    tsl_stmt_store(A, X, zero, 1, &xe));
  const tsl_stmt *l2 = tsl_stmt_let(A, y, BIN(MUL, I32(2), EV(i)),
                                    tsl_stmt_store(A, X, zero, 1, &ye));
  ok(tsl_stmt_equal(l1, l2), "stmt: let with renamed var (i free, shared)");
  /* bijectivity: two lets binding x and y used together vs one var */
  const tsl_expr *xy = BIN(ADD, EV(x), EV(y)), *xx = BIN(ADD, EV(x), EV(x));
  const tsl_stmt *b1 = tsl_stmt_let(A, x, I32(1), tsl_stmt_let(A, y, I32(2),
                                    tsl_stmt_store(A, X, zero, 1, &xy)));
  const tsl_stmt *b2 = tsl_stmt_let(A, x, I32(1), tsl_stmt_let(A, x, I32(2),
                                    tsl_stmt_store(A, X, zero, 1, &xx)));
  ok(!tsl_stmt_equal(b1, b2), "stmt: x + y vs x + x with x rebound");
  /* deep statement nesting does not crash */
  const tsl_stmt *deep = tsl_stmt_evaluate(A, I32(0));
  for (int d = 0; d < 5000; d++)
    deep = tsl_stmt_if(A, tsl_expr_bool(A, 1), deep, NULL);
  ok(!tsl_stmt_equal(deep, deep), "stmt: 5000-deep nesting is refused, no crash");
}

/* A function storing 0 into its one parameter buffer X[k]. */
static const tsl_module *store_into(const tsl_buffer *X) {
  const tsl_var *k = tsl_var_new(A, "k", TSL_INT32);
  const tsl_expr *ix = EV(k);
  tsl_block *root = TSL_NEW(A, tsl_block);
  root->name = tsl_intern(ctx, "root");
  root->body = loop(k, I32(64), tsl_stmt_store(A, X, tsl_expr_float(A, TSL_FLOAT32, 0.0), 1, &ix),
                    no_attrs());
  tsl_param *params = TSL_NEW_ARRAY(A, tsl_param, 1);
  params[0] = (tsl_param){tsl_var_new(A, "x", TSL_HANDLE), X};
  tsl_func *fn = TSL_NEW(A, tsl_func);
  fn->name = tsl_intern(ctx, "main");
  fn->n_params = 1;
  fn->params = params;
  fn->body = tsl_stmt_block_realize(A, 0, NULL, NULL, root);
  tsl_module *m = TSL_NEW(A, tsl_module);
  m->arena = A;
  m->n_funcs = 1;
  const tsl_func **fs = TSL_NEW_ARRAY(A, const tsl_func *, 1);
  fs[0] = fn;
  m->funcs = fs;
  m->is_bare_func = 1;
  return m;
}

/* TVM's Buffer constructor turns an alignment of 0 into 64 and an offset
 * factor of 0 into 1: not given and given as the default are equal. */
static void test_buffer_defaults(void) {
  const tsl_expr *shape[1] = {I32(64)};
#define XBUF(al, of, eo) tsl_buffer_new(A, "X", TSL_FLOAT32, 1, shape, NULL, eo, NULL, al, of)
  const tsl_module *plain = store_into(XBUF(0, 0, NULL));
  expect_equal(plain, store_into(XBUF(64, 1, NULL)), "align 64 / offset_factor 1 are the defaults");
  expect_equal(plain, store_into(XBUF(0, 1, I32(0))), "elem_offset=0 is the default");
  expect_diff(plain, store_into(XBUF(32, 0, NULL)), "align 32",
              "funcs[main].params[0].buffer: align 0 vs 32");
  expect_diff(plain, store_into(XBUF(0, 2, NULL)), "offset_factor 2",
              "funcs[main].params[0].buffer: offset_factor 0 vs 2");
  const tsl_expr *off = EV(tsl_var_new(A, "X_elem_offset", TSL_INT32));
  expect_diff(plain, store_into(XBUF(0, 1, off)), "a variable offset (offset_factor=1 alone)",
              "funcs[main].params[0].buffer.elem_offset: 0 vs given");
  expect_equal(store_into(XBUF(0, 1, off)),
               store_into(XBUF(64, 1, EV(tsl_var_new(A, "o", TSL_INT32)))),
               "two variable offsets pair");
#undef XBUF
}

int main(void) {
  ctx = tsl_ctx_new();
  A = tsl_arena_new(ctx);
  test_modules();
  test_exprs();
  test_stmts();
  test_buffer_defaults();
  tsl_arena_free(A);
  tsl_ctx_free(ctx);
  return tap_done();
}
