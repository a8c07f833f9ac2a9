/*
 * intrin_builtin.c: the tensor intrinsics every registry starts with, as
 * TVMScript text (a description and an implementation per intrinsic).
 * Implementations are plain TensorIR the reference interpreter runs. Their
 * buffers declare no strides or offset: a match_buffer is a view of the
 * region it matches (see README.md, tensorize).
 */
#include "bz_internal.h"
#include "tz_internal.h"

/* C[4, 4] += A[4, 4] @ B[4, 4], float32. */
static const char mma_desc[] =
    "@T.prim_func\n"
    "def mma_4x4x4_f32_desc(a: T.handle, b: T.handle, c: T.handle):\n"
    "    A = T.match_buffer(a, (4, 4), \"float32\", offset_factor=1)\n"
    "    B = T.match_buffer(b, (4, 4), \"float32\", offset_factor=1)\n"
    "    C = T.match_buffer(c, (4, 4), \"float32\", offset_factor=1)\n"
    "    with T.block(\"root\"):\n"
    "        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])\n"
    "        T.writes(C[0:4, 0:4])\n"
    "        for i, j, k in T.grid(4, 4, 4):\n"
    "            with T.block(\"update\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])\n"
    "                T.writes(C[vi, vj])\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static const char mma_impl[] =
    "@T.prim_func\n"
    "def mma_4x4x4_f32_impl(a: T.handle, b: T.handle, c: T.handle):\n"
    "    A = T.match_buffer(a, (4, 4), \"float32\", offset_factor=1)\n"
    "    B = T.match_buffer(b, (4, 4), \"float32\", offset_factor=1)\n"
    "    C = T.match_buffer(c, (4, 4), \"float32\", offset_factor=1)\n"
    "    with T.block(\"root\"):\n"
    "        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])\n"
    "        T.writes(C[0:4, 0:4])\n"
    "        for i, k in T.grid(4, 4):\n"
    "            for j in T.vectorized(4):\n"
    "                C[i, j] = C[i, j] + A[i, k] * B[k, j]\n";

/* C[4] += A[4] * B[4], float32 (an elementwise multiply-accumulate). */
static const char fma_desc[] =
    "@T.prim_func\n"
    "def vec_fma_4_f32_desc(a: T.handle, b: T.handle, c: T.handle):\n"
    "    A = T.match_buffer(a, (4,), \"float32\", offset_factor=1)\n"
    "    B = T.match_buffer(b, (4,), \"float32\", offset_factor=1)\n"
    "    C = T.match_buffer(c, (4,), \"float32\", offset_factor=1)\n"
    "    with T.block(\"root\"):\n"
    "        T.reads(C[0:4], A[0:4], B[0:4])\n"
    "        T.writes(C[0:4])\n"
    "        for i in range(4):\n"
    "            with T.block(\"update\"):\n"
    "                vi = T.axis.spatial(4, i)\n"
    "                T.reads(C[vi], A[vi], B[vi])\n"
    "                T.writes(C[vi])\n"
    "                C[vi] = C[vi] + A[vi] * B[vi]\n";

static const char fma_impl[] =
    "@T.prim_func\n"
    "def vec_fma_4_f32_impl(a: T.handle, b: T.handle, c: T.handle):\n"
    "    A = T.match_buffer(a, (4,), \"float32\", offset_factor=1)\n"
    "    B = T.match_buffer(b, (4,), \"float32\", offset_factor=1)\n"
    "    C = T.match_buffer(c, (4,), \"float32\", offset_factor=1)\n"
    "    with T.block(\"root\"):\n"
    "        T.reads(C[0:4], A[0:4], B[0:4])\n"
    "        T.writes(C[0:4])\n"
    "        for i in T.vectorized(4):\n"
    "            C[i] = C[i] + A[i] * B[i]\n";

static const tz_builtin builtins[] = {
    {"mma_4x4x4_f32", mma_desc, mma_impl},
    {"vec_fma_4_f32", fma_desc, fma_impl},
};

const tz_builtin *tz_builtins(uint32_t *n) {
  *n = (uint32_t)(sizeof builtins / sizeof builtins[0]);
  return builtins;
}
