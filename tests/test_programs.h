/*
 * Small TVMScript programs shared by the test programs (header-only).
 */
#ifndef TESSEL_TEST_PROGRAMS_H
#define TESSEL_TEST_PROGRAMS_H

/* A 16x16x16 float32 matmul: one reduction block "C" under i, j, k. */
static const char *const test_matmul16 =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), "
    "\"float32\"), C: T.Buffer((16, 16), \"float32\")):\n"
    "    for i, j, k in T.grid(16, 16, 16):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

#endif
