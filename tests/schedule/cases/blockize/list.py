# Elementwise on 30 elements.
@T.prim_func
def main(A: T.Buffer((30,), "float32"), B: T.Buffer((30,), "float32")):
    for i in range(30):
        with T.block("B"):
            vi = T.axis.spatial(30, i)
            B[vi] = A[vi] + T.float32(1)
