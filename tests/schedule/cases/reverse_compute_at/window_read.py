# B = A + 1, then a 2-point window C[i] = B[i] + B[i + 1].
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((17,), "int32"), C: T.Buffer((16,), "int32")):
    B = T.alloc_buffer((17,), "int32")
    for i in range(17):
        with T.block("B"):
            vi = T.axis.spatial(17, i)
            B[vi] = A[vi] + 1
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + B[vi + 1]
