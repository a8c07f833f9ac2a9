/*
 * Simplifier tests: concrete rewrites (each also checked for soundness by
 * brute-force evaluation over the bound ranges), bounds, can_prove, relax,
 * caps on depth and work, and a randomized soundness test.
 */
#include "tap.h"
#include "tutil.h"

#include "tessel/visit.h"

static tsl_ctx *ctx;
static tsl_arena *arena;
static tsl_analyzer *an;
static tu_env env;

typedef struct bound_rec {
  const tsl_var *v;
  int64_t lo, ext;
} bound_rec;
static bound_rec bounds[32];
static int n_bounds;

static void reset(tsl_dtype dt) {
  if (an)
    tsl_analyzer_free(an);
  an = tsl_analyzer_new(ctx);
  memset(&env, 0, sizeof env);
  env.a = arena;
  env.dt = dt;
  n_bounds = 0;
}

static void bind(const char *name, int64_t lo, int64_t ext) {
  const tsl_var *v = tu_var(&env, name);
  tsl_analyzer_bind(an, v, tsl_expr_int(arena, env.dt, lo),
                    tsl_expr_int(arena, env.dt, ext));
  for (int i = 0; i < n_bounds; i++)
    if (bounds[i].v == v) {
      bounds[i].lo = lo;
      bounds[i].ext = ext;
      return;
    }
  bounds[n_bounds].v = v;
  bounds[n_bounds].lo = lo;
  bounds[n_bounds].ext = ext;
  n_bounds++;
}

static void domain_of(const tsl_var *v, int64_t *lo, int64_t *hi) {
  for (int i = 0; i < n_bounds; i++)
    if (bounds[i].v == v) {
      *lo = bounds[i].lo;
      *hi = bounds[i].lo + bounds[i].ext - 1;
      return;
    }
  *lo = -9;
  *hi = 9;
}

static int collect_var(const tsl_expr *e, void *ud) {
  tu_assign *as = ud;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (int i = 0; i < as->n; i++)
    if (as->vars[i] == e->u.var)
      return 0;
  as->vars[as->n++] = e->u.var;
  return 0;
}

/* Brute force: x and y agree wherever x is defined (vars over their
 * bound ranges, unbound ones over [-9, 9]). Returns the number of
 * mismatches, printing the first. */
static int mismatches(const tsl_expr *x, const tsl_expr *y) {
  tu_assign as = {0};
  tsl_expr_visit(x, collect_var, &as);
  tsl_expr_visit(y, collect_var, &as);
  int64_t lo[32], hi[32];
  uint64_t total = 1;
  for (int i = 0; i < as.n; i++) {
    domain_of(as.vars[i], &lo[i], &hi[i]);
    as.vals[i] = lo[i];
    total *= (uint64_t)(hi[i] - lo[i] + 1);
  }
  int bad = 0;
  uint64_t stride = total > 200000 ? total / 200000 + 1 : 1;
  for (uint64_t idx = 0; idx < total; idx += stride) {
    uint64_t r = idx;
    for (int i = 0; i < as.n; i++) {
      uint64_t span = (uint64_t)(hi[i] - lo[i] + 1);
      as.vals[i] = lo[i] + (int64_t)(r % span);
      r /= span;
    }
    int64_t vx, vy;
    if (!tu_eval(x, &as, &vx))
      continue;
    if (!tu_eval(y, &as, &vy) || vx != vy) {
      if (!bad) {
        tap_diag("  mismatch: %s vs %s", tu_fmt(x), tu_fmt(y));
        for (int i = 0; i < as.n; i++)
          tap_diag("    %s = %lld", as.vars[i]->name, (long long)as.vals[i]);
      }
      bad++;
    }
  }
  return bad;
}

static const tsl_expr *simp(const char *src) {
  return tsl_simplify(an, arena, tu_parse(&env, src));
}

static void check(const char *src, const char *want) {
  const tsl_expr *in = tu_parse(&env, src);
  const tsl_expr *out = tsl_simplify(an, arena, in);
  is_str(tu_fmt(out), want, "simplify %s", src);
  if (mismatches(in, out))
    ok(0, "  %s stays sound", src);
}

/* every node has dtype t, not looking inside casts */
static int all_dtype(const tsl_expr *e, tsl_dtype t) {
  if (!tsl_dtype_is_bool(e->dtype) && !tsl_dtype_eq(e->dtype, t))
    return 0;
  if (e->kind == TSL_EXPR_CAST)
    return 1;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (!all_dtype(e->args[i], t))
      return 0;
  return 1;
}

/* ---- cases ---- */

static void test_folding(void) {
  reset(TSL_INT32);
  check("3 + 4 * 5", "23");
  check("7 // 2", "3");
  check("-7 // 2", "-4");
  check("7 // -2", "-4");
  check("-7 % 2", "1");
  check("7 % -2", "-1");
  check("-7 / 2", "-3");
  check("tmod(-7, 2)", "-1");
  check("tmod(7, -2)", "1");
  check("7 // 0", "7 // 0");
  check("7 % 0", "7 % 0");
  check("x // 0", "x // 0");
  check("2147483647 + 1", "-2147483648");
  check("65536 * 65536", "0");
  check("min(3, -2)", "-2");
  check("max(3, -2)", "3");
  check("3 < 4", "T.bool(True)");
  check("3 >= 4", "T.bool(False)");
  check("4 == 4", "T.bool(True)");
  check("4 != 4", "T.bool(False)");
  check("not 3 < 4", "T.bool(False)");
  check("True and 2 < 1", "T.bool(False)");
  check("False or 1 < 2", "T.bool(True)");
  check("select(1 < 2, 10, 20)", "10");
  check("abs(-5)", "5");
  check("i32(i64(3) * i64(5))", "15");
}

