/*
 * plugins/x86/x86_intrins.c — the x86 tensor intrinsics' TVMScript.
 *
 * The int8 dot products are TVM's (same names, same descriptions, so a
 * schedule written for TVM tensorizes the same way): 16 int32 lanes each
 * accumulate a 4-element dot product of the same 4 uint8 values of A with
 * their own 4 int8 values of B, B laid out [16, 4] (a packed weight's
 * inner tile). dot_16x4_vnni is one vpdpbusd; dot_16x4_avx512 is TVM's
 * AVX-512 sequence for CPUs without VNNI (vpmaddubsw, whose int16 sums of
 * two products saturate, then vpmaddwd with ones), which agrees with the
 * description only while |a0 b0 + a1 b1| <= 32767. dot_16x4_avx2 is
 * tessel's (TVM's x86 intrinsics need AVX-512): the same description and
 * the same sequence on 256-bit vectors, lanes 0-7 and 8-15 in turn, for
 * AVX2 CPUs, with the same saturation.
 *
 * dot_16x2_bf16_avx512 is tessel's (TVM has no bfloat16 CPU intrinsic):
 * the same shape for vdpbf16ps, 16 float32 lanes each accumulating a
 * 2-element dot product of bfloat16 values. The instruction adds the odd
 * product before the even one and flushes denormals, so it agrees with the
 * description to float32 rounding.
 *
 * The implementations load the whole [16, 4] (or [16, 2]) tile of B as one
 * vector: the region they are matched to must be contiguous, as a packed
 * layout's inner tile is (TVM's have the same requirement).
 */
#include "x86_intrins.h"

/* The description: C[i] += A[k] * B[i, k] over a 16 x K tile, the inputs
 * cast to the accumulator's dtype. */
#define DESC(NAME, K, IN_A, IN_B, ACC)                                                      \
  "    @T.prim_func\n"                                                                      \
  "    def " NAME "_desc(a: T.handle, b: T.handle, c: T.handle):\n"                         \
  "        A = T.match_buffer(a, (" #K ",), \"" IN_A "\", offset_factor=1)\n"               \
  "        B = T.match_buffer(b, (16, " #K "), \"" IN_B "\", offset_factor=1)\n"            \
  "        C = T.match_buffer(c, (16,), \"" ACC "\", offset_factor=1)\n"                    \
  "        with T.block(\"root\"):\n"                                                       \
  "            T.reads(C[0:16], A[0:" #K "], B[0:16, 0:" #K "])\n"                          \
  "            T.writes(C[0:16])\n"                                                         \
  "            for i, k in T.grid(16, " #K "):\n"                                           \
  "                with T.block(\"update\"):\n"                                             \
  "                    vi, vk = T.axis.remap(\"SR\", [i, k])\n"                             \
  "                    C[vi] = C[vi] + T.Cast(\"" ACC "\", A[vk]) * T.Cast(\"" ACC          \
  "\", B[vi, vk])\n"

#define IMPL_HEAD(NAME, K, IN_A, IN_B, ACC)                                                 \
  "    @T.prim_func\n"                                                                      \
  "    def " NAME "_impl(a: T.handle, b: T.handle, c: T.handle):\n"                         \
  "        A = T.match_buffer(a, (" #K ",), \"" IN_A "\", offset_factor=1)\n"               \
  "        B = T.match_buffer(b, (16, " #K "), \"" IN_B "\", offset_factor=1)\n"            \
  "        C = T.match_buffer(c, (16,), \"" ACC "\", offset_factor=1)\n"                    \
  "        with T.block(\"root\"):\n"                                                       \
  "            T.reads(C[0:16], A[0:" #K "], B[0:16, 0:" #K "])\n"                          \
  "            T.writes(C[0:16])\n"

/* A's K values, as one 32-bit lane, in all 16 lanes. */
#define A_LANES(VEC) "T.reinterpret(\"" VEC "\", T.Broadcast(T.reinterpret(\"int32\", A[0:4]), 16))"

