/*
 * Specialization (tessel/analysis.h, TVM's PrimFunc.specialize with
 * constants): a symbolic size or a scalar parameter bound to a value, the
 * shapes and extents folded to constants, bound scalar parameters removed
 * from the signature, what is not bound left symbolic; the result compared
 * as printed text and run by the interpreter against the original with
 * the same values; every refusal names what would be valid; and every
 * program of workloads/ and tests/programs/ with something to bind,
 * specialized and run against the original.
 */
#include "parsed_fixture.h"
#include "tessel/analysis.h"
#include "tessel/interp.h"
#include "tessel/script.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_files.h"

/* C[m, 8] = A[m, 8] @ B[8, 8] through an intermediate of shape (m * 2, 8)
 * (its upper half only), with a size n left unbound by some cases. */
static const char *src_dyn =
    "@T.prim_func\n"
    "def main(a: T.handle, b: T.handle, c: T.handle, d: T.handle):\n"
    "    m = T.int64()\n"
    "    n = T.int64()\n"
    "    A = T.match_buffer(a, (m, T.int64(8)))\n"
    "    B = T.match_buffer(b, (T.int64(8), T.int64(8)))\n"
    "    C = T.match_buffer(c, (m, T.int64(8)))\n"
    "    D = T.match_buffer(d, (n,))\n"
    "    T2 = T.alloc_buffer((m * T.int64(2), T.int64(8)))\n"
    "    for i, j, k in T.grid(m, T.int64(8), T.int64(8)):\n"
    "        with T.block(\"T2\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                T2[vi, vj] = T.float32(0)\n"
    "            T2[vi, vj] = T2[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "    for i, j in T.grid(m, T.int64(8)):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            C[vi, vj] = T2[vi, vj]\n"
    "    for i in range(n):\n"
    "        with T.block(\"D\"):\n"
    "            vi = T.axis.spatial(n, i)\n"
    "            D[vi] = D[vi] * T.float32(2)\n";

/* Scalars: a length that is also a shape, and a float factor. */
static const char *src_scalar =
    "@T.prim_func\n"
    "def main(a: T.handle, b: T.handle, n: T.int32, alpha: T.float32):\n"
    "    A = T.match_buffer(a, (n,), \"float32\")\n"
    "    B = T.match_buffer(b, (n,), \"float32\")\n"
    "    for i in range(n):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(n, i)\n"
    "            B[vi] = A[vi] * alpha + T.Cast(\"float32\", vi)\n";

static void setup(fixture *fx, const char *src) { fixture_parse(fx, "spec.py", src); }
static void teardown(fixture *fx) { fixture_free(fx); }

static int contains(const char *hay, const char *needle) {
  return hay && strstr(hay, needle) != NULL;
}

static void binds_sizes(void) {
  fixture fx;
  setup(&fx, src_dyn);
  const char *names[] = {"m", "n"}, *values[] = {"24", "5"};
  const tsl_func *g = NULL;
  tsl_diag d = {0};
  is_int(tsl_func_specialize(fx.arena, fx.f, 2, names, values, &g, &d), TSL_OK,
         "m and n bound");
  char *t = g ? tsl_print_func(g) : NULL;
  ok(contains(t, "A: T.Buffer((T.int64(24), T.int64(8)), \"float32\")"),
     "the parameter buffer's shape is constant");
  ok(contains(t, "D: T.Buffer((T.int64(5),), \"float32\")"), "so is the second size's");
  ok(contains(t, "T2 = T.alloc_buffer((T.int64(48), T.int64(8)))"),
     "an allocated shape m * 2 is folded to 48");
  ok(contains(t, "T.grid(T.int64(24), T.int64(8), T.int64(8))"), "loop extents are constant");
  ok(contains(t, "vi = T.axis.spatial(T.int64(5), i)"), "block iterator domains are constant");
  ok(!contains(t, "T.int64()"), "no size variable is declared any more");
  is_int(g ? g->n_params : 0, 4, "the four buffer parameters stay");
  char names_left[64];
  is_int(tsl_func_free_names(g, names_left, sizeof names_left), 0, "nothing is left to bind");
  if (!ok(t != NULL, "printed"))
    tap_diag("%s", d.text);
  free(t);

  /* same results as the original run with the same sizes */
  tsl_binding b[] = {{"m", 24}, {"n", 5}};
  tsl_equiv_report rep;
  int rc = g ? tsl_interp_check_equivalent(fx.f, g, b, 2, 11, &rep, &d) : -1;
  if (!ok(rc == TSL_OK, "the interpreter gives the original's outputs"))
    tap_diag("%s", d.text);
  is_int(rc ? 0 : rep.n_checked, 24 * 8 + 8 * 8 + 24 * 8 + 5,
         "every element of A, B, C and D compared");
  teardown(&fx);
}

