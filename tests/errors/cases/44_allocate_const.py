from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    W = T.allocate_const([0.5, 1.0, 1.5, 2.0], "float32", [4])
    W_buf = T.decl_buffer((4,), "float32", data=W)
    for i in range(4):
        with T.block("scale"):
            vi = T.axis.spatial(4, i)
            C[vi] = A[vi] * W_buf[vi]
