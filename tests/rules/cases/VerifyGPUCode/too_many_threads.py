# 2048 threads in one block: past the 1024 a block may have.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32")):
    for b in T.thread_binding(2, thread="blockIdx.x"):
        for t in T.thread_binding(2048, thread="threadIdx.x"):
            with T.block("B"):
                v = T.axis.spatial(4096, b * 2048 + t)
                B[v] = A[v] * T.float32(2)
