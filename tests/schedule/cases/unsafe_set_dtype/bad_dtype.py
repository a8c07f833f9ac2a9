# T = A, B = T over 4 values.
@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    Tmp = T.alloc_buffer((4,))
    for i in range(4):
        with T.block("T"):
            vi = T.axis.spatial(4, i)
            Tmp[vi] = A[vi]
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = Tmp[vi]
