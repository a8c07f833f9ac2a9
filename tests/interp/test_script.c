/*
 * The interpreter on parsed TVMScript: results against plain C, a scheduled
 * program against its unscheduled original (the oracle's main use), and
 * error texts of programs that fail at run time.
 */
#include "tap.h"
#include "tessel/interp.h"
#include "tessel/script.h"

#include <math.h>
#include <string.h>

static tsl_ctx *ctx;
static tsl_arena *arena;

static const tsl_func *parse(const char *src, const char *what) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  int r = tsl_parse(arena, what, src, strlen(src), &m, &d);
  if (!ok(r == 0 && m && m->n_funcs >= 1, "%s: parses", what)) {
    tap_diag("%s", d.text);
    return NULL;
  }
  return m->funcs[0];
}

/* Parse, make args (seed, binds) and run; returns the status. */
static int prun(const tsl_func *f, const tsl_binding *b, uint32_t nb,
                uint64_t seed, tsl_arg *args, tsl_diag *d) {
  memset(d, 0, sizeof *d);
  int r = tsl_func_make_args(f, b, nb, seed, args, d);
  if (r)
    return r;
  return tsl_interp_run(f, args, f->n_params, d);
}

static const char *matmul_src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((32, 48), "
    "\"float32\"),\n"
    "         C: T.Buffer((64, 48), \"float32\")):\n"
    "    for i, j, k in T.grid(64, 48, 32):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            T.reads(A[vi, vk], B[vk, vj])\n"
    "            T.writes(C[vi, vj])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

/* The same matmul after split/reorder/cache_write-like scheduling, with a
 * thread-bound outer loop and a local accumulator written back. The
 * reduction order per element is unchanged, so results are bit-identical. */
static const char *matmul_sched_src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((32, 48), "
    "\"float32\"),\n"
    "         C: T.Buffer((64, 48), \"float32\")):\n"
    "    C_local = T.alloc_buffer((64, 48), scope=\"local\")\n"
    "    for i_0 in T.thread_binding(4, thread=\"blockIdx.x\"):\n"
    "        for j_0 in T.thread_binding(3, thread=\"threadIdx.x\"):\n"
    "            for k_0, i_1, j_1, k_1 in T.grid(4, 16, 16, 8):\n"
    "                with T.block(\"C\"):\n"
    "                    vi = T.axis.spatial(64, i_0 * 16 + i_1)\n"
    "                    vj = T.axis.spatial(48, j_0 * 16 + j_1)\n"
    "                    vk = T.axis.reduce(32, k_0 * 8 + k_1)\n"
    "                    T.reads(A[vi, vk], B[vk, vj])\n"
    "                    T.writes(C_local[vi, vj])\n"
    "                    with T.init():\n"
    "                        C_local[vi, vj] = T.float32(0)\n"
    "                    C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, "
    "vj]\n"
    "            for i_1, j_1 in T.grid(16, 16):\n"
    "                with T.block(\"C_local\"):\n"
    "                    v0 = T.axis.spatial(64, i_0 * 16 + i_1)\n"
    "                    v1 = T.axis.spatial(48, j_0 * 16 + j_1)\n"
    "                    T.reads(C_local[v0, v1])\n"
    "                    T.writes(C[v0, v1])\n"
    "                    C[v0, v1] = C_local[v0, v1]\n";

static void test_matmul(void) {
  const tsl_func *f = parse(matmul_src, "matmul.py");
  const tsl_func *g = parse(matmul_sched_src, "matmul_sched.py");
  if (!f || !g)
    return;
  tsl_arg a[3], b[3];
  tsl_diag d;
  int r = prun(f, NULL, 0, 42, a, &d);
  if (!ok(r == 0, "matmul: runs"))
    tap_diag("%s", d.text);
  const float *x = a[0].tensor.data, *y = a[1].tensor.data,
              *z = a[2].tensor.data;
  int exact = 1;
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 48; j++) {
      float acc = 0.0f;
      for (int k = 0; k < 32; k++)
        acc = acc + x[i * 32 + k] * y[k * 48 + j];
      exact &= z[i * 48 + j] == acc;
    }
  ok(exact, "matmul: bit-exact with a C loop");
  r = prun(g, NULL, 0, 42, b, &d);
  if (!ok(r == 0, "scheduled matmul: runs"))
    tap_diag("%s", d.text);
  tsl_checksum c1 = tsl_tensor_checksum(&a[2].tensor),
               c2 = tsl_tensor_checksum(&b[2].tensor);
  ok(c1.hash == c2.hash && c1.sum == c2.sum,
     "scheduled matmul: same checksum as the original (%016llx)",
     (unsigned long long)c1.hash);
  ok(tsl_tensor_checksum(&a[0].tensor).hash ==
         tsl_tensor_checksum(&b[0].tensor).hash,
     "both runs saw the same random inputs");
  ok(!tsl_func_param_is_output(g, 0) && !tsl_func_param_is_output(g, 1) &&
         tsl_func_param_is_output(g, 2),
     "scheduled matmul: only C is an output");
  tsl_args_free(a, 3);
  tsl_args_free(b, 3);
}

static const char *dyn_src =
    "@T.prim_func\n"
    "def main(a: T.handle, b: T.handle):\n"
    "    m = T.int64()\n"
    "    A = T.match_buffer(a, (m, 8), \"float32\")\n"
    "    B = T.match_buffer(b, (m,), \"float32\")\n"
    "    for i, k in T.grid(m, 8):\n"
    "        with T.block(\"rowmax\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            T.reads(A[vi, vk])\n"
    "            T.writes(B[vi])\n"
    "            with T.init():\n"
    "                B[vi] = T.float32(-3.4028234663852886e+38)\n"
    "            B[vi] = T.max(B[vi], A[vi, vk])\n";

static void test_symbolic(void) {
  const tsl_func *f = parse(dyn_src, "rowmax_dyn.py");
  if (!f)
    return;
  tsl_arg a[2];
  tsl_diag d;
  int r = prun(f, NULL, 0, 1, a, &d);
  ok(r == TSL_EINVALID && strstr(d.text, "'m'") && strstr(d.text, "--set m="),
     "symbolic: make_args without m explains how to bind it");
  tsl_binding bd[1] = {{"m", 5}};
  r = prun(f, bd, 1, 1, a, &d);
  if (!ok(r == 0, "symbolic: runs with m = 5"))
    tap_diag("%s", d.text);
  int good = a[0].tensor.shape[0] == 5 && a[1].tensor.shape[0] == 5;
  const float *x = a[0].tensor.data, *y = a[1].tensor.data;
  for (int i = 0; good && i < 5; i++) {
    float m = x[i * 8];
    for (int k = 1; k < 8; k++)
      m = x[i * 8 + k] > m ? x[i * 8 + k] : m;
    good &= y[i] == m;
  }
  ok(good, "symbolic: row maxima of a (5, 8) input");
  tsl_args_free(a, 2);
}

static const char *tiles_src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 16), \"float32\"), C: T.Buffer((16, 16), "
    "\"float32\")):\n"
    "    for io, jo in T.grid(4, 4):\n"
    "        with T.block(\"tile\"):\n"
    "            vio, vjo = T.axis.remap(\"SS\", [io, jo])\n"
    "            T.reads(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])\n"
    "            T.writes(C[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])\n"
    "            As = T.match_buffer(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + "
    "4], (4, 4))\n"
    "            Cs = T.match_buffer(C[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + "
    "4], (4, 4))\n"
    "            for i, j in T.grid(4, 4):\n"
    "                with T.block(\"t\"):\n"
    "                    vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                    T.reads(As[vj, vi])\n"
    "                    T.writes(Cs[vi, vj])\n"
    "                    Cs[vi, vj] = As[vj, vi] * T.float32(2)\n";

