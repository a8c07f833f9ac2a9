@T.prim_func
def main(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 6):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
