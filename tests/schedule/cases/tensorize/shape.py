# 16x16x16 matmul tiled 8x8x8: too large for the 4x4x4 intrinsic.
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i0, j0, k0, i1, j1, k1 in T.grid(2, 2, 2, 8, 8, 8):
        with T.block("C"):
            vi = T.axis.spatial(16, i0 * 8 + i1)
            vj = T.axis.spatial(16, j0 * 8 + j1)
            vk = T.axis.reduce(16, k0 * 8 + k1)
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
