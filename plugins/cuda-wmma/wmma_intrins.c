/*
 * plugins/cuda-wmma/wmma_intrins.c — the TVMScript text of the WMMA tensor
 * intrinsics, generated from a table: one generator per family (load, fill,
 * store, sync), each writing an @I.ir_module with the description (plain
 * TensorIR the tile computes) and the implementation (one warp-wide
 * T.tvm_*_sync call on the matched regions, which are seen through
 * symbolic strides and the offset the match binds).
 *
 * A fragment buffer X with row stride d and fragment shape (fm, fn) is the
 * fragment number
 *   X.elem_offset // d // fm * (d // fn) + X.elem_offset % d // fn
 * of its allocation (TVM's get_wmma_fragment_index).
 */
#include "wmma_intrins.h"

#include "intrin_table.h"

#include <stdio.h>
#include <string.h>


static void module_head(it_text *t) { it_put(t, "@I.ir_module\nclass Module:\n"); }

static void func_head(it_text *t, const wmma_intrin *w, const char *kind, const char *params) {
  it_put(t, "    @T.prim_func\n    def %s_%s(%s):\n", w->name, kind, params);
}

/* `X = T.match_buffer(x, (r, c), ...)`, with strides [s1, s0] when given. */
static void match(it_text *t, char buf, int rows, int cols, const char *dtype, int offset_factor,
                  const char *scope, const char *s1, const char *s0) {
  it_put(t, "        %c = T.match_buffer(%c, (%d, %d), \"%s\", align=64, offset_factor=%d, "
         "scope=\"%s\"",
      buf, buf + ('a' - 'A'), rows, cols, dtype, offset_factor, scope);
  if (s1)
    it_put(t, ", strides=[%s, %s]", s1, s0);
  it_put(t, ")\n");
}

static void size_vars(it_text *t, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    it_put(t, "        %s = T.int32()\n", names[i]);
}

static void root_head(it_text *t, const char *reads, const char *writes) {
  it_put(t, "        with T.block(\"root\"):\n            T.reads(%s)\n            T.writes(%s)\n",
      reads, writes);
}

static void frag_index(char *out, size_t cap, char buf, const char *d, int fm, int fn) {
  snprintf(out, cap, "%c.elem_offset // %s // %d * (%s // %d) + %c.elem_offset %% %s // %d", buf,
           d, fm, d, fn, buf, d, fn);
}

/* The inner block of a 2-D description: `for i, j` over rows x cols. */
static void tile_block(it_text *t, int rows, int cols, const char *block, const char *reads,
                       const char *writes, const char *stmt) {
  it_put(t,
      "            for i, j in T.grid(%d, %d):\n"
      "                with T.block(\"%s\"):\n"
      "                    vii, vjj = T.axis.remap(\"SS\", [i, j])\n"
      "                    T.reads(%s)\n"
      "                    T.writes(%s)\n"
      "                    %s\n",
      rows, cols, block, reads, writes, stmt);
}

static int finish(const it_text *t) { return t->over ? -1 : 0; }

/* C[i, j] = A[i, j]: a shared tile into a matrix_a / matrix_b fragment. */
static int gen_load(const wmma_intrin *w, char *out, size_t cap) {
  it_text t = {out, cap, 0, 0};
  int fm = w->is_b ? w->k : w->m, fn = w->is_b ? w->n : w->k;
  if (w->trans) {
    int s = fm;
    fm = fn;
    fn = s;
  }
  const char *frag = w->is_b ? "wmma.matrix_b" : "wmma.matrix_a";
  char reg[32];
  snprintf(reg, sizeof reg, "[0:%d, 0:%d]", fm, fn);
  char rd[40], wr[40];
  snprintf(rd, sizeof rd, "A%s", reg);
  snprintf(wr, sizeof wr, "C%s", reg);
  module_head(&t);
  func_head(&t, w, "desc", "a: T.handle, c: T.handle");
  match(&t, 'A', fm, fn, w->dtype, fn, w->scope, NULL, NULL);
  match(&t, 'C', fm, fn, w->dtype, fn, frag, NULL, NULL);
  root_head(&t, rd, wr);
  tile_block(&t, fm, fn, "load", "A[vii, vjj]", "C[vii, vjj]", "C[vii, vjj] = A[vii, vjj]");
  it_put(&t, "\n");
  func_head(&t, w, "impl", "a: T.handle, c: T.handle");
  static const char *const vars[] = {"s1", "s0", "d1", "d0"};
  size_vars(&t, vars, 4);
  match(&t, 'A', fm, fn, w->dtype, fn, w->scope, "s1", "s0");
  match(&t, 'C', fm, fn, w->dtype, fn, frag, "d1", "d0");
  root_head(&t, rd, wr);
  char idx[160];
  frag_index(idx, sizeof idx, 'C', "d1", fm, fn);
  it_put(&t,
      "            T.evaluate(T.tvm_load_matrix_sync(C.data, %d, %d, %d, %s, "
      "A.access_ptr(\"r\"), s1, \"%s\", dtype=\"handle\"))\n",
      w->m, w->n, w->k, idx, w->trans ? "col_major" : "row_major");
  return finish(&t);
}

