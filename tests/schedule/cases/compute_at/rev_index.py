# B holds A + 1 upside down (B[7 - vi] = A[vi] + 1), C = B * 2 on 8x8 int32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "int32"), C: T.Buffer((8, 8), "int32")):
    B = T.alloc_buffer((8, 8), "int32")
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[7 - vi, vj] = A[vi, vj] + 1
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * 2
