# Softmax over a (1, m) float32 row with symbolic length m: max, exp-sum, normalize.
# from tvm.script import tir as T

@T.prim_func
def main(x: T.handle, y: T.handle):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    m = T.int64()
    X = T.match_buffer(x, (1, m), "float32")
    Y = T.match_buffer(y, (1, m), "float32")
    # with T.block("root"):
    row_max = T.alloc_buffer((1,))
    row_exp = T.alloc_buffer((1, m))
    row_sum = T.alloc_buffer((1,))
    for i, k in T.grid(1, m):
        with T.block("row_max"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(X[v_i, v_k])
            T.writes(row_max[v_i])
            with T.init():
                row_max[v_i] = T.float32(-3.4028234663852886e+38)
            row_max[v_i] = T.max(row_max[v_i], X[v_i, v_k])
    for i, j in T.grid(1, m):
        with T.block("row_exp"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(X[v_i, v_j], row_max[v_i])
            T.writes(row_exp[v_i, v_j])
            row_exp[v_i, v_j] = T.exp(X[v_i, v_j] - row_max[v_i])
    for i, k in T.grid(1, m):
        with T.block("row_sum"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(row_exp[v_i, v_k])
            T.writes(row_sum[v_i])
            with T.init():
                row_sum[v_i] = T.float32(0)
            row_sum[v_i] = row_sum[v_i] + row_exp[v_i, v_k]
    for i, j in T.grid(1, m):
        with T.block("normalize"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(row_exp[v_i, v_j], row_sum[v_i])
            T.writes(Y[v_i, v_j])
            Y[v_i, v_j] = row_exp[v_i, v_j] / row_sum[v_i]
