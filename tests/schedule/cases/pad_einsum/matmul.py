# C = A @ B with 30x20x14 extents.
@T.prim_func
def main(A: T.Buffer((30, 14), "float32"), B: T.Buffer((14, 20), "float32"), C: T.Buffer((30, 20), "float32")):
    for i, j, k in T.grid(30, 20, 14):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