static void binds_a_subset(void) {
  fixture fx;
  setup(&fx, src_dyn);
  const char *names[] = {"m"}, *values[] = {"16"};
  const tsl_func *g = NULL;
  tsl_diag d = {0};
  is_int(tsl_func_specialize(fx.arena, fx.f, 1, names, values, &g, &d), TSL_OK, "m bound");
  char left[64] = "";
  is_int(g ? tsl_func_free_names(g, left, sizeof left) : 99, 1, "n is still free");
  is_str(left, "n", "and named");
  char all[64] = "";
  is_int(tsl_func_free_names(fx.f, all, sizeof all), 2, "the original has two");
  is_str(all, "m, n", "in order of appearance");
  const tsl_func *same = NULL;
  is_int(tsl_func_specialize(fx.arena, fx.f, 0, NULL, NULL, &same, &d), TSL_OK, "no binds");
  ok(same == fx.f, "no binds returns the function itself");
  teardown(&fx);
}

static void binds_scalars(void) {
  fixture fx;
  setup(&fx, src_scalar);
  const char *names[] = {"alpha", "n"}, *values[] = {"0.5", "12"};
  const tsl_func *g = NULL;
  tsl_diag d = {0};
  is_int(tsl_func_specialize(fx.arena, fx.f, 2, names, values, &g, &d), TSL_OK,
         "a float and an int parameter bound");
  is_int(g ? g->n_params : 0, 2, "bound scalar parameters leave the signature");
  char *t = g ? tsl_print_func(g) : NULL;
  ok(contains(t, "def main(A: T.Buffer((12,), \"float32\"), B: T.Buffer((12,), \"float32\"))"),
     "the signature holds the two buffers, of constant shape");
  ok(contains(t, "A[vi] * T.float32(0.5)"), "the factor is a constant");
  free(t);

  /* the interpreter: the original with n = 12, alpha = 0.5 against the
   * specialized one on the same buffers */
  tsl_binding b[] = {{"n", 12}, {"alpha", 1}}; /* an int64 binding; 0.5 set below */
  tsl_arg args[4];
  memset(args, 0, sizeof args);
  int rc = tsl_func_make_args(fx.f, b, 2, 3, args, &d);
  if (!rc) {
    args[3].float_value = 0.5;
    rc = tsl_interp_run(fx.f, args, 4, &d);
  }
  tsl_arg args2[2];
  memset(args2, 0, sizeof args2);
  if (!rc && g)
    rc = tsl_func_make_args(g, NULL, 0, 3, args2, &d);
  if (!rc)
    rc = tsl_interp_run(g, args2, 2, &d);
  if (!ok(rc == TSL_OK, "both run"))
    tap_diag("%s", d.text);
  int same = !rc;
  for (int64_t k = 0; same && k < 12; k++)
    same = tsl_tensor_get(&args[1].tensor, k) == tsl_tensor_get(&args2[1].tensor, k) &&
           tsl_tensor_get(&args[0].tensor, k) == tsl_tensor_get(&args2[0].tensor, k);
  ok(same, "same inputs, same outputs (B = A * 0.5 + i)");
  ok(!rc && tsl_tensor_get(&args2[1].tensor, 3) ==
                (double)(float)((float)tsl_tensor_get(&args2[0].tensor, 3) * 0.5f + 3.0f),
     "B[3] is A[3] * 0.5 + 3");
  tsl_args_free(args, 4);
  tsl_args_free(args2, 2);
  teardown(&fx);
}

