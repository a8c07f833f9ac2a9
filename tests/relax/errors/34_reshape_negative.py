# R.reshape: a size below -1 is refused where it is written.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            y = R.reshape(x, R.shape([-2, -16]))
            R.output(y)
        return y
