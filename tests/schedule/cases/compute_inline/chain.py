# B = A + 1; C = B * B; D = C - A on 8x8 int32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "int32"), D: T.Buffer((8, 8), "int32")):
    B = T.alloc_buffer((8, 8), "int32")
    C = T.alloc_buffer((8, 8), "int32")
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + 1
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * B[vi, vj]
    for i, j in T.grid(8, 8):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] - A[vi, vj]
