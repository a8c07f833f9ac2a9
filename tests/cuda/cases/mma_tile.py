# One warp multiplies a 16x16 float16 tile by another on tensor cores, written with the builtins of the cuda-mma intrinsics: ldmatrix of A (row-major) and B (transposed into the col operand), two mma.sync m16n8k16 into a float32 accumulator, the accumulator stored to global memory. The warp buffers become 8 registers per lane (the lane strides of 8 dropped from the builtins' offsets); a barrier separates the shared fetch from the ldmatrix loads.
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float16"), B: T.Buffer((16, 16), "float16"), C: T.Buffer((16, 16), "float32")):
    A_sh = T.alloc_buffer((16, 16), "float16", scope="shared")
    B_sh = T.alloc_buffer((16, 16), "float16", scope="shared")
    A_warp = T.alloc_buffer((32, 8), "float16", scope="warp")
    B_warp = T.alloc_buffer((32, 8), "float16", scope="warp")
    C_warp = T.alloc_buffer((32, 8), "float32", scope="warp")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for i in range(8):
                A_sh[(tx * 8 + i) // 16, (tx * 8 + i) % 16] = A[(tx * 8 + i) // 16, (tx * 8 + i) % 16]
                B_sh[(tx * 8 + i) // 16, (tx * 8 + i) % 16] = B[(tx * 8 + i) // 16, (tx * 8 + i) % 16]
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            T.evaluate(T.ptx_ldmatrix(T.bool(False), 4, ".b16", A_warp.data, 8 * tx, A_sh.access_ptr("r"), 16 * (tx % 16) + 8 * (tx // 16), dtype="float16"))
            T.evaluate(T.ptx_ldmatrix(T.bool(True), 4, ".b16", B_warp.data, 8 * tx, B_sh.access_ptr("r"), 16 * (tx % 16) + 8 * (tx // 16), dtype="float16"))
            T.evaluate(T.mma_fill(8, C_warp.data, 0, dtype="float32"))
            T.evaluate(T.ptx_mma("m16n8k16", "row", "col", "fp16", "fp16", "fp32", A_warp.data, 8 * tx, B_warp.data, 8 * tx, C_warp.data, 8 * tx, T.bool(False), dtype="float32"))
            T.evaluate(T.ptx_mma("m16n8k16", "row", "col", "fp16", "fp16", "fp32", A_warp.data, 8 * tx, B_warp.data, 8 * tx + 4, C_warp.data, 8 * tx + 4, T.bool(False), dtype="float32"))
            T.evaluate(T.mma_store(16, 16, C.access_ptr("w"), C_warp.data, 0, 16, dtype="float32"))
