from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float64"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("add"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi] + B[vi]
