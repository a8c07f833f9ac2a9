# 64 KiB of shared memory in one block: past the 48 KiB a block may have statically.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16384,), "float32"), B: T.Buffer((16384,), "float32")):
    S = T.alloc_buffer((16384,), scope="shared")
    for b in T.thread_binding(1, thread="blockIdx.x"):
        for t in T.thread_binding(256, thread="threadIdx.x"):
            for k in range(64):
                with T.block("S"):
                    v = T.axis.spatial(16384, t * 64 + k)
                    S[v] = A[v]
        for t in T.thread_binding(256, thread="threadIdx.x"):
            for k in range(64):
                with T.block("B"):
                    v = T.axis.spatial(16384, t * 64 + k)
                    B[v] = S[16383 - v]
