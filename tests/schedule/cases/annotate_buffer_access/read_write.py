# A 2-D elementwise product, 6x8.
@T.prim_func
def main(A: T.Buffer((6, 8), "float32"), B: T.Buffer((6, 8), "float32"), C: T.Buffer((6, 8), "float32")):
    for i, j in T.grid(6, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * B[vi, vj]
