# R.take: the axis it takes from has elements (an index into nothing is refused).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 0), "float32"), i: R.Tensor((3,), "int64")):
        with R.dataflow():
            y = R.take(x, i, axis=1)
            R.output(y)
        return y
