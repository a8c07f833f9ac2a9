/*
 * plugins/cuda-mma/mma_intrins.c — the TVMScript text of the warp-level
 * tensor-core intrinsics, generated from a table: one generator per family
 * (ldmatrix, mma, fill, store), each writing an @I.ir_module with the
 * description (plain TensorIR over 16x16 tiles, the warp side indexed
 * through the 32x8 register layout of mma_intrins.h) and the
 * implementation (the PTX builtins under a threadIdx.x loop of 32 lanes,
 * their dtype given as TVM's source does, `dtype=`; tessel prints it first,
 * as TVM's printer does).
 */
#include "mma_intrins.h"

#include "intrin_table.h"

#include <stdio.h>
#include <string.h>

enum { LOCAL_SIZE = 8 }; /* register elements per lane of a 16x16 tile */


/* The register of element (r, c) of a 16x16 tile: "thread, local". */
static void warp_index(char *out, size_t cap, const char *r, const char *c) {
  snprintf(out, cap, "4 * (%s %% 8) + %s %% 8 // 2, 4 * (%s // 8) + %s // 8 * 2 + %s %% 2", r, c,
           c, r, c);
}

static void func_head(it_text *t, const mma_intrin *w, const char *kind, const char *params) {
  it_put(t, "    @T.prim_func\n    def %s_%s(%s):\n", w->name, kind, params);
}

/* `buf = T.match_buffer(handle, (r, c), dtype[, align=64][, offset_factor=f],
 * scope=...[, strides=[s0, s1]])`; align 0 / offset_factor 0 are left out. */
static void match(it_text *t, const char *buf, const char *handle, int rows, int cols,
                  const char *dtype, int align, int offset_factor, const char *scope,
                  int strides) {
  it_put(t, "        %s = T.match_buffer(%s, (%d, %d), \"%s\"", buf, handle, rows, cols, dtype);
  if (align)
    it_put(t, ", align=%d", align);
  if (offset_factor)
    it_put(t, ", offset_factor=%d", offset_factor);
  it_put(t, ", scope=\"%s\"", scope);
  if (strides)
    it_put(t, ", strides=[s0, s1]");
  it_put(t, ")\n");
}

static void stride_vars(it_text *t) { it_put(t, "        s0 = T.int32()\n        s1 = T.int32()\n"); }

static void root_head(it_text *t, const char *reads, const char *writes) {
  it_put(t, "        with T.block(\"root\"):\n            T.reads(%s)\n            T.writes(%s)\n",
      reads, writes);
}

static void lanes(it_text *t) {
  it_put(t, "            for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n");
}

/* The inner block of a 16x16 description. */
static void tile_block(it_text *t, const char *block, const char *reads, const char *writes,
                       const char *stmt) {
  it_put(t,
      "            for ax0, ax1 in T.grid(16, 16):\n"
      "                with T.block(\"%s\"):\n"
      "                    v0, v1 = T.axis.remap(\"SS\", [ax0, ax1])\n"
      "                    T.reads(%s)\n"
      "                    T.writes(%s)\n"
      "                    %s\n",
      block, reads, writes, stmt);
}

static const char *abbrev(const char *dtype) {
  return !strcmp(dtype, "float32") ? "fp32" : !strcmp(dtype, "bfloat16") ? "bf16" : "fp16";
}

/* warp[thread_id, local_id] = shared[v0, v1]: ldmatrix of a 16x16 tile. A
 * transposed tile changes which rows each lane addresses and flips the
 * hardware transpose (for B, stored [k, n], the plain load transposes). */
static int gen_ldmatrix(const mma_intrin *w, char *out, size_t cap) {
  it_text t = {out, cap, 0, 0};
  int trans = w->is_b ? w->trans_b : w->trans_a;
  int in_ldmatrix = w->is_b ? !trans : trans;
  const char *params = "warp_handle: T.handle, shared_handle: T.handle";
  char wi[128], wr[160], st[320];
  warp_index(wi, sizeof wi, "v0", "v1");
  snprintf(wr, sizeof wr, "warp[%s]", wi);
  snprintf(st, sizeof st, "%s = shared[v0, v1]", wr);
  it_put(&t, "@I.ir_module\nclass Module:\n");
  func_head(&t, w, "desc", params);
  match(&t, "shared", "shared_handle", 16, 16, w->dtype, 64, 16, w->scope, 0);
  match(&t, "warp", "warp_handle", 32, LOCAL_SIZE, w->dtype, 64, 16, "warp", 0);
  root_head(&t, "shared[0:16, 0:16]", "warp[0:32, 0:8]");
  tile_block(&t, "shared_warp", "shared[v0, v1]", wr, st);
  it_put(&t, "\n");
  func_head(&t, w, "impl", params);
  stride_vars(&t);
  match(&t, "shared", "shared_handle", 16, 16, w->dtype, 64, 16, w->scope, 1);
  match(&t, "warp", "warp_handle", 32, LOCAL_SIZE, w->dtype, 64, 16, "warp", 0);
  root_head(&t, "shared[0:16, 0:16]", "warp[0:32, 0:8]");
  lanes(&t);
  it_put(&t,
      "                T.evaluate(T.ptx_ldmatrix(T.bool(%s), 4, \".b16\", warp.data, "
      "warp.elem_offset + %d * tx, shared.access_ptr(\"r\"), %s, dtype=\"%s\"))\n",
      in_ldmatrix ? "True" : "False", LOCAL_SIZE,
      trans ? "s0 * 8 * (tx // 16) + s0 * (tx % 8) + 8 * (tx % 16 // 8)"
            : "s0 * (tx % 16) + 8 * (tx // 16)",
      w->dtype);
  return t.over ? -1 : 0;
}

