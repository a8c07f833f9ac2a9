# Warp memory read across lanes: two warps (threadIdx.y) each put 32 values in a warp buffer, one per lane, then every lane adds its neighbour's value to its own. The buffer becomes one register per lane; the lane's own element is a register read, the neighbour's a warp shuffle (tsl_warp_shfl). No barrier: nothing is shared.
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    W = T.alloc_buffer((2, 32), scope="warp")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for ty in T.thread_binding(2, thread="threadIdx.y"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                W[ty, tx] = A[ty * 32 + tx] * T.float32(2)
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                B[ty * 32 + tx] = W[ty, (tx + 1) % 32] + W[ty, tx]
