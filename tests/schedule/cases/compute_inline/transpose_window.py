# B[i, j] = A[j, i] + 1 (a transpose), then C reads B transposed and shifted.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 9), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((9, 8))
    for i, j in T.grid(9, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vj, vi] + T.float32(1)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vj, vi] + B[vj + 1, vi]
