# C[v] = B[v // 2] * 2: each element of B (A + 1) is read by two
# consecutive elements of C.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "int32"), C: T.Buffer((16,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + 1
    for i in range(16):
        with T.block("C"):
            v = T.axis.spatial(16, i)
            C[v] = B[v // 2] * 2
