# Warp memory under threadIdx.x loops of 16 threads: refused (a warp has 32 lanes).
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    W = T.alloc_buffer((16,), scope="warp")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            W[tx] = A[tx]
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            B[tx] = W[(tx + 1) % 16]
