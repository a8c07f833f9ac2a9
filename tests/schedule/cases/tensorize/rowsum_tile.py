# Row sums of a 8x16 matrix.
@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 16):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
