@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi // 2, vj % 4] + A[vi // 4 + vj // 8, vj // 4]