static const char vnni[] =
    "@I.ir_module\nclass Module:\n" DESC("dot_16x4_vnni", 4, "uint8", "int8", "int32") "\n"
    IMPL_HEAD("dot_16x4_vnni", 4, "uint8", "int8", "int32")
    "            C[0:16] = T.call_llvm_pure_intrin(\"int32x16\", "
    "\"llvm.x86.avx512.vpdpbusd.512\", T.uint32(3), C[0:16], "
    A_LANES("int32x16") ", T.reinterpret(\"int32x16\", B[0, 0:64]))\n";

static const char avx512[] =
    "@I.ir_module\nclass Module:\n" DESC("dot_16x4_avx512", 4, "uint8", "int8", "int32") "\n"
    IMPL_HEAD("dot_16x4_avx512", 4, "uint8", "int8", "int32")
    "            C[0:16] = C[0:16] + T.call_llvm_pure_intrin(\"int32x16\", "
    "\"llvm.x86.avx512.pmaddw.d.512\", T.uint32(2), "
    "T.call_llvm_pure_intrin(\"int16x32\", \"llvm.x86.avx512.pmaddubs.w.512\", T.uint32(2), "
    A_LANES("uint8x64") ", B[0, 0:64]), T.Broadcast(T.int16(1), 32))\n";

/* A's K values, as one 32-bit lane, in the 8 lanes of a 256-bit vector. */
#define A_LANES8(VEC) "T.reinterpret(\"" VEC "\", T.Broadcast(T.reinterpret(\"int32\", A[0:4]), 8))"

/* Lanes L to L + 8 of the AVX2 sequence: B's rows L to L + 8, 32 bytes. */
#define AVX2_HALF(L, L8)                                                                    \
  "            C[" L ":" L8 "] = C[" L ":" L8 "] + T.call_llvm_pure_intrin(\"int32x8\", "     \
  "\"llvm.x86.avx2.pmadd.wd\", T.uint32(2), "                                               \
  "T.call_llvm_pure_intrin(\"int16x16\", \"llvm.x86.avx2.pmadd.ub.sw\", T.uint32(2), "       \
  A_LANES8("uint8x32") ", B[" L ", 0:32]), T.Broadcast(T.int16(1), 16))\n"

static const char avx2[] =
    "@I.ir_module\nclass Module:\n" DESC("dot_16x4_avx2", 4, "uint8", "int8", "int32") "\n"
    IMPL_HEAD("dot_16x4_avx2", 4, "uint8", "int8", "int32") AVX2_HALF("0", "8")
    AVX2_HALF("8", "16");

static const char bf16[] =
    "@I.ir_module\nclass Module:\n"
    DESC("dot_16x2_bf16_avx512", 2, "bfloat16", "bfloat16", "float32") "\n"
    IMPL_HEAD("dot_16x2_bf16_avx512", 2, "bfloat16", "bfloat16", "float32")
    "            C[0:16] = T.call_llvm_pure_intrin(\"float32x16\", "
    "\"llvm.x86.avx512bf16.dpbf16ps.512\", T.uint32(3), C[0:16], "
    "T.reinterpret(\"bfloat16x32\", T.Broadcast(T.reinterpret(\"float32\", A[0:2]), 16)), "
    "B[0, 0:32])\n";

/* AMX: one 16 x 16 tile of C (tmm0) += a 16-row tile of A (tmm1) times a
 * tile of B (tmm2) in the VNNI layout, K/G rows of 16 groups of G: the
 * packed weight's [K / G, 16, G] block, contiguous (64-byte rows). A's and
 * C's rows are their buffers' rows (symbolic strides, in bytes for the
 * instruction). The llvm target configures the tiles (all eight 16 rows x
 * 64 bytes) where a function first uses them and releases them on return. */
