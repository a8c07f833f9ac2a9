# C reads B[T.min(vi, 7)]: not an affine map of C's iter vars, so the load
# cannot be solved for vi.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[T.min(vi, 7)]
