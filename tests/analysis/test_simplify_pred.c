/*
 * tsl_simplify_predicate: TVM's rewrite rules for bounds in predicates give
 * TVM's forms, and each result agrees with its input on every value of its
 * variables in a range around the constants involved.
 */
#include "tap.h"
#include "tutil.h"

static tsl_ctx *ctx;
static tsl_arena *A;
static tu_env env;

static void check(const char *in, const char *want) {
  tsl_analyzer *an = tsl_analyzer_new(ctx);
  const tsl_expr *e = tu_parse(&env, in);
  const tsl_expr *got = tsl_simplify_predicate(an, A, e);
  is_str(tu_fmt(got), want, "%s", in);
  const tsl_var *x = tu_var(&env, "x");
  int bad = 0;
  for (int64_t v = -300; v <= 20000 && !bad; v++) {
    tu_assign as = {1, {x}, {v}};
    int64_t a = 0, b = 0;
    tu_eval(e, &as, &a);
    tu_eval(got, &as, &b);
    if (a != b) {
      bad = 1;
      tap_diag("  differs at x = %lld", (long long)v);
    }
  }
  ok(!bad, "%s: same truth value everywhere", in);
  tsl_analyzer_free(an);
}

int main(void) {
  ctx = tsl_ctx_new();
  A = tsl_arena_new(ctx);
  env.a = A;
  env.dt = TSL_INT32;
  check("x // 128 < 127", "x < 16256");
  check("x // 128 < 127 and x % 128 < 127", "x < 16255 and x % 128 < 127");
  check("x // 64 < 60 and x % 64 < 63", "x < 3839 and x % 64 < 63");
  check("x < 30 and x % 8 < 5", "x < 29 and x % 8 < 5");
  check("x < 32 and x % 8 < 7", "x < 31 and x % 8 < 7");
  check("x < 29 and x % 8 < 7", "x < 29 and x % 8 < 7");
  check("x <= 31 and x % 8 < 7", "x < 31 and x % 8 < 7");
  check("x <= 31 and x % 8 < 9", "x <= 31");
  check("x // 4 > 2", "x > 11");
  check("x // 4 >= 2", "x > 7");
  check("x // 4 <= 2", "x < 12");
  check("x < 100 and x < 120", "x < 100");
  check("x > 3 and x > 1", "x > 3");
  check("x >= 1 and x < 100 and x < 120", "x >= 1 and x < 100");
  tsl_arena_free(A);
  tsl_ctx_free(ctx);
  return tap_done();
}