static void test_affine(void) {
  reset(TSL_INT32);
  check("i*4 + j", "i * 4 + j");
  check("j + i*4", "i * 4 + j");
  check("(i + 1) * 2", "i * 2 + 2");
  check("i*16 + j*4 + k - 3", "i * 16 + j * 4 + k - 3");
  check("k + j*4 - 3 + i*16", "i * 16 + j * 4 + k - 3");
  check("i - i", "0");
  check("x * 0 + y * 1", "y");
  check("0 - i + j", "j - i");
  check("-i - j * 2 - 3", "j * -2 - i - 3");
  check("x * y - y * x", "0");
  check("(x + 1) * (x - 1)", "x * x - 1");
  check("(a + b) * 2 - a - b - b", "a");
  check("i * 2 * 3 + i", "i * 7");
  check("-(x - y)", "y - x");
  check("1 - x * 2", "1 - x * 2");
  check("3 - x - y", "3 - x - y");
  check("k_outer * 8 + k_inner", "k_outer * 8 + k_inner");
  check("k_inner + k_outer * 8", "k_outer * 8 + k_inner");
}

static void test_divmod(void) {
  reset(TSL_INT32);
  bind("i", 0, 16);
  bind("j", 0, 8);
  bind("k", 0, 4);
  bind("i0", 0, 8);
  bind("i1", 0, 16);
  bind("n", -7, 8);
  check("(i*8 + j) // 8", "i");
  check("(i*8 + j) % 8", "j");
  check("k // 4", "0");
  check("k % 4", "k");
  check("j % 8", "j");
  check("(i*8 + j - 8) // 8", "i - 1");
  check("(i0 * 16 + i1) // 16", "i0");
  check("(i0 * 16 + i1) % 16", "i1");
  check("(n + 7) // 8", "0");
  check("(i*8 + k + 3) % 8", "k + 3");
  check("(i*8 + k + 3) // 8", "i");
  check("(j*4 + k) // 4", "j");
  check("(j*4 + k) % 4", "k");
  check("(j*4 + k) % 8", "j % 2 * 4 + k");
  check("(i*16 + j*2 + 1) // 2", "i * 8 + j");
  check("i // 4 * 4 + i % 4", "i");
  /* fuse of a split: f0 in [0, 8), f1 in [0, 32) */
  bind("f0", 0, 8);
  bind("f1", 0, 32);
  check("(f0 * 32 + f1) // 64", "f0 // 2");
  check("(f0 * 32 + f1) % 64", "f0 % 2 * 32 + f1");
  check("(f0 * 32 + f1) // 64 * 64 + (f0 * 32 + f1) % 64", "f0 * 32 + f1");
  check("(f0 * 32 + f1 + 31) // 64", "(f0 * 32 + f1 + 31) // 64");
  check("(f0 * 64 + j * 8 + k) // 16", "f0 * 4 + j // 2");
  check("(f0 * 64 + j * 8 + k) % 16", "j % 2 * 8 + k");
  /* unbound */
  check("x // 4 // 8", "x // 32");
  check("(x // 4 + 1) // 2", "(x + 4) // 8");
  check("x % 32 % 8", "x % 8");
  check("x % 12 % 8", "x % 12 % 8");
  check("x % 16 * 4 % 8", "x % 2 * 4");
  check("x - x // 4 * 4", "x % 4");
  check("(x * 4 + 6) // 8", "(x * 2 + 3) // 4");
  check("(x * 4 + 2) // 8", "x // 2");
  check("(x * 16 + 15) // 32", "x // 2");
  check("(x * 16 + 15) % 32", "x % 2 * 16 + 15");
  check("x // 16 * 16 + x % 16", "x");
  check("x // 16 * 48 + x % 16 * 3", "x * 3");
  check("(x // 16 * 16 + x % 16) * 3", "x * 3");
  /* three fused loops: f = i*12 + j*4 + k */
  check("x % 12 // 4", "x // 4 % 3");
  check("x // 12 * 12 + x % 12 // 4 * 4 + x % 4", "x");
  check("x // 12 * 12 + x // 4 % 3 * 4 + x % 4", "x");
  check("(x // 12 * 12 + x % 12 // 4 * 4 + x % 4) // 4", "x // 4");
  check("(x * 4 + y * 2) // 8", "(x * 2 + y) // 4");
  check("(x * 6 + y) // 4", "x + (x * 2 + y) // 4");
  check("(x * 4 + 2) % 8", "x % 2 * 4 + 2");
  check("(x * 4 + 6) % 8", "(x * 2 + 3) % 4 * 2");
  check("(x * 8 + y) % 8", "y % 8");
  check("x // 1", "x");
  check("x % 1", "0");
  check("-x // -1", "x");
  check("x // -3", "x // -3");
  check("x / 4", "T.truncdiv(x, 4)");
  check("i / 4", "i // 4");
  check("tmod(i, 4)", "i % 4");
  check("tmod(x, 1)", "0");
  check("x / 1", "x");
}

