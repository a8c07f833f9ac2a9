@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    for i0 in range(2):
        for i1 in T.unroll(2):
            for i2 in T.unroll(2):
                for i3 in T.unroll(2):
                    for i4 in T.unroll(2):
                        for i5 in T.unroll(2):
                            for i6 in T.unroll(2):
                                for i7 in T.unroll(2):
                                    for i8 in T.unroll(2):
                                        for i9 in T.unroll(2):
                                            with T.block("B"):
                                                v = T.axis.spatial(1024, i0 * 512 + i1 * 256 + i2 * 128 + i3 * 64 + i4 * 32 + i5 * 16 + i6 * 8 + i7 * 4 + i8 * 2 + i9)
                                                B[v] = A[v] * T.float32(2)
