# Three elementwise stages: B = A * 2, C = B + 1, D = C * C.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 24), "float32"), D: T.Buffer((16, 24), "float32")):
    B = T.alloc_buffer((16, 24))
    C = T.alloc_buffer((16, 24))
    for i, j in T.grid(16, 24):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 24):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
    for i, j in T.grid(16, 24):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] * C[vi, vj]
