from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("clip"):
            vi = T.axis.spatial(128, i)
            C[vi] = T.Select(A[vi] < vi, A[vi], T.float32(0))
