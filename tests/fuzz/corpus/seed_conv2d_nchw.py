# 2-D convolution, NCHW layout: 1x16x14x14 input, 16x16x3x3 (OIHW) weights, stride 1, zero padding 1, float32.
# from tvm.script import tir as T

@T.prim_func
def main(I: T.Buffer((1, 16, 14, 14), "float32"), W: T.Buffer((16, 16, 3, 3), "float32"), O: T.Buffer((1, 16, 14, 14), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    pad_temp = T.alloc_buffer((1, 16, 16, 16))
    for i0, i1, i2, i3 in T.grid(1, 16, 16, 16):
        with T.block("pad_temp"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(I[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
            T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
            pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 15 and 1 <= v_i3 and v_i3 < 15, I[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
    for nn, ff, yy, xx, rc, ry, rx in T.grid(1, 16, 14, 14, 16, 3, 3):
        with T.block("conv2d_nchw"):
            v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
            T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], W[v_ff, v_rc, v_ry, v_rx])
            T.writes(O[v_nn, v_ff, v_yy, v_xx])
            with T.init():
                O[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
            O[v_nn, v_ff, v_yy, v_xx] = O[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * W[v_ff, v_rc, v_ry, v_rx]
