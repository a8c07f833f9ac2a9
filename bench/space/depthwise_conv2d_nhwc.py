# Depthwise conv2d NHWC 1x112x112x32 -> 1x112x112x32, 3x3 kernel, stride 1,
# padding 1, channel multiplier 1 (a PadInput block, then the convolution):
# the DEP workload of MetaSchedule's CPU design-space tests, written here in
# TVMScript (names as its TE definition gives them; its unnamed placeholders
# become placeholder and placeholder_1).
# from tvm.script import tir as T

@T.prim_func
def main(placeholder: T.Buffer((1, 112, 112, 32), "float32"),
         placeholder_1: T.Buffer((1, 3, 3, 32), "float32"),
         depth_conv2d_nhwc: T.Buffer((1, 112, 112, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    PadInput = T.alloc_buffer((1, 114, 114, 32))
    for i0, i1, i2, i3 in T.grid(1, 114, 114, 32):
        with T.block("PadInput"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(placeholder[v_i0, v_i1 - 1, v_i2 - 1, v_i3])
            T.writes(PadInput[v_i0, v_i1, v_i2, v_i3])
            PadInput[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(
                1 <= v_i1 and v_i1 < 113 and 1 <= v_i2 and v_i2 < 113,
                placeholder[v_i0, v_i1 - 1, v_i2 - 1, v_i3], T.float32(0))
    for n, h, w, c, rh, rw in T.grid(1, 112, 112, 32, 3, 3):
        with T.block("depth_conv2d_nhwc"):
            v_n, v_h, v_w, v_c, v_rh, v_rw = T.axis.remap("SSSSRR", [n, h, w, c, rh, rw])
            T.reads(PadInput[v_n, v_h + v_rh, v_w + v_rw, v_c], placeholder_1[0, v_rh, v_rw, v_c])
            T.writes(depth_conv2d_nhwc[v_n, v_h, v_w, v_c])
            with T.init():
                depth_conv2d_nhwc[v_n, v_h, v_w, v_c] = T.float32(0)
            depth_conv2d_nhwc[v_n, v_h, v_w, v_c] = depth_conv2d_nhwc[v_n, v_h, v_w, v_c] + \
                PadInput[v_n, v_h + v_rh, v_w + v_rw, v_c] * placeholder_1[0, v_rh, v_rw, v_c]