static void test_tiles(void) {
  const tsl_func *f = parse(tiles_src, "tiles.py");
  if (!f)
    return;
  tsl_arg a[2];
  tsl_diag d;
  int r = prun(f, NULL, 0, 3, a, &d);
  if (!ok(r == 0, "match_buffer tiles: runs"))
    tap_diag("%s", d.text);
  const float *x = a[0].tensor.data, *y = a[1].tensor.data;
  int good = 1;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      int ti = i / 4 * 4, tj = j / 4 * 4; /* transpose within each 4x4 tile */
      good &= y[i * 16 + j] == 2.0f * x[(ti + (j - tj)) * 16 + tj + (i - ti)];
    }
  ok(good, "match_buffer tiles: per-tile transpose through views");
  ok(tsl_func_param_is_output(f, 1) && !tsl_func_param_is_output(f, 0),
     "match_buffer tiles: C (written through Cs) is the output");
  tsl_args_free(a, 2);
}

static const char *int8_src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((8, 16), \"int8\"), B: T.Buffer((16, 8), \"int8\"),\n"
    "         C: T.Buffer((8, 8), \"int32\"), D: T.Buffer((8, 8), \"int8\")):\n"
    "    for i, j, k in T.grid(8, 8, 16):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            T.reads(A[vi, vk], B[vk, vj])\n"
    "            T.writes(C[vi, vj], D[vi, vj])\n"
    "            with T.init():\n"
    "                C[vi, vj] = 0\n"
    "                D[vi, vj] = T.int8(0)\n"
    "            C[vi, vj] = C[vi, vj] + T.Cast(\"int32\", A[vi, vk]) * "
    "T.Cast(\"int32\", B[vk, vj])\n"
    "            D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vk, vj] * T.int8(3)\n";

static void test_int8(void) {
  const tsl_func *f = parse(int8_src, "int8_matmul.py");
  if (!f)
    return;
  tsl_arg a[4];
  tsl_diag d;
  int r = prun(f, NULL, 0, 11, a, &d);
  if (!ok(r == 0, "int8 matmul: runs"))
    tap_diag("%s", d.text);
  const int8_t *x = a[0].tensor.data, *y = a[1].tensor.data,
               *dd = a[3].tensor.data;
  const int32_t *z = a[2].tensor.data;
  int good32 = 1, good8 = 1, wrapped = 0;
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      int32_t acc = 0;
      int8_t acc8 = 0;
      for (int k = 0; k < 16; k++) {
        acc += (int32_t)x[i * 16 + k] * y[k * 8 + j];
        int8_t p = (int8_t)(uint8_t)(x[i * 16 + k] * y[k * 8 + j]);
        int8_t p3 = (int8_t)(uint8_t)(p * 3);
        int wide = acc8 + p3;
        wrapped |= wide != (int8_t)(uint8_t)wide;
        acc8 = (int8_t)(uint8_t)wide;
      }
      good32 &= z[i * 8 + j] == acc;
      good8 &= dd[i * 8 + j] == acc8;
    }
  ok(good32, "int8 matmul with int32 accumulation matches C");
  ok(good8 && wrapped,
     "int8 accumulation wraps after every op, like C int8 arithmetic");
  tsl_args_free(a, 4);
}

