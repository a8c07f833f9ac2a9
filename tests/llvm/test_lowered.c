/*
 * Lowered programs built by hand with the ir.h builders (independent of
 * tsl_lower_func), for the forms lowering rarely or never produces:
 *  - vector code: contiguous loads/stores (stride-1 RAMP, RAMP + BROADCAST),
 *    gathers (strided RAMP), scatters, vector IF_THEN_ELSE whose sides read
 *    only their own lanes (the guarded buffer ends at an inaccessible page,
 *    so a load of a masked-off lane would crash);
 *  - ALLOCATE: a small stack buffer inside a (parallel) loop, a large one
 *    (heap) and one sized by a symbolic size variable;
 *  - bool and bfloat16 vectors in memory;
 *  - a program that is not lowered (a block left in it) is an error, not a
 *    crash.
 * Expected values are computed in C.
 */
#include "llvm_util.h"

#include <sys/mman.h>
#include <unistd.h>

static tsl_arena *A;

static const tsl_expr *I(int64_t v) { return tsl_expr_i32(A, v); }
static const tsl_expr *F(double v) { return tsl_expr_float(A, TSL_FLOAT32, v); }
static const tsl_expr *V(const tsl_var *v) { return tsl_expr_var(v); }
static const tsl_expr *add(const tsl_expr *x, const tsl_expr *y) {
  return tsl_expr_binary(A, TSL_EXPR_ADD, x, y);
}
static const tsl_expr *mul(const tsl_expr *x, const tsl_expr *y) {
  return tsl_expr_binary(A, TSL_EXPR_MUL, x, y);
}
static const tsl_expr *ramp(const tsl_expr *b, int64_t s, uint16_t l) {
  return tsl_expr_ramp(A, b, I(s), l);
}
static const tsl_expr *bc(const tsl_expr *x, uint16_t l) {
  return tsl_expr_broadcast(A, x, l);
}
static const tsl_buffer *buf(const char *name, tsl_dtype t, int64_t n) {
  const tsl_expr *s = I(n);
  return tsl_buffer_new(A, name, t, 1, &s, NULL, NULL, NULL, 0, 0);
}
static const tsl_buffer *buf_scope(const char *name, tsl_dtype t,
                                   const tsl_expr *n, const char *scope) {
  return tsl_buffer_new(A, name, t, 1, &n, NULL, NULL, scope, 0, 0);
}
/* a load whose dtype has the index's lanes */
static const tsl_expr *ld(const tsl_buffer *b, const tsl_expr *idx) {
  tsl_expr proto;
  memset(&proto, 0, sizeof proto);
  proto.kind = TSL_EXPR_LOAD;
  proto.dtype = b->dtype;
  proto.dtype.lanes = idx->dtype.lanes;
  proto.u.buffer = b;
  return tsl_expr_with_args(A, &proto, 1, &idx);
}
static const tsl_stmt *st(const tsl_buffer *b, const tsl_expr *idx,
                          const tsl_expr *v) {
  return tsl_stmt_store(A, b, v, 1, &idx);
}
static const tsl_stmt *loop(const tsl_var *v, int64_t n, tsl_for_kind k,
                            const tsl_stmt *body) {
  tsl_attrs none = {0, NULL};
  return tsl_stmt_for(A, v, I(0), I(n), k, NULL, none, body);
}
static tsl_param P(const tsl_buffer *b) {
  tsl_param p = {tsl_var_new(A, b->name, TSL_HANDLE), b};
  return p;
}

static tsl_kernel *build(tsl_target *t, tsl_lowered_func *lf,
                         tsl_packed_fn *fn) {
  tsl_diag d = {0};
  const tsl_lowered_func *fl[1] = {lf};
  tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
  tsl_kernel *k = NULL;
  *fn = NULL;
  if (tll_vtable.build(t, &lm, &k, NULL, &d)) {
    tap_diag("%s", d.text);
    return NULL;
  }
  *fn = tll_vtable.lookup(k, lf->name);
  return k;
}

static tsl_lowered_func *func(tsl_ctx *ctx, const char *name, uint32_t n,
                              const tsl_param *params, const tsl_stmt *body) {
  tsl_lowered_func *lf = TSL_NEW(A, tsl_lowered_func);
  lf->struct_size = sizeof *lf;
  lf->name = tsl_intern(ctx, name);
  lf->n_params = n;
  lf->params = tsl_arena_dup(A, params, n * sizeof *params);
  lf->body = body;
  lf->flops = -1;
  return lf;
}

/* ---- vectors --------------------------------------------------------------- */

