# Fused 2-D convolution + bias + ReLU, NCHW: 1x8x10x10 input, 8x8x3x3 weights, no padding (valid), output 1x8x8x8, float32.
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 8, 10, 10), "float32"), weight: T.Buffer((8, 8, 3, 3), "float32"), bias: T.Buffer((1, 8, 1, 1), "float32"), out: T.Buffer((1, 8, 8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    conv = T.alloc_buffer((1, 8, 8, 8))
    for n, f, y, x, rc, ry, rx in T.grid(1, 8, 8, 8, 8, 3, 3):
        with T.block("conv"):
            v_n, v_f, v_y, v_x, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
            T.reads(data[v_n, v_rc, v_y + v_ry, v_x + v_rx], weight[v_f, v_rc, v_ry, v_rx])
            T.writes(conv[v_n, v_f, v_y, v_x])
            with T.init():
                conv[v_n, v_f, v_y, v_x] = T.float32(0)
            conv[v_n, v_f, v_y, v_x] = conv[v_n, v_f, v_y, v_x] + data[v_n, v_rc, v_y + v_ry, v_x + v_rx] * weight[v_f, v_rc, v_ry, v_rx]
    for n, f, y, x in T.grid(1, 8, 8, 8):
        with T.block("bias_relu"):
            v_n, v_f, v_y, v_x = T.axis.remap("SSSS", [n, f, y, x])
            T.reads(conv[v_n, v_f, v_y, v_x], bias[v_n, v_f, 0, 0])
            T.writes(out[v_n, v_f, v_y, v_x])
            out[v_n, v_f, v_y, v_x] = T.max(conv[v_n, v_f, v_y, v_x] + bias[v_n, v_f, 0, 0], T.float32(0))
