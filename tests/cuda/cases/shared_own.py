# Each thread reads back only the element it stored itself: no barrier.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    S = T.alloc_buffer((256,), scope="shared")
    for b in T.thread_binding(4, thread="blockIdx.x"):
        for t in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("load"):
                v = T.axis.spatial(256, b * 64 + t)
                S[v] = A[v] + T.float32(1)
        for t in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("store"):
                v = T.axis.spatial(256, b * 64 + t)
                B[v] = S[v] * T.float32(2)
