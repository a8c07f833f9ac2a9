# Elementwise scale of a 12x10 matrix.
@T.prim_func
def main(A: T.Buffer((12, 10), "float32"), B: T.Buffer((12, 10), "float32")):
    for i, j in T.grid(12, 10):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(0.5)
