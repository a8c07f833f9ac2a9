@T.prim_func
def main(A: T.Buffer((20,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((18,))
    for i, k in T.grid(18, 3):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi + vk]
    for i, k in T.grid(16, 3):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + B[vi + vk] * T.float32(0.5)
