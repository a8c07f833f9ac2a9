# C reads A, then D overwrites A in place: a write after read.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + A[vi]
    for i in range(16):
        with T.block("D"):
            vi = T.axis.spatial(16, i)
            A[vi] = C[vi]
