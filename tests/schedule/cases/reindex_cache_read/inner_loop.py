@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
    B = T.alloc_buffer((32,))
    for io in range(4):
        for ii in range(8):
            with T.block("B"):
                vi = T.axis.spatial(32, io * 8 + ii)
                B[vi] = A[vi] + T.float32(1)
        for ii in range(8):
            with T.block("C"):
                vi = T.axis.spatial(32, io * 8 + ii)
                C[vi] = B[vi] * B[vi]
