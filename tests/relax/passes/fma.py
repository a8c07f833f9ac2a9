# The course's pattern: a multiply whose only reader is an add, for the
# fuse_multiply_add test plugin to rewrite into one ewise_fma prim_func.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Fma:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), y: R.Tensor((4, 8), "float32"),
             z: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            m = R.multiply(x, y)
            s = R.add(m, z)
            R.output(s)
        return s
