# Calls nested in operands, in a dataflow block, outside one and in the
# returned value: legalize leaves TVM's normal form (each call a binding,
# named lv, lv1, ... as TVM names them), which fuse then groups.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Nested:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), y: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            a = R.add(R.multiply(x, y), R.exp(x))
            R.output(a)
        lv = R.nn.relu(R.subtract(a, y))
        return R.add(R.sqrt(R.exp(lv)), x)
