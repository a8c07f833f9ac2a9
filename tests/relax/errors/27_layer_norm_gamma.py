# R.nn.layer_norm: gamma and beta have the shape of the normalized axes.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 10), "float32"), g: R.Tensor((8,), "float32"), b: R.Tensor((10,), "float32")):
        with R.dataflow():
            y = R.nn.layer_norm(x, g, b, axes=[-1])
            R.output(y)
        return y
