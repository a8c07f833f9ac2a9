# B is 0-d: a lambda without parameters gives it one dimension.
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer(())
    with T.block("B"):
        B[()] = A[()] * T.float32(2)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[()] + T.float32(1)
