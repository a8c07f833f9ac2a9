# 64 KiB of dynamic shared memory, beyond the 48 KiB a kernel gets without opting in: the launch raises the kernel's limit (cuFuncSetAttribute) first. Each thread reads what others stored.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16384,), "float32"), B: T.Buffer((16384,), "float32")):
    S = T.alloc_buffer((16384,), scope="shared.dyn")
    for b in T.thread_binding(1, thread="blockIdx.x"):
        for t in T.thread_binding(256, thread="threadIdx.x"):
            for i in range(64):
                with T.block("load"):
                    v = T.axis.spatial(16384, i * 256 + t)
                    S[v] = A[v]
        for t in T.thread_binding(256, thread="threadIdx.x"):
            for i in range(64):
                with T.block("store"):
                    v = T.axis.spatial(16384, i * 256 + t)
                    B[v] = S[16383 - v]
