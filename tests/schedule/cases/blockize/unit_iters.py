# A unit outer loop i0 (TVM test_blockize_outer_int64_shape, int32 here).
@T.prim_func
def main(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16, 128), "float32")):
    for i0, j0, i1, j1 in T.grid(1, 8, 16, 16):
        with T.block("B"):
            vi = T.axis.spatial(16, i0 * 16 + i1)
            vj = T.axis.spatial(128, j0 * 16 + j1)
            B[vi, vj] = A[vi, vj] + T.float32(1)
