@T.prim_func
def main(A: T.Buffer((10, 4), "float32"), C: T.Buffer((8, 4), "float32")):
    B = T.alloc_buffer((9, 4))
    for i, j in T.grid(9, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + A[vi + 1, vj]
    for i, j in T.grid(8, 4):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * B[vi + 1, vj]
