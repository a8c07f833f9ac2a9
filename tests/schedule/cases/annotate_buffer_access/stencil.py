# A 3-point stencil B[i] = A[i] + A[i + 1] + A[i + 2] with an explicit but
# loose read region.
@T.prim_func
def main(A: T.Buffer((34,), "float32"), B: T.Buffer((32,), "float32")):
    for i in range(32):
        with T.block("B"):
            vi = T.axis.spatial(32, i)
            T.reads(A[0:34])
            T.writes(B[vi])
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
