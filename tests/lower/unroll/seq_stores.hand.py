@T.prim_func
def main(A: T.Buffer((4, 2), "float32"), B: T.Buffer((4, 2), "float32"), C: T.Buffer((4, 2), "float32"), D: T.Buffer((4, 2), "float32"), E: T.Buffer((4, 2), "float32")):
    for i in range(4):
        for j in T.unroll(2):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(2)
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = A[vi, vj] - T.float32(3)
    for i in T.unroll(4):
        for j in T.unroll(2):
            with T.block("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = B[vi, vj] + C[vi, vj]