static void test_minmax_cmp(void) {
  reset(TSL_INT32);
  bind("i", 0, 16);
  bind("j", 0, 4);
  bind("x", 0, 10);
  bind("s", -5, 6); /* [-5, 0] */
  check("max(x, 0)", "x");
  check("min(x, 0)", "0");
  check("min(x, 100)", "x");
  check("max(x, 5)", "T.max(x, 5)");
  check("min(5, x)", "T.min(x, 5)");
  check("min(j, i)", "T.min(i, j)");
  check("min(y + 1, y)", "y");
  check("max(y + 1, y)", "y + 1");
  check("min(i * 4 + j, 64)", "i * 4 + j");
  /* floor division is monotonic: the pair of quotients is ordered (a
   * strided read's region after compute_at, conv2d_transpose's) */
  check("min(y // 64 + j // 2, y // 64 + (j + 1) // 2)", "j // 2 + y // 64");
  check("max(y // 64 + j // 2, y // 64 + (j + 1) // 2)", "y // 64 + (j + 1) // 2");
  check("min(i // 4, (i + 3) // 4)", "i // 4");
  check("min(i // 4, (i + 5) // 4)", "i // 4");
  check("max((i + 1) // 2 - i // 2, 0)", "i % 2");
  check("min((i + 1) // 4 - i // 4, 1)", "(i + 1) // 4 - i // 4");
  check("min(i // 2, (i - 7) // 2)", "(i + 1) // 2 - 4");
  check("(i + 1) // 2 - i // 2", "i % 2");
  check("(j + 1) // 2 * 96 - j // 2 * 96 + 96", "j % 2 * 96 + 96");
  check("(i + 1) // 4 - i // 4", "(i + 1) // 4 - i // 4");
  check("abs(s)", "-s");
  check("abs(x)", "x");
  check("i < 16", "T.bool(True)");
  check("i >= 16", "T.bool(False)");
  check("i < 15", "i < 15");
  check("i*4 + j < 64", "T.bool(True)");
  check("i*4 + j < 63", "i * 4 + j < 63");
  check("not (y < 16)", "y >= 16");
  check("not not (y < 3)", "y < 3");
  check("y - z < 0", "y < z");
  check("z > y", "y < z");
  check("y + 1 <= z", "y + 1 <= z");
  check("16 > y", "y < 16");
  check("y * 2 == 3", "T.bool(False)");
  check("y * 2 != 3", "T.bool(True)");
  check("y * 2 == z * 2", "y == z");
  check("z - y == 0", "y == z");
  check("True and y < 3", "y < 3");
  check("y < 3 and False", "T.bool(False)");
  check("y < 3 or True", "T.bool(True)");
  check("False or y < 3", "y < 3");
  check("y < 3 and y < 3", "y < 3");
  check("i < 16 and y < 3", "y < 3");
  check("select(y < 3, z, z)", "z");
  check("select(i < 16, y, z)", "y");
  check("select(y < 3, y + 1 - 1, 2)", "T.Select(y < 3, y, 2)");
}

static void test_dtypes(void) {
  reset(TSL_INT64);
  const tsl_expr *e = simp("i*4 + j + 3 - j");
  is_str(tu_fmt(e), "i * T.int64(4) + T.int64(3)", "int64 canonical form");
  ok(all_dtype(e, TSL_INT64), "int64 result is int64 throughout");
  check("(i * 8 + 3) // 8", "i");
  check("9223372036854775807 + 1", "T.int64(-9223372036854775808)");
  /* mixed operand dtypes: the odd one is cast, constants retyped */
  const tsl_var *y = tsl_var_new(arena, "y", TSL_INT32);
  const tsl_expr *x = tsl_expr_var(tu_var(&env, "x"));
  const tsl_expr *m = tsl_expr_binary(
      arena, TSL_EXPR_ADD,
      tsl_expr_binary(arena, TSL_EXPR_ADD, x, tsl_expr_var(y)),
      tsl_expr_i32(arena, 2));
  const tsl_expr *ms = tsl_simplify(an, arena, m);
  is_str(tu_fmt(ms), "x + T.Cast(\"int64\", y) + T.int64(2)", "mixed dtypes cast");
  ok(all_dtype(ms, TSL_INT64), "mixed: result is int64 throughout");
  /* int8 wraps at 8 bits */
  reset(TSL_INT8);
  check("100 + 100", "T.int8(-56)");
  /* unsigned: constants fold with unsigned semantics */
  tsl_dtype u8 = TSL_UINT8;
  const tsl_expr *u = tsl_expr_binary(arena, TSL_EXPR_SUB, tsl_expr_int(arena, u8, 3),
                                      tsl_expr_int(arena, u8, 5));
  is_str(tu_fmt(tsl_simplify(an, arena, u)), "T.uint8(254)", "uint8 3 - 5 wraps");
}

static void test_non_integer(void) {
  reset(TSL_INT32);
  const tsl_expr *shape[1] = {tsl_expr_i32(arena, 64)};
  const tsl_buffer *A = tsl_buffer_new(arena, "A", TSL_FLOAT32, 1, shape, NULL,
                                       NULL, NULL, 0, 0);
  const tsl_expr *idx = tu_parse(&env, "j + i * 4 + 0");
  const tsl_expr *ld = tsl_expr_load(arena, A, 1, &idx);
  const tsl_expr *c1 = tsl_expr_float(arena, TSL_FLOAT32, 1.0);
  const tsl_expr *c2 = tsl_expr_float(arena, TSL_FLOAT32, 2.0);
  const tsl_expr *f = tsl_expr_binary(
      arena, TSL_EXPR_ADD, tsl_expr_binary(arena, TSL_EXPR_ADD, ld, c1), c2);
  const tsl_expr *fs = tsl_simplify(an, arena, f);
  is_str(tu_fmt(fs), "A[i * 4 + j] + T.float32(1) + T.float32(2)",
         "float: indices simplified, no reassociation");
  const tsl_expr *fx = tsl_expr_binary(arena, TSL_EXPR_SUB, ld, ld);
  ok(tsl_simplify(an, arena, fx)->kind == TSL_EXPR_SUB, "float x - x kept");
  const tsl_expr *cast = tsl_expr_cast(arena, TSL_FLOAT32, tu_parse(&env, "i + i"));
  is_str(tu_fmt(tsl_simplify(an, arena, cast)), "T.Cast(\"float32\", i * 2)",
         "int operand of a cast is simplified");
  const tsl_expr *cidx = tu_parse(&env, "i * 4 + j");
  const tsl_expr *same = tsl_expr_binary(arena, TSL_EXPR_MUL,
                                         tsl_expr_load(arena, A, 1, &cidx), c2);
  ok(tsl_simplify(an, arena, same) == same, "unchanged expression is shared");
}

