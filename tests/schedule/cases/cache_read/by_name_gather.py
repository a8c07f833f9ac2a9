@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), I: T.Buffer((4,), "int32"), B: T.Buffer((4, 16), "float32")):
    for i, j in T.grid(4, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[I[vi] % 8, vj], I[vi])
            B[vi, vj] = A[I[vi] % 8, vj] * T.float32(2)
