# Rows computed by a complete block whose binding is not affine: parallel
# only needs compact data flow and spatial iterators.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.block("B"):
            vi = T.axis.spatial(16, i * i)
            vj = T.axis.spatial(8, j)
            B[vi, vj] = A[vi, vj] + T.float32(1)
