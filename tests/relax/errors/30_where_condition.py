# R.where: the condition is a bool tensor.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), i: R.Tensor((3,), "int64")):
        with R.dataflow():
            y = R.where(x, x, x)
            R.output(y)
        return y
