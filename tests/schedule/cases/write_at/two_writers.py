@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i in range(8):
        for j in range(8):
            with T.block("C0"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj]
        for j in range(8):
            with T.block("C1"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj], A[vi, 7 - vj])
                T.writes(C[vi, vj])
                C[vi, vj] = C[vi, vj] * A[vi, 7 - vj]
