/*
 * Printer golden tests: IR built with the ir.h builders, printed, and
 * compared with the exact TVMScript TVM v0.19 would write.
 */
#include "cases.h"
#include "tap.h"
#include "tessel/script.h"

#include <math.h>
#include <stdlib.h>

static void check_module(const tsl_module *m, const char *want,
                         const char *name) {
  char *got = tsl_print_module(m);
  is_str(got, want, "%s", name);
  free(got);
}

static void check_expr(E e, const char *want) {
  char *got = tsl_print_expr(e);
  is_str(got, want, "expr %s", want);
  free(got);
}

static const tsl_func *single_func(const tsl_module *m) { return m->funcs[0]; }

static const char *matmul_text =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def main(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), "
    "\"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
    "        T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": "
    "T.bool(True)})\n"
    "        # with T.block(\"root\"):\n"
    "        D = T.alloc_buffer((128, 128))\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                T.reads(A[vi, vk], B[vj, vk])\n"
    "                T.writes(C[vi, vj])\n"
    "                with T.init():\n"
    "                    C[vi, vj] = T.float32(0)\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]\n";

static void test_matmul(tsl_arena *a) {
  tsl_module *m = case_matmul(a);
  check_module(m, matmul_text, "matmul module");
  /* bare function form and tsl_print_func */
  const char *bare =
      "# from tvm.script import tir as T\n"
      "\n"
      "@T.prim_func\n"
      "def main(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), "
      "\"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
      "    T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": "
      "T.bool(True)})\n"
      "    # with T.block(\"root\"):\n"
      "    D = T.alloc_buffer((128, 128))\n"
      "    for i, j, k in T.grid(128, 128, 128):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            T.reads(A[vi, vk], B[vj, vk])\n"
      "            T.writes(C[vi, vj])\n"
      "            with T.init():\n"
      "                C[vi, vj] = T.float32(0)\n"
      "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]\n";
  char *got = tsl_print_func(single_func(m));
  is_str(got, bare, "tsl_print_func prints a bare prim_func");
  free(got);
  m->is_bare_func = 1;
  check_module(m, bare, "bare module prints as a lone prim_func");
  m->is_bare_func = 0;
  m->name = tsl_intern(tsl_arena_ctx(a), "MyMod");
  got = tsl_print_module(m);
  ok(got && strstr(got, "class MyMod:\n") != NULL, "module class name");
  free(got);
  /* determinism */
  char *x = tsl_print_module(m), *y = tsl_print_module(m);
  is_str(x, y, "printing twice gives the same text");
  free(x);
  free(y);
}

