@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("norm"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi, 0:4])
            T.writes(A[vi, 0:4])
            for k in range(4):
                A[vi, k] = A[vi, k] * T.float32(0.5)
        with T.block("sum"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi, 0:4])
            T.writes(B[vi])
            B[vi] = A[vi, 0] + A[vi, 1] + A[vi, 2] + A[vi, 3]