static void test_bounds_prove(void) {
  reset(TSL_INT32);
  bind("i", 0, 16);
  bind("j", 0, 4);
  int64_t lo, hi;
  ok(tsl_analyzer_const_bound(an, simp("i*4 + j"), &lo, &hi) && lo == 0 && hi == 63,
     "bound i*4+j = [0, 63]");
  ok(tsl_analyzer_const_bound(an, tu_parse(&env, "j - i * 2"), &lo, &hi) &&
         lo == -30 && hi == 3,
     "bound j - 2i = [-30, 3]");
  ok(tsl_analyzer_const_bound(an, tu_parse(&env, "y % 8"), &lo, &hi) && lo == 0 &&
         hi == 7,
     "bound y %% 8 = [0, 7]");
  ok(tsl_analyzer_const_bound(an, tu_parse(&env, "i // 4 - j"), &lo, &hi) &&
         lo == -3 && hi == 3,
     "bound i//4 - j = [-3, 3]");
  ok(tsl_analyzer_const_bound(an, tu_parse(&env, "min(i, y)"), &lo, &hi) == 0 &&
         hi == INT64_MAX && lo == INT64_MIN,
     "bound min(i, y): half-bounded reports neither side");
  ok(tsl_analyzer_can_prove(an, tu_parse(&env, "min(i, y) <= 15")),
     "but min(i, y) <= 15 is provable");
  ok(tsl_analyzer_const_bound(an, tu_parse(&env, "(i - 8) * (j - 2)"), &lo, &hi) &&
         lo <= -16 && hi >= 14,
     "bound of a product covers [-16, 14]");
  ok(!tsl_analyzer_const_bound(an, tu_parse(&env, "y"), &lo, &hi) &&
         lo == INT64_MIN && hi == INT64_MAX,
     "unbound int32 var is not finite-bounded as int64 range");
  ok(tsl_analyzer_can_prove(an, tu_parse(&env, "i*4 + j < 64")), "prove i*4+j < 64");
  ok(!tsl_analyzer_can_prove(an, tu_parse(&env, "i*4 + j < 63")), "no proof of < 63");
  ok(tsl_analyzer_can_prove(an, tu_parse(&env, "i >= 0 and j <= 3")), "prove conjunction");
  ok(!tsl_analyzer_can_prove(an, tu_parse(&env, "y >= 0")), "no proof on unbound");
  ok(tsl_analyzer_equal(an, tu_parse(&env, "i*4 + j"), tu_parse(&env, "j + 4*i")),
     "equal: commuted");
  ok(tsl_analyzer_equal(an, tu_parse(&env, "(i*4 + j) // 4"), tu_parse(&env, "i")),
     "equal: with bounds");
  ok(!tsl_analyzer_equal(an, tu_parse(&env, "y // 4"), tu_parse(&env, "y")),
     "not equal: y//4 vs y");
  /* rebinding replaces, unbind forgets */
  bind("i", 0, 4);
  check("i // 4", "0");
  tsl_analyzer_unbind(an, tu_var(&env, "i"));
  is_str(tu_fmt(simp("i // 4")), "i // 4", "unbind forgets the range");
  /* symbolic bind reduced to constants */
  const tsl_var *vo = tu_var(&env, "vo");
  const tsl_var *k = tu_var(&env, "k");
  tsl_analyzer_bind(an, vo, tsl_expr_i32(arena, 0), tsl_expr_i32(arena, 4));
  tsl_analyzer_bind(an, k, tu_parse(&env, "vo * 4"), tsl_expr_i32(arena, 4));
  ok(tsl_analyzer_const_bound(an, tsl_expr_var(k), &lo, &hi) && lo == 0 && hi == 15,
     "symbolic min reduced to [0, 15]");
  /* bind_value substitutes */
  const tsl_var *f = tu_var(&env, "f");
  tsl_analyzer_bind_value(an, f, tu_parse(&env, "vo * 4 + 1"));
  is_str(tu_fmt(simp("f * 2 - vo * 8")), "2", "bind_value substitutes");
}

