# ResNet-like 1x1 conv2d NHWC 1x56x56x64 -> 256 channels, float32 (a padding
# block of width 0): a corpus program of `./tessel bench auto --only transfer`
# (none of the evaluated workloads).
# from tvm.script import tir as T
@T.prim_func
def main(inputs: T.Buffer((1, 56, 56, 64), "float32"), weight: T.Buffer((1, 1, 64, 256), "float32"),
         conv2d_nhwc: T.Buffer((1, 56, 56, 256), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    PadInput = T.alloc_buffer((1, 56, 56, 64))
    for i0, i1, i2, i3 in T.grid(1, 56, 56, 64):
        with T.block("PadInput"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            PadInput[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(
                0 <= v_i1 and v_i1 < 56 and 0 <= v_i2 and v_i2 < 56,
                inputs[v_i0, v_i1 - 0, v_i2 - 0, v_i3], T.float32(0))
    for n, h, w, co, rh, rw, rc in T.grid(1, 56, 56, 256, 1, 1, 64):
        with T.block("conv2d_nhwc"):
            v_n, v_h, v_w, v_co, v_rh, v_rw, v_rc = T.axis.remap("SSSSRRR", [n, h, w, co, rh, rw, rc])
            with T.init():
                conv2d_nhwc[v_n, v_h, v_w, v_co] = T.float32(0)
            conv2d_nhwc[v_n, v_h, v_w, v_co] = conv2d_nhwc[v_n, v_h, v_w, v_co] + \
                PadInput[v_n, v_h * 1 + v_rh, v_w * 1 + v_rw, v_rc] * weight[v_rh, v_rw, v_rc, v_co]
