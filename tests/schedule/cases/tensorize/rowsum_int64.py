# Row sums of a 8x16 matrix with int64 shapes and indices.
@T.prim_func
def main(A: T.Buffer((T.int64(8), T.int64(16)), "float32"), C: T.Buffer((T.int64(8),), "float32")):
    for i, k in T.grid(T.int64(8), T.int64(16)):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