/* C[i, j] += A[i, k] * B[k, j] on register tiles (A[k, i] when trans_a,
 * B[j, k] when trans_b), the products cast to the accumulator's type when
 * it differs; two m16n8k16 mma.sync, one per 8-column half of C. */
static int gen_mma(const mma_intrin *w, char *out, size_t cap) {
  it_text t = {out, cap, 0, 0};
  const char *params = "a: T.handle, b: T.handle, c: T.handle";
  const char *reads = "C[0:32, 0:8], A[0:32, 0:8], B[0:32, 0:8]";
  char ia[128], ib[128], ic[128], ca[192], cb[192], stmt[800];
  warp_index(ia, sizeof ia, w->trans_a ? "vk" : "vi", w->trans_a ? "vi" : "vk");
  warp_index(ib, sizeof ib, w->trans_b ? "vj" : "vk", w->trans_b ? "vk" : "vj");
  warp_index(ic, sizeof ic, "vi", "vj");
  if (strcmp(w->dtype, w->out_dtype) != 0) {
    snprintf(ca, sizeof ca, "T.Cast(\"%s\", A[%s])", w->out_dtype, ia);
    snprintf(cb, sizeof cb, "T.Cast(\"%s\", B[%s])", w->out_dtype, ib);
  } else {
    snprintf(ca, sizeof ca, "A[%s]", ia);
    snprintf(cb, sizeof cb, "B[%s]", ib);
  }
  snprintf(stmt, sizeof stmt, "C[%s] = C[%s] + %s * %s", ic, ic, ca, cb);
  it_put(&t, "@I.ir_module\nclass Module:\n");
  for (int impl = 0; impl < 2; impl++) {
    func_head(&t, w, impl ? "impl" : "desc", params);
    match(&t, "A", "a", 32, LOCAL_SIZE, w->dtype, 64, 16, "warp", 0);
    match(&t, "B", "b", 32, LOCAL_SIZE, w->dtype, 64, 16, "warp", 0);
    match(&t, "C", "c", 32, LOCAL_SIZE, w->out_dtype, 64, 16, "warp", 0);
    root_head(&t, reads, "C[0:32, 0:8]");
    if (!impl) {
      it_put(&t,
          "            for i, j, k in T.grid(16, 16, 16):\n"
          "                with T.block(\"C\"):\n"
          "                    vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
          "                    T.reads(C[%s], A[%s], B[%s])\n"
          "                    T.writes(C[%s])\n"
          "                    %s\n\n",
          ic, ia, ib, ic, stmt);
      continue;
    }
    lanes(&t);
    for (int half = 0; half < 2; half++) {
      char plus[16] = "";
      if (half)
        snprintf(plus, sizeof plus, " + %d", LOCAL_SIZE / 2);
      it_put(&t,
          "                T.evaluate(T.ptx_mma(\"m16n8k16\", \"row\", \"col\", \"%s\", \"%s\", "
          "\"%s\", A.data, A.elem_offset + tx * %d, B.data, B.elem_offset + tx * %d%s, C.data, "
          "C.elem_offset + tx * %d%s, T.bool(False), dtype=\"%s\"))\n",
          abbrev(w->dtype), abbrev(w->dtype), abbrev(w->out_dtype), LOCAL_SIZE, LOCAL_SIZE, plus,
          LOCAL_SIZE, plus, w->out_dtype);
    }
  }
  return t.over ? -1 : 0;
}

