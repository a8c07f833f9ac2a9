# An 18x18x18 matmul: extents of 3s and 2s, which thread counts and
# vector lengths of powers of two do not divide.
@T.prim_func
def main(A: T.Buffer((18, 18), "float32"), B: T.Buffer((18, 18), "float32"), C: T.Buffer((18, 18), "float32")):
    for i, j, k in T.grid(18, 18, 18):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
