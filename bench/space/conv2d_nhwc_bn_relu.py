# Conv2d NHWC 1x224x224x3 -> 1x112x112x64, 7x7 kernel, stride 2, padding 3,
# followed by bias add, batch-norm scale and offset, and ReLU (blocks
# PaddedInput, Conv2dOutput, bias_add, bn_mul, bn_add, compute): the CBR
# workload of MetaSchedule's CPU design-space tests, written in TVMScript
# (names as its TE definition gives them).
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 224, 224, 3), "float32"), kernel: T.Buffer((7, 7, 3, 64), "float32"),
         bias: T.Buffer((64,), "float32"), bn_offset: T.Buffer((64,), "float32"),
         bn_scale: T.Buffer((64,), "float32"), compute: T.Buffer((1, 112, 112, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    PaddedInput = T.alloc_buffer((1, 230, 230, 3))
    Conv2dOutput = T.alloc_buffer((1, 112, 112, 64))
    bias_add = T.alloc_buffer((1, 112, 112, 64))
    bn_mul = T.alloc_buffer((1, 112, 112, 64))
    bn_add = T.alloc_buffer((1, 112, 112, 64))
    for i0, i1, i2, i3 in T.grid(1, 230, 230, 3):
        with T.block("PaddedInput"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(data[v_i0, v_i1 - 3, v_i2 - 3, v_i3])
            T.writes(PaddedInput[v_i0, v_i1, v_i2, v_i3])
            PaddedInput[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(
                3 <= v_i1 and v_i1 < 227 and 3 <= v_i2 and v_i2 < 227,
                data[v_i0, v_i1 - 3, v_i2 - 3, v_i3], T.float32(0))
    for nn, yy, xx, ff, ry, rx, rc in T.grid(1, 112, 112, 64, 7, 7, 3):
        with T.block("Conv2dOutput"):
            v_nn, v_yy, v_xx, v_ff, v_ry, v_rx, v_rc = T.axis.remap("SSSSRRR", [nn, yy, xx, ff, ry, rx, rc])
            T.reads(PaddedInput[v_nn, v_yy * 2 + v_ry, v_xx * 2 + v_rx, v_rc], kernel[v_ry, v_rx, v_rc, v_ff])
            T.writes(Conv2dOutput[v_nn, v_yy, v_xx, v_ff])
            with T.init():
                Conv2dOutput[v_nn, v_yy, v_xx, v_ff] = T.float32(0)
            Conv2dOutput[v_nn, v_yy, v_xx, v_ff] = Conv2dOutput[v_nn, v_yy, v_xx, v_ff] + \
                PaddedInput[v_nn, v_yy * 2 + v_ry, v_xx * 2 + v_rx, v_rc] * kernel[v_ry, v_rx, v_rc, v_ff]
    for i, j, k, l in T.grid(1, 112, 112, 64):
        with T.block("bias_add"):
            v_i, v_j, v_k, v_l = T.axis.remap("SSSS", [i, j, k, l])
            T.reads(Conv2dOutput[v_i, v_j, v_k, v_l], bias[v_l])
            T.writes(bias_add[v_i, v_j, v_k, v_l])
            bias_add[v_i, v_j, v_k, v_l] = Conv2dOutput[v_i, v_j, v_k, v_l] + bias[v_l]
    for i, j, k, l in T.grid(1, 112, 112, 64):
        with T.block("bn_mul"):
            v_i, v_j, v_k, v_l = T.axis.remap("SSSS", [i, j, k, l])
            T.reads(bias_add[v_i, v_j, v_k, v_l], bn_scale[v_l])
            T.writes(bn_mul[v_i, v_j, v_k, v_l])
            bn_mul[v_i, v_j, v_k, v_l] = bias_add[v_i, v_j, v_k, v_l] * bn_scale[v_l]
    for i, j, k, l in T.grid(1, 112, 112, 64):
        with T.block("bn_add"):
            v_i, v_j, v_k, v_l = T.axis.remap("SSSS", [i, j, k, l])
            T.reads(bn_mul[v_i, v_j, v_k, v_l], bn_offset[v_l])
            T.writes(bn_add[v_i, v_j, v_k, v_l])
            bn_add[v_i, v_j, v_k, v_l] = bn_mul[v_i, v_j, v_k, v_l] + bn_offset[v_l]
    for i0, i1, i2, i3 in T.grid(1, 112, 112, 64):
        with T.block("compute"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(bn_add[v_i0, v_i1, v_i2, v_i3])
            T.writes(compute[v_i0, v_i1, v_i2, v_i3])
            compute[v_i0, v_i1, v_i2, v_i3] = T.max(bn_add[v_i0, v_i1, v_i2, v_i3], T.float32(0))
