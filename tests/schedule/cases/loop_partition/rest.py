# A 2-D copy with a transpose, 10x12.
@T.prim_func
def main(A: T.Buffer((10, 12), "float32"), B: T.Buffer((12, 10), "float32")):
    for i, j in T.grid(10, 12):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vj, vi] = A[vi, vj]
