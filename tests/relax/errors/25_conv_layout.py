# R.nn.conv2d: layouts are orders of NCHW and OIHW; blocked ones (NCHW16c) are refused.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((1, 1, 8, 8, 16), "float32"), w: R.Tensor((3, 3, 16, 4), "float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="HWIO")
            R.output(y)
        return y
