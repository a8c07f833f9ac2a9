# Batch normalization (inference) over NCHW 1x16x14x14: (x - mean[c]) / sqrt(|var[c]| + 1e-5) * gamma[c] + beta[c], float32.
# The variance is taken in absolute value so that random test inputs stay in the domain of sqrt.
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 16, 14, 14), "float32"), moving_mean: T.Buffer((16,), "float32"), moving_var: T.Buffer((16,), "float32"), gamma: T.Buffer((16,), "float32"), beta: T.Buffer((16,), "float32"), out: T.Buffer((1, 16, 14, 14), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    scale = T.alloc_buffer((16,))
    for c in range(16):
        with T.block("scale"):
            v_c = T.axis.spatial(16, c)
            T.reads(moving_var[v_c], gamma[v_c])
            T.writes(scale[v_c])
            scale[v_c] = gamma[v_c] / T.sqrt(T.fabs(moving_var[v_c]) + T.float32(1.0000000000000001e-05))
    for n, c, h, w in T.grid(1, 16, 14, 14):
        with T.block("bn"):
            v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
            T.reads(data[v_n, v_c, v_h, v_w], moving_mean[v_c], scale[v_c], beta[v_c])
            T.writes(out[v_n, v_c, v_h, v_w])
            out[v_n, v_c, v_h, v_w] = (data[v_n, v_c, v_h, v_w] - moving_mean[v_c]) * scale[v_c] + beta[v_c]
