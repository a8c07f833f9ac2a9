# Vectorized inner loops: a reduction update with the spatial loop
# vectorized (vector load, multiply-add, vector store) and an elementwise
# loop with a broadcast operand.
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32"), D: T.Buffer((8, 16), "float32")):
    for i, k in T.grid(8, 8):
        for j in T.vectorized(16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i in range(8):
        for j in T.vectorized(16):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = T.max(C[vi, vj], A[vi, 0])
