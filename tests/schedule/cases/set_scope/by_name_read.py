# set_scope names a write buffer: naming a buffer the block only reads
# is refused, as TVM requires the write type.
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    T1 = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("T1"):
            vi = T.axis.spatial(16, i)
            T1[vi] = A[vi] + T.float32(1)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = T1[vi] * T.float32(2)
