# A float16 kernel over a symbolic length: the grid comes from the size n, which the kernel also takes.
# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, T.int64(64), T.int64(4)), "float16")
    B = T.match_buffer(b, (n, T.int64(64)), "float16")
    for bx in T.thread_binding(n, thread="blockIdx.x"):
        for tx in T.thread_binding(T.int64(64), thread="threadIdx.x"):
            for k in range(T.int64(4)):
                with T.block("sum"):
                    vi, vj, vk = T.axis.remap("SSR", [bx, tx, k])
                    with T.init():
                        B[vi, vj] = T.float16(0)
                    B[vi, vj] = B[vi, vj] + T.exp(A[vi, vj, vk])
