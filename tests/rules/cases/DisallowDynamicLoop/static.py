# Every extent constant: accepted, unchanged.
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