/* symbolic ranges (TVM's int_set), extent-1 binds, symbolic divisors */
static void test_symbolic(void) {
  reset(TSL_INT32);
  int64_t lo, hi;
  /* TVM's Analyzer::Bind: a range of extent 1 binds the value */
  bind("u", 3, 1);
  bind("j", 0, 8);
  check("u * 2 + j", "j + 6");
  is_str(tu_fmt(simp("u")), "3", "an extent-1 bind substitutes the value");
  bind("u", 0, 4);
  is_str(tu_fmt(simp("u * 2")), "u * 2", "a later bind of extent 4 forgets the value");
  const tsl_var *w = tu_var(&env, "w");
  tsl_analyzer_bind_bounds(an, w, tsl_expr_i32(arena, 0), tsl_expr_i32(arena, 1));
  is_str(tu_fmt(simp("w * 8 + j")), "w * 8 + j", "bind_bounds keeps a unit var");
  ok(tsl_analyzer_const_bound(an, tsl_expr_var(w), &lo, &hi) && lo == 0 && hi == 0,
     "bind_bounds of extent 1: w in [0, 0]");
  check("(w * 8 + j) // 8", "w");

  /* proofs by symbolic bounds: k0 in [0, n), k1 in [0, 32) */
  const tsl_var *k0 = tu_var(&env, "k0"), *k1 = tu_var(&env, "k1");
  tsl_analyzer_bind(an, k0, tsl_expr_i32(arena, 0), tu_parse(&env, "n"));
  tsl_analyzer_bind(an, k1, tsl_expr_i32(arena, 0), tsl_expr_i32(arena, 32));
  const tsl_expr *c1 = tu_parse(&env, "k0 * 32 + k1 < n * 32");
  ok(!tsl_analyzer_can_prove(an, c1), "k0*32 + k1 < n*32: not by constant bounds");
  ok(tsl_analyzer_can_prove_bound(an, c1), "k0*32 + k1 < n*32: by symbolic bounds");
  ok(tsl_analyzer_can_prove_bound(an, tu_parse(&env, "n * 32 > k1 + k0 * 32")),
     "n*32 > k1 + k0*32: by symbolic bounds");
  ok(!tsl_analyzer_can_prove_bound(an, tu_parse(&env, "k0 * 32 + k1 < n * 32 - 1")),
     "k0*32 + k1 < n*32 - 1: not provable");
  ok(tsl_analyzer_can_prove_bound(an, tu_parse(&env, "k0 * 32 + k1 <= n * 32 - 1")),
     "k0*32 + k1 <= n*32 - 1");
  ok(tsl_analyzer_can_prove_bound(an, tu_parse(&env, "k0 * 32 + k1 >= 0")), "... >= 0");
  ok(!tsl_analyzer_can_prove_bound(an, tu_parse(&env, "k0 * 32 + k1 == 0")),
     "equalities are not proven by bounds");
  /* a range over another ranged variable is relaxed again */
  const tsl_var *k2 = tu_var(&env, "k2");
  tsl_analyzer_bind(an, k2, tu_parse(&env, "k0"), tsl_expr_i32(arena, 4));
  ok(tsl_analyzer_can_prove_bound(an, tu_parse(&env, "k2 < n + 3")), "k2 in [k0, k0 + 4)");
  ok(!tsl_analyzer_can_prove_bound(an, tu_parse(&env, "k2 < n + 2")), "but not < n + 2");

  /* symbolic divisors: multiples of the divisor split off */
  check("(x * n + y) // n", "x + y // n");
  check("(n * 32) // n", "32");
  check("(n * 32) % n", "0");
  check("(x * n * 4 + y) % (n * 4)", "y % (n * 4)");
  check("(x * n * 4 + y) // (n * 2)", "x * 2 + y // (n * 2)");
  check("(n * 32 - 1) // n", "-1 // n + 32");
  check("x // n", "x // n");
  /* TVM's min/max absorption */
  check("min(x, max(x, y))", "x");
  check("min(max(y, x), x)", "x");
  check("max(x, min(y, x))", "x");
  check("min(n * 32 - 1, max(0, n * 32 - 1))", "n * 32 - 1");

  /* shape variables: non-negative, and never a zero divisor */
  reset(TSL_INT32);
  tsl_analyzer_mark_nonneg(an, tu_parse(&env, "n * 32"));
  ok(tsl_analyzer_const_bound(an, tu_parse(&env, "-1 // n"), &lo, &hi) && lo == -1 &&
         hi == -1,
     "-1 // n = -1 for n >= 0 (no zero divisor)");
  ok(tsl_analyzer_can_prove(an, tu_parse(&env, "f % n >= 0")), "f %% n >= 0");
  const tsl_var *f = tu_var(&env, "f");
  tsl_analyzer_bind(an, f, tsl_expr_i32(arena, 0), tu_parse(&env, "n * 32"));
  ok(tsl_analyzer_can_prove(an, tu_parse(&env, "f // n >= 0")), "f // n >= 0");
  ok(tsl_analyzer_can_prove_bound(an, tu_parse(&env, "f // n < 32")),
     "f // n < 32 for f in [0, n * 32)");
  ok(tsl_analyzer_can_prove_bound(an, tu_parse(&env, "f % n < n")), "f %% n < n");
  ok(!tsl_analyzer_can_prove_bound(an, tu_parse(&env, "f // n < 31")), "not f // n < 31");
  tsl_analyzer_mark_nonneg(an, tu_parse(&env, "m * 32 - 64"));
  ok(tsl_analyzer_const_bound(an, tu_parse(&env, "min(m, 100)"), &lo, &hi) && lo == 2,
     "m * 32 - 64 >= 0 gives m >= 2");
}

static void relax_case(const char *src, int n, const char **names,
                       const int64_t *mins, const int64_t *exts,
                       const char *want_min, const char *want_ext) {
  const tsl_var *vars[4];
  tsl_range doms[4];
  for (int i = 0; i < n; i++) {
    vars[i] = tu_var(&env, names[i]);
    doms[i].min = tsl_expr_int(arena, env.dt, mins[i]);
    doms[i].extent = tsl_expr_int(arena, env.dt, exts[i]);
  }
  tsl_range out = {0};
  int rc = tsl_analyzer_relax(an, arena, tu_parse(&env, src), (uint32_t)n, vars,
                              doms, &out);
  if (!ok(rc == TSL_OK, "relax %s ok", src))
    return;
  is_str(tu_fmt(out.min), want_min, "relax %s: min", src);
  is_str(tu_fmt(out.extent), want_ext, "relax %s: extent", src);
}

