# Depthwise 2-D convolution, NCHW: 1x16x14x14 input, 16x1x3x3 weights (one filter per channel), stride 1, zero padding 1, float32.
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 16, 14, 14), "float32"), weight: T.Buffer((16, 1, 3, 3), "float32"), out: T.Buffer((1, 16, 14, 14), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    PaddedInput = T.alloc_buffer((1, 16, 16, 16))
    for i0, i1, i2, i3 in T.grid(1, 16, 16, 16):
        with T.block("PaddedInput"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(data[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
            T.writes(PaddedInput[v_i0, v_i1, v_i2, v_i3])
            PaddedInput[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 15 and 1 <= v_i3 and v_i3 < 15, data[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
    for b, c, i, j, di, dj in T.grid(1, 16, 14, 14, 3, 3):
        with T.block("DepthwiseConv2d"):
            v_b, v_c, v_i, v_j, v_di, v_dj = T.axis.remap("SSSSRR", [b, c, i, j, di, dj])
            T.reads(PaddedInput[v_b, v_c, v_i + v_di, v_j + v_dj], weight[v_c, 0, v_di, v_dj])
            T.writes(out[v_b, v_c, v_i, v_j])
            with T.init():
                out[v_b, v_c, v_i, v_j] = T.float32(0)
            out[v_b, v_c, v_i, v_j] = out[v_b, v_c, v_i, v_j] + PaddedInput[v_b, v_c, v_i + v_di, v_j + v_dj] * weight[v_c, 0, v_di, v_dj]