static void test_two_funcs(tsl_arena *a) {
  check_module(case_two_funcs(a),
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def f(A: T.Buffer((16,), \"int8\")):\n"
    "        # with T.block(\"root\"):\n"
    "        for i in range(16):\n"
    "            A[i] = T.int8(3)\n"
    "\n"
    "    @T.prim_func\n"
    "    def g(A: T.Buffer((16,), \"int8\")):\n"
    "        # with T.block(\"root\"):\n"
    "        for i in range(16):\n"
    "            A[i] = T.int8(3)\n",
    "two functions, default class name, 1-D shape, int8 const");
}

static void test_loops(tsl_arena *a) {
  check_module(case_loops(a),
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((1024,), \"float32\")):\n"
    "    # with T.block(\"root\"):\n"
    "    for i7, i8 in T.grid(16, 16):\n"
    "        for i9 in range(i8):\n"
    "            for i6 in range(2, 10):\n"
    "                for i5 in T.serial(128, annotations={\"pragma_auto\": "
    "T.int64(16), \"pragma_unroll\": 1}):\n"
    "                    for i4 in T.thread_binding(128, thread=\"threadIdx.x\"):\n"
    "                        for i3 in T.parallel(2, 10):\n"
    "                            for i2 in T.unroll(4):\n"
    "                                for i1 in T.vectorized(4):\n"
    "                                    A[i1] = T.float32(1)\n"
    "    for i7 in range(4):\n"
    "        for i10 in range(i7, i7 + 4):\n"
    "            for i11 in T.thread_binding(1, 32, thread=\"blockIdx.x\", "
    "annotations={\"pragma_auto\": T.int64(16), \"pragma_unroll\": 1}):\n"
    "                A[i11] = T.float32(2)\n",
    "loop kinds, annotations, mins, grid chains");
}

static void test_blocks(tsl_arena *a) {
  check_module(case_blocks(a),
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64,), "
    "\"float32\")):\n"
    "    # with T.block(\"root\"):\n"
    "    for io, ii, j in T.grid(4, 16, 60):\n"
    "        with T.block(\"X\"):\n"
    "            vi = T.axis.spatial(64, io * 16 + ii)\n"
    "            vj = T.axis.reduce((2, 62), j)\n"
    "            vs = T.axis.scan(4, 0)\n"
    "            vo = T.axis.opaque(4, 1)\n"
    "            T.where(io * 16 + ii < 60)\n"
    "            T.reads(A[vi // 16 * 16:vi // 16 * 16 + 16, 0:64], B[vj])\n"
    "            T.writes(B[vi])\n"
    "            T.block_attr({\"meta_schedule.tiling_structure\": "
    "\"SSRSRS\"})\n"
    "            A_shared = T.alloc_buffer((16, 16), scope=\"shared\")\n"
    "            acc = T.alloc_buffer((4,), \"int32\", scope=\"local\")\n"
    "            A_sub = T.match_buffer(A[vi, 0:16], (16,))\n"
    "            B[vi] = A_sub[vj]\n"
    "    for yi, yj in T.grid(64, 64):\n"
    "        with T.block(\"Y\"):\n"
    "            vy = T.axis.spatial(8, yi)\n"
    "            vz = T.axis.spatial(64, yj)\n"
    "            T.reads()\n"
    "            T.writes(A[vy, vz])\n"
    "            A[vy, vz] = T.float32(0.5)\n"
    "    for j in range(4):\n"
    "        with T.block(\"Z\"):\n"
    "            T.reads(A[0:64, j:j + 2])\n"
    "            T.writes()\n"
    "            T.evaluate(0)\n",
    "axis forms, where, slices, block buffers, match_buffer");
}

static void test_remap(tsl_arena *a) {
  check_module(case_remap(a),
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((32, 8), \"float32\")):\n"
    "    # with T.block(\"root\"):\n"
    "    for bx in T.thread_binding(32, thread=\"blockIdx.x\"):\n"
    "        for tx in T.thread_binding(8, thread=\"threadIdx.x\"):\n"
    "            with T.block(\"B\"):\n"
    "                v0, v1 = T.axis.remap(\"SR\", [bx, tx])\n"
    "                T.reads()\n"
    "                T.writes(A[v0, v1])\n"
    "                A[v0, v1] = T.float32(0)\n",
    "remap over thread-bound loops");
  const tsl_var *bx = tsl_var_new(a, "bx", TSL_INT32);
  const tsl_var *tx = tsl_var_new(a, "tx", TSL_INT32);
  /* a loop with a non-zero min cannot remap */
  const tsl_var *w0 = tsl_var_new(a, "w0", TSL_INT32);
  const tsl_var *w1 = tsl_var_new(a, "w1", TSL_INT32);
  tsl_block *b2 = b_block(a, "B2");
  b_iter(a, b2, w0, TSL_ITER_SPATIAL, b_i(a, 0), b_i(a, 32));
  b_iter(a, b2, w1, TSL_ITER_SPATIAL, b_i(a, 0), b_i(a, 8));
  b_reads(a, b2, 0);
  b_writes(a, b2, 0);
  b2->body = tsl_stmt_evaluate(a, b_i(a, 0));
  S r2 = b_realize(a, b2, NULL, b_v(bx), b_v(tx));
  S l2 = b_for(a, bx, b_i(a, 0), b_i(a, 32), b_for(a, tx, b_i(a, 1), b_i(a, 8), r2));
  char *got = tsl_print_stmt(l2, 0);
  is_str(got,
         "for bx in range(32):\n"
         "    for tx in range(1, 9):\n"
         "        with T.block(\"B2\"):\n"
         "            w0 = T.axis.spatial(32, bx)\n"
         "            w1 = T.axis.spatial(8, tx)\n"
         "            T.reads()\n"
         "            T.writes()\n"
         "            T.evaluate(0)\n",
         "loop with min: no remap; tsl_print_stmt");
  free(got);
  got = tsl_print_stmt(r2, 4);
  is_str(got,
         "    with T.block(\"B2\"):\n"
         "        w0 = T.axis.spatial(32, bx)\n"
         "        w1 = T.axis.spatial(8, tx)\n"
         "        T.reads()\n"
         "        T.writes()\n"
         "        T.evaluate(0)\n",
         "tsl_print_stmt with indent, loops unknown");
  free(got);
}

static void test_symbolic(tsl_arena *a) {
  check_module(case_symbolic(a),
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def sym(var_A: T.handle, var_B: T.handle, k: T.int32, "
    "C: T.Buffer((8,), \"float16\", strides=(2,), elem_offset=4, "
    "align=64, offset_factor=8)):\n"
    "    T.func_attr({\"b\": T.bool(True), \"d\": {\"k\": -3}, "
    "\"e\": T.call_extern(\"int32\", \"cfg\"), \"f\": 2.0, \"f64\": T.float64(0.25), "
    "\"global_symbol\": \"sym\\\"q\\\\\", \"i\": 7, "
    "\"i64\": T.int64(1099511627776), "
    "\"l\": [1, \"two\", T.bool(False)]})\n"
    "    m = T.int64()\n"
    "    n = T.int32()\n"
    "    A = T.match_buffer(var_A, (T.int64(1), m))\n"
    "    B = T.match_buffer(var_B, (n, k), \"int32\")\n"
    "    with T.block(\"root\"):\n"
    "        T.reads()\n"
    "        T.writes(A[T.int64(0), T.int64(0):m])\n"
    "        T.block_attr({\"note\": \"x\"})\n"
    "        for i in range(m):\n"
    "            A[T.int64(0), i] = T.float32(0)\n",
    "symbolic shapes, scalar param, kwargs, explicit root, attrs");
}

static void test_stmts(tsl_arena *a) {
  const tsl_stmt *body = NULL;
  case_stmts(a, &body);
  char *got = tsl_print_stmt(body, 0);
  is_str(got,
    "for i in range(16):\n"
    "    if i < 2:\n"
    "        A[i] = T.float32(1)\n"
    "    else:\n"
    "        if i == 3:\n"
    "            A[i] = T.float32(3)\n"
    "    with T.LetStmt(5) as z:\n"
    "        A[z] = T.float32(0)\n"
    "    x: T.int32 = i + 1\n"
    "    T.evaluate(T.call_extern(\"float32\", \"my_fn\", x, T.float32(1.5)))\n"
    "    y: T.float32 = T.Cast(\"float32\", x)\n"
    "    A[x] = y\n",
    "if/else, let, evaluate, call_extern");
  free(got);
}

static void test_names(tsl_arena *a) {
  check_module(case_names(a),
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((8,), \"float32\"), A_1: T.Buffer((8,), "
    "\"float32\"), T_: T.Buffer((8,), \"float32\"), x_y: T.Buffer((8,), "
    "\"float32\")):\n"
    "    # with T.block(\"root\"):\n"
    "    for i in range(8):\n"
    "        A[i] = T.float32(1)\n"
    "        for i_1, i_1_1, lambda_, A_2, _0k in T.grid(8, 2, 2, 2, 2):\n"
    "            A_1[A_2] = A[i] + T_[i_1]\n"
    "            x_y[lambda_ + _0k] = T.float32(0)\n"
    "            A[i_1_1] = T.float32(2)\n"
    "    for i in range(8):\n"
    "        A_1[i] = T.float32(0)\n",
    "name collisions and sanitizing");
  /* fragments print names as stored */
  const tsl_var *lam = tsl_var_new(a, "lambda", TSL_INT32);
  const tsl_var *i1 = tsl_var_new(a, "i_1", TSL_INT32);
  const tsl_buffer *dot = b_buf(a, "x.y", TSL_FLOAT32, NULL, 1, 8);
  char *got = tsl_print_expr(b_add(a, b_v(lam), b_load(a, dot, 1, b_v(i1))));
  is_str(got, "lambda + x.y[i_1]", "tsl_print_expr keeps stored names");
  free(got);
  check_module(case_handles(a),
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def f(var_X: T.handle, y: T.handle):\n"
    "    s = T.int32()\n"
    "    X = T.match_buffer(var_X, (s,))\n"
    "    Y = T.match_buffer(y, (s,))\n"
    "    # with T.block(\"root\"):\n"
    "    T.evaluate(0)\n",
    "handle names");
}

/* Variables used but defined nowhere are declared up front. */
static void test_free_vars(tsl_arena *a) {
  check_module(case_shared_names(a),
               "# from tvm.script import tir as T\n"
               "\n"
               "@T.prim_func\n"
               "def main(a: T.handle):\n"
               "    n = T.int32()\n"
               "    n_1 = T.match_buffer(a, (n,))\n"
               "    # with T.block(\"root\"):\n"
               "    for i in range(n):\n"
               "        n_1[T.min(i, n)] = T.float32(1)\n",
               "buffer named like its shape variable");
  const tsl_var *len = tsl_var_new(a, "len", TSL_INT64);
  const tsl_var *i = tsl_var_new(a, "i", TSL_INT64);
  const tsl_buffer *A = b_buf(a, "A", TSL_FLOAT32, NULL, 1, 8);
  S body = b_for(a, i, tsl_expr_int(a, TSL_INT64, 0), b_v(len),
                 b_store(a, A, b_f32(a, 1), 1, b_v(i)));
  tsl_param ps[1] = {b_bparam(a, A)};
  check_module(bare_module(a, b_func(a, "main", 1, ps, body, 0, NULL)),
               "# from tvm.script import tir as T\n"
               "\n"
               "@T.prim_func\n"
               "def main(A: T.Buffer((8,), \"float32\")):\n"
               "    len = T.int64()\n"
               "    # with T.block(\"root\"):\n"
               "    for i in range(len):\n"
               "        A[i] = T.float32(1)\n",
               "variable defined nowhere");
}

/* Every expression form in statement context. */
static void test_expr_stmts(tsl_arena *a) {
  check_module(case_exprs(a),
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(F: T.Buffer((64,), \"float32\"), I: T.Buffer((64,), \"int32\"), "
    "L: T.Buffer((4,), \"int64\"), C8: T.Buffer((4,), \"int8\"), "
    "U8: T.Buffer((4,), \"uint8\"), H: T.Buffer((4,), \"float16\"), "
    "Bb: T.Buffer((4,), \"bool\")):\n"
    "    # with T.block(\"root\"):\n"
    "    F[0] = F[1] - (F[2] - F[1])\n"
    "    F[1] = F[0] / (F[1] * F[2])\n"
    "    F[2] = -(F[0] + F[1])\n"
    "    F[3] = T.Select(I[0] < I[1], F[0], F[1])\n"
    "    F[4] = T.if_then_else((I[0] < I[1]) == (I[2] < I[3]), F[0], T.float32(\"inf\"))\n"
    "    F[5] = T.Cast(\"float32\", I[0]) + T.float32(\"-inf\")\n"
    "    F[6] = T.exp(F[0]) * T.pow(F[1], T.float32(2)) + T.float32(\"nan\")\n"
    "    F[7] = T.call_extern(\"float32\", \"ext\", F[0], 1)\n"
    "    F[8] = T.float32(-0.0) + T.float32(1.0000000000000001e-05) + T.float32(3.4028234663852886e+38)\n"
    "    F[9] = -F[0] * -(F[1] + T.float32(0.5))\n"
    "    F[10] = -T.float32(\"nan\") * F[0]\n"
    "    I[0] = T.truncdiv(I[1], I[2]) + T.truncmod(I[1], I[2] + I[3])\n"
    "    I[1] = I[0] // (I[1] * I[2]) % I[3]\n"
    "    I[2] = T.min(I[0], -1) - T.max(I[1], I[2]) - -4\n"
    "    I[3] = T.Select(not (I[0] < 1 and I[1] > 2) or I[2] != 3, 1, 0)\n"
    "    I[4] = -2 * I[0] - (I[1] - I[2])\n"
    "    L[0] = L[1] + T.int64(5)\n"
    "    C8[0] = C8[1] + T.int8(-3)\n"
    "    U8[0] = T.uint8(255)\n"
    "    H[0] = H[1] * T.float16(0.5)\n"
    "    Bb[0] = T.bool(True)\n"
    "    Bb[1] = Bb[0] and (Bb[1] and not Bb[2])\n"
    "    Bb[2] = Bb[0] == (I[0] <= I[1])\n"
    "    F[T.Ramp(16, 1, 4)] = T.Broadcast(T.float32(0.25), 4)\n"
    "    T.evaluate(T.call_extern(\"int32\", \"side_effect\"))\n",
    "every expression form in statements");
}

static void test_exprs(tsl_arena *a) {
  tsl_ctx *ctx = tsl_arena_ctx(a);
  const tsl_var *x = tsl_var_new(a, "x", TSL_INT32);
  const tsl_var *y = tsl_var_new(a, "y", TSL_INT32);
  const tsl_var *z = tsl_var_new(a, "z", TSL_INT32);
  const tsl_var *f = tsl_var_new(a, "f", TSL_FLOAT32);
  const tsl_var *g = tsl_var_new(a, "g", TSL_FLOAT32);
  const tsl_var *p = tsl_var_new(a, "p", TSL_BOOL);
  const tsl_var *q = tsl_var_new(a, "q", TSL_BOOL);
  E X = b_v(x), Y = b_v(y), Z = b_v(z), F = b_v(f), G = b_v(g), P = b_v(p),
    Q = b_v(q);
#define BIN(k, l, r) b_bin(a, TSL_EXPR_##k, l, r)
  /* associativity */
  check_expr(BIN(SUB, X, BIN(SUB, Y, Z)), "x - (y - z)");
  check_expr(BIN(SUB, BIN(SUB, X, Y), Z), "x - y - z");
  check_expr(BIN(ADD, X, BIN(ADD, Y, Z)), "x + (y + z)");
  check_expr(BIN(MUL, BIN(ADD, X, Y), Z), "(x + y) * z");
  check_expr(BIN(ADD, X, BIN(MUL, Y, Z)), "x + y * z");
  check_expr(BIN(FLOORDIV, X, BIN(MUL, Y, Z)), "x // (y * z)");
  check_expr(BIN(FLOORMOD, BIN(FLOORDIV, X, Y), Z), "x // y % z");
  check_expr(BIN(MUL, X, BIN(FLOORMOD, Y, Z)), "x * (y % z)");
  /* comparisons never chain */
  check_expr(BIN(EQ, BIN(LT, X, Y), P), "(x < y) == p");
  check_expr(BIN(NE, P, BIN(GE, X, Y)), "p != (x >= y)");
  check_expr(BIN(LE, BIN(ADD, X, Y), Z), "x + y <= z");
  check_expr(BIN(GT, X, b_i(a, -1)), "x > -1");
  /* logic */
  check_expr(BIN(AND, BIN(OR, P, Q), P), "(p or q) and p");
  check_expr(BIN(OR, P, BIN(AND, Q, P)), "p or q and p");
  check_expr(BIN(AND, P, BIN(AND, Q, P)), "p and (q and p)");
  check_expr(tsl_expr_unary(a, TSL_EXPR_NOT, BIN(AND, P, Q)), "not (p and q)");
  check_expr(tsl_expr_unary(a, TSL_EXPR_NOT, BIN(EQ, X, Y)), "not x == y");
  check_expr(BIN(AND, tsl_expr_unary(a, TSL_EXPR_NOT, P), Q), "not p and q");
  check_expr(BIN(EQ, P, tsl_expr_unary(a, TSL_EXPR_NOT, Q)), "p == (not q)");
  /* unary minus */
  check_expr(tsl_expr_unary(a, TSL_EXPR_NEG, X), "-x");
  check_expr(tsl_expr_unary(a, TSL_EXPR_NEG, BIN(ADD, X, Y)), "-(x + y)");
  check_expr(BIN(MUL, tsl_expr_unary(a, TSL_EXPR_NEG, X), Y), "-x * y");
  check_expr(BIN(SUB, X, b_i(a, -4)), "x - -4");
  check_expr(tsl_expr_unary(a, TSL_EXPR_NEG, tsl_expr_unary(a, TSL_EXPR_NEG, X)),
             "--x");
  /* division family */
  check_expr(BIN(DIV, F, G), "f / g");
  check_expr(BIN(DIV, F, BIN(MUL, G, F)), "f / (g * f)");
  check_expr(BIN(DIV, X, Y), "T.truncdiv(x, y)");
  check_expr(BIN(MOD, X, BIN(ADD, Y, Z)), "T.truncmod(x, y + z)");
  check_expr(BIN(MUL, BIN(DIV, X, Y), Z), "T.truncdiv(x, y) * z");
  check_expr(BIN(MIN, X, Y), "T.min(x, y)");
  check_expr(BIN(MAX, BIN(ADD, X, Y), Z), "T.max(x + y, z)");
  /* calls and the rest */
  check_expr(tsl_expr_select(a, P, X, Y), "T.Select(p, x, y)");
  check_expr(tsl_expr_if_then_else(a, BIN(LT, X, Y), F, G),
             "T.if_then_else(x < y, f, g)");
  check_expr(tsl_expr_cast(a, TSL_FLOAT16, F), "T.Cast(\"float16\", f)");
  E ea[1] = {F};
  check_expr(tsl_expr_call(a, TSL_INTRIN_EXP, TSL_FLOAT32, 1, ea), "T.exp(f)");
  E pa[2] = {F, b_f32(a, 2)};
  check_expr(tsl_expr_call(a, TSL_INTRIN_POW, TSL_FLOAT32, 2, pa),
             "T.pow(f, T.float32(2))");
  check_expr(tsl_expr_call(a, TSL_INTRIN_SIGMOID, TSL_FLOAT32, 1, ea),
             "T.sigmoid(f)");
  check_expr(tsl_expr_call_extern(a, TSL_INT32, tsl_intern(ctx, "ext"), 0, NULL),
             "T.call_extern(\"int32\", \"ext\")");
  check_expr(tsl_expr_ramp(a, X, b_i(a, 1), 4), "T.Ramp(x, 1, 4)");
  check_expr(tsl_expr_broadcast(a, b_f32(a, 0), 8),
             "T.Broadcast(T.float32(0), 8)");
  check_expr(tsl_expr_str(a, tsl_intern(ctx, "a\"b\n")), "\"a\\\"b\\n\"");
  const tsl_buffer *B = b_buf(a, "B", TSL_FLOAT32, NULL, 2, 4, 4);
  check_expr(b_load(a, B, 2, BIN(ADD, X, b_i(a, 1)), Y), "B[x + 1, y]");
  const tsl_buffer *S0 = tsl_buffer_new(a, "S0", TSL_FLOAT32, 0, NULL, NULL,
                                        NULL, NULL, 0, 0);
  check_expr(tsl_expr_load(a, S0, 0, NULL), "S0[()]");
  /* integer and bool constants */
  check_expr(b_i(a, 128), "128");
  check_expr(b_i(a, -1), "-1");
  check_expr(tsl_expr_int(a, TSL_INT64, 5), "T.int64(5)");
  check_expr(tsl_expr_int(a, TSL_INT64, -5), "T.int64(-5)");
  check_expr(tsl_expr_int(a, TSL_INT8, 3), "T.int8(3)");
  check_expr(tsl_expr_int(a, TSL_UINT8, 1), "T.uint8(1)");
  check_expr(tsl_expr_int(a, TSL_DTYPE(TSL_DT_UINT, 64, 1), -1),
             "T.uint64(18446744073709551615)");
  check_expr(tsl_expr_bool(a, 1), "T.bool(True)");
  check_expr(tsl_expr_bool(a, 0), "T.bool(False)");
  check_expr(BIN(MUL, b_i(a, -2), X), "-2 * x");
#undef BIN
}

static void test_floats(tsl_arena *a) {
  check_expr(b_f32(a, 0), "T.float32(0)");
  check_expr(b_f32(a, 0.5), "T.float32(0.5)");
  check_expr(b_f32(a, -0.125), "T.float32(-0.125)");
  /* TVM prints float constants with 17 significant digits (%.17g) */
  check_expr(tsl_expr_float(a, TSL_FLOAT64, 1e-05), "T.float64(1.0000000000000001e-05)");
  check_expr(b_f32(a, 0.7071067811865476), "T.float32(0.70710678118654757)");
  check_expr(b_f32(a, 3.4028234663852886e+38),
             "T.float32(3.4028234663852886e+38)");
  check_expr(b_f32(a, INFINITY), "T.float32(\"inf\")");
  check_expr(b_f32(a, -INFINITY), "T.float32(\"-inf\")");
  check_expr(b_f32(a, NAN), "T.float32(\"nan\")");
  check_expr(b_f32(a, -NAN), "-T.float32(\"nan\")");
  check_expr(tsl_expr_unary(a, TSL_EXPR_NEG, b_f32(a, -NAN)),
             "--T.float32(\"nan\")");
  check_expr(tsl_expr_float(a, TSL_FLOAT16, 1), "T.float16(1)");
  check_expr(tsl_expr_float(a, TSL_BFLOAT16, -2), "T.bfloat16(-2)");
  check_expr(b_f32(a, 100), "T.float32(100)");
  check_expr(b_f32(a, 123456789), "T.float32(123456789)");
  check_expr(b_f32(a, 1e16), "T.float32(10000000000000000)");
  check_expr(b_f32(a, 1e17), "T.float32(1e+17)");
  check_expr(b_f32(a, 1.5e15), "T.float32(1500000000000000)");
  check_expr(b_f32(a, 0.0001), "T.float32(0.0001)");
  check_expr(b_f32(a, 0.00012), "T.float32(0.00012)");
  check_expr(b_f32(a, 1.2e-5), "T.float32(1.2e-05)");
  check_expr(b_f32(a, (double)0.1f), "T.float32(0.10000000149011612)");
  check_expr(tsl_expr_float(a, TSL_FLOAT64, 0.1), "T.float64(0.10000000000000001)");
  check_expr(tsl_expr_float(a, TSL_FLOAT64, 1.7976931348623157e+308),
             "T.float64(1.7976931348623157e+308)");
  check_expr(tsl_expr_float(a, TSL_FLOAT64, 5e-324), "T.float64(4.9406564584124654e-324)");
  check_expr(tsl_expr_float(a, TSL_FLOAT64, 2.5e+100), "T.float64(2.4999999999999999e+100)");
  check_expr(b_f32(a, -0.0), "T.float32(-0.0)");
  check_expr(b_f32(a, 123.456), "T.float32(123.456)");
  /* every printed finite value reads back as the same double */
  double samples[] = {1.0 / 3, 2.0 / 3, 1e-300, 6.02214076e23, 9007199254740993.0,
                      0.1 + 0.2, 1e22, 4.35, -7.000001};
  for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
    char *got = tsl_print_expr(tsl_expr_float(a, TSL_FLOAT64, samples[k]));
    double back = got ? strtod(got + strlen("T.float64("), NULL) : 0;
    ok(back == samples[k], "float %.17g round-trips as %s", samples[k], got);
    free(got);
  }
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  test_matmul(a);
  test_two_funcs(a);
  test_loops(a);
  test_blocks(a);
  test_remap(a);
  test_symbolic(a);
  test_stmts(a);
  test_names(a);
  test_free_vars(a);
  test_expr_stmts(a);
  test_exprs(a);
  test_floats(a);
  /* NULL inputs do not crash */
  char *s = tsl_print_module(NULL);
  is_str(s, "", "NULL module prints nothing");
  free(s);
  s = tsl_print_expr(NULL);
  is_str(s, "None", "NULL expr");
  free(s);
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return tap_done();
}