/* C[i, j] = 0 in a wmma.accumulator fragment. */
static int gen_fill(const wmma_intrin *w, char *out, size_t cap) {
  it_text t = {out, cap, 0, 0};
  char zero[40], stmt[80], wr[40];
  snprintf(zero, sizeof zero, "T.%s(0)", w->dtype);
  snprintf(stmt, sizeof stmt, "C[vii, vjj] = %s", zero);
  snprintf(wr, sizeof wr, "C[0:%d, 0:%d]", w->m, w->n);
  module_head(&t);
  func_head(&t, w, "desc", "c: T.handle");
  match(&t, 'C', w->m, w->n, w->dtype, w->n, "wmma.accumulator", NULL, NULL);
  root_head(&t, "", wr);
  tile_block(&t, w->m, w->n, "init", "", "C[vii, vjj]", stmt);
  it_put(&t, "\n");
  func_head(&t, w, "impl", "c: T.handle");
  static const char *const vars[] = {"d1", "d0"};
  size_vars(&t, vars, 2);
  match(&t, 'C', w->m, w->n, w->dtype, w->n, "wmma.accumulator", "d1", "d0");
  root_head(&t, "", wr);
  char idx[160];
  frag_index(idx, sizeof idx, 'C', "d1", w->m, w->n);
  it_put(&t,
      "            T.evaluate(T.tvm_fill_fragment(C.data, %d, %d, %d, %s, %s, "
      "dtype=\"handle\"))\n",
      w->m, w->n, w->k, idx, zero);
  return finish(&t);
}

/* C[i, j] = A[i, j]: a wmma.accumulator fragment out to global or shared. */
static int gen_store(const wmma_intrin *w, char *out, size_t cap) {
  it_text t = {out, cap, 0, 0};
  char rd[40], wr[40];
  snprintf(rd, sizeof rd, "A[0:%d, 0:%d]", w->m, w->n);
  snprintf(wr, sizeof wr, "C[0:%d, 0:%d]", w->m, w->n);
  module_head(&t);
  func_head(&t, w, "desc", "a: T.handle, c: T.handle");
  match(&t, 'A', w->m, w->n, w->dtype, w->n, "wmma.accumulator", NULL, NULL);
  match(&t, 'C', w->m, w->n, w->dtype, w->n, w->scope, NULL, NULL);
  root_head(&t, rd, wr);
  tile_block(&t, w->m, w->n, "store", "A[vii, vjj]", "C[vii, vjj]", "C[vii, vjj] = A[vii, vjj]");
  it_put(&t, "\n");
  func_head(&t, w, "impl", "a: T.handle, c: T.handle");
  static const char *const vars[] = {"s1", "s0", "d1", "d0"};
  size_vars(&t, vars, 4);
  match(&t, 'A', w->m, w->n, w->dtype, w->n, "wmma.accumulator", "d1", "d0");
  match(&t, 'C', w->m, w->n, w->dtype, w->n, w->scope, "s1", "s0");
  root_head(&t, rd, wr);
  char idx[160];
  frag_index(idx, sizeof idx, 'A', "d1", w->m, w->n);
  it_put(&t,
      "            T.evaluate(T.tvm_store_matrix_sync(A.data, %d, %d, %d, %s, "
      "C.access_ptr(\"w\"), s1, \"row_major\", dtype=\"handle\"))\n",
      w->m, w->n, w->k, idx);
  return finish(&t);
}

/* C[i, j] += A[i, k] * B[k, j] (B[j, k] when trans) on fragments, the
 * products cast to the accumulator's type when the inputs' differs. */
