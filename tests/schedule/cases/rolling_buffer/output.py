@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((9,), "float32")):
    for i in range(9):
        with T.block("B"):
            vi = T.axis.spatial(9, i)
            B[vi] = A[vi] + A[vi + 1]
