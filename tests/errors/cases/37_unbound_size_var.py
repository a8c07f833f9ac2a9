from tvm.script import tir as T


@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (128,), "float32")
    B = T.match_buffer(b, (128,), "float32")
    for i in range(n):
        with T.block("copy"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi]
