# Fused dense + bias + ReLU: Y = max(X @ W^T + bias, 0); batch 8, 128 inputs, 64 outputs, float32.
# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((8, 128), "float32"), W: T.Buffer((64, 128), "float32"), bias: T.Buffer((64,), "float32"), Y: T.Buffer((8, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    dense = T.alloc_buffer((8, 64))
    biased = T.alloc_buffer((8, 64))
    for i0, i1, k in T.grid(8, 64, 128):
        with T.block("dense"):
            v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
            T.reads(X[v_i0, v_k], W[v_i1, v_k])
            T.writes(dense[v_i0, v_i1])
            with T.init():
                dense[v_i0, v_i1] = T.float32(0)
            dense[v_i0, v_i1] = dense[v_i0, v_i1] + X[v_i0, v_k] * W[v_i1, v_k]
    for i0, i1 in T.grid(8, 64):
        with T.block("bias_add"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(dense[v_i0, v_i1], bias[v_i1])
            T.writes(biased[v_i0, v_i1])
            biased[v_i0, v_i1] = dense[v_i0, v_i1] + bias[v_i1]
    for i0, i1 in T.grid(8, 64):
        with T.block("relu"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(biased[v_i0, v_i1])
            T.writes(Y[v_i0, v_i1])
            Y[v_i0, v_i1] = T.max(biased[v_i0, v_i1], T.float32(0))
