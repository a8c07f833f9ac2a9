# R.nn.conv2d: the weight's input channels (times groups) must be the data's channels.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), "float32"), w: R.Tensor((4, 2, 3, 3), "float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, w, padding=[1, 1])
            R.output(y)
        return y
