from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in range(128):
        with T.block("scale"):
            vi = T.axis.spatial(128, i)
            C[vi, 0] = T.if_then_else(vi < 64.5, A[vi, 0], T.float32(0))
