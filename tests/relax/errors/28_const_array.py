# R.const takes a scalar literal; an array is a weight (metadata["relax.expr.Constant"][i]).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            y = R.add(x, R.const([1.0, 2.0, 3.0, 4.0], "float32"))
            R.output(y)
        return y
