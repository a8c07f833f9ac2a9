# 2-D convolution, NHWC layout: 1x14x14x16 input, 3x3x16x32 (HWIO) weights, stride 1, zero padding 1, float32.
# from tvm.script import tir as T

@T.prim_func
def main(inputs: T.Buffer((1, 14, 14, 16), "float32"), weight: T.Buffer((3, 3, 16, 32), "float32"), conv2d_nhwc: T.Buffer((1, 14, 14, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    PadInput = T.alloc_buffer((1, 16, 16, 16))
    for i0, i1, i2, i3 in T.grid(1, 16, 16, 16):
        with T.block("PadInput"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(inputs[v_i0, v_i1 - 1, v_i2 - 1, v_i3])
            T.writes(PadInput[v_i0, v_i1, v_i2, v_i3])
            PadInput[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i1 and v_i1 < 15 and 1 <= v_i2 and v_i2 < 15, inputs[v_i0, v_i1 - 1, v_i2 - 1, v_i3], T.float32(0))
    for n, h, w, co, rh, rw, rc in T.grid(1, 14, 14, 32, 3, 3, 16):
        with T.block("conv2d_nhwc"):
            v_n, v_h, v_w, v_co, v_rh, v_rw, v_rc = T.axis.remap("SSSSRRR", [n, h, w, co, rh, rw, rc])
            T.reads(PadInput[v_n, v_h + v_rh, v_w + v_rw, v_rc], weight[v_rh, v_rw, v_rc, v_co])
            T.writes(conv2d_nhwc[v_n, v_h, v_w, v_co])
            with T.init():
                conv2d_nhwc[v_n, v_h, v_w, v_co] = T.float32(0)
            conv2d_nhwc[v_n, v_h, v_w, v_co] = conv2d_nhwc[v_n, v_h, v_w, v_co] + PadInput[v_n, v_h + v_rh, v_w + v_rw, v_rc] * weight[v_rh, v_rw, v_rc, v_co]
