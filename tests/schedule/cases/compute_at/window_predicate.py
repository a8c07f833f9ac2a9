# A 3-point window sum C[i] = B[i] + B[i + 1] + B[i + 2] over B = A * 2, int32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((18,), "int32"), C: T.Buffer((16,), "int32")):
    B = T.alloc_buffer((18,), "int32")
    for i in range(18):
        with T.block("B"):
            vi = T.axis.spatial(18, i)
            B[vi] = A[vi] * 2
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + B[vi + 1] + B[vi + 2]
