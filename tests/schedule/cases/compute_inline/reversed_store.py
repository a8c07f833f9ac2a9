# B stores at 15 - vi: a reversal is a bijective affine map (scale -1), so
# compute_inline solves it and C reads A[(vi - 15) * -1], as TVM does.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[15 - vi] = A[vi] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + T.float32(1)