static void refuse(const char *src, const char *name, const char *value, int want,
                   const char *needle, const char *what) {
  fixture fx;
  setup(&fx, src);
  const char *names[] = {name}, *values[] = {value};
  const tsl_func *g = (const tsl_func *)1;
  tsl_diag d = {0};
  int rc = tsl_func_specialize(fx.arena, fx.f, 1, names, values, &g, &d);
  is_int(rc, want, "%s: refused", what);
  ok(g == NULL, "%s: no function", what);
  if (!ok(contains(d.text, needle), "%s: the message says '%s'", what, needle))
    tap_diag("got: %s", d.text);
  teardown(&fx);
}

static void refusals(void) {
  refuse(src_dyn, "k", "4", TSL_ENOTFOUND,
         "'k' is not a symbolic size or scalar parameter of 'main'; valid: m, n",
         "an unknown name");
  refuse(src_dyn, "m", "0", TSL_EINVALID,
         "'m' (int64 size) got '0'; valid: a positive integer (a size)", "a size of 0");
  refuse(src_dyn, "m", "3.5", TSL_EINVALID, "valid: a positive integer", "a fraction");
  refuse(src_scalar, "n", "-1", TSL_EINVALID, "'n' (int32 size) got '-1'",
         "a negative size given as a parameter");
  refuse(src_scalar, "alpha", "fast", TSL_EINVALID,
         "'alpha' (float32 scalar parameter) got 'fast'; valid: a finite number",
         "a float that is not a number");
  refuse(src_scalar, "n", "4294967296", TSL_EINVALID, "valid: a positive integer",
         "an int32 out of range");

  fixture fx;
  setup(&fx, src_dyn);
  const char *names[] = {"m", "m"}, *values[] = {"4", "8"};
  const tsl_func *g = NULL;
  tsl_diag d = {0};
  is_int(tsl_func_specialize(fx.arena, fx.f, 2, names, values, &g, &d), TSL_EINVALID,
         "a name bound twice is refused");
  ok(contains(d.text, "'m' is bound twice"), "and named");
  teardown(&fx);

  setup(&fx, "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n"
             "    for i in range(4):\n"
             "        with T.block(\"A\"):\n"
             "            vi = T.axis.spatial(4, i)\n"
             "            A[vi] = T.float32(1)\n");
  const char *n1[] = {"m"}, *v1[] = {"4"};
  is_int(tsl_func_specialize(fx.arena, fx.f, 1, n1, v1, &g, &d), TSL_ENOTFOUND,
         "a constant function has nothing to bind");
  ok(contains(d.text, "valid: none (nothing to bind)"), "and says so");
  teardown(&fx);
}

static void module_with_func(void) {
  fixture fx;
  setup(&fx, src_dyn);
  const char *names[] = {"m", "n"}, *values[] = {"2", "2"};
  const tsl_func *g = NULL;
  tsl_diag d = {0};
  tsl_func_specialize(fx.arena, fx.f, 2, names, values, &g, &d);
  const tsl_module *m2 = g ? tsl_module_with_func(fx.arena, fx.mod, g) : NULL;
  ok(m2 && m2 != fx.mod && m2->n_funcs == 1 && m2->funcs[0] == g,
     "the module holds the specialized function in its place");
  ok(fx.mod->funcs[0] == fx.f, "the original module is unchanged");
  teardown(&fx);
}

/* f on arguments drawn with `binds`, against g (f specialized with the
 * same values, its bound scalar parameters gone) on the same buffers:
 * every buffer equal afterwards. */
