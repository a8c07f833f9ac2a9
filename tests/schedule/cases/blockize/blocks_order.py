# Two nests inside one loop: a row copy and a row scale.
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    for m in range(4):
        for j in range(8):
            with T.block("B"):
                vm, vj = T.axis.remap("SS", [m, j])
                B[vm, vj] = A[vm, vj]
        for j0, j1 in T.grid(2, 4):
            with T.block("C"):
                vm = T.axis.spatial(4, m)
                vj = T.axis.spatial(8, j0 * 4 + j1)
                C[vm, vj] = A[vm, vj] * T.float32(2)
