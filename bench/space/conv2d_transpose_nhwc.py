# Transposed conv2d NHWC 1x4x4x512 -> 1x8x8x256, 4x4 kernel, stride 2,
# padding 1 (a PadInput block, then the convolution over the zero-dilated,
# padded input with the flipped kernel): the T2D workload of MetaSchedule's
# CPU design-space tests, written in TVMScript (names as its TE definition
# gives them).
# from tvm.script import tir as T

@T.prim_func
def main(inputs: T.Buffer((1, 4, 4, 512), "float32"), weight: T.Buffer((4, 4, 512, 256), "float32"),
         conv2d_transpose_nhwc: T.Buffer((1, 8, 8, 256), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    PadInput = T.alloc_buffer((1, 6, 6, 512))
    for i0, i1, i2, i3 in T.grid(1, 6, 6, 512):
        with T.block("PadInput"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(inputs[v_i0, v_i1 - 1, v_i2 - 1, v_i3])
            T.writes(PadInput[v_i0, v_i1, v_i2, v_i3])
            PadInput[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(
                1 <= v_i1 and v_i1 < 5 and 1 <= v_i2 and v_i2 < 5,
                inputs[v_i0, v_i1 - 1, v_i2 - 1, v_i3], T.float32(0))
    for n, h, w, co, rh, rw, rc in T.grid(1, 8, 8, 256, 4, 4, 512):
        with T.block("conv2d_transpose_nhwc"):
            v_n, v_h, v_w, v_co, v_rh, v_rw, v_rc = T.axis.remap("SSSSRRR", [n, h, w, co, rh, rw, rc])
            T.reads(PadInput[v_n, (v_h + v_rh) // 2, (v_w + v_rw) // 2, v_rc],
                    weight[3 - v_rh, 3 - v_rw, v_rc, v_co])
            T.writes(conv2d_transpose_nhwc[v_n, v_h, v_w, v_co])
            with T.init():
                conv2d_transpose_nhwc[v_n, v_h, v_w, v_co] = T.float32(0)
            conv2d_transpose_nhwc[v_n, v_h, v_w, v_co] = conv2d_transpose_nhwc[v_n, v_h, v_w, v_co] + \
                T.if_then_else((v_h + v_rh) % 2 == 0 and (v_w + v_rw) % 2 == 0,
                               PadInput[v_n, (v_h + v_rh) // 2, (v_w + v_rw) // 2, v_rc], T.float32(0)) * \
                weight[3 - v_rh, 3 - v_rw, v_rc, v_co]
