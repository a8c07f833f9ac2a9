# B's body is an if without else (B is computed for vi < 120 only) and C
# needs 100 elements: the if and C's bound merge into B's T.where and the
# if goes, as in TVM.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((100,), "float32")):
    B = T.alloc_buffer((128,))
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            if vi < 120:
                B[vi] = A[vi] * T.float32(2)
    for i in range(100):
        with T.block("C"):
            vi = T.axis.spatial(100, i)
            C[vi] = B[vi] + T.float32(1)