static int same_results(const tsl_func *f, const tsl_func *g, const tsl_binding *binds,
                        uint32_t n_binds, tsl_diag *d) {
  tsl_arg *a1 = calloc(f->n_params + 1, sizeof *a1), *a2 = calloc(f->n_params + 1, sizeof *a2);
  tsl_arg *ag = calloc(g->n_params + 1, sizeof *ag);
  int rc = tsl_func_make_args(f, binds, n_binds, 5, a1, d);
  if (!rc)
    rc = tsl_func_make_args(f, binds, n_binds, 5, a2, d);
  if (!rc)
    rc = tsl_interp_run(f, a1, f->n_params, d);
  uint32_t k = 0;
  for (uint32_t i = 0; !rc && i < f->n_params; i++)
    if (!a2[i].is_scalar && k < g->n_params)
      ag[k++] = a2[i]; /* shares a2's tensors */
  if (!rc && k != g->n_params)
    rc = tsl_diag_set(d, TSL_EINVALID, "%u buffers for %u parameters", k, g->n_params);
  if (!rc)
    rc = tsl_interp_run(g, ag, g->n_params, d);
  for (uint32_t i = 0, j = 0; !rc && i < f->n_params; i++) {
    if (a1[i].is_scalar)
      continue;
    const tsl_tensor *x = &a1[i].tensor, *y = &ag[j++].tensor;
    for (int64_t e = 0; !rc && e < tsl_tensor_numel(x); e++) {
      double u = tsl_tensor_get(x, e), v = tsl_tensor_get(y, e);
      if (u != v && !(isnan(u) && isnan(v)))
        rc = tsl_diag_set(d, TSL_EINVALID, "buffer %u differs at %lld: %g against %g", i,
                          (long long)e, u, v);
    }
  }
  tsl_args_free(a1, f->n_params);
  tsl_args_free(a2, f->n_params);
  free(a1);
  free(a2);
  free(ag);
  return rc;
}

/* Every function of workloads/ and tests/programs/ with something to bind:
 * each name bound to 3 (an integer for a size, a number for a float
 * parameter), nothing left to bind, the same results. */
static void every_program(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (!root) {
    ok(0, "TESSEL_SOURCE_ROOT is set");
    return;
  }
  const char *dirs[] = {"workloads", "tests/programs"};
  int checked = 0;
  for (int di = 0; di < 2; di++) {
    char dir[4200], *names[512];
    snprintf(dir, sizeof dir, "%.4000s/%s", root, dirs[di]);
    int n = tf_list(dir, ".py", 0, names, 512);
    for (int i = 0; i < n; i++) {
      char path[4400];
      snprintf(path, sizeof path, "%s/%s.py", dir, names[i]);
      tsl_ctx *ctx = tsl_ctx_new();
      tsl_arena *a = tsl_arena_new(ctx);
      const tsl_module *m = NULL;
      tsl_diag d = {0};
      for (uint32_t fi = 0; !tsl_parse_file(a, path, &m, &d) && fi < m->n_funcs; fi++) {
        const tsl_func *f = m->funcs[fi], *g = NULL;
        char free_list[512], shown[512];
        uint32_t nf = tsl_func_free_names(f, free_list, sizeof free_list);
        memcpy(shown, free_list, sizeof shown);
        if (!nf)
          continue;
        const char *bn[16], *bv[16];
        tsl_binding b[16];
        char *save = NULL, *tok = strtok_r(free_list, ", ", &save);
        uint32_t nb = 0;
        for (; tok && nb < 16; tok = strtok_r(NULL, ", ", &save), nb++) {
          bn[nb] = tok;
          bv[nb] = "3";
          b[nb] = (tsl_binding){tok, 3};
        }
        int rc = tsl_func_specialize(a, f, nb, bn, bv, &g, &d);
        char left[64] = "";
        if (!rc && tsl_func_free_names(g, left, sizeof left))
          rc = tsl_diag_set(&d, TSL_EINVALID, "left to bind: %s", left);
        if (!rc)
          rc = same_results(f, g, b, nb, &d);
        if (!ok(rc == TSL_OK, "%s/%s.py: %s, %s bound to 3, gives the same results",
                dirs[di], names[i], f->name, shown))
          tap_diag("%s", d.text);
        checked++;
      }
      tsl_arena_free(a);
      tsl_ctx_free(ctx);
      free(names[i]);
    }
  }
  /* matmul_dynamic, softmax_dynamic, scalar_params, symbolic_multi,
   * symbolic_scalar_loop when this was written */
  ok(checked >= 5, "every such program was checked (%d)", checked);
}

int main(void) {
  binds_sizes();
  binds_a_subset();
  binds_scalars();
  refusals();
  module_with_func();
  every_program();
  return tap_done();
}