/* C_warp[thread_id, local_id] = 0 over a 16x16 accumulator tile. */
static int gen_fill(const mma_intrin *w, char *out, size_t cap) {
  it_text t = {out, cap, 0, 0};
  char wi[128], wr[160], st[320];
  warp_index(wi, sizeof wi, "v0", "v1");
  snprintf(wr, sizeof wr, "C_warp[%s]", wi);
  snprintf(st, sizeof st, "%s = T.%s(0)", wr, w->dtype);
  it_put(&t, "@I.ir_module\nclass Module:\n");
  func_head(&t, w, "desc", "a: T.handle");
  match(&t, "C_warp", "a", 32, LOCAL_SIZE, w->dtype, 0, 0, "warp", 0);
  root_head(&t, "", "C_warp[0:32, 0:8]");
  tile_block(&t, "C_warp", "", wr, st);
  it_put(&t, "\n");
  func_head(&t, w, "impl", "a: T.handle");
  match(&t, "C_warp", "a", 32, LOCAL_SIZE, w->dtype, 0, 1, "warp", 0);
  root_head(&t, "", "C_warp[0:32, 0:8]");
  lanes(&t);
  it_put(&t,
      "                T.evaluate(T.mma_fill(%d, C_warp.data, C_warp.elem_offset, "
      "dtype=\"%s\"))\n",
      LOCAL_SIZE, w->dtype);
  return t.over ? -1 : 0;
}

/* C[v0, v1] = C_warp[thread_id, local_id]: an accumulator tile out to
 * global or shared memory, by T.mma_store or (simple) one store per
 * register, lane tx's element l going to its place in the tile. */
static int gen_store(const mma_intrin *w, char *out, size_t cap) {
  it_text t = {out, cap, 0, 0};
  const char *params = "a: T.handle, c: T.handle";
  char wi[128], rd[160], st[320];
  warp_index(wi, sizeof wi, "v0", "v1");
  snprintf(rd, sizeof rd, "C_warp[%s]", wi);
  snprintf(st, sizeof st, "C[v0, v1] = %s", rd);
  it_put(&t, "@I.ir_module\nclass Module:\n");
  func_head(&t, w, "desc", params);
  match(&t, "C_warp", "a", 32, LOCAL_SIZE, w->dtype, 0, 0, "warp", 0);
  match(&t, "C", "c", 16, 16, w->dtype, 0, 0, w->scope, 0);
  root_head(&t, "C_warp[0:32, 0:8]", "C[0:16, 0:16]");
  tile_block(&t, "C_warp", rd, "C[v0, v1]", st);
  it_put(&t, "\n");
  func_head(&t, w, "impl", params);
  stride_vars(&t);
  match(&t, "C_warp", "a", 32, LOCAL_SIZE, w->dtype, 0, 1, "warp", 0);
  match(&t, "C", "c", 16, 16, w->dtype, 0, 1, w->scope, 1);
  root_head(&t, "C_warp[0:32, 0:8]", "C[0:16, 0:16]");
  lanes(&t);
  if (w->simple)
    it_put(&t,
        "                for local_id in range(%d):\n"
        "                    C[8 * (local_id %% 4 // 2) + tx // 4, 8 * (local_id // 4) + "
        "tx %% 4 * 2 + local_id %% 2] = C_warp[tx, local_id]\n",
        LOCAL_SIZE);
  else
    it_put(&t,
        "                T.evaluate(T.mma_store(16, 16, C.access_ptr(\"w\"), C_warp.data, "
        "C_warp.elem_offset, s0, dtype=\"%s\"))\n",
        w->dtype);
  return t.over ? -1 : 0;
}

#define F16 "float16"
#define BF16 "bfloat16"
#define F32 "float32"
#define SH "shared"
#define DYN "shared.dyn"
#define LDM(name, dt, scope, b, tr, what)                                                      \
  {name, gen_ldmatrix, dt, NULL, scope, b, tr, tr, 0,                                           \
   "MMA ldmatrix of a 16x16 " what " tile (" dt ") from " scope " into warp registers"}
#define MMA(name, in, out, ta, tb, what)                                                       \
  {name, gen_mma, in, out, NULL, 0, ta, tb, 0,                                                  \
   "MMA m16n8k16 multiply-accumulate of 16x16x16, " in " inputs, " out " accumulator" what}
#define FILL(name, dt)                                                                         \
  {name, gen_fill, dt, NULL, NULL, 0, 0, 0, 0, "MMA zero fill of a 16x16 " dt " accumulator"}
#define STORE(name, dt, scope)                                                                 \
  {name, gen_store, dt, NULL, scope, 0, 0, 0, 0,                                                \
   "MMA store of a 16x16 " dt " accumulator to " scope " by mma_store"}
#define STORE_SIMPLE(name, dt, scope)                                                          \
  {name, gen_store, dt, NULL, scope, 0, 0, 0, 1,                                                \
   "MMA store of a 16x16 " dt " accumulator to " scope ", one store per register"}

