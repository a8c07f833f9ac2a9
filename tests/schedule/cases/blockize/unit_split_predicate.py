# Max over 2 columns: B[i] = max(A[i, 0], A[i, 1]).
@T.prim_func
def main(A: T.Buffer((8, 2), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 2):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(-3.4028234663852886e+38)
            B[vi] = T.max(B[vi], A[vi, vk])
