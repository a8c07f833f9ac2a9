# R.nn.conv2d: only NCHW data and OIHW weights.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((1, 8, 8, 3), "float32"), w: R.Tensor((3, 3, 3, 4), "float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO")
            R.output(y)
        return y
