# B = A * 2 on 8x8 under split rows (i_0, i_1); D copies row 0 of B plus 1.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), D: T.Buffer((1, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i_0, i_1, j in T.grid(2, 4, 8):
        with T.block("B"):
            vi = T.axis.spatial(8, i_0 * 4 + i_1)
            vj = T.axis.spatial(8, j)
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(1, 8):
        with T.block("D"):
            v0, v1 = T.axis.remap("SS", [i, j])
            D[v0, v1] = B[v0, v1] + T.float32(1)