static void test_vectors(tsl_ctx *ctx, tsl_target *t) {
  enum { N = 1024, L = 16, G_N = 500 };
  const tsl_buffer *bA = buf("A", TSL_FLOAT32, N), *bG = buf("G", TSL_FLOAT32, G_N);
  const tsl_buffer *bC = buf("C", TSL_FLOAT32, N), *bS = buf("S", TSL_FLOAT32, N);
  const tsl_buffer *bD = buf("D", TSL_FLOAT32, N), *bE = buf("E", TSL_FLOAT32, N);
  const tsl_buffer *bF = buf("F", TSL_FLOAT32, N);
  const tsl_var *i = tsl_var_new(A, "i", TSL_INT32);
  const tsl_expr *base = mul(V(i), I(L));
  const tsl_expr *cont = ramp(base, 1, L);
  /* RAMP(i*16 - 3, 1) + BROADCAST(3): contiguous through the ADD form */
  const tsl_expr *cont2 =
      add(ramp(tsl_expr_binary(A, TSL_EXPR_SUB, base, I(3)), 1, L), bc(I(3), L));
  const tsl_expr *strided = ramp(V(i), 64, L);
  const tsl_expr *lim = bc(I(G_N), L);
  const tsl_stmt *body[5] = {
      st(bC, cont, add(mul(ld(bA, cont2), bc(F(2), L)), bc(F(1), L))),
      st(bS, cont, ld(bA, strided)),
      st(bD, strided, ld(bA, cont)),
      st(bE, cont,
         tsl_expr_if_then_else(A, tsl_expr_binary(A, TSL_EXPR_LT, cont, lim),
                               ld(bG, cont), bc(F(-1), L))),
      st(bF, cont,
         tsl_expr_if_then_else(A, tsl_expr_binary(A, TSL_EXPR_LT, strided, lim),
                               ld(bG, strided), bc(F(-1), L))),
  };
  tsl_param ps[7] = {P(bA), P(bG), P(bC), P(bS), P(bD), P(bE), P(bF)};
  tsl_lowered_func *lf = func(ctx, "vec", 7, ps,
                              loop(i, N / L, TSL_FOR_SERIAL,
                                   tsl_stmt_seq(A, 5, body)));
  tsl_packed_fn fn;
  tsl_kernel *k = build(t, lf, &fn);
  ok(fn != NULL, "vector program builds");
  if (!fn)
    return;
  long page = sysconf(_SC_PAGESIZE);
  char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mprotect(map + page, (size_t)page, PROT_NONE);
  float *g = (float *)(map + page) - G_N; /* G ends at the guard page */
  static float a[N], c[N], s[N], dd[N], e[N], f[N];
  for (int x = 0; x < N; x++)
    a[x] = (float)(x % 97) * 0.5f - 7;
  for (int x = 0; x < G_N; x++)
    g[x] = (float)x + 0.25f;
  void *args[7] = {a, g, c, s, dd, e, f};
  int32_t rc = fn(args);
  int bad_c = 0, bad_s = 0, bad_d = 0, bad_e = 0, bad_f = 0;
  for (int x = 0; x < N / L; x++)
    for (int l = 0; l < L; l++) {
      int k0 = x * L + l, st_ = x + 64 * l;
      bad_c += c[k0] != a[k0] * 2 + 1;
      bad_s += s[k0] != a[st_];
      bad_d += dd[st_] != a[k0];
      bad_e += e[k0] != (k0 < G_N ? g[k0] : -1);
      bad_f += f[k0] != (st_ < G_N ? g[st_] : -1);
    }
  is_int(rc, 0, "vector program returns 0");
  is_int(bad_c, 0, "contiguous loads and stores, RAMP + BROADCAST index");
  is_int(bad_s, 0, "gather (strided RAMP load)");
  is_int(bad_d, 0, "scatter (strided RAMP store)");
  is_int(bad_e, 0, "vector if_then_else: masked contiguous loads stay in "
                   "bounds");
  is_int(bad_f, 0, "vector if_then_else: masked gathers stay in bounds");
  munmap(map, (size_t)page * 2);
  tll_vtable.kernel_free(k);
}

/* ---- bool and bfloat16 vectors ---------------------------------------------- */