static void test_relax(void) {
  reset(TSL_INT32);
  const char *k[] = {"k"}, *ik[] = {"i", "k"};
  int64_t z[] = {0, 0}, e16[] = {16}, e4_16[] = {4, 16};
  relax_case("vi*16 + k", 1, k, z, e16, "vi * 16", "16");
  relax_case("k + vi*16", 1, k, z, e16, "vi * 16", "16");
  relax_case("i*16 + k", 2, ik, z, e4_16, "0", "64");
  relax_case("k - i", 2, ik, z, e4_16, "-3", "19");
  relax_case("k // 4", 1, k, z, e16, "0", "4");
  relax_case("(vi*16 + k) // 4", 1, k, z, e16, "vi * 4", "4");
  relax_case("min(k, 5)", 1, k, z, e16, "0", "6");
  relax_case("k % 4 + vi", 1, k, z, e16, "vi", "4");
  relax_case("(vi * 16 + k) % 32", 1, k, z, e16, "vi % 2 * 16", "16");
  relax_case("vi * 2", 1, k, z, e16, "vi * 2", "1");
  /* symbolic domain: k in [vo*4, vo*4 + 4) */
  {
    const tsl_var *kv = tu_var(&env, "k");
    tsl_range d = {tu_parse(&env, "vo * 4"), tsl_expr_i32(arena, 4)};
    tsl_range out;
    int rc = tsl_analyzer_relax(an, arena, tu_parse(&env, "k * 2 + 1"), 1, &kv,
                                &d, &out);
    ok(rc == TSL_OK, "relax symbolic domain ok");
    if (rc == TSL_OK) {
      is_str(tu_fmt(out.min), "vo * 8 + 1", "symbolic domain: min");
      is_str(tu_fmt(out.extent), "7", "symbolic domain: extent");
    }
    /* symbolic extent */
    tsl_range d2 = {tsl_expr_i32(arena, 0), tu_parse(&env, "n")};
    rc = tsl_analyzer_relax(an, arena, tu_parse(&env, "k * 3 + m"), 1, &kv, &d2, &out);
    ok(rc == TSL_OK, "relax symbolic extent ok");
    if (rc == TSL_OK) {
      is_str(tu_fmt(out.min), "m", "symbolic extent: min");
      is_str(tu_fmt(out.extent), "n * 3 - 2", "symbolic extent: extent");
    }
    rc = tsl_analyzer_relax(an, arena, tu_parse(&env, "x * k"), 1, &kv, &d, &out);
    ok(rc == TSL_EUNSUPPORTED, "x*k with x unbounded is unsupported");
  }
  /* relax ignores (and restores) an existing binding of a relaxed var */
  bind("k", 0, 2);
  relax_case("k // 4", 1, k, z, e16, "0", "4");
  check("k // 4", "0");
  /* several expressions over one binding: each as relaxed alone, a failure
   * marked in ok[] without touching the others; the binding restored */
  {
    const tsl_var *kv = tu_var(&env, "k");
    tsl_range d = {tsl_expr_i32(arena, 0), tsl_expr_i32(arena, 16)};
    const tsl_expr *es[3] = {tu_parse(&env, "vi * 16 + k"), tu_parse(&env, "x * k"),
                             tu_parse(&env, "k // 4 + vi")};
    tsl_range out[3] = {{0}};
    int oks[3] = {-1, -1, -1};
    int rc = tsl_analyzer_relax_n(an, arena, 3, es, 1, &kv, &d, out, oks);
    ok(rc == TSL_OK && oks[0] == 1 && oks[1] == 0 && oks[2] == 1, "relax_n: ok flags 1 0 1");
    if (oks[0] == 1 && oks[2] == 1) {
      is_str(tu_fmt(out[0].min), "vi * 16", "relax_n: first min");
      is_str(tu_fmt(out[0].extent), "16", "relax_n: first extent");
      is_str(tu_fmt(out[2].min), "vi", "relax_n: third min");
      is_str(tu_fmt(out[2].extent), "4", "relax_n: third extent");
    }
    ok(out[1].min == NULL, "relax_n: a failed expression leaves its range");
    check("k // 4", "0");
    ok(tsl_analyzer_relax_n(an, arena, 1, es, 1, &kv, NULL, out, oks) == TSL_EUNSUPPORTED,
       "relax_n: variables without domains are refused");
  }
}