static int gen_sync(const wmma_intrin *w, char *out, size_t cap) {
  it_text t = {out, cap, 0, 0};
  int b0 = w->trans ? w->n : w->k, b1 = w->trans ? w->k : w->n;
  const char *bi = w->trans ? "B[vjj, vkk]" : "B[vkk, vjj]";
  char rd[96], wr[40], ca[48], cb[48], stmt[200];
  snprintf(rd, sizeof rd, "C[0:%d, 0:%d], A[0:%d, 0:%d], B[0:%d, 0:%d]", w->m, w->n, w->m, w->k,
           b0, b1);
  snprintf(wr, sizeof wr, "C[0:%d, 0:%d]", w->m, w->n);
  if (strcmp(w->dtype, w->out_dtype) != 0) {
    snprintf(ca, sizeof ca, "T.Cast(\"%s\", A[vii, vkk])", w->out_dtype);
    snprintf(cb, sizeof cb, "T.Cast(\"%s\", %s)", w->out_dtype, bi);
  } else {
    snprintf(ca, sizeof ca, "A[vii, vkk]");
    snprintf(cb, sizeof cb, "%s", bi);
  }
  snprintf(stmt, sizeof stmt, "C[vii, vjj] = C[vii, vjj] + %s * %s", ca, cb);
  module_head(&t);
  func_head(&t, w, "desc", "a: T.handle, b: T.handle, c: T.handle");
  match(&t, 'A', w->m, w->k, w->dtype, w->k, "wmma.matrix_a", NULL, NULL);
  match(&t, 'B', b0, b1, w->dtype, b1, "wmma.matrix_b", NULL, NULL);
  match(&t, 'C', w->m, w->n, w->out_dtype, w->n, "wmma.accumulator", NULL, NULL);
  root_head(&t, rd, wr);
  it_put(&t,
      "            for i, j, k in T.grid(%d, %d, %d):\n"
      "                with T.block(\"update\"):\n"
      "                    vii, vjj, vkk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "                    T.reads(C[vii, vjj], A[vii, vkk], %s)\n"
      "                    T.writes(C[vii, vjj])\n"
      "                    %s\n",
      w->m, w->n, w->k, bi, stmt);
  it_put(&t, "\n");
  func_head(&t, w, "impl", "a: T.handle, b: T.handle, c: T.handle");
  static const char *const vars[] = {"a1", "a0", "b1", "b0", "c1", "c0"};
  size_vars(&t, vars, 6);
  match(&t, 'A', w->m, w->k, w->dtype, w->k, "wmma.matrix_a", "a1", "a0");
  match(&t, 'B', b0, b1, w->dtype, b1, "wmma.matrix_b", "b1", "b0");
  match(&t, 'C', w->m, w->n, w->out_dtype, w->n, "wmma.accumulator", "c1", "c0");
  root_head(&t, rd, wr);
  char ia[160], ib[160], ic[160];
  frag_index(ia, sizeof ia, 'A', "a1", w->m, w->k);
  frag_index(ib, sizeof ib, 'B', "b1", b0, b1);
  frag_index(ic, sizeof ic, 'C', "c1", w->m, w->n);
  it_put(&t,
      "            T.evaluate(T.tvm_mma_sync(C.data, %s, A.data, %s, B.data, %s, C.data, %s, "
      "dtype=\"handle\"))\n",
      ic, ia, ib, ic);
  return finish(&t);
}

#define F16 "float16"
#define F32 "float32"
#define S8 "int8"
#define S32 "int32"
#define LOAD_T(name, dt, scope, b, tr, what)                                                    \
  {name, gen_load, 16, 16, 16, dt, NULL, scope, b, tr,                                          \
   "WMMA 16x16x16 load of " what " (" dt ") from " scope}
#define LOAD(name, scope, b, tr, what) LOAD_T(name, F16, scope, b, tr, what)
#define STORE(name, dt, scope)                                                                 \
  {name, gen_store, 16, 16, 16, dt, NULL, scope, 0, 0,                                          \
   "WMMA 16x16x16 store of an accumulator (" dt ") to " scope}
#define SYNC_T(name, in, out, tr, what)                                                        \
  {name, gen_sync, 16, 16, 16, in, out, NULL, 0, tr,                                            \
   "WMMA 16x16x16 multiply-accumulate, " in " inputs, " out " accumulator" what}
#define SYNC(name, out, tr, what) SYNC_T(name, F16, out, tr, what)

