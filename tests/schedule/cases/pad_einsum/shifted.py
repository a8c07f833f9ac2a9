# B[i] = A[i + 1]: not an Einsum (the index is not an iter var).
@T.prim_func
def main(A: T.Buffer((11,), "float32"), B: T.Buffer((10,), "float32")):
    for i in range(10):
        with T.block("B"):
            vi = T.axis.spatial(10, i)
            B[vi] = A[vi + 1]
