# B is produced on 16 elements, C reads 32 of them.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
    B = T.alloc_buffer((32,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(32, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(32):
        with T.block("C"):
            vi = T.axis.spatial(32, i)
            C[vi] = B[vi] + T.float32(1)
