# MetaSchedule's te_workload.conv2d_nhwc(1, 16, 16, 64, 64, 1, 1, 0, float16 in, float32 out) as TVMScript (test_conv_1x1): a 1x1 convolution, its padding block a plain copy and the unit kernel iterators gone from the input's index, as te.create_prim_func gives them.
# from tvm.script import tir as T

@T.prim_func
def main(inputs: T.Buffer((1, 16, 16, 64), "float16"), weight: T.Buffer((1, 1, 64, 64), "float16"), conv2d_nhwc: T.Buffer((1, 16, 16, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    PadInput = T.alloc_buffer((1, 16, 16, 64), "float16")
    for i0, i1, i2, i3 in T.grid(1, 16, 16, 64):
        with T.block("PadInput"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(inputs[v_i0, v_i1, v_i2, v_i3])
            T.writes(PadInput[v_i0, v_i1, v_i2, v_i3])
            PadInput[v_i0, v_i1, v_i2, v_i3] = inputs[v_i0, v_i1, v_i2, v_i3]
    for n, h, w, co, rh, rw, rc in T.grid(1, 16, 16, 64, 1, 1, 64):
        with T.block("conv2d_nhwc"):
            v_n, v_h, v_w, v_co, v_rh, v_rw, v_rc = T.axis.remap("SSSSRRR", [n, h, w, co, rh, rw, rc])
            T.reads(PadInput[v_n, v_h, v_w, v_rc], weight[v_rh, v_rw, v_rc, v_co])
            T.writes(conv2d_nhwc[v_n, v_h, v_w, v_co])
            with T.init():
                conv2d_nhwc[v_n, v_h, v_w, v_co] = T.float32(0)
            conv2d_nhwc[v_n, v_h, v_w, v_co] = conv2d_nhwc[v_n, v_h, v_w, v_co] + T.Cast("float32", PadInput[v_n, v_h, v_w, v_rc]) * T.Cast("float32", weight[v_rh, v_rw, v_rc, v_co])
