# 16x16x16 matmul tiled 4x4x4 in the source, with an init.
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i0, j0, k0, i1, j1, k1 in T.grid(4, 4, 4, 4, 4, 4):
        with T.block("C"):
            vi = T.axis.spatial(16, i0 * 4 + i1)
            vj = T.axis.spatial(16, j0 * 4 + j1)
            vk = T.axis.reduce(16, k0 * 4 + k1)
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