static const mma_intrin table[] = {
    /* ldmatrix: dtype, shared scope, B (else A), the tile transposed */
    LDM("mma_ldmatrix_f16_a", F16, SH, 0, 0, "A"),
    LDM("mma_ldmatrix_f16_b", F16, SH, 1, 0, "B"),
    LDM("mma_ldmatrix_f16_a_trans", F16, SH, 0, 1, "A (transposed)"),
    LDM("mma_ldmatrix_f16_b_trans", F16, SH, 1, 1, "B (transposed)"),
    LDM("mma_ldmatrix_f16_a_dyn", F16, DYN, 0, 0, "A"),
    LDM("mma_ldmatrix_f16_b_dyn", F16, DYN, 1, 0, "B"),
    LDM("mma_ldmatrix_f16_a_trans_dyn", F16, DYN, 0, 1, "A (transposed)"),
    LDM("mma_ldmatrix_f16_b_trans_dyn", F16, DYN, 1, 1, "B (transposed)"),
    LDM("mma_ldmatrix_bf16_a", BF16, SH, 0, 0, "A"),
    LDM("mma_ldmatrix_bf16_b", BF16, SH, 1, 0, "B"),
    LDM("mma_ldmatrix_bf16_a_trans", BF16, SH, 0, 1, "A (transposed)"),
    LDM("mma_ldmatrix_bf16_b_trans", BF16, SH, 1, 1, "B (transposed)"),
    LDM("mma_ldmatrix_bf16_a_dyn", BF16, DYN, 0, 0, "A"),
    LDM("mma_ldmatrix_bf16_b_dyn", BF16, DYN, 1, 0, "B"),
    LDM("mma_ldmatrix_bf16_a_trans_dyn", BF16, DYN, 0, 1, "A (transposed)"),
    LDM("mma_ldmatrix_bf16_b_trans_dyn", BF16, DYN, 1, 1, "B (transposed)"),
    /* mma.sync: inputs, accumulator, A as [k, m], B as [n, k] */
    MMA("mma_f16f16f32", F16, F32, 0, 0, ""),
    MMA("mma_f16f16f32_trans_a", F16, F32, 1, 0, ", A as [k, m]"),
    MMA("mma_f16f16f32_trans_b", F16, F32, 0, 1, ", B as [n, k]"),
    MMA("mma_f16f16f32_trans_a_trans_b", F16, F32, 1, 1, ", A as [k, m], B as [n, k]"),
    MMA("mma_f16f16f16", F16, F16, 0, 0, ""),
    MMA("mma_f16f16f16_trans_a", F16, F16, 1, 0, ", A as [k, m]"),
    MMA("mma_f16f16f16_trans_b", F16, F16, 0, 1, ", B as [n, k]"),
    MMA("mma_f16f16f16_trans_a_trans_b", F16, F16, 1, 1, ", A as [k, m], B as [n, k]"),
    MMA("mma_bf16bf16f32", BF16, F32, 0, 0, ""),
    MMA("mma_bf16bf16f32_trans_a", BF16, F32, 1, 0, ", A as [k, m]"),
    MMA("mma_bf16bf16f32_trans_b", BF16, F32, 0, 1, ", B as [n, k]"),
    MMA("mma_bf16bf16f32_trans_a_trans_b", BF16, F32, 1, 1, ", A as [k, m], B as [n, k]"),
    FILL("mma_fill_16x16_f32", F32),
    FILL("mma_fill_16x16_f16", F16),
    /* stores: T.mma_store (TVM's "_"), element-wise ("_simple_") */
    STORE("mma_store_16x16_f32_global_", F32, "global"),
    STORE("mma_store_16x16_f32_shared_", F32, SH),
    STORE("mma_store_16x16_f32_shared_dyn_", F32, DYN),
    STORE("mma_store_16x16_f16_global_", F16, "global"),
    STORE("mma_store_16x16_f16_shared_", F16, SH),
    STORE("mma_store_16x16_f16_shared_dyn_", F16, DYN),
    STORE_SIMPLE("mma_store_16x16_f32_global_simple_", F32, "global"),
    STORE_SIMPLE("mma_store_16x16_f32_shared_simple_", F32, SH),
    STORE_SIMPLE("mma_store_16x16_f32_shared_dyn_simple_", F32, DYN),
    STORE_SIMPLE("mma_store_16x16_f16_global_simple_", F16, "global"),
    STORE_SIMPLE("mma_store_16x16_f16_shared_simple_", F16, SH),
    STORE_SIMPLE("mma_store_16x16_f16_shared_dyn_simple_", F16, DYN),
};

const mma_intrin *mma_intrins(uint32_t *n) {
  *n = (uint32_t)(sizeof table / sizeof table[0]);
  return table;
}