static const wmma_intrin table[] = {
    LOAD("wmma_load_16x16x16_f16_a_shared", "shared", 0, 0, "matrix A, row_major,"),
    LOAD("wmma_load_16x16x16_f16_a_shared_dyn", "shared.dyn", 0, 0, "matrix A, row_major,"),
    LOAD("wmma_load_16x16x16_f16_b_shared", "shared", 1, 0, "matrix B, row_major,"),
    LOAD("wmma_load_16x16x16_f16_b_shared_dyn", "shared.dyn", 1, 0, "matrix B, row_major,"),
    LOAD("wmma_load_16x16x16_f16_a_trans_shared", "shared", 0, 1, "matrix A, col_major,"),
    LOAD("wmma_load_16x16x16_f16_a_trans_shared_dyn", "shared.dyn", 0, 1,
         "matrix A, col_major,"),
    LOAD("wmma_load_16x16x16_f16_b_trans_shared", "shared", 1, 1, "matrix B, col_major,"),
    LOAD("wmma_load_16x16x16_f16_b_trans_shared_dyn", "shared.dyn", 1, 1,
         "matrix B, col_major,"),
    {"wmma_fill_16x16x16_f32", gen_fill, 16, 16, 16, F32, NULL, NULL, 0, 0,
     "WMMA 16x16x16 zero fill of a float32 accumulator"},
    {"wmma_fill_16x16x16_f16", gen_fill, 16, 16, 16, F16, NULL, NULL, 0, 0,
     "WMMA 16x16x16 zero fill of a float16 accumulator"},
    STORE("wmma_store_16x16x16_f32_global", F32, "global"),
    STORE("wmma_store_16x16x16_f32_shared", F32, "shared"),
    STORE("wmma_store_16x16x16_f32_shared_dyn", F32, "shared.dyn"),
    STORE("wmma_store_16x16x16_f16_global", F16, "global"),
    STORE("wmma_store_16x16x16_f16_shared", F16, "shared"),
    STORE("wmma_store_16x16x16_f16_shared_dyn", F16, "shared.dyn"),
    SYNC("wmma_sync_16x16x16_f16f16f32", F32, 0, ""),
    SYNC("wmma_sync_16x16x16_f16f16f32_trans", F32, 1, ", B as [n, k]"),
    SYNC("wmma_sync_16x16x16_f16f16f16", F16, 0, ""),
    SYNC("wmma_sync_16x16x16_f16f16f16_trans", F16, 1, ", B as [n, k]"),
    /* int8 inputs, int32 accumulators (sm_72 and newer) */
    LOAD_T("wmma_load_16x16x16_s8_a_shared", S8, "shared", 0, 0, "matrix A, row_major,"),
    LOAD_T("wmma_load_16x16x16_s8_a_shared_dyn", S8, "shared.dyn", 0, 0, "matrix A, row_major,"),
    LOAD_T("wmma_load_16x16x16_s8_b_shared", S8, "shared", 1, 0, "matrix B, row_major,"),
    LOAD_T("wmma_load_16x16x16_s8_b_shared_dyn", S8, "shared.dyn", 1, 0, "matrix B, row_major,"),
    LOAD_T("wmma_load_16x16x16_s8_a_trans_shared", S8, "shared", 0, 1, "matrix A, col_major,"),
    LOAD_T("wmma_load_16x16x16_s8_a_trans_shared_dyn", S8, "shared.dyn", 0, 1,
           "matrix A, col_major,"),
    LOAD_T("wmma_load_16x16x16_s8_b_trans_shared", S8, "shared", 1, 1, "matrix B, col_major,"),
    LOAD_T("wmma_load_16x16x16_s8_b_trans_shared_dyn", S8, "shared.dyn", 1, 1,
           "matrix B, col_major,"),
    {"wmma_fill_16x16x16_s32", gen_fill, 16, 16, 16, S32, NULL, NULL, 0, 0,
     "WMMA 16x16x16 zero fill of an int32 accumulator"},
    STORE("wmma_store_16x16x16_s32_global", S32, "global"),
    STORE("wmma_store_16x16x16_s32_shared", S32, "shared"),
    STORE("wmma_store_16x16x16_s32_shared_dyn", S32, "shared.dyn"),
    SYNC_T("wmma_sync_16x16x16_s8s8s32", S8, S32, 0, ""),
    SYNC_T("wmma_sync_16x16x16_s8s8s32_trans", S8, S32, 1, ", B as [n, k]"),
};

const wmma_intrin *wmma_intrins(uint32_t *n) {
  *n = (uint32_t)(sizeof table / sizeof table[0]);
  return table;
}
