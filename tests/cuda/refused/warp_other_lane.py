# A lane writes its neighbour's element of warp memory: refused (each lane's registers are its own).
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    W = T.alloc_buffer((32,), scope="warp")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            W[(tx + 1) % 32] = A[tx]
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[tx] = W[tx]
