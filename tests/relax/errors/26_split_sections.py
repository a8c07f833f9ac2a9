# R.split into more sections than the axis has elements.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 10), "float32")):
        with R.dataflow():
            y = R.split(x, indices_or_sections=12, axis=1)
            R.output(y)
        return y