static void test_narrow(tsl_ctx *ctx, tsl_target *t) {
  enum { N = 64, L = 8 };
  tsl_dtype bf = TSL_BFLOAT16, bl = TSL_BOOL;
  const tsl_buffer *bX = buf("X", TSL_FLOAT32, N), *bY = buf("Y", bf, N);
  const tsl_buffer *bM = buf("M", bl, N), *bZ = buf("Z", TSL_FLOAT32, N);
  const tsl_var *i = tsl_var_new(A, "i", TSL_INT32);
  const tsl_expr *idx = ramp(mul(V(i), I(L)), 1, L);
  tsl_dtype bfv = bf, blv = bl, f32v = TSL_FLOAT32;
  bfv.lanes = blv.lanes = f32v.lanes = L;
  const tsl_expr *x = ld(bX, idx);
  const tsl_stmt *body[3] = {
      /* Y = bfloat16(X * 3) */
      st(bY, idx, tsl_expr_cast(A, bfv, mul(x, bc(F(3), L)))),
      /* M = X > 0 */
      st(bM, idx, tsl_expr_binary(A, TSL_EXPR_GT, x, bc(F(0), L))),
      /* Z = select(M, float(Y), -1) */
      st(bZ, idx, tsl_expr_select(A, ld(bM, idx), tsl_expr_cast(A, f32v, ld(bY, idx)),
                                  bc(F(-1), L))),
  };
  tsl_param ps[4] = {P(bX), P(bY), P(bM), P(bZ)};
  tsl_lowered_func *lf = func(ctx, "narrow", 4, ps,
                              loop(i, N / L, TSL_FOR_SERIAL, tsl_stmt_seq(A, 3, body)));
  tsl_packed_fn fn;
  tsl_kernel *k = build(t, lf, &fn);
  ok(fn != NULL, "bool / bfloat16 vector program builds");
  if (!fn)
    return;
  float xs[N], z[N];
  uint16_t y[N];
  uint8_t m[N];
  for (int q = 0; q < N; q++)
    xs[q] = (float)(q - 30) * 0.337f;
  void *args[4] = {xs, y, m, z};
  int32_t rc = fn(args);
  int bad_y = 0, bad_m = 0, bad_z = 0;
  for (int q = 0; q < N; q++) {
    uint16_t want = tsl_f32_to_bf16(xs[q] * 3);
    bad_y += y[q] != want;
    bad_m += m[q] != (xs[q] > 0);
    bad_z += z[q] != (xs[q] > 0 ? tsl_bf16_to_f32(want) : -1);
  }
  ok(rc == 0 && bad_y == 0, "bfloat16 vector stores round to nearest even");
  ok(bad_m == 0, "bool vector stores are bytes 0/1");
  ok(bad_z == 0, "bool and bfloat16 vector loads");
  tll_vtable.kernel_free(k);
}

/* ---- allocations ------------------------------------------------------------ */