#define AMX_DESC(NAME, K, G, IN_A, IN_B, ACC)                                                       \
  "    @T.prim_func\n"                                                                      \
  "    def " NAME "_desc(a: T.handle, b: T.handle, c: T.handle):\n"                         \
  "        A = T.match_buffer(a, (16, " #K "), \"" IN_A "\", offset_factor=1)\n"              \
  "        B = T.match_buffer(b, (16, 16, " #G "), \"" IN_B "\", offset_factor=1)\n"          \
  "        C = T.match_buffer(c, (16, 16), \"" ACC "\", offset_factor=1)\n"                 \
  "        with T.block(\"root\"):\n"                                                       \
  "            T.reads(C[0:16, 0:16], A[0:16, 0:" #K "], B[0:16, 0:16, 0:" #G "])\n"         \
  "            T.writes(C[0:16, 0:16])\n"                                                   \
  "            for i, j, k in T.grid(16, 16, " #K "):\n"                                     \
  "                with T.block(\"update\"):\n"                                             \
  "                    vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                     \
  "                    C[vi, vj] = C[vi, vj] + T.Cast(\"" ACC "\", A[vi, vk]) * T.Cast(\"" ACC \
  "\", B[vk // " #G ", vj, vk % " #G "])\n"

/* A statement calling llvm.x86.WHAT, indented for the root block's body
 * (AMX_CALL) or a loop in it (AMX_LOOP_CALL). */
#define AMX_CALL_AT(INDENT, WHAT, ARGS)                                                     \
  INDENT "T.evaluate(T.call_llvm_intrin(\"int32\", \"llvm.x86." WHAT "\", T.uint32(0), " ARGS \
  "))\n"
#define AMX_CALL(WHAT, ARGS) AMX_CALL_AT("            ", WHAT, ARGS)
#define AMX_LOOP_CALL(WHAT, ARGS) AMX_CALL_AT("                ", WHAT, ARGS)

#define AMX_IMPL(NAME, K, G, IN_A, IN_B, ACC, A_BYTES, TDP)                                         \
  "    @T.prim_func\n"                                                                      \
  "    def " NAME "_impl(a: T.handle, b: T.handle, c: T.handle):\n"                         \
  "        sa = T.int32()\n"                                                                \
  "        sc = T.int32()\n"                                                                \
  "        A = T.match_buffer(a, (16, " #K "), \"" IN_A "\", offset_factor=1, strides=[sa, 1])\n" \
  "        B = T.match_buffer(b, (16, 16, " #G "), \"" IN_B "\", offset_factor=1)\n"          \
  "        C = T.match_buffer(c, (16, 16), \"" ACC "\", offset_factor=1, strides=[sc, 1])\n" \
  "        with T.block(\"root\"):\n"                                                       \
  "            T.reads(C[0:16, 0:16], A[0:16, 0:" #K "], B[0:16, 0:16, 0:" #G "])\n"         \
  "            T.writes(C[0:16, 0:16])\n"                                                   \
  AMX_CALL("tileloadd64", "T.int8(0), T.address_of(C[0, 0]), T.Cast(\"int64\", sc) * T.int64(4)") \
  AMX_CALL("tileloadd64", "T.int8(1), T.address_of(A[0, 0]), T.Cast(\"int64\", sa) * T.int64(" #A_BYTES ")") \
  AMX_CALL("tileloadd64", "T.int8(2), T.address_of(B[0, 0, 0]), T.int64(64)")                \
  AMX_CALL(TDP, "T.int8(0), T.int8(1), T.int8(2)")                                           \
  AMX_CALL("tilestored64", "T.int8(0), T.address_of(C[0, 0]), T.Cast(\"int64\", sc) * T.int64(4)")

static const char amx_int8[] =
    "@I.ir_module\nclass Module:\n" AMX_DESC("dot_16x16x64_amx", 64, 4, "uint8", "int8", "int32") "\n"
    AMX_IMPL("dot_16x16x64_amx", 64, 4, "uint8", "int8", "int32", 1, "tdpbusd");

static const char amx_bf16[] =
    "@I.ir_module\nclass Module:\n"
    AMX_DESC("dot_16x16x32_bf16_amx", 32, 2, "bfloat16", "bfloat16", "float32") "\n"
    AMX_IMPL("dot_16x16x32_bf16_amx", 32, 2, "bfloat16", "bfloat16", "float32", 2, "tdpbf16ps");

/* AMX, 2 x 2 tiles of C held in tmm0-3 across the reduction: C's 32 x 32
 * block is loaded once, then for each of 4 steps of KT two tiles of A
 * (rows 0-15, 16-31: tmm4, tmm5) and two of B (columns 0-15, 16-31: the
 * packed weight's blocks N / 16 and N / 16 + 1, tmm6, tmm7) feed four
 * dot products, and C is stored once: per step four tile loads for four
 * tdpbusd, where dot_16x16x64_amx moves C's tile in and out for each. B's
 * two column blocks are a symbolic stride apart, each step's rows
 * contiguous. */
#define AMX2_DESC(NAME, K, K4, G, IN_A, IN_B, ACC)                                          \
  "    @T.prim_func\n"                                                                      \
  "    def " NAME "_desc(a: T.handle, b: T.handle, c: T.handle):\n"                         \
  "        A = T.match_buffer(a, (32, " #K "), \"" IN_A "\", offset_factor=1)\n"            \
  "        B = T.match_buffer(b, (2, " #K4 ", 16, " #G "), \"" IN_B "\", offset_factor=1)\n" \
  "        C = T.match_buffer(c, (32, 32), \"" ACC "\", offset_factor=1)\n"                 \
  "        with T.block(\"root\"):\n"                                                       \
  "            T.reads(C[0:32, 0:32], A[0:32, 0:" #K "], B[0:2, 0:" #K4 ", 0:16, 0:" #G "])\n" \
  "            T.writes(C[0:32, 0:32])\n"                                                   \
  "            for i, j, k in T.grid(32, 32, " #K "):\n"                                     \
  "                with T.block(\"update\"):\n"                                             \
  "                    vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                     \
  "                    C[vi, vj] = C[vi, vj] + T.Cast(\"" ACC "\", A[vi, vk]) * T.Cast(\"" ACC \
  "\", B[vj // 16, vk // " #G ", vj % 16, vk % " #G "])\n"

#define AMX2_C(OP, T_, R, COL)                                                              \
  AMX_CALL(OP, "T.int8(" #T_ "), T.address_of(C[" #R ", " #COL "]), T.Cast(\"int64\", sc) * T.int64(4)")

#define AMX2_IMPL(NAME, K, K4, KT, G, ROW, IN_A, IN_B, ACC, A_BYTES, TDP)                        \
  "    @T.prim_func\n"                                                                      \
  "    def " NAME "_impl(a: T.handle, b: T.handle, c: T.handle):\n"                         \
  "        sa = T.int32()\n"                                                                \
  "        sb = T.int32()\n"                                                                \
  "        sc = T.int32()\n"                                                                \
  "        A = T.match_buffer(a, (32, " #K "), \"" IN_A "\", offset_factor=1, strides=[sa, 1])\n" \
  "        B = T.match_buffer(b, (2, " #K4 ", 16, " #G "), \"" IN_B "\", offset_factor=1, "   \
  "strides=[sb, " #ROW ", " #G ", 1])\n"                                                    \
  "        C = T.match_buffer(c, (32, 32), \"" ACC "\", offset_factor=1, strides=[sc, 1])\n" \
  "        with T.block(\"root\"):\n"                                                       \
  "            T.reads(C[0:32, 0:32], A[0:32, 0:" #K "], B[0:2, 0:" #K4 ", 0:16, 0:" #G "])\n" \
  "            T.writes(C[0:32, 0:32])\n"                                                   \
  AMX2_C("tileloadd64", 0, 0, 0) AMX2_C("tileloadd64", 1, 0, 16)                            \
  AMX2_C("tileloadd64", 2, 16, 0) AMX2_C("tileloadd64", 3, 16, 16)                          \
  "            for ko in range(4):\n"                                                       \
  AMX_LOOP_CALL("tileloadd64", "T.int8(4), T.address_of(A[0, ko * " #KT "]), T.Cast(\"int64\", sa) * T.int64(" #A_BYTES ")") \
  AMX_LOOP_CALL("tileloadd64", "T.int8(5), T.address_of(A[16, ko * " #KT "]), T.Cast(\"int64\", sa) * T.int64(" #A_BYTES ")") \
  AMX_LOOP_CALL("tileloadd64", "T.int8(6), T.address_of(B[0, ko * 16, 0, 0]), T.int64(64)")     \
  AMX_LOOP_CALL("tileloadd64", "T.int8(7), T.address_of(B[1, ko * 16, 0, 0]), T.int64(64)")     \
  AMX_LOOP_CALL(TDP, "T.int8(0), T.int8(4), T.int8(6)")                                          \
  AMX_LOOP_CALL(TDP, "T.int8(1), T.int8(4), T.int8(7)")                                          \
  AMX_LOOP_CALL(TDP, "T.int8(2), T.int8(5), T.int8(6)")                                          \
  AMX_LOOP_CALL(TDP, "T.int8(3), T.int8(5), T.int8(7)")                                          \
  AMX2_C("tilestored64", 0, 0, 0) AMX2_C("tilestored64", 1, 0, 16)                          \
  AMX2_C("tilestored64", 2, 16, 0) AMX2_C("tilestored64", 3, 16, 16)

static const char amx2_int8[] =
    "@I.ir_module\nclass Module:\n"
    AMX2_DESC("dot_32x32x256_amx", 256, 64, 4, "uint8", "int8", "int32") "\n"
    AMX2_IMPL("dot_32x32x256_amx", 256, 64, 64, 4, 64, "uint8", "int8", "int32", 1, "tdpbusd");

static const char amx2_bf16[] =
    "@I.ir_module\nclass Module:\n"
    AMX2_DESC("dot_32x32x128_bf16_amx", 128, 64, 2, "bfloat16", "bfloat16", "float32") "\n"
    AMX2_IMPL("dot_32x32x128_bf16_amx", 128, 64, 32, 2, 32, "bfloat16", "bfloat16", "float32", 2,
              "tdpbf16ps");

static const x86_intrin table[] = {
    {"dot_16x4_vnni", "u8 x i8 -> i32 dot products of 16 lanes x 4 (AVX-512 VNNI vpdpbusd)",
     vnni, "avx512vnni,avx512bw"},
    {"dot_16x4_avx512", "u8 x i8 -> i32 dot products of 16 lanes x 4 (AVX-512BW, no VNNI)",
     avx512, "avx512bw"},
    {"dot_16x4_avx2", "u8 x i8 -> i32 dot products of 16 lanes x 4 (AVX2 vpmaddubsw, "
     "vpmaddwd)", avx2, "avx2"},
    {"dot_16x2_bf16_avx512", "bf16 x bf16 -> f32 dot products of 16 lanes x 2 (AVX-512 BF16 "
     "vdpbf16ps)", bf16, "avx512bf16,avx512bw"},
    {"dot_32x32x256_amx", "u8 x i8 -> i32, 2 x 2 tiles += 32 x 256 by 256 x 32, C held in "
     "tiles over 4 steps (AMX tdpbusd)", amx2_int8, "amx-tile,amx-int8"},
    {"dot_32x32x128_bf16_amx", "bf16 x bf16 -> f32, 2 x 2 tiles += 32 x 128 by 128 x 32, C "
     "held in tiles over 4 steps (AMX tdpbf16ps)", amx2_bf16, "amx-tile,amx-bf16"},
    {"dot_16x16x64_amx", "u8 x i8 -> i32, a 16 x 16 tile += 16 x 64 by 64 x 16 (AMX tdpbusd)",
     amx_int8, "amx-tile,amx-int8"},
    {"dot_16x16x32_bf16_amx", "bf16 x bf16 -> f32, a 16 x 16 tile += 16 x 32 by 32 x 16 (AMX "
     "tdpbf16ps)", amx_bf16, "amx-tile,amx-bf16"},
};

const x86_intrin *x86_intrins(uint32_t *n) {
  *n = sizeof table / sizeof table[0];
  return table;
}
