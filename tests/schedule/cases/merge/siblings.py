# Two independent nests reading A: B = A + 1 over 8x6, C = A * 2 over 8x4.
@T.prim_func
def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((8, 6), "float32"), C: T.Buffer((8, 4), "float32")):
    for i, j in T.grid(8, 6):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(8, 4):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2)
