/*
 * tests/feature/test_features.c — the per-store features (core/feature) on
 * small programs whose values were worked out by hand from TVM's
 * definitions (src/meta_schedule/feature_extractor/per_store_feature.cc):
 * layout and names, computation counts, loop kinds, buffer access (bytes,
 * lines, strides, loop and serial reuse), the arithmetic intensity curve,
 * allocations, outer scope; constant stores and constant selects skipped.
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <math.h>

static tsl_ctx *ctx;
static tsl_arena *arena;

static double slog(double x) { return log2(fabs(x) + 1); }

static const char *matmul =
    "@T.prim_func\n"
    "def main(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"),\n"
    "         C: T.Buffer((128, 128), \"float32\")):\n"
    "    for i, j, k in T.grid(128, 128, 128):\n"
    "        with T.block(\"matmul\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static const char *two_stage =
    "@T.prim_func\n"
    "def main(A: T.Buffer((64,), \"float32\"), C: T.Buffer((64,), \"float32\")):\n"
    "    B = T.alloc_buffer((64,), \"float32\")\n"
    "    for i in range(64):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(64, i)\n"
    "            B[vi] = A[vi] * T.float32(2)\n"
    "    for i in range(64):\n"
    "        with T.block(\"C\"):\n"
    "            vi = T.axis.spatial(64, i)\n"
    "            C[vi] = B[vi] + T.float32(1)\n";

static const char *serial =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 8), \"float32\"), B: T.Buffer((16, 8), \"float32\"),\n"
    "         C: T.Buffer((16, 8), \"float32\")):\n"
    "    for i in range(16):\n"
    "        for j in range(8):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = A[vi, vj] + T.float32(1)\n"
    "        for j in range(8):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = B[vi, vj] * T.float32(2)\n";

static const char *selects =
    "@T.prim_func\n"
    "def main(A: T.Buffer((64,), \"float32\"), C: T.Buffer((64,), \"float32\"),\n"
    "         D: T.Buffer((64,), \"float32\")):\n"
    "    for i in range(64):\n"
    "        with T.block(\"C\"):\n"
    "            vi = T.axis.spatial(64, i)\n"
    "            C[vi] = A[vi] + T.Select(vi < 8, T.float32(1), T.float32(0))\n"
    "    for i in range(64):\n"
    "        with T.block(\"D\"):\n"
    "            vi = T.axis.spatial(64, i)\n"
    "            D[vi] = T.Select(vi < 8, T.float32(1), T.float32(0))\n";

static const tsl_func *parse(const char *src) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (tsl_parse(arena, "t.py", src, strlen(src), &m, &d)) {
    printf("Bail out! parse: %s\n", d.text);
    exit(1);
  }
  return m->funcs[0];
}

static tsl_schedule *kept[8]; /* the scheduled functions live in them */
static int n_kept;

static const tsl_func *scheduled(const char *src, const char *script) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  tsl_schedule *sch = NULL;
  if (tsl_parse(arena, "t.py", src, strlen(src), &m, &d) ||
      tsl_schedule_new(ctx, m, NULL, &sch, &d) ||
      tsl_script_run(sch, "t.sch", script, strlen(script), &d)) {
    printf("Bail out! schedule: %s\n", d.text);
    exit(1);
  }
  kept[n_kept++] = sch;
  return tsl_schedule_func(sch);
}

static tsl_features features(const tsl_func *f) {
  tsl_features fs;
  tsl_diag d = {0};
  if (tsl_features_per_store(arena, f, NULL, &fs, &d)) {
    printf("Bail out! features: %s\n", d.text);
    exit(1);
  }
  return fs;
}

/* The column named `name` (by tsl_feature_name), or exits. */
static uint32_t col(const char *name) {
  char buf[64];
  for (uint32_t c = 0; c < TSL_FEATURE_DEFAULT_LEN; c++) {
    const char *n = tsl_feature_name(NULL, c, buf, sizeof buf);
    if (n && !strcmp(n, name))
      return c;
  }
  printf("Bail out! no column '%s'\n", name);
  exit(1);
}

