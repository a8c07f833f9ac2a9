# A dimension written as arithmetic of constants is that constant (7 * 4 is
# 28), so a matmul whose k then differs is refused at the call.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Folded:
    @R.function
    def main(x: R.Tensor((1, 7 * 4), "float32"), w: R.Tensor((784, 128), "float32")):
        y = R.matmul(x, w)
        return y
