# A split elementwise loop: bindings are expressions.
@T.prim_func
def main(A: T.Buffer((24, 5), "float32"), B: T.Buffer((24, 5), "float32")):
    for i0, i1, j in T.grid(4, 6, 5):
        with T.block("B"):
            vi = T.axis.spatial(24, i0 * 6 + i1)
            vj = T.axis.spatial(5, j)
            B[vi, vj] = A[vi, vj] - T.float32(1)
