# Nothing annotated: the program stays as it is.
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1)
