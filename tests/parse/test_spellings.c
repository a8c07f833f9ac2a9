/*
 * Old and new TVMScript spellings of the same program parse to
 * structurally equal functions (and different programs do not); every
 * program here also survives print -> parse -> equal.
 */
#include "parse_util.h"

#include <stdlib.h>

typedef struct pair {
  const char *what;
  const char *a, *b;
  int equal;
} pair;

#define HDR "from tvm.script import tir as T\n"

static const pair pairs[] = {
    {"matmul: T.Buffer + remap + T.reads vs handles + match_buffer + axis.S/R + inferred regions",
     "@I.ir_module\n"
     "class Module:\n"
     "    @T.prim_func\n"
     "    def main(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"),"
     " C: T.Buffer((128, 128), \"float32\")):\n"
     "        # with T.block(\"root\"):\n"
     "        for i, j, k in T.grid(128, 128, 128):\n"
     "            with T.block(\"C\"):\n"
     "                v_i, v_j, v_k = T.axis.remap(\"SSR\", [i, j, k])\n"
     "                T.reads(A[v_i, v_k], B[v_k, v_j])\n"
     "                T.writes(C[v_i, v_j])\n"
     "                with T.init():\n"
     "                    C[v_i, v_j] = T.float32(0)\n"
     "                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]\n",
     HDR "@T.prim_func\n"
     "def main(a: T.handle, b: T.handle, c: T.handle) -> None:\n"
     "    A = T.match_buffer(a, [128, 128])\n"
     "    B = T.match_buffer(b, [128, 128], dtype=\"float32\")\n"
     "    C = T.match_buffer(c, (128, 128), \"float32\")\n"
     "    for i in T.serial(128):\n"
     "        for j in range(128):\n"
     "            for k in T.serial(0, 128):\n"
     "                with T.block(\"C\"):\n"
     "                    vi = T.axis.S(128, i)\n"
     "                    vj = T.axis.spatial(128, j)\n"
     "                    vk = T.axis.R(128, k)\n"
     "                    with T.init():\n"
     "                        C[vi, vj] = 0.0\n"
     "                    C[vi, vj] += A[vi, vk] * B[vk, vj]\n",
     1},
    {"T.Buffer[...] subscript forms vs T.Buffer((...), ...)",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer[128, \"float32\"], B: T.Buffer[(4, 4), \"int8\"]):\n"
     "    A[0] = T.float32(1)\n"
     "    B[0, 0] = T.int8(1)\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((128,), \"float32\"), B: T.Buffer(shape=(4, 4), dtype=\"int8\")):\n"
     "    A[0] = 1.0\n"
     "    B[0, 0] = 1\n",
     1},
    {"explicit root block vs root comment",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((16,), \"float32\")):\n"
     "    with T.block(\"root\"):\n"
     "        T.reads()\n"
     "        T.writes()\n"
     "        X = T.alloc_buffer((16,), scope=\"local\")\n"
     "        for i in range(16):\n"
     "            with T.block(\"X\"):\n"
     "                vi = T.axis.spatial(16, i)\n"
     "                T.reads(A[vi])\n"
     "                T.writes(X[vi])\n"
     "                X[vi] = A[vi]\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((16,), \"float32\")):\n"
     "    # with T.block(\"root\"):\n"
     "    X = T.alloc_buffer([16], dtype=\"float32\", scope=\"local\")\n"
     "    for i in range(16):\n"
     "        with T.block(\"X\"):\n"
     "            vi = T.axis.remap(\"S\", [i])\n"
     "            X[vi] = A[vi]\n",
     1},
    {"T.reads list form, True vs T.bool(True), LetStmt forms",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
     "    for i in range(16):\n"
     "        with T.block(\"B\"):\n"
     "            vi = T.axis.spatial(16, i)\n"
     "            T.where(True)\n"
     "            T.reads([A[vi], B[vi]])\n"
     "            T.writes([B[vi]])\n"
     "            x: T.float32 = A[vi] * T.float32(2)\n"
     "            B[vi] = B[vi] + x\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
     "    for i in range(16):\n"
     "        with T.block(\"B\"):\n"
     "            vi = T.axis.spatial(16, i)\n"
     "            T.where(T.bool(True))\n"
     "            T.reads(A[vi], B[vi])\n"
     "            T.writes(B[vi])\n"
     "            with T.LetStmt(A[vi] * 2.0) as x:\n"
     "                B[vi] = B[vi] + x\n",
     1},
    {"symbolic shapes: m, n = T.int64(), T.int64() vs separate declarations",
     HDR "@T.prim_func\n"
     "def f(x: T.handle, y: T.handle):\n"
     "    m, n = T.int64(), T.int64()\n"
     "    X = T.match_buffer(x, (m, n))\n"
     "    Y = T.match_buffer(y, (m,))\n"
     "    for i, j in T.grid(m, n):\n"
     "        with T.block(\"Y\"):\n"
     "            vi, vj = T.axis.remap(\"SR\", [i, j])\n"
     "            with T.init():\n"
     "                Y[vi] = T.float32(0)\n"
     "            Y[vi] = Y[vi] + X[vi, vj]\n",
     HDR "@T.prim_func\n"
     "def f(x: T.handle, y: T.handle):\n"
     "    m = T.int64()\n"
     "    n = T.int64()\n"
     "    X = T.match_buffer(x, [m, n], \"float32\")\n"
     "    Y = T.match_buffer(y, [m], \"float32\")\n"
     "    for i in range(m):\n"
     "        for j in T.serial(n):\n"
     "            with T.block(\"Y\"):\n"
     "                vi = T.axis.spatial(m, i)\n"
     "                vj = T.axis.reduce(n, j)\n"
     "                T.reads(X[vi, vj])\n"
     "                T.writes(Y[vi])\n"
     "                with T.init():\n"
     "                    Y[vi] = 0.0\n"
     "                Y[vi] += X[vi, vj]\n",
     1},
    {"older size variable spelling n = T.var(\"int32\") vs n = T.int32()",
     HDR "@T.prim_func\n"
     "def f(a: T.handle, b: T.handle):\n"
     "    n = T.var(\"int32\")\n"
     "    m = T.var(dtype=\"int64\")\n"
     "    A = T.match_buffer(a, (n, m))\n"
     "    B = T.match_buffer(b, (n,))\n"
     "    for i in range(n):\n"
     "        B[i] = A[i, T.int64(0)]\n",
     HDR "@T.prim_func\n"
     "def f(a: T.handle, b: T.handle):\n"
     "    n, m = T.int32(), T.int64()\n"
     "    A = T.match_buffer(a, (n, m))\n"
     "    B = T.match_buffer(b, (n,))\n"
     "    for i in range(n):\n"
     "        B[i] = A[i, T.int64(0)]\n",
     1},
    /* ---- what TVM's script parser accepts (issue 12) ---- */
    {"dtype= on T.if_then_else, math functions and T.likely is dropped, as TVM's op wrapper does",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((8,), \"float32\")):\n"
     "    for i in range(8):\n"
     "        A[i] = T.if_then_else(T.likely(i < 4, dtype=\"bool\"), T.exp(A[i], dtype=\"float32\"),"
     " T.float32(0), dtype=\"float32\")\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((8,), \"float32\")):\n"
     "    for i in range(8):\n"
     "        A[i] = T.if_then_else(T.likely(i < 4), T.exp(A[i]), T.float32(0))\n",
     1},
    {"T.call_extern: dtype first, or as a keyword (\"\" is void)",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((8,), \"float32\")):\n"
     "    with T.block(\"ext\"):\n"
     "        T.reads(A[0:8])\n"
     "        T.writes(A[0:8])\n"
     "        T.evaluate(T.call_extern(\"fill\", A.data, 8, dtype=\"int32\"))\n"
     "        T.evaluate(T.call_extern(\"sync\", A.data, dtype=\"\"))\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((8,), \"float32\")):\n"
     "    with T.block(\"ext\"):\n"
     "        T.reads(A[0:8])\n"
     "        T.writes(A[0:8])\n"
     "        T.evaluate(T.call_extern(\"int32\", \"fill\", A.data, 8))\n"
     "        T.evaluate(T.call_extern(\"void\", \"sync\", A.data))\n",
     1},
    {"A.access_ptr(...) is T.tvm_access_ptr(T.type_annotation(dtype), A.data, offset, extent, mask)",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((32, 32), \"float16\"), B: T.Buffer((32, 32), \"float16\")):\n"
     "    with T.block(\"opaque\"):\n"
     "        T.reads(A[0:32, 0:32])\n"
     "        T.writes(B[0:32, 0:32])\n"
     "        T.evaluate(T.call_extern(\"int32\", \"copy\", B.access_ptr(\"w\", extent=512),"
     " A.access_ptr(\"r\", offset=64), A.access_ptr(\"rw\", \"handle\", 4)))\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((32, 32), \"float16\"), B: T.Buffer((32, 32), \"float16\")):\n"
     "    with T.block(\"opaque\"):\n"
     "        T.reads(A[0:32, 0:32])\n"
     "        T.writes(B[0:32, 0:32])\n"
     "        T.evaluate(T.call_extern(\"int32\", \"copy\","
     " T.tvm_access_ptr(T.type_annotation(dtype=\"float16\"), B.data, 0, 512, 2, dtype=\"handle\"),"
     " T.tvm_access_ptr(T.type_annotation(\"float16\"), A.data, 64, 960, 1),"
     " T.tvm_access_ptr(T.type_annotation(\"float16x4\"), A.data, T.truncdiv(0, 4), 256, 3)))\n",
     1},
    {"buffer attributes: A.elem_offset, A.strides[i], A.shape[i] are the declared values",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((64, 64), \"float16\"), C: T.Buffer((16,), \"float16\")):\n"
     "    for i in range(4):\n"
     "        with T.block(\"tile\"):\n"
     "            vi = T.axis.spatial(4, i)\n"
     "            T.reads(A[vi * 16:vi * 16 + 16, 0:16])\n"
     "            T.writes(C[0:16])\n"
     "            off = T.int32()\n"
     "            A0 = T.match_buffer(A[vi * 16:vi * 16 + 16, 0:16], (16, 16), \"float16\","
     " strides=[64, 1], elem_offset=off)\n"
     "            T.evaluate(T.tvm_load_matrix_sync(C.data, 16, 16, A0.shape[1], vi,"
     " T.tvm_access_ptr(T.type_annotation(\"float16\"), A0.data, A0.elem_offset,"
     " A0.strides[0], 1), A0.strides[0], \"row_major\"))\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((64, 64), \"float16\"), C: T.Buffer((16,), \"float16\")):\n"
     "    for i in range(4):\n"
     "        with T.block(\"tile\"):\n"
     "            vi = T.axis.spatial(4, i)\n"
     "            T.reads(A[vi * 16:vi * 16 + 16, 0:16])\n"
     "            T.writes(C[0:16])\n"
     "            off = T.int32()\n"
     "            A0 = T.match_buffer(A[vi * 16:vi * 16 + 16, 0:16], (16, 16), \"float16\","
     " strides=[64, 1], elem_offset=off)\n"
     "            T.evaluate(T.tvm_load_matrix_sync(C.data, 16, 16, 16, vi,"
     " T.tvm_access_ptr(T.type_annotation(\"float16\"), A0.data, off, 64, 1), 64,"
     " \"row_major\"))\n",
     1},
    {"TVM's promotion: int * float literal, narrow ints and float16 with literals, mixed floats",
     HDR "@T.prim_func\n"
     "def f(I: T.Buffer((8,), \"int8\"), H: T.Buffer((8,), \"float16\"),"
     " D: T.Buffer((8,), \"float64\"), F: T.Buffer((8,), \"float32\"),"
     " L: T.Buffer((8,), \"int64\")):\n"
     "    for i in range(8):\n"
     "        with T.block(\"b\"):\n"
     "            v = T.axis.spatial(8, i)\n"
     "            F[v] = v * 2 + 0.5\n"
     "            D[v] = v * 0.1\n"
     "            I[v] = I[v] + 1\n"
     "            H[v] = H[v] + 0.5\n"
     "            H[v] = H[v] * 2\n"
     "            F[v] = F[v] + H[v] * D[v]\n"
     "            L[v] = L[v] * v + 3\n"
     "            F[v] = v\n",
     HDR "@T.prim_func\n"
     "def f(I: T.Buffer((8,), \"int8\"), H: T.Buffer((8,), \"float16\"),"
     " D: T.Buffer((8,), \"float64\"), F: T.Buffer((8,), \"float32\"),"
     " L: T.Buffer((8,), \"int64\")):\n"
     "    for i in range(8):\n"
     "        with T.block(\"b\"):\n"
     "            v = T.axis.spatial(8, i)\n"
     "            F[v] = T.Cast(\"float32\", v * 2) + T.float32(0.5)\n"
     "            D[v] = T.Cast(\"float64\", T.Cast(\"float32\", v) * T.float32(0.1))\n"
     "            I[v] = T.Cast(\"int8\", T.Cast(\"int32\", I[v]) + 1)\n"
     "            H[v] = T.Cast(\"float16\", T.Cast(\"float32\", H[v]) + T.float32(0.5))\n"
     "            H[v] = H[v] * T.float16(2)\n"
     "            F[v] = T.Cast(\"float32\", T.Cast(\"float64\", F[v])"
     " + T.Cast(\"float64\", H[v]) * D[v])\n"
     "            L[v] = L[v] * T.Cast(\"int64\", v) + T.int64(3)\n"
     "            F[v] = T.Cast(\"float32\", v)\n",
     1},
    {"literal branches are typed bottom-up: T.if_then_else(c, 1, 0) into float32 is a cast int32",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((8,), \"float32\")):\n"
     "    for i in range(8):\n"
     "        A[i] = T.if_then_else(i < 4, 1, 0)\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((8,), \"float32\")):\n"
     "    for i in range(8):\n"
     "        A[i] = T.if_then_else(i < 4, 1.0, 0.0)\n",
     0},
    {"T.ceildiv(a, b) is (a + b - 1) // b",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((64,), \"float32\"), B: T.Buffer((22,), \"float32\")):\n"
     "    for i in range(T.ceildiv(64, 3)):\n"
     "        with T.block(\"b\"):\n"
     "            vi = T.axis.spatial(22, i)\n"
     "            B[vi] = A[T.ceildiv(vi * 3, 2)]\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((64,), \"float32\"), B: T.Buffer((22,), \"float32\")):\n"
     "    for i in range(22):\n"
     "        with T.block(\"b\"):\n"
     "            vi = T.axis.spatial(22, i)\n"
     "            B[vi] = A[(vi * 3 + 2 - 1) // 2]\n",
     1},
    {"axis_separators are part of a buffer: [1] vs none are not equal",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((8, 8), \"float32\", axis_separators=[1])):\n"
     "    B = T.alloc_buffer((8, 8), axis_separators=[1])\n"
     "    for i, j in T.grid(8, 8):\n"
     "        B[i, j] = A[i, j]\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((8, 8), \"float32\", axis_separators=[1])):\n"
     "    B = T.alloc_buffer((8, 8))\n"
     "    for i, j in T.grid(8, 8):\n"
     "        B[i, j] = A[i, j]\n",
     0},
    {"different loop extents are not equal",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((128,), \"float32\")):\n"
     "    for i in range(128):\n"
     "        A[i] = T.float32(0)\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((128,), \"float32\")):\n"
     "    for i in range(64):\n"
     "        A[i] = T.float32(0)\n",
     0},
    {"different block names are not equal",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((4,), \"float32\")):\n"
     "    for i in range(4):\n"
     "        with T.block(\"a\"):\n"
     "            vi = T.axis.spatial(4, i)\n"
     "            A[vi] = T.float32(0)\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((4,), \"float32\")):\n"
     "    for i in range(4):\n"
     "        with T.block(\"b\"):\n"
     "            vi = T.axis.spatial(4, i)\n"
     "            A[vi] = T.float32(0)\n",
     0},
    {"spatial vs reduce iterators are not equal",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((4,), \"float32\")):\n"
     "    for i in range(4):\n"
     "        with T.block(\"a\"):\n"
     "            vi = T.axis.spatial(4, i)\n"
     "            A[0] = A[0] + T.float32(1)\n",
     HDR "@T.prim_func\n"
     "def f(A: T.Buffer((4,), \"float32\")):\n"
     "    for i in range(4):\n"
     "        with T.block(\"a\"):\n"
     "            vi = T.axis.reduce(4, i)\n"
     "            A[0] = A[0] + T.float32(1)\n",
     0},
};

static void roundtrip(const char *what, const tsl_module *m) {
  char *text = tsl_print_module(m);
  const tsl_module *m2 = text ? parse("printed.py", text) : NULL;
  char why[512] = "";
  int eq = m2 && tsl_module_equal(m, m2, why, sizeof why);
  ok(eq, "%s: print -> parse -> equal", what);
  if (!eq)
    tap_diag("  %s\n%s", why, text ? text : "(no text)");
  free(text);
}

int main(void) {
  t_init();
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    const pair *p = &pairs[i];
    const tsl_module *a = parse("a.py", p->a);
    const tsl_module *b = parse("b.py", p->b);
    if (!ok(a && b, "%s: both parse", p->what))
      continue;
    char why[512] = "";
    int eq = a->n_funcs == 1 && b->n_funcs == 1 &&
             tsl_func_equal(a->funcs[0], b->funcs[0], why, sizeof why);
    ok(eq == p->equal, "%s", p->what);
    if (eq != p->equal)
      tap_diag("  expected %s; first difference: %s", p->equal ? "equal" : "different", why);
    roundtrip("a", a);
    roundtrip("b", b);
  }
  t_fini();
  return tap_done();
}
