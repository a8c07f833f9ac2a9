# A gather: B[i] = A[idx[i]], with the index buffer read explicitly.
@T.prim_func
def main(A: T.Buffer((16,), "float32"), Idx: T.Buffer((8,), "int32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            T.reads(Idx[vi], A[0:16])
            T.writes(B[vi])
            B[vi] = A[Idx[vi] % 16]
