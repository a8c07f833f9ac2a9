@T.prim_func
def matmul(A: T.Buffer((4, 6), "float32"), B: T.Buffer((6, 5), "float32"),
           C: T.Buffer((4, 5), "float32")):
    for i, j, k in T.grid(4, 5, 6):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
