# C[i] = B[i + 1]: solving the load gives i = vi - 1 at B's index vi, so B
# writes C[vi - 1], and its iteration vi = 0, which C does not need, is
# masked by T.where(i >= 1).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((17,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((17,))
    for i in range(17):
        with T.block("B"):
            vi = T.axis.spatial(17, i)
            B[vi] = A[vi] + T.float32(1)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi + 1] * T.float32(2)
