from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("pool"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[T.ceildiv(vi * 4, 1.5)]
