# The network operators in other layouts (1.7): NHWC data with HWIO weights, a grouped and
# dilated convolution with OHWI weights, pooling (max with ceil_mode, average with and without
# the padding counted) and adaptive pooling in NHWC, and a convolution in CNHW / IHWO.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class NnLayouts:
    @R.function
    def main(x: R.Tensor((2, 11, 11, 4), dtype="float32"), w: R.Tensor((3, 3, 4, 6), dtype="float32"),
             wg: R.Tensor((6, 3, 3, 2), dtype="float32"), xc: R.Tensor((4, 2, 11, 11), dtype="float32"),
             wi: R.Tensor((4, 3, 3, 6), dtype="float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO")
            r = R.nn.relu(c)
            g = R.nn.conv2d(r, wg, padding=[2, 2], dilation=[2, 2], groups=3, data_layout="NHWC", kernel_layout="OHWI")
            p = R.nn.max_pool2d(g, pool_size=[3, 3], strides=[2, 2], ceil_mode=True, layout="NHWC")
            q = R.nn.avg_pool2d(g, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout="NHWC")
            qc = R.nn.avg_pool2d(g, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True, layout="NHWC", out_layout="NHWC")
            a = R.nn.adaptive_avg_pool2d(g, output_size=[3, 3], layout="NHWC")
            k = R.nn.conv2d(xc, wi, padding=[1, 0, 0, 1], data_layout="CNHW", kernel_layout="IHWO")
            out = (c, g, p, q, qc, a, k)
            R.output(out)
        return out
