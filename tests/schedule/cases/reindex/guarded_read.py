@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi - 1])
            B[vi] = T.if_then_else(vi >= 1, A[vi - 1], T.float32(0))
