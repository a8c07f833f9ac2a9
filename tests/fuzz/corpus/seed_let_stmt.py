# Let statements inside a block: y = t * t + t with t = 2 * x + 1, over 64 float32 elements; plus an integer let for the index.
# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((64,), "float32"), Y: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(64):
        with T.block("Y"):
            v_i = T.axis.spatial(64, i)
            T.reads(X[v_i])
            T.writes(Y[v_i])
            t: T.float32 = X[v_i] * T.float32(2) + T.float32(1)
            j: T.int32 = 63 - v_i
            Y[63 - j] = t * t + t
