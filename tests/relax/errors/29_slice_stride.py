# R.strided_slice: strides are positive (a step of 0 or a backward slice is refused).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            y = R.strided_slice(x, axes=[1], begin=[6], end=[0], strides=[-1])
            R.output(y)
        return y
