from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float16")):
    for i in range(128):
        with T.block("cast"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi] * T.float32(2)
