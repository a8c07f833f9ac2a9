@T.prim_func
def main(A: T.Buffer((10,), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((9,))
    for i in range(9):
        with T.block("B"):
            vi = T.axis.spatial(9, i)
            B[vi] = A[vi] + A[vi + 1]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi] + B[vi + 1]
