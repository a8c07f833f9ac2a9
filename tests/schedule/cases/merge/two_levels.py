# Two tiled nests of the same 4x2 outer tiling over different buffers.
@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32"), D: T.Buffer((16, 8), "float32")):
    for i0, j0, i1, j1 in T.grid(4, 2, 4, 4):
        with T.block("B"):
            vi = T.axis.spatial(16, i0 * 4 + i1)
            vj = T.axis.spatial(8, j0 * 4 + j1)
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i0, j0, i1, j1 in T.grid(4, 2, 2, 8):
        with T.block("D"):
            vi = T.axis.spatial(16, i0 * 4 + i1 * 2)
            vj = T.axis.spatial(8, j0 * 4 + j1 // 2)
            D[vi, vj] = C[vi, vj] * T.float32(3)
