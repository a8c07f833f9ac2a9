# MetaSchedule's te_workload.conv2d_nhwc(N=1, H=16, W=16, CI=32, CO=32, kernel_size=3, stride=1, padding=1, float16 in, float32 out) as TVMScript (blocks PadInput, conv2d_nhwc; names as its TE definition gives them): test_meta_schedule_schedule_rule_mlt_tc.py's convolution.
# from tvm.script import tir as T

@T.prim_func
def main(inputs: T.Buffer((1, 16, 16, 32), "float16"), weight: T.Buffer((3, 3, 32, 32), "float16"), conv2d_nhwc: T.Buffer((1, 16, 16, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    PadInput = T.alloc_buffer((1, 18, 18, 32), "float16")
    for i0, i1, i2, i3 in T.grid(1, 18, 18, 32):
        with T.block("PadInput"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(inputs[v_i0, v_i1 - 1, v_i2 - 1, v_i3])
            T.writes(PadInput[v_i0, v_i1, v_i2, v_i3])
            PadInput[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i1 and v_i1 < 17 and 1 <= v_i2 and v_i2 < 17, inputs[v_i0, v_i1 - 1, v_i2 - 1, v_i3], T.float16(0))
    for n, h, w, co, rh, rw, rc in T.grid(1, 16, 16, 32, 3, 3, 32):
        with T.block("conv2d_nhwc"):
            v_n, v_h, v_w, v_co, v_rh, v_rw, v_rc = T.axis.remap("SSSSRRR", [n, h, w, co, rh, rw, rc])
            T.reads(PadInput[v_n, v_h + v_rh, v_w + v_rw, v_rc], weight[v_rh, v_rw, v_rc, v_co])
            T.writes(conv2d_nhwc[v_n, v_h, v_w, v_co])
            with T.init():
                conv2d_nhwc[v_n, v_h, v_w, v_co] = T.float32(0)
            conv2d_nhwc[v_n, v_h, v_w, v_co] = conv2d_nhwc[v_n, v_h, v_w, v_co] + T.Cast("float32", PadInput[v_n, v_h + v_rh, v_w + v_rw, v_rc]) * T.Cast("float32", weight[v_rh, v_rw, v_rc, v_co])