static void test_caps(void) {
  reset(TSL_INT32);
  /* deep nesting: input comes back unchanged, no crash */
  const tsl_expr *e = tsl_expr_var(tu_var(&env, "x"));
  for (int i = 0; i < 20000; i++)
    e = tsl_expr_unary(arena, TSL_EXPR_NEG, e);
  ok(tsl_simplify(an, arena, e) == e, "20000-deep expression returned unchanged");
  int64_t lo, hi;
  ok(!tsl_analyzer_const_bound(an, e, &lo, &hi) || lo <= hi,
     "const_bound on a deep expression returns");
  /* deep left- and right-nested sums of distinct vars */
  const tsl_expr *l = tsl_expr_var(tu_var(&env, "x"));
  const tsl_expr *rr = tsl_expr_var(tu_var(&env, "x"));
  for (int i = 0; i < 100000; i++) {
    const tsl_expr *t = tsl_expr_var(tu_var(&env, i % 2 ? "y" : "z"));
    l = tsl_expr_binary(arena, i % 3 ? TSL_EXPR_ADD : TSL_EXPR_FLOORDIV, l, t);
    rr = tsl_expr_binary(arena, i % 3 ? TSL_EXPR_SUB : TSL_EXPR_MIN, t, rr);
  }
  ok(tsl_simplify(an, arena, l) == l, "100000-deep left-nested tree unchanged");
  ok(tsl_simplify(an, arena, rr) == rr, "100000-deep right-nested tree unchanged");
  ok(!tsl_analyzer_can_prove(an, tsl_expr_binary(arena, TSL_EXPR_LT, l, rr)),
     "can_prove on deep trees gives up");
  /* moderately deep: still simplified */
  const tsl_expr *s = tsl_expr_var(tu_var(&env, "x"));
  for (int i = 0; i < 300; i++)
    s = tsl_expr_binary(arena, TSL_EXPR_ADD, s, tsl_expr_i32(arena, 1));
  is_str(tu_fmt(tsl_simplify(an, arena, s)), "x + 300", "300-deep sum folds");
  /* exponential value chains hit the work budget */
  const tsl_var *v[64];
  char name[16];
  for (int i = 0; i < 64; i++) {
    snprintf(name, sizeof name, "v%d", i);
    v[i] = tu_var(&env, name);
  }
  for (int i = 0; i < 63; i++)
    tsl_analyzer_bind_value(an, v[i], tsl_expr_binary(arena, TSL_EXPR_ADD,
                                                      tsl_expr_var(v[i + 1]),
                                                      tsl_expr_var(v[i + 1])));
  const tsl_expr *root = tsl_expr_var(v[0]);
  const tsl_expr *r = tsl_simplify(an, arena, root);
  ok(r == root, "exponential substitution gives up and returns the input");
  /* cyclic value binding */
  tsl_analyzer_bind_value(an, v[63], tsl_expr_binary(arena, TSL_EXPR_ADD,
                                                     tsl_expr_var(v[63]),
                                                     tsl_expr_i32(arena, 1)));
  r = tsl_simplify(an, arena, tsl_expr_var(v[63]));
  ok(r->kind == TSL_EXPR_VAR, "cyclic binding returns the input");
  /* a wide sum stays fast */
  reset(TSL_INT32);
  const tsl_expr *w = tsl_expr_i32(arena, 0);
  for (int i = 0; i < 200; i++) {
    snprintf(name, sizeof name, "w%03d", i);
    w = tsl_expr_binary(arena, TSL_EXPR_ADD, w, tsl_expr_var(tu_var(&env, name)));
  }
  const tsl_expr *ws = tsl_simplify(an, arena, tsl_expr_binary(arena, TSL_EXPR_SUB, w, w));
  is_str(tu_fmt(ws), "0", "200-term sum minus itself is 0");
  /* polynomial expansion is capped */
  const tsl_expr *p = tu_parse(&env, "(a + b + c + d + e + f + g + h + 1)");
  const tsl_expr *pp = p;
  for (int i = 0; i < 6; i++)
    pp = tsl_expr_binary(arena, TSL_EXPR_MUL, pp, p);
  const tsl_expr *ps = tsl_simplify(an, arena, tsl_expr_binary(arena, TSL_EXPR_SUB, pp, pp));
  ok(ps != NULL, "capped polynomial expansion returns");
  is_int(mismatches(pp, tsl_simplify(an, arena, pp)), 0, "capped product stays sound");
}

/* ---- randomized soundness ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

static const tsl_var *rvars[3];

static const tsl_expr *gen(int depth);

static const tsl_expr *gen_cmp(int depth) {
  static const tsl_expr_kind ks[] = {TSL_EXPR_LT, TSL_EXPR_LE, TSL_EXPR_EQ,
                                     TSL_EXPR_NE, TSL_EXPR_GT, TSL_EXPR_GE};
  return tsl_expr_binary(arena, ks[rnd(6)], gen(depth + 1), gen(depth + 1));
}

static const tsl_expr *gen(int depth) {
  uint32_t r = rnd(depth > 4 ? 2 : 16);
  switch (r) {
  case 0:
    return tsl_expr_i32(arena, (int64_t)rnd(19) - 9);
  case 1:
    return tsl_expr_var(rvars[rnd(3)]);
  case 2:
  case 3:
    return tsl_expr_binary(arena, TSL_EXPR_ADD, gen(depth + 1), gen(depth + 1));
  case 4:
    return tsl_expr_binary(arena, TSL_EXPR_SUB, gen(depth + 1), gen(depth + 1));
  case 5:
  case 6: {
    const tsl_expr *c = tsl_expr_i32(arena, (int64_t)rnd(11) - 5);
    return rnd(3) ? tsl_expr_binary(arena, TSL_EXPR_MUL, gen(depth + 1), c)
                  : tsl_expr_binary(arena, TSL_EXPR_MUL, gen(depth + 1), gen(depth + 1));
  }
  case 7:
  case 8:
  case 9:
  case 10: {
    static const tsl_expr_kind ks[] = {TSL_EXPR_FLOORDIV, TSL_EXPR_FLOORMOD,
                                       TSL_EXPR_DIV, TSL_EXPR_MOD};
    int64_t c = (int64_t)rnd(9) - 3; /* includes 0 and negatives */
    const tsl_expr *d = rnd(5) ? tsl_expr_i32(arena, c) : gen(depth + 1);
    return tsl_expr_binary(arena, ks[rnd(r == 7 || r == 8 ? 2 : 4)], gen(depth + 1), d);
  }
  case 11:
    return tsl_expr_binary(arena, rnd(2) ? TSL_EXPR_MIN : TSL_EXPR_MAX,
                           gen(depth + 1), gen(depth + 1));
  case 12:
    return tsl_expr_select(arena, gen_cmp(depth + 1), gen(depth + 1), gen(depth + 1));
  case 13:
    return tsl_expr_unary(arena, TSL_EXPR_NEG, gen(depth + 1));
  case 14: {
    /* nested div/mod chains, the shapes split/fuse produce */
    const tsl_expr *x = gen(depth + 1);
    int64_t a = rnd(6) + 1, b = rnd(6) + 1;
    tsl_expr_kind k1 = rnd(2) ? TSL_EXPR_FLOORDIV : TSL_EXPR_FLOORMOD;
    tsl_expr_kind k2 = rnd(2) ? TSL_EXPR_FLOORDIV : TSL_EXPR_FLOORMOD;
    const tsl_expr *in = tsl_expr_binary(arena, k1, x, tsl_expr_i32(arena, a * b));
    return tsl_expr_binary(arena, k2, in, tsl_expr_i32(arena, a));
  }
  default: {
    /* x // c * c + x % c and friends */
    const tsl_expr *x = gen(depth + 1);
    const tsl_expr *c = tsl_expr_i32(arena, rnd(5) + 1);
    const tsl_expr *q = tsl_expr_binary(arena, TSL_EXPR_MUL,
                                        tsl_expr_binary(arena, TSL_EXPR_FLOORDIV, x, c), c);
    return tsl_expr_binary(arena, TSL_EXPR_ADD, q,
                           tsl_expr_binary(arena, TSL_EXPR_FLOORMOD, x, c));
  }
  }
}

