# Annotations that say more than the values (a tuple read from an object,
# printed back with itom tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Annotated:
    @R.function
    def main(t: R.Object, a: R.Tensor((3,), "int32"), b: R.Tensor((3,), "int32"),
             x: R.Tensor((":n", 4), "float32"), w: R.Tensor(("m", 4), "float32")):
        u: R.Tuple(R.Tensor((2,), "float32")) = t
        y = u[0]
        c = R.multiply(a, b)
        d = R.add(c, a)
        z = R.add(x, w)
        return (y, d, z)