static void test_alloc(tsl_ctx *ctx, const char *spec) {
  enum { N = 1024, BIG = 20000 };
  tsl_diag d = {0};
  tsl_target *t = lt_target(spec, &d);
  const tsl_buffer *bA = buf("A", TSL_FLOAT32, N), *bC = buf("C", TSL_FLOAT32, N);
  const tsl_buffer *bO = buf("O", TSL_FLOAT32, N), *bQ = buf("Q", TSL_FLOAT32, N);
  const tsl_var *n = tsl_var_new(A, "n", TSL_INT64);
  const tsl_buffer *big = buf_scope("T", TSL_FLOAT32, I(BIG), "global");
  const tsl_buffer *loc = buf_scope("L", TSL_FLOAT32, I(16), "local");
  const tsl_buffer *dyn = buf_scope("S", TSL_FLOAT32, V(n), "global");
  const tsl_var *i = tsl_var_new(A, "i", TSL_INT32), *l = tsl_var_new(A, "l", TSL_INT32);
  const tsl_var *j = tsl_var_new(A, "j", TSL_INT32), *q = tsl_var_new(A, "q", TSL_INT64);
  /* big heap buffer: T[i] = i; O[j] = T[j * 19] */
  const tsl_stmt *s1 = tsl_stmt_allocate(
      A, big,
      tsl_stmt_seq(A, 2,
                   (const tsl_stmt *[]){
                       loop(i, BIG, TSL_FOR_SERIAL,
                            st(big, V(i), tsl_expr_cast(A, TSL_FLOAT32, V(i)))),
                       loop(j, N, TSL_FOR_SERIAL,
                            st(bO, V(j), ld(big, mul(V(j), I(19))))),
                   }));
  /* a private 16-float buffer per parallel iteration: C[16i + l] = A[16i +
   * 15 - l] + 1 */
  const tsl_stmt *s2 = loop(
      i, N / 16, TSL_FOR_PARALLEL,
      tsl_stmt_allocate(
          A, loc,
          tsl_stmt_seq(
              A, 2,
              (const tsl_stmt *[]){
                  loop(l, 16, TSL_FOR_SERIAL,
                       st(loc, V(l), add(ld(bA, add(mul(V(i), I(16)), V(l))), F(1)))),
                  loop(l, 16, TSL_FOR_SERIAL,
                       st(bC, add(mul(V(i), I(16)), V(l)),
                          ld(loc, tsl_expr_binary(A, TSL_EXPR_SUB, I(15), V(l))))),
              })));
  /* a buffer of n floats: S[q] = A[q % 1024] * 2; Q[j] = S[j % n] */
  const tsl_expr *n64 = tsl_expr_int(A, TSL_INT64, 1024);
  const tsl_stmt *s3 = tsl_stmt_allocate(
      A, dyn,
      tsl_stmt_seq(
          A, 2,
          (const tsl_stmt *[]){
              tsl_stmt_for(A, q, tsl_expr_int(A, TSL_INT64, 0), V(n), TSL_FOR_SERIAL,
                           NULL, (tsl_attrs){0, NULL},
                           st(dyn, V(q),
                              mul(ld(bA, tsl_expr_binary(A, TSL_EXPR_FLOORMOD, V(q), n64)),
                                  F(2)))),
              loop(j, N, TSL_FOR_SERIAL,
                   st(bQ, V(j),
                      ld(dyn, tsl_expr_binary(A, TSL_EXPR_FLOORMOD,
                                              tsl_expr_cast(A, TSL_INT64, V(j)), V(n))))),
          }));
  tsl_param ps[4] = {P(bA), P(bC), P(bO), P(bQ)};
  tsl_lowered_func *lf = func(ctx, "alloc", 4, ps,
                              tsl_stmt_seq(A, 3, (const tsl_stmt *[]){s1, s2, s3}));
  const tsl_var *svs[1] = {n};
  lf->n_size_vars = 1;
  lf->size_vars = tsl_arena_dup(A, svs, sizeof svs);
  tsl_packed_fn fn = NULL;
  tsl_kernel *k = t ? build(t, lf, &fn) : NULL;
  ok(fn != NULL, "%s: allocation program builds", spec);
  if (fn) {
    static float a[N], c[N], o[N], qq[N];
    for (int x = 0; x < N; x++)
      a[x] = (float)x * 0.25f;
    int64_t nv = 300;
    void *args[5] = {a, c, o, qq, &nv};
    int32_t rc = fn(args);
    int bad_o = 0, bad_c = 0, bad_q = 0;
    for (int x = 0; x < N; x++) {
      bad_o += o[x] != (float)(x * 19);
      bad_c += c[x] != a[(x / 16) * 16 + 15 - x % 16] + 1;
      bad_q += qq[x] != a[x % nv] * 2;
    }
    is_int(rc, 0, "%s: returns 0", spec);
    is_int(bad_o, 0, "%s: a 80 KB allocation (heap)", spec);
    is_int(bad_c, 0, "%s: a private stack buffer per parallel iteration", spec);
    is_int(bad_q, 0, "%s: an allocation sized by a size variable", spec);
  }
  tll_vtable.kernel_free(k);
  tll_vtable.destroy(t);
}

static void test_not_lowered(tsl_ctx *ctx, tsl_target *t) {
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/relu.py", lt_root());
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  if (tsl_parse_file(A, path, &m, &d)) {
    ok(0, "relu parses");
    return;
  }
  const tsl_func *f = m->funcs[0];
  tsl_lowered_func *lf = func(ctx, "raw", f->n_params, f->params, f->body);
  const tsl_lowered_func *fl[1] = {lf};
  tsl_lowered_module lm = {sizeof lm, 1, fl, 0, NULL};
  tsl_kernel *k = NULL;
  int rc = tll_vtable.build(t, &lm, &k, NULL, &d);
  ok(rc != 0 && strstr(d.text, "lowered programs only"),
     "a program with blocks is refused: %s", d.text);
  tll_vtable.kernel_free(k);
}

int main(void) {
  lt_announce_cpu();
  tsl_ctx *ctx = tsl_ctx_new();
  A = tsl_arena_new(ctx);
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=2", &d);
  ok(t != NULL, "target");
  if (t) {
    test_vectors(ctx, t);
    test_narrow(ctx, t);
    test_not_lowered(ctx, t);
  }
  test_alloc(ctx, "threads=1");
  test_alloc(ctx, "threads=2");
  tll_vtable.destroy(t);
  tsl_arena_free(A);
  tsl_ctx_free(ctx);
  return tap_done();
}
