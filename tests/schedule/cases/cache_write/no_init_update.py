# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
    for i in range(32):
        with T.block("C"):
            vi = T.axis.spatial(32, i)
            C[vi] = C[vi] + A[vi]
