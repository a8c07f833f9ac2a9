# A 32x32x32 matmul in float64.
@T.prim_func
def main(A: T.Buffer((32, 32), "float64"), B: T.Buffer((32, 32), "float64"), C: T.Buffer((32, 32), "float64")):
    for i, j, k in T.grid(32, 32, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float64(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
