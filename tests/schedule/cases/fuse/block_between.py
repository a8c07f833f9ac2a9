# Row-wise B = A + 1 through a nested block, then an opaque block doubling B, 16x16 float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        with T.block("outer"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi, 0:16])
            T.writes(B[vi, 0:16])
            for j in range(16):
                with T.block("B"):
                    vj = T.axis.spatial(16, j)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] + T.float32(1)
    for i in range(16):
        with T.block("opaque"):
            T.reads(A[i, 0:16])
            T.writes(B[i, 0:16])
            for j in range(16):
                B[i, j] = B[i, j] * T.float32(2)
