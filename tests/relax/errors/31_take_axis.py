# R.take: the axis is given (TVM's default flattens the data).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), i: R.Tensor((3,), "int64")):
        with R.dataflow():
            y = R.take(x, i)
            R.output(y)
        return y