static int near(double got, double want) { return fabs(got - want) <= 1e-9 * (1 + fabs(want)); }

/* row r's column `name` is slog(x) (or exactly x with raw) */
static void expect(const tsl_features *fs, uint32_t r, const char *name, double x, int raw) {
  double got = fs->values[(size_t)r * fs->row_len + col(name)];
  double want = raw ? x : slog(x);
  ok(near(got, want), "row %u %s = %s%g (got %.6g, want %.6g)", r, name, raw ? "" : "slog ", x,
     got, want);
}

static void test_layout(void) {
  char buf[64];
  is_int(tsl_feature_row_len(NULL), 164, "a row has TVM's 164 values by default");
  tsl_feature_opts o = {sizeof o, 3, 4, 0, 0};
  is_int(tsl_feature_row_len(&o), 57 + 3 * 18 + 4 + 7, "3 buffers, 4 samples: 57 + 54 + 4 + 7");
  is_str(tsl_feature_name(NULL, 0, buf, sizeof buf), "float_mad", "column 0: float_mad");
  is_str(tsl_feature_name(NULL, 49, buf, sizeof buf), "is_gpu", "column 49: is_gpu");
  is_str(tsl_feature_name(NULL, 57, buf, sizeof buf), "B0.acc_type.read", "column 57: B0.acc_type.read");
  is_str(tsl_feature_name(NULL, 146, buf, sizeof buf), "B4.stride", "column 146: B4.stride");
  is_str(tsl_feature_name(NULL, 147, buf, sizeof buf), "arith_intensity_0", "column 147: the curve");
  is_str(tsl_feature_name(NULL, 157, buf, sizeof buf), "alloc_size", "column 157: alloc_size");
  is_str(tsl_feature_name(NULL, 163, buf, sizeof buf), "auto_unroll_max_step",
         "column 163: auto_unroll_max_step");
  ok(tsl_feature_name(NULL, 164, buf, sizeof buf) == NULL, "column 164: none");
  is_str(tsl_feature_name(&o, 57 + 3 * 18, buf, sizeof buf), "arith_intensity_0",
         "names follow the options");
}

