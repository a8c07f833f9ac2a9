# T = A + 1 (internal), B = T * 2 and C = T - 1 (outputs).
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    Tmp = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("T"):
            vi = T.axis.spatial(8, i)
            Tmp[vi] = A[vi] + T.float32(1)
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = Tmp[vi] * T.float32(2)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = Tmp[vi] - T.float32(1)
