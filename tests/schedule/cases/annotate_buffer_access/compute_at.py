# Upsampling: B[i] = A[i // 2] through a copy of A the block reads whole.
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((32,), "float32")):
    Ac = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("Ac"):
            vi = T.axis.spatial(16, i)
            Ac[vi] = A[vi]
    for i in range(32):
        with T.block("B"):
            vi = T.axis.spatial(32, i)
            T.reads(Ac[0:16])
            T.writes(B[vi])
            B[vi] = Ac[vi // 2] * T.float32(2)
