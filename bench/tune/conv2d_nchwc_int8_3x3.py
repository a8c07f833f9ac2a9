# A ResNet 3x3 layer (56x56, 64 -> 64 channels, stride 1, padding 1) in int8
# for `./tessel bench auto --only lowp`, beside oneDNN's u8 x s8 -> s32
# convolution: NCHW16c activations, the weight packed
# [OC / 16, IC / 16, 3, 3, 4, 16, 4] so that 16 output channels x 4 input
# channels are contiguous (the dot_16x4 intrinsics' operand, as TVM's
# conv2d_NCHWc_int8), the padding a block of its own.
@T.prim_func
def main(data: T.Buffer((1, 4, 56, 56, 16), "uint8"),
         weight: T.Buffer((4, 4, 3, 3, 4, 16, 4), "int8"),
         conv: T.Buffer((1, 4, 56, 56, 16), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    pad = T.alloc_buffer((1, 4, 58, 58, 16), "uint8")
    for n, c, h, w, cb in T.grid(1, 4, 58, 58, 16):
        with T.block("pad"):
            vn, vc, vh, vw, vcb = T.axis.remap("SSSSS", [n, c, h, w, cb])
            pad[vn, vc, vh, vw, vcb] = T.if_then_else(
                1 <= vh and vh < 57 and 1 <= vw and vw < 57,
                data[vn, vc, vh - 1, vw - 1, vcb], T.uint8(0))
    for n, oc, oh, ow, ocb, kh, kw, ico, icf, ics in T.grid(1, 4, 56, 56, 16, 3, 3, 4, 4, 4):
        with T.block("conv"):
            vn, voc, voh, vow, vocb, vkh, vkw, vico, vicf, vics = T.axis.remap(
                "SSSSSRRRRR", [n, oc, oh, ow, ocb, kh, kw, ico, icf, ics])
            with T.init():
                conv[vn, voc, voh, vow, vocb] = 0
            conv[vn, voc, voh, vow, vocb] = conv[vn, voc, voh, vow, vocb] + T.Cast(
                "int32", pad[vn, vico, voh + vkh, vow + vkw, vicf * 4 + vics]) * T.Cast(
                "int32", weight[voc, vico, vkh, vkw, vicf, vocb, vics])
