from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(128, 128, 128):
        with T.init():
            C[i, j] = T.float32(0)
        C[i, j] = C[i, j] + A[i, k] * B[k, j]