/* i, j, k over 128: C[i, j] += A[i, k] * B[k, j] */
static void test_matmul(void) {
  tsl_features fs = features(parse(matmul));
  is_int(fs.n_rows, 1, "matmul: one row (the init's constant store is skipped)");
  double n3 = 128.0 * 128 * 128;
  expect(&fs, 0, "float_add_sub", n3, 0);
  expect(&fs, 0, "float_mul", n3, 0);
  expect(&fs, 0, "int_add_sub", 0, 0);
  expect(&fs, 0, "vec_pos_none", 1, 1);
  expect(&fs, 0, "parallel_num", 0, 0);
  expect(&fs, 0, "is_gpu", 0, 1);
  expect(&fs, 0, "threadIdx_x_len", 1, 0);
  /* B[k, j] strides 128 along k: most lines, first */
  expect(&fs, 0, "B0.acc_type.read", 1, 1);
  expect(&fs, 0, "B0.stride", 128, 0);
  expect(&fs, 0, "B0.bytes", 4 * n3, 0);
  expect(&fs, 0, "B0.unique_bytes", 4 * 128 * 128, 0);
  expect(&fs, 0, "B0.lines", n3, 0);
  expect(&fs, 0, "B0.unique_lines", 128 * 128 * 4 / 64, 0);
  expect(&fs, 0, "B0.reuse_type.loop_multiple_read", 1, 1);
  expect(&fs, 0, "B0.reuse_ct", 128, 0);
  expect(&fs, 0, "B0.reuse_dis_iter", 128 * 128, 0);
  expect(&fs, 0, "B0.reuse_dis_bytes", (128 + 128 * 128 + 128) * 4, 0); /* under j */
  expect(&fs, 0, "B0.bytes_d_reuse_ct", 4 * n3 / 128, 0);
  /* A[i, k]: unit stride, 16 floats per line */
  expect(&fs, 0, "B1.stride", 1, 0);
  expect(&fs, 0, "B1.lines", n3 / 16, 0);
  expect(&fs, 0, "B1.reuse_dis_iter", 128, 0);
  expect(&fs, 0, "B1.reuse_dis_bytes", (128 + 128 + 1) * 4, 0); /* under k */
  /* C[i, j]: read and written, reused across k */
  expect(&fs, 0, "B2.acc_type.read_write", 1, 1);
  expect(&fs, 0, "B2.stride", 0, 0);
  expect(&fs, 0, "B2.lines", n3 / 128 / 16, 0);
  expect(&fs, 0, "B2.reuse_dis_iter", 1, 0);
  expect(&fs, 0, "B2.reuse_dis_bytes", 3 * 4, 0); /* TVM's top-loop value */
  expect(&fs, 0, "B3.bytes", 0, 1);
  /* the curve: 2 flops per k iteration; bytes under k, j, i */
  double ops[3] = {2.0 * 128, 2.0 * 128 * 128, 2 * n3};
  double mem[3] = {(128 + 128 + 1) * 4, (128 + 128 * 128 + 128) * 4, 3 * 128 * 128 * 4};
  for (int s = 0; s < 10; s++) {
    double cur = (s + 1) / 10.0 * ops[2];
    int p = cur <= ops[0] ? 0 : cur <= ops[1] ? 1 : 2;
    double v = p == 0 ? ops[0] / mem[0]
                      : ops[p - 1] / mem[p - 1] +
                            (ops[p] / mem[p] - ops[p - 1] / mem[p - 1]) /
                                (ops[p] - ops[p - 1]) * (cur - ops[p - 1]);
    char name[32];
    snprintf(name, sizeof name, "arith_intensity_%d", s);
    expect(&fs, 0, name, v, 0);
  }
  expect(&fs, 0, "alloc_size", 128 * 128 * 4, 0); /* the parameter C */
  expect(&fs, 0, "alloc_prod", 128 * 128, 0);
  expect(&fs, 0, "alloc_outer_prod", 1, 0);
  expect(&fs, 0, "alloc_inner_prod", n3, 0);
  expect(&fs, 0, "outer_prod", n3, 0);
  expect(&fs, 0, "num_loops", 3, 0);
  expect(&fs, 0, "auto_unroll_max_step", 0, 0);
}

static void test_loop_kinds(void) {
  const char *script = "b = sch.get_block(\"matmul\")\n"
                       "i, j, k = sch.get_loops(b)\n"
                       "j0, j1 = sch.split(j, [None, 8])\n"
                       "sch.parallel(i)\n"
                       "sch.vectorize(j1)\n"
                       "sch.unroll(k)\n"
                       "sch.annotate(i, \"pragma_auto_unroll_max_step\", 16)\n";
  tsl_features fs = features(scheduled(matmul, script));
  is_int(fs.n_rows, 1, "scheduled matmul: one row");
  expect(&fs, 0, "parallel_num", 1, 0);
  expect(&fs, 0, "parallel_prod", 128, 0);
  expect(&fs, 0, "parallel_len", 128, 0);
  expect(&fs, 0, "parallel_pos_mixed", 1, 1);
  expect(&fs, 0, "parallel_pos_none", 0, 1);
  expect(&fs, 0, "vec_num", 1, 0);
  expect(&fs, 0, "vec_prod", 8, 0);
  expect(&fs, 0, "vec_len", 8, 0);
  expect(&fs, 0, "unroll_num", 1, 0);
  expect(&fs, 0, "unroll_len", 128, 0);
  expect(&fs, 0, "num_loops", 4, 0);
  expect(&fs, 0, "auto_unroll_max_step", 16, 0);
  /* the split j = j0 * 8 + j1 appears in the indices: int ops per iteration */
  expect(&fs, 0, "int_mul", 2 * 128.0 * 128 * 128, 0);
  expect(&fs, 0, "int_add_sub", 2 * 128.0 * 128 * 128, 0);
}

