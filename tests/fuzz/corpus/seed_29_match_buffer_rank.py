from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("tile"):
            vi = T.axis.spatial(4, i)
            At = T.match_buffer(A[vi * 16:vi * 16 + 16, 0:16], (4, 16, 4))
            C[vi] = At[0, 0, 0]
