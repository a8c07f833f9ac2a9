# One kernel whose loops bound to threadIdx.x have extents 64 and 32: launched with 64 threads, the shorter loop guarded.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((32,), "float32")):
    for b in T.thread_binding(1, thread="blockIdx.x"):
        for t in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("b"):
                v = T.axis.spatial(64, t)
                B[v] = A[v] + T.float32(1)
        for t in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("c"):
                v = T.axis.spatial(32, t)
                C[v] = A[v * 2] - A[v * 2 + 1]