static void test_random(void) {
  int failures = 0, changed = 0, relax_bad = 0, bound_bad = 0, relax_ok = 0;
  int not_idem = 0;
  /* TESSEL_SIMPLIFY_ITERS / TESSEL_SIMPLIFY_SEED widen the search */
  const char *it = getenv("TESSEL_SIMPLIFY_ITERS"), *sd = getenv("TESSEL_SIMPLIFY_SEED");
  const int N = it ? atoi(it) : 3000;
  if (sd)
    rng ^= strtoull(sd, NULL, 10) * 0x2545F4914F6CDD1DULL;
  for (int iter = 0; iter < N; iter++) {
    reset(TSL_INT32);
    rvars[0] = tu_var(&env, "x");
    rvars[1] = tu_var(&env, "y");
    rvars[2] = tu_var(&env, "z");
    /* random small domains, some negative */
    for (int i = 0; i < 3; i++) {
      int64_t lo = (int64_t)rnd(13) - 6, ext = rnd(9) + 1;
      bind(rvars[i]->name, lo, ext);
    }
    const tsl_expr *e = rnd(6) ? gen(0) : gen_cmp(0);
    const tsl_expr *s = tsl_simplify(an, arena, e);
    changed += s != e;
    int bad = mismatches(e, s);
    if (bad && failures++ < 5)
      tap_diag("random case %d unsound: %s  ->  %s", iter, tu_fmt(e), tu_fmt(s));
    const tsl_expr *s2 = tsl_simplify(an, arena, s);
    if (!tsla_expr_same(s, s2) && not_idem++ < 5)
      tap_diag("not idempotent: %s  ->  %s  ->  %s", tu_fmt(e), tu_fmt(s), tu_fmt(s2));
    if (tsl_dtype_is_bool(e->dtype))
      continue;
    /* const_bound brackets every defined value */
    int64_t lo, hi;
    tsl_analyzer_const_bound(an, e, &lo, &hi);
    tu_assign as = {3, {rvars[0], rvars[1], rvars[2]}, {0}};
    for (int64_t a = bounds[0].lo; a < bounds[0].lo + bounds[0].ext; a++)
      for (int64_t b = bounds[1].lo; b < bounds[1].lo + bounds[1].ext; b++)
        for (int64_t c = bounds[2].lo; c < bounds[2].lo + bounds[2].ext; c++) {
          as.vals[0] = a, as.vals[1] = b, as.vals[2] = c;
          int64_t v;
          if (tu_eval(e, &as, &v) && (v < lo || v > hi)) {
            if (bound_bad++ < 3)
              tap_diag("bound [%lld, %lld] misses %lld for %s", (long long)lo,
                       (long long)hi, (long long)v, tu_fmt(e));
          }
        }
    /* relax over x (and sometimes y): every value lies in the range */
    uint32_t nr = 1 + rnd(2);
    tsl_range doms[2];
    for (uint32_t i = 0; i < nr; i++) {
      doms[i].min = tsl_expr_i32(arena, bounds[i].lo);
      doms[i].extent = tsl_expr_i32(arena, bounds[i].ext);
    }
    tsl_range out;
    if (tsl_analyzer_relax(an, arena, e, nr, rvars, doms, &out) != TSL_OK)
      continue;
    relax_ok++;
    for (int64_t a = bounds[0].lo; a < bounds[0].lo + bounds[0].ext; a++)
      for (int64_t b = bounds[1].lo; b < bounds[1].lo + bounds[1].ext; b++)
        for (int64_t c = bounds[2].lo; c < bounds[2].lo + bounds[2].ext; c++) {
          as.vals[0] = a, as.vals[1] = b, as.vals[2] = c;
          int64_t v, mn, ex;
          if (!tu_eval(e, &as, &v))
            continue;
          if (!tu_eval(out.min, &as, &mn) || !tu_eval(out.extent, &as, &ex) ||
              v < mn || v >= mn + ex) {
            if (relax_bad++ < 3)
              tap_diag("relax of %s gave [%s, +%s) missing %lld", tu_fmt(e),
                       tu_fmt(out.min), tu_fmt(out.extent), (long long)v);
          }
        }
  }
  is_int(failures, 0, "random soundness: %d expressions, none changed value", N);
  ok(changed > N / 2, "random: most expressions were rewritten (%d)", changed);
  is_int(not_idem, 0, "random: simplify is idempotent");
  is_int(bound_bad, 0, "random: const_bound brackets all values");
  is_int(relax_bad, 0, "random: relax covers all values (%d relaxed)", relax_ok);
  ok(relax_ok > N / 4, "random: relax succeeded often");
}

int main(void) {
  ctx = tsl_ctx_new();
  arena = tsl_arena_new(ctx);
  test_folding();
  test_affine();
  test_divmod();
  test_minmax_cmp();
  test_dtypes();
  test_non_integer();
  test_bounds_prove();
  test_symbolic();
  test_relax();
  test_caps();
  test_random();
  tsl_analyzer_free(an);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
