# A NUL character inside a string would silently cut the name in two.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("copy\x00b"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(0)
