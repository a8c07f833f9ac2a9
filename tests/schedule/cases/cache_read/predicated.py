# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((30,), "float32"), C: T.Buffer((30,), "float32")):
    B = T.alloc_buffer((30,))
    for i in range(4):
        for j in range(8):
            with T.block("B"):
                vi = T.axis.spatial(30, i * 8 + j)
                T.where(i * 8 + j < 30)
                B[vi] = A[vi] * T.float32(2)
        for j in range(8):
            with T.block("C"):
                vi = T.axis.spatial(30, i * 8 + j)
                T.where(i * 8 + j < 30)
                C[vi] = B[vi] + T.float32(1)
