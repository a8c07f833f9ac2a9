# 16 virtual threads: past the 8 TVM allows.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    for b in T.thread_binding(1, thread="blockIdx.x"):
        for v in T.thread_binding(16, thread="vthread.x"):
            for t in T.thread_binding(64, thread="threadIdx.x"):
                with T.block("B"):
                    i = T.axis.spatial(1024, v * 64 + t)
                    B[i] = A[i] + T.float32(1)
