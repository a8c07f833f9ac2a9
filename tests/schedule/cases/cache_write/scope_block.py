@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for io in range(4):
        with T.block("tile"):
            vo = T.axis.spatial(4, io)
            for ii in range(4):
                with T.block("B0"):
                    vi = T.axis.spatial(16, vo * 4 + ii)
                    B[vi] = A[vi] * T.float32(2)
            for ii in range(4):
                with T.block("B1"):
                    vi = T.axis.spatial(16, vo * 4 + ii)
                    B[vi] = B[vi] + T.float32(1)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi]