static void test_two_stages(void) {
  tsl_features fs = features(parse(two_stage));
  is_int(fs.n_rows, 2, "two stages: two rows");
  expect(&fs, 0, "float_mul", 64, 0);
  expect(&fs, 0, "float_add_sub", 0, 0);
  expect(&fs, 1, "float_add_sub", 64, 0);
  expect(&fs, 0, "alloc_size", 256, 0); /* B, allocated outside the loops */
  expect(&fs, 0, "alloc_prod", 64, 0);
  expect(&fs, 0, "alloc_outer_prod", 1, 0);
  /* the first stage reads A[i] and writes B[i]: equal lines and bytes,
   * so sorted by name; no reuse */
  expect(&fs, 0, "B0.acc_type.read", 1, 1);
  expect(&fs, 0, "B1.acc_type.write", 1, 1);
  expect(&fs, 0, "B1.lines", 4, 0);
  expect(&fs, 0, "B1.unique_lines", 4, 0);
  expect(&fs, 0, "B1.reuse_type.no_reuse", 1, 1);
  expect(&fs, 0, "B1.bytes_d_reuse_ct", 256 / 0.5, 0);
  expect(&fs, 1, "alloc_size", 256, 0); /* the parameter C */
}

static void test_serial_reuse(void) {
  tsl_features fs = features(parse(serial));
  is_int(fs.n_rows, 2, "serial: two rows");
  /* row 1 (C = B * 2): the i loop touched B in both stores (128 elements
   * each): serial reuse, once; distance 128 elements and the bytes every
   * buffer took under i (A 128, B 2 x 128, C 128 floats), each over the 16
   * iterations of i */
  expect(&fs, 1, "B0.acc_type.read", 1, 1);
  expect(&fs, 1, "B0.reuse_type.serial_multiple_read_write", 1, 1);
  expect(&fs, 1, "B0.reuse_ct", 1, 0);
  expect(&fs, 1, "B0.reuse_dis_iter", 128.0 / 16, 0);
  expect(&fs, 1, "B0.reuse_dis_bytes", (128 + 256 + 128) * 4.0 / 16, 0);
  expect(&fs, 1, "B1.acc_type.write", 1, 1); /* C: the same lines, named after B */
  expect(&fs, 1, "B1.reuse_type.no_reuse", 1, 1);
}

static void test_selects(void) {
  tsl_features fs = features(parse(selects));
  is_int(fs.n_rows, 1, "a store of a constant select is skipped");
  expect(&fs, 0, "float_add_sub", 64, 0);
  expect(&fs, 0, "select_op", 0, 0);
  expect(&fs, 0, "int_cmp", 0, 0);
}

static void test_structured(void) {
  const tsl_stmt *body = NULL;
  tsl_diag d = {0};
  ok(tsl_lower_func_structured(arena, parse(two_stage), &body, &d) == TSL_OK && body,
     "tsl_lower_func_structured");
  char *text = tsl_print_stmt(body, 0);
  ok(text && strstr(text, "B = T.decl_buffer((64,)") && !strstr(text, "T.block"),
     "  ... blocks gone, B allocated with its shape");
  free(text);
  text = NULL;
  body = NULL;
  ok(tsl_lower_func_structured(arena, parse(serial), &body, &d) == TSL_OK && body &&
         (text = tsl_print_stmt(body, 0)) && strstr(text, "B[i, j] = A[i, j]"),
     "  ... buffers keep their dimensions");
  free(text);
}

int main(void) {
  ctx = tsl_ctx_new();
  arena = tsl_arena_new(ctx);
  test_layout();
  test_matmul();
  test_loop_kinds();
  test_two_stages();
  test_serial_reuse();
  test_selects();
  test_structured();
  for (int i = 0; i < n_kept; i++)
    tsl_schedule_free(kept[i]);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
