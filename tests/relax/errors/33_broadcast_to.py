# R.broadcast_to: each dimension of the data is 1 or the target's.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), i: R.Tensor((3,), "int64")):
        with R.dataflow():
            y = R.broadcast_to(x, R.shape([4, 4]))
            R.output(y)
        return y
