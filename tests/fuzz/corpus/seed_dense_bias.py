# Dense layer with bias: Y[n, o] = sum_k X[n, k] * W[o, k] + bias[o]; batch 16, 64 inputs, 32 outputs, float32.
# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((16, 64), "float32"), W: T.Buffer((32, 64), "float32"), bias: T.Buffer((32,), "float32"), Y: T.Buffer((16, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    dense = T.alloc_buffer((16, 32))
    for n, o, k in T.grid(16, 32, 64):
        with T.block("dense"):
            v_n, v_o, v_k = T.axis.remap("SSR", [n, o, k])
            T.reads(X[v_n, v_k], W[v_o, v_k])
            T.writes(dense[v_n, v_o])
            with T.init():
                dense[v_n, v_o] = T.float32(0)
            dense[v_n, v_o] = dense[v_n, v_o] + X[v_n, v_k] * W[v_o, v_k]
    for n, o in T.grid(16, 32):
        with T.block("bias_add"):
            v_n, v_o = T.axis.remap("SS", [n, o])
            T.reads(dense[v_n, v_o], bias[v_o])
            T.writes(Y[v_n, v_o])
            Y[v_n, v_o] = dense[v_n, v_o] + bias[v_o]
