# B[i] = sum_k A[i, k] * W[i, k] on a GPU nest with a virtual thread:
# row i = bx * 16 + vt * 8 + tx; A staged in shared memory, W in local.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), W: T.Buffer((32, 32), "float32"),
         B: T.Buffer((32,), "float32")):
    A_shared = T.alloc_buffer((32, 32), scope="shared")
    W_local = T.alloc_buffer((32, 32), scope="local")
    for i, j in T.grid(32, 32):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [i, j])
            A_shared[v0, v1] = A[v0, v1]
    for i, j in T.grid(32, 32):
        with T.block("W_local"):
            v0, v1 = T.axis.remap("SS", [i, j])
            W_local[v0, v1] = W[v0, v1]
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for vt in T.thread_binding(2, thread="vthread.x"):
            for tx in T.thread_binding(8, thread="threadIdx.x"):
                for k in range(32):
                    with T.block("B"):
                        vi = T.axis.spatial(32, bx * 16 + vt * 8 + tx)
                        vk = T.axis.reduce(32, k)
                        with T.init():
                            B[vi] = T.float32(0)
                        B[vi] = B[vi] + A_shared[vi, vk] * W_local[vi, vk]
