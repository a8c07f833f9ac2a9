# 2-D convolution, NCHW, stride 2: 1x8x16x16 input, 16x8x3x3 weights, zero padding 1, output 1x16x8x8, float32.
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 8, 16, 16), "float32"), kernel: T.Buffer((16, 8, 3, 3), "float32"), conv: T.Buffer((1, 16, 8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    data_pad = T.alloc_buffer((1, 8, 18, 18))
    for i0, i1, i2, i3 in T.grid(1, 8, 18, 18):
        with T.block("data_pad"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(data[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
            T.writes(data_pad[v_i0, v_i1, v_i2, v_i3])
            data_pad[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 17 and 1 <= v_i3 and v_i3 < 17, data[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
    for n, f, y, x, rc, ry, rx in T.grid(1, 16, 8, 8, 8, 3, 3):
        with T.block("conv"):
            v_n, v_f, v_y, v_x, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
            T.reads(data_pad[v_n, v_rc, v_y * 2 + v_ry, v_x * 2 + v_rx], kernel[v_f, v_rc, v_ry, v_rx])
            T.writes(conv[v_n, v_f, v_y, v_x])
            with T.init():
                conv[v_n, v_f, v_y, v_x] = T.float32(0)
            conv[v_n, v_f, v_y, v_x] = conv[v_n, v_f, v_y, v_x] + data_pad[v_n, v_rc, v_y * 2 + v_ry, v_x * 2 + v_rx] * kernel[v_f, v_rc, v_ry, v_rx]
