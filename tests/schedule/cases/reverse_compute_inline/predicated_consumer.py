# C has a T.where (from an uneven split): a predicated consumer cannot be
# inlined into its producer (as TVM).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((30,), "float32"), C: T.Buffer((30,), "float32")):
    B = T.alloc_buffer((30,))
    for i in range(30):
        with T.block("B"):
            vi = T.axis.spatial(30, i)
            B[vi] = A[vi] + T.float32(1)
    for i0, i1 in T.grid(4, 8):
        with T.block("C"):
            vi = T.axis.spatial(30, i0 * 8 + i1)
            T.where(i0 * 8 + i1 < 30)
            C[vi] = B[vi] * T.float32(2)
