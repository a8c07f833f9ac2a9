@T.prim_func
def main(A: T.Buffer((4, 2), "float32"), B: T.Buffer((4, 2), "float32")):
    for i in T.unroll(4):
        for j in T.unroll(2):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
