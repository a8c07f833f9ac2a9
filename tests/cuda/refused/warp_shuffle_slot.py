# A lane reads another lane's element at a place that depends on the reading lane: refused (a shuffle reads the same place of every lane).
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((32,), "float32")):
    W = T.alloc_buffer((64,), scope="warp")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for j in range(2):
                W[tx * 2 + j] = A[tx * 2 + j]
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[tx] = W[(tx + 1) % 32 * 2 + tx // 16]
