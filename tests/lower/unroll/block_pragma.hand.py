@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 8), "float32"), D: T.Buffer((2,), "float32")):
    for i in T.unroll(4):
        for j in T.unroll(4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
    for i in range(4):
        for j in T.unroll(8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(2)
    for k in range(2):
        with T.block("D"):
            vk = T.axis.spatial(2, k)
            D[vk] = A[vk, 0]
