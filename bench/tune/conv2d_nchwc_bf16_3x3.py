# A ResNet 3x3 layer (56x56, 64 -> 64 channels, stride 1, padding 1) in
# bfloat16 with a float32 output, for `./tessel bench auto --only lowp`
# beside oneDNN's bf16 convolution: NCHW16c activations, the weight packed
# [OC / 16, IC / 16, 3, 3, 8, 16, 2] so that 16 output channels x 2 input
# channels are contiguous (the operand of dot_16x2_bf16_avx512), the padding
# a block of its own.
@T.prim_func
def main(data: T.Buffer((1, 4, 56, 56, 16), "bfloat16"),
         weight: T.Buffer((4, 4, 3, 3, 8, 16, 2), "bfloat16"),
         conv: T.Buffer((1, 4, 56, 56, 16), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    pad = T.alloc_buffer((1, 4, 58, 58, 16), "bfloat16")
    for n, c, h, w, cb in T.grid(1, 4, 58, 58, 16):
        with T.block("pad"):
            vn, vc, vh, vw, vcb = T.axis.remap("SSSSS", [n, c, h, w, cb])
            pad[vn, vc, vh, vw, vcb] = T.if_then_else(
                1 <= vh and vh < 57 and 1 <= vw and vw < 57,
                data[vn, vc, vh - 1, vw - 1, vcb], T.bfloat16(0))
    for n, oc, oh, ow, ocb, kh, kw, ico, icf, ics in T.grid(1, 4, 56, 56, 16, 3, 3, 4, 8, 2):
        with T.block("conv"):
            vn, voc, voh, vow, vocb, vkh, vkw, vico, vicf, vics = T.axis.remap(
                "SSSSSRRRRR", [n, oc, oh, ow, ocb, kh, kw, ico, icf, ics])
            with T.init():
                conv[vn, voc, voh, vow, vocb] = T.float32(0)
            conv[vn, voc, voh, vow, vocb] = conv[vn, voc, voh, vow, vocb] + T.Cast(
                "float32", pad[vn, vico, voh + vkh, vow + vkw, vicf * 2 + vics]) * T.Cast(
                "float32", weight[voc, vico, vkh, vkw, vicf, vocb, vics])