static const char *oob_src = "@T.prim_func\n"
                             "def main(A: T.Buffer((10,), \"float32\"), B: "
                             "T.Buffer((10,), \"float32\")):\n"
                             "    for i in range(10):\n"
                             "        with T.block(\"stencil\"):\n"
                             "            vi = T.axis.spatial(10, i)\n"
                             "            T.reads(A[vi:vi + 2])\n"
                             "            T.writes(B[vi])\n"
                             "            B[vi] = A[vi] + A[vi + 1]\n";

static void test_errors(void) {
  const tsl_func *f = parse(oob_src, "stencil.py");
  if (!f)
    return;
  tsl_arg a[2];
  tsl_diag d;
  int r = prun(f, NULL, 0, 1, a, &d);
  is_int(r, TSL_ERUNTIME, "stencil reading A[10]: run-time error");
  is_str(d.text,
         "out-of-bounds load from A[10]: index 10 of dimension 0 is outside "
         "[0, 10) for "
         "buffer 'A' of shape (10,) (in block 'stencil')",
         "stencil: error text");
  tsl_args_free(a, 2);
}

/* TVM's promotion rules decide what is computed: a Python float literal is
 * float32 (so `v * 0.1` is a float32 product even when stored into a
 * float64 buffer), a float16 value meeting a literal is computed in
 * float32, and narrow integers meeting an int literal are computed in
 * int32 and only cast back by the store. */
static const char *promote_src =
    "@T.prim_func\n"
    "def main(I: T.Buffer((16,), \"int8\"), U: T.Buffer((16,), \"uint8\"),\n"
    "         H: T.Buffer((16,), \"float16\"), D: T.Buffer((16,), \"float64\"),\n"
    "         F: T.Buffer((16,), \"float32\"), G: T.Buffer((16,), \"float32\"),\n"
    "         J: T.Buffer((16,), \"int8\"), V: T.Buffer((16,), \"uint8\"),\n"
    "         K: T.Buffer((16,), \"float16\")):\n"
    "    for i in range(16):\n"
    "        with T.block(\"promote\"):\n"
    "            v = T.axis.spatial(16, i)\n"
    "            D[v] = v * 0.1\n"
    "            F[v] = v * 2 + 0.5\n"
    "            G[v] = v // 3\n"
    "            J[v] = I[v] * 40 // 3\n"
    "            V[v] = (U[v] - 20) // 4\n"
    "            K[v] = H[v] * 0.1 + 1\n";

