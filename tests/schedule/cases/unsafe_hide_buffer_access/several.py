# out = a + b + c, and a second output, over 6 values.
@T.prim_func
def main(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32"), C: T.Buffer((6,), "float32"), D: T.Buffer((6,), "float32"), E: T.Buffer((6,), "float32")):
    for i in range(6):
        with T.block("D"):
            vi = T.axis.spatial(6, i)
            T.reads(A[vi], B[vi], C[vi])
            T.writes(D[vi], E[vi])
            D[vi] = A[vi] + B[vi] + C[vi]
            E[vi] = A[vi]
