# B has a unit iterator stored at index 0 (B[0, vj]); the trivial pattern
# covers it and C's loads B[0, j] become A[j] - 1.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((1, 16))
    for i, j in T.grid(1, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[0, vj] = A[vj] - T.float32(1)
    for j in range(16):
        with T.block("C"):
            vj = T.axis.spatial(16, j)
            C[vj] = B[0, vj] * B[0, vj]