static void test_promotion(void) {
  const tsl_func *f = parse(promote_src, "promote.py");
  if (!f)
    return;
  tsl_arg a[9];
  tsl_diag d;
  int r = prun(f, NULL, 0, 5, a, &d);
  if (!ok(r == 0, "promotion: runs"))
    tap_diag("%s", d.text);
  const int8_t *x = a[0].tensor.data, *j = a[6].tensor.data;
  const uint8_t *u = a[1].tensor.data, *vv = a[7].tensor.data;
  const uint16_t *h = a[2].tensor.data, *k = a[8].tensor.data;
  const double *dd = a[3].tensor.data;
  const float *ff = a[4].tensor.data, *g = a[5].tensor.data;
  int gd = 1, gf = 1, gg = 1, gj = 1, gv = 1, gk = 1, narrow_differs = 0;
  for (int i = 0; i < 16; i++) {
    gd &= dd[i] == (double)((float)i * (float)0.1);
    narrow_differs |= dd[i] != i * 0.1;
    gf &= ff[i] == (float)(i * 2) + 0.5f;
    gg &= g[i] == (float)(i / 3);
    int32_t q = x[i] * 40, fl = q / 3 - (q % 3 != 0 && q < 0);
    gj &= j[i] == (int8_t)(uint8_t)fl;
    int32_t w = (int32_t)u[i] - 20, fw = w / 4 - (w % 4 != 0 && w < 0);
    gv &= vv[i] == (uint8_t)fw;
    float hk = tsl_f16_to_f32(h[i]) * (float)0.1 + 1.0f;
    gk &= k[i] == tsl_f32_to_f16(hk);
  }
  ok(gd && narrow_differs, "int32 * float literal is a float32 product, then widened to float64");
  ok(gf, "v * 2 + 0.5: the int32 product is cast to float32");
  ok(gg, "an integer index expression stored into a float32 buffer is cast");
  ok(gj, "int8 * 40 // 3 is computed in int32 and cast back to int8 by the store");
  ok(gv, "(uint8 - 20) // 4 is computed in int32 (negative), then cast to uint8");
  ok(gk, "float16 * 0.1 + 1 is computed in float32 and rounded to float16 once");
  tsl_args_free(a, 9);
}

/* TVM builtins: the hints run, the others are refused by name. */
static const char *builtin_src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "    for i in range(8):\n"
    "        with T.block(\"hint\"):\n"
    "            v = T.axis.spatial(8, i)\n"
    "            T.evaluate(T.assume(v < 8))\n"
    "            B[v] = T.if_then_else(T.likely(v < 4), A[v], T.float32(0))\n";

static const char *mma_src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 16), \"float16\"), C: T.Buffer((16, 16), \"float32\")):\n"
    "    with T.block(\"wmma\"):\n"
    "        T.reads(A[0:16, 0:16], C[0:16, 0:16])\n"
    "        T.writes(C[0:16, 0:16])\n"
    "        T.evaluate(T.tvm_mma_sync(C.data, 0, A.data, 0, A.data, 0, C.data, 0))\n";

static const char *ptr_src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16,), \"float32\")):\n"
    "    with T.block(\"raw\"):\n"
    "        T.reads(A[0:16])\n"
    "        T.writes(A[0:16])\n"
    "        T.evaluate(T.call_extern(\"int32\", \"expf\", A.data))\n";

static void test_builtins(void) {
  const tsl_func *f = parse(builtin_src, "hints.py");
  if (f) {
    tsl_arg a[2];
    tsl_diag d;
    int r = prun(f, NULL, 0, 3, a, &d);
    if (!ok(r == 0, "T.likely and T.assume run"))
      tap_diag("%s", d.text);
    const float *x = a[0].tensor.data, *y = a[1].tensor.data;
    int good = 1;
    for (int i = 0; i < 8; i++)
      good &= y[i] == (i < 4 ? x[i] : 0.0f);
    ok(good, "T.likely(c) is c");
    tsl_args_free(a, 2);
  }
  f = parse(mma_src, "mma.py");
  if (f) {
    tsl_arg a[2];
    tsl_diag d;
    int r = prun(f, NULL, 0, 1, a, &d);
    is_int(r, TSL_EUNSUPPORTED, "T.tvm_mma_sync: refused");
    is_str(d.text,
           "cannot interpret function 'main': T.tvm_mma_sync cannot be interpreted: it is a "
           "CUDA tensor-core (WMMA) fragment operation; the interpreter runs only buffer "
           "loads, stores and arithmetic (in block 'wmma')",
           "T.tvm_mma_sync: error text");
    tsl_args_free(a, 2);
  }
  f = parse(ptr_src, "ptr.py");
  if (f) {
    tsl_arg a[1];
    tsl_diag d;
    int r = prun(f, NULL, 0, 1, a, &d);
    is_int(r, TSL_EUNSUPPORTED, "A.data: refused");
    is_str(d.text,
           "cannot interpret function 'main': A.data cannot be interpreted: it is the raw "
           "pointer of buffer 'A'; the "
           "interpreter runs only buffer loads, stores and arithmetic (in block 'raw')",
           "A.data: error text");
    tsl_args_free(a, 1);
  }
}

int main(void) {
  ctx = tsl_ctx_new();
  arena = tsl_arena_new(ctx);
  test_matmul();
  test_symbolic();
  test_tiles();
  test_int8();
  test_errors();
  test_promotion();
  test_builtins();
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
