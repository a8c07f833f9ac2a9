# B = A * 2, then C[i, j] = B[j, i] + bias[i] (a transposed read plus a bias).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), bias: T.Buffer((16,), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((8, 16))
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vj, vi] + bias[vi]
