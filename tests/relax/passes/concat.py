# R.concat of a tuple written in place and of a tuple value: legalize
# reads the value's fields (t[0], t[1]) as the prim_func's inputs.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class C:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 5), "float32")):
        t = (x, y)
        c = R.concat(t, axis=1)
        d = R.concat((x, x), axis=0)
        return (c, d)
