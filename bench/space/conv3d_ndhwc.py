# 3-D convolution NDHWC 1x16x224x224x3 -> 1x8x112x112x64, 7x7x7 kernel
# (weight 7x7x7x3x64), stride 2, padding 3 (a PadInput block, then the
# convolution): the C3D workload of MetaSchedule's CPU design-space tests,
# written in TVMScript (names as its TE definition gives them).
# from tvm.script import tir as T

@T.prim_func
def main(inputs: T.Buffer((1, 16, 224, 224, 3), "float32"),
         weight: T.Buffer((7, 7, 7, 3, 64), "float32"),
         conv3d_ndhwc: T.Buffer((1, 8, 112, 112, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    PadInput = T.alloc_buffer((1, 22, 230, 230, 3))
    for i0, i1, i2, i3, i4 in T.grid(1, 22, 230, 230, 3):
        with T.block("PadInput"):
            v_i0, v_i1, v_i2, v_i3, v_i4 = T.axis.remap("SSSSS", [i0, i1, i2, i3, i4])
            T.reads(inputs[v_i0, v_i1 - 3, v_i2 - 3, v_i3 - 3, v_i4])
            T.writes(PadInput[v_i0, v_i1, v_i2, v_i3, v_i4])
            PadInput[v_i0, v_i1, v_i2, v_i3, v_i4] = T.if_then_else(
                3 <= v_i1 and v_i1 < 19 and 3 <= v_i2 and v_i2 < 227 and 3 <= v_i3 and v_i3 < 227,
                inputs[v_i0, v_i1 - 3, v_i2 - 3, v_i3 - 3, v_i4], T.float32(0))
    for n, d, h, w, co, rd, rh, rw, rc in T.grid(1, 8, 112, 112, 64, 7, 7, 7, 3):
        with T.block("conv3d_ndhwc"):
            v_n, v_d, v_h, v_w, v_co, v_rd, v_rh, v_rw, v_rc = T.axis.remap(
                "SSSSSRRRR", [n, d, h, w, co, rd, rh, rw, rc])
            T.reads(PadInput[v_n, v_d * 2 + v_rd, v_h * 2 + v_rh, v_w * 2 + v_rw, v_co // 64 * 3 + v_rc],
                    weight[v_rd, v_rh, v_rw, v_rc, v_co])
            T.writes(conv3d_ndhwc[v_n, v_d, v_h, v_w, v_co])
            with T.init():
                conv3d_ndhwc[v_n, v_d, v_h, v_w, v_co] = T.float32(0)
            conv3d_ndhwc[v_n, v_d, v_h, v_w, v_co] = conv3d_ndhwc[v_n, v_d, v_h, v_w, v_co] + \
                PadInput[v_n, v_d * 2 + v_rd, v_h * 2 + v_rh, v_w * 2 + v_rw, v_co // 64 * 3 + v_rc] * \
                weight[v_rd, v_rh, v_rw, v_rc, v_co]
