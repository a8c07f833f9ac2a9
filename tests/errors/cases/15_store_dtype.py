from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(32):
        with T.block("copy"):
            vi = T.axis.spatial(32, i)
            B[vi] = A[vi * 4:vi * 4 + 4]
