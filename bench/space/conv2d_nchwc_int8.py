# An int8 convolution in NCHWc layout (MetaSchedule's x86 VNNI test
# workload): input (1, 4, 56, 56, 16) uint8, weight packed
# (16, 4, 1, 1, 4, 16, 4) int8 so that 16 output channels x 4 input channels
# are contiguous (the dot_16x4 intrinsics' B tile), int32 output.
@T.prim_func
def main(data: T.Buffer((1, 4, 56, 56, 16), "uint8"),
         weight: T.Buffer((16, 4, 1, 1, 4, 16, 4), "int8"),
         conv: T.Buffer((1, 16, 56, 56, 16), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for n, oc, oh, ow, ocb, kh, kw, ico, icf, ics in T.grid(1, 16, 56, 56, 16, 1, 1, 4, 4, 4):
        with T.block("conv"):
            vn, voc, voh, vow, vocb, vkh, vkw, vico, vicf, vics = T.axis.remap(
                "SSSSSRRRRR", [n, oc, oh, ow, ocb, kh, kw, ico, icf, ics])
            with T.init():
                conv[vn, voc, voh, vow, vocb] = 0
            conv[vn, voc, voh, vow, vocb] = conv[vn, voc, voh, vow, vocb] + T.Cast(
                "int32", data[vn, vico, voh + vkh, vow + vkw, vicf * 4 + vics]) * T.Cast(
                "int32", weight[voc, vico, vkh, vkw, vicf, vocb, vics])
