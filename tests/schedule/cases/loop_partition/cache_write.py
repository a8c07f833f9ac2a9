# Row maximum of a 6x10 matrix, then each row scaled by its maximum.
@T.prim_func
def main(A: T.Buffer((6, 10), "float32"), M: T.Buffer((6,), "float32"), B: T.Buffer((6, 10), "float32")):
    for i, k in T.grid(6, 10):
        with T.block("M"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = T.float32(-3.0e38)
            M[vi] = T.max(M[vi], A[vi, vk])
    for i, j in T.grid(6, 10):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * M[vi]
