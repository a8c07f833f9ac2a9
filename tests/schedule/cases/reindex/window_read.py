@T.prim_func
def main(A: T.Buffer((18,), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 3):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi * 2 + vk]
